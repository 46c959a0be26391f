package reference

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/scatterconf/scatter"
)

// judgeLongRun reports whether SCATTER_LONG=1 asks for the bigger randomised runs.
func judgeLongRun() bool { return os.Getenv("SCATTER_LONG") == "1" }

var boundDTypes = []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16, scatter.DTFloat32, scatter.DTFloat64}

// roundToDT rounds x to the nearest value of float dtype dt (one rounding).
func roundToDT(dt scatter.DType, x float64) float64 {
	switch dt {
	case scatter.DTFloat16:
		return scatter.Float16FromFloat64(x).Float64()
	case scatter.DTBFloat16:
		return scatter.BFloat16FromFloat64(x).Float64()
	case scatter.DTFloat32:
		return float64(float32(x))
	}
	return x
}

// An accumulator is one way of computing a correctly rounded +, * or / of two
// values of its format, as the implementations under test do.
type accumulator struct {
	name string
	add  func(a, b float64) float64
	mul  func(a, b float64) float64
	// round converts the accumulator's value to the storage dtype at the end.
	round func(x float64) float64
	// opmath: a float32 accumulator of 16-bit data, rounded once (PyTorch
	// 2); else every step rounds to the dtype.
	opmath bool
}

// arith returns the judge's arithmetic model of the accumulator.
func (a accumulator) arith(dt scatter.DType) arith {
	if a.opmath {
		return arith{acc: formatFloat32, out: formatOf(dt)}
	}
	return arith{acc: formatOf(dt), out: formatOf(dt)}
}

// accumulators returns the accumulation strategies that the profiles admit
// for dtype dt: per-step in the dtype (16-bit: as PyTorch 1.13 does it,
// computed in float32 and rounded back, and independently with exact
// arithmetic rounded once per step), and for 16-bit types a float32
// accumulator rounded once (PyTorch 2). A float32 or float64 accumulator of
// float32 data is not among them: no profile accumulates float32 in a
// wider format (bounds.go, "The profile's arithmetic").
func accumulators(dt scatter.DType) []accumulator {
	final := func(x float64) float64 { return roundToDT(dt, x) }
	switch dt {
	case scatter.DTFloat16, scatter.DTBFloat16:
		f32 := func(x float64) float64 { return float64(float32(x)) }
		return []accumulator{{
			name:  "per-step via float32",
			add:   func(a, b float64) float64 { return roundToDT(dt, f32(float64(float32(a)+float32(b)))) },
			mul:   func(a, b float64) float64 { return roundToDT(dt, f32(float64(float32(a)*float32(b)))) },
			round: final,
		}, {
			name:  "per-step exact",
			add:   func(a, b float64) float64 { return bigRound(dt, bigAdd(a, b)) },
			mul:   func(a, b float64) float64 { return bigRound(dt, bigMul(a, b)) },
			round: final,
		}, {
			name:   "float32 accumulator",
			add:    func(a, b float64) float64 { return float64(float32(a) + float32(b)) },
			mul:    func(a, b float64) float64 { return float64(float32(a) * float32(b)) },
			round:  final,
			opmath: true,
		}}
	case scatter.DTFloat32:
		return []accumulator{{
			name:  "per-step float32",
			add:   func(a, b float64) float64 { return float64(float32(a) + float32(b)) },
			mul:   func(a, b float64) float64 { return float64(float32(a) * float32(b)) },
			round: final,
		}}
	}
	return []accumulator{{
		name:  "per-step float64",
		add:   func(a, b float64) float64 { return a + b },
		mul:   func(a, b float64) float64 { return a * b },
		round: final,
	}}
}

func bigAdd(a, b float64) *big.Float {
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return nil
	}
	return new(big.Float).SetPrec(4096).Add(big.NewFloat(a), big.NewFloat(b))
}

func bigMul(a, b float64) *big.Float {
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return nil
	}
	return new(big.Float).SetPrec(4096).Mul(big.NewFloat(a), big.NewFloat(b))
}

// bigRound rounds an exact result to dt by round-to-nearest-even,
// independently of bounds.go: the two neighbours are found with Nextafter
// on the float64 grid and the dtype's encoder. A nil x is a special
// operand, handled in float64 (where it is exact).
func bigRound(dt scatter.DType, x *big.Float) float64 {
	if x == nil {
		return math.NaN() // replaced by the caller's float64 special path
	}
	f, _ := x.Float64()
	return roundToDT(dt, f) // double rounding: only used for 16-bit p <= 11, 53 >= 2p+2 for + and *
}

