package reference

import "github.com/scatterconf/scatter"

// torch_scatter (rusty1s/pytorch_scatter), SEMANTICS.md §8: the 1.x
// scatter_add with fill_value (utils/gen.py, tag 1.4.0) and the 2.x scatter
// (torch_scatter/scatter.py, utils.py and csrc/scatter.cpp,
// csrc/cpu/scatter_cpu.cpp). Both broadcast the index to the source's shape
// and then scatter along dim like scatter_add_:
//
//	for every position p of src:  t = p with t[dim] = index[p];  out[t] op= src[p]
//
// The sums (1.x scatter_add, 2.x sum and mean) are PyTorch's own
// scatter_add_, so they take PyTorch's checks, its index dtype rule and its
// float16/bfloat16 rounding under the profile; mul, min and max are
// torch_scatter's C++ kernel, which reads the index as int64 and computes in
// the tensor's dtype.

// tsBroadcast is torch_scatter 2.x's broadcast(index, src, dim) (utils.py,
// scatter.cpp) as a view of index's data:
//
//	if index.dim() == 1: unsqueeze(0) dim times
//	while index.dim() < src.dim(): unsqueeze(-1)
//	index.expand(src.size())
//
// A 1-d index lands on dim and must have src.size(dim) elements (or 1); a
// k-d index must match src's leading k dims (each equal or 1); a 0-d index
// stretches everywhere. Anything else is ErrShapeMismatch, with expand's
// message.
func tsBroadcast(t scatter.Tensor, dim int, to []int) (scatter.Tensor, *scatter.Error) {
	sh := append([]int{}, t.Shape...)
	st := append([]int{}, t.StridesOrDefault()...)
	if len(sh) == 1 {
		sh, st = padLeft(sh, st, dim+1)
	}
	for len(sh) < len(to) {
		sh, st = append(sh, 1), append(st, 0)
	}
	if len(sh) > len(to) {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrShapeMismatch,
			"expand(%v, size=%v): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)",
			sh, to, len(to), len(sh))
	}
	est, bad := expandStrides(sh, st, to)
	if bad >= 0 {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrShapeMismatch,
			"The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d.  Target sizes: %v.  Tensor sizes: %v",
			to[bad], sh[bad], bad, to, sh)
	}
	return viewOf(t, append([]int{}, to...), est), nil
}

// tsGroups groups a dim-scatter whose index view has the source's shape, so
// that the row-major position p is also the source position: p goes to
// t = p with t[dim] = index[p], at its row-major position in outShape (same
// rank). The values must be in range.
func tsGroups(index scatter.Tensor, shape []int, dim int, outShape []int) groupSet {
	at := indexAt(index)
	return groupBy(numel(outShape), func(yield func(out, src int)) {
		walk(shape, func(p int, idx []int) bool {
			yield(ravelAlong(idx, dim, int(at(idx)), outShape), p)
			return true
		})
	})
}

// boundsCheck records the first value of index outside [0, size), in
// row-major order, as scatter_add_'s kernel reports it:
//
//	index I is out of bounds for dimension D with size S
func boundsCheck(e *errs, index scatter.Tensor, dim, size int) bool {
	if oob := firstOutOfBounds(index, dim, size); oob != nil {
		*e = append(*e, oob)
		return false
	}
	return true
}

// inferredSize is torch_scatter's output size along dim when out is absent:
//
//	dim_size if given, else 0 for an empty index, else int(index.max()) + 1
//
// It records a negative size (torch.zeros / new_full / torch::empty:
// "Trying to create tensor with negative dimension"), ErrInvalidArgument,
// and, when the size was inferred from an all-negative index, also
// ErrIndexOutOfRange (the index is out of range of any output); and an
// output too large for the reference. vals is called only when the size is
// inferred; it returns the index values or records an error itself.
func inferredSize(e *errs, shape []int, dim int, dimSize *int, empty bool, vals func() ([]int64, bool)) ([]int, bool) {
	size := append([]int{}, shape...)
	inferred := false
	switch {
	case dimSize != nil:
		size[dim] = *dimSize
	case empty:
		size[dim] = 0
	default:
		v, ok := vals()
		if !ok {
			return nil, false
		}
		m := maxOf(v)
		if m >= maxOutputElems {
			m = maxOutputElems // too large either way; keeps +1 from overflowing
		}
		size[dim] = int(m) + 1
		inferred = true
	}
	if size[dim] < 0 {
		e.add(scatter.ErrInvalidArgument, "Trying to create tensor with negative dimension %d: %v", size[dim], size)
		if inferred {
			e.add(scatter.ErrIndexOutOfRange, "index %d is out of bounds for dimension %d with size 0", size[dim]-1, dim)
		}
		return nil, false
	}
	if outputTooLarge(e, size) {
		return nil, false
	}
	return size, true
}

