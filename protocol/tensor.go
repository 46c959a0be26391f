package protocol

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/scatterconf/scatter"
)

// The default limits (see Limits).
const (
	// DefaultMaxTensorBytes bounds the decoded tensor bytes of one line: 1 GiB.
	DefaultMaxTensorBytes = 1 << 30
	// DefaultMaxLineBytes bounds one line: room for DefaultMaxTensorBytes
	// in base64 (4/3 of it) and the rest of the JSON.
	DefaultMaxLineBytes = DefaultMaxTensorBytes/3*4 + 64<<20
	// DefaultMaxDims bounds the number of dimensions of a decoded tensor.
	DefaultMaxDims = 64
)

// Limits bound what a decoder accepts, so that a hostile peer cannot make it
// exhaust memory. A zero field takes its default. Limits{} is the default
// for the package-level functions.
type Limits struct {
	// MaxLineBytes is the longest line read or decoded, newline excluded.
	MaxLineBytes int
	// MaxTensorBytes is the most tensor bytes (elements × element size)
	// that one line may decode to, all its tensors together.
	MaxTensorBytes int64
	// MaxDims is the most dimensions a decoded tensor may have.
	MaxDims int
}

func (l Limits) maxLine() int {
	if l.MaxLineBytes > 0 {
		return l.MaxLineBytes
	}
	return DefaultMaxLineBytes
}

func (l Limits) maxTensor() int64 {
	if l.MaxTensorBytes > 0 {
		return l.MaxTensorBytes
	}
	return DefaultMaxTensorBytes
}

func (l Limits) maxDims() int {
	if l.MaxDims > 0 {
		return l.MaxDims
	}
	return DefaultMaxDims
}

// budget counts the tensor bytes decoded from one line.
type budget struct {
	lim  Limits
	left int64
}

func (l Limits) budget() *budget { return &budget{lim: l, left: l.maxTensor()} }

// Tensor is the wire form of a tensor:
//
//	{"dtype":"float32","shape":[2,3],"data":"<base64>"}
//
// Data is the standard base64 (with padding) of the elements in row-major
// order, little-endian; bool is one byte, 0 or 1; float16 and bfloat16 are
// their 16-bit patterns.
//
// With the strides extension (see the package doc) a tensor may also carry
// Strides, one non-negative element stride per dimension: Data then holds
// the view's storage, 1 + Σ (shape[k]-1)·strides[k] elements (none for a
// tensor of no elements), and element (i0, ..., ik) is storage element
// Σ i_k·strides[k].
type Tensor struct {
	DType   string `json:"dtype"`
	Shape   []int  `json:"shape"`
	Strides []int  `json:"strides,omitempty"`
	Data    string `json:"data"`
}

// EncodeOptions choose how tensors are written. The zero value writes
// every tensor contiguous, as PROTOCOL.md does; the package-level
// encoders use it.
type EncodeOptions struct {
	// Strides writes a view (expanded, transposed, sliced) as its
	// strides and storage when that is no more elements than the view
	// has (an expanded index: far fewer), instead of materialising it.
	// Set it only for an implementation whose hello claims the strides
	// extension.
	Strides bool
}

// EncodeTensor returns the wire form of t, which may be any valid view
// (strided, offset, expanded), under the default EncodeOptions: contiguous.
// An invalid tensor is an *scatter.Error with code ErrInvalidArgument.
func EncodeTensor(t scatter.Tensor) (Tensor, error) { return EncodeOptions{}.EncodeTensor(t) }

// EncodeTensor returns the wire form of t, which may be any valid view.
// With o.Strides, a non-contiguous view whose storage span (1 + Σ
// (shape[k]-1)·strides[k] elements) is at most its number of elements
// goes with "strides" and that span of its data; every other tensor goes
// contiguous. An invalid tensor is an *scatter.Error with code
// ErrInvalidArgument.
func (o EncodeOptions) EncodeTensor(t scatter.Tensor) (Tensor, error) {
	if err := t.Validate(); err != nil {
		return Tensor{}, err
	}
	w := Tensor{DType: t.DType().String(), Shape: append(make([]int, 0, len(t.Shape)), t.Shape...)}
	if o.Strides {
		if span, ok := stridedSpan(t); ok {
			w.Strides = append(make([]int, 0, len(t.Strides)), t.Strides...)
			storage := scatter.Tensor{Shape: []int{span}, Offset: t.Offset, Data: t.Data}
			w.Data = base64.StdEncoding.EncodeToString(tensorBytes(storage))
			return w, nil
		}
	}
	w.Data = base64.StdEncoding.EncodeToString(tensorBytes(t))
	return w, nil
}

// stridedSpan returns the storage span of a valid view worth sending with
// its strides: one that is not contiguous, has elements, and spans no
// more elements than it has.
func stridedSpan(t scatter.Tensor) (int, bool) {
	n := t.NumEl()
	if t.Strides == nil || n == 0 {
		return 0, false
	}
	if t.IsContiguous() {
		return 0, false
	}
	span := 1
	for d, st := range t.Strides {
		span += (t.Shape[d] - 1) * st // Validate bounds it by len(Data)
	}
	if span > n {
		return 0, false
	}
	return span, true
}

