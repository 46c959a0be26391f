package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/scatterconf/scatter"
)

// Scalar is the wire form of a scatter.Scalar (scatter's value,
// torch_scatter's fill_value):
//
//	3          a Python int   (an integer literal)
//	2.0  1e3   a Python float (a literal with '.', 'e' or 'E')
//	"nan" "inf" "-inf"        Python floats
//	true false                a Python bool
//
// Convert with Scalar(s) and scatter.Scalar(w).
type Scalar scatter.Scalar

// MarshalJSON writes the scalar as EncodeScalar does.
func (s Scalar) MarshalJSON() ([]byte, error) { return EncodeScalar(scatter.Scalar(s)), nil }

// UnmarshalJSON reads a scalar as DecodeScalar does.
func (s *Scalar) UnmarshalJSON(b []byte) error {
	v, err := DecodeScalar(b)
	if err != nil {
		return err
	}
	*s = Scalar(v)
	return nil
}

// EncodeScalar returns the JSON form of s: an int as an integer literal, a
// float as a number with a '.' or an exponent (2.0, not 2) or one of the
// strings "nan", "inf", "-inf", a bool as true or false.
func EncodeScalar(s scatter.Scalar) []byte {
	switch {
	case s.IsBool():
		if s.Int64() != 0 {
			return []byte("true")
		}
		return []byte("false")
	case s.IsFloat():
		f := s.Float64()
		switch {
		case math.IsNaN(f):
			return []byte(`"nan"`)
		case math.IsInf(f, 1):
			return []byte(`"inf"`)
		case math.IsInf(f, -1):
			return []byte(`"-inf"`)
		}
		b := strconv.AppendFloat(nil, f, 'g', -1, 64)
		if !bytes.ContainsAny(b, ".eE") {
			b = append(b, ".0"...)
		}
		return b
	}
	return strconv.AppendInt(nil, s.Int64(), 10)
}

// DecodeScalar reads the JSON form of a scalar (see Scalar). Anything else,
// including an integer literal outside int64 and a number outside float64's
// range, is an *scatter.Error with code ErrInvalidArgument.
func DecodeScalar(b []byte) (scatter.Scalar, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return scatter.Scalar{}, scatter.Errorf(scatter.ErrInvalidArgument, "empty scalar")
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return scatter.Scalar{}, scatter.Errorf(scatter.ErrInvalidArgument, "malformed scalar string: %v", err)
		}
		switch s {
		case "nan":
			return scatter.Float(math.NaN()), nil
		case "inf":
			return scatter.Float(math.Inf(1)), nil
		case "-inf":
			return scatter.Float(math.Inf(-1)), nil
		}
		return scatter.Scalar{}, scatter.Errorf(scatter.ErrInvalidArgument, "scalar string %q is not \"nan\", \"inf\" or \"-inf\"", clip(s))
	case 't', 'f':
		switch string(b) {
		case "true":
			return scatter.Bool(true), nil
		case "false":
			return scatter.Bool(false), nil
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if !json.Valid(b) {
			break
		}
		if bytes.ContainsAny(b, ".eE") {
			f, err := strconv.ParseFloat(string(b), 64)
			if err != nil {
				return scatter.Scalar{}, scatter.Errorf(scatter.ErrInvalidArgument, "float scalar %s is outside float64's range", clip(string(b)))
			}
			return scatter.Float(f), nil
		}
		i, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return scatter.Scalar{}, scatter.Errorf(scatter.ErrInvalidArgument, "integer scalar %s is outside int64's range", clip(string(b)))
			}
			break
		}
		return scatter.Int(i), nil
	}
	return scatter.Scalar{}, scatter.Errorf(scatter.ErrInvalidArgument, "scalar %s is not a number, \"nan\", \"inf\", \"-inf\", true or false", clip(string(b)))
}

// clip shortens s for a message.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
