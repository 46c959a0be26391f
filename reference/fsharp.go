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

// fsIndices validates the given index tensors: well-formed
// (ErrInvalidArgument; wellFormed is false and nothing else can be
// checked) and Tensor<int64> (ErrIndexDType for each other one; F#'s type
// system rejects them before anything runs). readable reports whether
// every given index holds integers whose values the later rules can
// read (int32 or int64).
func fsIndices(e *errs, src scatter.Tensor, indices []scatter.Tensor) (wellFormed, readable bool) {
	if !checkTensor(e, "src", src) {
		return false, false
	}
	ok := true
	for k, t := range indices {
		if !t.IsZero() && !checkTensor(e, fmt.Sprintf("indices[%d]", k), t) {
			ok = false
		}
	}
	if !ok {
		return false, false
	}
	readable = true
	for k, t := range indices {
		if t.IsZero() {
			continue
		}
		if dt := t.DType(); dt != scatter.DTInt64 {
			e.add(scatter.ErrIndexDType, "indices[%d]: expected Tensor<int64>, got %v", k, dt)
			readable = readable && dt == scatter.DTInt32
		}
	}
	return true, readable
}

// fsIndexPerDim checks that indices give one index (or None) per
// dimension of the indexed tensor (rank ni), that it has at least the
// rank np of the other (List.skip), and that every index beyond that rank
// is given (ErrInvalidArgument, the first broken one; the last two only
// when the other's rank is known). It reports whether every dimension of
// the indexed tensor is mapped: by an index, or by the position itself.
func fsIndexPerDim(e *errs, indices []scatter.Tensor, indexed string, ni int, other string, np int, known bool) bool {
	switch {
	case len(indices) != ni:
		e.add(scatter.ErrInvalidArgument, "for each dimension of %s an index tensor must be specified (%d indices, %d dimensions)", indexed, len(indices), ni)
		return false
	case !known:
		return false
	case ni < np:
		e.add(scatter.ErrInvalidArgument, "List.skip: %s's %d dimensions are fewer than %s's %d", indexed, ni, other, np)
		return false
	}
	for k := np; k < ni; k++ {
		if indices[k].IsZero() {
			e.add(scatter.ErrInvalidArgument, "index dimensions beyond the rank of %s must not be None (indices[%d])", other, k)
			return false
		}
	}
	return true
}

// The F# planners record every rule a call breaks, in the library's order,
// as PyTorch's do: the first is the error the library raises (the strict
// level), and any of them conforms at the conformant level, where an
// implementation may check its rules in another order. A rule that can
// only be read once an earlier one holds (the index values need the index
// per dimension, the target's shape and the broadcast) is not checked
// after that one breaks.

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
	wellFormed, readable := fsIndices(&e, c.Src, c.Indices)
	if !wellFormed {
		return nil, e
	}
	T := c.Shape
	sized := true // the target has a shape, so positions lie in it or not
	for _, s := range T {
		if s < 0 {
			e.add(scatter.ErrInvalidArgument, "shape %v cannot have negative entries", T)
			sized = false
			break
		}
	}
	if len(e) == 0 && outputTooLarge(&e, T) {
		return nil, e
	}
	src := c.Src
	S := src.Shape
	mapped := fsIndexPerDim(&e, c.Indices, "the target", len(T), "src", len(S), true)
	at := make([]func([]int) int64, len(c.Indices)) // indices[k] broadcast to S, read at a position of S
	broadcast := true
	for k, t := range c.Indices {
		if t.IsZero() {
			continue
		}
		v, ok := numpyBroadcastTo(t, S)
		if !ok {
			e.add(scatter.ErrShapeMismatch, "Cannot broadcast shape %v to shape %v (indices[%d])", t.Shape, S, k)
			broadcast = false
			continue
		}
		if readable {
			at[k] = indexAt(v)
		}
	}
	dt := src.DType()
	if dt == scatter.DTBool {
		e.add(scatter.ErrUnsupportedDType, "Tensor.scatter: the element type bool has no addition")
	}
	if !(sized && mapped && broadcast && readable) {
		return nil, e
	}
	// target position j(p) of src position p: j[k] = indices[k][p], or p[k]
	j := make([]int64, len(T))
	target := func(pi []int) []int64 {
		for k := range T {
			if at[k] != nil {
				j[k] = at[k](pi)
			} else {
				j[k] = int64(pi[k])
			}
		}
		return j
	}
	walk(S, func(_ int, pi []int) bool {
		for k, v := range target(pi) {
			if v < 0 || v >= int64(T[k]) {
				e.add(scatter.ErrIndexOutOfRange, "Position %v is out of range for tensor of shape %v", j, T)
				return false
			}
		}
		return true
	})
	if len(e) > 0 {
		return nil, e
	}
	jj := make([]int, len(T))
	groups := groupBy(numel(T), func(yield func(out, src int)) {
		walk(S, func(p int, pi []int) bool {
			for k, v := range target(pi) {
				jj[k] = int(v)
			}
			yield(ravel(jj, T), p)
			return true
		})
	})
	init, _ := scatter.Zeros(dt, T...)
	return &plan{dtype: dt, shape: append([]int{}, T...), init: init, src: src.Contiguous(), kind: kSum,
		self: true, perStep: true, groups: groups}, nil
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
	wellFormed, readable := fsIndices(&e, c.Src, c.Indices)
	if !wellFormed {
		return nil, e
	}
	var shapes [][]int
	for _, t := range c.Indices {
		if !t.IsZero() {
			shapes = append(shapes, t.Shape)
		}
	}
	var T []int
	shaped := false // the target's shape is known
	if len(shapes) == 0 {
		e.add(scatter.ErrInvalidArgument, "at least one index tensor must not be None")
	} else if T, shaped = numpyBroadcastShape(shapes...); !shaped {
		e.add(scatter.ErrShapeMismatch, "Cannot broadcast shapes %v to same size", shapes)
	}
	if len(e) == 0 && outputTooLarge(&e, T) {
		return nil, e
	}
	src := c.Src
	S := src.Shape
	mapped := fsIndexPerDim(&e, c.Indices, "src", len(S), "the target", len(T), shaped)
	if !(mapped && readable) || numel(T) > maxOutputElems {
		// (a target too large to walk: the call breaks another rule)
		return nil, e
	}
	at := make([]func([]int) int64, len(S)) // indices[k] broadcast to T, read at a position of T
	for k, t := range c.Indices {
		if !t.IsZero() {
			v, _ := numpyBroadcastTo(t, T)
			at[k] = indexAt(v)
		}
	}
	dt := src.DType()
	n := numel(T)
	var p *plan // nil where the call breaks a rule already: only the index values are checked
	if len(e) == 0 {
		p = &plan{dtype: dt, shape: append([]int{}, T...), src: src.Contiguous(), kind: kAssign}
		p.init, _ = scatter.Zeros(dt, T...)
		p.groups.reserve(n, n)
	}
	// source position of target position i: indices[k][i], or i[k]
	pos := make([]int64, len(S))
	j := make([]int, len(S))
	walk(T, func(i int, ii []int) bool {
		for k := range S {
			if at[k] != nil {
				pos[k] = at[k](ii)
			} else {
				pos[k] = int64(ii[k])
			}
		}
		for k, v := range pos {
			if v < 0 || v >= int64(S[k]) {
				e.add(scatter.ErrIndexOutOfRange, "Position %v is out of range for tensor of shape %v", pos, S)
				return false
			}
			j[k] = int(v)
		}
		if p != nil {
			p.groups.add(i, ravel(j, S))
		}
		return true
	})
	if len(e) > 0 {
		return nil, e
	}
	return p, nil
}
