package protocol

import (
	"encoding/base64"
	"encoding/binary"
	"math"

	"github.com/scatterconf/scatter"
)

// decodeChars is how many base64 characters decodeElements decodes at a
// time: a multiple of 4 whose 3/4 is a multiple of every element size.
const decodeChars = 64 << 10

// decodeElements returns the n elements of type dt whose little-endian
// bytes data holds as standard base64 with padding; the caller has checked
// that data has the length that n elements encode to. It decodes a chunk
// at a time into a small buffer, so that a tensor of a long line costs its
// elements and not its bytes beside them. Base64 that is malformed (a
// padding before the end included) or that holds other than n elements'
// bytes, and a bool byte other than 0 or 1, are each an *scatter.Error.
func decodeElements(dt scatter.DType, data string, n int) (any, error) {
	switch dt {
	case scatter.DTBool:
		return decodeInto(data, make([]bool, n), 1, func(d []bool, raw []byte) int {
			for i, c := range raw {
				switch c {
				case 0:
				case 1:
					d[i] = true
				default:
					return i
				}
			}
			return -1
		})
	case scatter.DTUint8:
		return decodeInto(data, make([]uint8, n), 1, le8[uint8])
	case scatter.DTInt8:
		return decodeInto(data, make([]int8, n), 1, le8[int8])
	case scatter.DTInt16:
		return decodeInto(data, make([]int16, n), 2, le16[int16])
	case scatter.DTFloat16:
		return decodeInto(data, make([]scatter.Float16, n), 2, le16[scatter.Float16])
	case scatter.DTBFloat16:
		return decodeInto(data, make([]scatter.BFloat16, n), 2, le16[scatter.BFloat16])
	case scatter.DTInt32:
		return decodeInto(data, make([]int32, n), 4, le32[int32])
	case scatter.DTInt64:
		return decodeInto(data, make([]int64, n), 8, le64[int64])
	case scatter.DTFloat32:
		return decodeInto(data, make([]float32, n), 4, func(d []float32, raw []byte) int {
			for i := range len(raw) / 4 {
				d[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
			return -1
		})
	case scatter.DTFloat64:
		return decodeInto(data, make([]float64, n), 8, func(d []float64, raw []byte) int {
			for i := range len(raw) / 8 {
				d[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
			return -1
		})
	}
	return nil, scatter.Errorf(scatter.ErrInvalidArgument, "invalid dtype %v", dt)
}

// decodeInto fills d, whose elements are size bytes each, from data a
// chunk at a time; put converts one chunk's bytes into d's elements and
// returns the index of an element it rejects, or -1.
func decodeInto[T any](data string, d []T, size int, put func(d []T, raw []byte) int) (any, error) {
	enc := base64.StdEncoding.Strict()
	want := len(d) * size
	src := make([]byte, min(decodeChars, len(data)))
	dst := make([]byte, enc.DecodedLen(len(src)))
	done := 0 // bytes decoded so far
	for off := 0; off < len(data); off += decodeChars {
		chunk := src[:copy(src, data[off:])]
		got, err := enc.Decode(dst, chunk)
		if ce, ok := err.(base64.CorruptInputError); ok {
			err = base64.CorruptInputError(int64(ce) + int64(off))
		}
		if err != nil {
			return nil, scatter.Errorf(scatter.ErrInvalidArgument, "malformed base64 data: %v", err)
		}
		if off+len(chunk) < len(data) && got != len(chunk)/4*3 {
			// a padding that ends a chunk before the end of the data
			return nil, scatter.Errorf(scatter.ErrInvalidArgument, "malformed base64 data: %v", base64.CorruptInputError(off+len(chunk)))
		}
		if done+got > want {
			break // reported below, before put could write past d
		}
		if bad := put(d[done/size:], dst[:got]); bad >= 0 {
			return nil, scatter.Errorf(scatter.ErrInvalidArgument, "bool element %d is the byte %d, not 0 or 1", done/size+bad, dst[bad*size])
		}
		done += got
	}
	if done != want {
		return nil, scatter.Errorf(scatter.ErrInvalidArgument, "data does not hold exactly the %d bytes of %d elements of %d bytes", want, len(d), size)
	}
	return d, nil
}

// le8, le16, le32 and le64 convert little-endian bytes into integer-like
// elements (bit patterns for the 16-bit floats), for decodeInto.
func le8[T ~int8 | ~uint8](d []T, raw []byte) int {
	for i, c := range raw {
		d[i] = T(c)
	}
	return -1
}

func le16[T ~int16 | ~uint16](d []T, raw []byte) int {
	for i := range len(raw) / 2 {
		d[i] = T(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	return -1
}

func le32[T ~int32 | ~uint32](d []T, raw []byte) int {
	for i := range len(raw) / 4 {
		d[i] = T(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return -1
}

func le64[T ~int64 | ~uint64](d []T, raw []byte) int {
	for i := range len(raw) / 8 {
		d[i] = T(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return -1
}
