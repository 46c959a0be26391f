package scatter

import "math"

// Float16 is an IEEE 754 binary16 value held as its bit pattern: 1 sign bit,
// 5 exponent bits (bias 15), 10 fraction bits. It is PyTorch's torch.float16.
type Float16 uint16

// BFloat16 is a bfloat16 value held as its bit pattern: the top 16 bits of a
// float32 (1 sign bit, 8 exponent bits, 7 fraction bits). It is PyTorch's
// torch.bfloat16.
type BFloat16 uint16

// half16 describes a 16-bit binary floating-point format.
type half16 struct {
	mant    int    // fraction bits
	bias    int    // exponent bias
	expMask uint16 // the exponent field, all ones
	nan     uint16 // the NaN produced by a conversion, before the sign
	keepNaN bool   // whether a NaN keeps its sign bit
}

var (
	fmtFloat16  = half16{mant: 10, bias: 15, expMask: 0x7c00, nan: 0x7e00, keepNaN: true}
	fmtBFloat16 = half16{mant: 7, bias: 127, expMask: 0x7f80, nan: 0x7fc0, keepNaN: false}
)

// decode returns the exact value of the bit pattern b.
func (f half16) decode(b uint16) float64 {
	sign := 1.0
	if b&0x8000 != 0 {
		sign = -1
	}
	e := int(b&f.expMask) >> f.mant
	m := float64(b & (1<<f.mant - 1))
	switch {
	case e == int(f.expMask>>f.mant):
		if m != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	case e == 0:
		return sign * math.Ldexp(m, 1-f.bias-f.mant)
	}
	return sign * math.Ldexp(m+float64(int(1)<<f.mant), e-f.bias-f.mant)
}

// encode rounds x to the nearest value of the format, ties to even, in one
// rounding (no detour through float32, which would round twice). Values too
// large for the format become infinities. A NaN becomes the format's
// canonical NaN, as PyTorch's c10 conversions produce it: float16 keeps the
// sign (0x7e00 | sign), bfloat16 gives 0x7fc0.
func (f half16) encode(x float64) uint16 {
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
	}
	if math.IsNaN(x) {
		if f.keepNaN {
			return sign | f.nan
		}
		return f.nan
	}
	a := math.Abs(x)
	emin := 1 - f.bias
	if a < math.Ldexp(1, emin) {
		// Subnormal range: count units of the smallest subnormal. The
		// scaling is by a power of two, hence exact; a result of 1<<mant
		// is the encoding of the smallest normal number, as it should be.
		q := math.RoundToEven(math.Ldexp(a, f.bias-1+f.mant))
		return sign | uint16(q)
	}
	if math.IsInf(a, 0) {
		return sign | f.expMask
	}
	_, e := math.Frexp(a) // a = m * 2^e with m in [0.5, 1)
	e--                   // a in [2^e, 2^(e+1))
	q := math.RoundToEven(math.Ldexp(a, f.mant-e))
	if q == float64(int(2)<<f.mant) {
		q /= 2
		e++
	}
	if e > f.bias {
		return sign | f.expMask
	}
	return sign | uint16(e+f.bias)<<f.mant | uint16(q)&(1<<f.mant-1)
}

// Float16FromFloat64 rounds x to the nearest float16, ties to even.
func Float16FromFloat64(x float64) Float16 { return Float16(fmtFloat16.encode(x)) }

// Float16FromFloat32 rounds x to the nearest float16, ties to even.
func Float16FromFloat32(x float32) Float16 { return Float16(fmtFloat16.encode(float64(x))) }

// Float64 returns the exact value of h.
func (h Float16) Float64() float64 { return fmtFloat16.decode(uint16(h)) }

// Float32 returns the exact value of h.
func (h Float16) Float32() float32 { return float32(fmtFloat16.decode(uint16(h))) }

// IsNaN reports whether h is a NaN.
func (h Float16) IsNaN() bool { return h&0x7c00 == 0x7c00 && h&0x3ff != 0 }

// BFloat16FromFloat64 rounds x to the nearest bfloat16, ties to even.
func BFloat16FromFloat64(x float64) BFloat16 { return BFloat16(fmtBFloat16.encode(x)) }

// BFloat16FromFloat32 rounds x to the nearest bfloat16, ties to even.
func BFloat16FromFloat32(x float32) BFloat16 { return BFloat16(fmtBFloat16.encode(float64(x))) }

// Float64 returns the exact value of b.
func (b BFloat16) Float64() float64 { return fmtBFloat16.decode(uint16(b)) }

// Float32 returns the exact value of b.
func (b BFloat16) Float32() float32 { return float32(fmtBFloat16.decode(uint16(b))) }

// IsNaN reports whether b is a NaN.
func (b BFloat16) IsNaN() bool { return b&0x7f80 == 0x7f80 && b&0x7f != 0 }