// indexDTypeErr records scatter_add_'s index dtype rule for prof.
func indexDTypeErr(e *errs, prof scatter.Profile) {
	if int64Only(prof) {
		e.add(scatter.ErrIndexDType, "scatter(): Expected dtype int64 for index")
	} else {
		e.add(scatter.ErrIndexDType, "scatter(): Expected dtype int32/int64 for index")
	}
}

// scatterAddChecks are the checks out.scatter_add_(dim, index, src) makes
// after torch_scatter has broadcast index and src to one shape (so the src
// clause of the shape check always holds), SEMANTICS.md §1.3: dim wraps
// against out; the index dtype unless the index is empty; src's dtype
// equals out's; then, unless the index is empty, equal ranks (0-d as 1-d)
// and shape[d] <= out.size(d) for d != dim. It returns dim wrapped against
// out.
func scatterAddChecks(e *errs, out scatter.Tensor, dim int, idxDT scatter.DType, srcDT scatter.DType,
	shape []int, prof scatter.Profile) (int, bool) {
	wd, derr := wrapDim(dim, out.Dim())
	if derr != nil {
		*e = append(*e, derr)
		return 0, false
	}
	empty := numel(shape) == 0
	if !empty && !indexDTypeOK(idxDT, prof) {
		indexDTypeErr(e, prof)
	}
	if out.DType() != srcDT {
		e.add(scatter.ErrDTypeMismatch, "scatter(): Expected self.dtype to be equal to src.dtype")
	}
	if !empty {
		if nd(out) != max(len(shape), 1) {
			e.add(scatter.ErrShapeMismatch, "Index tensor must have the same number of dimensions as self tensor")
		} else {
			for d := range shape {
				if d != wd && shape[d] > sizeAt(out, d) {
					e.add(scatter.ErrShapeMismatch, "Expected index %v to be smaller than self %v apart from dimension %d and to be smaller size than src %v",
						shape, out.Shape, wd, shape)
					break
				}
			}
		}
	}
	return wd, len(*e) == 0
}

