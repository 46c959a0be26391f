package reference

// The tolerances of the conformant level. They are derived, not tuned: the
// set of a float sum, mean or product is what the profile's arithmetic
// (below) produces in *some* order and tree of the group's operations.
// Groups of up to maxEnumerate contributions get that set exactly, by
// enumeration (enumerate.go); larger ones an interval computed with exact
// or directed-rounding arithmetic that holds every order and tree
// (running_error.go and below), so that no correct implementation is
// rejected and as little as the analysis allows is accepted beyond. The
// soundness tests (bounds_test.go, enumerate_test.go and the properties
// package's CheckBoundSoundness) fold random contributions (huge, tiny,
// subnormal, mixed signs) in many orders and trees with each profile's
// arithmetic, and check that every outcome lands inside.
//
// # The profile's arithmetic
//
// The conformant level admits every order and tree of PyTorch's own
// arithmetic under the profile (PROFILES.md, scatter.Profile.RoundsPerStep;
// the plan's accType), and nothing else:
//
//   - float32 and float64: every step rounded to the dtype;
//   - float16 and bfloat16, per step (torch-1.13's scatter family, and
//     index_reduce, torch_scatter's mul kernel and the F# scatter in every
//     profile): every step rounded to the dtype;
//   - float16 and bfloat16 in the scatter family under torch 2 (the opmath
//     buffer): every step rounded to float32, the result rounded once to
//     the dtype;
//   - a mean stores the sum in the dtype, then divides it with one rounding.
//
// An implementation that accumulates in another precision (float32 data
// in float64, 16-bit data per step where PyTorch accumulates in float32 or
// the reverse, exactly), rounds with another rule (truncation, ties away
// from zero), or divides a mean's unrounded accumulator, gives answers that
// no order of PyTorch's arithmetic gives, and the conformant level rejects
// them wherever the analysis can tell (not always: a wrong rule that
// happens to produce a value some correct order also produces is
// invisible there, and only the strict level sees it). Such differences
// of another framework are what its xfail list records.