// The orders and trees in which a group may be folded.
type foldOrder struct {
	name string
	fold func(xs []float64, op func(a, b float64) float64, r *rand.Rand) float64
}

func seqFold(xs []float64, op func(a, b float64) float64) float64 {
	acc := xs[0]
	for _, x := range xs[1:] {
		acc = op(acc, x)
	}
	return acc
}

func treeFold(xs []float64, op func(a, b float64) float64, split func(n int) int) float64 {
	if len(xs) == 1 {
		return xs[0]
	}
	m := split(len(xs))
	return op(treeFold(xs[:m], op, split), treeFold(xs[m:], op, split))
}

var foldOrders = []foldOrder{
	{"recursive", func(xs []float64, op func(a, b float64) float64, _ *rand.Rand) float64 { return seqFold(xs, op) }},
	{"reversed", func(xs []float64, op func(a, b float64) float64, _ *rand.Rand) float64 {
		ys := slices.Clone(xs)
		slices.Reverse(ys)
		return seqFold(ys, op)
	}},
	{"pairwise", func(xs []float64, op func(a, b float64) float64, _ *rand.Rand) float64 {
		return treeFold(xs, op, func(n int) int { return n / 2 })
	}},
	{"random order", func(xs []float64, op func(a, b float64) float64, r *rand.Rand) float64 {
		ys := slices.Clone(xs)
		r.Shuffle(len(ys), func(i, j int) { ys[i], ys[j] = ys[j], ys[i] })
		return seqFold(ys, op)
	}},
	{"random tree", func(xs []float64, op func(a, b float64) float64, r *rand.Rand) float64 {
		ys := slices.Clone(xs)
		r.Shuffle(len(ys), func(i, j int) { ys[i], ys[j] = ys[j], ys[i] })
		return treeFold(ys, op, func(n int) int { return 1 + r.IntN(n-1) })
	}},
	{"sorted by magnitude", func(xs []float64, op func(a, b float64) float64, _ *rand.Rand) float64 {
		ys := slices.Clone(xs)
		slices.SortFunc(ys, func(a, b float64) int {
			if math.Abs(a) < math.Abs(b) {
				return -1
			}
			if math.Abs(a) > math.Abs(b) {
				return 1
			}
			return 0
		})
		return seqFold(ys, op)
	}},
}

// randomBoundValue returns a value of dt: mostly normal numbers over a random
// part of the exponent range, and sometimes subnormals, huge values near
// the maximum, tiny ones, zeros of both signs and (when specials) ±Inf
// and NaN.
func randomBoundValue(r *rand.Rand, dt scatter.DType, specials bool, scale int) float64 {
	f := formatOf(dt)
	sign := 1.0
	if r.IntN(2) == 0 {
		sign = -1
	}
	var x float64
	switch k := r.IntN(40); {
	case k == 0:
		x = 0
	case k == 1 && specials:
		x = math.Inf(1)
	case k == 2 && specials:
		x = math.NaN()
	case k < 6: // subnormal
		x = math.Ldexp(r.Float64(), f.emin)
	case k < 9: // near the largest
		x = math.Ldexp(1+r.Float64(), f.emax)
	case k < 12: // anywhere in the range
		x = math.Ldexp(1+r.Float64(), f.emin+r.IntN(f.emax-f.emin+1))
	default: // around a common scale, where the bound is tight
		x = math.Ldexp(1+r.Float64(), scale+r.IntN(6)-3)
	}
	return roundToDT(dt, sign*x)
}

