package reference

import (
	"math"

	"github.com/scatterconf/scatter"
)

// nd is ATen's ensure_nonempty_dim: a 0-d tensor counts as 1-d.
func nd(t scatter.Tensor) int { return max(t.Dim(), 1) }

// sizeAt is ATen's ensure_nonempty_size (scatter.SizeAt).
func sizeAt(t scatter.Tensor, d int) int { return scatter.SizeAt(t.Shape, d) }

// wrapDim is ATen's maybe_wrap_dim against a tensor of n dims (0-d wraps as
// 1-d): dim in [-max(n,1), max(n,1)-1] becomes non-negative; anything else
// is ErrDimOutOfRange.
//
//	IndexError: Dimension out of range (expected to be in range of [-n, n-1], but got d)
func wrapDim(dim, n int) (int, *scatter.Error) {
	w, ok := scatter.WrapDim(dim, n)
	if !ok {
		m := max(n, 1)
		return 0, scatter.Errorf(scatter.ErrDimOutOfRange,
			"Dimension out of range (expected to be in range of [%d, %d], but got %d)", -m, m-1, dim)
	}
	return w, nil
}

// maxElements bounds the tensors the reference materialises
// (scatter.MaxElements): a larger call is ErrInvalidArgument instead of a
// failure to allocate.
const maxElements = scatter.MaxElements

// checkTensor validates one named tensor of a call.
func checkTensor(e *errs, name string, t scatter.Tensor) bool {
	if err := t.Validate(); err != nil {
		e.add(scatter.ErrInvalidArgument, "%s: %s", name, err.(*scatter.Error).Msg)
		return false
	}
	if n := t.NumEl(); n > maxElements {
		e.add(scatter.ErrInvalidArgument, "%s: %d elements, more than the reference's limit of %d", name, n, maxElements)
		return false
	}
	return true
}

// indexValues returns the elements of an int32 or int64 tensor in
// row-major order, widened to int64.
func indexValues(t scatter.Tensor) []int64 {
	switch t.DType() {
	case scatter.DTInt64:
		v, _ := scatter.Values[int64](t)
		return v
	case scatter.DTInt32:
		v, _ := scatter.Values[int32](t)
		w := make([]int64, len(v))
		for i, x := range v {
			w[i] = int64(x)
		}
		return w
	}
	return nil
}

// ravel returns the row-major position of idx in shape.
func ravel(idx, shape []int) int {
	p := 0
	for d := range shape {
		p = p*shape[d] + idx[d]
	}
	return p
}

// ravelAlong returns the row-major position in shape of idx with its
// coordinate along dim replaced by v: where a contribution at idx lands.
func ravelAlong(idx []int, dim, v int, shape []int) int {
	p := 0
	for d := range shape {
		x := idx[d]
		if d == dim {
			x = v
		}
		p = p*shape[d] + x
	}
	return p
}

// shapeOrScalar returns t's shape, with a 0-d tensor seen as [1].
func shapeOrScalar(t scatter.Tensor) []int {
	if t.Dim() == 0 {
		return []int{1}
	}
	return t.Shape
}

// fill returns a contiguous tensor of dtype dt and shape shape whose every
// element is the element at position 0 of the contiguous one-element v.
func fill(dt scatter.DType, shape []int, v scatter.Tensor) scatter.Tensor {
	n, _ := scatter.NumElements(shape)
	t := scatter.Tensor{Shape: append([]int{}, shape...), Data: scatter.MakeData(dt, n)}
	for i := 0; i < n; i++ {
		scatter.CopyElem(t.Data, i, v.Data, 0)
	}
	return t
}

// convertScalar is c10's checked Scalar::to<T>() into dtype dt, returning a
// one-element contiguous tensor, or ErrValueOverflow:
//
//	value cannot be converted to type T without overflow
//
// c10's overflows<To, From>: from a bool, never; from an int, below lowest
// or above max, except that an unsigned target takes negative ints down to
// -max (two's complement wrap: uint8 -1 is 255); into bool, never; from a float, ±inf is fine
// when the target has infinities, NaN fails where it has none, and any
// finite value below lowest or above max fails (float16 70000. fails, it
// does not round to inf). The conversion itself: float to integer truncates
// toward zero (the range is half-open, [lowest, max+1), under a profile
// with Profile.IntRangeHalfOpen); to a 16-bit float it rounds to float32 first, then to
// nearest even (scalarFloat32); to bool, any non-zero is true.
func convertScalar(s scatter.Scalar, dt scatter.DType, prof scatter.Profile) (scatter.Tensor, *scatter.Error) {
	if scalarOverflows(s, dt, prof) {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrValueOverflow,
			"value cannot be converted to type %s without overflow", cTypeName(dt))
	}
	return castScalar(s, dt), nil
}

