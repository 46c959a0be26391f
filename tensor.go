package scatter

import (
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
)

// Elem is the set of Go types that hold tensor elements.
type Elem interface {
	bool | uint8 | int8 | int16 | int32 | int64 | Float16 | BFloat16 | float32 | float64
}

// Tensor is a strided view of typed data, like a PyTorch tensor:
//
//	element (i0, i1, ..., ik) = Data[Offset + i0*Strides[0] + ... + ik*Strides[k]]
//
// Shape [] is a 0-d tensor of one element. Strides nil means row-major
// contiguous. A stride of 0 repeats one element along that dimension
// (PyTorch's expand). Data is one of the slices listed in Elem; its type
// gives the tensor's DType.
//
// The zero Tensor (Data nil) stands for "no tensor" in the optional fields of
// the argument structs. Operations never modify the tensors they are given.
type Tensor struct {
	Shape   []int
	Strides []int
	Offset  int
	Data    any
}

// FromSlice returns a contiguous tensor of the given shape over data. With
// no shape it is 1-d over all of data.
func FromSlice[T Elem](data []T, shape ...int) Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	return Tensor{Shape: append([]int{}, shape...), Data: data}
}

// Scalar0D returns a 0-d tensor holding v.
func Scalar0D[T Elem](v T) Tensor { return Tensor{Shape: []int{}, Data: []T{v}} }

// Zeros returns a contiguous tensor of zeros (false for bool). It returns an
// *Error for an invalid dtype, a negative size or a size that overflows.
func Zeros(dt DType, shape ...int) (Tensor, error) {
	n, err := NumElements(shape)
	if err != nil {
		return Tensor{}, err
	}
	data := MakeData(dt, n)
	if data == nil {
		return Tensor{}, Errorf(ErrInvalidArgument, "invalid dtype %v", dt)
	}
	return Tensor{Shape: append([]int{}, shape...), Data: data}, nil
}

// MakeData returns a zeroed slice of n elements of type dt, or nil for an
// invalid dtype.
func MakeData(dt DType, n int) any {
	switch dt {
	case DTBool:
		return make([]bool, n)
	case DTUint8:
		return make([]uint8, n)
	case DTInt8:
		return make([]int8, n)
	case DTInt16:
		return make([]int16, n)
	case DTInt32:
		return make([]int32, n)
	case DTInt64:
		return make([]int64, n)
	case DTFloat16:
		return make([]Float16, n)
	case DTBFloat16:
		return make([]BFloat16, n)
	case DTFloat32:
		return make([]float32, n)
	case DTFloat64:
		return make([]float64, n)
	}
	return nil
}

// DTypeOf returns the DType whose Go type is data's, or DTInvalid.
func DTypeOf(data any) DType {
	switch data.(type) {
	case []bool:
		return DTBool
	case []uint8:
		return DTUint8
	case []int8:
		return DTInt8
	case []int16:
		return DTInt16
	case []int32:
		return DTInt32
	case []int64:
		return DTInt64
	case []Float16:
		return DTFloat16
	case []BFloat16:
		return DTBFloat16
	case []float32:
		return DTFloat32
	case []float64:
		return DTFloat64
	}
	return DTInvalid
}

// DType returns the element type of t (DTInvalid if Data is not one of the
// slices in Elem).
func (t Tensor) DType() DType { return DTypeOf(t.Data) }

// IsZero reports whether t is the zero Tensor: no tensor at all.
func (t Tensor) IsZero() bool { return t.Data == nil && t.Shape == nil }

// Dim returns the number of dimensions.
func (t Tensor) Dim() int { return len(t.Shape) }

// DataLen returns len(Data), or -1 if Data is not an element slice.
func DataLen(data any) int {
	switch d := data.(type) {
	case []bool:
		return len(d)
	case []uint8:
		return len(d)
	case []int8:
		return len(d)
	case []int16:
		return len(d)
	case []int32:
		return len(d)
	case []int64:
		return len(d)
	case []Float16:
		return len(d)
	case []BFloat16:
		return len(d)
	case []float32:
		return len(d)
	case []float64:
		return len(d)
	}
	return -1
}

// NumElements returns the product of shape. A negative size or a product
// that overflows int is an *Error with code ErrInvalidArgument.
func NumElements(shape []int) (int, error) {
	n := 1
	zero := false
	for d, s := range shape {
		if s < 0 {
			return 0, Errorf(ErrInvalidArgument, "negative size %d in dimension %d of shape %v", s, d, shape)
		}
		if s == 0 {
			zero = true
		}
	}
	if zero {
		return 0, nil
	}
	for _, s := range shape {
		if n > math.MaxInt/s {
			return 0, Errorf(ErrInvalidArgument, "shape %v has more elements than an int can count", shape)
		}
		n *= s
	}
	return n, nil
}

