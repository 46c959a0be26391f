package reference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
)

// truncate16 rounds x toward zero to the 16-bit dtype dt: the store of a
// float32 accumulator with the wrong rounding mode.
func truncate16(dt scatter.DType, x float64) float64 {
	y := roundToDT(dt, x)
	if math.IsNaN(x) || y == x || math.Abs(y) < math.Abs(x) {
		return y
	}
	if dt == scatter.DTFloat16 {
		return scatter.Float16(uint16(scatter.Float16FromFloat64(y)) - 1).Float64()
	}
	return scatter.BFloat16(uint16(scatter.BFloat16FromFloat64(y)) - 1).Float64()
}

// sixteenBit returns a 16-bit tensor of the values xs (exact in dt).
func sixteenBit(dt scatter.DType, xs ...float64) scatter.Tensor {
	t := scatter.Tensor{Shape: []int{len(xs)}, Data: scatter.MakeData(dt, len(xs))}
	for i, x := range xs {
		setFloat(t.Data, i, x)
	}
	return t
}

// TestConformantRejectsMisrounding/{bug}/{dtype}/{sum,mean}/k={k}: a
// float16 or bfloat16 sum (or mean) accumulated in float32, as PyTorch 2
// does, but stored with a bug, is rejected at the conformant level for
// every group size wherever the bug changes the answer: the exact sets of
// small groups and the running-error interval of large ones (a few float32
// ulps, rounded to nearest once) leave the wrong value out unless some
// order gives it. The bugs: the float32 result truncated to the dtype
// instead of rounded to nearest, and (means) the float32 accumulator
// divided and rounded once instead of the sum stored in the dtype. The
// correctly rounded answer of the same order is accepted. The share
// rejected is logged; the test fails if none is, or if the bug never
// changed the answer (it would prove nothing).
func TestConformantRejectsMisrounding(t *testing.T) {
	sizes := []int{2, 3, 4, 6, 8, 10, 11, 16, 32, 64, 128, 256, 1024}
	bugs := []struct {
		name  string
		kinds []kind
		// store returns the bug's answer from the float32 result z (and
		// the count c of a mean, 0 for a sum).
		store func(dt scatter.DType, z, c float64) float64
	}{
		{"truncation", []kind{kSum, kMean}, func(dt scatter.DType, z, c float64) float64 {
			if c == 0 {
				return truncate16(dt, z)
			}
			return roundToDT(dt, truncate16(dt, z)/c)
		}},
		{"mean-of-accumulator", []kind{kMean}, func(dt scatter.DType, z, c float64) float64 {
			return roundToDT(dt, z/c)
		}},
	}
	for _, bug := range bugs {
		for _, dt := range []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16} {
			for _, k := range bug.kinds {
				for _, n := range sizes {
					if bug.name == "mean-of-accumulator" && n&(n-1) == 0 {
						continue // a count of 2^j divides exactly: the bug changes nothing
					}
					t.Run(fmt.Sprintf("%s/%v/%v/k=%d", bug.name, dt, k, n), func(t *testing.T) {
						differ, rejected, trials := misroundingTrials(t, dt, k, n, bug.store)
						t.Logf("%d of %d wrong answers that differ from the rounded one rejected", rejected, differ)
						if differ > 0 && rejected == 0 {
							t.Errorf("no wrong answer rejected (%d differ)", differ)
						}
						if differ == 0 {
							t.Errorf("the bug never changed the answer in %d groups: the test proves nothing", trials)
						}
					})
				}
			}
		}
	}
}

// misroundingTrials draws groups of n 16-bit values (self first), folds
// each in float32 in the canonical order, and judges the correctly rounded
// answer (which must conform) and store's (counted: differ, rejected).
func misroundingTrials(t *testing.T, dt scatter.DType, k kind, n int,
	store func(dt scatter.DType, z, c float64) float64) (differ, rejected, trials int) {
	r := rand.New(rand.NewPCG(uint64(n), uint64(dt)))
	trials = 80
	if n >= 256 {
		trials = 20
	}
	for range trials {
		xs := make([]float64, n)
		mixed := r.IntN(3) == 0
		for i := range xs {
			x := math.Ldexp(1+r.Float64(), r.IntN(8)-4)
			if mixed && r.IntN(2) == 0 {
				x = -x
			}
			xs[i] = roundToDT(dt, x)
		}
		z := xs[0]
		for _, x := range xs[1:] {
			z = float64(float32(z + x))
		}
		p := judgePlan(sixteenBit(dt, xs[0]), sixteenBit(dt, xs[1:]...), k, true, group{srcs: judgeSeq(n - 1)})
		good, c := roundToDT(dt, z), 0.0
		if k == kMean {
			p.mean = &meanRule{countSelf: true}
			c = roundToDT(dt, float64(n))
			good = roundToDT(dt, good/c)
		}
		bad := store(dt, z, c)
		e := judgeExpect(p, scatter.Result{Out: sixteenBit(dt, good)})
		mustConform(t, e, scatter.Conformant, scatter.Result{Out: sixteenBit(dt, good)}, nil, "rounded to nearest")
		if bad == good {
			continue
		}
		differ++
		if e.Check(scatter.Conformant, scatter.Result{Out: sixteenBit(dt, bad)}, nil) != nil {
			rejected++
		}
	}
	return differ, rejected, trials
}

