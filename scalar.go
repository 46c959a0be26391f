package scatter

import (
	"math"
	"strconv"
	"strings"
)

// Scalar is a Python number passed to an operation (scatter's value,
// torch_scatter's fill_value). Whether it was written as an int, a float or
// a bool matters to PyTorch's checked conversion, so the kind is kept. The
// zero value is the int 0.
type Scalar struct {
	kind scalarKind
	i    int64
	f    float64
}

type scalarKind uint8

const (
	scalarInt scalarKind = iota
	scalarFloat
	scalarBool
)

// Int returns the Python int v.
func Int(v int64) Scalar { return Scalar{kind: scalarInt, i: v} }

// Float returns the Python float v.
func Float(v float64) Scalar { return Scalar{kind: scalarFloat, f: v} }

// Bool returns the Python bool v.
func Bool(v bool) Scalar {
	if v {
		return Scalar{kind: scalarBool, i: 1}
	}
	return Scalar{kind: scalarBool}
}

// IsFloat reports whether s is a Python float.
func (s Scalar) IsFloat() bool { return s.kind == scalarFloat }

// IsBool reports whether s is a Python bool.
func (s Scalar) IsBool() bool { return s.kind == scalarBool }

// Int64 returns the value of an int or bool scalar (a float is truncated
// toward zero; use Float64 for floats).
func (s Scalar) Int64() int64 {
	if s.kind == scalarFloat {
		return int64(s.f)
	}
	return s.i
}

// Float64 returns the value of s as a float64 (an int is rounded to nearest).
func (s Scalar) Float64() float64 {
	if s.kind == scalarFloat {
		return s.f
	}
	return float64(s.i)
}

// String writes s as Python would: 3, 2.5, nan, inf, -inf, True, False.
func (s Scalar) String() string {
	switch s.kind {
	case scalarBool:
		if s.i != 0 {
			return "True"
		}
		return "False"
	case scalarFloat:
		switch {
		case math.IsNaN(s.f):
			return "nan"
		case math.IsInf(s.f, 1):
			return "inf"
		case math.IsInf(s.f, -1):
			return "-inf"
		}
		// Python's repr: the shortest digits, in exponent form when the
		// decimal exponent is below -4 or at least 16 (Go's shortest 'g'
		// switches at 6: 1e+06 where Python writes 1000000.0).
		str := strconv.FormatFloat(s.f, 'e', -1, 64)
		if exp, _ := strconv.Atoi(str[strings.LastIndexByte(str, 'e')+1:]); exp < -4 || exp >= 16 {
			return str
		}
		str = strconv.FormatFloat(s.f, 'f', -1, 64)
		if !strings.Contains(str, ".") {
			str += ".0"
		}
		return str
	}
	return strconv.FormatInt(s.i, 10)
}
