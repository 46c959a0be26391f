package reference

import "github.com/scatterconf/scatter"

// LayoutFree reports whether every PyTorch the suite models answers call c
// as it answers c with its tensors made contiguous: whether a client may
// send c's views as views (the strides extension) and judge the outcome
// by the oracle, which answers a view as its copy. True for a call whose
// tensors are all contiguous, never for the operations whose index
// broadcasting the reference models from a contiguous index
// (torch_scatter's, the F# library's), and otherwise true except where
// PyTorch 2 ties the outcome to the layout (PROFILES.md, "Views", found
// by a differential of views against their copies on torch 2.14.1, 2.6.0
// and 1.13.1; conservative where the rule below is wider than the
// differences seen):
//
//   - scatter_add and scatter_reduce whose index is laid out as graph
//     libraries expand one (its dim-0 stride 1, every other stride 0 or
//     1) on a call that can take can_use_expanded_index_path (a floating
//     self, dim 0, nothing empty, 16 or more index elements per index of
//     dim 0), when the index is int32 (an error on 2.14), self's rows are
//     longer than the index's (shifted rows on 2.14) or the reduction is a
//     16-bit mean (its count is exact there);
//   - gather with an int32 index laid out so, a floating input and dim 0
//     (every row read through index[0] on 2.14, whatever its length);
//   - index_reduce's 16-bit prod with a source that has a stride 0 (a
//     crash on 2.x).
//
// Plain scatter takes no such path: its views are free.
func LayoutFree(c scatter.Call) bool {
	if allContiguous(c) {
		return true
	}
	switch c := c.(type) {
	case scatter.Scatter:
		return true
	case scatter.ScatterAdd:
		return !scatterLikeTiedToLayout(c.Self, c.Dim, c.Index, c.Src, false)
	case scatter.ScatterReduce:
		return !scatterLikeTiedToLayout(c.Self, c.Dim, c.Index, c.Src, c.Reduce == scatter.ReduceMean)
	case scatter.Gather:
		return !(c.Index.DType() == scatter.DTInt32 && c.Input.DType().IsFloat() && onDim0(c.Dim, c.Input) &&
			expandedLayout(c.Index))
	case scatter.IndexReduce:
		if c.Reduce != scatter.ReduceProd || !is16BitFloat(c.Source.DType()) {
			return true
		}
		for _, s := range c.Source.Strides {
			if s == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// scatterLikeTiedToLayout reports whether scatter_add_ or scatter_reduce_
// of self, dim, index and src may answer an index view otherwise than its
// copy (LayoutFree): the index laid out for the expanded-index path, the
// call able to take it, and then an int32 index, self's rows longer than
// the index's, or (mean) a 16-bit mean.
func scatterLikeTiedToLayout(self scatter.Tensor, dim int, index, src scatter.Tensor, mean bool) bool {
	if !self.DType().IsFloat() || !onDim0(dim, self) || !expandedLayout(index) ||
		self.NumEl() == 0 || index.NumEl() == 0 || src.NumEl() == 0 {
		return false
	}
	k := index.NumEl() / index.Shape[0]
	if k < 16 {
		return false
	}
	return index.DType() == scatter.DTInt32 || self.NumEl()/self.Shape[0] != k || mean && is16BitFloat(self.DType())
}

// onDim0 reports whether dim wraps to 0 against t.
func onDim0(dim int, t scatter.Tensor) bool {
	d, ok := scatter.WrapDim(dim, t.Dim())
	return ok && d == 0 && t.Dim() > 0
}

// allContiguous reports whether every tensor of c is contiguous.
func allContiguous(c scatter.Call) bool {
	for _, t := range c.Tensors() {
		if !t.IsContiguous() {
			return false
		}
	}
	return true
}

// expandedLayout reports whether index is a view laid out as
// can_use_expanded_index_path asks (expandedStrides), not contiguous.
func expandedLayout(index scatter.Tensor) bool {
	return index.Strides != nil && !index.IsContiguous() && expandedStrides(index.Strides)
}

// is16BitFloat reports whether dt is float16 or bfloat16.
func is16BitFloat(dt scatter.DType) bool { return dt.IsFloat() && dt.Size() == 2 }
