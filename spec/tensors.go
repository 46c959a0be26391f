package spec

import (
	"math"

	"github.com/scatterconf/scatter"
)

// Constructors for the tables: 1-d tensors of each dtype, reshaped with
// shape (which also makes 0-d tensors: shape(x)).

func f32(v ...float32) scatter.Tensor { return scatter.FromSlice(v) }
func f64(v ...float64) scatter.Tensor { return scatter.FromSlice(v) }
func i64(v ...int64) scatter.Tensor   { return scatter.FromSlice(v) }
func i32(v ...int32) scatter.Tensor   { return scatter.FromSlice(v) }
func i16(v ...int16) scatter.Tensor   { return scatter.FromSlice(v) }
func i8(v ...int8) scatter.Tensor     { return scatter.FromSlice(v) }
func u8(v ...uint8) scatter.Tensor    { return scatter.FromSlice(v) }
func bools(v ...bool) scatter.Tensor  { return scatter.FromSlice(v) }

// f16 and bf16 round each value to the 16-bit format.
func f16(v ...float64) scatter.Tensor {
	h := make([]scatter.Float16, len(v))
	for i, x := range v {
		h[i] = scatter.Float16FromFloat64(x)
	}
	return scatter.FromSlice(h)
}

func bf16(v ...float64) scatter.Tensor {
	h := make([]scatter.BFloat16, len(v))
	for i, x := range v {
		h[i] = scatter.BFloat16FromFloat64(x)
	}
	return scatter.FromSlice(h)
}

// shape returns t (contiguous) viewed with a new shape of the same size.
func shape(t scatter.Tensor, s ...int) scatter.Tensor {
	if s == nil {
		s = []int{}
	}
	return scatter.Tensor{Shape: s, Data: t.Data}
}

// full returns a contiguous tensor of the given shape filled with v,
// converted to dt.
func full(dt scatter.DType, v float64, s ...int) scatter.Tensor {
	t, err := scatter.Zeros(dt, s...)
	if err != nil {
		panic(err)
	}
	switch d := t.Data.(type) {
	case []bool:
		for i := range d {
			d[i] = v != 0
		}
	case []uint8:
		for i := range d {
			d[i] = uint8(v)
		}
	case []int8:
		for i := range d {
			d[i] = int8(v)
		}
	case []int16:
		for i := range d {
			d[i] = int16(v)
		}
	case []int32:
		for i := range d {
			d[i] = int32(v)
		}
	case []int64:
		for i := range d {
			d[i] = int64(v)
		}
	case []scatter.Float16:
		for i := range d {
			d[i] = scatter.Float16FromFloat64(v)
		}
	case []scatter.BFloat16:
		for i := range d {
			d[i] = scatter.BFloat16FromFloat64(v)
		}
	case []float32:
		for i := range d {
			d[i] = float32(v)
		}
	case []float64:
		for i := range d {
			d[i] = v
		}
	}
	return t
}

// arange returns [start, start+1, ...) of n elements of dtype dt.
func arange(dt scatter.DType, start float64, n int) scatter.Tensor {
	t := full(dt, 0, n)
	for i := 0; i < n; i++ {
		setAt(t, i, start+float64(i))
	}
	return t
}

// setAt stores v, converted, at data position i.
func setAt(t scatter.Tensor, i int, v float64) { scatter.SetFloat(t.Data, i, v) }

var (
	nan  = math.NaN()
	inf  = math.Inf(1)
	ninf = math.Inf(-1)
	negz = math.Copysign(0, -1)
)
