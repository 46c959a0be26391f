package reference

import (
	"fmt"

	"github.com/scatterconf/scatter"
)

// The F# Tensor library's scatter and gather (DeepMLNet/DeepNet,
// Tensor/Tensor/Tensor.fs; SEMANTICS.md §9). Every target dimension is
// indexed (a full N-d scatter/gather, not a dim-scatter); an index that is
// None stands for the position itself. Indices broadcast NumPy-style
// (TensorLayout.fs). Positions are never wrapped: a value outside
// [0, size) is ErrIndexOutOfRange. (The host backend converts each int64
// index with an unchecked int cast, so 2^32 would alias 0 there; the suite
// does not follow that.)

// fsIndices validates the given index tensors: well-formed (ErrInvalidArgument)
// and Tensor<int64> (ErrIndexDType; F#'s type system rejects any other
// before anything runs).
func fsIndices(e *errs, src scatter.Tensor, indices []scatter.Tensor) bool {
	if !checkTensor(e, "src", src) {
		return false
	}
	ok := true
	for k, t := range indices {
		if !t.IsZero() && !checkTensor(e, fmt.Sprintf("indices[%d]", k), t) {
			ok = false
		}
	}
	if !ok {
		return false
	}
	for k, t := range indices {
		if !t.IsZero() && t.DType() != scatter.DTInt64 {
			e.add(scatter.ErrIndexDType, "indices[%d]: expected Tensor<int64>, got %v", k, t.DType())
		}
	}
	return len(*e) == 0
}

// planTensorScatter: Tensor.scatter indices trgtShp src (and FillScatter,
// which zero-fills its target first):
//
//	trgt = zeros(trgtShp)
//	for every position p of src (row-major):  trgt[j(p)] += src[p]
//	j(p)[k] = indices[k][p] (broadcast to src's shape), or p[k] where indices[k] is None
//
// In the library's order: the index type (ErrIndexDType); the target's
// shape has no negative size (ErrInvalidArgument, when Tensor<'T>(trgtShp)
// is made); one index per target dimension, and the target has at least
// src's rank (List.skip src.NDims), with every index beyond src's rank
// given (ErrInvalidArgument); every given index broadcasts to src's shape
// (broadcastTo: left-pad with 1s, size-1 dims stretch; ErrShapeMismatch);
// the element type has an addition (bool has none: ErrUnsupportedDType);
// then every target position lies in the target (ErrIndexOutOfRange, at the
// first src position in row-major order that leaves it, a None dimension
// included: p[k] >= trgtShp[k]).
//
// The sum starts from +0 and adds in row-major order of p, in the element
// type (16-bit floats round at every step).
func planTensorScatter(c scatter.TensorScatter, prof scatter.Profile) (*plan, errs) {
	var e errs
	if !fsIndices(&e, c.Src, c.Indices) {
		return nil, e
	}
	T := c.Shape
	for _, s := range T {
		if s < 0 {
			e.add(scatter.ErrInvalidArgument, "shape %v cannot have negative entries", T)
			return nil, e
		}
	}
	if outputTooLarge(&e, T) {
		return nil, e
	}
	src := c.Src
	S := src.Shape
	if len(c.Indices) != len(T) {
		e.add(scatter.ErrInvalidArgument, "for each dimension of the target an index tensor must be specified (%d indices, %d dimensions)", len(c.Indices), len(T))
		return nil, e
	}
	if len(T) < len(S) {
		e.add(scatter.ErrInvalidArgument, "List.skip: the target's %d dimensions are fewer than src's %d", len(T), len(S))
		return nil, e
	}
	for k := len(S); k < len(T); k++ {
		if c.Indices[k].IsZero() {
			e.add(scatter.ErrInvalidArgument, "index dimensions beyond the number of source dimensions must not be None (indices[%d])", k)
			return nil, e
		}
	}
	vals := make([][]int64, len(T))
	for k, t := range c.Indices {
		if t.IsZero() {
			continue
		}
		v, ok := numpyBroadcastTo(t, S)
		if !ok {
			e.add(scatter.ErrShapeMismatch, "Cannot broadcast shape %v to shape %v (indices[%d])", t.Shape, S, k)
			continue
		}
		vals[k] = indexValues(v)
	}
	if len(e) > 0 {
		return nil, e
	}
	dt := src.DType()
	if dt == scatter.DTBool {
		e.add(scatter.ErrUnsupportedDType, "Tensor.scatter: the element type bool has no addition")
		return nil, e
	}
	n := numel(S)
	outPos := make([]int, n)
	srcPos := make([]int, n)
	j := make([]int, len(T))
	for p := 0; p < n; p++ {
		pi := unravel(p, S)
		for k := range T {
			var v int64
			if vals[k] != nil {
				v = vals[k][p]
			} else {
				v = int64(pi[k])
			}
			if v < 0 || v >= int64(T[k]) {
				for q := range T {
					if vals[q] != nil {
						j[q] = int(vals[q][p])
					} else {
						j[q] = pi[q]
					}
				}
				e.add(scatter.ErrIndexOutOfRange, "Position %v is out of range for tensor of shape %v", j, T)
				return nil, e
			}
			j[k] = int(v)
		}
		outPos[p] = ravel(j, T)
		srcPos[p] = p
	}
	init, _ := scatter.Zeros(dt, T...)
	return &plan{dtype: dt, shape: append([]int{}, T...), init: init, src: src.Contiguous(), kind: kSum,
		self: true, perStep: true, groups: groupBy(outPos, srcPos)}, nil
}