// TestBoundSoundness folds random contributions in every float dtype with
// every accumulation strategy and many orders and trees, and checks that
// each outcome lies in the span the judge allows: sums, means and products.
func TestBoundSoundness(t *testing.T) {
	trials := 1500
	if judgeLongRun() {
		trials = 40000
	}
	for _, dt := range boundDTypes {
		for _, op := range []string{"sum", "mean", "prod"} {
			t.Run(fmt.Sprintf("%s/%v", op, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(dt), uint64(len(op))))
				fails := 0
				for trial := 0; trial < trials && fails < 5; trial++ {
					k := 1 + r.IntN(12)
					switch r.IntN(10) {
					case 0:
						k = 1 + r.IntN(300) // beyond 1/u for bfloat16 and float16 counts
					case 1, 2:
						k = 1 + r.IntN(40)
					}
					specials := r.IntN(4) == 0
					scale := r.IntN(20) - 10
					if op == "prod" {
						scale = r.IntN(3) - 1
					}
					xs := make([]float64, k)
					for i := range xs {
						xs[i] = randomBoundValue(r, dt, specials, scale)
					}
					if r.IntN(8) == 0 {
						adversarial(r, dt, xs)
					}
					c := float64(k)
					if op == "mean" {
						c = roundToDT(dt, float64(k))
					}
					for _, a := range accumulators(dt) {
						ar := a.arith(dt)
						var s span
						switch op {
						case "sum":
							s = sumSpan(ar, xs)
						case "mean":
							s = meanSpan(ar, xs, c)
						default:
							s = prodSpan(ar, xs)
						}
						kd := map[string]kind{"sum": kSum, "mean": kMean, "prod": kProd}[op]
						set, enumerated := enumeratedAllow(ar, kd, xs, c, false)
						for _, o := range foldOrders {
							var y float64
							if op == "prod" {
								y = a.round(o.fold(xs, safeOp(dt, a.mul, plainMul), r))
							} else {
								y = a.round(o.fold(xs, safeOp(dt, a.add, plainAdd), r))
							}
							if op == "mean" {
								y = roundToDT(dt, y/c)
							}
							if !s.contains(y) {
								fails++
								t.Errorf("%s of %v (%s, %s) = %v, outside %s", op, xs, a.name, o.name, y,
									describeAllow(dt, &allow{isRange: true, rng: s, note: s.note}))
							}
							if enumerated && !set.match(floatElem(dt, y)) {
								fails++
								t.Errorf("%s of %v (%s, %s) = %v, outside the enumerated %s", op, xs, a.name, o.name, y,
									describeAllow(dt, &set))
							}
						}
					}
				}
			})
		}
	}
}

// adversarial overwrites xs with a group whose error is near the bound in
// the recursive order: a leading 1 (or -1) and terms just below half an ulp
// of 1, each of which is lost when added to the running sum, so the sum
// stays at 1 while the exact sum grows by about (k-1)u.
func adversarial(r *rand.Rand, dt scatter.DType, xs []float64) {
	f := formatOf(dt)
	sign := 1.0
	if r.IntN(2) == 0 {
		sign = -1
	}
	xs[0] = sign
	tiny := roundToDT(dt, math.Ldexp(1-math.Ldexp(1, -f.prec+1), -f.prec))
	if r.IntN(2) == 0 {
		xs[0] = sign * math.Ldexp(1, f.emax) // the same near the top of the range
		tiny = math.Ldexp(tiny, f.emax)
	}
	for i := 1; i < len(xs); i++ {
		xs[i] = sign * tiny
	}
}

func plainAdd(a, b float64) float64 { return a + b }
func plainMul(a, b float64) float64 { return a * b }

// safeOp applies op, except where an operand is special (±Inf, NaN): IEEE
// gives the same result in every format, which plain float64 computes.
func safeOp(dt scatter.DType, op, plain func(a, b float64) float64) func(a, b float64) float64 {
	return func(a, b float64) float64 {
		if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
			return plain(a, b)
		}
		return op(a, b)
	}
}

// TestBoundSumFloat32Orders: the float32 sums of one group in several orders
// differ, and all land in the interval; one ulp beyond either end does not.
func TestBoundSumFloat32Orders(t *testing.T) {
	xs := []float64{}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		xs = append(xs, float64(float32(r.NormFloat64()*1000)))
	}
	xs = append(xs, float64(float32(1e7)), float64(float32(-1e7)), float64(float32(0.1)))
	s := sumSpan(stepIn(formatFloat32), xs)
	seen := map[float64]bool{}
	add := func(a, b float64) float64 { return float64(float32(a) + float32(b)) }
	for _, o := range foldOrders {
		for range 20 {
			y := o.fold(xs, add, r)
			seen[y] = true
			if !s.contains(y) {
				t.Errorf("%s order: %v outside [%v, %v]", o.name, y, s.lo, s.hi)
			}
		}
	}
	if len(seen) < 2 {
		t.Errorf("the orders all gave %v; the test needs contributions whose sum depends on the order", seen)
	}
	below := float64(math.Nextafter32(float32(s.lo), float32(math.Inf(-1))))
	above := float64(math.Nextafter32(float32(s.hi), float32(math.Inf(1))))
	if s.contains(below) || s.contains(above) {
		t.Errorf("[%v, %v] contains its outside neighbours %v, %v", s.lo, s.hi, below, above)
	}
	if s.posInf || s.negInf || s.nan {
		t.Errorf("no overflow is reachable, got span %+v", s)
	}
}