// TestEnumerateAllTrees compares enumerateFold with a brute force over
// every labelled binary tree (k <= 6): the same set of values, in every
// float dtype and both accumulations, for sums and products.
func TestEnumerateAllTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, dt := range boundDTypes {
		for _, acc := range []scatter.DType{dt, scatter.DTFloat32} {
			if acc == scatter.DTFloat32 && dt != scatter.DTFloat16 && dt != scatter.DTBFloat16 {
				continue
			}
			for _, prod := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/acc=%v/prod=%v", dt, acc, prod), func(t *testing.T) {
					for range 40 {
						k := 2 + r.IntN(5)
						xs := make([]float64, k)
						for i := range xs {
							xs[i] = randomBoundValue(r, dt, r.IntN(4) == 0, r.IntN(6)-3)
							if prod {
								xs[i] = roundToDT(dt, 1+math.Ldexp(r.Float64()-0.5, -r.IntN(4)))
							}
						}
						got, ok := enumerateFold(acc, prod, xs)
						if !ok {
							t.Fatalf("%v: not enumerated", xs)
						}
						want := bruteTrees(acc, prod, xs)
						if !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
							t.Errorf("%v: enumerated %v, every tree gives %v", xs, got, want)
						}
					}
				})
			}
		}
	}
}

// bruteTrees returns the sorted distinct keys (enumKey) of every labelled
// binary tree over xs, built by merging every pair of the remaining items.
func bruteTrees(acc scatter.DType, prod bool, xs []float64) []float64 {
	seen := map[uint64]bool{}
	var rec func(items []float64)
	rec = func(items []float64) {
		if len(items) == 1 {
			seen[enumKey(items[0])] = true
			return
		}
		for i := range items {
			for j := i + 1; j < len(items); j++ {
				v := roundToDT(acc, items[i]+items[j])
				if prod {
					v = roundToDT(acc, items[i]*items[j])
				}
				rest := []float64{v}
				for l, x := range items {
					if l != i && l != j {
						rest = append(rest, x)
					}
				}
				rec(rest)
			}
		}
	}
	rec(xs)
	var keys []uint64
	for key := range seen {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	out := make([]float64, len(keys))
	for i, key := range keys {
		out[i] = math.Float64frombits(key)
	}
	return out
}

// BenchmarkEnumerate/{dtype}/acc={acc}/k={k}: the exact set of one sum of k
// random values of one binade and mixed signs (distinct partial sums: near
// the worst case), or the fallback where the work budget runs out.
func BenchmarkEnumerate(b *testing.B) {
	for _, c := range []struct{ dt, acc scatter.DType }{
		{scatter.DTFloat16, scatter.DTFloat16}, {scatter.DTBFloat16, scatter.DTFloat32},
		{scatter.DTFloat32, scatter.DTFloat32}, {scatter.DTFloat64, scatter.DTFloat64},
	} {
		for _, k := range []int{4, 6, 7, 8, 10} {
			b.Run(fmt.Sprintf("%v/acc=%v/k=%d", c.dt, c.acc, k), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, uint64(k)))
				xs := make([]float64, k)
				for i := range xs {
					xs[i] = roundToDT(c.dt, (1+r.Float64())*float64(1-2*r.IntN(2)))
				}
				size, ok := 0, false
				for b.Loop() {
					var vals []float64
					vals, ok = enumerateFold(c.acc, false, xs)
					size = len(vals)
				}
				b.ReportMetric(float64(size), "values")
				if !ok {
					b.ReportMetric(1, "fallback")
				}
			})
		}
	}
}

// neighbours16 returns the dtype values at or below and at or above |x|
// (x finite, within range), with x's sign.
func neighbours16(dt scatter.DType, x float64) (toward, away float64) {
	t := truncate16(dt, x)
	if t == x {
		return t, t
	}
	a := roundToDT(dt, x)
	if a == t {
		if dt == scatter.DTFloat16 {
			a = scatter.Float16(uint16(scatter.Float16FromFloat64(t)) + 1).Float64()
		} else {
			a = scatter.BFloat16(uint16(scatter.BFloat16FromFloat64(t)) + 1).Float64()
		}
	}
	return t, a
}

