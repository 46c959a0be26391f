package reference

import (
	"math/big"
	"slices"
)

// The running-error bound of a sum in any order and tree, from the actual
// magnitudes of the contributions rather than k·u·Σ|x_i|.
//
// # Derivation
//
// A tree computes, at each internal node v with children values a_v, b_v
// (themselves computed), ŝ_v = fl(a_v + b_v) = a_v + b_v + e_v with
// |e_v| <= u·|a_v + b_v| (round to nearest, u the accumulator's unit
// roundoff; sums of floats never underflow, bounds.go). Unrolling the tree,
// the computed sum is the exact sum plus every node's error (Higham,
// Accuracy and Stability of Numerical Algorithms, 2nd ed., §4.2, and
// Wilkinson's running error analysis):
//
//	ŝ - S = Σ_v e_v,    |ŝ - S| <= u · Σ_v |a_v + b_v|.               (3)
//
// Let T_v be the leaves under v, m = |T_v| >= 2, P_T and N_T the sums of
// its positive contributions and of the magnitudes of its negative ones.
// By the monotone bound (1') of bounds.go applied to the children,
// a_v <= P_A·(1+u)^(|A|-1) and b_v <= P_B·(1+u)^(|B|-1), with |A|, |B| <=
// m-1, so a_v + b_v <= P_T·(1+u)^(m-2), and likewise >= -N_T·(1+u)^(m-2):
//
//	|a_v + b_v| <= max(P_T, N_T)·(1+u)^(m-2) <= Q(m)·(1+u)^(m-2) =: F(m),
//
// where Q(m) is the larger of the sum of the m largest positive
// contributions and the sum of the m largest negative magnitudes (of all
// of them where there are fewer than m). F is non-decreasing in m.
//
// Round to nearest errs by at most half an ulp of the exact result, and a
// result x with 2^e <= |x| < 2^(e+1) has ulp(x)/2 = u·2^e, so
//
//	|e_v| <= u·2^⌊log2 |a_v + b_v|⌋ <= u·2^⌊log2 F(m)⌋ =: u·G(m),         (3')
//
// which is never more than u·F(m) and about 1.4 times less on average. G
// is non-decreasing in m too.
//
// Which trees make Σ_v G(|T_v|) largest? A tree has k-1 internal nodes;
// sort their sizes s_1 >= s_2 >= ... >= s_(k-1). Then s_j <= k-j+1: the j
// largest nodes contain the root and are closed upward (a parent is larger
// than its child), so they form a subtree of j internal nodes with j+1
// exits (children outside it), whose leaves partition the k leaves; a
// lowest node of the subtree has both children as exits, which hold at
// least s_j leaves together, and the other j-1 exits hold at least one
// each, so k >= s_j + j - 1. Since G is non-decreasing,
//
//	|ŝ - S| <= u · Σ_{m=2..k} 2^⌊log2(Q(m)·(1+u)^(m-2))⌋ =: R           (4)
//
// for every order and tree: the sequential order that adds the largest
// contributions first attains the node sizes k, k-1, ..., 2. (4) is never
// worse than Higham's γ(k-1)·Σ|x_i| to first order (G(m) <= F(m), Q(m) <=
// Σ|x_i|), two to three times as tight for contributions of one magnitude
// (Σ_m m ≈ k²/2 against k·(k-1), and the power of two), and far tighter
// where a few large contributions dominate, or where the signs are mixed
// (Q takes one sign at a time).
//
// Both accumulation models of the profiles use (4) with their own u: per
// step in the dtype (then ŝ is a dtype value in [S-R, S+R]) and float32
// accumulation of 16-bit data (then the float32 result z is in
// [S-R32, S+R32], a few float32 ulps, and the stored result RN_dtype(z) lies
// between RN_dtype of those ends, by monotonicity: mostly one or two
// values). R is computed from exact prefix sums, with every product and sum
// rounded up at workPrec bits (the power of two below an upper bound of F
// is at least the power of two below F), so it is an upper bound.

// runningSumError returns R of (4) for the finite contributions xs (NaN and
// ±Inf excluded by the caller) in a format of unit roundoff f.u, rounded up.
// prec is a precision at which every partial sum of xs is exact
// (exactPrec).
func runningSumError(f *floatFormat, xs []float64, prec uint) *big.Float {
	k := len(xs)
	r := newDir(true)
	if k < 2 {
		return r
	}
	var pos, neg []float64
	for _, x := range xs {
		switch {
		case x > 0:
			pos = append(pos, x)
		case x < 0:
			neg = append(neg, -x)
		}
	}
	// Largest first.
	for _, v := range [][]float64{pos, neg} {
		slices.Sort(v)
		slices.Reverse(v)
	}
	pSum := new(big.Float).SetPrec(prec) // the m largest positives, exact
	nSum := new(big.Float).SetPrec(prec)
	one := big.NewFloat(1)
	step := newDir(true).Add(one, f.u) // 1+u, exact at workPrec
	g := newDir(true).SetInt64(1)      // (1+u)^(m-2), rounded up
	term := newDir(true)
	for m := 1; m <= k; m++ {
		if m <= len(pos) {
			pSum.Add(pSum, big.NewFloat(pos[m-1]))
		}
		if m <= len(neg) {
			nSum.Add(nSum, big.NewFloat(neg[m-1]))
		}
		if m < 2 {
			continue
		}
		if m > 2 {
			g.Mul(g, step)
		}
		q := pSum
		if nSum.Cmp(pSum) > 0 {
			q = nSum
		}
		term.Mul(q, g) // F(m), rounded up
		if term.Sign() > 0 {
			term.SetMantExp(one, term.MantExp(nil)-1) // 2^⌊log2 F(m)⌋, exact
		}
		r.Add(r, term)
	}
	return r.Mul(r, f.u) // exact: u is a power of two
}

// runningSumBounds returns the ends S-R (rounded down) and S+R (rounded up)
// of (4), with S the exact sum pos - neg.
func runningSumBounds(f *floatFormat, xs []float64, pos, neg *big.Float, prec uint) (lower, upper *big.Float) {
	r := runningSumError(f, xs, prec)
	s := new(big.Float).SetPrec(prec+1).Sub(pos, neg) // exact
	return subDir(s, r, false), newDir(true).Add(s, r)
}
