package protocol

import (
	"encoding/base64"
	"encoding/binary"
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
type Tensor struct {
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  string `json:"data"`
}

// EncodeTensor returns the wire form of t, which may be any valid view
// (strided, offset, expanded). An invalid tensor is an *scatter.Error with
// code ErrInvalidArgument.
func EncodeTensor(t scatter.Tensor) (Tensor, error) {
	if err := t.Validate(); err != nil {
		return Tensor{}, err
	}
	raw := tensorBytes(t)
	return Tensor{
		DType: t.DType().String(),
		Shape: append(make([]int, 0, len(t.Shape)), t.Shape...),
		Data:  base64.StdEncoding.EncodeToString(raw),
	}, nil
}

// tensorBytes returns the little-endian bytes of a valid tensor's elements
// in row-major order.
func tensorBytes(t scatter.Tensor) []byte {
	pos := t.Positions()
	dt := t.DType()
	b := make([]byte, len(pos)*dt.Size())
	le := binary.LittleEndian
	switch d := t.Data.(type) {
	case []bool:
		for i, p := range pos {
			if d[p] {
				b[i] = 1
			}
		}
	case []uint8:
		for i, p := range pos {
			b[i] = d[p]
		}
	case []int8:
		for i, p := range pos {
			b[i] = uint8(d[p])
		}
	case []int16:
		for i, p := range pos {
			le.PutUint16(b[2*i:], uint16(d[p]))
		}
	case []int32:
		for i, p := range pos {
			le.PutUint32(b[4*i:], uint32(d[p]))
		}
	case []int64:
		for i, p := range pos {
			le.PutUint64(b[8*i:], uint64(d[p]))
		}
	case []scatter.Float16:
		for i, p := range pos {
			le.PutUint16(b[2*i:], uint16(d[p]))
		}
	case []scatter.BFloat16:
		for i, p := range pos {
			le.PutUint16(b[2*i:], uint16(d[p]))
		}
	case []float32:
		for i, p := range pos {
			le.PutUint32(b[4*i:], math.Float32bits(d[p]))
		}
	case []float64:
		for i, p := range pos {
			le.PutUint64(b[8*i:], math.Float64bits(d[p]))
		}
	}
	return b
}

// DecodeTensor returns the contiguous tensor that w describes, under the
// default Limits. See Limits.DecodeTensor.
func DecodeTensor(w Tensor) (scatter.Tensor, error) { return Limits{}.DecodeTensor(w) }

// DecodeTensor returns the contiguous tensor that w describes. An unknown
// dtype, a missing, negative or overflowing shape, more than MaxDims
// dimensions, more than MaxTensorBytes of data, and base64 that is
// malformed or does not hold exactly shape × element size bytes are each an
// *scatter.Error with code ErrInvalidArgument. Nothing is allocated before
// the sizes are checked.
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
	if int64(n) > b.left/size {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: shape %v of %v needs more than the %d tensor bytes left of the limit %d", name, w.Shape, dt, b.left, b.lim.maxTensor())
	}
	nbytes := n * int(size)
	if enc := base64.StdEncoding.EncodedLen(nbytes); len(w.Data) != enc {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: data has %d base64 characters, shape %v of %v needs %d", name, len(w.Data), w.Shape, dt, enc)
	}
	// DecodedLen is at most nbytes+2: the check above bounds it.
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(w.Data)))
	got, err := base64.StdEncoding.Strict().Decode(raw, []byte(w.Data))
	if err != nil {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: malformed base64 data: %v", name, err)
	}
	if got != nbytes {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: data holds %d bytes, shape %v of %v needs %d", name, got, w.Shape, dt, nbytes)
	}
	b.left -= int64(nbytes)
	data, err := fromBytes(dt, raw[:nbytes], n)
	if err != nil {
		return scatter.Tensor{}, scatter.Errorf(scatter.ErrInvalidArgument, "%s: %s", name, msgOf(err))
	}
	return scatter.Tensor{Shape: append(make([]int, 0, len(w.Shape)), w.Shape...), Data: data}, nil
}

// fromBytes returns the n elements of type dt held little-endian in raw,
// whose length the caller has checked.
func fromBytes(dt scatter.DType, raw []byte, n int) (any, error) {
	le := binary.LittleEndian
	switch dt {
	case scatter.DTBool:
		d := make([]bool, n)
		for i, c := range raw {
			switch c {
			case 0:
			case 1:
				d[i] = true
			default:
				return nil, scatter.Errorf(scatter.ErrInvalidArgument, "bool element %d is the byte %d, not 0 or 1", i, c)
			}
		}
		return d, nil
	case scatter.DTUint8:
		return append(make([]uint8, 0, n), raw...), nil
	case scatter.DTInt8:
		d := make([]int8, n)
		for i, c := range raw {
			d[i] = int8(c)
		}
		return d, nil
	case scatter.DTInt16:
		d := make([]int16, n)
		for i := range d {
			d[i] = int16(le.Uint16(raw[2*i:]))
		}
		return d, nil
	case scatter.DTInt32:
		d := make([]int32, n)
		for i := range d {
			d[i] = int32(le.Uint32(raw[4*i:]))
		}
		return d, nil
	case scatter.DTInt64:
		d := make([]int64, n)
		for i := range d {
			d[i] = int64(le.Uint64(raw[8*i:]))
		}
		return d, nil
	case scatter.DTFloat16:
		d := make([]scatter.Float16, n)
		for i := range d {
			d[i] = scatter.Float16(le.Uint16(raw[2*i:]))
		}
		return d, nil
	case scatter.DTBFloat16:
		d := make([]scatter.BFloat16, n)
		for i := range d {
			d[i] = scatter.BFloat16(le.Uint16(raw[2*i:]))
		}
		return d, nil
	case scatter.DTFloat32:
		d := make([]float32, n)
		for i := range d {
			d[i] = math.Float32frombits(le.Uint32(raw[4*i:]))
		}
		return d, nil
	case scatter.DTFloat64:
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
		}
		return d, nil
	}
	return nil, scatter.Errorf(scatter.ErrInvalidArgument, "invalid dtype %v", dt)
}

// msgOf returns the message of a *scatter.Error, or err's text.
func msgOf(err error) string {
	if e, ok := err.(*scatter.Error); ok {
		return e.Msg
	}
	return err.Error()
}
