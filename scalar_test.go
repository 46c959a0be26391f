package scatter_test

import (
	"math"
	"testing"

	"github.com/scatterconf/scatter"
)

func TestScalarString(t *testing.T) {
	for _, c := range []struct {
		name string
		s    scatter.Scalar
		want string // as Python's repr writes it
	}{
		{"zero-value", scatter.Scalar{}, "0"},
		{"int/3", scatter.Int(3), "3"},
		{"int/-7", scatter.Int(-7), "-7"},
		{"int/min", scatter.Int(math.MinInt64), "-9223372036854775808"},
		{"int/max", scatter.Int(math.MaxInt64), "9223372036854775807"},
		{"float/2.5", scatter.Float(2.5), "2.5"},
		{"float/2", scatter.Float(2), "2.0"},
		{"float/0", scatter.Float(0), "0.0"},
		{"float/-0", scatter.Float(math.Copysign(0, -1)), "-0.0"},
		{"float/-1.5", scatter.Float(-1.5), "-1.5"},
		{"float/0.1", scatter.Float(0.1), "0.1"},
		{"float/1÷3", scatter.Float(1.0 / 3), "0.3333333333333333"},
		{"float/100", scatter.Float(100), "100.0"},
		{"float/65504", scatter.Float(65504), "65504.0"},
		{"float/1e6", scatter.Float(1e6), "1000000.0"},
		{"float/123456789", scatter.Float(123456789), "123456789.0"},
		{"float/1e15", scatter.Float(1e15), "1000000000000000.0"},
		{"float/1234567890123456.8", scatter.Float(1.2345678901234567e15), "1234567890123456.8"},
		{"float/9999999999999998", scatter.Float(9999999999999998), "9999999999999998.0"},
		{"float/1e16", scatter.Float(1e16), "1e+16"},
		{"float/-1e16", scatter.Float(-1e16), "-1e+16"},
		{"float/1e22", scatter.Float(1e22), "1e+22"},
		{"float/1.5e300", scatter.Float(1.5e300), "1.5e+300"},
		{"float/max", scatter.Float(math.MaxFloat64), "1.7976931348623157e+308"},
		{"float/1e-4", scatter.Float(1e-4), "0.0001"},
		{"float/1e-5", scatter.Float(1e-5), "1e-05"},
		{"float/2.5e-7", scatter.Float(2.5e-7), "2.5e-07"},
		{"float/smallest", scatter.Float(math.SmallestNonzeroFloat64), "5e-324"},
		{"float/nan", scatter.Float(math.NaN()), "nan"},
		{"float/-nan", scatter.Float(math.Copysign(math.NaN(), -1)), "nan"},
		{"float/inf", scatter.Float(math.Inf(1)), "inf"},
		{"float/-inf", scatter.Float(math.Inf(-1)), "-inf"},
		{"bool/true", scatter.Bool(true), "True"},
		{"bool/false", scatter.Bool(false), "False"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.s.String(); got != c.want {
				t.Errorf("String() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestScalarAccessors(t *testing.T) {
	for _, c := range []struct {
		name          string
		s             scatter.Scalar
		isFloat, bool bool
		i             int64
		f             float64
	}{
		{"zero-value", scatter.Scalar{}, false, false, 0, 0},
		{"int/-3", scatter.Int(-3), false, false, -3, -3},
		{"int/2^53+1", scatter.Int(1<<53 + 1), false, false, 1<<53 + 1, 1 << 53},
		{"float/-2.75", scatter.Float(-2.75), true, false, -2, -2.75},
		{"float/2.75", scatter.Float(2.75), true, false, 2, 2.75},
		{"bool/true", scatter.Bool(true), false, true, 1, 1},
		{"bool/false", scatter.Bool(false), false, true, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.s.IsFloat() != c.isFloat || c.s.IsBool() != c.bool {
				t.Errorf("IsFloat, IsBool = %v, %v; want %v, %v", c.s.IsFloat(), c.s.IsBool(), c.isFloat, c.bool)
			}
			if got := c.s.Int64(); got != c.i {
				t.Errorf("Int64() = %d, want %d", got, c.i)
			}
			if got := c.s.Float64(); got != c.f {
				t.Errorf("Float64() = %v, want %v", got, c.f)
			}
		})
	}
	if v := scatter.Float(math.NaN()).Float64(); !math.IsNaN(v) {
		t.Errorf("Float(NaN).Float64() = %v", v)
	}
	if scatter.Int(0) != (scatter.Scalar{}) {
		t.Error("Int(0) is not the zero Scalar")
	}
}