// planTorchScatterAdd: torch_scatter 1.x scatter_add(src, index, dim=-1,
// out=None, dim_size=None, fill_value=0) (SEMANTICS.md §8.3, gen in
// utils/gen.py of 1.4.0):
//
//	dim = range(src.dim())[dim]                 # [-n, n-1]; a 0-d src has none
//	if index.dim() == 1:                        # viewed along dim, expanded to src
//	    index = index.view([1,..,src.size(dim),..,1]).expand_as(src)
//	    (an empty one becomes src.new_empty(that shape, dtype=long): undefined values)
//	src.dim() == index.dim()                    # else "Number of dimensions ... do not match"
//	per dim: equal, or one of the two is 1 and the other larger; both expand
//	out = src.new_full(size, fill_value)        # size[dim] = dim_size or index.max()+1 (0 if empty)
//	out.scatter_add_(dim, index, src)           # PyTorch's checks from here on
//
// so untouched elements hold fill_value and touched ones fill_value + sum.
// Errors: ErrDimOutOfRange for dim (and for a given out with too few
// dims); ErrShapeMismatch for the view, rank and expand rules and
// scatter_add_'s shape check; ErrInvalidArgument for a negative size
// (dim_size, or inferred from index.max() <= -2, which also counts as
// ErrIndexOutOfRange); ErrValueOverflow for a fill_value the dtype cannot
// hold (checked even for an empty output); ErrIndexDType for a float index
// (new_full's size) or scatter_add_'s index rule; ErrDTypeMismatch for an
// out of another dtype; ErrIndexOutOfRange for index values outside
// [0, out.size(dim)). Every dtype works (bool sums are or).
//
// An empty 1-d index with a non-empty src reads uninitialised memory: the
// plan is marked anything (out unchanged, or the fill at size dim_size or
// 0), after the checks that do not depend on the index values.
func planTorchScatterAdd(c scatter.TorchScatterAdd, prof scatter.Profile) (*plan, errs) {
	var e errs
	hasOut := !c.Out.IsZero()
	ok := checkTensor(&e, "src", c.Src)
	ok = checkTensor(&e, "index", c.Index) && ok
	if hasOut {
		ok = checkTensor(&e, "out", c.Out) && ok
	}
	if !ok {
		return nil, e
	}
	src, index := c.Src, c.Index
	dt := src.DType()
	S := src.Shape
	n := len(S)
	dim := scatter.DimOr(c.Dim, -1)
	if dim < -n || dim >= n {
		e.add(scatter.ErrDimOutOfRange, "range object index out of range (dim %d of a %d-dimensional src)", dim, n)
		return nil, e
	}
	d := dim
	if d < 0 {
		d += n
	}

	// The 1-d index: view along dim and expand to src.
	ishape, istr := index.Shape, index.StridesOrDefault()
	idxDT := index.DType()
	emptyView := false
	if index.Dim() == 1 {
		isz := make([]int, n)
		for j := range isz {
			isz[j] = 1
		}
		isz[d] = S[d]
		zst := make([]int, n)
		if l := index.Shape[0]; l > 0 {
			if l != S[d] {
				e.add(scatter.ErrShapeMismatch, "shape '%v' is invalid for input of size %d", isz, l)
				return nil, e
			}
			zst[d] = istr[0]
			est, _ := expandStrides(isz, zst, S)
			ishape, istr = append([]int{}, S...), est
		} else {
			// src.new_empty(isz, dtype=torch.long): values undefined
			ishape, istr = isz, zst
			emptyView, idxDT = true, scatter.DTInt64
		}
	}
	if len(ishape) != n {
		e.add(scatter.ErrShapeMismatch, "Number of dimensions of src and index tensor do not match, got %d and %d", n, len(ishape))
		return nil, e
	}
	// expand_size = -1 if s == i and s != 1 and i != 1 else max(i, s); both expand.
	bshape := make([]int, n)
	for j := range bshape {
		s, i := S[j], ishape[j]
		switch {
		case s == i:
			bshape[j] = s
		case s == 1 && i > 1:
			bshape[j] = i
		case i == 1 && s > 1:
			bshape[j] = s
		default:
			m, got := max(s, i), s
			if s == m {
				got = i
			}
			e.add(scatter.ErrShapeMismatch, "The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d", m, got, j)
			return nil, e
		}
	}
	if outputTooLarge(&e, bshape) { // the expanded src is materialised
		return nil, e
	}
	sst, _ := expandStrides(S, src.StridesOrDefault(), bshape)
	bsrc := viewOf(src, bshape, sst)
	bn := numel(bshape)
	undefined := emptyView && bn > 0
	var bidx scatter.Tensor
	if !emptyView {
		ist, _ := expandStrides(ishape, istr, bshape)
		bidx = viewOf(index, bshape, ist)
	}

	out := c.Out
	if !hasOut {
		size, ok := inferredSize(&e, bshape, d, c.DimSize, bn == 0 || undefined, func() ([]int64, bool) {
			if idxDT.IsFloat() {
				e.add(scatter.ErrIndexDType, "new_full(): argument 'size' must be a tuple of ints, but index.max() is a %v", idxDT)
				return nil, false
			}
			return indexInts(bidx)
		})
		if !ok {
			return nil, e
		}
		fv, verr := convertFill(c.FillValue, dt, numel(size), prof)
		if verr != nil {
			e = append(e, verr)
			return nil, e
		}
		out = fill(dt, size, fv)
	}
	wd, ok := scatterAddChecks(&e, out, d, idxDT, dt, bshape, prof)
	if !ok {
		return nil, e
	}
	p := &plan{dtype: dt, shape: append([]int{}, out.Shape...), init: out.Contiguous(), src: bsrc.Contiguous(),
		kind: kSum, self: true, perStep: opmathPerStep(prof)}
	if undefined {
		p.anything = true
		return p, nil
	}
	if bn == 0 {
		return p, nil
	}
	if int32OnExpandedPath(&e, prof, idxDT, dt, out, wd, bshape,
		func() []int { return ts1IndexStrides(c.Index.Shape, d, S, bshape) }, !expandsAny(S, bshape)) {
		return nil, e
	}
	if !boundsCheck(&e, bidx, wd, sizeAt(out, wd)) {
		return nil, e
	}
	p.groups, p.shiftedRows = sumGroups(prof, dt, out, wd, bshape,
		func() []int { return ts1IndexStrides(c.Index.Shape, d, S, bshape) }, !expandsAny(S, bshape), bidx)
	return p, nil
}

