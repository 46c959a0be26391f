package reference

import "github.com/scatterconf/scatter"

// planGather: torch.gather(input, dim, index) (SEMANTICS.md §7).
//
//	out[p] = input[p with p[dim] = index[p]],  out.shape = index.shape, out.dtype = input.dtype
//
// dim wraps against input first. An empty index returns an empty tensor of
// index's shape with no other check (even a float index of another rank).
// Otherwise: the index dtype (int64; int32 too under torch-2), equal ranks
// (0-d as 1-d), index.size(d) <= input.size(d) for d != dim, then every
// value in [0, input.size(dim)), never wrapped.
func planGather(c scatter.Gather, prof scatter.Profile) (*plan, errs) {
	var e errs
	if !checkTensor(&e, "input", c.Input) || !checkTensor(&e, "index", c.Index) {
		return nil, e
	}
	n := c.Index.NumEl()
	indexDType := func() {
		if n == 0 || indexDTypeOK(c.Index.DType(), prof) {
			return
		}
		if int64Only(prof) {
			e.add(scatter.ErrIndexDType, "gather(): Expected dtype int64 for index")
		} else {
			e.add(scatter.ErrIndexDType, "gather(): Expected dtype int32/int64 for index")
		}
	}
	dim, derr := wrapDim(c.Dim, c.Input.Dim())
	if derr != nil {
		e = append(e, derr)
		indexDType() // broken too: conforms at the conformant level
		return nil, e
	}
	dt := c.Input.DType()
	out := scatter.Tensor{Shape: append([]int{}, c.Index.Shape...), Data: scatter.MakeData(dt, n)}
	p := &plan{dtype: dt, shape: out.Shape, init: out, src: c.Input.Contiguous(), kind: kAssign}
	if n == 0 {
		return p, nil
	}
	indexDType()
	if nd(c.Input) != nd(c.Index) {
		e.add(scatter.ErrShapeMismatch, "Index tensor must have the same number of dimensions as input tensor")
	} else {
		for d := 0; d < nd(c.Input); d++ {
			if d != dim && sizeAt(c.Index, d) > sizeAt(c.Input, d) {
				e.add(scatter.ErrShapeMismatch, "Size does not match at dimension %d expected index %v to be smaller than self %v apart from dimension %d",
					d, c.Index.Shape, c.Input.Shape, dim)
				break
			}
		}
	}
	if len(e) > 0 {
		// the index values, which PyTorch never reaches here: that rule
		// is broken too, and its error conforms at the conformant level
		if oob := firstOutOfBounds(c.Index, dim, sizeAt(c.Input, dim)); oob != nil {
			e = append(e, oob)
		}
		return nil, e
	}
	inShape := shapeOrScalar(c.Input)
	if oob := firstOutOfBounds(c.Index, dim, inShape[dim]); oob != nil {
		return nil, append(e, oob)
	}
	at := indexAt(c.Index)
	p.groups.reserve(n, n)
	walk(shapeOrScalar(c.Index), func(q int, idx []int) bool {
		p.groups.add(q, ravelAlong(idx, dim, int(at(idx)), inShape))
		return true
	})
	return p, nil
}