// TestBoundSum16 checks float16 and bfloat16 sums computed per step
// (PyTorch 1.13) and in float32 with one rounding (PyTorch 2) against the
// interval, with the example of SEMANTICS.md §5.1: 2048 + ten 1s.
func TestBoundSum16(t *testing.T) {
	for _, dt := range []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16} {
		start := 2048.0
		if dt == scatter.DTBFloat16 {
			start = 256
		}
		xs := []float64{start}
		for range 10 {
			xs = append(xs, 1)
		}
		s := sumSpan(stepIn(formatOf(dt)), xs)
		perStep := seqFold(xs, func(a, b float64) float64 { return roundToDT(dt, a+b) })
		once := roundToDT(dt, seqFold(xs, func(a, b float64) float64 { return float64(float32(a) + float32(b)) }))
		if perStep != start {
			t.Errorf("%v: per-step sum = %v, want %v", dt, perStep, start)
		}
		if want := roundToDT(dt, start+10); once != want {
			t.Errorf("%v: float32 sum = %v, want %v", dt, once, want)
		}
		for _, y := range []float64{perStep, once} {
			if !s.contains(y) {
				t.Errorf("%v: %v outside [%v, %v]", dt, y, s.lo, s.hi)
			}
		}
	}
}

// TestBoundOverflow: where some order overflows, Inf is accepted, and NaN
// where both signs can overflow; where none can, neither is.
func TestBoundOverflow(t *testing.T) {
	f := formatFloat16
	s := sumSpan(stepIn(f), []float64{65504, 65504, -65504})
	if !s.posInf || s.negInf || s.nan {
		t.Errorf("65504+65504-65504: posInf=%v negInf=%v nan=%v, want only +Inf reachable", s.posInf, s.negInf, s.nan)
	}
	if !s.contains(65504) || !s.contains(math.Inf(1)) || s.contains(math.Inf(-1)) {
		t.Errorf("65504+65504-65504: span %+v", s)
	}
	s = sumSpan(stepIn(f), []float64{65504, 65504, -65504, -65504})
	if !s.contains(math.NaN()) || !s.contains(0) || !s.contains(math.Inf(-1)) {
		t.Errorf("±65504 twice: span %+v should allow NaN, 0 and -Inf", s)
	}
	s = sumSpan(stepIn(f), []float64{60000, 5000})
	if s.posInf || s.contains(math.Inf(1)) {
		t.Errorf("60000+5000 = 65000 cannot overflow: span %+v", s)
	}
	// 65504 + 16 is a tie between 65504 and 65536 (which is past the largest):
	// round-to-nearest-even gives Inf.
	s = sumSpan(stepIn(f), []float64{65504, 16})
	if !s.contains(math.Inf(1)) || s.contains(65504) && s.lo == s.hi {
		t.Errorf("65504+16: span %+v should allow +Inf", s)
	}
	// A float32 accumulator of float16 data rounds once: 4096 fives sum to
	// 20480 in float32 in any order (its u keeps every partial sum within
	// 0.03% of exact), far from float16's 65520. Per step in float16, the
	// growth factor (1+2^-11)^4095 is past 3, and (1') cannot rule +Inf out.
	fives := slices.Repeat([]float64{5}, 4096)
	if s := sumSpan(arith{acc: formatFloat32, out: f}, fives); s.posInf || s.contains(math.Inf(1)) || !s.contains(20480) {
		t.Errorf("4096 fives, float32 accumulator: span %+v, want 20480 and no +Inf", s)
	}
	if s := sumSpan(stepIn(f), fives); !s.posInf {
		t.Errorf("4096 fives, per step in float16: span %+v, want +Inf reachable by (1')", s)
	}
	// Mixed signs: ±40000 twice and five ones are 5 in every float32
	// order; per step in float16, 40000+40000 overflows either way.
	mixed := []float64{40000, 40000, -40000, -40000, 1, 1, 1, 1, 1}
	if s := sumSpan(arith{acc: formatFloat32, out: f}, mixed); s.posInf || s.negInf || s.nan || !s.contains(5) {
		t.Errorf("±40000 twice and five ones, float32 accumulator: span %+v, want 5 and no Inf or NaN", s)
	}
	if s := sumSpan(stepIn(f), mixed); !s.posInf || !s.negInf || !s.nan {
		t.Errorf("±40000 twice and five ones, per step in float16: span %+v, want ±Inf and NaN reachable", s)
	}
	// bfloat16's threshold is just under float32's: two of its largest
	// values overflow a float32 partial sum, and the other sign's can meet it.
	bmax := 3.3895313892515355e38
	if s := sumSpan(arith{acc: formatFloat32, out: formatBFloat16}, []float64{bmax, bmax, -bmax, -bmax}); !s.posInf || !s.negInf || !s.nan {
		t.Errorf("±bfloat16 max twice, float32 accumulator: span %+v, want ±Inf and NaN reachable", s)
	}
	// Specials: +Inf with a reachable negative overflow may give NaN.
	s = sumSpan(stepIn(f), []float64{math.Inf(1), -65504, -65504})
	if !s.contains(math.Inf(1)) || !s.contains(math.NaN()) || s.contains(0) {
		t.Errorf("Inf-65504-65504: span %+v", s)
	}
	s = sumSpan(stepIn(f), []float64{math.Inf(1), 1, 2})
	if !s.contains(math.Inf(1)) || s.contains(math.NaN()) {
		t.Errorf("Inf+1+2: span %+v", s)
	}
	s = sumSpan(stepIn(f), []float64{math.Inf(1), math.Inf(-1)})
	if !s.contains(math.NaN()) || s.contains(math.Inf(1)) {
		t.Errorf("Inf-Inf: span %+v", s)
	}
}