// # Model
//
// The dtype (float16, bfloat16, float32 or float64) has p significand bits
// (11, 8, 24, 53), unit roundoff u = 2^-p, smallest normal τ = 2^emin, largest
// finite value max and overflow threshold thr = max + ulp(max)/2 (the
// smallest magnitude that round-to-nearest sends to infinity). A correctly
// rounded operation on dtype values a, b, without overflow, gives
//
//	fl(a + b) = (a + b)(1 + δ),              |δ| <= u
//	fl(a * b) = (a * b)(1 + δ),              |δ| <= u, if |a*b| >= τ
//	|fl(a * b)| <= max(|a*b|(1 + u), τ)      always (RN is monotone and τ is a dtype value)
//
// Addition needs no underflow term: the exact sum of two dtype values below
// τ is a multiple of the smallest subnormal and is representable, so gradual
// underflow adds no error to sums. The 16-bit types, computed in float32 and
// rounded back after every step (c10::Half, c10::BFloat16), are correctly
// rounded too: float32's 24 bits are at least 2p+2 for p = 11 and p = 8, so
// the double rounding of +, *, / is innocuous (Figueroa, 1995).
//
// # Sum (scatter_add, scatter_reduce sum, the sum inside mean)
//
// The contributions x_1..x_k are self (when the plan includes it) and the
// src values; the identity +0 of an excluded self adds no rounding. Any order
// of summation is a binary tree with k leaves and k-1 additions; each leaf
// passes at most k-1 of them on its way to the root, so the computed sum is
//
//	ŝ = Σ x_i·μ_i,   (1-u)^(k-1) =: L <= μ_i <= H := (1+u)^(k-1).
//
// With P = Σ of the positive x_i and N = Σ |x_i| of the negative ones (both
// exact), every order gives
//
//	P·L - N·H  <=  ŝ  <=  P·H - N·L.                                     (1)
//
// This is Higham's any-order bound (Accuracy and Stability of Numerical
// Algorithms, 2nd ed., §4.2: |ŝ - S| <= γ(k-1)·Σ|x_i|, γ(n) = nu/(1-nu)),
// only tighter: H-1 <= γ(k-1) and 1-L <= γ(k-1), so (1) lies inside
// [S - γ(k-1)·A, S + γ(k-1)·A] with S = P - N, A = P + N; and (1) stays
// finite when (k-1)u >= 1, where γ does not. For k = 1 (one contribution and
// no self, or self alone) H = L = 1 and (1) is the exact value.
//
// (1) holds for any correctly rounded accumulator with its own u, and the
// judge applies it, intersected with the monotone bound (1') below and the
// running-error bound (4) of running_error.go, with the accumulator's u:
//   - per-step rounding in the dtype: ŝ is a dtype value inside the
//     intersection, so inside [RD(lower), RU(upper)], the ends rounded
//     outward to the dtype (RD/RU: toward -inf/+inf);
//   - accumulation in float32 with one final rounding to the 16-bit dtype
//     (PyTorch 2's opmath buffer): the float32 result z obeys the bounds
//     with u = 2^-24, and round to nearest is monotone, so RN(z) lies in
//     [RN(lower), RN(upper)], usually one or two values: the interval of z
//     is a few float32 ulps, far below the 16-bit ulp. (This is what
//     rejects a truncated or otherwise misrounded final store.)
//
// The ends are computed from exact P and N (math/big with enough bits:
// float64 values span 2^-1074 .. 2^1024) and H, L, products and
// differences rounded in the safe direction at 256 bits, so the interval
// is rigorous. The outward rounding maps an end beyond max to ±max when it
// is below thr (round-to-nearest of such a value is ±max) and to ±Inf from
// thr on; RN does the same.
//
// Zero signs are not judged inside an interval (values compare as numbers):
// an exact cancellation gives +0, an all -0 group with self gives -0, and
// whether an implementation's identity is +0 or the first element is not a
// numerical question. The strict level judges them.
//
// Monotonicity tightens (1) at no risk. Round-to-nearest is monotone, so
// fl(a + b) is non-decreasing in a and in b, and so is a whole tree of
// additions in each leaf. Replacing every negative leaf by 0 can only raise
// the result, and leaves a tree that adds only the nPos positive
// contributions (adding 0 is exact), with at most nPos-1 roundings on any
// path. Hence
//
//	-N·(1+u)^(nNeg-1)  <=  ŝ  <=  P·(1+u)^(nPos-1),                      (1')
//
// and the judge uses the intersection of (1) and (1'). For one positive
// contribution and small negative ones, (1') is the sharper upper end.
//
// Overflow. Every partial sum over a subset T obeys (1') restricted to T,
// for whatever tree computed it, as long as no overflow has occurred; the
// exact result of the first operation that overflows is the exact sum of
// two such partial sums and obeys it too. Hence +Inf is reachable in some
// order only if P·(1+u)^(nPos-1) >= thr, -Inf only if
// N·(1+u)^(nNeg-1) >= thr, and NaN (+Inf + -Inf) only if both; the judge
// accepts these outcomes exactly then (conservatively: it does not check
// that such an order exists). A finite outcome had no overflow, so it obeys
// (1) and (1'). A wider accumulator overflows later, not earlier: with a
// float32 accumulator of 16-bit data (its u and thr for (1') and the
// overflow), ±Inf needs a partial sum past float32's threshold (for
// bfloat16 just past the dtype's own), or a final z, within the finite
// bounds, that reaches the dtype's thr in its one rounding; NaN needs
// partial sums of both signs past float32's threshold (a z that rounds
// to Inf is the last operation: nothing meets it).
//
// Specials are exact, as IEEE arithmetic makes them order independent: a NaN
// contribution, or both +Inf and -Inf, give NaN; one infinity gives that
// infinity, or NaN too where the finite contributions of the other sign can
// overflow (N·(1+u)^(nNeg-1) >= thr against +Inf).
//
// # Mean
//
// The mean divides the sum ŝ by the count c. The count is exact under the
// profile (meanCount: it saturates, wraps or clamps exactly as PyTorch's
// count tensor does), and the division is correctly rounded (in float32 and
// rounded back for 16-bit types: innocuous, as above). PyTorch stores the
// sum in the output's dtype before it divides (torch 1.13 and 2.x; checked
// on 1.13: the float16 mean of 60000 and 60000 is inf, and so is the
// float32 mean of 3e38 and 3e38), so the mean is RN(s/c) for a dtype value
// s of the sum's set. q ↦ RN(q/c) is monotone for c > 0, so with s in
// [lo, hi] (the sum's interval, dtype values) the mean lies in
// [RN(lo/c), RN(hi/c)]; a small group's exact set maps value by value. A
// sum that overflows the dtype makes the mean ±Inf, and the judge accepts
// ±Inf alone there: a finite mean computed from a wider, unrounded sum is
// not PyTorch's answer. Specials propagate: NaN stays NaN, ±Inf/c = ±Inf.
//
// # Product (scatter_reduce prod, scatter's multiply, torch_scatter mul)
//
// Specials first, all order independent: a NaN gives NaN; a zero and an
// infinity give NaN (0·Inf); a zero gives a zero, an infinity an infinity.
// The sign of every non-NaN result is the exclusive or of the factors' sign
// bits, in any order, zeros and infinities included.
//
// All factors finite and non-zero, P = Π|x_i| (bounded at 256 bits, rounded
// down and up), G = Π of the |x_i| > 1 and s = Π of the |x_i| < 1. A tree of
// k-1 multiplications gives, for every subtree T (by induction, using the
// third model line and P_T <= G_T, τ <= 1):
//
//	|v_T| <= (1+u)^(|T|-1) · max(P_T, τ·G_T)                            (2)
//
// so |ŷ| <= H·max(P, τ·G). When s·L >= τ no partial product can drop below τ
// (every subset product is at least s, and each step loses at most a factor
// 1-u), so the relative model holds at every step and |ŷ| >= P·L. Otherwise
// underflow is reachable and the lower magnitude bound is 0 (a subnormal
// partial product can lose all its digits). When s·L >= τ, max(P, τ·G) = P
// and the upper bound is the familiar P·(1+u)^(k-1); the τ·G term is what
// gradual underflow can add when it rounds a tiny partial product up before
// large factors multiply it.
//
// Overflow: by (2) every partial product, and the exact result of the first
// operation that overflows, is at most H·G in magnitude, so a signed Inf is
// reachable only if H·G >= thr. Where both overflow and underflow are
// reachable, Inf·0 = NaN is too. Likewise a zero factor with reachable
// overflow may give NaN, and an infinite factor with reachable underflow may
// give NaN. The bounds and the flags use the accumulator's u, τ and
// threshold: per step, the dtype's, and the magnitude interval is rounded
// outward to the dtype; with a float32 accumulator of 16-bit data, the
// interval's ends are rounded to nearest once, as for sums, and that one
// rounding gives ±Inf where the interval reaches the dtype's thr (a
// partial product past 65504 is a float32 value, not an overflow). The
// magnitude interval gets the exact sign.
// A product's error does not depend on the tree (every multiplication
// scales the whole product by its 1+δ), so (2) cannot be tightened by
// ordering as sums are; small groups are enumerated instead.

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"sync"

	"github.com/scatterconf/scatter"
)