// Validate checks that t is a well-formed view: Data an element slice,
// sizes non-negative with a product that fits an int, as many strides as
// dimensions, strides and offset non-negative, and every element of the
// view inside Data. It returns an *Error with code ErrInvalidArgument
// naming the first problem.
func (t Tensor) Validate() error {
	n := DataLen(t.Data)
	if n < 0 {
		if t.Data == nil {
			return Errorf(ErrInvalidArgument, "tensor has no data")
		}
		return Errorf(ErrInvalidArgument, "tensor data of Go type %T is not an element slice", t.Data)
	}
	numel, err := NumElements(t.Shape)
	if err != nil {
		return err
	}
	if t.Offset < 0 {
		return Errorf(ErrInvalidArgument, "negative offset %d", t.Offset)
	}
	if t.Strides == nil {
		if t.Offset > n || numel > n-t.Offset {
			return Errorf(ErrInvalidArgument, "shape %v at offset %d needs %d elements, data has %d", t.Shape, t.Offset, numel, n)
		}
		return nil
	}
	if len(t.Strides) != len(t.Shape) {
		return Errorf(ErrInvalidArgument, "%d strides for %d dimensions", len(t.Strides), len(t.Shape))
	}
	last := t.Offset // the largest position the view reaches
	for d, st := range t.Strides {
		if st < 0 {
			return Errorf(ErrInvalidArgument, "negative stride %d in dimension %d", st, d)
		}
		if numel == 0 {
			continue
		}
		if st > 0 && t.Shape[d]-1 > (math.MaxInt-last)/st {
			return Errorf(ErrInvalidArgument, "strides %v over shape %v reach past the largest int", t.Strides, t.Shape)
		}
		last += (t.Shape[d] - 1) * st
	}
	if numel == 0 {
		if t.Offset > n {
			return Errorf(ErrInvalidArgument, "offset %d past the end of %d elements", t.Offset, n)
		}
		return nil
	}
	if last >= n {
		return Errorf(ErrInvalidArgument, "view reaches element %d, data has %d", last, n)
	}
	return nil
}

// NumEl returns the number of elements of a valid tensor.
func (t Tensor) NumEl() int {
	n, _ := NumElements(t.Shape)
	return n
}

// ContiguousStrides returns the row-major strides of shape.
func ContiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for d := len(shape) - 1; d >= 0; d-- {
		st[d] = s
		if shape[d] > 0 {
			s *= shape[d]
		}
	}
	return st
}

// IsContiguous reports whether a valid tensor's elements lie in row-major
// order one after the other from its offset, as PyTorch's is_contiguous
// has it: a dimension of extent 1 may have any stride, and a tensor
// without elements is contiguous. Its elements are then
// Data[Offset : Offset+NumEl()].
func (t Tensor) IsContiguous() bool {
	if t.Strides == nil || t.NumEl() == 0 {
		return true
	}
	want := 1
	for d := len(t.Shape) - 1; d >= 0; d-- {
		if t.Shape[d] != 1 && t.Strides[d] != want {
			return false
		}
		want *= t.Shape[d]
	}
	return true
}

// StridesOrDefault returns t.Strides, or the row-major strides if nil.
func (t Tensor) StridesOrDefault() []int {
	if t.Strides == nil {
		return ContiguousStrides(t.Shape)
	}
	return t.Strides
}

// Positions returns, for a valid tensor, the position in Data of every
// element in row-major order.
func (t Tensor) Positions() []int {
	pos := make([]int, 0, t.NumEl())
	for _, p := range t.EachPosition() {
		pos = append(pos, p)
	}
	return pos
}

// EachPosition yields, for a valid tensor, every element's row-major
// number i and its position p in Data, in row-major order, without
// allocating a slice of them (a view of 2^30 elements would take 8 GiB
// of positions).
func (t Tensor) EachPosition() iter.Seq2[int, int] {
	return func(yield func(i, p int) bool) {
		n := t.NumEl()
		if n <= 0 {
			return
		}
		st := t.StridesOrDefault()
		idx := make([]int, len(t.Shape))
		p := t.Offset
		for i := 0; i < n; i++ {
			if !yield(i, p) {
				return
			}
			for d := len(idx) - 1; d >= 0; d-- {
				idx[d]++
				p += st[d]
				if idx[d] < t.Shape[d] {
					break
				}
				p -= idx[d] * st[d]
				idx[d] = 0
			}
		}
	}
}

