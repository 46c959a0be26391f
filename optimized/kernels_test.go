package optimized

import (
	"math"
	"math/rand"
	"testing"

	"github.com/scatterconf/scatter"
)

// specials are float64 values every conversion and kernel test includes.
var specials = []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
	65504, 65519.99, 65520, 65536, 1e-8, 2.98e-8, 5.96e-8, 6.1e-5, 3.4e38, 3.5e38, 1e-40, 9.2e-41, 1e-45}

// randFloat64 returns values spread over every exponent range.
func randFloat64(r *rand.Rand) float64 {
	switch r.Intn(4) {
	case 0:
		return specials[r.Intn(len(specials))]
	case 1:
		return math.Float64frombits(r.Uint64())
	case 2: // near the 16-bit grids: a 16-bit value plus a small offset
		h := scatter.Float16(r.Intn(1 << 16)).Float64()
		return h * (1 + (r.Float64()-0.5)*1e-3)
	}
	return math.Ldexp(r.Float64()*2-1, r.Intn(300)-150)
}

func TestHalfConversions(t *testing.T) {
	initF16tab()
	r := rand.New(rand.NewSource(1))
	check := func(x float64) {
		if got, want := f16FromF64(x), uint16(scatter.Float16FromFloat64(x)); got != want {
			t.Fatalf("f16FromF64(%v) = %#04x, want %#04x", x, got, want)
		}
		if got, want := bf16FromF64(x), uint16(scatter.BFloat16FromFloat64(x)); got != want {
			t.Fatalf("bf16FromF64(%v) = %#04x, want %#04x", x, got, want)
		}
		f := float32(x)
		if got, want := gridF16(f), scatter.Float16FromFloat32(f).Float32(); math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("gridF16(%v) = %v, want %v", f, got, want)
		}
		if got, want := gridBF16(f), scatter.BFloat16FromFloat32(f).Float32(); math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("gridBF16(%v) = %v, want %v", f, got, want)
		}
	}
	for _, x := range specials {
		check(x)
		check(-x)
	}
	// every 16-bit value and its neighbours, midpoints included
	for b := 0; b < 1<<16; b++ {
		for _, x := range []float64{scatter.Float16(b).Float64(), scatter.BFloat16(b).Float64()} {
			check(x)
			check(math.Nextafter(x, math.Inf(1)))
			check(math.Nextafter(x, math.Inf(-1)))
			y := float64(math.Nextafter32(float32(x), float32(math.Inf(1))))
			check((x + y) / 2)
		}
	}
	for i := 0; i < 1_000_000; i++ {
		check(randFloat64(r))
	}
	for b := 0; b < 1<<16; b++ {
		if got, want := f16tab[b], scatter.Float16(b).Float32(); math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("f16tab[%#04x] = %v, want %v", b, got, want)
		}
	}
}

// TestRowsF32 compares the vector row kernels with the scalar fold
// (foldTail), bit for bit, on rows with NaN, signed zeros and repeated
// targets.
func TestRowsF32(t *testing.T) {
	if !rowsF32(opSum, make([]float32, 8), []int32{0}, []int{0}, make([]float32, 8), 8, false) {
		t.Skip("no vector row kernels on this CPU")
	}
	r := rand.New(rand.NewSource(2))
	val := func() float32 {
		if r.Intn(5) == 0 {
			return float32(specials[r.Intn(7)])
		}
		return float32(r.Intn(9) - 4)
	}
	for _, op := range []opKind{opSum, opAmax, opAmin} {
		for _, n := range []int{8, 9, 13, 16, 24, 64, 100, 128, 200} {
			// fewer rows than the look-aheads (8 and 32) too
			for _, rows := range []int{1, 7, 9, 33, 300} {
				outRows := 7
				src := make([]float32, rows*n+5)
				for i := range src {
					src[i] = val()
				}
				trow := make([]int32, rows)
				srow := make([]int, rows)
				for k := range trow {
					trow[k] = int32(r.Intn(outRows))
					srow[k] = r.Intn(len(src) - n + 1)
				}
				got := make([]float32, outRows*n)
				for i := range got {
					got[i] = val()
				}
				want := append([]float32{}, got...)
				rowKern(op, got, nil, trow, srow, src, n, r.Intn(2) == 0)
				for k, tr := range trow {
					foldTail(op, want[int(tr)*n:int(tr)*n+n], src[srow[k]:srow[k]+n], 0)
				}
				for i := range got {
					g, w := math.Float32bits(got[i]), math.Float32bits(want[i])
					if g != w && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("op %d, n %d, %d rows: element %d = %v (%#x), want %v (%#x)", op, n, rows, i, got[i], g, want[i], w)
					}
				}
			}
		}
	}
}

