package scatter_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/scatterconf/scatter"
)

// half describes one of the two 16-bit formats for the exhaustive tests, with
// the package's conversions and an independent reference decoder.
type half struct {
	name     string
	mant     int    // fraction bits
	inf      uint16 // +Inf
	max      uint16 // the largest finite pattern
	decode   func(uint16) float64
	fromF64  func(float64) uint16
	fromF32  func(float32) uint16
	toF32    func(uint16) float32
	isNaN    func(uint16) bool
	refValue func(uint16) float64 // independent decoder
}

var halves = []half{
	{
		name: "float16", mant: 10, inf: 0x7c00, max: 0x7bff,
		decode:   func(b uint16) float64 { return scatter.Float16(b).Float64() },
		fromF64:  func(x float64) uint16 { return uint16(scatter.Float16FromFloat64(x)) },
		fromF32:  func(x float32) uint16 { return uint16(scatter.Float16FromFloat32(x)) },
		toF32:    func(b uint16) float32 { return scatter.Float16(b).Float32() },
		isNaN:    func(b uint16) bool { return scatter.Float16(b).IsNaN() },
		refValue: refFloat16Value,
	},
	{
		name: "bfloat16", mant: 7, inf: 0x7f80, max: 0x7f7f,
		decode:  func(b uint16) float64 { return scatter.BFloat16(b).Float64() },
		fromF64: func(x float64) uint16 { return uint16(scatter.BFloat16FromFloat64(x)) },
		fromF32: func(x float32) uint16 { return uint16(scatter.BFloat16FromFloat32(x)) },
		toF32:   func(b uint16) float32 { return scatter.BFloat16(b).Float32() },
		isNaN:   func(b uint16) bool { return scatter.BFloat16(b).IsNaN() },
		// A bfloat16 is the top half of a float32.
		refValue: func(b uint16) float64 { return float64(math.Float32frombits(uint32(b) << 16)) },
	},
}

// refFloat16Value decodes a binary16 pattern with integer arithmetic and a
// table-free power of two, independently of the package's decoder.
func refFloat16Value(b uint16) float64 {
	e := int(b>>10) & 0x1f
	f := int(b & 0x3ff)
	var v float64
	switch e {
	case 0x1f:
		if f != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	case 0:
		v = float64(f) / (1 << 24) // subnormal: f * 2^-24
	default:
		v = float64(1024+f) * math.Pow(2, float64(e-25))
	}
	if b&0x8000 != 0 {
		v = -v
	}
	return v
}

func (h half) isNaNPattern(b uint16) bool {
	return b&h.inf == h.inf && b&(1<<h.mant-1) != 0
}

func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

// TestHalfRoundTrip decodes every one of the 65,536 patterns and encodes it
// again, through float64 and through float32.
func TestHalfRoundTrip(t *testing.T) {
	for _, h := range halves {
		t.Run(h.name+"/patterns=all-65536", func(t *testing.T) {
			fails := 0
			fail := func(format string, args ...any) {
				t.Helper()
				if fails++; fails <= 10 {
					t.Errorf(format, args...)
				}
			}
			for i := 0; i < 1<<16; i++ {
				b := uint16(i)
				v := h.decode(b)
				if want := h.refValue(b); !sameFloat(v, want) {
					fail("0x%04x decodes to %v, the reference decoder says %v", b, v, want)
				}
				if f32 := h.toF32(b); !sameFloat(float64(f32), v) {
					fail("0x%04x: Float32() = %v, Float64() = %v", b, f32, v)
				}
				if got, want := h.isNaN(b), h.isNaNPattern(b); got != want {
					fail("0x%04x: IsNaN() = %v, want %v", b, got, want)
				}
				if h.isNaNPattern(b) {
					if !math.IsNaN(v) {
						fail("NaN pattern 0x%04x decodes to %v", b, v)
					}
					if e := h.fromF64(v); !h.isNaNPattern(e) {
						fail("NaN pattern 0x%04x re-encodes (float64) to non-NaN 0x%04x", b, e)
					}
					if e := h.fromF32(h.toF32(b)); !h.isNaNPattern(e) {
						fail("NaN pattern 0x%04x re-encodes (float32) to non-NaN 0x%04x", b, e)
					}
					continue
				}
				if e := h.fromF64(v); e != b {
					fail("0x%04x -> %v -> 0x%04x via float64", b, v, e)
				}
				if e := h.fromF32(h.toF32(b)); e != b {
					fail("0x%04x -> %v -> 0x%04x via float32", b, v, e)
				}
			}
			if fails > 10 {
				t.Errorf("... and %d more failures", fails-10)
			}
		})
	}
}

