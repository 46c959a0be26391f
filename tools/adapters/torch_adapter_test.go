package adapters_test

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
)

// torchPython returns a python3 that imports torch and numpy:
// $SCATTER_TORCH_PYTHON, else /usr/bin/python3 (Debian's torch 1.13).
func torchPython(t *testing.T) string {
	t.Helper()
	py := os.Getenv("SCATTER_TORCH_PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
	}
	out, err := exec.Command(py, "-c", "import torch, numpy; print(torch.__version__)").CombinedOutput()
	if err != nil {
		t.Skipf("skipping the PyTorch adapter: %s cannot import torch and numpy (set SCATTER_TORCH_PYTHON to one that can): %v: %s",
			py, err, lastLine(string(out)))
	}
	return py
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// startAdapter starts torch_adapter.py under protocol.Client.
func startAdapter(t *testing.T) *protocol.Client {
	t.Helper()
	py := torchPython(t)
	script, err := filepath.Abs("torch_adapter.py")
	if err != nil {
		t.Fatal(err)
	}
	c, err := protocol.NewClient(shellQuote(py)+" "+shellQuote(script), protocol.ClientOptions{Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("starting the adapter: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			t.Logf("adapter stderr:\n%s", c.Stderr())
		}
	})
	return c
}

// Tensor builders.
func i64(v []int64, shape ...int) scatter.Tensor   { return scatter.FromSlice(v, shape...) }
func f32(v []float32, shape ...int) scatter.Tensor { return scatter.FromSlice(v, shape...) }
func f64(v []float64, shape ...int) scatter.Tensor { return scatter.FromSlice(v, shape...) }

func arange64(n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i) * scale
	}
	return v
}

// sameFloats compares element values with NaN equal to NaN and -0 equal to +0.
func sameFloats(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			return false
		}
	}
	return true
}

// floatsOf returns a float tensor's (or an integer one's) values as float64.
func floatsOf(t scatter.Tensor) []float64 {
	pos := t.Positions()
	v := make([]float64, len(pos))
	for i, p := range pos {
		v[i] = scatter.Float64At(t.Data, p)
	}
	return v
}

type expect struct {
	dtype scatter.DType
	shape []int
	vals  []float64
	arg   []int64 // torch_scatter min/max
}

func checkResult(t *testing.T, res scatter.Result, want expect) {
	t.Helper()
	if res.Out.DType() != want.dtype || !reflect.DeepEqual(res.Out.Shape, want.shape) {
		t.Fatalf("out is %v %v, want %v %v", res.Out.DType(), res.Out.Shape, want.dtype, want.shape)
	}
	if got := floatsOf(res.Out); !sameFloats(got, want.vals) {
		t.Fatalf("out = %v, want %v", got, want.vals)
	}
	if want.arg != nil {
		got, ok := scatter.Values[int64](res.Arg)
		if !ok || !reflect.DeepEqual(got, want.arg) {
			t.Fatalf("arg = %v, want %v", res.Arg, want.arg)
		}
	} else if !res.Arg.IsZero() {
		t.Fatalf("unexpected arg %v", res.Arg)
	}
}