// TestAmaxBranchFree compares the branch-free amax/amin with PyTorch's
// functor on every pair of special values.
func TestAmaxBranchFree(t *testing.T) {
	for _, x := range specials {
		for _, y := range specials {
			for _, s := range []float64{1, -1} {
				a, v := x, s*y
				if g, w := amax64(a, v), amax(a, v); math.Float64bits(g) != math.Float64bits(w) {
					t.Errorf("amax64(%v, %v) = %v, want %v", a, v, g, w)
				}
				if g, w := amin64(a, v), amin(a, v); math.Float64bits(g) != math.Float64bits(w) {
					t.Errorf("amin64(%v, %v) = %v, want %v", a, v, g, w)
				}
				a32, v32 := float32(a), float32(v)
				if g, w := amax32(a32, v32), amax(a32, v32); math.Float32bits(g) != math.Float32bits(w) {
					t.Errorf("amax32(%v, %v) = %v, want %v", a32, v32, g, w)
				}
				if g, w := amin32(a32, v32), amin(a32, v32); math.Float32bits(g) != math.Float32bits(w) {
					t.Errorf("amin32(%v, %v) = %v, want %v", a32, v32, g, w)
				}
			}
		}
	}
}

// TestBF16Add checks the bfloat16 sum against the exact sum rounded once.
func TestBF16Add(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	check := func(a, b uint16) {
		got := bf16Add(a, b)
		x, y := scatter.BFloat16(a).Float64(), scatter.BFloat16(b).Float64()
		want := uint16(scatter.BFloat16FromFloat64(x + y))
		if got != want && !(scatter.BFloat16(got).IsNaN() && scatter.BFloat16(want).IsNaN()) {
			t.Fatalf("bf16Add(%#04x, %#04x) = %#04x, want %#04x", a, b, got, want)
		}
	}
	sp := []uint16{0, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fff, 0xffff, 0x7f81, 0x7f7f, 0xff7f, 0x0001, 0x8001, 0x0080, 0x3f80, 0xbf80}
	for _, a := range sp {
		for b := 0; b < 1<<16; b++ {
			check(a, uint16(b))
			check(uint16(b), a)
		}
	}
	for i := 0; i < 5_000_000; i++ {
		a := uint16(r.Intn(1 << 16))
		// operands of close magnitudes, where rounding happens
		b := uint16((int(a) + r.Intn(2048) - 1024) & 0xffff)
		check(a, b)
		check(a, uint16(r.Intn(1<<16)))
	}
}

// bf16Lows are the rounding cases of a float32's low 16 bits when it is
// rounded to bfloat16: exact, just below, at and above the tie, the
// largest.
var bf16Lows = []uint32{0, 1, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0xc000, 0xffff}

// bf16FromF32 against bf16FromF64 on every float32 whose low 16 bits are
// one of the rounding cases (exact, just below, at and above the tie, the
// largest), for every upper half: every sign, exponent and bfloat16
// significand, with infinities and NaNs.
func TestBF16FromF32LowHalves(t *testing.T) {
	for hi := uint32(0); hi < 1<<16; hi++ {
		for _, lo := range bf16Lows {
			x := math.Float32frombits(hi<<16 | lo)
			if got, want := bf16FromF32(x), bf16FromF64(float64(x)); got != want {
				t.Fatalf("bf16FromF32(%#08x) = %#04x, want %#04x", hi<<16|lo, got, want)
			}
		}
	}
}

