package spec

import (
	"github.com/scatterconf/scatter"
)

// The examples printed in the documentation this project follows, each with
// the exact output the documentation prints. Where an output is not exactly
// representable (13/3, 2*1.23, 0.1+0.2+0.3), the expected value is computed
// at run time in the output's dtype, in the order PyTorch (or the F#
// library) folds it, never typed as a rounded decimal.

// Sources.
const (
	srcTorchDocs     = "PyTorch docs (torch/_tensor_docs.py)"
	srcTSDocs1x      = "torch_scatter 1.x scatter_add docstring (rusty1s/pytorch_scatter torch_scatter/add.py)"
	srcTSTest2x      = "torch_scatter 2.x test/test_scatter.py; SEMANTICS.md after §12"
	srcTSDocs2x      = "torch_scatter 2.x scatter docstring/README, random src replaced by arange"
	srcSemTS2x       = "SEMANTICS.md after §12 (torch_scatter rows, [V] on torch 1.13)"
	srcFSharpSample  = "F# Tensor library: Tensor.Sample/Program.fs and the Tensor.fs docstrings; SEMANTICS.md §9"
	srcSemTS2xSource = "SEMANTICS.md §8.1 and after §12 ([S] csrc/cpu/reducer.h: init lowest(), strict >, mask to 0)"
)

// exAdd32 and exMul32 are float32 operations done at run time: one
// IEEE rounding, as a float32 kernel does, never exact constant arithmetic.
func exAdd32(a, b float32) float32 { return a + b }
func exMul32(a, b float32) float32 { return a * b }

