package reference

import "github.com/scatterconf/scatter"

// LayoutFree reports whether every PyTorch the suite models answers call c
// as it answers c with its tensors made contiguous: whether a client may
// send c's views as views (the strides extension) and judge the outcome
// by the oracle, which answers a view as its copy. It is conservative:
// false for every call of the classes PyTorch 2 ties to the layout
// (PROFILES.md, "Views") whatever their other arguments, and for the
// operations whose index broadcasting the reference models from a
// contiguous index (torch_scatter's, the F# library's). Precisely, true
// for a call whose tensors are all contiguous, and otherwise only for
//
//   - scatter, scatter_add, scatter_reduce and gather whose index is not
//     laid out as graph libraries expand one: its dim-0 stride 1 and every
//     other stride 0 or 1 (can_use_expanded_index_path, the fast path of
//     scatter_add_, scatter_reduce_ and gather, which reads an int32
//     index as int64, lays rows by the index's length on 2.14, and keeps
//     a 16-bit mean's count exact); and
//   - index_reduce whose source has no stride 0 (a source whose slices
//     are one value crashes the 16-bit prod on 2.x).
func LayoutFree(c scatter.Call) bool {
	if allContiguous(c) {
		return true
	}
	switch c := c.(type) {
	case scatter.Scatter, scatter.ScatterAdd, scatter.ScatterReduce, scatter.Gather:
		return !expandedLayout(c.Tensors()["index"])
	case scatter.IndexReduce:
		for _, s := range c.Source.Strides {
			if s == 0 {
				return false
			}
		}
		return true
	}
	return false
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
