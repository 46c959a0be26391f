package reference

import "github.com/scatterconf/scatter"

// PyTorch 2's scatter_add_ and scatter_reduce_ take a fast path for an
// index expanded the way graph libraries expand it (torch_scatter's
// broadcast among them): can_use_expanded_index_path in
// ATen/native/TensorAdvancedIndexing.h. Its kernel reads the index as
// int64, so that from 2.8, where int32 indices are taken, an int32 index
// on that path fails with "expected scalar type Long but found Int"
// (checked on torch 2.14: scatter_add_ and every scatter_reduce_ reduction;
// gather has a bug of its own with such an index, PROFILES.md, "Views").
// The suite's calls are values: the gate sends contiguous tensors, whose
// index never takes the path, and the oracle answers a view as its copy;
// torch_scatter's sums and means broadcast the index to src's shape, a
// view that takes it where the rest holds (below: dim 0, a floating
// dtype, 16 elements per row, a contiguous src), so the oracle models the
// path for them: the int32 error, and on 2.14 the row length its kernel
// assumes (sumGroups).

// expandedIndexPath reports whether out.scatter_add_(wd, index, src) takes
// the fast path, for an index of shape shape and strides strides (as
// torch_scatter leaves it) and a src of that shape, contiguous or not. As
// verified on torch 2.14: a floating self (float16 included); no empty
// tensor and no 0-d one; dim 0; at least 16 index elements per index of
// dim 0; the index's dim-0 stride 1 and every other stride 0 or 1; src
// and self contiguous (self always is here: made by zeros or new_full, or
// decoded from the protocol).
func expandedIndexPath(dt scatter.DType, out scatter.Tensor, wd int, shape, strides []int, srcContiguous bool) bool {
	if !dt.IsFloat() || wd != 0 || out.Dim() == 0 || len(shape) == 0 || numel(shape) == 0 || out.NumEl() == 0 || !srcContiguous {
		return false
	}
	return len(strides) == len(shape) && numel(shape)/shape[0] >= 16 && expandedStrides(strides)
}

// expandedStrides reports whether an index's strides are laid out as
// graph libraries expand one, as can_use_expanded_index_path asks: its
// dim-0 stride 1 and every other stride 0 or 1.
func expandedStrides(strides []int) bool {
	if len(strides) == 0 || strides[0] != 1 {
		return false
	}
	for _, s := range strides[1:] {
		if s > 1 {
			return false
		}
	}
	return true
}

// int32OnExpandedPath records PyTorch's error for an int32 index on the
// expanded-index path (profiles that take int32 indices, see above) and
// reports whether it did; strides gives the index's strides, asked for
// only then.
func int32OnExpandedPath(e *errs, prof scatter.Profile, idxDT, dt scatter.DType, out scatter.Tensor, wd int,
	shape []int, strides func() []int, srcContiguous bool) bool {
	if !prof.Int32Index() || idxDT != scatter.DTInt32 || !expandedIndexPath(dt, out, wd, shape, strides(), srcContiguous) {
		return false
	}
	e.add(scatter.ErrIndexDType, "expected scalar type Long but found Int (scatter_add_'s expanded-index path)")
	return true
}

// sumGroups groups a torch_scatter sum over its broadcast index bidx (in
// range; shape: the broadcast index's and src's, src contiguous in
// shape's row-major order) as tsGroups does, or, where the call takes the
// expanded-index path under a profile whose path steps through out by the
// index's rows (scatter.Profile.ExpandedPathIndexRows) and out's rows are
// longer than the index's K elements, as that path lays them: src position
// p = i*K + j goes to out's flat offset index[i]*K + j (shifted is then
// true). Every offset is inside out, whose rows are at least K long
// (scatter_add_ checks index.size(d) <= self.size(d) off dim).
func sumGroups(prof scatter.Profile, dt scatter.DType, out scatter.Tensor, wd int, shape []int,
	strides func() []int, srcContiguous bool, bidx scatter.Tensor) (g groupSet, shifted bool) {
	if !prof.ExpandedPathIndexRows() || !expandedIndexPath(dt, out, wd, shape, strides(), srcContiguous) ||
		out.NumEl()/out.Shape[0] == numel(shape)/shape[0] {
		return tsGroups(bidx, shape, wd, shapeOrScalar(out)), false
	}
	K := numel(shape) / shape[0]
	at := indexAt(bidx)
	return groupBy(out.NumEl(), func(yield func(out, src int)) {
		walk(shape, func(p int, idx []int) bool {
			yield(int(at(idx))*K+p%K, p)
			return true
		})
	}), true
}

// ShiftedRows reports whether the call is a torch_scatter sum or mean
// whose rows the profile's expanded-index path lays by the index's row
// length in an out wider than src (sumGroups): there torch 2.14 differs
// from 2.6, and a 1-d index from its expansion made contiguous.
func (e *Expectation) ShiftedRows() bool { return e.plan != nil && e.plan.shiftedRows }

// expandTo is expandStrides for shapes known to expand (nil if not).
func expandTo(shape, strides, to []int) []int {
	st, _ := expandStrides(shape, strides, to)
	return st
}

// tsBroadcastStrides are the strides of torch_scatter 2.x's
// broadcast(index, src, dim) for a contiguous index of shape ishape
// (tsBroadcast's rules): a 1-d index is unsqueezed at the front dim times
// (each new dimension's stride is the size times the stride of the one
// after it), then at the end (stride 1) up to src's rank, then expanded.
func tsBroadcastStrides(ishape []int, dim int, to []int) []int {
	sh, st := append([]int{}, ishape...), scatter.ContiguousStrides(ishape)
	if len(sh) == 1 {
		for len(sh) < dim+1 {
			sh, st = append([]int{1}, sh...), append([]int{sh[0] * st[0]}, st...)
		}
	}
	for len(sh) < len(to) {
		sh, st = append(sh, 1), append(st, 1)
	}
	return expandTo(sh, st, to)
}

// ts1IndexStrides are the strides of the index torch_scatter 1.x's gen
// hands to scatter_add_, for a contiguous index of shape ishape: a 1-d
// one viewed along dim (contiguously) and expanded to src's shape S, then
// either expanded to the broadcast shape to.
func ts1IndexStrides(ishape []int, dim int, S, to []int) []int {
	sh := ishape
	if len(ishape) == 1 {
		sh = make([]int, len(S))
		for j := range sh {
			sh[j] = 1
		}
		sh[dim] = S[dim]
		return expandTo(S, expandTo(sh, scatter.ContiguousStrides(sh), S), to)
	}
	return expandTo(sh, scatter.ContiguousStrides(sh), to)
}

// expandsAny reports whether expanding shape to to grows a dimension (the
// expanded tensor is then not contiguous).
func expandsAny(shape, to []int) bool {
	for d := range to {
		if shape[d] == 1 && to[d] > 1 {
			return true
		}
	}
	return false
}
