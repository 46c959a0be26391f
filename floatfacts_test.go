package scatter

import (
	"math"
	"testing"
)

// TestFactsOf checks each float dtype's landmarks against the values its
// bit patterns give: the smallest and largest subnormal and the smallest
// normal and largest finite, decoded by the dtype's own conversion, and
// that one step below MinNorm is MaxSub.
func TestFactsOf(t *testing.T) {
	bits := map[DType]func(uint64) float64{
		DTFloat16:  func(b uint64) float64 { return Float16(b).Float64() },
		DTBFloat16: func(b uint64) float64 { return BFloat16(b).Float64() },
		DTFloat32:  func(b uint64) float64 { return float64(math.Float32frombits(uint32(b))) },
		DTFloat64:  math.Float64frombits,
	}
	// the patterns of MinSub, MaxSub, MinNorm and Max
	patterns := map[DType][4]uint64{
		DTFloat16:  {0x0001, 0x03ff, 0x0400, 0x7bff},
		DTBFloat16: {0x0001, 0x007f, 0x0080, 0x7f7f},
		DTFloat32:  {0x1, 0x7fffff, 0x800000, 0x7f7fffff},
		DTFloat64:  {0x1, 0xfffffffffffff, 0x10000000000000, 0x7fefffffffffffff},
	}
	for dt, p := range patterns {
		f := FactsOf(dt)
		want := [4]float64{bits[dt](p[0]), bits[dt](p[1]), bits[dt](p[2]), bits[dt](p[3])}
		if got := [4]float64{f.MinSub, f.MaxSub, f.MinNorm, f.Max}; got != want {
			t.Errorf("%s: landmarks %v, want %v", dt, got, want)
		}
		if f.MinNorm != math.Ldexp(1, f.EMin) || math.Ilogb(f.Max) != f.EMax {
			t.Errorf("%s: EMin %d, EMax %d do not fit %v, %v", dt, f.EMin, f.EMax, f.MinNorm, f.Max)
		}
	}
	if FactsOf(DTInt32) != FactsOf(DTFloat64) {
		t.Error("a non-float dtype should get float64's landmarks")
	}
}