// TestBoundProd checks the product spans: exact cases, signs, underflow
// and overflow, and zeros.
func TestBoundProd(t *testing.T) {
	// float16 factors whose partial products pass 65504 but whose product,
	// 5625, does not: a float32 accumulator rounded once cannot overflow
	// (nor give NaN with a zero factor), per step in float16 it can.
	big := []float64{300, 300, 0.25, 0.25}
	if s := prodSpan(arith{acc: formatFloat32, out: formatFloat16}, big); s.posInf || !s.contains(5624) {
		t.Errorf("300·300·0.25·0.25, float32 accumulator: span %+v, want 5624 (5625 rounded) and no +Inf", s)
	}
	if s := prodSpan(arith{acc: formatFloat32, out: formatFloat16}, append([]float64{0}, big...)); s.nan {
		t.Errorf("0·300·300·0.25·0.25, float32 accumulator: span %+v, want no NaN", s)
	}
	if s := prodSpan(stepIn(formatFloat16), big); !s.posInf {
		t.Errorf("300·300·0.25·0.25, per step in float16: span %+v, want +Inf reachable", s)
	}
	if s := prodSpan(arith{acc: formatFloat32, out: formatFloat16}, []float64{300, 300, 0.75}); !s.posInf {
		t.Errorf("300·300·0.75 = 67500, float32 accumulator: span %+v, want +Inf (its one rounding overflows)", s)
	}
	f := formatFloat32
	s := prodSpan(stepIn(f), []float64{3})
	if s.lo != 3 || s.hi != 3 {
		t.Errorf("a single factor is exact: %+v", s)
	}
	s = prodSpan(stepIn(f), []float64{2, -3, 0.5})
	if !s.contains(-3) || s.contains(3) || s.contains(-3.01) || s.contains(-2.99) {
		t.Errorf("2*-3*0.5: span %+v", s)
	}
	// The product of 0.1f three times is inexact; both orders are inside.
	x := float64(float32(0.1))
	s = prodSpan(stepIn(f), []float64{x, x, x, 3})
	a := float64(float32(float32(float32(x)*float32(x))*float32(x)) * 3)
	b := float64(float32(3*float32(x)) * float32(float32(x)*float32(x)))
	if !s.contains(a) || !s.contains(b) {
		t.Errorf("0.1^3*3: %v, %v outside %+v", a, b, s)
	}
	// Zeros keep the sign of the product of signs.
	s = prodSpan(stepIn(f), []float64{-2, 0, 5})
	if !s.contains(math.Copysign(0, -1)) || s.contains(0) {
		t.Errorf("-2*0*5 must be -0: span %+v", s)
	}
	// Underflow reachable: 2^-100 * 2^-100 * 2^100 * 2^100 is 1 exactly, but
	// the order (2^-100 * 2^-100) * ... underflows to 0 in float32.
	xs := []float64{math.Ldexp(1, -100), math.Ldexp(1, -100), math.Ldexp(1, 100), math.Ldexp(1, 100)}
	s = prodSpan(stepIn(f), xs)
	under := float64(float32(float32(float32(xs[0])*float32(xs[1]))*float32(xs[2])) * float32(xs[3]))
	if under != 0 {
		t.Fatalf("the underflowing order gives %v, want 0", under)
	}
	if !s.contains(0) || !s.contains(1) {
		t.Errorf("underflow reachable: span %+v should contain 0 and 1", s)
	}
	// And overflow reachable too: (2^100 * 2^100) overflows first, then Inf * 0 = NaN.
	if !s.contains(math.Inf(1)) || !s.contains(math.NaN()) {
		t.Errorf("overflow and underflow reachable: span %+v should allow Inf and NaN", s)
	}
	// Gradual underflow that rounds up: 0.75·2^-149 is not a float32 value,
	// the order (2^-75·1.5·2^-75)·2^100·2^100 rounds the first product up
	// to 2^-149 before multiplying by 2^200.
	xs = []float64{math.Ldexp(1, -75), math.Ldexp(1.5, -75), math.Ldexp(1, 100), math.Ldexp(1, 100)}
	up := float64(float32(float32(float32(xs[0])*float32(xs[1]))*float32(xs[2])) * float32(xs[3]))
	s = prodSpan(stepIn(f), xs)
	if !s.contains(up) {
		t.Errorf("subnormal rounding up: %v outside %+v", up, s)
	}
	// Zero and Inf: NaN only.
	s = prodSpan(stepIn(f), []float64{0, math.Inf(1)})
	if !s.contains(math.NaN()) || s.contains(0) || s.contains(math.Inf(1)) {
		t.Errorf("0*Inf: span %+v", s)
	}
	// Inf with factors that cannot underflow: a signed Inf only.
	s = prodSpan(stepIn(f), []float64{math.Inf(1), -2, 3})
	if !s.contains(math.Inf(-1)) || s.contains(math.NaN()) || s.contains(math.Inf(1)) {
		t.Errorf("Inf*-2*3: span %+v", s)
	}
}