// workPrec is the precision of the directed-rounding arithmetic on bounds.
// It only has to exceed the dtypes' 53 bits by a wide margin: every quantity
// computed at it is rounded in the safe direction.
const workPrec = 256

// floatFormat describes a float dtype for the bounds.
type floatFormat struct {
	dt   scatter.DType
	prec int // significand bits, the implicit bit included
	emin int // the smallest normal number is 2^emin
	emax int // the largest finite number is in [2^emax, 2^(emax+1))

	u, tau, max, thr *big.Float // exact

	growthCache sync.Map // n -> [2]*big.Float{H, L}
}

func newFloatFormat(dt scatter.DType) *floatFormat {
	ff := scatter.FactsOf(dt)
	prec, emin, emax := ff.Prec, ff.EMin, ff.EMax
	f := &floatFormat{dt: dt, prec: prec, emin: emin, emax: emax}
	f.u = bigPow2(-prec)
	f.tau = bigPow2(emin)
	top := bigPow2(emax + 1)
	f.max = newBig().Sub(top, bigPow2(emax+1-prec)) // 2^(emax+1) - ulp(max)
	f.thr = newBig().Sub(top, bigPow2(emax-prec))   // max + ulp(max)/2
	return f
}

var (
	formatFloat16  = newFloatFormat(scatter.DTFloat16)
	formatBFloat16 = newFloatFormat(scatter.DTBFloat16)
	formatFloat32  = newFloatFormat(scatter.DTFloat32)
	formatFloat64  = newFloatFormat(scatter.DTFloat64)
)

// formatOf returns the format of a float dtype, or nil.
func formatOf(dt scatter.DType) *floatFormat {
	switch dt {
	case scatter.DTFloat16:
		return formatFloat16
	case scatter.DTBFloat16:
		return formatBFloat16
	case scatter.DTFloat32:
		return formatFloat32
	case scatter.DTFloat64:
		return formatFloat64
	}
	return nil
}