// scalarOverflows is c10's overflows<To, From> check of convertScalar.
func scalarOverflows(s scatter.Scalar, dt scatter.DType, prof scatter.Profile) bool {
	lo, hi := dtypeRange(dt)
	switch {
	case s.IsBool(), dt == scatter.DTBool:
		// bool takes every value: non-zero is true (checked on torch 1.13:
		// 2, -1, 300, 2.5, nan and inf all give True)
	case s.IsFloat():
		f := s.Float64()
		switch {
		case math.IsInf(f, 0) && dt.IsFloat():
		case math.IsNaN(f):
			if !dt.IsFloat() {
				return true
			}
		case dt.IsInt() && prof.IntRangeHalfOpen():
			// lowest <= f < max+1 (max+1 is a power of two, exact)
			if f < lo || f >= hi+1 {
				return true
			}
		case f < lo || f > hi:
			return true
		}
	default:
		i := s.Int64()
		if dt == scatter.DTUint8 {
			// unsigned target from a signed int: negative values down to -max wrap
			if float64(i) > hi || (i < 0 && -float64(i) > hi) {
				return true
			}
		} else if dt.IsInt() {
			// exactly: float64 comparisons lose precision near int64's limits
			if l, h := dt.IntRange(); i < l || i > h {
				return true
			}
		} else if float64(i) < lo || float64(i) > hi {
			return true
		}
	}
	return false
}

// castScalar is the conversion of convertScalar, unchecked: a one-element
// contiguous tensor of dtype dt.
func castScalar(s scatter.Scalar, dt scatter.DType) scatter.Tensor {
	out := scatter.Tensor{Shape: []int{}, Data: scatter.MakeData(dt, 1)}
	switch d := out.Data.(type) {
	case []bool:
		if s.IsFloat() {
			d[0] = s.Float64() != 0
		} else {
			d[0] = s.Int64() != 0
		}
	case []float64:
		d[0] = s.Float64()
	case []float32:
		d[0] = float32(s.Float64())
	case []scatter.Float16:
		d[0] = scatter.Float16FromFloat64(float64(scalarFloat32(s)))
	case []scatter.BFloat16:
		d[0] = scatter.BFloat16FromFloat64(float64(scalarFloat32(s)))
	default:
		var i int64
		if s.IsFloat() {
			i = int64(math.Trunc(s.Float64()))
		} else {
			i = s.Int64()
		}
		setInt(out.Data, 0, i)
	}
	return out
}

// convertFill is the conversion of full()'s and new_full()'s fill value
// into dtype dt for an output of n elements: convertScalar's, but
// unchecked for one float16 or bfloat16 element under a profile that
// skips the range check there, where a value past the range rounds to
// ±inf (Profile.OneElementFillUnchecked).
func convertFill(s scatter.Scalar, dt scatter.DType, n int, prof scatter.Profile) (scatter.Tensor, *scatter.Error) {
	if n != 1 || !prof.OneElementFillUnchecked() || (dt != scatter.DTFloat16 && dt != scatter.DTBFloat16) {
		return convertScalar(s, dt, prof)
	}
	return castScalar(s, dt), nil
}

// scalarFloat32 is the scalar rounded to float32, the first of the two
// roundings by which c10 converts a Scalar into c10::Half and
// c10::BFloat16: their constructors take a float, so a double (or an
// int64) is rounded to float first, then to 16 bits (checked on torch
// 1.13, 2.6 and 2.14: bfloat16 1 + 2^-8 + 2^-30 gives 1.0, not 1.0078125).
func scalarFloat32(s scatter.Scalar) float32 {
	if s.IsFloat() {
		return float32(s.Float64())
	}
	return float32(s.Int64())
}

// setInt stores i, wrapped, into integer slice data at position p
// (scatter.SetInt).
func setInt(data any, p int, i int64) { scatter.SetInt(data, p, i) }

// dtypeRange returns numeric_limits<T>::lowest() and max() as float64.
func dtypeRange(dt scatter.DType) (lo, hi float64) {
	if dt == scatter.DTBool || dt.IsInt() {
		l, h := dt.IntRange()
		return float64(l), float64(h)
	}
	m := scatter.FactsOf(dt).Max // float64's for any other dtype
	return -m, m
}

// cTypeName is the C++ type name PyTorch's messages use.
func cTypeName(dt scatter.DType) string {
	switch dt {
	case scatter.DTUint8:
		return "uint8_t"
	case scatter.DTInt8:
		return "int8_t"
	case scatter.DTInt16:
		return "int16_t"
	case scatter.DTInt32:
		return "int"
	case scatter.DTInt64:
		return "int64_t"
	case scatter.DTFloat16:
		return "c10::Half"
	case scatter.DTBFloat16:
		return "c10::BFloat16"
	case scatter.DTFloat32:
		return "float"
	case scatter.DTFloat64:
		return "double"
	}
	return "bool"
}