// TestHalfAnchors pins a few patterns to their well-known values.
func TestHalfAnchors(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"float16/0x0000", scatter.Float16(0x0000).Float64(), 0},
		{"float16/0x8000", scatter.Float16(0x8000).Float64(), math.Copysign(0, -1)},
		{"float16/0x0001", scatter.Float16(0x0001).Float64(), math.Ldexp(1, -24)},
		{"float16/0x03ff", scatter.Float16(0x03ff).Float64(), math.Ldexp(1023, -24)},
		{"float16/0x0400", scatter.Float16(0x0400).Float64(), math.Ldexp(1, -14)},
		{"float16/0x3c00", scatter.Float16(0x3c00).Float64(), 1},
		{"float16/0x3c01", scatter.Float16(0x3c01).Float64(), 1 + math.Ldexp(1, -10)},
		{"float16/0xc000", scatter.Float16(0xc000).Float64(), -2},
		{"float16/0x7bff", scatter.Float16(0x7bff).Float64(), 65504},
		{"float16/0x7c00", scatter.Float16(0x7c00).Float64(), math.Inf(1)},
		{"float16/0xfc00", scatter.Float16(0xfc00).Float64(), math.Inf(-1)},
		{"bfloat16/0x3f80", scatter.BFloat16(0x3f80).Float64(), 1},
		{"bfloat16/0x3f81", scatter.BFloat16(0x3f81).Float64(), 1 + math.Ldexp(1, -7)},
		{"bfloat16/0x0001", scatter.BFloat16(0x0001).Float64(), math.Ldexp(1, -133)},
		{"bfloat16/0x0080", scatter.BFloat16(0x0080).Float64(), math.Ldexp(1, -126)},
		{"bfloat16/0x7f7f", scatter.BFloat16(0x7f7f).Float64(), math.Ldexp(255, 120)},
		{"bfloat16/0x7f80", scatter.BFloat16(0x7f80).Float64(), math.Inf(1)},
		{"bfloat16/0xff80", scatter.BFloat16(0xff80).Float64(), math.Inf(-1)},
		{"bfloat16/0x8000", scatter.BFloat16(0x8000).Float64(), math.Copysign(0, -1)},
	}
	for _, tt := range tests {
		if !sameFloat(tt.got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestHalfTies checks, for every pair of adjacent finite values (a, b) of
// either sign, that the midpoint (exact in float64) rounds to the one whose
// last fraction bit is even, and that the float64 neighbours of the midpoint
// round to a and to b. On the negative side the pairs run from -0 down to
// -max, so the midpoint between -0 and the smallest negative subnormal must
// give -0.
func TestHalfTies(t *testing.T) {
	for _, h := range halves {
		for _, sign := range []uint16{0, 0x8000} {
			name := fmt.Sprintf("%s/sign=%c/pairs=0x%04x..0x%04x", h.name, "+-"[sign>>15], sign, sign|h.max)
			t.Run(name, func(t *testing.T) {
				fails := 0
				for p := uint16(0); p < h.max; p++ {
					a, b := sign|p, sign|(p+1)
					va, vb := h.decode(a), h.decode(b)
					mid := (va + vb) / 2
					if mid-va != vb-mid {
						t.Fatalf("midpoint of 0x%04x and 0x%04x is not exact", a, b)
					}
					even := a
					if a&1 != 0 {
						even = b
					}
					below := math.Nextafter(mid, va)
					above := math.Nextafter(mid, vb)
					if got := h.fromF64(mid); got != even {
						fails++
						t.Errorf("midpoint %v of 0x%04x and 0x%04x rounds to 0x%04x, want 0x%04x (even)", mid, a, b, got, even)
					}
					if got := h.fromF64(below); got != a {
						fails++
						t.Errorf("%v (just toward 0x%04x from the midpoint) rounds to 0x%04x", below, a, got)
					}
					if got := h.fromF64(above); got != b {
						fails++
						t.Errorf("%v (just toward 0x%04x from the midpoint) rounds to 0x%04x", above, b, got)
					}
					// The midpoint and its neighbours are float32 values
					// too for float16, and for bfloat16 they are all
					// exactly float32 (one bit more than bfloat16).
					if m32 := float32(mid); float64(m32) == mid {
						if got := h.fromF32(m32); got != even {
							fails++
							t.Errorf("float32 midpoint %v of 0x%04x and 0x%04x rounds to 0x%04x, want 0x%04x", m32, a, b, got, even)
						}
					}
					if fails > 10 {
						t.Fatal("too many failures")
					}
				}
			})
		}
	}
}

// TestHalfOverflow checks the overflow threshold, max + half an ulp: at and
// beyond it the value becomes an infinity, just below it the maximum.
func TestHalfOverflow(t *testing.T) {
	for _, h := range halves {
		max := h.decode(h.max)
		ulp := max - h.decode(h.max-1)
		threshold := max + ulp/2
		for _, sign := range []float64{1, -1} {
			signBit := uint16(0)
			if sign < 0 {
				signBit = 0x8000
			}
			cases := []struct {
				x    float64
				want uint16
			}{
				{max, h.max},
				{math.Nextafter(threshold, 0), h.max},
				{threshold, h.inf},
				{math.Nextafter(threshold, math.Inf(1)), h.inf},
				{2 * max, h.inf},
				{math.MaxFloat64, h.inf},
				{math.Inf(1), h.inf},
			}
			for _, c := range cases {
				x := sign * c.x
				t.Run(fmt.Sprintf("%s/x=%v", h.name, x), func(t *testing.T) {
					if got := h.fromF64(x); got != signBit|c.want {
						t.Errorf("From(%v) = 0x%04x, want 0x%04x", x, got, signBit|c.want)
					}
					if x32 := float32(x); float64(x32) == x {
						if got := h.fromF32(x32); got != signBit|c.want {
							t.Errorf("FromFloat32(%v) = 0x%04x, want 0x%04x", x32, got, signBit|c.want)
						}
					}
				})
			}
		}
	}
	// The numbers people know.
	for _, c := range []struct {
		x    float64
		want scatter.Float16
	}{
		{65504, 0x7bff}, {65519.99, 0x7bff}, {65520, 0x7c00}, {-65520, 0xfc00}, {1e5, 0x7c00}, {-65519.99, 0xfbff},
	} {
		if got := scatter.Float16FromFloat64(c.x); got != c.want {
			t.Errorf("Float16FromFloat64(%v) = 0x%04x, want 0x%04x", c.x, uint16(got), uint16(c.want))
		}
		if got := scatter.Float16FromFloat32(float32(c.x)); got != c.want {
			t.Errorf("Float16FromFloat32(%v) = 0x%04x, want 0x%04x", float32(c.x), uint16(got), uint16(c.want))
		}
	}
	if got := scatter.BFloat16FromFloat32(math.MaxFloat32); got != 0x7f80 {
		t.Errorf("BFloat16FromFloat32(MaxFloat32) = 0x%04x, want 0x7f80", uint16(got))
	}
}

// TestHalfUnderflow checks the rounding below the smallest subnormal.
func TestHalfUnderflow(t *testing.T) {
	for _, h := range halves {
		tiny := h.decode(1)
		for _, c := range []struct {
			x    float64
			want uint16
		}{
			{tiny / 2, 0},                             // a tie between 0 and tiny: even is 0
			{math.Nextafter(tiny/2, 1), 1},            // just above: tiny
			{math.Nextafter(tiny/2, 0), 0},            // just below: 0
			{tiny * 1.5, 2},                           // a tie between tiny and 2 tiny: even is 2
			{math.SmallestNonzeroFloat64, 0},          // far below
			{-math.SmallestNonzeroFloat64, 0x8000},    // keeps the sign
			{-tiny / 2, 0x8000},                       // -0
			{-math.Nextafter(tiny/2, 1), 0x8000 | 1},  // -tiny
			{float64(math.SmallestNonzeroFloat32), 0}, // float32's smallest subnormal
			{-float64(math.SmallestNonzeroFloat32), 0x8000},
		} {
			t.Run(fmt.Sprintf("%s/x=%v", h.name, c.x), func(t *testing.T) {
				if got := h.fromF64(c.x); got != c.want {
					t.Errorf("From(%v) = 0x%04x, want 0x%04x", c.x, got, c.want)
				}
			})
		}
	}
}

// TestHalfCanonicalNaN checks the NaN a conversion produces: float16 keeps
// the sign (0x7e00 | sign), bfloat16 always gives 0x7fc0, as c10 does.
func TestHalfCanonicalNaN(t *testing.T) {
	nans32 := []uint32{0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff, 0xffffffff, 0x7fffe000}
	for _, bits := range nans32 {
		x := math.Float32frombits(bits)
		wantF16 := scatter.Float16(0x7e00 | uint16(bits>>16)&0x8000)
		t.Run(fmt.Sprintf("float32=0x%08x", bits), func(t *testing.T) {
			if got := scatter.Float16FromFloat32(x); got != wantF16 {
				t.Errorf("Float16FromFloat32 = 0x%04x, want 0x%04x", uint16(got), uint16(wantF16))
			}
			if got := scatter.Float16FromFloat64(float64(x)); got != wantF16 {
				t.Errorf("Float16FromFloat64 = 0x%04x, want 0x%04x", uint16(got), uint16(wantF16))
			}
			if got := scatter.BFloat16FromFloat32(x); got != 0x7fc0 {
				t.Errorf("BFloat16FromFloat32 = 0x%04x, want 0x7fc0", uint16(got))
			}
			if got := scatter.BFloat16FromFloat64(float64(x)); got != 0x7fc0 {
				t.Errorf("BFloat16FromFloat64 = 0x%04x, want 0x7fc0", uint16(got))
			}
		})
	}
	for _, bits := range []uint64{0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001, 0xfff0000000000001} {
		x := math.Float64frombits(bits)
		wantF16 := scatter.Float16(0x7e00 | uint16(bits>>48)&0x8000)
		t.Run(fmt.Sprintf("float64=0x%016x", bits), func(t *testing.T) {
			if got := scatter.Float16FromFloat64(x); got != wantF16 {
				t.Errorf("Float16FromFloat64 = 0x%04x, want 0x%04x", uint16(got), uint16(wantF16))
			}
			if got := scatter.BFloat16FromFloat64(x); got != 0x7fc0 {
				t.Errorf("BFloat16FromFloat64 = 0x%04x, want 0x7fc0", uint16(got))
			}
		})
	}
}

// refFloat16FromFloat32Bits is an independent float32 -> float16 conversion,
// round to nearest even, on the bits alone.
func refFloat16FromFloat32Bits(x uint32) uint16 {
	sign := uint16(x>>16) & 0x8000
	exp := int(x>>23) & 0xff
	man := x & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	if exp == 0 {
		return sign // float32 subnormals are below 2^-126, far under 2^-25
	}
	e := exp - 127      // x = m * 2^(e-23)
	m := man | 0x800000 // 24 significant bits
	shift := 13         // a float16 normal keeps 11 of them
	if e < -14 {
		shift += -14 - e // a subnormal counts units of 2^-24
	}
	if shift > 24 {
		return sign // below a quarter of the smallest subnormal
	}
	q := m >> shift
	rem := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	if e < -14 {
		return sign | uint16(q) // q = 1024 is the smallest normal, correctly
	}
	r := uint32(e+15)<<10 + (q - 1024) // q = 2048 carries into the exponent
	if r >= 0x7c00 {
		return sign | 0x7c00
	}
	return sign | uint16(r)
}

// refBFloat16FromFloat32Bits is the classic bfloat16 rounding on float32 bits.
func refBFloat16FromFloat32Bits(x uint32) uint16 {
	if x&0x7f800000 == 0x7f800000 && x&0x7fffff != 0 {
		return 0x7fc0
	}
	return uint16((x + 0x7fff + (x>>16)&1) >> 16)
}

// sweepFloat32 calls f on every stride-th float32 pattern, on the patterns
// around every bfloat16 tie and around every float16 tie.
func sweepFloat32(stride uint32, f func(bits uint32)) {
	for i := uint64(0); i < 1<<32; i += uint64(stride) {
		f(uint32(i))
	}
	f(0xffffffff)
	for hi := uint32(0); hi < 1<<16; hi++ {
		for _, lo := range []uint32{0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff} {
			f(hi<<16 | lo)
		}
	}
	// float16 keeps the top 10 of float32's 23 fraction bits: the ties have
	// the low 13 bits 0x1000.
	for hi := uint32(0); hi < 1<<19; hi++ {
		for _, lo := range []uint32{0x0fff, 0x1000, 0x1001} {
			f(hi<<13 | lo)
		}
	}
}

// TestFloat16FromFloat32 checks the float32 conversion against the float64
// one and against an independent bit-level reference.
func TestFloat16FromFloat32(t *testing.T) {
	const stride = 4099
	t.Run(fmt.Sprintf("sweep/stride=%d+ties", stride), func(t *testing.T) {
		fails := 0
		sweepFloat32(stride, func(bits uint32) {
			x := math.Float32frombits(bits)
			got := scatter.Float16FromFloat32(x)
			via64 := scatter.Float16FromFloat64(float64(x))
			ref := scatter.Float16(refFloat16FromFloat32Bits(bits))
			if got != via64 || got != ref {
				if fails++; fails <= 10 {
					t.Errorf("float32 0x%08x (%v): Float16FromFloat32 = 0x%04x, Float16FromFloat64 = 0x%04x, reference 0x%04x",
						bits, x, uint16(got), uint16(via64), uint16(ref))
				}
			}
		})
		if fails > 10 {
			t.Errorf("... and %d more", fails-10)
		}
	})
}

// TestBFloat16FromFloat32 checks the float32 conversion against the classic
// bit-level rounding, and the float64 one against it on float32 values.
func TestBFloat16FromFloat32(t *testing.T) {
	const stride = 4099
	t.Run(fmt.Sprintf("sweep/stride=%d+ties", stride), func(t *testing.T) {
		fails := 0
		sweepFloat32(stride, func(bits uint32) {
			x := math.Float32frombits(bits)
			got := scatter.BFloat16FromFloat32(x)
			via64 := scatter.BFloat16FromFloat64(float64(x))
			ref := scatter.BFloat16(refBFloat16FromFloat32Bits(bits))
			if got != ref || via64 != ref {
				if fails++; fails <= 10 {
					t.Errorf("float32 0x%08x (%v): BFloat16FromFloat32 = 0x%04x, BFloat16FromFloat64 = 0x%04x, reference 0x%04x",
						bits, x, uint16(got), uint16(via64), uint16(ref))
				}
			}
		})
		if fails > 10 {
			t.Errorf("... and %d more", fails-10)
		}
	})
}

// TestHalfNoDoubleRounding checks that a float64 just above a tie of the
// 16-bit format, which a detour through float32 would round down onto the
// tie and then to even, rounds up.
func TestHalfNoDoubleRounding(t *testing.T) {
	// float16: 1 + 2^-11 is the tie between 1 and 1+2^-10; adding 2^-40
	// is lost in float32.
	x := 1 + math.Ldexp(1, -11) + math.Ldexp(1, -40)
	if got := scatter.Float16FromFloat64(x); got != 0x3c01 {
		t.Errorf("float16: From(%v) = 0x%04x, want 0x3c01", x, uint16(got))
	}
	if got := scatter.Float16FromFloat64(-x); got != 0xbc01 {
		t.Errorf("float16: From(%v) = 0x%04x, want 0xbc01", -x, uint16(got))
	}
	// bfloat16: 1 + 2^-8 is the tie between 1 and 1+2^-7.
	y := 1 + math.Ldexp(1, -8) + math.Ldexp(1, -40)
	if got := scatter.BFloat16FromFloat64(y); got != 0x3f81 {
		t.Errorf("bfloat16: From(%v) = 0x%04x, want 0x3f81", y, uint16(got))
	}
}