func TestTorchAdapter(t *testing.T) {
	c := startAdapter(t)
	info := c.Info()
	t.Logf("adapter: %s %s", info.Name, info.Version)
	torch1 := strings.HasPrefix(info.Version, "1.")
	if info.Name != "torch" || !reflect.DeepEqual(info.Ops, scatter.Ops) || !reflect.DeepEqual(info.DTypes, scatter.DTypes) || !info.Deterministic {
		t.Fatalf("Info = %+v", info)
	}

	docs := []float32{1, 2, 3, 4, 5, 6}
	docIdx := i64([]int64{0, 1, 0, 1, 2, 1})
	tsSrc := f32([]float32{1, 3, 2, 4, 5, 6}) // torch_scatter's README and test_scatter.py
	tsIdx := i64([]int64{0, 1, 0, 1, 1, 3})
	rows := f32([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 4, 3)
	full := func(v float32, shape ...int) scatter.Tensor {
		n, _ := scatter.NumElements(shape)
		d := make([]float32, n)
		for i := range d {
			d[i] = v
		}
		return f32(d, shape...)
	}
	v := arange64(12, 0.1)
	fsSrc := f64(v, 3, 4)
	row0 := 0.0 // the F# sum: +0, then src row 0 in order
	for _, x := range v[:4] {
		row0 += x
	}

	ok := []struct {
		name string
		call scatter.Call
		want expect
	}{
		{"scatter/docs/#1", scatter.Scatter{Self: i64(make([]int64, 15), 3, 5), Dim: 0, Index: i64([]int64{0, 1, 2, 0}, 1, 4),
			Src: i64([]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 2, 5)},
			expect{scatter.DTInt64, []int{3, 5}, []float64{1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0}, nil}},
		{"scatter/value/float-into-int32/#30", scatter.Scatter{Self: scatter.FromSlice(make([]int32, 3)), Dim: 0, Index: i64([]int64{0}),
			Value: scatter.Ptr(scatter.Float(-2.7))},
			expect{scatter.DTInt32, []int{3}, []float64{-2, 0, 0}, nil}},
		{"scatter/value/multiply-int/#38", scatter.Scatter{Self: i64([]int64{3, 3, 3}), Dim: 0, Index: i64([]int64{0, 0}),
			Value: scatter.Ptr(scatter.Float(2.5)), Reduce: scatter.ReduceMultiply},
			expect{scatter.DTInt64, []int{3}, []float64{12, 3, 3}, nil}},
		{"scatter/duplicates-last-wins/#3", scatter.Scatter{Self: f32(make([]float32, 3)), Dim: 0, Index: i64([]int64{1, 1, 1, 1}), Src: f32([]float32{1, 2, 3, 4})},
			expect{scatter.DTFloat32, []int{3}, []float64{0, 4, 0}, nil}},
		{"scatter/value/bool-true-extension", scatter.Scatter{Self: scatter.FromSlice([]bool{false, false}), Dim: 0, Index: i64([]int64{1}), Value: scatter.Ptr(scatter.Bool(true))},
			expect{scatter.DTBool, []int{2}, []float64{0, 1}, nil}},
		{"scatter/value/nan", scatter.Scatter{Self: f64([]float64{1, 1}), Dim: 0, Index: i64([]int64{1}), Value: scatter.Ptr(scatter.Float(math.NaN()))},
			expect{scatter.DTFloat64, []int{2}, []float64{1, math.NaN()}, nil}},
		{"scatter_add/docs/#42", scatter.ScatterAdd{Self: f32(make([]float32, 15), 3, 5), Dim: 0,
			Index: i64([]int64{0, 1, 2, 0, 0, 0, 1, 2, 2, 2}, 2, 5), Src: full(1, 2, 5)},
			expect{scatter.DTFloat32, []int{3, 5}, []float64{2, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 1}, nil}},
		{"scatter_add/int8-wraps/#44", scatter.ScatterAdd{Self: scatter.FromSlice([]int8{120}), Dim: 0, Index: i64([]int64{0, 0}), Src: scatter.FromSlice([]int8{5, 5})},
			expect{scatter.DTInt8, []int{1}, []float64{-126}, nil}},
		{"scatter_add/0-d/#25", scatter.ScatterAdd{Self: scatter.Scalar0D(2.0), Dim: 0, Index: i64([]int64{0, 0}), Src: f64([]float64{5, 6})},
			expect{scatter.DTFloat64, []int{}, []float64{13}, nil}},
		{"scatter_reduce/sum/docs/#48", scatter.ScatterReduce{Self: f32([]float32{1, 2, 3, 4}), Dim: 0, Index: docIdx, Src: f32(docs), Reduce: scatter.ReduceSum},
			expect{scatter.DTFloat32, []int{4}, []float64{5, 14, 8, 4}, nil}},
		{"scatter_reduce/sum/include_self=false/docs/#49", scatter.ScatterReduce{Self: f32([]float32{1, 2, 3, 4}), Dim: 0, Index: docIdx, Src: f32(docs), Reduce: scatter.ReduceSum, ExcludeSelf: true},
			expect{scatter.DTFloat32, []int{4}, []float64{4, 12, 5, 4}, nil}},
		{"scatter_reduce/prod/docs/#50", scatter.ScatterReduce{Self: f32([]float32{1, 2, 3, 4}), Dim: 0, Index: docIdx, Src: f32(docs), Reduce: scatter.ReduceProd},
			expect{scatter.DTFloat32, []int{4}, []float64{3, 96, 15, 4}, nil}},
		{"scatter_reduce/mean/include_self=false/docs/#53", scatter.ScatterReduce{Self: f32([]float32{1, 2, 3, 4}), Dim: 0, Index: docIdx, Src: f32(docs), Reduce: scatter.ReduceMean, ExcludeSelf: true},
			expect{scatter.DTFloat32, []int{4}, []float64{2, 4, 5, 4}, nil}},
		{"scatter_reduce/amax/docs/#54", scatter.ScatterReduce{Self: f32([]float32{1, 2, 3, 4}), Dim: 0, Index: docIdx, Src: f32(docs), Reduce: scatter.ReduceAmax},
			expect{scatter.DTFloat32, []int{4}, []float64{3, 6, 5, 4}, nil}},
		{"scatter_reduce/amin/include_self=false/docs/#57", scatter.ScatterReduce{Self: f32([]float32{1, 2, 3, 4}), Dim: 0, Index: docIdx, Src: f32(docs), Reduce: scatter.ReduceAmin, ExcludeSelf: true},
			expect{scatter.DTFloat32, []int{4}, []float64{1, 2, 5, 4}, nil}},
		{"scatter_reduce/mean/int-floor/#60", scatter.ScatterReduce{Self: i64([]int64{-10}), Dim: 0, Index: i64([]int64{0, 0}), Src: i64([]int64{1, 2}), Reduce: scatter.ReduceMean},
			expect{scatter.DTInt64, []int{1}, []float64{-3}, nil}},
		{"scatter_reduce/amax/nan/#69", scatter.ScatterReduce{Self: f32([]float32{1, 1}), Dim: 0, Index: i64([]int64{0, 0, 1}), Src: f32([]float32{float32(math.NaN()), 5, 2}), Reduce: scatter.ReduceAmax},
			expect{scatter.DTFloat32, []int{2}, []float64{math.NaN(), 2}, nil}},
		{"index_reduce/prod/docs/#90", scatter.IndexReduce{Self: full(2, 5, 3), Dim: 0, Index: i64([]int64{0, 4, 2, 0}), Source: rows, Reduce: scatter.ReduceProd},
			expect{scatter.DTFloat32, []int{5, 3}, []float64{20, 44, 72, 2, 2, 2, 14, 16, 18, 2, 2, 2, 8, 10, 12}, nil}},
		{"index_reduce/prod/include_self=false/docs/#91", scatter.IndexReduce{Self: full(2, 5, 3), Dim: 0, Index: i64([]int64{0, 4, 2, 0}), Source: rows, Reduce: scatter.ReduceProd, ExcludeSelf: true},
			expect{scatter.DTFloat32, []int{5, 3}, []float64{10, 22, 36, 2, 2, 2, 7, 8, 9, 2, 2, 2, 4, 5, 6}, nil}},
		{"index_reduce/amax/int32-index/#93", scatter.IndexReduce{Self: full(2, 3), Dim: 0, Index: scatter.FromSlice([]int32{0, 0}), Source: f32([]float32{3, 4}), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			expect{scatter.DTFloat32, []int{3}, []float64{4, 2, 2}, nil}},
		{"gather/docs/#109", scatter.Gather{Input: i64([]int64{1, 2, 3, 4}, 2, 2), Dim: 1, Index: i64([]int64{0, 0, 1, 0}, 2, 2)},
			expect{scatter.DTInt64, []int{2, 2}, []float64{1, 1, 4, 3}, nil}},
		{"gather/0-d-input/#114", scatter.Gather{Input: scatter.Scalar0D(int64(5)), Dim: 0, Index: i64([]int64{0, 0})},
			expect{scatter.DTInt64, []int{2}, []float64{5, 5}, nil}},
		{"torch_scatter.scatter/sum", scatter.TorchScatter{Src: tsSrc, Index: tsIdx},
			expect{scatter.DTFloat32, []int{4}, []float64{3, 12, 0, 6}, nil}},
		{"torch_scatter.scatter/mean/dim_size=6", scatter.TorchScatter{Src: tsSrc, Index: tsIdx, DimSize: scatter.Ptr(6), Reduce: scatter.ReduceMean},
			expect{scatter.DTFloat32, []int{6}, []float64{1.5, 4, 0, 6, 0, 0}, nil}},
		{"torch_scatter.scatter/mean/int-floor", scatter.TorchScatter{Src: i64([]int64{-3, -4, 3}), Index: i64([]int64{0, 0, 1}), Reduce: scatter.ReduceMean},
			expect{scatter.DTInt64, []int{2}, []float64{-4, 3}, nil}},
		{"torch_scatter.scatter/mean/out-not-counted", scatter.TorchScatter{Src: f32([]float32{2, 4}), Index: i64([]int64{0, 0}), Out: f32([]float32{6, 10}), Reduce: scatter.ReduceMean},
			expect{scatter.DTFloat32, []int{2}, []float64{6, 10}, nil}},
		{"torch_scatter.scatter/sum/broadcast-trailing", scatter.TorchScatter{Src: f32([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 6, 2), Index: i64([]int64{0, 1, 0, 1, 1, 3}), Dim: scatter.Ptr(0)},
			expect{scatter.DTFloat32, []int{4, 2}, []float64{6, 8, 19, 22, 0, 0, 11, 12}, nil}},
		{"torch_scatter.scatter/max/test_scatter.py", scatter.TorchScatter{Src: tsSrc, Index: tsIdx, Reduce: scatter.ReduceMax},
			expect{scatter.DTFloat32, []int{4}, []float64{2, 5, 0, 6}, []int64{2, 4, 6, 5}}},
		{"torch_scatter.scatter/min/test_scatter.py", scatter.TorchScatter{Src: tsSrc, Index: tsIdx, Reduce: scatter.ReduceMin},
			expect{scatter.DTFloat32, []int{4}, []float64{1, 3, 0, 6}, []int64{0, 1, 6, 5}}},
		{"torch_scatter.scatter/mul/test_scatter.py", scatter.TorchScatter{Src: tsSrc, Index: tsIdx, Reduce: scatter.ReduceMul},
			expect{scatter.DTFloat32, []int{4}, []float64{2, 60, 1, 6}, nil}},
		{"torch_scatter.scatter/max/nan-ignored-first-wins", scatter.TorchScatter{Src: f64([]float64{math.NaN(), 3, 3, math.NaN(), math.Inf(-1)}), Index: i64([]int64{0, 0, 0, 1, 1}), Reduce: scatter.ReduceMax},
			expect{scatter.DTFloat64, []int{2}, []float64{3, 0}, []int64{1, 5}}},
		{"torch_scatter.scatter/max/out-given", scatter.TorchScatter{Src: f64([]float64{1, 7}), Index: i64([]int64{0, 1}), Out: f64([]float64{5, 5}), Reduce: scatter.ReduceMax},
			expect{scatter.DTFloat64, []int{2}, []float64{5, 7}, []int64{2, 1}}},
		{"torch_scatter.scatter/max/2-d/dim=-1", scatter.TorchScatter{Src: f64([]float64{1, 9, 2, 8, 3, 7}, 2, 3), Index: i64([]int64{1, 1, 0}), Reduce: scatter.ReduceMax},
			expect{scatter.DTFloat64, []int{2, 2}, []float64{2, 9, 7, 8}, []int64{2, 1, 2, 0}}},
		{"torch_scatter.scatter_add/fill_value", scatter.TorchScatterAdd{Src: tsSrc, Index: tsIdx, FillValue: scatter.Int(10)},
			expect{scatter.DTFloat32, []int{4}, []float64{13, 22, 10, 16}, nil}},
		{"torch_scatter.scatter_add/broadcast-both", scatter.TorchScatterAdd{Src: f64([]float64{1, 2}, 1, 2), Index: i64([]int64{0, 2, 1}, 3, 1), Dim: scatter.Ptr(0), FillValue: scatter.Float(0.5)},
			expect{scatter.DTFloat64, []int{3, 2}, []float64{1.5, 2.5, 1.5, 2.5, 1.5, 2.5}, nil}},
		{"tensor.scatter/docs", scatter.TensorScatter{Indices: []scatter.Tensor{
			i64([]int64{0, 0, 0, 0, 2, 2, 2, 2, 1, 1, 1, 1}, 3, 4), i64([]int64{3, 3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3}, 3, 4)},
			Shape: []int{4, 4}, Src: fsSrc},
			expect{scatter.DTFloat64, []int{4, 4}, []float64{0, 0, 0, row0, v[8], v[9], v[10], v[11], v[4], v[5], v[6], v[7], 0, 0, 0, 0}, nil}},
		{"tensor.scatter/disperse-3", scatter.TensorScatter{Indices: []scatter.Tensor{{}, {}}, Shape: []int{5, 3}, Src: f64(arange64(12, 1), 4, 3)},
			expect{scatter.DTFloat64, []int{5, 3}, append(arange64(12, 1), 0, 0, 0), nil}},
		{"tensor.scatter/broadcast-index-sums", scatter.TensorScatter{Indices: []scatter.Tensor{i64([]int64{1})}, Shape: []int{2}, Src: f64([]float64{1, 2, 3})},
			expect{scatter.DTFloat64, []int{2}, []float64{0, 6}, nil}},
		{"tensor.scatter/float32-row-major-order", scatter.TensorScatter{Indices: []scatter.Tensor{i64([]int64{0, 0, 0})}, Shape: []int{1}, Src: f32([]float32{1e8, 1, -1e8})},
			expect{scatter.DTFloat32, []int{1}, []float64{0}, nil}},
		{"tensor.scatter/float16-per-step-rounding", scatter.TensorScatter{Indices: []scatter.Tensor{i64(make([]int64, 11))}, Shape: []int{1},
			Src: scatter.FromSlice(append([]scatter.Float16{scatter.Float16FromFloat64(2048)}, ones16(10)...))},
			expect{scatter.DTFloat16, []int{1}, []float64{2048}, nil}},
		{"tensor.scatter/0-d", scatter.TensorScatter{Indices: []scatter.Tensor{}, Shape: []int{}, Src: scatter.Scalar0D(int16(-7))},
			expect{scatter.DTInt16, []int{}, []float64{-7}, nil}},
		{"tensor.gather/docs/none", scatter.TensorGather{Indices: []scatter.Tensor{{}, i64([]int64{3, 1, 0})}, Src: fsSrc},
			expect{scatter.DTFloat64, []int{3}, []float64{v[3], v[5], v[8]}, nil}},
		{"tensor.gather/docs/both", scatter.TensorGather{Indices: []scatter.Tensor{i64([]int64{1, 2, 0, 0}), i64([]int64{3, 1, 0, 3})}, Src: fsSrc},
			expect{scatter.DTFloat64, []int{4}, []float64{v[7], v[9], v[0], v[3]}, nil}},
	}
	if torch1 {
		ok = append(ok,
			struct {
				name string
				call scatter.Call
				want expect
			}{"scatter_add/float16-per-step-rounding/#45",
				scatter.ScatterAdd{Self: scatter.FromSlice([]scatter.Float16{scatter.Float16FromFloat64(2048)}), Dim: 0, Index: i64(make([]int64, 10)), Src: scatter.FromSlice(ones16(10))},
				expect{scatter.DTFloat16, []int{1}, []float64{2048}, nil}})
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.Run(tc.call)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			checkResult(t, res, tc.want)
		})
	}

	int32Index := scatter.ErrIndexDType // torch 1.13; int32 is accepted from 2.8 on
	if !torch1 {
		int32Index = 0
	}
	bad := []struct {
		name string
		call scatter.Call
		want scatter.Code
	}{
		{"scatter/index-out-of-range/#20", scatter.Scatter{Self: f32(make([]float32, 3)), Dim: 0, Index: i64([]int64{3}), Src: f32([]float32{1})}, scatter.ErrIndexOutOfRange},
		{"scatter/negative-index/#21", scatter.Scatter{Self: f32(make([]float32, 3)), Dim: 0, Index: i64([]int64{-1}), Src: f32([]float32{1})}, scatter.ErrIndexOutOfRange},
		{"scatter/dtype-mismatch/#19", scatter.Scatter{Self: f32(make([]float32, 3)), Dim: 0, Index: i64([]int64{0, 1}), Src: f64([]float64{1, 1})}, scatter.ErrDTypeMismatch},
		{"scatter/dim-out-of-range/#22", scatter.Scatter{Self: f32(make([]float32, 6), 2, 3), Dim: 2, Index: i64([]int64{2, 0}, 1, 2), Src: f32([]float32{5, 6}, 1, 2)}, scatter.ErrDimOutOfRange},
		{"scatter/rank-mismatch/#11", scatter.Scatter{Self: f32(make([]float32, 15), 3, 5), Dim: 0, Index: i64([]int64{0, 1}), Src: f32([]float32{1, 1})}, scatter.ErrShapeMismatch},
		{"scatter/value-overflow/#31", scatter.Scatter{Self: scatter.FromSlice(make([]uint8, 3)), Dim: 0, Index: i64([]int64{0}), Value: scatter.Ptr(scatter.Int(300))}, scatter.ErrValueOverflow},
		{"scatter/reduce-sum-rejected/#40", scatter.Scatter{Self: f32([]float32{1, 1, 1}), Dim: 0, Index: i64([]int64{0}), Src: f32([]float32{1}), Reduce: scatter.ReduceSum}, scatter.ErrInvalidArgument},
		{"scatter_reduce/add-rejected/#58", scatter.ScatterReduce{Self: f32([]float32{1, 2, 3, 4}), Dim: 0, Index: docIdx, Src: f32(docs), Reduce: scatter.ReduceAdd}, scatter.ErrInvalidArgument},
		{"scatter_reduce/mean/bool/#64", scatter.ScatterReduce{Self: scatter.FromSlice([]bool{true}), Dim: 0, Index: i64([]int64{}), Src: scatter.FromSlice([]bool{}), Reduce: scatter.ReduceMean}, scatter.ErrUnsupportedDType},
		{"index_reduce/sum-rejected/#95", scatter.IndexReduce{Self: full(2, 3), Dim: 0, Index: i64([]int64{0}), Source: f32([]float32{3}), Reduce: scatter.ReduceSum}, scatter.ErrInvalidArgument},
		{"index_reduce/2-d-index/#96", scatter.IndexReduce{Self: full(2, 3), Dim: 0, Index: i64([]int64{0}, 1, 1), Source: f32([]float32{3}), Reduce: scatter.ReduceProd}, scatter.ErrShapeMismatch},
		{"index_reduce/int16-index/#94", scatter.IndexReduce{Self: full(2, 3), Dim: 0, Index: scatter.FromSlice([]int16{0}), Source: f32([]float32{3}), Reduce: scatter.ReduceProd}, scatter.ErrIndexDType},
		{"index_reduce/count-mismatch/#97", scatter.IndexReduce{Self: full(1, 5, 3), Dim: 0, Index: i64([]int64{0, 4, 2}), Source: full(1, 4, 3), Reduce: scatter.ReduceProd}, scatter.ErrShapeMismatch},
		{"index_reduce/negative-index/#98", scatter.IndexReduce{Self: full(0, 3), Dim: 0, Index: i64([]int64{-1}), Source: f32([]float32{1}), Reduce: scatter.ReduceAmax}, scatter.ErrIndexOutOfRange},
		{"gather/size-mismatch/#111", scatter.Gather{Input: i64([]int64{1, 2, 3, 4, 5, 6}, 2, 3), Dim: 1, Index: i64([]int64{2, 0, 1}, 3, 1)}, scatter.ErrShapeMismatch},
		{"torch_scatter.scatter/index-out-of-range", scatter.TorchScatter{Src: f32([]float32{1, 2}), Index: i64([]int64{0, 1}), DimSize: scatter.Ptr(1)}, scatter.ErrIndexOutOfRange},
		{"torch_scatter.scatter/max/index-out-of-range", scatter.TorchScatter{Src: f32([]float32{1, 2}), Index: i64([]int64{0, 5}), DimSize: scatter.Ptr(2), Reduce: scatter.ReduceMax}, scatter.ErrIndexOutOfRange},
		{"torch_scatter.scatter/mul/negative-index", scatter.TorchScatter{Src: f32([]float32{1, 2}), Index: i64([]int64{0, -1}), DimSize: scatter.Ptr(2), Reduce: scatter.ReduceMul}, scatter.ErrIndexOutOfRange},
		{"torch_scatter.scatter/dim-out-of-range", scatter.TorchScatter{Src: f32([]float32{1, 2}), Index: i64([]int64{0, 1}), Dim: scatter.Ptr(1)}, scatter.ErrDimOutOfRange},
		{"torch_scatter.scatter/0-d-src", scatter.TorchScatter{Src: scatter.Scalar0D(float32(1)), Index: scatter.Scalar0D(int64(0))}, scatter.ErrDimOutOfRange},
		{"torch_scatter.scatter/broadcast-fails", scatter.TorchScatter{Src: f32(make([]float32, 36), 2, 6, 3), Index: i64(make([]int64, 18), 6, 3), Dim: scatter.Ptr(1)}, scatter.ErrShapeMismatch},
		{"torch_scatter.scatter/bad-reduce", scatter.TorchScatter{Src: f32([]float32{1}), Index: i64([]int64{0}), Reduce: scatter.ReduceProd}, scatter.ErrInvalidArgument},
		{"torch_scatter.scatter/max/bool", scatter.TorchScatter{Src: scatter.FromSlice([]bool{true}), Index: i64([]int64{0}), Reduce: scatter.ReduceMax}, scatter.ErrUnsupportedDType},
		{"torch_scatter.scatter/max/int32-index", scatter.TorchScatter{Src: f32([]float32{1}), Index: scatter.FromSlice([]int32{0}), Reduce: scatter.ReduceMax}, scatter.ErrIndexDType},
		{"torch_scatter.scatter/max/out-mismatch", scatter.TorchScatter{Src: f32([]float32{1, 2, 3, 4}, 2, 2), Index: i64([]int64{0, 1}), Out: f32(make([]float32, 6), 3, 2), Reduce: scatter.ReduceMax}, scatter.ErrShapeMismatch},
		{"torch_scatter.scatter/mean/bool", scatter.TorchScatter{Src: scatter.FromSlice([]bool{true}), Index: i64([]int64{0}), Reduce: scatter.ReduceMean}, scatter.ErrUnsupportedDType},
		{"torch_scatter.scatter/sum/all-negative", scatter.TorchScatter{Src: f32([]float32{1, 1}), Index: i64([]int64{-1, -2})}, scatter.ErrIndexOutOfRange},
		{"torch_scatter.scatter_add/length-1-index", scatter.TorchScatterAdd{Src: f32([]float32{1, 2, 3}), Index: i64([]int64{0})}, scatter.ErrShapeMismatch},
		{"torch_scatter.scatter_add/0-d-src", scatter.TorchScatterAdd{Src: scatter.Scalar0D(float32(1)), Index: scatter.Scalar0D(int64(0))}, scatter.ErrDimOutOfRange},
		{"torch_scatter.scatter_add/negative-dim_size", scatter.TorchScatterAdd{Src: f32([]float32{1}), Index: i64([]int64{0}), DimSize: scatter.Ptr(-1)}, scatter.ErrInvalidArgument},
		{"torch_scatter.scatter_add/fill-overflow", scatter.TorchScatterAdd{Src: scatter.FromSlice([]uint8{1}), Index: i64([]int64{0}), FillValue: scatter.Int(300)}, scatter.ErrValueOverflow},
		{"torch_scatter.scatter_add/float-index", scatter.TorchScatterAdd{Src: f32([]float32{1}), Index: f32([]float32{0})}, scatter.ErrIndexDType},
		{"tensor.scatter/indices-length", scatter.TensorScatter{Indices: []scatter.Tensor{{}}, Shape: []int{2, 2}, Src: f64([]float64{1, 2, 3, 4}, 2, 2)}, scatter.ErrInvalidArgument},
		{"tensor.scatter/none-beyond-src", scatter.TensorScatter{Indices: []scatter.Tensor{{}, {}}, Shape: []int{2, 2}, Src: f64([]float64{1, 2})}, scatter.ErrInvalidArgument},
		{"tensor.scatter/broadcast-fails", scatter.TensorScatter{Indices: []scatter.Tensor{i64([]int64{0, 1})}, Shape: []int{4}, Src: f64([]float64{1, 2, 3})}, scatter.ErrShapeMismatch},
		{"tensor.scatter/int32-index", scatter.TensorScatter{Indices: []scatter.Tensor{scatter.FromSlice([]int32{0, 1})}, Shape: []int{2}, Src: f64([]float64{1, 2})}, scatter.ErrIndexDType},
		{"tensor.scatter/negative-index", scatter.TensorScatter{Indices: []scatter.Tensor{i64([]int64{0, -1})}, Shape: []int{2}, Src: f64([]float64{1, 2})}, scatter.ErrIndexOutOfRange},
		{"tensor.scatter/none-out-of-range", scatter.TensorScatter{Indices: []scatter.Tensor{{}, {}}, Shape: []int{3, 3}, Src: f64(arange64(12, 1), 4, 3)}, scatter.ErrIndexOutOfRange},
		{"tensor.scatter/bool", scatter.TensorScatter{Indices: []scatter.Tensor{{}}, Shape: []int{1}, Src: scatter.FromSlice([]bool{true})}, scatter.ErrUnsupportedDType},
		{"tensor.gather/all-none", scatter.TensorGather{Indices: []scatter.Tensor{{}}, Src: f64([]float64{1})}, scatter.ErrInvalidArgument},
		{"tensor.gather/out-of-range", scatter.TensorGather{Indices: []scatter.Tensor{i64([]int64{3})}, Src: f64([]float64{1, 2, 3})}, scatter.ErrIndexOutOfRange},
		{"tensor.gather/broadcast-fails", scatter.TensorGather{Indices: []scatter.Tensor{i64([]int64{0, 1}), i64([]int64{0, 1, 2})}, Src: f64(make([]float64, 9), 3, 3)}, scatter.ErrShapeMismatch},
		{"tensor.gather/indices-length", scatter.TensorGather{Indices: []scatter.Tensor{i64([]int64{0})}, Src: f64(make([]float64, 9), 3, 3)}, scatter.ErrInvalidArgument},
	}
	bad = append(bad, struct {
		name string
		call scatter.Call
		want scatter.Code
	}{"scatter/int32-index/#14", scatter.Scatter{Self: f32(make([]float32, 3)), Dim: 0, Index: scatter.FromSlice([]int32{0, 1}), Src: f32([]float32{1, 1})}, int32Index})
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Run(tc.call)
			var pe *protocol.ProcessError
			if errors.As(err, &pe) {
				t.Fatalf("process failure: %v", err)
			}
			if got := scatter.CodeOf(err); got != tc.want {
				t.Fatalf("err %v (code %v), want code %v", err, got, tc.want)
			}
		})
	}

	t.Run("every-dtype/gather-round-trip", func(t *testing.T) {
		for _, dt := range scatter.DTypes {
			in := sample(dt, 7)
			res, err := c.Run(scatter.Gather{Input: in, Dim: 0, Index: i64([]int64{0, 1, 2, 3, 4, 5, 6})})
			if err != nil {
				t.Fatalf("%v: %v", dt, err)
			}
			if !reflect.DeepEqual(res.Out.Data, in.Data) && !sameBits(res.Out, in) {
				t.Fatalf("%v: gather gave %v, want %v", dt, res.Out, in)
			}
			// 0-d and empty tensors of every dtype.
			zero := scatter.Tensor{Shape: []int{}, Offset: 3, Data: in.Data}
			res, err = c.Run(scatter.Gather{Input: zero, Dim: 0, Index: scatter.Scalar0D(int64(0))})
			if err != nil || res.Out.DType() != dt || len(res.Out.Shape) != 0 || scatter.FormatAt(res.Out.Data, 0) != scatter.FormatAt(in.Data, 3) {
				t.Fatalf("%v: 0-d gather gave %v, %v; want %s", dt, res.Out, err, scatter.FormatAt(in.Data, 3))
			}
			res, err = c.Run(scatter.Gather{Input: in, Dim: 0, Index: i64(nil, 0, 2)})
			if err != nil || res.Out.DType() != dt || !reflect.DeepEqual(res.Out.Shape, []int{0, 2}) {
				t.Fatalf("%v: empty gather gave %v, %v", dt, res.Out, err)
			}
		}
	})

	t.Run("bench", func(t *testing.T) {
		secs, err := c.Bench(scatter.Gather{Input: f32([]float32{1, 2, 3}), Dim: 0, Index: i64([]int64{2, 0})}, 4)
		if err != nil || len(secs) != 4 {
			t.Fatalf("Bench: %v, %v", secs, err)
		}
		_, err = c.Bench(scatter.Gather{Input: f32([]float32{1, 2, 3}), Dim: 0, Index: i64([]int64{5})}, 2)
		if scatter.CodeOf(err) != scatter.ErrIndexOutOfRange {
			t.Fatalf("Bench of a failing call: %v", err)
		}
	})

	if n := c.Restarts(); n != 0 {
		t.Fatalf("the adapter was restarted %d times:\n%s", n, c.Stderr())
	}
}