// Values returns the elements of a valid tensor in row-major order as a new
// slice. ok is false if T is not the tensor's element type.
func Values[T Elem](t Tensor) (vals []T, ok bool) {
	data, ok := t.Data.([]T)
	if !ok {
		return nil, false
	}
	vals = make([]T, t.NumEl())
	for i, p := range t.EachPosition() {
		vals[i] = data[p]
	}
	return vals, true
}

// Contiguous returns a row-major copy of a valid tensor with its own data.
func (t Tensor) Contiguous() Tensor {
	c := Tensor{Shape: append([]int{}, t.Shape...)}
	switch t.Data.(type) {
	case []bool:
		c.Data, _ = Values[bool](t)
	case []uint8:
		c.Data, _ = Values[uint8](t)
	case []int8:
		c.Data, _ = Values[int8](t)
	case []int16:
		c.Data, _ = Values[int16](t)
	case []int32:
		c.Data, _ = Values[int32](t)
	case []int64:
		c.Data, _ = Values[int64](t)
	case []Float16:
		c.Data, _ = Values[Float16](t)
	case []BFloat16:
		c.Data, _ = Values[BFloat16](t)
	case []float32:
		c.Data, _ = Values[float32](t)
	case []float64:
		c.Data, _ = Values[float64](t)
	}
	return c
}

// Float64At returns element i (a position in Data) as a float64: exact for
// every dtype but int64 beyond 2^53; bool is 0 or 1.
func Float64At(data any, i int) float64 {
	switch d := data.(type) {
	case []bool:
		if d[i] {
			return 1
		}
		return 0
	case []uint8:
		return float64(d[i])
	case []int8:
		return float64(d[i])
	case []int16:
		return float64(d[i])
	case []int32:
		return float64(d[i])
	case []int64:
		return float64(d[i])
	case []Float16:
		return d[i].Float64()
	case []BFloat16:
		return d[i].Float64()
	case []float32:
		return float64(d[i])
	case []float64:
		return d[i]
	}
	return math.NaN()
}

// FormatAt writes element i (a position in Data) as Python would print it.
func FormatAt(data any, i int) string {
	switch d := data.(type) {
	case []bool:
		if d[i] {
			return "True"
		}
		return "False"
	case []int64:
		return fmt.Sprint(d[i])
	case []uint8, []int8, []int16, []int32:
		return fmt.Sprint(int64(Float64At(data, i)))
	}
	s := Float(Float64At(data, i)).String()
	switch data.(type) {
	case []float32, []Float16, []BFloat16:
		// the shortest form that reads back as the same float32
		if f := float32(Float64At(data, i)); !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
			s = strconv.FormatFloat(float64(f), 'g', -1, 32)
			if !strings.ContainsAny(s, ".en") {
				s += ".0"
			}
		}
	}
	return s
}

// String writes a valid tensor as a nested list with its dtype and shape,
// eliding the middle of long tensors; the zero Tensor is "<none>".
func (t Tensor) String() string {
	if t.IsZero() {
		return "<none>" // the zero Tensor: an absent argument (Result.Arg of most calls)
	}
	if err := t.Validate(); err != nil {
		return "<invalid tensor: " + err.Error() + ">"
	}
	pos := t.Positions()
	var b strings.Builder
	b.WriteString(t.DType().String())
	fmt.Fprint(&b, t.Shape)
	b.WriteString("(")
	const max = 24
	for i, p := range pos {
		if len(pos) > max && i == max/2 {
			fmt.Fprintf(&b, " ... %d more ...", len(pos)-max)
		}
		if len(pos) > max && i >= max/2 && i < len(pos)-max/2 {
			continue
		}
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(FormatAt(t.Data, p))
	}
	b.WriteString(")")
	return b.String()
}

// CopyElem sets dst[i] = src[j] for two element slices of the same type
// (Tensor.Data values); other types are left alone.
func CopyElem(dst any, i int, src any, j int) {
	switch d := dst.(type) {
	case []bool:
		d[i] = src.([]bool)[j]
	case []uint8:
		d[i] = src.([]uint8)[j]
	case []int8:
		d[i] = src.([]int8)[j]
	case []int16:
		d[i] = src.([]int16)[j]
	case []int32:
		d[i] = src.([]int32)[j]
	case []int64:
		d[i] = src.([]int64)[j]
	case []Float16:
		d[i] = src.([]Float16)[j]
	case []BFloat16:
		d[i] = src.([]BFloat16)[j]
	case []float32:
		d[i] = src.([]float32)[j]
	case []float64:
		d[i] = src.([]float64)[j]
	}
}
