package reference

import (
	"math"

	"github.com/scatterconf/scatter"
)

// Broadcasting helpers shared by the torch_scatter and F# planners. A
// broadcast never copies: it is a strided view of the original data, with
// stride 0 along every stretched or inserted dimension, read in row-major
// order with scatter.Values (or indexValues) or copied with Contiguous.

// maxOutputElems bounds the outputs the reference allocates itself (a
// torch_scatter output whose size comes from dim_size or index.max()+1, an
// F# target shape). PyTorch would try to allocate a larger one and fail
// for lack of memory, or succeed slowly; the reference answers
// ErrInvalidArgument instead (as PyTorch's allocator error would be).
const maxOutputElems = 1 << 24

// numel returns the product of shape (1 for []), saturating at
// math.MaxInt; sizes must be non-negative.
func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		if s == 0 {
			return 0
		}
	}
	for _, s := range shape {
		if n > math.MaxInt/s {
			return math.MaxInt
		}
		n *= s
	}
	return n
}

// viewOf returns the view of t's data with the given shape and strides and
// t's offset.
func viewOf(t scatter.Tensor, shape, strides []int) scatter.Tensor {
	return scatter.Tensor{Shape: shape, Strides: strides, Offset: t.Offset, Data: t.Data}
}

// expandStrides is torch's expand (and F#'s broadcastDim) for a layout of
// the same rank as to: a dimension of size to[d] keeps its stride, one of
// size 1 stretches to any size (0 included) with stride 0. It reports the
// first dimension that can do neither (-1 if none).
func expandStrides(shape, strides, to []int) ([]int, int) {
	st := make([]int, len(to))
	for d := range to {
		switch {
		case shape[d] == to[d]:
			st[d] = strides[d]
		case shape[d] == 1:
			st[d] = 0
		default:
			return nil, d
		}
	}
	return st, -1
}

// padLeft prepends size-1, stride-0 dimensions until the layout has n.
func padLeft(shape, strides []int, n int) ([]int, []int) {
	k := n - len(shape)
	if k <= 0 {
		return shape, strides
	}
	sh := append(make([]int, k), shape...)
	st := append(make([]int, k), strides...)
	for i := 0; i < k; i++ {
		sh[i] = 1
	}
	return sh, st
}

// numpyBroadcastTo is F#'s broadcastToShape (TensorLayout.fs): t's shape,
// left-padded with 1s, stretches its size-1 dimensions to shape. A tensor of
// higher rank than shape, or a size that is neither equal nor 1, does not
// broadcast (ok false).
func numpyBroadcastTo(t scatter.Tensor, shape []int) (scatter.Tensor, bool) {
	if t.Dim() > len(shape) {
		return scatter.Tensor{}, false
	}
	sh, st := padLeft(t.Shape, t.StridesOrDefault(), len(shape))
	est, bad := expandStrides(sh, st, shape)
	if bad >= 0 {
		return scatter.Tensor{}, false
	}
	return viewOf(t, append([]int{}, shape...), est), true
}

// numpyBroadcastShape is F#'s broadcastToSameMany: the shapes, left-padded
// to the largest rank, agree in every dimension up to size-1 dimensions,
// which stretch to the single other size (0 included). ok is false if some
// dimension has two different sizes other than 1.
func numpyBroadcastShape(shapes ...[]int) ([]int, bool) {
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	out := make([]int, n)
	for d := range out {
		out[d] = 1
	}
	for _, s := range shapes {
		off := n - len(s)
		for i, x := range s {
			d := off + i
			switch {
			case x == 1:
			case out[d] == 1:
				out[d] = x
			case out[d] != x:
				return nil, false
			}
		}
	}
	return out, true
}

// indexInts returns the elements of a tensor of any dtype as int64s in
// row-major order, as Python's int(t.max()) would see them: integers as
// they are, bool as 0 or 1, floats truncated toward zero. ok is false for a
// float that no int64 holds (NaN, ±inf, or too large).
func indexInts(t scatter.Tensor) (vals []int64, ok bool) {
	switch t.DType() {
	case scatter.DTInt64, scatter.DTInt32:
		return indexValues(t), true
	}
	pos := t.Positions()
	vals = make([]int64, len(pos))
	for i, p := range pos {
		if t.DType().IsFloat() {
			f := math.Trunc(scatter.Float64At(t.Data, p))
			if math.IsNaN(f) || f < math.MinInt64 || f >= math.MaxInt64 {
				return nil, false
			}
			vals[i] = int64(f)
		} else {
			vals[i] = intAt(t.Data, p)
		}
	}
	return vals, true
}

// maxOf returns the largest of vals (which must not be empty).
func maxOf(vals []int64) int64 {
	m := vals[0]
	for _, v := range vals[1:] {
		m = max(m, v)
	}
	return m
}

// outputTooLarge records ErrInvalidArgument if a tensor of shape would have
// more than maxOutputElems elements, and reports whether it did. The
// error is the reference's limit, not PyTorch's rule: Expectation.Declined
// names it, so that a caller can decline the call instead of requiring an
// error (PyTorch allocates such an output where memory allows).
func outputTooLarge(e *errs, shape []int) bool {
	if numel(shape) > maxOutputElems {
		e.add(scatter.ErrInvalidArgument, declinedPrefix+"an output of shape %v (more than %d elements)", shape, maxOutputElems)
		return true
	}
	return false
}

// declinedPrefix starts the message of the error outputTooLarge records.
const declinedPrefix = "the reference does not allocate "

// argAlong returns the argRule whose dimPos is, for every row-major
// position of shape, its coordinate along dim.
func argAlong(shape []int, dim int) *argRule {
	return &argRule{inner: numel(shape[dim+1:]), size: shape[dim]}
}