// planTorchScatter: torch_scatter 2.x scatter(src, index, dim=-1, out=None,
// dim_size=None, reduce='sum') (SEMANTICS.md §8.1):
//
//	index = broadcast(index, src, dim)       # to src's shape (tsBroadcast)
//	sum/add: out = zeros(size) if absent;  out.scatter_add_(dim, index, src)
//	mean:    the sum, then out /= count (floor division for integers), where
//	         count = scatter_sum(ones(index.size(), src.dtype), index, ...)
//	         counts the contributions (not out's old values), < 1 becomes 1
//	mul:     out = ones(size) if absent;  out[t] *= src[p]
//	min/max: out[t] = src[p] if src[p] < / > out[t] (strict: the first wins,
//	         NaN never); arg[t] = p's position along dim, src.size(dim) if none;
//	         out absent: groups start from the dtype's finite highest/lowest,
//	         and a result still equal to it becomes 0
//	size = src.size() with size[dim] = dim_size, or index.max()+1 (0 if empty)
//
// Order: the reduce name (ErrInvalidArgument; Python dispatches on it
// first), dim (wrapped like Python against src.dim(); ErrDimOutOfRange), the
// broadcast (ErrShapeMismatch), then each path's checks: see tsCall.sum and
// tsCall.kernel.
//
// torch_scatter itself never range-checks dim: one outside [-n, n-1] ends
// in whatever breaks first (expand, a Python list index, scatter_add_'s
// dim check), or, with an empty index and a given out of higher rank, in
// no error at all. The suite calls all of that ErrDimOutOfRange; where the
// library's own first step fails with a shape error (tsDimShapeError),
// that kind conforms too, and so does the kernels' index dtype error for
// an index that is not int64 (after it: Strict keeps the suite's).
func planTorchScatter(c scatter.TorchScatter, prof scatter.Profile) (*plan, errs) {
	var e errs
	hasOut := !c.Out.IsZero()
	ok := checkTensor(&e, "src", c.Src)
	ok = checkTensor(&e, "index", c.Index) && ok
	if hasOut {
		ok = checkTensor(&e, "out", c.Out) && ok
	}
	if !ok {
		return nil, e
	}
	k := kSum
	switch c.Reduce {
	case scatter.ReduceNone, scatter.ReduceSum, scatter.ReduceAdd:
	case scatter.ReduceMean:
		k = kMean
	case scatter.ReduceMul:
		k = kProd
	case scatter.ReduceMin:
		k = kTSMin
	case scatter.ReduceMax:
		k = kTSMax
	default:
		e.add(scatter.ErrInvalidArgument, "torch_scatter.scatter: reduce must be sum, add, mul, mean, min or max, got %q", c.Reduce)
		return nil, e
	}
	n := c.Src.Dim()
	dim := scatter.DimOr(c.Dim, -1)
	d := dim
	if d < 0 {
		d += n
	}
	if d < 0 || d >= n {
		e.add(scatter.ErrDimOutOfRange, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -n, n-1, dim)
		if err := tsDimShapeError(c, k, d); err != nil {
			e = append(e, err)
		}
		if k != kSum && k != kMean && kernelReadsIndex(k, c) {
			// a rule the call breaks too, and the library's own error
			// where it sizes out from the index (no out, no dim_size:
			// checked on torch_scatter 2.1.2, torch 2.14.1 and 2.6.0)
			e.add(scatter.ErrIndexDType, "expected scalar type Long but found %v", c.Index.DType())
		}
		return nil, e
	}
	bidx, berr := tsBroadcast(c.Index, d, c.Src.Shape)
	if berr != nil {
		e = append(e, berr)
		return nil, e
	}
	ts := tsCall{c: c, k: k, dim: dim, d: d, bidx: bidx, hasOut: hasOut, prof: prof}
	if k == kSum || k == kMean {
		return ts.sum()
	}
	return ts.kernel()
}

