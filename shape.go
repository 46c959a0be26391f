package scatter

import "math"

// The shape and integer helpers every backend and generator shares: dim
// wrapping, sizes, integer element access, the element limit.

// MaxElements bounds the tensors the reference materialises: a valid view
// may claim far more elements than memory holds (a stride-0 expand of
// 2^60 elements), and a call with a tensor past this limit is
// ErrInvalidArgument in the reference, so the other backends decline it
// too.
const MaxElements = 1 << 30

// WrapDim is ATen's maybe_wrap_dim against a tensor of n dimensions, a 0-d
// tensor wrapping as 1-d:
//
//	dim in [-max(n,1), max(n,1)-1]  ->  dim (+ max(n,1) if negative)
//
// ok is false (and the dim 0) when dim is out of that range.
func WrapDim(dim, n int) (wrapped int, ok bool) {
	m := max(n, 1)
	if dim < -m || dim >= m {
		return 0, false
	}
	if dim < 0 {
		dim += m
	}
	return dim, true
}

// SizeAt is ATen's ensure_nonempty_size: shape[d], with a 0-d shape (or a
// d outside it) as size 1.
func SizeAt(shape []int, d int) int {
	if d < 0 || d >= len(shape) {
		return 1
	}
	return shape[d]
}

// SameShapeExceptDim is PyTorch 2's index_reduce_ shape rule
// (index_func_meta_impl): source has self's shape but along dim where
// both have dimensions; else (either 0-d) the two shapes are equal whole.
func SameShapeExceptDim(self, source []int, dim int) bool {
	if len(self) == 0 || len(source) == 0 || len(self) != len(source) {
		return len(self) == len(source) && len(self) == 0
	}
	for i := range self {
		if i != dim && self[i] != source[i] {
			return false
		}
	}
	return true
}

// Numel is the product of shape (1 for a 0-d shape), unchecked; see
// NumElements for a product that reports overflow.
func Numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// IntRange returns numeric_limits lowest() and max() of an integer dtype
// (bool: 0 and 1; any other dtype: int64's).
func (d DType) IntRange() (lo, hi int64) {
	switch d {
	case DTBool:
		return 0, 1
	case DTUint8:
		return 0, math.MaxUint8
	case DTInt8:
		return math.MinInt8, math.MaxInt8
	case DTInt16:
		return math.MinInt16, math.MaxInt16
	case DTInt32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// WrapInt reduces v to an integer dtype's width, two's complement, as C++
// stores an int result in a narrower type; bool is v != 0. Integer
// arithmetic modulo 2^n is a ring, so folding in int64 and wrapping once
// equals wrapping after every step, in any order. Other dtypes keep v.
func (d DType) WrapInt(v int64) int64 {
	switch d {
	case DTBool:
		if v != 0 {
			return 1
		}
		return 0
	case DTUint8:
		return int64(uint8(v))
	case DTInt8:
		return int64(int8(v))
	case DTInt16:
		return int64(int16(v))
	case DTInt32:
		return int64(int32(v))
	}
	return v
}

// IntAt returns element i (a position in data) as an int64: integers and
// bool exactly, floats truncated toward zero.
func IntAt(data any, i int) int64 {
	switch d := data.(type) {
	case []bool:
		if d[i] {
			return 1
		}
		return 0
	case []uint8:
		return int64(d[i])
	case []int8:
		return int64(d[i])
	case []int16:
		return int64(d[i])
	case []int32:
		return int64(d[i])
	case []int64:
		return d[i]
	}
	return int64(Float64At(data, i))
}

// SetInt stores v at position i of data as a C cast would: integers wrap
// to the width, bool is v != 0, floats convert (rounding to nearest even).
func SetInt(data any, i int, v int64) {
	switch d := data.(type) {
	case []bool:
		d[i] = v != 0
	case []uint8:
		d[i] = uint8(v)
	case []int8:
		d[i] = int8(v)
	case []int16:
		d[i] = int16(v)
	case []int32:
		d[i] = int32(v)
	case []int64:
		d[i] = v
	case []float32:
		d[i] = float32(v)
	case []float64:
		d[i] = float64(v)
	case []Float16:
		d[i] = Float16FromFloat64(float64(v))
	case []BFloat16:
		d[i] = BFloat16FromFloat64(float64(v))
	}
}

// SetFloat stores v at position i of data as a C cast would: floats round
// to nearest even, integers truncate toward zero (v must fit the dtype),
// bool is v != 0.
func SetFloat(data any, i int, v float64) {
	switch d := data.(type) {
	case []float32:
		d[i] = float32(v)
	case []float64:
		d[i] = v
	case []Float16:
		d[i] = Float16FromFloat64(v)
	case []BFloat16:
		d[i] = BFloat16FromFloat64(v)
	case []bool:
		d[i] = v != 0
	default:
		SetInt(data, i, int64(v))
	}
}

// BitsAt returns the bit pattern of element i.
func BitsAt(data any, i int) uint64 {
	switch d := data.(type) {
	case []bool:
		if d[i] {
			return 1
		}
		return 0
	case []uint8:
		return uint64(d[i])
	case []int8:
		return uint64(d[i])
	case []int16:
		return uint64(d[i])
	case []int32:
		return uint64(d[i])
	case []int64:
		return uint64(d[i])
	case []Float16:
		return uint64(d[i])
	case []BFloat16:
		return uint64(d[i])
	case []float32:
		return uint64(math.Float32bits(d[i]))
	case []float64:
		return math.Float64bits(d[i])
	}
	return 0
}
