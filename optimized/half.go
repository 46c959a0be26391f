package optimized

import (
	"math"
	"sync"

	"github.com/scatterconf/scatter"
)

// Fast conversions for the 16-bit float types, bit-exact with the
// scatter package's (which go through math.Ldexp and are slow):
// decoding is a shift (bfloat16) or a table lookup (float16); encoding
// rounds a float64 to nearest even in one rounding, with the same NaN
// rules (float16 keeps the sign, bfloat16 gives 0x7fc0).

// f16tab holds the float32 value of every float16 bit pattern.
var (
	f16tab     [1 << 16]float32
	f16tabOnce sync.Once
)

func initF16tab() {
	f16tabOnce.Do(func() {
		for i := range f16tab {
			f16tab[i] = scatter.Float16(i).Float32()
		}
	})
}

// half says which 16-bit format a kernel works on and how it rounds.
type half struct {
	bf bool // bfloat16, else float16
	// perStep: sums and products round to the 16-bit format after every
	// step (PyTorch 1.13, and index_reduce in every version); else they
	// accumulate in float32 and round once at the end.
	perStep bool
}

// dec returns the value of a 16-bit pattern as a float32 (exact).
func (h half) dec(x uint16) float32 {
	if h.bf {
		return math.Float32frombits(uint32(x) << 16)
	}
	return f16tab[x]
}

// enc rounds x to the nearest value of the format, ties to even.
func (h half) enc(x float64) uint16 {
	if h.bf {
		return bf16FromF64(x)
	}
	return f16FromF64(x)
}

// grid rounds x to the format and returns it as a float32 (exact: every
// 16-bit value is a float32).
func (h half) grid(x float64) float32 { return h.dec(h.enc(x)) }

// sigBits is the format's precision p.
func (h half) sigBits() int {
	if h.bf {
		return 8
	}
	return 11
}

// f16FromF64 is scatter.Float16FromFloat64 without floating-point library
// calls.
func f16FromF64(x float64) uint16 {
	b := math.Float64bits(x)
	sign := uint16(b>>48) & 0x8000
	e := int(b>>52) & 0x7ff
	m := b & (1<<52 - 1)
	if e == 0x7ff {
		if m != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	if e == 0 { // zero or a float64 subnormal: far below float16's range
		return sign
	}
	E := e - 1023
	full := m | 1<<52
	if E > 15 {
		return sign | 0x7c00
	}
	if E >= -14 { // normal: keep 10 fraction bits
		q := full >> 42
		rem := full & (1<<42 - 1)
		if rem > 1<<41 || (rem == 1<<41 && q&1 == 1) {
			q++
		}
		bits := uint32(E+15)<<10 + uint32(q) - 1024
		if bits >= 0x7c00 {
			return sign | 0x7c00
		}
		return sign | uint16(bits)
	}
	// subnormal: units of 2^-24
	shift := uint(28 - E) // >= 43
	if shift > 63 {
		return sign
	}
	q := full >> shift
	rem := full & (1<<shift - 1)
	halfu := uint64(1) << (shift - 1)
	if rem > halfu || (rem == halfu && q&1 == 1) {
		q++
	}
	return sign | uint16(q)
}

// bf16FromF32 rounds a float32 to bfloat16, ties to even, every NaN to
// 0x7fc0 (c10's rule): bf16FromF64(float64(x)) for every x, with float32's
// bits (bfloat16 is float32's upper half, subnormals included).
func bf16FromF32(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		return 0x7fc0
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// bf16FromF64 is scatter.BFloat16FromFloat64 without floating-point library
// calls.
func bf16FromF64(x float64) uint16 {
	b := math.Float64bits(x)
	sign := uint16(b>>48) & 0x8000
	e := int(b>>52) & 0x7ff
	m := b & (1<<52 - 1)
	if e == 0x7ff {
		if m != 0 {
			return 0x7fc0
		}
		return sign | 0x7f80
	}
	if e == 0 {
		return sign
	}
	E := e - 1023
	full := m | 1<<52
	if E > 127 {
		return sign | 0x7f80
	}
	if E >= -126 { // normal: keep 7 fraction bits
		q := full >> 45
		rem := full & (1<<45 - 1)
		if rem > 1<<44 || (rem == 1<<44 && q&1 == 1) {
			q++
		}
		bits := uint32(E+127)<<7 + uint32(q) - 128
		if bits >= 0x7f80 {
			return sign | 0x7f80
		}
		return sign | uint16(bits)
	}
	// subnormal: units of 2^-133
	shift := uint(-E - 81) // 52 - (E + 133); >= 46
	if shift > 63 {
		return sign
	}
	q := full >> shift
	rem := full & (1<<shift - 1)
	halfu := uint64(1) << (shift - 1)
	if rem > halfu || (rem == halfu && q&1 == 1) {
		q++
	}
	return sign | uint16(q)
}