// TestBoundRounding checks the directed and nearest roundings to the
// dtypes at the edges of their ranges.
func TestBoundRounding(t *testing.T) {
	f := formatFloat16
	cases := []struct {
		x          float64
		down, up   float64
		near       float64
		downE, upE float64 // endpoint(x, false), endpoint(x, true)
	}{
		{1, 1, 1, 1, 1, 1},
		{1 + 1.0/4096, 1, 1 + 1.0/1024, 1, 1, 1 + 1.0/1024},
		{1 + 1.0/2048, 1, 1 + 1.0/1024, 1, 1, 1 + 1.0/1024}, // tie to even
		{1 + 3.0/2048, 1 + 1.0/1024, 1 + 2.0/1024, 1 + 2.0/1024, 1 + 1.0/1024, 1 + 2.0/1024},
		{math.Ldexp(1, -25), 0, math.Ldexp(1, -24), 0, 0, math.Ldexp(1, -24)},
		{math.Ldexp(3, -26), 0, math.Ldexp(1, -24), math.Ldexp(1, -24), 0, math.Ldexp(1, -24)},
		{-math.Ldexp(3, -26), -math.Ldexp(1, -24), 0, -math.Ldexp(1, -24), -math.Ldexp(1, -24), 0},
		{65510, 65504, 65504, 65504, 65504, 65504},                         // below thr: RN is max
		{65520, 65504, math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)}, // thr
		{-65519, -65504, -65504, -65504, -65504, -65504},
	}
	for _, c := range cases {
		x := bigExact(c.x)
		if c.x <= 65504 && c.x >= -65504 {
			if d, u := f.roundDir(x, false), f.roundDir(x, true); d != c.down || u != c.up {
				t.Errorf("roundDir(%v) = %v, %v, want %v, %v", c.x, d, u, c.down, c.up)
			}
		}
		if n := f.nearest(x); n != c.near {
			t.Errorf("nearest(%v) = %v, want %v", c.x, n, c.near)
		}
		if n := f.nearest(x); n != roundToDT(scatter.DTFloat16, c.x) {
			t.Errorf("nearest(%v) = %v, the encoder gives %v", c.x, n, roundToDT(scatter.DTFloat16, c.x))
		}
		if d, u := f.endpoint(x, false), f.endpoint(x, true); d != c.downE || u != c.upE {
			t.Errorf("endpoint(%v) = %v, %v, want %v, %v", c.x, d, u, c.downE, c.upE)
		}
	}
	// nearest agrees with the encoders on random values of every dtype.
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range boundDTypes {
		f := formatOf(dt)
		for range 2000 {
			x := math.Ldexp(r.Float64()*2-1, f.emin-f.prec+r.IntN(f.emax-f.emin+f.prec+2))
			if dt == scatter.DTFloat64 {
				x = math.Ldexp(r.Float64()*2-1, -1074+r.IntN(2099))
			}
			b := bigExact(x)
			want := roundToDT(dt, x)
			if got := f.nearest(b); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("%v: nearest(%v) = %v, want %v", dt, x, got, want)
			}
			if math.IsInf(want, 0) {
				continue
			}
			if d, u := f.endpoint(b, false), f.endpoint(b, true); d > x || u < x || d != roundToDT(dt, d) || u != roundToDT(dt, u) {
				t.Errorf("%v: endpoints of %v = %v, %v", dt, x, d, u)
			}
		}
	}
}