func ones16(n int) []scatter.Float16 {
	v := make([]scatter.Float16, n)
	for i := range v {
		v[i] = scatter.Float16FromFloat64(1)
	}
	return v
}

// sample returns n elements of dt with awkward values: negative zeros,
// infinities, NaN payloads, extremes.
func sample(dt scatter.DType, n int) scatter.Tensor {
	data := scatter.MakeData(dt, n)
	switch d := data.(type) {
	case []bool:
		for i := range d {
			d[i] = i%2 == 1
		}
	case []uint8:
		for i := range d {
			d[i] = uint8(255 - 40*i)
		}
	case []int8:
		for i := range d {
			d[i] = int8(-128 + 41*i)
		}
	case []int16:
		for i := range d {
			d[i] = int16(-32768 + 10000*i)
		}
	case []int32:
		for i := range d {
			d[i] = int32(math.MinInt32 + 700000000*i)
		}
	case []int64:
		for i := range d {
			d[i] = math.MinInt64 + int64(i)*3e18
		}
	case []scatter.Float16:
		copy(d, []scatter.Float16{0x8000, 0x7c00, 0xfc00, 0x7e01, 0x0001, 0x7bff, 0x3555})
	case []scatter.BFloat16:
		copy(d, []scatter.BFloat16{0x8000, 0x7f80, 0xff80, 0x7fc1, 0x0001, 0x7f7f, 0x3eab})
	case []float32:
		copy(d, []float32{float32(math.Copysign(0, -1)), float32(math.Inf(1)), math.MaxFloat32, math.SmallestNonzeroFloat32, -1.5, 1e-38, 3})
	case []float64:
		copy(d, []float64{math.Copysign(0, -1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, -1.5, 1e-308, 3})
	}
	return scatter.Tensor{Shape: []int{n}, Data: data}
}

// sameBits compares 16-bit float tensors by bit pattern, NaNs by class
// (PyTorch may quiet a signalling NaN).
func sameBits(a, b scatter.Tensor) bool {
	switch x := a.Data.(type) {
	case []scatter.Float16:
		y := b.Data.([]scatter.Float16)
		for i := range x {
			if x[i] != y[i] && !(x[i].IsNaN() && y[i].IsNaN()) {
				return false
			}
		}
		return len(x) == len(y)
	case []scatter.BFloat16:
		y := b.Data.([]scatter.BFloat16)
		for i := range x {
			if x[i] != y[i] && !(x[i].IsNaN() && y[i].IsNaN()) {
				return false
			}
		}
		return len(x) == len(y)
	}
	return false
}

// TestTorchAdapterSurvives sends the adapter requests it must reject
// without dying: malformed lines, unknown ops, tensors that lie about their
// size.
func TestTorchAdapterSurvives(t *testing.T) {
	py := torchPython(t)
	in := strings.Join([]string{
		`{"id":0,"op":"hello","protocol":1}`,
		`{"id":1,"op":`,
		`not json at all`,
		`{"id":2,"op":"gather","input":{"dtype":"float32","shape":[1000000000000],"data":""},"dim":0,"index":{"dtype":"int64","shape":[0],"data":""}}`,
		`{"id":3,"op":"gather","input":{"dtype":"float32","shape":[2],"data":"AAAA"},"dim":0,"index":{"dtype":"int64","shape":[0],"data":""}}`,
		`{"id":4,"op":"gather","input":{"dtype":"complex64","shape":[1],"data":"AAAAAAAAAAA="},"dim":0,"index":{"dtype":"int64","shape":[0],"data":""}}`,
		`{"id":5,"op":"frobnicate"}`,
		`{"id":6,"op":"scatter","self":{"dtype":"bool","shape":[1],"data":"Ag=="},"dim":0,"index":{"dtype":"int64","shape":[0],"data":""},"value":1}`,
		`{"id":7,"op":"gather","input":{"dtype":"float32","shape":[1],"data":"AACAPw=="},"dim":1.5,"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}}`,
		`{"id":8,"op":"scatter","self":{"dtype":"float32","shape":[1],"data":"AACAPw=="},"dim":0,"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="},"value":NaN}`,
		`{"id":9,"op":"torch_scatter.scatter","src":{"dtype":"float32","shape":[1],"data":"AACAPw=="},"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="},"dim_size":1000000000000}`,
		`{"id":10,"op":"bench","repeat":0,"call":{"op":"gather"}}`,
		`{"id":11,"op":"gather","input":{"dtype":"float32","shape":[1],"data":"AACAPw=="},"dim":0,"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}}`,
	}, "\n") + "\n"
	cmd := exec.Command(py, "torch_adapter.py")
	cmd.Stdin = strings.NewReader(in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("adapter: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []struct {
		id   int64
		kind protocol.AnswerKind
		code scatter.Code
	}{
		{0, protocol.AnswerHello, 0},
		{1, protocol.AnswerError, scatter.ErrInvalidArgument},
		{0, protocol.AnswerError, scatter.ErrInvalidArgument},
		{2, protocol.AnswerError, scatter.ErrInvalidArgument},
		{3, protocol.AnswerError, scatter.ErrInvalidArgument},
		{4, protocol.AnswerError, scatter.ErrInvalidArgument},
		{5, protocol.AnswerUnsupported, scatter.ErrNotSupported},
		{6, protocol.AnswerError, scatter.ErrInvalidArgument},
		{7, protocol.AnswerError, scatter.ErrInvalidArgument},
		{8, protocol.AnswerError, scatter.ErrInvalidArgument},
		{9, protocol.AnswerUnsupported, scatter.ErrNotSupported},
		{10, protocol.AnswerError, scatter.ErrInvalidArgument},
		{11, protocol.AnswerResult, 0},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d answers, want %d:\n%s\nstderr:\n%s", len(lines), len(want), out, stderr.String())
	}
	for i, w := range want {
		a, err := protocol.DecodeAnswer([]byte(lines[i]))
		if err != nil {
			t.Fatalf("answer %d: %v: %s", i, err, lines[i])
		}
		code := scatter.Code(0)
		if a.Err != nil {
			code = a.Err.Code
		}
		if a.ID != w.id || a.Kind != w.kind || code != w.code {
			t.Errorf("answer %d: %s; want id %d, %v, %v", i, lines[i], w.id, w.kind, w.code)
		}
	}
}