// tsDimShapeError is the shape error torch_scatter 2.x raises itself for
// a dim outside src's n dimensions (d: dim + n if dim < 0, as it wraps it
// once), or nil where it raises none of its own (it then raises a
// dimension error, crashes, or in a few calls answers). In its order:
//
//   - its broadcast's expand, in Python or in the kernels' C++ copy (a 1-d
//     index unsqueezed d times when d > 0: too many dimensions, or a size
//     that does not fit; any index of a 0-d src but a 0-d one);
//   - without out: on the Python path (sum, mean) the size list's
//     `size[dim] = ...`, an IndexError; the kernels (mul, min, max) write
//     sizes[dim] past their vector (undefined: they crash);
//   - with out, the kernels: their loop over out's dims but dim, src.size(i)
//     == out.size(i) ("Input mismatch"; src.size(i) past src's dims is a
//     dimension error);
//   - with out, the Python path: out.scatter_add_(dim, index, src), dim
//     against out's dims (outside them: a dimension error), then the
//     index's rank against out's ("Index tensor must have the same number
//     of dimensions as self tensor", ranks of 0 counting as 1); where the
//     ranks agree (a 0-d src and index into a 1-d out), sum answers and
//     mean fails on its count's size list.
//
// As torch_scatter 2.1.2 answers on torch 2.14.1 (and 2.6.0): every
// outcome of a grid of 3,888 such calls (src of 0 to 2 dims, six index
// shapes, nine outs or none, sum, mean, mul and max, every dim outside
// src's up to 4) that is a shape error is one this returns (PROFILES.md,
// "Rules the same in every version").
func tsDimShapeError(c scatter.TorchScatter, k kind, d int) *scatter.Error {
	S, n := c.Src.Shape, c.Src.Dim()
	bidx, err := tsBroadcast(c.Index, max(d, 0), S)
	if err != nil {
		return err
	}
	python := k == kSum || k == kMean
	listErr := func() *scatter.Error {
		return scatter.Errorf(scatter.ErrShapeMismatch, "list assignment index out of range (size[%d] of a %d-dimensional size list)", *c.Dim, n)
	}
	switch {
	case c.Out.IsZero() && python:
		return listErr()
	case c.Out.IsZero():
		return nil
	case !python:
		for i := range c.Out.Dim() {
			if i == d {
				continue
			}
			if i >= n {
				return nil
			}
			if S[i] != c.Out.Shape[i] {
				return scatter.Errorf(scatter.ErrShapeMismatch, "src.size(i) == out.size(i) INTERNAL ASSERT FAILED: Input mismatch (dim %d: %d, %d)", i, S[i], c.Out.Shape[i])
			}
		}
		return nil
	}
	od, on := *c.Dim, c.Out.Dim()
	if od < 0 {
		od += on
	}
	if od < 0 || od >= max(on, 1) {
		return nil
	}
	if max(bidx.Dim(), 1) != max(on, 1) {
		return scatter.Errorf(scatter.ErrShapeMismatch, "Index tensor must have the same number of dimensions as self tensor")
	}
	if k == kMean {
		return listErr()
	}
	return nil
}

// tsCall is a torch_scatter 2.x call past the broadcast.
type tsCall struct {
	c      scatter.TorchScatter
	k      kind
	dim    int // as given (Python passes it on unwrapped)
	d      int // wrapped against src
	bidx   scatter.Tensor
	hasOut bool
	prof   scatter.Profile
}

