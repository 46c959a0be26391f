package cuda

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/scatterconf/scatter"
)

func sortedIdx(n, hi int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i * hi / n)
	}
	return v
}

// capsDevice is a device that only answers Caps: enough for the planner.
type capsDevice struct{ c caps }

func (d capsDevice) Name() string                               { return "caps only" }
func (d capsDevice) Malloc(int) (uint64, error)                 { return 0, &devError{op: "malloc", msg: "no memory"} }
func (d capsDevice) Free(uint64)                                {}
func (d capsDevice) CopyHtoD(uint64, unsafe.Pointer, int) error { return nil }
func (d capsDevice) CopyDtoH(unsafe.Pointer, uint64, int) error { return nil }
func (d capsDevice) CopyDtoD(uint64, uint64, int) error         { return nil }
func (d capsDevice) Memset(uint64, byte, int) error             { return nil }
func (d capsDevice) Launch(string, uint32, uint32, *params) error {
	return nil
}
func (d capsDevice) Sync() error                   { return nil }
func (d capsDevice) Config(int64) (uint32, uint32) { return 1, 32 }
func (d capsDevice) Caps() caps                    { return d.c }

// TestWorkloadPlans checks that the standard workloads (scaled down, same
// shapes of index and ratios) take the fast paths PERFORMANCE.md asks for:
// a performance regression in the planner fails here, without a GPU.
func TestWorkloadPlans(t *testing.T) {
	b := newBackend(capsDevice{caps{vecRed: true}}, scatter.Torch2, config{})
	r := rand.New(rand.NewPCG(1, 1))
	const n1, m1 = 80_000, 8_000
	const rows, cols, outRows = 4_000, 64, 400
	src1 := scatter.FromSlice(uniformF32(r, n1))
	idx1 := scatter.FromSlice(uniformIdx(r, n1, m1))
	zeros1, _ := scatter.Zeros(scatter.DTFloat32, m1)
	rowIdx := uniformIdx(r, rows, outRows)
	src2 := scatter.FromSlice(uniformF32(r, rows*cols), rows, cols)
	zeros2, _ := scatter.Zeros(scatter.DTFloat32, outRows, cols)
	expanded := scatter.Tensor{Shape: []int{rows, cols}, Strides: []int{1, 0}, Data: rowIdx}
	zeros6, _ := scatter.Zeros(scatter.DTFloat32, 16)
	bf := make([]scatter.BFloat16, n1)
	zeros7, _ := scatter.Zeros(scatter.DTBFloat16, m1)

	type want struct {
		kernels []string // in order, launches only
		flags   int64    // flags the scatter launch must have
		lanes   int64
	}
	cases := []struct {
		name string
		call scatter.Call
		want want
	}{
		{"W1", scatter.ScatterAdd{Self: zeros1, Index: idx1, Src: src1},
			want{[]string{"scatter_f32"}, fLinear, 0}},
		{"W2", scatter.ScatterAdd{Self: zeros2, Index: expanded, Src: src2},
			want{[]string{"rows_f32"}, fVec4 | fVecRed, 16}},
		{"W3", scatter.ScatterReduce{Self: zeros1, Index: idx1, Src: src1, Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			want{[]string{"fill_w4", "scatter_f32", "finalize_f32"}, fLinear, 0}},
		{"W4", scatter.ScatterReduce{Self: zeros1, Index: idx1, Src: src1, Reduce: scatter.ReduceMean},
			want{[]string{"scatter_f32", "finalize_f32"}, fLinear, 0}},
		{"W5", scatter.IndexReduce{Self: zeros2, Index: scatter.FromSlice(rowIdx), Source: src2, Reduce: scatter.ReduceAmax},
			want{[]string{"init_f32", "rows_f32"}, fVec4 | fVecRed, 16}},
		{"W6", scatter.ScatterAdd{Self: zeros6, Index: scatter.FromSlice(uniformIdx(r, n1, 16)), Src: src1},
			want{[]string{"smem_f32"}, 0, 0}},
		{"W7", scatter.ScatterAdd{Self: zeros7, Index: idx1, Src: scatter.FromSlice(bf)},
			want{[]string{"init_bf16o", "scatter_bf16o", "finalize_bf16o"}, fLinear, 0}},
		{"sorted-index", scatter.ScatterAdd{Self: zeros1, Index: scatter.FromSlice(sortedIdx(n1, m1)), Src: src1},
			want{[]string{"warpagg_f32"}, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var pr *program
			var err error
			switch cl := c.call.(type) {
			case scatter.ScatterAdd:
				pr, err = b.planScatter(scatter.Scatter{Self: cl.Self, Index: cl.Index, Src: cl.Src, Reduce: scatter.ReduceAdd})
			case scatter.ScatterReduce:
				pr, err = b.planScatterReduce(cl)
			case scatter.IndexReduce:
				pr, err = b.planIndexReduce(cl)
			}
			if err != nil || pr == nil {
				t.Fatalf("not planned for the GPU: %v", err)
			}
			var got []string
			for _, s := range pr.steps {
				if s.kind != stepLaunch {
					continue
				}
				got = append(got, s.kernel)
				if strings.HasPrefix(s.kernel, "scatter_") || strings.HasPrefix(s.kernel, "rows_") || strings.HasPrefix(s.kernel, "smem_") {
					if s.p.Flags&c.want.flags != c.want.flags {
						t.Errorf("%s: flags %#x, want %#x set", s.kernel, s.p.Flags, c.want.flags)
					}
					if c.want.lanes != 0 && s.p.Lanes != c.want.lanes {
						t.Errorf("%s: %d lanes per row, want %d", s.kernel, s.p.Lanes, c.want.lanes)
					}
				}
			}
			if strings.Join(got, " ") != strings.Join(c.want.kernels, " ") {
				t.Errorf("launches %v, want %v", got, c.want.kernels)
			}
			// the expanded index is uploaded once per row, not per element
			if c.name == "W2" || c.name == "W5" {
				for _, bu := range pr.bufs {
					if bu.size == rows*cols*8 {
						t.Errorf("the expanded index was materialised (%d bytes)", bu.size)
					}
				}
			}
		})
	}
}
