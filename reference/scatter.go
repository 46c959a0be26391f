package reference

import (
	"github.com/scatterconf/scatter"
)

// dimScatter is what scatter_, scatter_add_ and scatter_reduce_ share: the
// checks of ATen's scatter_meta_impl and the kernel, in PyTorch's order
// (SEMANTICS.md §1.3), and the grouping of §1.2:
//
//	for every position p of index:  t = p with t[dim] = index[p];  out[t] op= src[p]
//
// src is the tensor source, or the zero Tensor when value is used.
type dimScatter struct {
	self, index, src scatter.Tensor
	value            *scatter.Scalar
	dim              int
	// reduceErr is the reduce-name check, run after the shape check as
	// meta does (nil when the name is valid).
	reduceErr *scatter.Error
}

// int64Only reports whether the profile takes int64 indices only for the
// scatter/gather family ("Expected dtype int64 for index"); PyTorch ≥ 2.8
// takes int32 as well.
func int64Only(prof scatter.Profile) bool { return !prof.Int32Index() }

// indexDTypeOK reports whether a scatter/gather index of dtype dt is taken.
func indexDTypeOK(dt scatter.DType, prof scatter.Profile) bool {
	return dt == scatter.DTInt64 || (dt == scatter.DTInt32 && !int64Only(prof))
}

// validate runs the checks up to (not including) the kernel's: it returns
// the wrapped dim and whether planning can go on.
func (s dimScatter) validate(e *errs, prof scatter.Profile) (dim int, ok bool) {
	if !checkTensor(e, "self", s.self) || !checkTensor(e, "index", s.index) {
		return 0, false
	}
	hasSrc := !s.src.IsZero()
	if hasSrc == (s.value != nil) {
		e.add(scatter.ErrInvalidArgument, "scatter(): exactly one of src and value must be given")
		return 0, false
	}
	if hasSrc && !checkTensor(e, "src", s.src) {
		return 0, false
	}
	// 1. dim wraps against self, before anything else, even for an empty index.
	dim, derr := wrapDim(s.dim, s.self.Dim())
	if derr != nil {
		*e = append(*e, derr)
	}
	// 2. the index dtype, unless the index is empty.
	empty := s.index.NumEl() == 0
	if !empty && !indexDTypeOK(s.index.DType(), prof) {
		if int64Only(prof) {
			e.add(scatter.ErrIndexDType, "scatter(): Expected dtype int64 for index")
		} else {
			e.add(scatter.ErrIndexDType, "scatter(): Expected dtype int32/int64 for index")
		}
	}
	// 3. src's dtype, even for an empty index.
	if hasSrc && s.src.DType() != s.self.DType() {
		e.add(scatter.ErrDTypeMismatch, "scatter(): Expected self.dtype to be equal to src.dtype")
	}
	if derr != nil {
		if s.reduceErr != nil {
			*e = append(*e, s.reduceErr)
		}
		return 0, false
	}
	// 4. the shape check, skipped for an empty index.
	if !empty {
		s.shapeCheck(e, dim)
	}
	// 6. the reduce name, in meta, so also for an empty index.
	if s.reduceErr != nil {
		*e = append(*e, s.reduceErr)
	}
	if len(*e) > 0 && !empty {
		// 7. the index values, which the kernel would check: PyTorch
		// never gets there, but the rule is broken too, and its error
		// conforms at the conformant level.
		if oob := firstOutOfBounds(s.index, dim, sizeAt(s.self, dim)); oob != nil {
			*e = append(*e, oob)
		}
	}
	return dim, len(*e) == 0
}

// firstOutOfBounds returns the error for the first value of index outside
// [0, size) (along dim), or nil; an index of a dtype that is not an index
// dtype has no values to check.
func firstOutOfBounds(index scatter.Tensor, dim, size int) *scatter.Error {
	var oob *scatter.Error
	eachIndexValue(index, func(v int64) bool {
		if v < 0 || v >= int64(size) {
			oob = outOfBounds(v, dim, size)
		}
		return oob == nil
	})
	return oob
}

// outOfBounds is the kernel's error for index value v:
//
//	index I is out of bounds for dimension D with size S
func outOfBounds(v int64, dim, size int) *scatter.Error {
	return scatter.Errorf(scatter.ErrIndexOutOfRange, "index %d is out of bounds for dimension %d with size %d", v, dim, size)
}