// sum is scatter_sum and scatter_mean, pure Python over PyTorch:
//
//	out = zeros(size) if absent  (negative size: ErrInvalidArgument)
//	out.scatter_add_(dim, index, src)   (scatterAddChecks, then the bounds)
//	mean: count as in tsMeanCount, then out.div_(count)  (bool: ErrUnsupportedDType)
//
// A given out only has to pass scatter_add_'s checks: it may be larger than
// src in the dims other than dim (only the sub-block is touched). The
// index dtype follows the profile (int32 too under torch-2) and is not
// checked for an empty index.
func (ts tsCall) sum() (*plan, errs) {
	var e errs
	c := ts.c
	dt := c.Src.DType()
	S := c.Src.Shape
	bn := numel(S)
	out := c.Out
	if !ts.hasOut {
		size, ok := inferredSize(&e, S, ts.d, c.DimSize, bn == 0, func() ([]int64, bool) {
			v, ok := indexInts(ts.bidx)
			if !ok {
				e.add(scatter.ErrIndexDType, "cannot convert the index maximum (a NaN, infinite or huge %v) to an integer", c.Index.DType())
			}
			return v, ok
		})
		if !ok {
			return nil, e
		}
		out, _ = scatter.Zeros(dt, size...)
	}
	wd, ok := scatterAddChecks(&e, out, ts.dim, c.Index.DType(), dt, S, ts.prof)
	if !ok {
		return nil, e
	}
	p := &plan{dtype: dt, shape: append([]int{}, out.Shape...), init: out.Contiguous(), src: c.Src.Contiguous(),
		kind: ts.k, self: true, perStep: opmathPerStep(ts.prof)}
	if bn > 0 && int32OnExpandedPath(&e, ts.prof, c.Index.DType(), dt, out, wd, S,
		func() []int { return tsBroadcastStrides(c.Index.Shape, ts.d, S) }, true) {
		return nil, e
	}
	if bn > 0 {
		if !boundsCheck(&e, ts.bidx, wd, sizeAt(out, wd)) {
			return nil, e
		}
		p.groups, p.shiftedRows = sumGroups(ts.prof, dt, out, wd, S,
			func() []int { return tsBroadcastStrides(c.Index.Shape, ts.d, S) }, true, ts.bidx)
	}
	if ts.k == kMean {
		p.mean = &meanRule{clampBelow: true, perStep: opmathPerStep(ts.prof)}
		if !ts.meanCount(&e, out, p) {
			return nil, e
		}
	}
	return p, nil
}