// exSum64 folds the values left to right in float64, rounding every step.
func exSum64(v ...float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// exLabels returns an example's labels: the operation, the dtype, "docs",
// then the features.
func exLabels(op scatter.Op, dt scatter.DType, features ...string) []string {
	return append([]string{string(op), dt.String(), "docs"}, features...)
}

// exArange returns arange(n) of dtype dt reshaped to s.
func exArange(dt scatter.DType, start float64, s ...int) scatter.Tensor {
	n := 1
	for _, x := range s {
		n *= x
	}
	return shape(arange(dt, start, n), s...)
}

func examples() []Case {
	var cs []Case
	cs = append(cs, torchExamples()...)
	cs = append(cs, torchScatterExamples()...)
	cs = append(cs, fsharpExamples()...)
	return cs
}

// torchExamples: the examples of the PyTorch docs of scatter_, scatter_add_,
// scatter_reduce_, index_reduce_ and gather.
func torchExamples() []Case {
	L := scatter.DTInt64
	F := scatter.DTFloat32

	// scatter_ (docs): src = torch.arange(1, 11).reshape((2, 5)).
	scatterSrc := func() scatter.Tensor { return exArange(L, 1, 2, 5) }

	// scatter_ value with reduce (docs): torch.full((2, 4), 2.) and 1.23,
	// converted to float32 first, then combined in float32.
	v := float32(1.23)
	mulOut := full(F, 2, 2, 4)
	setAt(mulOut, 2, float64(exMul32(2, v)))
	setAt(mulOut, 7, float64(exMul32(2, v)))
	addOut := full(F, 2, 2, 4)
	setAt(addOut, 2, float64(exAdd32(2, v)))
	setAt(addOut, 7, float64(exAdd32(2, v)))

	// scatter_ value 1.23 into zeros(2, 4) (SEMANTICS.md §12 #29, the 1.13 docs).
	valOut := full(F, 0, 2, 4)
	for _, i := range []int{1, 2, 4, 7} {
		setAt(valOut, i, float64(v))
	}

	// scatter_reduce_ (docs).
	srIndex := func() scatter.Tensor { return i64(0, 1, 0, 1, 2, 1) }
	srSrc := func() scatter.Tensor { return f32(1, 2, 3, 4, 5, 6) }

	// index_reduce_ (docs): x = torch.empty(5, 3).fill_(2),
	// t = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], index = [0, 4, 2, 0].
	irSource := func() scatter.Tensor { return exArange(F, 1, 4, 3) }

	return []Case{
		{
			Name:   "scatter/int64/dim=0/docs",
			Labels: exLabels(scatter.OpScatter, L),
			Source: srcTorchDocs + " scatter_; SEMANTICS.md §12 #1",
			Call:   scatter.Scatter{Self: full(L, 0, 3, 5), Dim: 0, Index: shape(i64(0, 1, 2, 0), 1, 4), Src: scatterSrc()},
			Want:   shape(i64(1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0), 3, 5),
		},
		{
			Name:   "scatter/int64/dim=1/index-narrower-than-src/docs",
			Labels: exLabels(scatter.OpScatter, L),
			Source: srcTorchDocs + " scatter_; SEMANTICS.md §12 #2",
			Call:   scatter.Scatter{Self: full(L, 0, 3, 5), Dim: 1, Index: shape(i64(0, 1, 2, 0, 1, 4), 2, 3), Src: scatterSrc()},
			Want:   shape(i64(1, 2, 3, 0, 0, 6, 7, 0, 0, 8, 0, 0, 0, 0, 0), 3, 5),
		},
		{
			Name:   "scatter/float32/value=2/docs",
			Labels: exLabels(scatter.OpScatter, F, "value"),
			Source: srcTorchDocs + " scatter_(dim, index, value)",
			Call:   scatter.Scatter{Self: full(F, 0, 3, 5), Dim: 0, Index: shape(i64(0, 1), 1, 2), Value: scatter.Ptr(scatter.Int(2))},
			Want:   shape(f32(2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0), 3, 5),
		},
		{
			Name:   "scatter/float32/value=1.23/docs",
			Labels: exLabels(scatter.OpScatter, F, "value"),
			Source: "PyTorch 1.13 docs scatter_; SEMANTICS.md §12 #29",
			Call:   scatter.Scatter{Self: full(F, 0, 2, 4), Dim: 1, Index: shape(i64(1, 2, 0, 3), 2, 2), Value: scatter.Ptr(scatter.Float(1.23))},
			Want:   valOut,
		},
		{
			Name:   "scatter/multiply/float32/value=1.23/docs",
			Labels: exLabels(scatter.OpScatter, F, "value", "reduce"),
			Source: srcTorchDocs + " scatter_(..., reduce='multiply')",
			Call: scatter.Scatter{Self: full(F, 2, 2, 4), Dim: 1, Index: shape(i64(2, 3), 2, 1),
				Value: scatter.Ptr(scatter.Float(1.23)), Reduce: scatter.ReduceMultiply},
			Want: mulOut,
		},
		{
			Name:   "scatter/add/float32/value=1.23/docs",
			Labels: exLabels(scatter.OpScatter, F, "value", "reduce"),
			Source: srcTorchDocs + " scatter_(..., reduce='add')",
			Call: scatter.Scatter{Self: full(F, 2, 2, 4), Dim: 1, Index: shape(i64(2, 3), 2, 1),
				Value: scatter.Ptr(scatter.Float(1.23)), Reduce: scatter.ReduceAdd},
			Want: addOut,
		},
		{
			Name:   "scatter_add/float32/one-row-index/docs",
			Labels: exLabels(scatter.OpScatterAdd, F),
			Source: srcTorchDocs + " scatter_add_",
			Call:   scatter.ScatterAdd{Self: full(F, 0, 3, 5), Dim: 0, Index: shape(i64(0, 1, 2, 0, 0), 1, 5), Src: full(F, 1, 2, 5)},
			Want:   shape(f32(1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0), 3, 5),
		},
		{
			Name:   "scatter_add/float32/two-row-index/docs",
			Labels: exLabels(scatter.OpScatterAdd, F, "duplicates"),
			Source: srcTorchDocs + " scatter_add_; SEMANTICS.md §12 #42",
			Call: scatter.ScatterAdd{Self: full(F, 0, 3, 5), Dim: 0,
				Index: shape(i64(0, 1, 2, 0, 0, 0, 1, 2, 2, 2), 2, 5), Src: full(F, 1, 2, 5)},
			Want: shape(f32(2, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 1), 3, 5),
		},
		{
			Name:   "scatter_reduce/sum/float32/include_self=true/docs",
			Labels: exLabels(scatter.OpScatterReduce, F, "include_self"),
			Source: srcTorchDocs + " scatter_reduce_; SEMANTICS.md §12 #48",
			Call:   scatter.ScatterReduce{Self: f32(1, 2, 3, 4), Dim: 0, Index: srIndex(), Src: srSrc(), Reduce: scatter.ReduceSum},
			Want:   f32(5, 14, 8, 4),
		},
		{
			Name:   "scatter_reduce/sum/float32/include_self=false/docs",
			Labels: exLabels(scatter.OpScatterReduce, F, "include_self"),
			Source: srcTorchDocs + " scatter_reduce_; SEMANTICS.md §12 #49",
			Call: scatter.ScatterReduce{Self: f32(1, 2, 3, 4), Dim: 0, Index: srIndex(), Src: srSrc(),
				Reduce: scatter.ReduceSum, ExcludeSelf: true},
			Want: f32(4, 12, 5, 4),
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=true/input2=[5,4,3,2]/docs",
			Labels: exLabels(scatter.OpScatterReduce, F, "include_self"),
			Source: srcTorchDocs + " scatter_reduce_ (input2)",
			Call:   scatter.ScatterReduce{Self: f32(5, 4, 3, 2), Dim: 0, Index: srIndex(), Src: srSrc(), Reduce: scatter.ReduceAmax},
			Want:   f32(5, 6, 5, 2),
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=false/input2=[5,4,3,2]/docs",
			Labels: exLabels(scatter.OpScatterReduce, F, "include_self"),
			Source: srcTorchDocs + " scatter_reduce_ (input2)",
			Call: scatter.ScatterReduce{Self: f32(5, 4, 3, 2), Dim: 0, Index: srIndex(), Src: srSrc(),
				Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			Want: f32(3, 6, 5, 2),
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=true/input=[1,2,3,4]/docs",
			Labels: exLabels(scatter.OpScatterReduce, F, "include_self"),
			Source: "PyTorch docs scatter_reduce_ data with the first input; SEMANTICS.md §12 #54",
			Call:   scatter.ScatterReduce{Self: f32(1, 2, 3, 4), Dim: 0, Index: srIndex(), Src: srSrc(), Reduce: scatter.ReduceAmax},
			Want:   f32(3, 6, 5, 4),
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=false/input=[1,2,3,4]/docs",
			Labels: exLabels(scatter.OpScatterReduce, F, "include_self"),
			Source: "PyTorch docs scatter_reduce_ data with the first input; SEMANTICS.md §12 #55",
			Call: scatter.ScatterReduce{Self: f32(1, 2, 3, 4), Dim: 0, Index: srIndex(), Src: srSrc(),
				Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			Want: f32(3, 6, 5, 4),
		},
		{
			Name:   "index_reduce/prod/float32/include_self=true/docs",
			Labels: exLabels(scatter.OpIndexReduce, F, "include_self"),
			Source: srcTorchDocs + " index_reduce_; SEMANTICS.md §12 #90",
			Call: scatter.IndexReduce{Self: full(F, 2, 5, 3), Dim: 0, Index: i64(0, 4, 2, 0), Source: irSource(),
				Reduce: scatter.ReduceProd},
			Want: shape(f32(20, 44, 72, 2, 2, 2, 14, 16, 18, 2, 2, 2, 8, 10, 12), 5, 3),
		},
		{
			Name:   "index_reduce/prod/float32/include_self=false/docs",
			Labels: exLabels(scatter.OpIndexReduce, F, "include_self"),
			Source: srcTorchDocs + " index_reduce_; SEMANTICS.md §12 #91",
			Call: scatter.IndexReduce{Self: full(F, 2, 5, 3), Dim: 0, Index: i64(0, 4, 2, 0), Source: irSource(),
				Reduce: scatter.ReduceProd, ExcludeSelf: true},
			Want: shape(f32(10, 22, 36, 2, 2, 2, 7, 8, 9, 2, 2, 2, 4, 5, 6), 5, 3),
		},
		{
			Name:   "gather/int64/dim=1/docs",
			Labels: exLabels(scatter.OpGather, L),
			Source: "PyTorch docs torch.gather; SEMANTICS.md §12 #109",
			Call:   scatter.Gather{Input: shape(i64(1, 2, 3, 4), 2, 2), Dim: 1, Index: shape(i64(0, 0, 1, 0), 2, 2)},
			Want:   shape(i64(1, 1, 4, 3), 2, 2),
		},
	}
}

// torchScatterExamples: torch_scatter's documented examples, 1.x
// (scatter_add with out) and 2.x (scatter with each reduction).
func torchScatterExamples() []Case {
	L := scatter.DTInt64
	F := scatter.DTFloat32
	tsSrc := func() scatter.Tensor { return f32(1, 3, 2, 4, 5, 6) }
	tsIndex := func() scatter.Tensor { return i64(0, 1, 0, 1, 1, 3) }
	ts := func(r scatter.Reduce) scatter.TorchScatter {
		return scatter.TorchScatter{Src: tsSrc(), Index: tsIndex(), Dim: scatter.Ptr(0), Reduce: r}
	}
	label := func(r string, features ...string) []string {
		return exLabels(scatter.OpTorchScatter, F, append([]string{r}, features...)...)
	}

	// The docstring's 1.x example: src 2x5 into out = zeros(2, 6), dim=-1.
	// row 0: index [4,5,4,2,3] gets out[2]=4, out[3]=3, out[4]=2+1, out[5]=0;
	// row 1: index [0,0,2,2,1] gets out[0]=0+2, out[1]=4, out[2]=1+3.
	ts1Src := func(dt scatter.DType) scatter.Tensor {
		t := full(dt, 0, 2, 5)
		for i, x := range []float64{2, 0, 1, 4, 3, 0, 2, 1, 3, 4} {
			setAt(t, i, x)
		}
		return t
	}
	ts1Index := func() scatter.Tensor { return shape(i64(4, 5, 4, 2, 3, 0, 0, 2, 2, 1), 2, 5) }
	ts1Want := func(dt scatter.DType) scatter.Tensor {
		t := full(dt, 0, 2, 6)
		for i, x := range []float64{0, 0, 4, 3, 3, 0, 2, 4, 4, 0, 0, 0} {
			setAt(t, i, x)
		}
		return t
	}

	// The docstring's 2.x example, src = arange(2*6*3).reshape(2, 6, 3)
	// (instead of randn(10, 6, 64)) and index [0, 1, 0, 1, 2, 1] along dim 1,
	// broadcast in the first and last dim: src[b][j][k] = 18b + 3j + k.
	groups := [][]int{{0, 2}, {1, 3, 5}, {4}}
	sumWant := full(F, 0, 2, 3, 3)
	maxWant := full(F, 0, 2, 3, 3)
	argWant := full(L, 0, 2, 3, 3)
	for b := 0; b < 2; b++ {
		for g, js := range groups {
			for k := 0; k < 3; k++ {
				var s float64
				for _, j := range js {
					s += float64(18*b + 3*j + k)
				}
				last := js[len(js)-1] // src grows along dim 1: the last wins
				o := (b*3+g)*3 + k
				setAt(sumWant, o, s)
				setAt(maxWant, o, float64(18*b+3*last+k))
				setAt(argWant, o, float64(last))
			}
		}
	}
	bcIndex := func() scatter.Tensor { return i64(0, 1, 0, 1, 2, 1) }

	return []Case{
		{
			Name:   "torch_scatter.scatter_add/float32/out=zeros(2,6)/docs",
			Labels: exLabels(scatter.OpTorchScatterAdd, F, "out"),
			Source: srcTSDocs1x + " (prints a FloatTensor)",
			Call:   scatter.TorchScatterAdd{Src: ts1Src(F), Index: ts1Index(), Out: full(F, 0, 2, 6)},
			Want:   ts1Want(F),
		},
		{
			Name:   "torch_scatter.scatter_add/int64/no-out/docs",
			Labels: exLabels(scatter.OpTorchScatterAdd, L),
			Source: srcTSDocs1x + " without out: dim_size = index.max()+1 = 6, fill_value 0",
			Call:   scatter.TorchScatterAdd{Src: ts1Src(L), Index: ts1Index()},
			Want:   ts1Want(L),
		},
		{
			Name:   "torch_scatter.scatter/sum/float32/docs",
			Labels: label("sum"),
			Source: srcTSTest2x,
			Call:   ts(scatter.ReduceSum),
			Want:   f32(3, 12, 0, 6),
		},
		{
			Name:   "torch_scatter.scatter/add/float32/docs",
			Labels: label("add"),
			Source: srcTSTest2x,
			Call:   ts(scatter.ReduceAdd),
			Want:   f32(3, 12, 0, 6),
		},
		{
			Name:   "torch_scatter.scatter/mean/float32/docs",
			Labels: label("mean"),
			Source: srcTSTest2x,
			Call:   ts(scatter.ReduceMean),
			Want:   f32(1.5, 4, 0, 6),
		},
		{
			Name:   "torch_scatter.scatter/mul/float32/docs",
			Labels: label("mul", "empty-group"),
			Source: srcTSTest2x + " (empty groups give 1)",
			Call:   ts(scatter.ReduceMul),
			Want:   f32(2, 60, 1, 6),
		},
		{
			Name:    "torch_scatter.scatter/min/float32/docs",
			Labels:  label("min", "arg", "empty-group"),
			Source:  srcTSTest2x + " (arg of an empty group is src.size(dim) = 6)",
			Call:    ts(scatter.ReduceMin),
			Want:    f32(1, 3, 0, 6),
			WantArg: i64(0, 1, 6, 5),
		},
		{
			Name:    "torch_scatter.scatter/max/float32/docs",
			Labels:  label("max", "arg", "empty-group"),
			Source:  srcTSTest2x + " (arg of an empty group is src.size(dim) = 6)",
			Call:    ts(scatter.ReduceMax),
			Want:    f32(2, 5, 0, 6),
			WantArg: i64(2, 4, 6, 5),
		},
		{
			Name:   "torch_scatter.scatter/sum/float32/dim_size=6/docs",
			Labels: label("sum", "dim_size"),
			Source: srcSemTS2x,
			Call:   scatter.TorchScatter{Src: tsSrc(), Index: tsIndex(), DimSize: scatter.Ptr(6), Reduce: scatter.ReduceSum},
			Want:   f32(3, 12, 0, 6, 0, 0),
		},
		{
			Name:   "torch_scatter.scatter/sum/int64/src=(6,2)/1-d-index-broadcast/docs",
			Labels: exLabels(scatter.OpTorchScatter, L, "sum", "broadcast"),
			Source: srcSemTS2x + " (src = arange(12).reshape(6, 2))",
			Call:   scatter.TorchScatter{Src: exArange(L, 0, 6, 2), Index: tsIndex(), Dim: scatter.Ptr(0), Reduce: scatter.ReduceSum},
			Want:   shape(i64(4, 6, 16, 19, 0, 0, 10, 11), 4, 2),
		},
		{
			Name:   "torch_scatter.scatter/mean/int64/floor/docs",
			Labels: exLabels(scatter.OpTorchScatter, L, "mean", "floor"),
			Source: srcSemTS2x + " (scatter_mean([-3,-4,3],[0,0,1]): -7/2 floors to -4)",
			Call:   scatter.TorchScatter{Src: i64(-3, -4, 3), Index: i64(0, 0, 1), Reduce: scatter.ReduceMean},
			Want:   i64(-4, 3),
		},
		{
			Name:   "torch_scatter.scatter/mean/float32/out-not-counted/docs",
			Labels: label("mean", "out"),
			Source: srcSemTS2x + " (scatter_mean([2.,4.],[0,0],out=[6.,10.]): (6+2+4)/2)",
			Call:   scatter.TorchScatter{Src: f32(2, 4), Index: i64(0, 0), Out: f32(6, 10), Reduce: scatter.ReduceMean},
			Want:   f32(6, 10),
		},
		{
			Name:   "torch_scatter.scatter/mean/int8/count-overflow/docs",
			Labels: exLabels(scatter.OpTorchScatter, scatter.DTInt8, "mean", "overflow"),
			Source: srcSemTS2x + " (scatter_mean(ones(130, int8), zeros(130)): sum and count wrap to -126, count < 1 becomes 1)",
			Call: scatter.TorchScatter{Src: full(scatter.DTInt8, 1, 130), Index: full(L, 0, 130),
				Reduce: scatter.ReduceMean},
			Want: i8(-126),
		},
		{
			Name:    "torch_scatter.scatter/max/float32/nan-and-ninf-only-group/docs",
			Labels:  label("max", "arg", "nan"),
			Source:  srcSemTS2xSource,
			Call:    scatter.TorchScatter{Src: f32(float32(ninf), float32(nan), 2), Index: i64(0, 0, 1), Reduce: scatter.ReduceMax},
			Want:    f32(0, 2),
			WantArg: i64(3, 2),
		},
		{
			Name:   "torch_scatter.scatter/sum/float32/src=(2,6,3)/dim=1/broadcast-first-and-last/docs",
			Labels: label("sum", "broadcast"),
			Source: srcTSDocs2x,
			Call:   scatter.TorchScatter{Src: exArange(F, 0, 2, 6, 3), Index: bcIndex(), Dim: scatter.Ptr(1), Reduce: scatter.ReduceSum},
			Want:   sumWant,
		},
		{
			Name:    "torch_scatter.scatter/max/float32/src=(2,6,3)/dim=1/broadcast-first-and-last/docs",
			Labels:  label("max", "arg", "broadcast"),
			Source:  srcTSDocs2x + " (README scatter_max)",
			Call:    scatter.TorchScatter{Src: exArange(F, 0, 2, 6, 3), Index: bcIndex(), Dim: scatter.Ptr(1), Reduce: scatter.ReduceMax},
			Want:    maxWant,
			WantArg: argWant,
		},
	}
}

// fsharpExamples: the F# Tensor library's scatter and gather samples, with
// src = [[0.0; 0.1; 0.2; 0.3]; [1.0; 1.1; 1.2; 1.3]; [2.0; 2.1; 2.2; 2.3]].
func fsharpExamples() []Case {
	D := scatter.DTFloat64
	src := func() scatter.Tensor {
		return shape(f64(0.0, 0.1, 0.2, 0.3, 1.0, 1.1, 1.2, 1.3, 2.0, 2.1, 2.2, 2.3), 3, 4)
	}
	// Tensor.scatter [Some i0; Some i1] [4L; 4L] src: the first src row all
	// goes to (0, 3), summed in row-major order into a zero target.
	row0 := exSum64(0, 0.0, 0.1, 0.2, 0.3)
	scatterWant := shape(f64(
		0, 0, 0, row0,
		2.0, 2.1, 2.2, 2.3,
		1.0, 1.1, 1.2, 1.3,
		0, 0, 0, 0), 4, 4)
	return []Case{
		{
			Name:   "tensor.scatter/float64/shape=[4,4]/docs",
			Labels: exLabels(scatter.OpTensorScatter, D, "duplicates"),
			Source: srcFSharpSample,
			Call: scatter.TensorScatter{
				Indices: []scatter.Tensor{
					shape(i64(0, 0, 0, 0, 2, 2, 2, 2, 1, 1, 1, 1), 3, 4),
					shape(i64(3, 3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3), 3, 4),
				},
				Shape: []int{4, 4},
				Src:   src(),
			},
			Want: scatterWant,
			// Four float64 contributions to (0, 3): another summation order
			// may round differently and still conform, so a backend is held
			// to the judge; the reference must give this row-major sum.
			OneOf: true,
		},
		{
			Name:   "tensor.gather/float64/both-indices/docs",
			Labels: exLabels(scatter.OpTensorGather, D),
			Source: srcFSharpSample,
			Call: scatter.TensorGather{
				Indices: []scatter.Tensor{i64(1, 2, 0, 0), i64(3, 1, 0, 3)},
				Src:     src(),
			},
			Want: f64(1.3, 2.1, 0.0, 0.3),
		},
		{
			Name:   "tensor.gather/float64/none-first/docs",
			Labels: exLabels(scatter.OpTensorGather, D, "none"),
			Source: srcFSharpSample,
			Call: scatter.TensorGather{
				Indices: []scatter.Tensor{{}, i64(3, 1, 0)},
				Src:     src(),
			},
			Want: f64(0.3, 1.1, 2.0),
		},
	}
}