// TestMisroundingVisibility/{bug}: for each wrong arithmetic of a sum (a
// rounding mode or an accumulation precision other than the profile's),
// the share of groups of k contributions where it changes the answer and
// the share of those the conformant level rejects, logged per k. It
// checks that the profile's own answer always conforms, and that every
// bug that can change an answer is rejected somewhere; double rounding
// through float32 of a 16-bit per-step sum never changes one (24 >= 2p+2)
// and is checked to stay invisible.
func TestMisroundingVisibility(t *testing.T) {
	rn32 := func(x float64) float64 { return float64(float32(x)) }
	id := func(x float64) float64 { return x }
	type bug struct {
		name      string
		dt        scatter.DType
		perStep   bool                  // the plan's (profile's) rule
		goodStep  func(float64) float64 // the profile's step rounding
		goodStore func(float64) float64 // and its final store
		step      func(float64) float64 // the bug's
		store     func(float64) float64 //
		invisible bool                  // never changes an answer
	}
	var bugs []bug
	for _, dt := range []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16} {
		rn := func(x float64) float64 { return roundToDT(dt, x) }
		trunc := func(x float64) float64 { return truncate16(dt, x) }
		halfAway := func(x float64) float64 {
			lo, hi := neighbours16(dt, x)
			if lo != hi && math.Abs(x-lo) == math.Abs(hi-x) {
				return hi
			}
			return rn(x)
		}
		toOdd := func(x float64) float64 {
			lo, hi := neighbours16(dt, x)
			if lo == hi || dtypeBits(dt, lo)&1 == 1 {
				return lo
			}
			return hi
		}
		bugs = append(bugs,
			bug{name: "per-step-truncation", dt: dt, perStep: true, goodStep: rn, goodStore: id, step: trunc, store: id},
			bug{name: "float32-then-truncation", dt: dt, goodStep: rn32, goodStore: rn, step: rn32, store: trunc},
			bug{name: "float32-then-half-away", dt: dt, goodStep: rn32, goodStore: rn, step: rn32, store: halfAway},
			bug{name: "float32-then-round-to-odd", dt: dt, goodStep: rn32, goodStore: rn, step: rn32, store: toOdd},
			bug{name: "per-step-where-float32", dt: dt, goodStep: rn32, goodStore: rn, step: rn, store: id},
			bug{name: "float32-where-per-step", dt: dt, perStep: true, goodStep: rn, goodStore: id, step: rn32, store: rn},
			bug{name: "per-step-through-float32", dt: dt, perStep: true, goodStep: rn, goodStore: id,
				step: func(x float64) float64 { return rn(rn32(x)) }, store: id, invisible: true},
		)
	}
	bugs = append(bugs, bug{name: "float64-accumulation", dt: scatter.DTFloat32, goodStep: rn32, goodStore: id, step: id, store: rn32})
	for _, b := range bugs {
		t.Run(fmt.Sprintf("%s/%v", b.name, b.dt), func(t *testing.T) {
			r := rand.New(rand.NewPCG(31, uint64(len(b.name))))
			var line []string
			differAll, rejectedAll := 0, 0
			for _, n := range []int{2, 3, 4, 6, 8, 16, 64, 256} {
				trials := 150
				if n >= 64 {
					trials = 40
				}
				differ, rejected := 0, 0
				for range trials {
					xs := make([]float64, n)
					mixed := r.IntN(3) == 0
					for i := range xs {
						x := math.Ldexp(1+r.Float64(), r.IntN(8)-4)
						if mixed && r.IntN(2) == 0 {
							x = -x
						}
						xs[i] = roundToDT(b.dt, x)
					}
					good, bad := xs[0], xs[0]
					for _, x := range xs[1:] {
						good, bad = b.goodStep(good+x), b.step(bad+x)
					}
					good, bad = b.goodStore(good), b.store(bad)
					p := judgePlan(sixteenBit(b.dt, xs[0]), sixteenBit(b.dt, xs[1:]...), kSum, true, group{srcs: judgeSeq(n - 1)})
					p.perStep = b.perStep
					e := judgeExpect(p, scatter.Result{Out: sixteenBit(b.dt, good)})
					mustConform(t, e, scatter.Conformant, scatter.Result{Out: sixteenBit(b.dt, good)}, nil, "the profile's answer")
					if bad == good {
						continue
					}
					differ++
					if e.Check(scatter.Conformant, scatter.Result{Out: sixteenBit(b.dt, bad)}, nil) != nil {
						rejected++
					}
				}
				line = append(line, fmt.Sprintf("k=%d %d/%d differ, %d rejected", n, differ, trials, rejected))
				differAll += differ
				rejectedAll += rejected
			}
			t.Logf("%s", strings.Join(line, "; "))
			switch {
			case b.invisible && differAll > 0:
				t.Errorf("%d answers changed by an innocuous double rounding", differAll)
			case !b.invisible && differAll == 0:
				t.Errorf("the bug never changed an answer: the test proves nothing")
			case !b.invisible && rejectedAll == 0:
				t.Errorf("none of %d wrong answers rejected", differAll)
			}
		})
	}
}