// meanCount runs the rest of scatter_mean after the sum, on the output out
// and the sum's plan p:
//
//	dim_size = out.size(dim)                      # 0-d out: ErrDimOutOfRange
//	index_dim = dim (wrapped against src); if index.dim() <= index_dim: index_dim = index.dim() - 1
//	count = scatter_sum(ones(index.size()), index, index_dim, None, dim_size)
//	count[count < 1] = 1
//	count = broadcast(count, out, dim)             # may fail: ErrShapeMismatch
//	out.true_divide_(count) or out.div_(count, rounding_mode='floor')  # bool: ErrUnsupportedDType
//
// The count is built from the index as given, not the broadcast one. It
// equals the plan's count (the group's contributions, meanRule) in the
// usual cases; it does not when the index was stretched along dim (a 1-d
// index of one element, a k-d index of size 1 at dim, a k-d index with
// k <= dim) or when out is larger than src, where elements see a count
// that differs from their contributions: src [1,2,3], index [0] sums 6
// and divides it by 1. The plan then takes the count of every output
// position (meanRule.counts), and a given out's positions that receive
// nothing but whose count is not 1 are divided too, as empty groups
// (src [[1,2]], index [0,0], dim 1, out ones(2,3): out[1][0] = 1/2).
// A 0-d index fails in Python (size[-1] of an empty list):
// ErrShapeMismatch. The count's own scatter checks the index dtype and
// bounds again, which matters only when the broadcast index was empty.
func (ts tsCall) meanCount(e *errs, out scatter.Tensor, p *plan) bool {
	c := ts.c
	if out.Dim() == 0 {
		e.add(scatter.ErrDimOutOfRange, "Dimension specified as %d but tensor has no dimensions", ts.dim)
		return false
	}
	wd := ts.dim
	if wd < 0 {
		wd += out.Dim()
	}
	N := out.Shape[wd]
	I := c.Index.Shape
	if len(I) == 0 {
		e.add(scatter.ErrShapeMismatch, "list assignment index out of range (scatter_mean's count of a 0-d index)")
		return false
	}
	idim := ts.d
	if len(I) <= idim {
		idim = len(I) - 1
	}
	cshape := append([]int{}, I...)
	cshape[idim] = N
	if outputTooLarge(e, cshape) {
		return false
	}
	counts := make([]int64, numel(cshape))
	if numel(I) > 0 {
		if !indexDTypeOK(c.Index.DType(), ts.prof) {
			indexDTypeErr(e, ts.prof)
			return false
		}
		if !boundsCheck(e, c.Index, idim, N) {
			return false
		}
		at := indexAt(c.Index)
		walk(I, func(_ int, idx []int) bool {
			counts[ravelAlong(idx, idim, int(at(idx)), cshape)]++
			return true
		})
	}
	for i, v := range counts {
		if v < 1 {
			counts[i] = 1
		}
	}
	cb, berr := tsBroadcast(scatter.Tensor{Shape: cshape, Data: counts}, wd, out.Shape)
	if berr != nil {
		*e = append(*e, berr)
		return false
	}
	if p.dtype == scatter.DTBool {
		e.add(scatter.ErrUnsupportedDType, `"div_floor_cpu" not implemented for 'Bool'`)
		return false
	}
	natural := make([]int64, numel(out.Shape))
	for _, g := range p.groups.all() {
		natural[g.out] = int64(len(g.srcs))
	}
	cv := indexValues(cb)
	differs := false
	var divided []int // positions of a given out without contributions whose count is not 1
	for t, cnt := range cv {
		switch {
		case natural[t] > 0:
			differs = differs || cnt != natural[t]
		case cnt != 1 && ts.hasOut:
			differs = true
			divided = append(divided, t)
		}
	}
	if differs {
		p.mean.counts = cv
	}
	if len(divided) > 0 {
		p.groups = p.groups.withEmpty(divided)
	}
	return true
}

// kernelReadsIndex reports whether the kernel of k (mul, min or max) reads
// c's index as int64 and it is not: every call but mul's of an empty src
// (kernel).
func kernelReadsIndex(k kind, c scatter.TorchScatter) bool {
	return c.Index.DType() != scatter.DTInt64 && (c.Src.NumEl() > 0 || k != kProd)
}

