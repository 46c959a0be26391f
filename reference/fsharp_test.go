package reference

import (
	"testing"

	"github.com/scatterconf/scatter"
)

// fsSrc is the 3×4 matrix of the F# docstrings and Tensor.Sample.
func fsSrc() scatter.Tensor {
	return shaped(scatter.FromSlice([]float64{0.0, 0.1, 0.2, 0.3, 1.0, 1.1, 1.2, 1.3, 2.0, 2.1, 2.2, 2.3}), 3, 4)
}

func fsI0() scatter.Tensor { return shaped(i64(0, 0, 0, 0, 2, 2, 2, 2, 1, 1, 1, 1), 3, 4) }
func fsI1() scatter.Tensor { return shaped(i64(3, 3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3), 3, 4) }

func TestTensorScatterValidation(t *testing.T) {
	none := scatter.Tensor{}
	a43 := shaped(f32(make([]float32, 12)...), 4, 3)
	cases := []codeCase{
		{name: "example", call: scatter.TensorScatter{Indices: []scatter.Tensor{fsI0(), fsI1()}, Shape: []int{4, 4}, Src: fsSrc()}},
		{name: "disperse/fits", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, none}, Shape: []int{5, 3}, Src: a43}},
		{name: "disperse/too-small", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, none}, Shape: []int{3, 3}, Src: a43},
			want: codes(scatter.ErrIndexOutOfRange)},
		{name: "indices/count", call: scatter.TensorScatter{Indices: []scatter.Tensor{none}, Shape: []int{5, 3}, Src: a43},
			want: codes(scatter.ErrInvalidArgument)},
		{name: "indices/none-beyond-src", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, none, none}, Shape: []int{5, 3, 2}, Src: a43},
			want: codes(scatter.ErrInvalidArgument)},
		{name: "indices/given-beyond-src", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, none, i64(1)}, Shape: []int{5, 3, 2}, Src: a43}},
		{name: "indices/target-rank-below-src", call: scatter.TensorScatter{Indices: []scatter.Tensor{i64(0, 0, 0)}, Shape: []int{5}, Src: a43},
			want: codes(scatter.ErrInvalidArgument)},
		{name: "shape/negative", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, none}, Shape: []int{-1, 3}, Src: a43},
			want: codes(scatter.ErrInvalidArgument)},
		{name: "index/int32", call: scatter.TensorScatter{Indices: []scatter.Tensor{scatter.FromSlice([]int32{0, 1, 2}), none}, Shape: []int{5, 3}, Src: a43},
			want: codes(scatter.ErrIndexDType)},
		{name: "index/broadcast-row", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, i64(2, 1, 0)}, Shape: []int{4, 3}, Src: a43}},
		{name: "index/broadcast-bad", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, i64(2, 1, 0, 0)}, Shape: []int{4, 3}, Src: a43},
			want: codes(scatter.ErrShapeMismatch)},
		{name: "index/rank-above-src", call: scatter.TensorScatter{Indices: []scatter.Tensor{shaped(i64(0), 1, 1, 1), none}, Shape: []int{4, 3}, Src: a43},
			want: codes(scatter.ErrShapeMismatch)},
		{name: "index/negative", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, i64(0, -1, 0)}, Shape: []int{4, 3}, Src: a43},
			want: codes(scatter.ErrIndexOutOfRange)},
		{name: "bool", call: scatter.TensorScatter{Indices: []scatter.Tensor{none}, Shape: []int{2}, Src: scatter.FromSlice([]bool{true, false})},
			want: codes(scatter.ErrUnsupportedDType)},
		// several rules broken: all of them, in the library's order; the
		// index values are read only where the indices map to the target
		{name: "index/int32+negative", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, scatter.FromSlice([]int32{0, -1, 0})}, Shape: []int{4, 3}, Src: a43},
			want: codes(scatter.ErrIndexDType, scatter.ErrIndexOutOfRange)},
		{name: "index/float32+negative", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, f32(0, -1, 0)}, Shape: []int{4, 3}, Src: a43},
			want: codes(scatter.ErrIndexDType)},
		{name: "shape/negative+broadcast-bad", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, i64(2, 1, 0, 0)}, Shape: []int{-1, 3}, Src: a43},
			want: codes(scatter.ErrInvalidArgument, scatter.ErrShapeMismatch)},
		{name: "shape/negative/values-unread", call: scatter.TensorScatter{Indices: []scatter.Tensor{none, i64(9, 9, 9)}, Shape: []int{-1, 3}, Src: a43},
			want: codes(scatter.ErrInvalidArgument)},
		{name: "indices/count+bool", call: scatter.TensorScatter{Indices: []scatter.Tensor{none}, Shape: []int{2, 2}, Src: scatter.FromSlice([]bool{true, false})},
			want: codes(scatter.ErrInvalidArgument, scatter.ErrUnsupportedDType)},
		{name: "indices/target-rank-below-src/values-unread", call: scatter.TensorScatter{Indices: []scatter.Tensor{i64(9, 9, 9)}, Shape: []int{5}, Src: a43},
			want: codes(scatter.ErrInvalidArgument)},
		{name: "index/broadcast-bad/values-unread", call: scatter.TensorScatter{Indices: []scatter.Tensor{i64(9, 9, 9, 9), i64(2, 1, 0, 0)}, Shape: []int{4, 3}, Src: a43},
			want: codes(scatter.ErrShapeMismatch)},
		{name: "bool+out-of-range", call: scatter.TensorScatter{Indices: []scatter.Tensor{i64(0, 5)}, Shape: []int{2}, Src: scatter.FromSlice([]bool{true, false})},
			want: codes(scatter.ErrUnsupportedDType, scatter.ErrIndexOutOfRange)},
		{name: "0-d", call: scatter.TensorScatter{Indices: []scatter.Tensor{}, Shape: []int{}, Src: scatter.Scalar0D[float32](2)}},
		{name: "0-d-into-1-d", call: scatter.TensorScatter{Indices: []scatter.Tensor{scatter.Scalar0D[int64](1)}, Shape: []int{3}, Src: scatter.Scalar0D[float32](2)}},
	}
	runCodeCases(t, cases)
}