// finishHalfPlain on two bfloat16 sum accumulators (finBF16x2 four at a
// time where it exists, the Go loop for the rest) against bf16FromF64 of
// each exact pattern: every upper half with the rounding cases of the
// low half (as above), each added to -0 (which leaves every float32,
// NaN payloads aside, as it is), on lengths that leave a tail of 0-3;
// then random pairs against bf16FromF32 of their float32 sum.
func TestFinishBF16TwoAccs(t *testing.T) {
	h := half{bf: true}
	f := &fin{op: opSum}
	var a0 []float32
	for hi := uint32(0); hi < 1<<16; hi++ {
		for _, lo := range bf16Lows {
			a0 = append(a0, math.Float32frombits(hi<<16|lo))
		}
	}
	negZero := float32(math.Copysign(0, -1))
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{len(a0), len(a0) - 1, len(a0) - 2, len(a0) - 3, 5, 3} {
		a1 := make([]float32, n)
		for i := range a1 {
			a1[i] = negZero
		}
		out := make([]uint16, n)
		finishHalfPlain(h, f, out, [][]float32{a0[:n], a1}, 0, n)
		for i, x := range a0[:n] {
			if want := bf16FromF64(float64(x)); out[i] != want {
				t.Fatalf("n=%d: %#08x + -0 gives %#04x, want %#04x", n, math.Float32bits(x), out[i], want)
			}
		}
		b0, b1 := make([]float32, n), make([]float32, n)
		for i := range b0 {
			b0[i] = math.Float32frombits(r.Uint32())
			b1[i] = math.Float32frombits(r.Uint32())
		}
		finishHalfPlain(h, f, out, [][]float32{b0, b1}, 0, n)
		for i := range b0 {
			if want := bf16FromF32(b0[i] + b1[i]); out[i] != want {
				t.Fatalf("n=%d: %v + %v gives %#04x, want %#04x", n, b0[i], b1[i], out[i], want)
			}
		}
	}
}

// finishCount of a float32 mean over two record sets (finishCountF32x2:
// finMeanF32x2 four at a time where it exists, the Go loop for the rest)
// against finOne's mean of each element, bit for bit: with and without
// self counted, with and without the per-step count limit (2^24), counts
// of 0 (the element kept), small, and past 2^24, on lengths that leave a
// tail of 0-3.
func TestFinishCountF32TwoSets(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, countSelf := range []bool{false, true} {
		for _, perStep := range []bool{false, true} {
			f := &fin{op: opSum, mean: true, counted: true, countSelf: countSelf, cntPerStep: perStep}
			fo := newFinOne[float32](f)
			counts := []int32{0, 0, 1, 2, 3, 7, 255, 256, 1 << 24, 1<<24 + 1, 1 << 29}
			for _, n := range []int{1000, 1001, 1002, 1003, 3} {
				r0, r1 := make([]rec[float32], n), make([]rec[float32], n)
				out, want := make([]float32, n), make([]float32, n)
				for i := range r0 {
					r0[i] = rec[float32]{float32(randFloat64(r)), counts[r.Intn(len(counts))]}
					r1[i] = rec[float32]{float32(randFloat64(r)), counts[r.Intn(len(counts))]}
					out[i] = float32(randFloat64(r))
					want[i] = out[i]
					if c := r0[i].n + r1[i].n; c != 0 {
						want[i] = fo.do(r0[i].a+r1[i].a, int64(c))
					}
				}
				finishCount(f, out, [][]rec[float32]{r0, r1}, 0, n)
				for i := range out {
					if math.Float32bits(out[i]) != math.Float32bits(want[i]) && !(out[i] != out[i] && want[i] != want[i]) {
						t.Fatalf("countSelf=%v perStep=%v n=%d: element %d (%v, %v) gives %v, want %v",
							countSelf, perStep, n, i, r0[i], r1[i], out[i], want[i])
					}
				}
			}
		}
	}
}
