package reference

import (
	"github.com/scatterconf/scatter"
)

// planIndexReduce: torch.Tensor.index_reduce_(dim, index, source, reduce,
// include_self) (SEMANTICS.md §6):
//
//	include_self=False: out.index_fill_(dim, index, identity(reduce))
//	for i in 0..len(index)-1:  out.select(dim, index[i]) op= source.select(dim, i)
//	mean: count = include_self + #{i : index[i] = j};  count == 0 -> 1;  out / count (floor for integers)
//
// Checks, in order: the reduce name (no sum); dim against self; a vector
// (or 0-d) index; int32/int64 index even when empty; source's dtype;
// dim == 0 or dim < source.dim(); len(index) == source.size(dim) (1 for a
// 0-d source); with include_self=False, the initialisation's index_fill_
// (below); a self of at most one dimension takes a source of at most
// one. A multi-dim self then selects slice 0 of self and of source (an
// empty self dim is "index out of range", a 0-d source "select() cannot
// be applied to a 0-dim tensor") and combines each source slice into its
// self slice by a broadcasting binary op, so a source slice that
// broadcasts is accepted; a self of at most one dimension takes the
// 1-d path, element by element. Index values must lie in
// [0, self.size(dim)), never wrapped; with include_self=False the
// index_fill_ runs first and wraps negative values, so values in
// [-size, -1] reach the reduction's "index out of range in self".
//
// 16-bit floats round after every step in every PyTorch version (the
// binary ops round their output); the mean count is kept in self's dtype
// and rounded per step, except under torch 2 with an int64 index along the
// first or the last dimension of a multi-dimensional self, where it is
// exact then converted
// (Profile.IndexMeanCountPerStep; verified on 2.6 and 2.14).
func planIndexReduce(c scatter.IndexReduce, prof scatter.Profile) (*plan, errs) {
	var e errs
	if !checkTensor(&e, "self", c.Self) || !checkTensor(&e, "index", c.Index) || !checkTensor(&e, "source", c.Source) {
		return nil, e
	}
	var k kind
	switch c.Reduce {
	case scatter.ReduceProd:
		k = kProd
	case scatter.ReduceMean:
		k = kMean
	case scatter.ReduceAmax:
		k = kAmax
	case scatter.ReduceAmin:
		k = kAmin
	default:
		e.add(scatter.ErrInvalidArgument, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s.", c.Reduce)
	}
	dim, derr := wrapDim(c.Dim, c.Self.Dim())
	if derr != nil {
		e = append(e, derr)
	}
	if c.Index.Dim() > 1 {
		e.add(scatter.ErrShapeMismatch, "index_reduce_(): Index is supposed to be a vector, but got dim: %d", c.Index.Dim())
	}
	if !c.Index.DType().IsIndex() {
		e.add(scatter.ErrIndexDType, "index_reduce_(): Expected dtype int32/int64 for index but got: %v", c.Index.DType())
	}
	dt := c.Self.DType()
	if c.Source.DType() != dt {
		e.add(scatter.ErrDTypeMismatch, "index_reduce_(): self (%v) and source (%v) must have the same scalar type", dt, c.Source.DType())
	}
	if derr != nil {
		return nil, e
	}
	if !(dim == 0 || dim < c.Source.Dim()) {
		e.add(scatter.ErrShapeMismatch, "index_reduce_(): Indexing dim %d is out of bounds of the source tensor with dim %d", dim, c.Source.Dim())
		return nil, e
	}
	numel := c.Index.NumEl()
	if numel != sizeAt(c.Source, dim) {
		if c.Source.Dim() == 0 {
			// the message reads source.size(dim) of a 0-d source, which
			// raises first
			e.add(scatter.ErrDimOutOfRange, "Dimension specified as 0 but tensor has no dimensions")
		}
		e.add(scatter.ErrShapeMismatch, "index_reduce_(): Number of indices (%d) should be equal to source.size(dim) (%d), for dim: %d", numel, sizeAt(c.Source, dim), dim)
	}
	// alsoOutOfRange adds the rule of the index values, which PyTorch
	// never reaches after a rule broken before it: that rule is broken
	// too, and its error conforms at the conformant level.
	alsoOutOfRange := func() {
		for _, v := range indexValues(c.Index) {
			if v < 0 || v >= int64(sizeAt(c.Self, dim)) {
				e.add(scatter.ErrIndexOutOfRange, "index out of range in self")
				break
			}
		}
	}
	if len(e) > 0 {
		alsoOutOfRange()
		return nil, e
	}
	// sourceRank adds the 1-d path's rule that a self of at most one
	// dimension takes a source of at most one, where it is broken, and
	// reports whether it is.
	sourceRank := func() bool {
		if c.Self.Dim() <= 1 && c.Source.Dim() > 1 {
			e.add(scatter.ErrShapeMismatch, "source.dim() (%d) must one or zero for given self.dim() (%d)", c.Source.Dim(), c.Self.Dim())
			return true
		}
		return false
	}
	if prof.IndexReduceExactShape() {
		// PyTorch 2: nothing broadcasts.
		if !scatter.SameShapeExceptDim(c.Self.Shape, c.Source.Shape, dim) {
			e.add(scatter.ErrShapeMismatch, "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = %v source.shape = %v", c.Self.Shape, c.Source.Shape)
			alsoOutOfRange()
			return nil, e
		}
	}
	multi := c.Self.Dim() > 1
	size := sizeAt(c.Self, dim)
	idx := indexValues(c.Index)
	// The include_self=False initialisation dispatches on self's dtype
	// (no bool) and runs index_fill_, which wraps negative values and
	// rejects the rest, before anything else. Its kernel checks the
	// values as it fills, so on a self of no elements it checks none: an
	// empty dim along dim fails as it makes its view (index_out_of_range
	// too: "out of bounds for storage of size 0"), another empty dim
	// goes on to the slices' broadcast, whose shape_mismatch comes first
	// under torch 1.13 (self [0, 1], source [2, 3], an index value of 1:
	// "The size of tensor a (0) must match the size of tensor b (2)").
	if c.ExcludeSelf {
		if dt == scatter.DTBool {
			e.add(scatter.ErrUnsupportedDType, `"index_reduce_func_exclude_input_init" not implemented for 'Bool'`)
			return nil, e
		}
		for _, v := range idx {
			if c.Self.NumEl() == 0 && size > 0 {
				break
			}
			if v < -int64(size) || v >= int64(size) {
				e = append(e, outOfBounds(v, dim, size))
				sourceRank() // checked next, and broken too
				return nil, e
			}
		}
	}
	// The 1-d path checks source's rank after that initialisation (torch
	// 1.13; torch 2's exact shape rule above never lets it come here).
	if sourceRank() {
		alsoOutOfRange()
		return nil, e
	}
	var srcOf func(i int, elem []int) int // the source position combined into self element elem by index entry i
	if multi {
		if numel == 0 {
			return &plan{dtype: dt, shape: c.Self.Shape, init: c.Self.Contiguous(), kind: k, self: true,
				src: scatter.Tensor{Shape: []int{0}, Data: scatter.MakeData(dt, 0)}}, nil
		}
		// Before its loop, the multi-dim path takes self.select(dim, 0)
		// and source.select(dim, 0): an empty self dim, then a 0-d
		// source, fail there, before the broadcast and the index values.
		if size == 0 {
			e.add(scatter.ErrIndexOutOfRange, "select(): index 0 out of range for tensor of size %v at dimension %d", c.Self.Shape, dim)
			return nil, e
		}
		if c.Source.Dim() == 0 {
			e.add(scatter.ErrShapeMismatch, "select() cannot be applied to a 0-dim tensor.")
			alsoOutOfRange()
			return nil, e
		}
		var ok bool
		if srcOf, ok = sliceBroadcast(&e, c.Self.Shape, c.Source, dim); !ok {
			alsoOutOfRange()
			return nil, e
		}
	} else {
		// The 1-d path dispatches on self's dtype (no bool) before its loop
		// and reads source element i at i*source.stride(dim).
		if dt == scatter.DTBool {
			e.add(scatter.ErrUnsupportedDType, `"index_func_" not implemented for 'Bool'`)
			return nil, e
		}
		stride := 1
		if c.Source.Dim() > 0 {
			stride = scatter.ContiguousStrides(c.Source.Shape)[dim]
		}
		srcOf = func(i int, _ []int) int { return i * stride }
	}
	for _, v := range idx {
		if v < 0 || v >= int64(size) {
			e.add(scatter.ErrIndexOutOfRange, "index out of range in self")
			return nil, e
		}
	}
	if multi && k == kMean && dt == scatter.DTBool {
		e.add(scatter.ErrUnsupportedDType, `"div_floor_cpu" not implemented for 'Bool'`)
		return nil, e
	}

	sshape := shapeOrScalar(c.Self)
	// the elements of one self slice: every multi-index with elem[dim] == 0
	sliceShape := append([]int{}, sshape...)
	sliceShape[dim] = 1
	gs := groupBy(c.Self.NumEl(), func(yield func(out, src int)) {
		for i, v := range idx {
			walk(sliceShape, func(_ int, elem []int) bool {
				elem[dim] = int(v)
				yield(ravel(elem, sshape), srcOf(i, elem))
				elem[dim] = 0
				return true
			})
		}
	})
	p := &plan{dtype: dt, shape: c.Self.Shape, init: c.Self.Contiguous(), src: c.Source.Contiguous(),
		kind: k, self: !c.ExcludeSelf, perStep: true, groups: gs}
	if k == kMean {
		p.mean = &meanRule{countSelf: !c.ExcludeSelf, perStep: prof.IndexMeanCountPerStep(c.Self.Dim(), dim, c.Index.DType())}
	}
	return p, nil
}

// sliceBroadcast checks that source.select(dim, i) broadcasts to a slice of
// self (shape selfShape) along dim, as the binary op's TensorIterator
// demands, and returns the mapping from (i, self element) to source
// position.
//
//	The size of tensor a (A) must match the size of tensor b (B) at non-singleton dimension D
//	output with shape [..] doesn't match the broadcast shape [..]
func sliceBroadcast(e *errs, selfShape []int, source scatter.Tensor, dim int) (func(int, []int) int, bool) {
	sl := without(selfShape, dim)
	srcShape := shapeOrScalar(source)
	var ss []int
	if source.Dim() > 0 {
		ss = without(srcShape, dim)
	}
	if len(ss) > len(sl) {
		e.add(scatter.ErrShapeMismatch, "output with shape %v doesn't match the broadcast shape %v", sl, ss)
		return nil, false
	}
	off := len(sl) - len(ss)
	for j, s := range ss {
		if s != 1 && s != sl[off+j] {
			if sl[off+j] == 1 {
				e.add(scatter.ErrShapeMismatch, "output with shape %v doesn't match the broadcast shape", sl)
			} else {
				e.add(scatter.ErrShapeMismatch, "The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d", sl[off+j], s, j)
			}
			return nil, false
		}
	}
	st := scatter.ContiguousStrides(srcShape)
	return func(i int, elem []int) int {
		if source.Dim() == 0 {
			return 0
		}
		pos := i * st[dim]
		rest := without(elem, dim)
		k := 0
		for d := range srcShape {
			if d == dim {
				continue
			}
			if srcShape[d] != 1 {
				pos += rest[off+k] * st[d]
			}
			k++
		}
		return pos
	}, true
}

// without returns s with element d removed.
func without(s []int, d int) []int {
	r := append([]int{}, s[:d]...)
	return append(r, s[d+1:]...)
}