// TestBoundMeanCount checks meanCount against SEMANTICS.md §3.4 and §8.1.
func TestBoundMeanCount(t *testing.T) {
	srcs := func(n int) group { return group{srcs: make([]int32, n)} }
	cases := []struct {
		dt        scatter.DType
		rule      meanRule
		n         int
		want      float64
		situation string
	}{
		{scatter.DTFloat32, meanRule{countSelf: true}, 2, 3, "[10] and [1, 2]: 13/3"},
		{scatter.DTUint8, meanRule{countSelf: false}, 256, 1, "uint8 256 contributions wrap to 0, then 1"},
		{scatter.DTInt8, meanRule{countSelf: false}, 129, -127, "int8 129 contributions"},
		{scatter.DTInt8, meanRule{clampBelow: true}, 130, 1, "torch_scatter int8 130: -126 < 1 becomes 1"},
		{scatter.DTFloat16, meanRule{countSelf: true, perStep: true}, 3000, 2048, "float16 per step saturates"},
		{scatter.DTBFloat16, meanRule{countSelf: true, perStep: true}, 300, 256, "bfloat16 per step saturates"},
		{scatter.DTFloat16, meanRule{countSelf: true}, 2048, 2048, "float16 2049 rounds to 2048"},
		{scatter.DTFloat16, meanRule{countSelf: true}, 2049, 2050, "float16 2050 is exact"},
		{scatter.DTFloat16, meanRule{}, 70000, math.Inf(1), "float16 count overflows"},
		{scatter.DTFloat32, meanRule{}, 0, 1, "count 0 becomes 1"},
		{scatter.DTInt64, meanRule{countSelf: true}, 4, 5, "int64"},
	}
	for _, c := range cases {
		p := &plan{dtype: c.dt, kind: kMean, mean: &c.rule}
		if got := meanCount(p, srcs(c.n)); got != c.want {
			t.Errorf("%s: meanCount = %v, want %v", c.situation, got, c.want)
		}
	}
}

// TestBoundMean checks the mean span with SEMANTICS.md's examples and a
// single contribution (exact).
func TestBoundMean(t *testing.T) {
	s := meanSpan(stepIn(formatFloat32), []float64{10, 1, 2}, 3)
	want := float64(float32(13.0 / 3))
	if !s.contains(want) {
		t.Errorf("13/3: %v outside %+v", want, s)
	}
	// float16 per step: 2048 + ten 1s = 2048, / 11 = 186.125.
	xs := []float64{2048}
	for range 10 {
		xs = append(xs, 1)
	}
	s = meanSpan(stepIn(formatFloat16), xs, 11)
	if !s.contains(186.125) || !s.contains(roundToDT(scatter.DTFloat16, 2058.0/11)) {
		t.Errorf("float16 mean: span %+v", s)
	}
	// One contribution: exactly RN(x/c).
	s = meanSpan(stepIn(formatFloat32), []float64{1}, 3)
	if s.lo != s.hi || s.lo != float64(float32(1.0)/3) {
		t.Errorf("1/3 must be exact: %+v", s)
	}
	s = meanSpan(stepIn(formatFloat32), []float64{math.Inf(-1), 1}, 2)
	if !s.contains(math.Inf(-1)) || s.contains(0) {
		t.Errorf("-Inf mean: %+v", s)
	}
}