// kernel is scatter_mul, scatter_min and scatter_max: torch_scatter's C++
// scatter_cpu, in its order:
//
//	out given: out.size(i) == src.size(i) for i != dim, i over out's
//	           dimensions ("Input mismatch"; ErrShapeMismatch); src.size(i)
//	           past src's last dimension raises first (ErrDimOutOfRange)
//	out absent: size as in inferredSize (the max reads the index as int64)
//	src empty: out (given) or zeros, arg all src.size(dim); nothing else runs
//	the index as int64 (ErrIndexDType in every profile), the dtype dispatch
//	AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16) (bool: ErrUnsupportedDType),
//	out's dtype (ErrDTypeMismatch)
//
// The C++ kernel does not check index values: an out-of-range one writes
// outside out (undefined behaviour). The suite demands ErrIndexOutOfRange
// for values outside [0, out.size(dim)), checked last; so it rejects an
// out of fewer dimensions than src (ErrShapeMismatch), which the kernel
// would index with src's layout, after out.size(dim) (ErrDimOutOfRange
// when dim is past out's dimensions) and the dtype checks. An empty src
// returns before the dispatch: out's dtype is not checked then (the
// result is the given out, whatever its dtype), nor the index's, except by
// min/max, whose arg is allocated with the index's dtype and read as
// int64 first. Arithmetic is in the tensor's dtype, so float16/bfloat16
// products round at every step in every profile.
func (ts tsCall) kernel() (*plan, errs) {
	var e errs
	c := ts.c
	dt := c.Src.DType()
	S := c.Src.Shape
	d := ts.d
	bn := numel(S)
	var size []int
	if ts.hasOut {
		// over out's dimensions: src.size(i) past src's last one raises
		for i := range c.Out.Shape {
			if i == d {
				continue
			}
			if i >= len(S) {
				e.add(scatter.ErrDimOutOfRange, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -len(S), len(S)-1, i)
				e.add(scatter.ErrShapeMismatch, "Input mismatch: out has %d dimensions, src %d", c.Out.Dim(), len(S))
				return nil, e
			}
			if c.Out.Shape[i] != S[i] {
				e.add(scatter.ErrShapeMismatch, "Input mismatch: out %v and src %v differ in dimension %d", c.Out.Shape, S, i)
				return nil, e
			}
		}
		size = c.Out.Shape
	} else {
		var ok bool
		size, ok = inferredSize(&e, S, d, c.DimSize, bn == 0, func() ([]int64, bool) {
			if c.Index.DType() != scatter.DTInt64 {
				e.add(scatter.ErrIndexDType, "expected scalar type Long but found %v", c.Index.DType())
				return nil, false
			}
			return indexValues(ts.bidx), true
		})
		if !ok {
			return nil, e
		}
	}
	if c.Index.DType() != scatter.DTInt64 && ts.k != kProd {
		// min/max allocate arg like out with the index's options and read
		// it as int64 first, before out.size(dim) (checked on torch_scatter
		// 2.1.2: a 0-d out with an int16 index raises for the index)
		e.add(scatter.ErrIndexDType, "expected scalar type Long but found %v", c.Index.DType())
		return nil, e
	}
	if bn > 0 && ts.hasOut && c.Out.Dim() <= d { // N = out.size(dim)
		e.add(scatter.ErrDimOutOfRange, "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
			-max(c.Out.Dim(), 1), max(c.Out.Dim(), 1)-1, d)
		e.add(scatter.ErrShapeMismatch, "Input mismatch: out has %d dimensions, src %d", c.Out.Dim(), len(S))
		return nil, e
	}
	if kernelReadsIndex(ts.k, c) {
		e.add(scatter.ErrIndexDType, "expected scalar type Long but found %v", c.Index.DType())
	}
	if bn > 0 && dt == scatter.DTBool {
		e.add(scatter.ErrUnsupportedDType, `"scatter_cpu" not implemented for 'Bool'`)
	}
	if bn > 0 && ts.hasOut && c.Out.DType() != dt {
		e.add(scatter.ErrDTypeMismatch, "expected scalar type %v but found %v", dt, c.Out.DType())
	}
	if len(e) > 0 {
		return nil, e
	}
	if bn > 0 && ts.hasOut && c.Out.Dim() != len(S) {
		// out of fewer dimensions: the kernel would index it with src's
		// layout, past its end; the suite rejects it (see above)
		e.add(scatter.ErrShapeMismatch, "Input mismatch: out has %d dimensions, src %d", c.Out.Dim(), len(S))
		return nil, e
	}
	// The bounds check is the suite's rule, not torch_scatter's (see above).
	if bn > 0 && !boundsCheck(&e, ts.bidx, d, size[d]) {
		return nil, e
	}
	p := &plan{dtype: dt, shape: append([]int{}, size...), src: c.Src.Contiguous(), kind: ts.k, self: true, perStep: true}
	switch {
	case ts.hasOut:
		p.init = c.Out.Contiguous()
		if bn == 0 { // returned as given, in its own dtype
			p.dtype = c.Out.DType()
			p.src = scatter.Tensor{Shape: []int{0}, Data: scatter.MakeData(p.dtype, 0)}
		}
	case bn == 0: // out.fill_(0), whatever the reduction
		p.init, _ = scatter.Zeros(dt, size...)
	case ts.k == kProd:
		one := castScalar(scatter.Int(1), dt)
		p.init = fill(dt, size, one)
	default: // min/max: groups start from the extreme, untouched elements end as 0
		p.init, _ = scatter.Zeros(dt, size...)
		p.self = false
	}
	if ts.k != kProd {
		p.arg = argAlong(S, d)
		p.arg.sentinel, p.arg.masked = int64(S[d]), !ts.hasOut
	}
	if bn > 0 {
		p.groups = tsGroups(ts.bidx, S, d, size)
	}
	return p, nil
}