// newBig returns a zero at the working precision, rounding to nearest.
func newBig() *big.Float { return new(big.Float).SetPrec(workPrec) }

// newDir returns a zero at the working precision that rounds up (toward
// +inf) or down (toward -inf).
func newDir(up bool) *big.Float {
	if up {
		return newBig().SetMode(big.ToPositiveInf)
	}
	return newBig().SetMode(big.ToNegativeInf)
}

// bigPow2 returns 2^e exactly.
func bigPow2(e int) *big.Float { return newBig().SetMantExp(big.NewFloat(1), e) }

// bigExact returns x exactly (x may be infinite, not NaN).
func bigExact(x float64) *big.Float { return newBig().SetFloat64(x) }

// powDir returns b^n rounded up (every factor and partial product is
// positive, so rounding each step up bounds the power from above) or down.
func powDir(b *big.Float, n int, up bool) *big.Float {
	r := newDir(up).SetInt64(1)
	base := newDir(up).Set(b)
	for n > 0 {
		if n&1 == 1 {
			r.Mul(r, base)
		}
		n >>= 1
		if n > 0 {
			base.Mul(base, base)
		}
	}
	return r
}

// growth returns H = (1+u)^n rounded up and L = (1-u)^n rounded down: the
// extreme factors that n roundings can apply to a value. The results are
// cached and must not be modified.
func (f *floatFormat) growth(n int) (h, l *big.Float) {
	if n < 0 {
		n = 0
	}
	if hl, ok := f.growthCache.Load(n); ok {
		p := hl.([2]*big.Float)
		return p[0], p[1]
	}
	one := big.NewFloat(1)
	h = powDir(newBig().Add(one, f.u), n, true)
	l = powDir(newBig().Sub(one, f.u), n, false)
	f.growthCache.Store(n, [2]*big.Float{h, l})
	return h, l
}

// mulDir returns a*b rounded up or down.
func mulDir(a, b *big.Float, up bool) *big.Float { return newDir(up).Mul(a, b) }

// subDir returns a-b rounded up or down.
func subDir(a, b *big.Float, up bool) *big.Float { return newDir(up).Sub(a, b) }

// endpoint rounds an end of an interval outward to the values that a
// round-to-nearest result in the dtype can take: down (toward -inf) for a
// lower end, up for an upper end. Beyond the largest finite value it gives
// ±max while |x| < thr (round-to-nearest of such x is ±max) and ±Inf from
// thr on, so that an infinity enters an interval only where rounding can
// really produce it.
func (f *floatFormat) endpoint(x *big.Float, up bool) float64 {
	neg := x.Signbit()
	if x.IsInf() {
		return math.Inf(signOf(neg))
	}
	a := new(big.Float).Abs(x)
	if a.Cmp(f.thr) >= 0 {
		return math.Inf(signOf(neg))
	}
	if a.Cmp(f.max) > 0 {
		m, _ := f.max.Float64()
		if neg {
			return -m
		}
		return m
	}
	return f.roundDir(x, up)
}