// TestBoundTightness checks that the intervals are not loose: for k
// contributions of one sign they are at most about 2(k-1)u relative wide
// plus the outward rounding.
func TestBoundTightness(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dt := range boundDTypes {
		f := formatOf(dt)
		for range 200 {
			k := 2 + r.IntN(30)
			xs := make([]float64, k)
			sum := 0.0
			for i := range xs {
				xs[i] = roundToDT(dt, 1+r.Float64())
				sum += xs[i]
			}
			s := sumSpan(stepIn(f), xs)
			u := math.Ldexp(1, -f.prec)
			width := (s.hi - s.lo) / sum
			limit := 2*float64(k-1)*u*1.01 + 4*u*2 // the bound and an ulp of outward rounding each side
			if width > limit {
				t.Errorf("%v: %d terms, relative width %g > %g", dt, k, width, limit)
			}
		}
	}
}

// TestRunningErrorTighter/{dtype}/k={k}: the running-error bound (4) never
// exceeds Higham's γ(k-1)·Σ|x_i| where (k-1)u < 1 (G(m) <= F(m), Q(m) <=
// Σ|x_i| and (1+u)^(k-2) <= 1/(1-(k-1)u)), and it holds the outcomes of the
// sequential orders. The ratio, for contributions of one magnitude, is
// logged (0.3 to 0.46: k²/2 against k², and the power of two below each
// node's bound).
func TestRunningErrorTighter(t *testing.T) {
	for _, dt := range boundDTypes {
		for _, k := range []int{16, 100, 1000} {
			t.Run(fmt.Sprintf("%v/k=%d", dt, k), func(t *testing.T) {
				f := formatOf(dt)
				r := rand.New(rand.NewPCG(uint64(k), 77))
				xs := make([]float64, k)
				for i := range xs {
					xs[i] = roundToDT(dt, 1+r.Float64())
				}
				rr, _ := runningSumError(f, xs, exactPrec(xs)).Float64()
				a := 0.0
				for _, x := range xs {
					a += x
				}
				u := math.Ldexp(1, -f.prec)
				if nu := float64(k-1) * u; nu < 1 {
					higham := nu / (1 - nu) * a
					t.Logf("R / (γ(k-1)·Σ|x|) = %.3f", rr/higham)
					if rr > higham {
						t.Errorf("R = %g > γ(k-1)·Σ|x| = %g", rr, higham)
					}
				}
				for _, o := range foldOrders[:2] {
					y := o.fold(xs, func(a, b float64) float64 { return roundToDT(dt, a+b) }, r)
					if math.Abs(y-a) > rr*(1+1e-9)+math.Abs(a)*1e-15 {
						t.Errorf("%s order: |%g - %g| > R = %g", o.name, y, a, rr)
					}
				}
			})
		}
	}
}

// TestApproxText: a product's bound is written to 10 digits while its
// exponent is small, from its logarithm past that, where big.Float's
// decimal conversion would take seconds.
func TestApproxText(t *testing.T) {
	pow := func(b float64, n int) *big.Float {
		x := new(big.Float).SetPrec(200).SetFloat64(1)
		f := new(big.Float).SetPrec(200).SetFloat64(b)
		for range n {
			x.Mul(x, f)
		}
		return x
	}
	for _, tc := range []struct {
		x    *big.Float
		want string
	}{
		{big.NewFloat(0), "0"},
		{big.NewFloat(1234.5), "1234.5"},
		{pow(2, 4000), pow(2, 4000).Text('g', 10)},
		{pow(1e300, 30000), "1.00000e+9000000"},
		{pow(2, 100000), "9.99002e+30102"}, // 2^100000 = 9.990020930...e30102
		{pow(0.5, 100000), "1.00100e-30103"},
		{pow(10, 5000), "1.00000e+5000"},
	} {
		if got := approxText(tc.x); got != tc.want {
			t.Errorf("approxText(2^%d·…) = %s, want %s", tc.x.MantExp(nil), got, tc.want)
		}
	}
}
