package reference

import (
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/scatterconf/scatter"
)

// Small groups are judged exactly: the conformant set of a float sum, mean
// or product with few contributions is the set of results that some order
// and some binary tree of the profile's arithmetic (arith) produces, not an
// interval around them.
//
// # Enumeration over subsets
//
// A binary tree over the contributions x_1..x_k combines, at its root, a
// tree over a subset A with a tree over its complement B = S \ A. So the
// values that the subset S can produce are
//
//	V({i}) = {x_i}
//	V(S)   = ∪ over splits S = A ⊔ B (A, B non-empty) of { fl(a ∘ b) : a ∈ V(A), b ∈ V(B) }
//
// with fl the accumulator's correctly rounded + or × (commutative, so each
// unordered split is taken once: A holds S's lowest element). V(S) is
// memoised per subset (2^k of them) and deduplicated, which is far cheaper
// than enumerating the (2k-3)!! labelled trees (945 at k = 6, 10395 at
// k = 7, 135135 at k = 8): the partial results of a subset coincide often,
// and every tree reuses them. A sequential order is a tree too, so every
// order and every tree is covered. The group's result is then, per
// profile:
//
//	per-step (acc = dtype):            V(all)
//	float32 accumulation, one rounding: { RN_dtype(z) : z ∈ V(all) }
//	mean:                              { RN_dtype(s / c) : s ∈ the sum's set }
//
// The identity that starts a group without self (+0 for sums, 1 for
// products) changes no value but a zero's sign: 0 + x and 1 · x are exact,
// and +0 + -0 is +0. The sign of a zero is kept throughout, for it is
// no matter of order: under round to nearest a sum is -0 exactly when
// every term is -0 (x + -x is +0, and an addition is exact where it would
// underflow), in every order and tree alike; so a group started by the
// identity turns the -0 of its all -0 terms into +0, whatever the order
// (a zero that a final rounding or a mean's division makes of a tiny
// value keeps that value's sign, which orders may change: the set holds
// what each tree gives). Specials need no case of their own: IEEE
// arithmetic on ±Inf and NaN is what each tree computes, so an order that
// overflows gives its Inf, and Inf + -Inf its NaN, exactly where some tree
// does.
//
// # Where it stops
//
// The number of values a subset can take grows with the trees, and the
// work is W = Σ over subsets S and splits A ⊔ B of |V(A)|·|V(B)|. Since
// |V(A)| is at most the number of trees over A, and the trees over S are
// the pairs of trees over its splits, W is at most Σ_j C(k,j)·(2j-3)!!:
// 1,875 at k = 6, 19,866 at k = 7, about 252,000 at k = 8. Groups of up to
// maxEnumerate contributions are enumerated while W stays under
// enumerateBudget = 32,768 combinations: every group of seven or fewer is
// judged exactly, and a group of eight when its partial results coincide
// enough (the rule for 16-bit types and for values of few bits; distinct
// float32 or float64 sums approach the tree count and fall back). Beyond
// either, the group gets the intervals of bounds.go (sound, only wider).
// The limit is one of cost: a cut-off group has spent at most the budget
// (about a millisecond) before the interval, and the judge meets many
// groups per call. At k = 9 and 10 even the splits alone (9,330 and
// 28,501 per group, (3^k - 2^(k+1) + 1)/2) rival the budget.
const (
	maxEnumerate    = 8
	enumerateBudget = 1 << 15
)

// arith is the arithmetic of a float group under a profile: contributions
// are combined in the accumulator's format acc, rounding every step, and
// the result is rounded once to the dtype out. acc == out is per-step
// rounding in the dtype (float32 and float64 always; 16-bit types under
// torch-1.13, in index_reduce and F#); acc = float32 for a 16-bit out is
// PyTorch 2's opmath accumulation (plan.accType).
type arith struct {
	acc, out *floatFormat
}

// stepIn is the arithmetic that rounds every step to the dtype of f.
func stepIn(f *floatFormat) arith { return arith{acc: f, out: f} }

// perStep reports whether every step rounds to the dtype itself.
func (a arith) perStep() bool { return a.acc == a.out }

// planArith returns the arithmetic of plan p (a float plan).
func planArith(p *plan) arith {
	return arith{acc: formatOf(p.accType()), out: formatOf(p.dtype)}
}

// enumKey is the identity of a value in a set: its float64 bits, with every
// NaN one key (the two zeros are two keys).
func enumKey(v float64) uint64 {
	if v != v {
		return 0x7ff8000000000001
	}
	return math.Float64bits(v)
}