// tensorBytes returns the little-endian bytes of a valid tensor's elements
// in row-major order.
func tensorBytes(t scatter.Tensor) []byte {
	dt := t.DType()
	size := dt.Size()
	b := make([]byte, t.NumEl()*size)
	var pos []int // nil: contiguous, element i at t.Offset+i
	if !t.IsContiguous() {
		pos = t.Positions()
	}
	le := binary.LittleEndian
	switch d := t.Data.(type) {
	case []bool:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v bool) {
			if v {
				b[0] = 1
			}
		})
	case []uint8:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v uint8) { b[0] = v })
	case []int8:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v int8) { b[0] = uint8(v) })
	case []int16:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v int16) { le.PutUint16(b, uint16(v)) })
	case []int32:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v int32) { le.PutUint32(b, uint32(v)) })
	case []int64:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v int64) { le.PutUint64(b, uint64(v)) })
	case []scatter.Float16:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v scatter.Float16) { le.PutUint16(b, uint16(v)) })
	case []scatter.BFloat16:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v scatter.BFloat16) { le.PutUint16(b, uint16(v)) })
	case []float32:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v float32) { le.PutUint32(b, math.Float32bits(v)) })
	case []float64:
		putEach(b, d, pos, t.Offset, size, func(b []byte, v float64) { le.PutUint64(b, math.Float64bits(v)) })
	}
	return b
}

// putEach writes the elements of d at pos (nil: the len(b)/size elements
// from off on), each size bytes into b.
func putEach[T any](b []byte, d []T, pos []int, off, size int, put func([]byte, T)) {
	if pos == nil {
		for i, v := range d[off : off+len(b)/size] {
			put(b[i*size:], v)
		}
		return
	}
	for i, p := range pos {
		put(b[i*size:], d[p])
	}
}

// DecodeTensor returns the contiguous tensor that w describes, under the
// default Limits. See Limits.DecodeTensor.
func DecodeTensor(w Tensor) (scatter.Tensor, error) { return Limits{}.DecodeTensor(w) }

// DecodeTensor returns the tensor that w describes: contiguous, or with
// Strides (the strides extension) a view with those strides over the
// storage that Data holds. An unknown dtype, a missing, negative or
// overflowing shape, more than MaxDims dimensions, strides that are not
// one non-negative integer per dimension or whose span overflows, more
// than MaxTensorBytes of data (a view's storage counts; the view itself
// must be within MaxTensorBytes too), and base64 that is malformed or does
// not hold exactly the elements the shape (or the strides' span) needs
// are each an *scatter.Error with code ErrInvalidArgument. Nothing is
// allocated before the sizes are checked.
func (l Limits) DecodeTensor(w Tensor) (scatter.Tensor, error) {
	return l.budget().tensor(w, "tensor")
}

func (b *budget) tensor(w Tensor, name string) (scatter.Tensor, error) {
	dt, err := scatter.ParseDType(w.DType)
	if err != nil {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: unknown dtype %q", name, w.DType)
	}
	if w.Shape == nil {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: missing shape", name)
	}
	if len(w.Shape) > b.lim.maxDims() {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: %d dimensions, more than the limit %d", name, len(w.Shape), b.lim.maxDims())
	}
	n, err := scatter.NumElements(w.Shape)
	if err != nil {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: %s", name, msgOf(err))
	}
	size := int64(dt.Size())
	what := fmt.Sprintf("shape %v of %v", w.Shape, dt)
	if w.Strides != nil {
		// The view itself stays within the limit, as a contiguous tensor
		// must: a backend may well materialise it.
		if int64(n) > b.lim.maxTensor()/size {
			return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: a view of shape %v of %v is more than the limit %d tensor bytes", name, w.Shape, dt, b.lim.maxTensor())
		}
		if n, err = storageLen(w.Shape, w.Strides, n); err != nil {
			return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: %s", name, msgOf(err))
		}
		what = fmt.Sprintf("shape %v with strides %v of %v", w.Shape, w.Strides, dt)
	}
	if int64(n) > b.left/size {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: %s needs more than the %d tensor bytes left of the limit %d", name, what, b.left, b.lim.maxTensor())
	}
	nbytes := n * int(size)
	if enc := base64.StdEncoding.EncodedLen(nbytes); len(w.Data) != enc {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: data has %d base64 characters, %s needs %d", name, len(w.Data), what, enc)
	}
	data, err := decodeElements(dt, w.Data, n)
	if err != nil {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: %s", name, msgOf(err))
	}
	b.left -= int64(nbytes)
	t := scatter.Tensor{Shape: append(make([]int, 0, len(w.Shape)), w.Shape...), Data: data}
	if w.Strides != nil {
		t.Strides = append(make([]int, 0, len(w.Strides)), w.Strides...)
	}
	return t, nil
}

// storageLen returns the storage elements of a view of numel elements
// with the given shape and strides: 1 + Σ (shape[k]-1)·strides[k], or 0
// without elements. Strides that are not one non-negative integer per
// dimension, or a span past the largest int, are an *scatter.Error.
func storageLen(shape, strides []int, numel int) (int, error) {
	if len(strides) != len(shape) {
		return 0, scatter.Errorf(scatter.ErrInvalidArgument, "%d strides for %d dimensions", len(strides), len(shape))
	}
	for d, st := range strides {
		if st < 0 {
			return 0, scatter.Errorf(scatter.ErrInvalidArgument, "negative stride %d in dimension %d", st, d)
		}
	}
	if numel == 0 {
		return 0, nil
	}
	last := 0
	for d, st := range strides {
		if st > 0 && shape[d]-1 > (math.MaxInt-1-last)/st {
			return 0, scatter.Errorf(scatter.ErrInvalidArgument, "strides %v over shape %v span more elements than an int can count", strides, shape)
		}
		last += (shape[d] - 1) * st
	}
	return last + 1, nil
}

// msgOf returns the message of a *scatter.Error, or err's text.
func msgOf(err error) string {
	if e, ok := err.(*scatter.Error); ok {
		return e.Msg
	}
	return err.Error()
}
