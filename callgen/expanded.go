package callgen

import (
	"slices"

	"github.com/scatterconf/scatter"
)

// ExpandedIndexCall draws a call of op whose index is laid out as graph
// libraries expand one, the layout of PyTorch 2's expanded-index path
// (can_use_expanded_index_path, PROFILES.md "Views"): an index of shape
// [E, ...] with dim-0 stride 1 and every other stride 0 (1 for a size-1
// dimension), one value per index of dim 0, as index.view(-1, 1).expand(E,
// K) makes it (in a share of the draws, rows that overlap instead:
// expandedIndex); for index_reduce, whose index is a vector, a source with a
// stride 0 (a source whose slices, or whose rows, are one value). op is
// scatter, scatter_add, scatter_reduce, gather or index_reduce.
//
// The draws straddle the path's conditions: rows of the index around 16
// elements, dim 0 mostly (sometimes as a negative dim) and sometimes 1,
// floating dtypes mostly, int32 and int64 indices (int32 whatever the
// profile), a self whose rows are sometimes longer than the index's, a
// src sometimes wider than the index off dim 0, and index values out of
// range in a few calls. Self, src and input are contiguous; only the
// index (the source, for index_reduce) is a view. The calls are meant
// for a differential of views against their copies (live's
// TestLayoutViews); they are not otherwise valid by construction.
func (g *Drawer) ExpandedIndexCall(op scatter.Op) scatter.Call {
	dt := g.DType(op, func(dt scatter.DType) bool { return dt.IsFloat() })
	if g.Chance(15) {
		dt = g.DType(op, nil)
	}
	idt := g.IndexDType(true)
	if op == scatter.OpIndexReduce {
		return g.stridedSourceIndexReduce(dt, idt)
	}
	e := g.IntRange(1, 6)
	k := OneOf(g, 16, 1, 4, 8, 15, 17, 24, 32, 40)
	var ishape []int
	switch g.pick(2, 1, 1) {
	case 0:
		ishape = []int{e, k}
	case 1:
		ishape = []int{e, 1, k}
	default:
		a := OneOf(g, 2, 4, 8)
		ishape = []int{e, a, (k + a - 1) / a}
	}
	selfShape, srcShape := slices.Clone(ishape), slices.Clone(ishape)
	wide, srcWide := g.Chance(25), g.Chance(15)
	for d := 1; d < len(ishape); d++ {
		if wide && g.Chance(50) {
			selfShape[d] += g.IntRange(1, 2)
		}
		if srcWide && g.Chance(50) {
			srcShape[d]++
		}
	}
	selfShape[0] = g.IntRange(1, 5)
	srcShape[0] = e + g.IntRange(0, 1)
	dim, size := 0, selfShape[0]
	switch g.pick(6, 1, 1) {
	case 1:
		dim = -len(ishape)
	case 2:
		dim, size = 1, selfShape[1]
	}
	index := g.expandedIndex(idt, ishape, size)
	self := g.Tensor(dt, selfShape, g.Values(), PlainLayout)
	switch op {
	case scatter.OpGather:
		return scatter.Gather{Input: self, Dim: dim, Index: index}
	case scatter.OpScatterAdd:
		return scatter.ScatterAdd{Self: self, Dim: dim, Index: index, Src: g.Tensor(dt, srcShape, g.Values(), PlainLayout)}
	case scatter.OpScatterReduce:
		return scatter.ScatterReduce{Self: self, Dim: dim, Index: index, Src: g.Tensor(dt, srcShape, g.Values(), PlainLayout),
			Reduce:      OneOf(g, scatter.ReduceSum, scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin),
			ExcludeSelf: g.Chance(50)}
	}
	c := scatter.Scatter{Self: self, Dim: dim, Index: index, Reduce: OneOf(g, scatter.ReduceNone, scatter.ReduceAdd, scatter.ReduceMultiply)}
	if g.Chance(30) {
		v := g.scalar(dt, false)
		c.Value = &v
	} else {
		c.Src = g.Tensor(dt, srcShape, g.Values(), PlainLayout)
	}
	return c
}

// expandedIndex draws an index of dtype idt and shape with dim-0 stride 1
// and every other stride 0 (1 for a size-1 dimension): one value per
// index of dim 0, in [0, size) but for a few out of range. In a share of
// the draws the last dimension has stride 1 instead, so that the rows
// overlap (row i holds values i, i+1, ...): strides the path's
// eligibility check also takes (every stride but dim 0's at most 1).
func (g *Drawer) expandedIndex(idt scatter.DType, shape []int, size int) scatter.Tensor {
	strides := make([]int, len(shape))
	strides[0] = 1
	for d := 1; d < len(shape); d++ {
		if shape[d] == 1 {
			strides[d] = 1
		}
	}
	n := shape[0]
	if last := len(shape) - 1; last > 0 && shape[last] > 1 && g.Chance(15) {
		strides[last] = 1
		n += shape[last] - 1
	}
	vals := make([]int64, n)
	for i := range vals {
		switch {
		case g.Chance(3):
			vals[i] = corruptIndex(g.src, bigIndex, size, idt)
		case g.Chance(3):
			vals[i] = corruptIndex(g.src, negIndex, size, idt)
		default:
			vals[i] = int64(g.IntRange(0, max(size-1, 0)))
		}
	}
	t := plainIndex(idt, vals, []int{n})
	t.Shape, t.Strides = shape, strides
	return t
}

// stridedSourceIndexReduce draws index_reduce along dim 0 of a self [S, W]
// with a source [E, W] laid out with a stride 0: rows of one value, one
// row repeated, or one value.
func (g *Drawer) stridedSourceIndexReduce(dt, idt scatter.DType) scatter.Call {
	s, e, w := g.IntRange(1, 5), g.IntRange(1, 6), OneOf(g, 2, 1, 3, 16)
	vals := make([]int64, e)
	for i := range vals {
		vals[i] = int64(g.IntRange(0, s-1))
	}
	strides := OneOf(g, []int{1, 0}, []int{0, 1}, []int{0, 0})
	base := []int{e, 1}
	switch {
	case strides[0] == 0 && strides[1] == 0:
		base = []int{1, 1}
	case strides[0] == 0:
		base = []int{1, w}
	}
	src := g.Tensor(dt, base, g.Values(), PlainLayout)
	src.Shape, src.Strides = []int{e, w}, strides
	return scatter.IndexReduce{Self: g.Tensor(dt, []int{s, w}, g.Values(), PlainLayout), Dim: 0,
		Index: plainIndex(idt, vals, []int{e}), Source: src,
		Reduce: OneOf(g, scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin), ExcludeSelf: g.Chance(50)}
}