// enumerateFold returns every value that some binary tree of the
// accumulator's + (prod false) or × (prod true) produces from xs, each
// value once (a NaN stands for every NaN), before the final rounding to
// the dtype; ok is false when the
// group is too large or the work would pass enumerateBudget.
func enumerateFold(acc scatter.DType, prod bool, xs []float64) (vals []float64, ok bool) {
	k := len(xs)
	if k == 0 || k > maxEnumerate {
		return nil, false
	}
	op := func(a, b float64) float64 {
		if prod {
			return roundTo(acc, a*b)
		}
		return roundTo(acc, a+b)
	}
	sets := make([][]float64, 1<<k)
	for i, x := range xs {
		sets[1<<i] = []float64{x}
	}
	var keys []uint64
	work := 0
	full := 1<<k - 1
	// Increasing masks visit every proper subset of a mask before it.
	for mask := 3; mask <= full; mask++ {
		if bits.OnesCount(uint(mask)) < 2 {
			continue
		}
		low := mask & -mask
		keys = keys[:0]
		// A runs over the proper subsets of mask holding its lowest bit.
		for a := (mask - 1) & mask; a > 0; a = (a - 1) & mask {
			if a&low == 0 {
				continue
			}
			va, vb := sets[a], sets[mask^a]
			work += len(va) * len(vb)
			if work > enumerateBudget {
				return nil, false
			}
			for _, x := range va {
				for _, y := range vb {
					keys = append(keys, enumKey(op(x, y)))
				}
			}
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		set := make([]float64, len(keys))
		for i, key := range keys {
			set[i] = math.Float64frombits(key)
		}
		sets[mask] = set
	}
	return sets[full], true
}

// enumeratedAllow returns the exact conformant set of a float sum, mean or
// product group with contributions xs (dtype values) under arithmetic ar
// (count: the mean's divisor; identity: a sum's group starts from +0, for
// it has no self), or ok false where the group is not enumerated (see
// maxEnumerate). The sign of a zero is kept: it is the same in every order
// but where a rounding makes the zero (see the package's note above).
func enumeratedAllow(ar arith, k kind, xs []float64, count float64, identity bool) (allow, bool) {
	dt := ar.out.dt
	prod := k == kProd
	sums, ok := enumerateFold(ar.acc.dt, prod, xs)
	if !ok {
		return allow{}, false
	}
	keys := make([]uint64, 0, len(sums))
	for _, v := range sums {
		if identity && !prod && v == 0 {
			v = 0 // +0 + -0: the identity makes every exact zero sum +0
		}
		y := roundTo(dt, v) // the final rounding: exact when acc == out
		if k == kMean {
			// PyTorch stores the sum in the dtype, then divides: correctly
			// rounded (in float32 for 16-bit types, innocuous as in
			// bounds.go); an Inf sum stays Inf, and a float16 count of +Inf
			// gives a zero (NaN for an infinite sum).
			y = roundTo(dt, y/count)
		}
		keys = append(keys, enumKey(y))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if len(keys) > maxListed {
		return hullAllow(dt, prod, keys, enumNote(k, len(xs), len(keys), ar, count)), true
	}
	var a allow
	for _, key := range keys {
		a.vals = append(a.vals, floatElem(dt, math.Float64frombits(key)))
	}
	a.note = enumNote(k, len(xs), len(keys), ar, count)
	return a, true
}

// maxListed is the most values an enumerated set lists; a larger one is
// judged by its hull (hullAllow), for reports and for Allowed's data that
// stay readable.
const maxListed = 32

// hullAllow returns the span from the least to the greatest finite value
// of the set keys (enumKey values of dtype dt), with its NaN and
// infinities: a superset of the set (sound), and still within the
// intervals of bounds.go. A product's finite values share one sign, which
// the span keeps for its zeros; a sum's zero sign is free.
func hullAllow(dt scatter.DType, prod bool, keys []uint64, note string) allow {
	s := span{empty: true}
	for _, key := range keys {
		v := math.Float64frombits(key)
		switch {
		case v != v:
			s.nan = true
		case math.IsInf(v, 1):
			s.posInf = true
		case math.IsInf(v, -1):
			s.negInf = true
		default:
			if s.empty || v < s.lo {
				s.lo = v
			}
			if s.empty || v > s.hi {
				s.hi = v
			}
			if prod {
				s.sign = int8(signOf(math.Signbit(v)))
			}
			s.empty = false
		}
	}
	s.note = note
	return allow{isRange: true, rng: s, note: note}
}

// enumNote says, for reports, how an enumerated set was formed (a mean's
// sum divided by count, as meanSpan's note says it).
func enumNote(k kind, n, size int, ar arith, count float64) string {
	what := "sum"
	switch k {
	case kProd:
		what = "product"
	case kMean:
		what = "mean"
	}
	how := "rounding every step"
	if !ar.perStep() {
		how = "in float32, rounded once"
	}
	values := strconv.Itoa(size) + " values"
	if size == 1 {
		values = "1 value"
	}
	if k == kMean {
		how += ", count " + strconv.FormatFloat(count, 'g', -1, 64)
	}
	return "every " + what + " of " + strconv.Itoa(n) + " terms in any order and tree, " + how + " (" + values + ")"
}
