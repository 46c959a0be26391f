package scatter

import "fmt"

// DType is the element type of a tensor. Its String form is the name the
// line protocol uses ("float32", "bfloat16", ...), which is PyTorch's name
// without the "torch." prefix.
type DType uint8

// The element types of the suite. The Go type that holds each in
// Tensor.Data is given beside it.
const (
	DTInvalid  DType = iota // the zero value; no tensor has it
	DTBool                  // []bool
	DTUint8                 // []uint8
	DTInt8                  // []int8
	DTInt16                 // []int16
	DTInt32                 // []int32
	DTInt64                 // []int64
	DTFloat16               // []Float16 (IEEE binary16 bit patterns)
	DTBFloat16              // []BFloat16 (bfloat16 bit patterns)
	DTFloat32               // []float32
	DTFloat64               // []float64
)

// DTypes lists every valid DType in the protocol's order.
var DTypes = []DType{DTBool, DTUint8, DTInt8, DTInt16, DTInt32, DTInt64, DTFloat16, DTBFloat16, DTFloat32, DTFloat64}

var dtypeNames = [...]string{
	DTInvalid:  "invalid",
	DTBool:     "bool",
	DTUint8:    "uint8",
	DTInt8:     "int8",
	DTInt16:    "int16",
	DTInt32:    "int32",
	DTInt64:    "int64",
	DTFloat16:  "float16",
	DTBFloat16: "bfloat16",
	DTFloat32:  "float32",
	DTFloat64:  "float64",
}

// String returns the protocol's name of d.
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// ParseDType returns the DType with the protocol name s. An unknown name is
// an *Error with code ErrInvalidArgument.
func ParseDType(s string) (DType, error) {
	for _, d := range DTypes {
		if dtypeNames[d] == s {
			return d, nil
		}
	}
	return DTInvalid, Errorf(ErrInvalidArgument, "unknown dtype %q", s)
}

// Valid reports whether d is one of DTypes.
func (d DType) Valid() bool { return d >= DTBool && d <= DTFloat64 }

// Size returns the number of bytes of one element in the protocol's encoding.
func (d DType) Size() int {
	switch d {
	case DTBool, DTUint8, DTInt8:
		return 1
	case DTInt16, DTFloat16, DTBFloat16:
		return 2
	case DTInt32, DTFloat32:
		return 4
	case DTInt64, DTFloat64:
		return 8
	}
	return 0
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool {
	return d == DTFloat16 || d == DTBFloat16 || d == DTFloat32 || d == DTFloat64
}

// IsInt reports whether d is an integer type (bool excluded).
func (d DType) IsInt() bool { return d >= DTUint8 && d <= DTInt64 }

// IsIndex reports whether d can hold indices in some operation (int32 or int64).
func (d DType) IsIndex() bool { return d == DTInt32 || d == DTInt64 }