func signOf(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

// roundDir rounds a finite x with |x| <= max to the nearest dtype value at
// or below it (up false) or at or above it (up true), subnormals included.
// The result is exact as a float64 (+0 for a zero).
func (f *floatFormat) roundDir(x *big.Float, up bool) float64 {
	if x.Sign() == 0 {
		return 0
	}
	sub := f.emin + 1 - f.prec // the smallest subnormal is 2^sub
	if new(big.Float).Abs(x).Cmp(f.tau) < 0 {
		// Subnormal range: a multiple of 2^sub. The scaling is exact.
		q := new(big.Float).SetMantExp(x, -sub)
		n, acc := q.Int(nil) // truncated toward zero
		if acc != big.Exact {
			if up && q.Sign() > 0 {
				n.Add(n, big.NewInt(1))
			}
			if !up && q.Sign() < 0 {
				n.Sub(n, big.NewInt(1))
			}
		}
		v := math.Ldexp(float64(n.Int64()), sub) // |n| < 2^(prec-1): exact
		if v == 0 && x.Signbit() {
			return math.Copysign(0, -1)
		}
		return v
	}
	mode := big.ToNegativeInf
	if up {
		mode = big.ToPositiveInf
	}
	r := new(big.Float).SetMode(mode).SetPrec(uint(f.prec)).Set(x)
	v, _ := r.Float64() // prec <= 53 bits inside float64's range: exact
	return v
}

// nearest rounds x to the nearest dtype value, ties to even, with
// overflow to ±Inf from thr on.
func (f *floatFormat) nearest(x *big.Float) float64 {
	if x.IsInf() {
		return math.Inf(signOf(x.Signbit()))
	}
	a := new(big.Float).Abs(x)
	if a.Cmp(f.thr) >= 0 {
		return math.Inf(signOf(x.Signbit()))
	}
	if a.Cmp(f.max) > 0 {
		m, _ := f.max.Float64()
		return math.Copysign(m, float64(signOf(x.Signbit())))
	}
	lo, hi := f.roundDir(x, false), f.roundDir(x, true)
	if lo == hi {
		return lo
	}
	// lo and hi are adjacent dtype values; their midpoint is exact at 128 bits.
	mid := new(big.Float).SetPrec(128).Add(bigExact(lo), bigExact(hi))
	mid.SetMantExp(mid, -1)
	switch x.Cmp(mid) {
	case -1:
		return lo
	case 1:
		return hi
	}
	if dtypeBits(f.dt, lo)&1 == 0 {
		return lo
	}
	return hi
}

// dtypeBits returns the bit pattern of the dtype value v (exactly
// representable) in a float dtype.
func dtypeBits(dt scatter.DType, v float64) uint64 {
	switch dt {
	case scatter.DTFloat16:
		return uint64(scatter.Float16FromFloat64(v))
	case scatter.DTBFloat16:
		return uint64(scatter.BFloat16FromFloat64(v))
	case scatter.DTFloat32:
		return uint64(math.Float32bits(float32(v)))
	}
	return math.Float64bits(v)
}

// span is a set of float outcomes: the dtype values y with lo <= y <= hi
// (as numbers, so ±0 alike) whose sign bit agrees with sign (+1 clear, -1
// set, 0 either), unless empty; plus NaN, +Inf and -Inf where flagged.
type span struct {
	lo, hi              float64
	empty               bool
	sign                int8
	nan, posInf, negInf bool
	note                string // the exact value, for reports
}

// contains reports whether y (a dtype value) is in s.
func (s span) contains(y float64) bool {
	switch {
	case math.IsNaN(y):
		return s.nan
	case math.IsInf(y, 1) && s.posInf, math.IsInf(y, -1) && s.negInf:
		return true
	case s.empty || y < s.lo || y > s.hi:
		return false
	}
	return s.sign == 0 || (s.sign < 0) == math.Signbit(y)
}

// exactPrec returns a precision at which every partial sum of the finite
// values xs is exact: each is a multiple of 2^(e-53) below 2^e in magnitude
// (x = frac·2^e, frac in [0.5, 1), 53 significand bits at most), so a sum of
// n of them is a multiple of 2^(emin-53) below n·2^emax. At most about 2100
// bits (float64 values span 2^-1074 .. 2^1024), usually far fewer.
func exactPrec(xs []float64) uint {
	lo, hi, seen := 0, 0, false
	for _, x := range xs {
		if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		_, e := math.Frexp(x)
		if !seen || e < lo {
			lo = e
		}
		if !seen || e > hi {
			hi = e
		}
		seen = true
	}
	return uint(hi-lo+53+bits.Len(uint(len(xs)))) + 1
}

// sumSpan returns the outcomes of summing xs (dtype values) in any order
// and tree with the arithmetic ar: rounding every step in the dtype, or in
// float32 with one final rounding to the 16-bit dtype (see the derivation
// above and running_error.go).
func sumSpan(ar arith, xs []float64) span {
	f, acc := ar.out, ar.acc
	var hasNaN, hasPosInf, hasNegInf bool
	var nPos, nNeg int
	prec := exactPrec(xs)
	pos := new(big.Float).SetPrec(prec) // P, exact
	neg := new(big.Float).SetPrec(prec) // N, exact
	for _, x := range xs {
		switch {
		case math.IsNaN(x):
			hasNaN = true
		case math.IsInf(x, 1):
			hasPosInf = true
		case math.IsInf(x, -1):
			hasNegInf = true
		case x > 0:
			pos.Add(pos, big.NewFloat(x))
			nPos++
		case x < 0:
			neg.Add(neg, big.NewFloat(-x))
			nNeg++
		}
	}
	if hasNaN || hasPosInf && hasNegInf {
		return span{empty: true, nan: true, note: "nan"}
	}
	// The accumulator's own overflow: (1') with its u against its
	// threshold (per step, the dtype's). Only a partial sum that overflows
	// the accumulator is an infinity another can meet (NaN).
	hPos, _ := acc.growth(nPos - 1)
	hNeg, _ := acc.growth(nNeg - 1)
	posTop := mulDir(pos, hPos, true)  // the largest a sum can get: (1') with only the positives
	negTop := mulDir(neg, hNeg, true)  // the largest magnitude of a negative sum
	posAcc := posTop.Cmp(acc.thr) >= 0 // a partial sum can reach +Inf in the accumulator
	negAcc := negTop.Cmp(acc.thr) >= 0 // ... -Inf
	if hasPosInf {
		return span{empty: true, posInf: true, nan: negAcc, note: "inf"}
	}
	if hasNegInf {
		return span{empty: true, negInf: true, nan: posAcc, note: "-inf"}
	}
	// The finite outcomes: (1), (1') and (4) with the accumulator's u.
	h, l := acc.growth(len(xs) - 1)
	aPos, _ := acc.growth(nPos - 1)
	aNeg, _ := acc.growth(nNeg - 1)
	upper := subDir(mulDir(pos, h, true), mulDir(neg, l, false), true)
	if top := mulDir(pos, aPos, true); top.Cmp(upper) < 0 {
		upper = top
	}
	lower := subDir(mulDir(pos, l, false), mulDir(neg, h, true), false)
	if bottom := newBig().Neg(mulDir(neg, aNeg, true)); bottom.Cmp(lower) > 0 {
		lower = bottom
	}
	rLo, rHi := runningSumBounds(acc, xs, pos, neg, prec) // xs is finite here
	if rHi.Cmp(upper) < 0 {
		upper = rHi
	}
	if rLo.Cmp(lower) > 0 {
		lower = rLo
	}
	// ±Inf: the accumulator overflows, or its z, within [lower, upper]
	// where it does not, reaches the dtype's thr in the store (per step
	// the store is exact and [lower, upper] within (1'), so only the
	// first counts; a float32 accumulator of 16-bit data overflows only
	// past float32's threshold, at or past the dtype's).
	posOver := posAcc || upper.Cmp(f.thr) >= 0
	negOver := negAcc || newBig().Neg(lower).Cmp(f.thr) >= 0
	exact := new(big.Float).SetPrec(prec).Sub(pos, neg)
	lo, hi := f.endpoint(lower, false), f.endpoint(upper, true)
	if !ar.perStep() {
		// The accumulator's result z is in [lower, upper]; the stored
		// RN(z) is between RN of the ends (round to nearest is monotone).
		lo, hi = f.nearest(lower), f.nearest(upper)
	}
	return span{
		lo:     lo,
		hi:     hi,
		posInf: posOver,
		negInf: negOver,
		nan:    posAcc && negAcc,
		note:   "exact sum " + exact.Text('g', 10) + " of " + strconv.Itoa(len(xs)) + " terms",
	}
}

// meanSpan returns the outcomes of the mean: the sum of xs, in any order
// and tree with the arithmetic ar, stored in the dtype, then divided by the
// count c (> 0, exact under the profile) with one rounding.
func meanSpan(ar arith, xs []float64, c float64) span {
	f := ar.out
	s := sumSpan(ar, xs)
	if math.IsInf(c, 1) {
		// A float16 count of 65520 or more rounds to +Inf: a finite sum
		// gives a zero, an infinite one NaN.
		return span{nan: s.nan || s.posInf || s.negInf, empty: s.empty, note: s.note + ", count inf"}
	}
	if s.empty {
		return s // NaN stays NaN, ±Inf/c = ±Inf
	}
	m := span{posInf: s.posInf, negInf: s.negInf, nan: s.nan}
	// The stored sum is a dtype value in [lo, hi] and the mean is RN(sum/c),
	// monotone in the sum: RN(lo/c) and RN(hi/c) bound it. The quotient at
	// 256 bits, rounded again to the dtype, is RN(q): 256 >= 2·53+2 makes
	// that double rounding innocuous.
	bc := bigExact(c)
	m.lo = f.nearest(newBig().Quo(bigExact(s.lo), bc))
	m.hi = f.nearest(newBig().Quo(bigExact(s.hi), bc))
	m.note = s.note + ", count " + big.NewFloat(c).Text('g', -1)
	return m
}

// prodSpan returns the outcomes of multiplying xs (dtype values) in any
// order and tree with the arithmetic ar (see the derivation above).
func prodSpan(ar arith, xs []float64) span {
	f, acc := ar.out, ar.acc
	var hasNaN, hasZero, hasInf, negative bool
	pUp, pDown := newDir(true).SetInt64(1), newDir(false).SetInt64(1) // |P|
	gUp := newDir(true).SetInt64(1)                                   // Π |x| > 1
	sDown := newDir(false).SetInt64(1)                                // Π |x| < 1
	for _, x := range xs {
		if math.IsNaN(x) {
			hasNaN = true
			continue
		}
		if math.Signbit(x) {
			negative = !negative
		}
		a := math.Abs(x)
		switch {
		case a == 0:
			hasZero = true
		case math.IsInf(a, 0):
			hasInf = true
		default:
			b := big.NewFloat(a)
			pUp.Mul(pUp, b)
			pDown.Mul(pDown, b)
			if a > 1 {
				gUp.Mul(gUp, b)
			} else if a < 1 {
				sDown.Mul(sDown, b)
			}
		}
	}
	sign := int8(1)
	if negative {
		sign = -1
	}
	if hasNaN || hasZero && hasInf {
		return span{empty: true, nan: true, note: "nan"}
	}
	// The partial products are the accumulator's values: the flags take
	// its u, τ and threshold (per step, the dtype's).
	ha, la := acc.growth(len(xs) - 1)
	over := mulDir(gUp, ha, true).Cmp(acc.thr) >= 0    // a partial product can overflow: a signed Inf
	under := mulDir(sDown, la, false).Cmp(acc.tau) < 0 // a partial product below τ is reachable
	s := span{sign: sign}
	switch {
	case hasZero:
		// A signed zero (lo = hi = 0, the sign bit fixed), or Inf·0.
		s.nan = over
		s.note = "a zero factor"
	case hasInf:
		s.empty = true
		s.posInf, s.negInf = !negative, negative
		s.nan = under // 0·Inf
		s.note = "an infinite factor"
	default:
		// (2) and the lower bound with the accumulator's u and τ.
		upper := mulDir(pUp, ha, true)
		if tg := mulDir(mulDir(acc.tau, gUp, true), ha, true); tg.Cmp(upper) > 0 {
			upper = tg
		}
		lower := newBig()
		if mulDir(sDown, la, false).Cmp(acc.tau) >= 0 {
			lower = mulDir(pDown, la, false)
		}
		s.lo, s.hi = f.endpoint(lower, false), f.endpoint(upper, true)
		if !ar.perStep() {
			s.lo, s.hi = f.nearest(lower), f.nearest(upper) // RN(z) once, monotone
			// the one rounding overflows where z can reach the dtype's thr
			over = over || upper.Cmp(f.thr) >= 0
		}
		if negative {
			s.lo, s.hi = -s.hi, -s.lo
		}
		s.posInf, s.negInf = over && !negative, over && negative
		s.nan = over && under
		sgn := ""
		if negative {
			sgn = "-"
		}
		s.note = "exact product ≈ " + sgn + approxText(pDown) + " of " + strconv.Itoa(len(xs)) + " factors"
	}
	return s
}

// approxText writes a positive x (a bound of a product: its exponent may
// be in the millions) in decimal, to 10 significant digits while its
// binary exponent is within ±4096, else to 6 from its logarithm.
// big.Float's own decimal conversion costs time in the size of the
// exponent (12 s for a product of 30,000 factors of 1e300).
func approxText(x *big.Float) string {
	mant := newBig()
	exp := x.MantExp(mant)
	if x.Sign() == 0 || exp > -4096 && exp < 4096 {
		return x.Text('g', 10)
	}
	m, _ := mant.Float64() // in [0.5, 1)
	l := math.Log10(m) + float64(exp)*math.Log10(2)
	e := math.Floor(l)
	d := math.Pow(10, l-e)
	if d >= 9.999995 { // rounds up to 10.00000 below
		d, e = 1, e+1
	}
	sign := "e+"
	if e < 0 {
		sign, e = "e-", -e
	}
	return strconv.FormatFloat(d, 'f', 5, 64) + sign + strconv.FormatInt(int64(e), 10)
}