func TestTensorGatherValidation(t *testing.T) {
	none := scatter.Tensor{}
	cases := []codeCase{
		{name: "example", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(1, 2, 0, 0), i64(3, 1, 0, 3)}, Src: fsSrc()}},
		{name: "none-first", call: scatter.TensorGather{Indices: []scatter.Tensor{none, i64(3, 1, 0)}, Src: fsSrc()}},
		{name: "none-first/too-long", call: scatter.TensorGather{Indices: []scatter.Tensor{none, i64(3, 1, 0, 0)}, Src: fsSrc()},
			want: codes(scatter.ErrIndexOutOfRange)},
		{name: "all-none", call: scatter.TensorGather{Indices: []scatter.Tensor{none, none}, Src: fsSrc()}, want: codes(scatter.ErrInvalidArgument)},
		{name: "broadcast-bad", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(1, 2), i64(3, 1, 0)}, Src: fsSrc()}, want: codes(scatter.ErrShapeMismatch)},
		{name: "broadcast-outer", call: scatter.TensorGather{Indices: []scatter.Tensor{shaped(i64(0, 1, 2), 3, 1), i64(0, 1, 2, 3)}, Src: fsSrc()}},
		{name: "count", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(1)}, Src: fsSrc()}, want: codes(scatter.ErrInvalidArgument)},
		{name: "broadcast-before-count", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(1, 2), i64(3, 1, 0), i64(0)}, Src: fsSrc()},
			want: codes(scatter.ErrShapeMismatch, scatter.ErrInvalidArgument)},
		{name: "all-none+count", call: scatter.TensorGather{Indices: []scatter.Tensor{none}, Src: fsSrc()},
			want: codes(scatter.ErrInvalidArgument)},
		{name: "broadcast-bad/values-unread", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(9, 9), i64(3, 1, 0)}, Src: fsSrc()},
			want: codes(scatter.ErrShapeMismatch)},
		{name: "count/values-unread", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(9)}, Src: fsSrc()}, want: codes(scatter.ErrInvalidArgument)},
		{name: "int32+negative", call: scatter.TensorGather{Indices: []scatter.Tensor{scatter.FromSlice([]int32{-1}), i64(0)}, Src: fsSrc()},
			want: codes(scatter.ErrIndexDType, scatter.ErrIndexOutOfRange)},
		// int32 indices of 5,000 elements that broadcast to a target of 25M,
		// more than the reference makes: for a call that breaks another rule
		// the values are not walked, so the last one, out of range, is not
		// seen (the reference makes no such target either)
		{name: "int32/target-too-large", call: scatter.TensorGather{Indices: []scatter.Tensor{
			shaped(scatter.FromSlice(append(make([]int32, 4999), 7)), 5000, 1), shaped(i64(make([]int64, 5000)...), 1, 5000)}, Src: fsSrc()},
			want: codes(scatter.ErrIndexDType)},
		{name: "float64+negative", call: scatter.TensorGather{Indices: []scatter.Tensor{scatter.FromSlice([]float64{-1}), i64(0)}, Src: fsSrc()},
			want: codes(scatter.ErrIndexDType)},
		{name: "none-beyond-target", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(1), none}, Src: fsSrc()}, want: codes(scatter.ErrInvalidArgument)},
		{name: "target-rank-above-src", call: scatter.TensorGather{Indices: []scatter.Tensor{shaped(i64(0), 1, 1, 1), i64(0)}, Src: fsSrc()},
			want: codes(scatter.ErrInvalidArgument)},
		{name: "int32", call: scatter.TensorGather{Indices: []scatter.Tensor{scatter.FromSlice([]int32{0}), i64(0)}, Src: fsSrc()}, want: codes(scatter.ErrIndexDType)},
		{name: "negative", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(-1), i64(0)}, Src: fsSrc()}, want: codes(scatter.ErrIndexOutOfRange)},
		{name: "bool", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(1, 0)}, Src: scatter.FromSlice([]bool{true, false})}},
		{name: "empty", call: scatter.TensorGather{Indices: []scatter.Tensor{i64(), i64()}, Src: fsSrc()}},
	}
	runCodeCases(t, cases)
}

