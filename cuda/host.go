package cuda

import (
	"unsafe"

	"github.com/scatterconf/scatter"
)

// view is a strided view of a tensor's data: element (i0, ..., ik) is
// data[off + i0*strides[0] + ... + ik*strides[k]].
type view struct {
	data    any
	off     int
	shape   []int
	strides []int
}

// viewOf returns the view of a valid tensor, a 0-d tensor seen as [1].
func viewOf(t scatter.Tensor) view {
	if t.Dim() == 0 {
		return view{data: t.Data, off: t.Offset, shape: []int{1}, strides: []int{0}}
	}
	return view{data: t.Data, off: t.Offset, shape: t.Shape, strides: t.StridesOrDefault()}
}

// tensor returns the view as a scatter.Tensor over its data.
func (v view) tensor() scatter.Tensor {
	return scatter.Tensor{Shape: v.shape, Strides: v.strides, Offset: v.off, Data: v.data}
}

// pack returns the view's elements in row-major order as a slice of the
// data's type: a subslice of the data when the view is contiguous (no
// copy), else a new slice.
func pack(v view) any {
	switch d := v.data.(type) {
	case []bool:
		return packT(d, v)
	case []uint8:
		return packT(d, v)
	case []int8:
		return packT(d, v)
	case []int16:
		return packT(d, v)
	case []int32:
		return packT(d, v)
	case []int64:
		return packT(d, v)
	case []scatter.Float16:
		return packT(d, v)
	case []scatter.BFloat16:
		return packT(d, v)
	case []float32:
		return packT(d, v)
	case []float64:
		return packT(d, v)
	}
	panic("cuda: not an element slice")
}

func packT[T scatter.Elem](data []T, v view) []T {
	t := v.tensor()
	if n := t.NumEl(); t.IsContiguous() {
		return data[v.off : v.off+n : v.off+n]
	}
	out, _ := scatter.Values[T](t)
	return out
}

// sliceLen returns the length of an element slice.
func sliceLen(data any) int { return scatter.DataLen(data) }

// bytesOf returns a pointer to the first element of an element slice and
// its size in bytes (nil, 0 for an empty slice).
func bytesOf(data any) (unsafe.Pointer, int) {
	n := sliceLen(data)
	if n <= 0 {
		return nil, 0
	}
	switch d := data.(type) {
	case []bool:
		return unsafe.Pointer(&d[0]), n
	case []uint8:
		return unsafe.Pointer(&d[0]), n
	case []int8:
		return unsafe.Pointer(&d[0]), n
	case []int16:
		return unsafe.Pointer(&d[0]), 2 * n
	case []int32:
		return unsafe.Pointer(&d[0]), 4 * n
	case []int64:
		return unsafe.Pointer(&d[0]), 8 * n
	case []scatter.Float16:
		return unsafe.Pointer(&d[0]), 2 * n
	case []scatter.BFloat16:
		return unsafe.Pointer(&d[0]), 2 * n
	case []float32:
		return unsafe.Pointer(&d[0]), 4 * n
	case []float64:
		return unsafe.Pointer(&d[0]), 8 * n
	}
	panic("cuda: not an element slice")
}

// indexInts returns the values of a packed int32 or int64 slice as int64
// (the slice itself for int64).
func indexInts(data any) []int64 {
	switch d := data.(type) {
	case []int64:
		return d
	case []int32:
		w := make([]int64, len(d))
		for i, x := range d {
			w[i] = int64(x)
		}
		return w
	}
	return nil
}

// shapeOrScalar returns t's shape, a 0-d tensor seen as [1].
func shapeOrScalar(t scatter.Tensor) []int {
	if t.Dim() == 0 {
		return []int{1}
	}
	return t.Shape
}

// nd is ATen's ensure_nonempty_dim.
func nd(t scatter.Tensor) int { return max(t.Dim(), 1) }

// okTensor reports whether t is a well-formed tensor within the limit.
func okTensor(t scatter.Tensor) bool {
	return t.Validate() == nil && t.NumEl() <= scatter.MaxElements
}