// planTensorGather: Tensor.gather indices src:
//
//	trgt[i] = src[j(i)],  j(i)[k] = indices[k][i] or i[k] where indices[k] is None
//	trgt's shape: the common broadcast shape of the given indices
//
// In the library's order: the index type (ErrIndexDType); at least one index
// given (ErrInvalidArgument); the given indices broadcast to one shape
// (broadcastToSame: NumPy rules; ErrShapeMismatch); one index per src
// dimension, the target has at most src's rank (List.skip trgt.NDims), and
// every index beyond the target's rank is given (ErrInvalidArgument); then
// every source position lies in src (ErrIndexOutOfRange, at the first target
// position in row-major order that leaves it). Every dtype works.
func planTensorGather(c scatter.TensorGather, prof scatter.Profile) (*plan, errs) {
	var e errs
	if !fsIndices(&e, c.Src, c.Indices) {
		return nil, e
	}
	var shapes [][]int
	for _, t := range c.Indices {
		if !t.IsZero() {
			shapes = append(shapes, t.Shape)
		}
	}
	if len(shapes) == 0 {
		e.add(scatter.ErrInvalidArgument, "at least one index tensor must not be None")
		return nil, e
	}
	T, ok := numpyBroadcastShape(shapes...)
	if !ok {
		e.add(scatter.ErrShapeMismatch, "Cannot broadcast shapes %v to same size", shapes)
		return nil, e
	}
	if outputTooLarge(&e, T) {
		return nil, e
	}
	src := c.Src
	S := src.Shape
	if len(c.Indices) != len(S) {
		e.add(scatter.ErrInvalidArgument, "for each dimension of src an index tensor must be specified (%d indices, %d dimensions)", len(c.Indices), len(S))
		return nil, e
	}
	if len(T) > len(S) {
		e.add(scatter.ErrInvalidArgument, "List.skip: src's %d dimensions are fewer than the target's %d", len(S), len(T))
		return nil, e
	}
	for k := len(T); k < len(S); k++ {
		if c.Indices[k].IsZero() {
			e.add(scatter.ErrInvalidArgument, "index dimensions beyond the number of target dimensions must not be None (indices[%d])", k)
			return nil, e
		}
	}
	vals := make([][]int64, len(S))
	for k, t := range c.Indices {
		if !t.IsZero() {
			v, _ := numpyBroadcastTo(t, T)
			vals[k] = indexValues(v)
		}
	}
	dt := src.DType()
	n := numel(T)
	p := &plan{dtype: dt, shape: append([]int{}, T...), src: src.Contiguous(), kind: kAssign}
	p.init, _ = scatter.Zeros(dt, T...)
	p.groups = make([]group, 0, n)
	j := make([]int, len(S))
	for i := 0; i < n; i++ {
		ii := unravel(i, T)
		for k := range S {
			if vals[k] != nil {
				j[k] = int(vals[k][i])
				if vals[k][i] < 0 || vals[k][i] >= int64(S[k]) {
					j[k] = -1
				}
			} else {
				j[k] = ii[k]
			}
		}
		for k := range S {
			if j[k] < 0 || j[k] >= S[k] {
				pos := make([]int64, len(S))
				for q := range S {
					if vals[q] != nil {
						pos[q] = vals[q][i]
					} else {
						pos[q] = int64(ii[q])
					}
				}
				e.add(scatter.ErrIndexOutOfRange, "Position %v is out of range for tensor of shape %v", pos, S)
				return nil, e
			}
		}
		p.groups = append(p.groups, group{out: i, srcs: []int{ravel(j, S)}})
	}
	return p, nil
}