// shapeCheck is ATen's scatter_shape_check with its quirk: the src loop
// reads src.size(d) before src's rank is checked, so a src of lower rank
// than index raises "Dimension out of range".
func (s dimScatter) shapeCheck(e *errs, dim int) {
	self, index, src := s.self, s.index, s.src
	if nd(self) != nd(index) {
		e.add(scatter.ErrShapeMismatch, "Index tensor must have the same number of dimensions as self tensor")
		return
	}
	wrong := false
	for d := 0; d < nd(self); d++ {
		if d != dim && sizeAt(index, d) > sizeAt(self, d) {
			wrong = true
			break
		}
	}
	if !wrong && !src.IsZero() {
		for d := 0; d < nd(self); d++ {
			if src.Dim() > 0 && d >= src.Dim() {
				e.add(scatter.ErrDimOutOfRange, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -src.Dim(), src.Dim()-1, d)
				// the rank check that PyTorch never reaches is broken too
				e.add(scatter.ErrShapeMismatch, "Index tensor must have the same number of dimensions as src tensor")
				return
			}
			if sizeAt(index, d) > sizeAt(src, d) {
				wrong = true
				break
			}
		}
	}
	if !src.IsZero() && nd(src) != nd(index) {
		e.add(scatter.ErrShapeMismatch, "Index tensor must have the same number of dimensions as src tensor")
		return
	}
	if wrong {
		if src.IsZero() {
			e.add(scatter.ErrShapeMismatch, "Expected index %v to be smaller than self %v apart from dimension %d", index.Shape, self.Shape, dim)
		} else {
			e.add(scatter.ErrShapeMismatch, "Expected index %v to be smaller than self %v apart from dimension %d and to be smaller size than src %v", index.Shape, self.Shape, dim, src.Shape)
		}
	}
}

// groups returns the call's groups, or the error for the first index value
// outside [0, size) in row-major order, which the kernel reports before
// writing anything:
//
//	index I is out of bounds for dimension D with size S
func (s dimScatter) groups(dim int) (groupSet, *scatter.Error) {
	if oob := firstOutOfBounds(s.index, dim, sizeAt(s.self, dim)); oob != nil {
		return groupSet{}, oob
	}
	ishape := shapeOrScalar(s.index)
	sshape := shapeOrScalar(s.self)
	var srcShape []int
	if !s.src.IsZero() {
		srcShape = shapeOrScalar(s.src)
	}
	at := indexAt(s.index)
	return groupBy(numel(sshape), func(yield func(out, src int)) {
		walk(ishape, func(_ int, idx []int) bool {
			src := 0 // the scalar value's one element
			if srcShape != nil {
				src = ravel(idx, srcShape)
			}
			yield(ravelAlong(idx, dim, int(at(idx)), sshape), src)
			return true
		})
	}), nil
}

// opmathPerStep reports whether 16-bit float sums and products of the
// scatter family round after every step under prof (PyTorch 1.13) rather
// than accumulating in float32 (PyTorch ≥ 2.1).
func opmathPerStep(prof scatter.Profile) bool { return prof.RoundsPerStep() }

// planScatter: torch.Tensor.scatter_(dim, index, src|value, reduce=None|'add'|'multiply').
//
//	reduce None:        out[t] = src[p]   (duplicates: the last along dim, on CPU)
//	reduce 'add':       out[t] += src[p]
//	reduce 'multiply':  out[t] *= src[p]  (bool: and)
//
// A scalar value is converted to self's dtype with c10's checked
// conversion, element by element after each element's bounds check, so the
// first index element decides which of an out-of-bounds index and an
// overflowing value PyTorch reports.
func planScatter(c scatter.Scatter, prof scatter.Profile) (*plan, errs) {
	var e errs
	s := dimScatter{self: c.Self, index: c.Index, src: c.Src, value: c.Value, dim: c.Dim}
	k := kAssign
	switch c.Reduce {
	case scatter.ReduceNone:
	case scatter.ReduceAdd:
		k = kSum
	case scatter.ReduceMultiply:
		k = kProd
	default:
		s.reduceErr = scatter.Errorf(scatter.ErrInvalidArgument, "reduce argument must be either add or multiply.")
	}
	dim, ok := s.validate(&e, prof)
	if !ok {
		return nil, e
	}
	p := &plan{dtype: c.Self.DType(), shape: c.Self.Shape, init: c.Self.Contiguous(), kind: k,
		self: true, perStep: opmathPerStep(prof)}
	if c.Index.NumEl() == 0 {
		p.src = scatter.Tensor{Shape: []int{0}, Data: scatter.MakeData(p.dtype, 0)}
		return p, nil
	}
	gs, oob := s.groups(dim)
	if c.Value != nil {
		v, verr := convertScalar(*c.Value, p.dtype, prof)
		var first int64
		eachIndexValue(c.Index, func(v int64) bool { first = v; return false })
		firstOK := first >= 0 && first < int64(sizeAt(c.Self, dim))
		switch {
		case verr != nil && oob != nil && !firstOK:
			return nil, errs{oob, verr}
		case verr != nil && oob != nil:
			return nil, errs{verr, oob}
		case verr != nil:
			return nil, errs{verr}
		}
		p.src = v
	} else {
		p.src = c.Src.Contiguous()
	}
	if oob != nil {
		return nil, errs{oob}
	}
	p.groups = gs
	return p, nil
}

