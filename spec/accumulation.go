package spec

import (
	"math"

	"github.com/scatterconf/scatter"
)

// accumulationCases returns float32 groups of three values whose exact
// sum (product), rounded once to float32, is a result that no order and no
// tree of float32 additions (multiplications) gives: the float32 sums,
// means and products of every operation that folds them, in float32 as
// PyTorch does (SEMANTICS.md §1.4: every step rounds in the dtype). Every
// order gives the same value here, so the recorded outcome is PyTorch's
// whatever order its kernel takes, and the conformant level's exact set
// (reference/enumerate.go) is that one value: an implementation that
// accumulates float32 in float64 and rounds once is rejected at both
// levels. (A group of two never shows it: fl32(fl64(a+b)) = fl32(a+b).)
//
// The sum: {2^23, 2^23+1, 0.25}, exactly 2^24 + 1.25, which rounds to
// 2^24 + 2 (float32's spacing is 2 there). Every order gives 2^24: 0.25
// is absorbed by whichever of 2^23, 2^23+1 and 2^24+1 it meets (half a
// spacing there is 0.5 or 1), and 2^23 + (2^23+1) = 2^24 + 1 is a tie,
// rounded to the even 2^24; the three trees are ((2^23 + 2^23+1) + 0.25),
// ((2^23 + 0.25) + 2^23+1) and ((2^23+1 + 0.25) + 2^23). Their mean is
// fl32(2^24 / 3) = 5592405.5; float64's 2^24 + 2 gives 5592406.
//
// The product: {p, p, p} with p = 1 + 2^-12, exactly 1 + 3·2^-12 +
// 3·2^-24 + 2^-36, which rounds to 1 + 3·2^-12 + 2^-22 (float32's
// spacing is 2^-23 there). Every order first forms p·p = 1 + 2^-11 +
// 2^-24, a tie rounded to the even 1 + 2^-11, then (1 + 2^-11)·p = 1 +
// 3·2^-12 + 2^-23 exactly.
//
// The groups were found by brute force over every summation tree (numpy
// float32 per step against fractions.Fraction's exact sum), and each case
// was run on torch 1.13.1, 2.6.0 and 2.14.1 with torch_scatter 2.1.2.
func accumulationCases() []Case {
	const (
		F32 = scatter.DTFloat32
		sum = "arithmetic, SEMANTICS.md §1.4 (float32 sums round every step in float32): 2^23 + (2^23+1) + 0.25 is 2^24 + 1.25 exactly, " +
			"which float32 rounds to 2^24 + 2, but every order and tree of float32 additions gives 2^24 (0.25 is absorbed, and 2^24 + 1 is a tie to even): " +
			"no order gives a float64 accumulation's 2^24 + 2; checked on torch 1.13.1, 2.6.0 and 2.14.1"
		mean = sum + "; the mean is fl32(2^24 / 3) = 5592405.5, not fl32((2^24 + 2) / 3) = 5592406"
		prod = "arithmetic, SEMANTICS.md §1.4 (float32 products round every step in float32): (1 + 2^-12)^3 is 1 + 3·2^-12 + 3·2^-24 + 2^-36 exactly, " +
			"which float32 rounds to 1 + 3·2^-12 + 2^-22, but every order first rounds (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24, a tie, to 1 + 2^-11, " +
			"and gives 1 + 3·2^-12 + 2^-23: no order gives a float64 accumulation's; checked on torch 1.13.1, 2.6.0 and 2.14.1"
	)
	a, b, c := float32(1<<23), float32(1<<23+1), float32(0.25)
	p := float32(1 + math.Ldexp(1, -12))
	sumWant := f32(1 << 24)
	meanWant := f32(5592405.5) // fl32(2^24 / 3): 5592405.33... rounds to the float32 spacing 0.5
	prodWant := f32(float32(1 + 3*math.Ldexp(1, -12) + math.Ldexp(1, -23)))

	var cs []Case
	add := func(name, source string, op scatter.Op, features []string, call scatter.Call, want scatter.Tensor) {
		cs = append(cs, Case{
			Name:   name,
			Labels: ecLabels(op, F32, append([]string{"rounding", "accumulation"}, features...)...),
			Source: source,
			Call:   call,
			Want:   want,
		})
	}
	const (
		opS   = scatter.OpScatter
		opSA  = scatter.OpScatterAdd
		opSR  = scatter.OpScatterReduce
		opIR  = scatter.OpIndexReduce
		opTS  = scatter.OpTorchScatter
		opTSA = scatter.OpTorchScatterAdd
		opFS  = scatter.OpTensorScatter
	)
	// The sum: self 2^23 and the contributions 2^23+1 and 0.25, or the
	// three as contributions.
	add("scatter_add/float32/accumulation/sum-no-order-rounds-once", sum, opSA, []string{"duplicates"},
		scatter.ScatterAdd{Self: f32(a), Index: i64(0, 0), Src: f32(b, c)}, sumWant)
	add("scatter/reduce=add/float32/accumulation/sum-no-order-rounds-once", sum, opS, []string{"duplicates"},
		scatter.Scatter{Self: f32(a), Index: i64(0, 0), Src: f32(b, c), Reduce: scatter.ReduceAdd}, sumWant)
	add("scatter_reduce/sum/float32/include_self=true/accumulation/sum-no-order-rounds-once", sum, opSR, []string{"sum", "include_self", "duplicates"},
		scatter.ScatterReduce{Self: f32(a), Index: i64(0, 0), Src: f32(b, c), Reduce: scatter.ReduceSum}, sumWant)
	add("scatter_reduce/sum/float32/include_self=false/accumulation/sum-no-order-rounds-once", sum, opSR, []string{"sum", "include_self", "duplicates"},
		scatter.ScatterReduce{Self: f32(7), Index: i64(0, 0, 0), Src: f32(a, b, c), Reduce: scatter.ReduceSum, ExcludeSelf: true}, sumWant)
	add("scatter_reduce/mean/float32/include_self=true/accumulation/sum-no-order-rounds-once", mean, opSR, []string{"mean", "include_self", "duplicates"},
		scatter.ScatterReduce{Self: f32(a), Index: i64(0, 0), Src: f32(b, c), Reduce: scatter.ReduceMean}, meanWant)
	add("scatter_reduce/mean/float32/include_self=false/accumulation/sum-no-order-rounds-once", mean, opSR, []string{"mean", "include_self", "duplicates"},
		scatter.ScatterReduce{Self: f32(7), Index: i64(0, 0, 0), Src: f32(a, b, c), Reduce: scatter.ReduceMean, ExcludeSelf: true}, meanWant)
	add("index_reduce/mean/float32/include_self=true/accumulation/sum-no-order-rounds-once", mean, opIR, []string{"mean", "include_self", "duplicates"},
		scatter.IndexReduce{Self: f32(a), Index: i64(0, 0), Source: f32(b, c), Reduce: scatter.ReduceMean}, meanWant)
	add("index_reduce/mean/float32/include_self=false/accumulation/sum-no-order-rounds-once", mean, opIR, []string{"mean", "include_self", "duplicates"},
		scatter.IndexReduce{Self: f32(7), Index: i64(0, 0, 0), Source: f32(a, b, c), Reduce: scatter.ReduceMean, ExcludeSelf: true}, meanWant)
	add("torch_scatter.scatter/sum/float32/accumulation/sum-no-order-rounds-once", sum, opTS, []string{"torch_scatter", "sum", "duplicates"},
		scatter.TorchScatter{Src: f32(a, b, c), Index: i64(0, 0, 0), Reduce: scatter.ReduceSum}, sumWant)
	add("torch_scatter.scatter/mean/float32/accumulation/sum-no-order-rounds-once", mean, opTS, []string{"torch_scatter", "mean", "duplicates"},
		scatter.TorchScatter{Src: f32(a, b, c), Index: i64(0, 0, 0), Reduce: scatter.ReduceMean}, meanWant)
	add("torch_scatter.scatter_add/float32/accumulation/sum-no-order-rounds-once", sum, opTSA, []string{"torch_scatter", "duplicates"},
		scatter.TorchScatterAdd{Src: f32(a, b, c), Index: i64(0, 0, 0)}, sumWant)
	add("tensor.scatter/float32/accumulation/sum-no-order-rounds-once", sum, opFS, []string{"duplicates"},
		scatter.TensorScatter{Indices: []scatter.Tensor{i64(0, 0, 0)}, Shape: []int{1}, Src: f32(a, b, c)}, sumWant)

	// A long group: self and seven contributions, for an implementation
	// that takes another path (a segmented reduction in float64) only for
	// groups past a few members. Every order of the eight float32
	// additions gives 50.852409 (bits 0x424b68de); the exact sum rounded
	// once gives 50.852406 (0x424b68dd).
	long := "arithmetic, SEMANTICS.md §1.4: self 26.079487 and seven contributions, whose exact sum rounds to 50.852406 (0x424b68dd) in float32, " +
		"but every order of float32 additions gives 50.852409 (0x424b68de): a long group accumulated in float64 is seen; " +
		"every permutation checked with numpy float32, the call on torch 2.14.1 (found by a teeth hunt: a bug only for groups of eight or more)"
	longSrc := f32(-1.9351782e-09, -1.9871479e-07, -3.4775454e-07, 5.003669e-08, 0.0001982062, 24.775263, -0.0025399982)
	longWant := scatter.FromSlice([]float32{math.Float32frombits(0x424b68de)})
	add("scatter_add/float32/accumulation/long-group-no-order-rounds-once", long, opSA, []string{"duplicates"},
		scatter.ScatterAdd{Self: f32(26.079487), Index: i64(0, 0, 0, 0, 0, 0, 0), Src: longSrc}, longWant)
	add("scatter_reduce/sum/float32/include_self=true/accumulation/long-group-no-order-rounds-once", long, opSR, []string{"sum", "include_self", "duplicates"},
		scatter.ScatterReduce{Self: f32(26.079487), Index: i64(0, 0, 0, 0, 0, 0, 0), Src: longSrc, Reduce: scatter.ReduceSum}, longWant)

	// The product: self p and the contributions p, p, or the three as
	// contributions.
	add("scatter/reduce=multiply/float32/accumulation/prod-no-order-rounds-once", prod, opS, []string{"duplicates"},
		scatter.Scatter{Self: f32(p), Index: i64(0, 0), Src: f32(p, p), Reduce: scatter.ReduceMultiply}, prodWant)
	add("scatter_reduce/prod/float32/include_self=true/accumulation/prod-no-order-rounds-once", prod, opSR, []string{"prod", "include_self", "duplicates"},
		scatter.ScatterReduce{Self: f32(p), Index: i64(0, 0), Src: f32(p, p), Reduce: scatter.ReduceProd}, prodWant)
	add("scatter_reduce/prod/float32/include_self=false/accumulation/prod-no-order-rounds-once", prod, opSR, []string{"prod", "include_self", "duplicates"},
		scatter.ScatterReduce{Self: f32(7), Index: i64(0, 0, 0), Src: f32(p, p, p), Reduce: scatter.ReduceProd, ExcludeSelf: true}, prodWant)
	add("index_reduce/prod/float32/include_self=true/accumulation/prod-no-order-rounds-once", prod, opIR, []string{"prod", "include_self", "duplicates"},
		scatter.IndexReduce{Self: f32(p), Index: i64(0, 0), Source: f32(p, p), Reduce: scatter.ReduceProd}, prodWant)
	add("index_reduce/prod/float32/include_self=false/accumulation/prod-no-order-rounds-once", prod, opIR, []string{"prod", "include_self", "duplicates"},
		scatter.IndexReduce{Self: f32(7), Index: i64(0, 0, 0), Source: f32(p, p, p), Reduce: scatter.ReduceProd, ExcludeSelf: true}, prodWant)
	add("torch_scatter.scatter/mul/float32/accumulation/prod-no-order-rounds-once", prod, opTS, []string{"torch_scatter", "duplicates"},
		scatter.TorchScatter{Src: f32(p, p, p), Index: i64(0, 0, 0), Reduce: scatter.ReduceMul}, prodWant)
	return cs
}
