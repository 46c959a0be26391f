package scatter

import (
	"errors"
	"fmt"
)

// Code says which rule a call broke. Its String form is the line protocol's
// error kind. A Code is itself an error, so that
//
//	errors.Is(err, scatter.ErrIndexOutOfRange)
//
// tests the code of any *Error, as io/fs tests its sentinel errors.
type Code uint8

// The codes. All but ErrNotSupported are the protocol's error kinds;
// ErrNotSupported is its "unsupported" answer: the implementation does not
// offer the call, which is not a rejection by PyTorch's rules.
const (
	ErrDimOutOfRange    Code = iota + 1 // dim outside [-n, n-1]
	ErrIndexDType                       // the index has a dtype the operation does not take
	ErrDTypeMismatch                    // src/source dtype differs from self
	ErrShapeMismatch                    // a rank or size rule between the tensors fails
	ErrIndexOutOfRange                  // an index value outside [0, size)
	ErrUnsupportedDType                 // the operation or reduction does not take this dtype
	ErrInvalidArgument                  // an unknown reduce, a bad dim_size, a malformed tensor, any other bad argument
	ErrValueOverflow                    // a scalar that does not fit the tensor's dtype
	ErrNotSupported                     // the implementation does not offer this call
)

// Codes lists the protocol's error kinds (ErrNotSupported excluded).
var Codes = []Code{ErrDimOutOfRange, ErrIndexDType, ErrDTypeMismatch, ErrShapeMismatch,
	ErrIndexOutOfRange, ErrUnsupportedDType, ErrInvalidArgument, ErrValueOverflow}

var codeNames = [...]string{
	0:                   "none",
	ErrDimOutOfRange:    "dim_out_of_range",
	ErrIndexDType:       "index_dtype",
	ErrDTypeMismatch:    "dtype_mismatch",
	ErrShapeMismatch:    "shape_mismatch",
	ErrIndexOutOfRange:  "index_out_of_range",
	ErrUnsupportedDType: "unsupported_dtype",
	ErrInvalidArgument:  "invalid_argument",
	ErrValueOverflow:    "value_overflow",
	ErrNotSupported:     "unsupported",
}

// String returns the protocol's name of the code.
func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", uint8(c))
}

// Error returns the protocol's name of the code.
func (c Code) Error() string { return c.String() }

// ParseCode returns the code with the protocol name s.
func ParseCode(s string) (Code, error) {
	for c := ErrDimOutOfRange; c <= ErrNotSupported; c++ {
		if codeNames[c] == s {
			return c, nil
		}
	}
	return 0, Errorf(ErrInvalidArgument, "unknown error kind %q", s)
}

// Error is a rejected call: the rule broken, as a Code, and a message for
// people. Messages are never compared; codes are.
type Error struct {
	Code Code
	Msg  string
}

// Errorf returns an *Error with code c and a formatted message.
func Errorf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Msg: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Msg }

// Unwrap returns the code, so errors.Is(err, code) works.
func (e *Error) Unwrap() error { return e.Code }

// CodeOf returns the code of err: the Code of the first *Error or Code in
// its chain, or 0 if there is none (or err is nil).
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var c Code
	if errors.As(err, &c) {
		return c
	}
	return 0
}