// planScatterAdd: torch.Tensor.scatter_add_(dim, index, src).
//
//	out[t] += src[p]   (bool: or; integers wrap)
func planScatterAdd(c scatter.ScatterAdd, prof scatter.Profile) (*plan, errs) {
	return planScatter(scatter.Scatter{Self: c.Self, Dim: c.Dim, Index: c.Index, Src: c.Src, Reduce: scatter.ReduceAdd}, prof)
}

// reduceNameErr is scatter_reduce's error for a reduce name it does not take.
func reduceNameErr(prof scatter.Profile, r scatter.Reduce) *scatter.Error {
	if prof.ReduceAliases() {
		return scatter.Errorf(scatter.ErrInvalidArgument, "reduce argument must be either sum, prod, mean, amax or amin, got %s", r)
	}
	return scatter.Errorf(scatter.ErrInvalidArgument, "reduce argument must be either sum, prod, mean, amax or amin.")
}

// planScatterReduce: torch.Tensor.scatter_reduce_(dim, index, src, reduce,
// include_self) (SEMANTICS.md §3.1):
//
//	include_self=False: every targeted out[t] starts from identity(reduce)
//	out[t] = combine(out[t], src[p]) in increasing position along dim
//	mean:  count = include_self + #contributions (in out's dtype); count == 0 -> 1
//	       out = out / count, or floor division for integers
//
// Mean is not implemented for bool, even with an empty index (the
// post-pass's floor division raises). With include_self=False the identity
// pre-fill is a scalar scatter_ that bounds-checks before the reduce
// kernel's dtype dispatch, so an out-of-bounds index is PyTorch's first
// error then.
func planScatterReduce(c scatter.ScatterReduce, prof scatter.Profile) (*plan, errs) {
	var e errs
	s := dimScatter{self: c.Self, index: c.Index, src: c.Src, dim: c.Dim}
	if c.Src.IsZero() {
		e.add(scatter.ErrInvalidArgument, "scatter_reduce(): src is required")
		return nil, e
	}
	k := kSum
	switch c.Reduce {
	case scatter.ReduceSum:
	case scatter.ReduceProd:
		k = kProd
	case scatter.ReduceMean:
		k = kMean
	case scatter.ReduceAmax:
		k = kAmax
	case scatter.ReduceAmin:
		k = kAmin
	case scatter.ReduceMax, scatter.ReduceMin:
		// PyTorch 2's get_reduction_enum takes "max" and "min" for amax
		// and amin; 1.13 rejects them.
		if !prof.ReduceAliases() {
			s.reduceErr = reduceNameErr(prof, c.Reduce)
			break
		}
		k = kAmax
		if c.Reduce == scatter.ReduceMin {
			k = kAmin
		}
	default:
		s.reduceErr = reduceNameErr(prof, c.Reduce)
	}
	dim, ok := s.validate(&e, prof)
	if !ok {
		return nil, e
	}
	dt := c.Self.DType()
	boolMean := k == kMean && dt == scatter.DTBool
	if c.Index.NumEl() == 0 {
		if boolMean {
			e.add(scatter.ErrUnsupportedDType, `"div_floor_cpu" not implemented for 'Bool'`)
			return nil, e
		}
		return &plan{dtype: dt, shape: c.Self.Shape, init: c.Self.Contiguous(), kind: k, self: true,
			src: scatter.Tensor{Shape: []int{0}, Data: scatter.MakeData(dt, 0)}}, nil
	}
	gs, oob := s.groups(dim)
	if boolMean {
		dtErr := scatter.Errorf(scatter.ErrUnsupportedDType, `"scatter_gather_tensor_cpu_reduce_mean" not implemented for 'Bool'`)
		if oob != nil && c.ExcludeSelf {
			return nil, errs{oob, dtErr}
		}
		if oob != nil {
			return nil, errs{dtErr, oob}
		}
		return nil, errs{dtErr}
	}
	if oob != nil {
		return nil, errs{oob}
	}
	p := &plan{dtype: dt, shape: c.Self.Shape, init: c.Self.Contiguous(), src: c.Src.Contiguous(),
		kind: k, self: !c.ExcludeSelf, perStep: opmathPerStep(prof), groups: gs}
	if k == kMean {
		p.mean = &meanRule{countSelf: !c.ExcludeSelf, perStep: opmathPerStep(prof)}
	}
	return p, nil
}