func TestTensorPlans(t *testing.T) {
	p, es := planTensorScatter(scatter.TensorScatter{Indices: []scatter.Tensor{fsI0(), fsI1()}, Shape: []int{4, 4}, Src: fsSrc()}, scatter.Torch2)
	if es != nil {
		t.Fatal(es)
	}
	if want := "3:[0 1 2 3] 4:[8] 5:[9] 6:[10] 7:[11] 8:[4] 9:[5] 10:[6] 11:[7] "; groupsOf(p) != want {
		t.Errorf("scatter groups %q, want %q", groupsOf(p), want)
	}
	if p.kind != kSum || !p.self || !sameFloats(floats(p.init), make([]float64, 16)) {
		t.Errorf("scatter kind %v self %v init %v", p.kind, p.self, floats(p.init))
	}
	p, es = planTensorGather(scatter.TensorGather{Indices: []scatter.Tensor{{}, i64(3, 1, 0)}, Src: fsSrc()}, scatter.Torch2)
	if es != nil {
		t.Fatal(es)
	}
	if want := "0:[3] 1:[5] 2:[8] "; groupsOf(p) != want {
		t.Errorf("gather groups %q, want %q", groupsOf(p), want)
	}
	if p.kind != kAssign || len(p.shape) != 1 || p.shape[0] != 3 {
		t.Errorf("gather kind %v shape %v", p.kind, p.shape)
	}
}

func TestTensorRun(t *testing.T) {
	a43 := shaped(f32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), 4, 3)
	cases := []struct {
		name string
		call scatter.Call
		out  []float64
	}{
		{"scatter/example", scatter.TensorScatter{Indices: []scatter.Tensor{fsI0(), fsI1()}, Shape: []int{4, 4}, Src: fsSrc()},
			[]float64{0, 0, 0, 0.6000000000000001, 2.0, 2.1, 2.2, 2.3, 1.0, 1.1, 1.2, 1.3, 0, 0, 0, 0}},
		{"scatter/disperse-3", scatter.TensorScatter{Indices: []scatter.Tensor{{}, {}}, Shape: []int{5, 3}, Src: a43},
			[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 0}},
		{"scatter/duplicates", scatter.TensorScatter{Indices: []scatter.Tensor{i64(1, 1, 0)}, Shape: []int{3}, Src: f32(1, 2, 4)}, []float64{4, 3, 0}},
		{"gather/example", scatter.TensorGather{Indices: []scatter.Tensor{i64(1, 2, 0, 0), i64(3, 1, 0, 3)}, Src: fsSrc()}, []float64{1.3, 2.1, 0.0, 0.3}},
		{"gather/none", scatter.TensorGather{Indices: []scatter.Tensor{{}, i64(3, 1, 0)}, Src: fsSrc()}, []float64{0.3, 1.1, 2.0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := runRef(t, scatter.Torch2, tc.call)
			if err != nil {
				t.Fatal(err)
			}
			if got := floats(res.Out); !sameFloats(got, tc.out) {
				t.Errorf("out %v, want %v", got, tc.out)
			}
		})
	}
	_, err := New(scatter.Torch2).Run(scatter.TensorScatter{Indices: []scatter.Tensor{{}, {}}, Shape: []int{3, 3}, Src: a43})
	if scatter.CodeOf(err) != scatter.ErrIndexOutOfRange {
		t.Errorf("disperse into [3;3]: %v, want index_out_of_range", err)
	}
}
