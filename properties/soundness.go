package properties

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/repro"
)

// The bound-soundness meta-test: the judge must never reject a correct
// answer. It builds real calls of every operation with float sums, means
// and products (scatter_add; scatter_reduce sum, mean, prod; scatter with
// reduce add and multiply; index_reduce prod and mean; torch_scatter sum,
// mul and mean; the F# Tensor.scatter) in every float dtype and profile,
// with contributions chosen to stress the sets (wide exponent ranges,
// cancellation, values near overflow, subnormals, short and long groups),
// and then answers each call as other correct implementations would: a
// backend (alternative) that folds every group in a random order or along
// a random binary tree with the profile's arithmetic (every step rounded
// to the dtype, or, for 16-bit types where the profile accumulates in
// float32, every step rounded to float32 and the result once to the
// dtype; a mean divides the sum stored in the dtype). Every such answer
// must be accepted at the conformant level. As controls, answers with one
// element pushed far outside the exact value must be rejected, and so
// must some answers whose float32 accumulators are truncated to the 16-bit
// dtype instead of rounded to nearest.

// EnvSoundnessN is the environment variable that sets how many answers
// (orders) CheckBoundSoundness's test tries: SCATTER_SOUNDNESS_N=1000000.
const EnvSoundnessN = "SCATTER_SOUNDNESS_N"

// SoundnessN returns the number of orders a soundness test should try:
// SCATTER_SOUNDNESS_N when set, else def.
func SoundnessN(def int) int {
	if v, err := strconv.Atoi(os.Getenv(EnvSoundnessN)); err == nil && v > 0 {
		return v
	}
	return def
}

// SoundnessReport is what CheckBoundSoundness tried.
type SoundnessReport struct {
	Seed  uint64
	Calls int // distinct calls built
	// Orders is the number of alternative answers judged (each folds every
	// group in its own random order or tree); Different how many of them
	// differ from the canonical (strict) result in at least one element.
	Orders, Different int
	// Controls is the number of deliberately wrong answers tried, and
	// Rejected how many the judge rejected (it must reject most).
	Controls, Rejected int
	// Truncated is the number of answers whose float32 accumulators (16-bit
	// sums and means under a float32-accumulating profile) were truncated
	// to the dtype instead of rounded to nearest and differ from the
	// canonical result; TruncRejected how many the judge rejected.
	Truncated, TruncRejected int
	Elapsed                  time.Duration
}

// CheckBoundSoundness tries n alternative correct answers (at least) and
// reports every one the judge rejects at the conformant level through
// t.Errorf, with the call, the strategy and the order. It fails too when
// the alternatives never differ from the canonical result (the test would
// prove nothing), when the judge accepts every deliberately wrong answer,
// or when it accepts every truncated one. The seed is logged; it returns
// what it tried.
func CheckBoundSoundness(t TB, n int) SoundnessReport {
	t.Helper()
	seed := runSeed()
	rng := rand.New(rand.NewPCG(seed, 0x50e7d))
	rep := SoundnessReport{Seed: seed}
	start := time.Now()
	failures := 0
	for rep.Orders < n && failures < 5 {
		dt := []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16, scatter.DTFloat32, scatter.DTFloat64}[rng.IntN(4)]
		prof := scatter.Profiles[rng.IntN(len(scatter.Profiles))]
		sc := soundnessCall(rng, dt)
		exp := reference.Expect(scatter.CloneCall(sc.call), prof)
		if exp.Codes() != nil {
			t.Errorf("soundness: the judge rejects a valid call with %v: %s", exp.Codes(), reference.DescribeCall(sc.call))
			failures++
			continue
		}
		rep.Calls++
		canon := exp.Result()
		for range 16 {
			alt := &alternative{rng: rng, tree: rng.IntN(2) == 1, prof: prof}
			res := alt.answer(sc)
			rep.Orders++
			if diffTensors(res.Out, canon.Out, sameBits) != "" {
				rep.Different++
			}
			if err := exp.Check(scatter.Conformant, res, nil); err != nil {
				failures++
				t.Errorf("soundness (seed %d): the judge rejects a correct answer (%s) under %v:\n%v%s", seed, alt, prof, err,
					repro.Block("call", sc.call, false))
				break
			}
		}
		if res, ok := wrongAnswer(rng, canon, sc.groups); ok {
			rep.Controls++
			if exp.Check(scatter.Conformant, res, nil) != nil {
				rep.Rejected++
			}
		}
		if sc.accumulator(prof) == scatter.DTFloat32 && sc.dt != scatter.DTFloat32 && sc.reduce != scatter.ReduceProd {
			alt := &alternative{rng: rng, tree: rng.IntN(2) == 1, prof: prof, truncate: true}
			res := alt.answer(sc)
			if diffTensors(res.Out, canon.Out, sameBits) != "" {
				rep.Truncated++
				if exp.Check(scatter.Conformant, res, nil) != nil {
					rep.TruncRejected++
				}
			}
		}
	}
	rep.Elapsed = time.Since(start)
	t.Logf("soundness: %d orders over %d calls (%d differ from the canonical fold) in %v, seed %d; %d of %d wrong answers rejected; %d of %d truncated 16-bit answers rejected",
		rep.Orders, rep.Calls, rep.Different, rep.Elapsed.Round(time.Millisecond), seed, rep.Rejected, rep.Controls, rep.TruncRejected, rep.Truncated)
	if rep.Orders >= 200 && rep.Different*20 < rep.Orders {
		t.Errorf("soundness: only %d of %d alternative answers differ from the canonical fold: the test does not reorder enough", rep.Different, rep.Orders)
	}
	if rep.Controls >= 20 && rep.Rejected*2 < rep.Controls {
		t.Errorf("soundness: the judge accepted %d of %d deliberately wrong answers", rep.Controls-rep.Rejected, rep.Controls)
	}
	if rep.Truncated >= 20 && rep.TruncRejected == 0 {
		t.Errorf("soundness: the judge accepted all %d truncated 16-bit answers", rep.Truncated)
	}
	return rep
}

// soundCase is one call of the soundness test and what an alternative
// implementation needs to answer it.
type soundCase struct {
	call   scatter.Call
	dt     scatter.DType
	init   []float64 // the output's values before the call (1-d)
	groups []group
	reduce scatter.Reduce // ReduceSum, ReduceProd or ReduceMean
	// opmath: 16-bit values accumulate in float32 where the profile does
	// (not RoundsPerStep); false: every step rounds to the dtype in every
	// profile (index_reduce, torch_scatter's mul kernel, F#).
	opmath bool
	// countSelf: a mean counts self among its terms (scatter_reduce,
	// index_reduce); torch_scatter's mean counts the src values only.
	countSelf bool
}

// accumulator returns the format the profile folds the case's groups in.
func (sc soundCase) accumulator(prof scatter.Profile) scatter.DType {
	if sc.opmath && opmathDiffers(prof, sc.dt) {
		return scatter.DTFloat32
	}
	return sc.dt
}

// opmathDiffers reports whether, under profile prof, the dtype dt's float
// sums and products of the scatter family (a float32 accumulator, rounded
// once) differ by design from those of index_reduce and the F# scatter
// (every step rounded to the dtype): 16-bit types where the profile does
// not round every step. Relations between those operations hold there
// only for exact values; the conformant sets admit only each operation's
// own arithmetic.
func opmathDiffers(prof scatter.Profile, dt scatter.DType) bool {
	return is16(dt) && !prof.RoundsPerStep()
}

// soundnessCall builds a valid call in dtype dt with few targets and long
// groups: 1-d tensors, dim 0, one of the operations above.
func soundnessCall(rng *rand.Rand, dt scatter.DType) soundCase {
	m := 1 + rng.IntN(3)
	k := 1 + rng.IntN(48)
	switch rng.IntN(8) {
	case 0:
		k = 48 + rng.IntN(150)
	case 1, 2, 3:
		k = 1 + rng.IntN(3*m) // small groups, judged by enumeration
	}
	regime := rng.IntN(6)
	f := scatter.FactsOf(dt)
	val := func() float64 {
		var v float64
		switch regime {
		case 0: // ordinary values over a few binades
			v = math.Ldexp(1+rng.Float64(), rng.IntN(12)-6)
		case 1: // the whole exponent range
			v = math.Ldexp(rng.Float64(), f.EMin-f.Prec+1+rng.IntN(f.EMax-f.EMin+f.Prec+1))
		case 2: // near overflow
			v = f.Max * (0.25 + rng.Float64()) / math.Max(1, float64(rng.IntN(k+1)))
		case 3: // subnormals and the smallest normals
			v = math.Ldexp(rng.Float64(), f.EMin+rng.IntN(3))
		case 4: // cancellation: mostly ±1 with small tails
			v = 1 + math.Ldexp(rng.Float64(), -rng.IntN(f.Prec+4))
		default: // factors near 1, for long products
			v = 1 + math.Ldexp(rng.Float64()-0.5, -rng.IntN(6))
		}
		if rng.IntN(2) == 0 {
			v = -v
		}
		return v
	}
	tensor := func(n int) scatter.Tensor {
		t := scatter.Tensor{Shape: []int{n}, Data: scatter.MakeData(dt, n)}
		for i := range n {
			scatter.SetFloat(t.Data, i, val())
		}
		return t
	}
	self := tensor(m)
	src := tensor(k)
	idx := make([]int64, k)
	for i := range idx {
		idx[i] = int64(rng.IntN(m))
	}
	index := scatter.FromSlice(idx)
	exclude := rng.IntN(2) == 0
	sc := soundCase{dt: dt, opmath: true, countSelf: true, reduce: scatter.ReduceSum}
	zero := scatter.Ptr(0)
	switch rng.IntN(12) {
	case 0:
		sc.call, exclude = scatter.ScatterAdd{Self: self, Index: index, Src: src}, false
	case 1:
		sc.call = scatter.ScatterReduce{Self: self, Index: index, Src: src, Reduce: scatter.ReduceSum, ExcludeSelf: exclude}
	case 2, 3:
		sc.reduce = scatter.ReduceMean
		sc.call = scatter.ScatterReduce{Self: self, Index: index, Src: src, Reduce: scatter.ReduceMean, ExcludeSelf: exclude}
	case 4:
		sc.reduce = scatter.ReduceProd
		sc.call = scatter.ScatterReduce{Self: self, Index: index, Src: src, Reduce: scatter.ReduceProd, ExcludeSelf: exclude}
	case 5:
		sc.call, exclude = scatter.Scatter{Self: self, Index: index, Src: src, Reduce: scatter.ReduceAdd}, false
	case 6:
		sc.reduce = scatter.ReduceProd
		sc.call, exclude = scatter.Scatter{Self: self, Index: index, Src: src, Reduce: scatter.ReduceMultiply}, false
	case 7:
		sc.reduce, sc.opmath = scatter.ReduceProd, false
		sc.call = scatter.IndexReduce{Self: self, Index: index, Source: src, Reduce: scatter.ReduceProd, ExcludeSelf: exclude}
	case 8:
		sc.reduce, sc.opmath = scatter.ReduceMean, false
		sc.call = scatter.IndexReduce{Self: self, Index: index, Source: src, Reduce: scatter.ReduceMean, ExcludeSelf: exclude}
	case 9:
		sc.call, exclude = scatter.TorchScatter{Src: src, Index: index, Dim: zero, Out: self, Reduce: scatter.ReduceSum}, false
	case 10:
		sc.reduce, sc.countSelf = scatter.ReduceMean, false
		sc.call, exclude = scatter.TorchScatter{Src: src, Index: index, Dim: zero, Out: self, Reduce: scatter.ReduceMean}, false
	default:
		// F#: a zero target, every step rounded in the dtype.
		sc.opmath, exclude = false, true
		self = scatter.Tensor{Shape: []int{m}, Data: scatter.MakeData(dt, m)}
		sc.call = scatter.TensorScatter{Indices: []scatter.Tensor{index}, Shape: []int{m}, Src: src}
	}
	if x, ok := sc.call.(scatter.TorchScatter); ok && rng.IntN(2) == 0 && sc.reduce == scatter.ReduceSum {
		x.Reduce = scatter.ReduceMul // torch_scatter's mul kernel: every step in the dtype
		sc.call, sc.reduce, sc.opmath = x, scatter.ReduceProd, false
	}
	sc.init = make([]float64, m)
	for i := range m {
		sc.init[i] = scatter.Float64At(self.Data, i)
	}
	sc.groups = soundGroups(sc.init, idx, src, !exclude)
	return sc
}

// group is one output element of a call and its operands.
type group struct {
	out  int       // row-major position in the output
	vals []float64 // self (when included) first, then the src values in canonical order
	self bool      // vals[0] is self
}

// soundGroups returns the groups of a 1-d call: for every target of idx,
// its initial value when self takes part, then its src values in order.
func soundGroups(init []float64, idx []int64, src scatter.Tensor, self bool) []group {
	byOut := map[int]int{}
	var gs []group
	for p, v := range idx {
		o := int(v)
		gi, ok := byOut[o]
		if !ok {
			gi = len(gs)
			byOut[o] = gi
			g := group{out: o, self: self}
			if self {
				g.vals = append(g.vals, init[o])
			}
			gs = append(gs, g)
		}
		gs[gi].vals = append(gs[gi].vals, scatter.Float64At(src.Data, p))
	}
	return gs
}

// alternative is a correct implementation other than the canonical fold:
// the profile's arithmetic in another order or tree.
type alternative struct {
	rng  *rand.Rand
	tree bool // a random binary tree, else a random sequential order
	prof scatter.Profile
	// truncate: a control, not a correct implementation: a float32
	// accumulator is truncated to the 16-bit dtype (toward zero) instead
	// of rounded to nearest.
	truncate bool
	acc      scatter.DType // the accumulator of the last answer
	last     []int         // the last order or tree (for the report)
}

func (a *alternative) String() string {
	s := "every step rounded to " + a.acc.String()
	if a.tree {
		s += ", a random binary tree"
	} else {
		s += ", a random order"
	}
	if a.truncate {
		s += ", truncated to the dtype"
	}
	return fmt.Sprintf("%s; last group's order %v", s, a.last)
}

// answer folds every group of the case its own way.
func (a *alternative) answer(sc soundCase) scatter.Result {
	dt := sc.dt
	out := scatter.Tensor{Shape: []int{len(sc.init)}, Data: scatter.MakeData(dt, len(sc.init))}
	for i, v := range sc.init {
		scatter.SetFloat(out.Data, i, v)
	}
	a.acc = sc.accumulator(a.prof)
	for _, g := range sc.groups {
		vals := g.vals
		id := 0.0
		if sc.reduce == scatter.ReduceProd {
			id = 1
		}
		if !g.self {
			// start from the identity, as PyTorch does, at a random place
			// of the order or tree: 0 + x and 1 · x are exact, and the +0
			// makes a group of -0 terms +0 (starting from the first
			// contribution instead is the mutant sum-starts-from-first)
			vals = append([]float64{id}, vals...)
		}
		v := a.fold(sc.reduce, vals)
		if a.truncate {
			v = truncate16(dt, v)
		} else {
			v = roundDT(dt, v)
		}
		if sc.reduce == scatter.ReduceMean {
			c := len(g.vals)
			if g.self && !sc.countSelf {
				c--
			}
			v = roundDT(dt, v/float64(c)) // the sum stored in the dtype, divided there
		}
		scatter.SetFloat(out.Data, g.out, v)
	}
	return scatter.Result{Out: out}
}

// fold combines vals in a random order or tree, rounding every step to the
// accumulator.
func (a *alternative) fold(r scatter.Reduce, vals []float64) float64 {
	op := func(x, y float64) float64 {
		if r == scatter.ReduceProd {
			return roundDT(a.acc, x*y) // exact in float64 for float32 and 16-bit operands
		}
		return roundDT(a.acc, x+y) // correctly rounded: 53 >= 2·24+2 (double rounding innocuous)
	}
	items := append([]float64(nil), vals...)
	a.last = a.last[:0]
	if !a.tree {
		perm := a.rng.Perm(len(items))
		a.last = append(a.last, perm...)
		acc := items[perm[0]]
		for _, i := range perm[1:] {
			acc = op(acc, items[i])
		}
		return acc
	}
	for len(items) > 1 {
		i := a.rng.IntN(len(items))
		j := a.rng.IntN(len(items) - 1)
		if j >= i {
			j++
		}
		a.last = append(a.last, i, j)
		items[i] = op(items[i], items[j])
		items = append(items[:j], items[j+1:]...)
	}
	return items[0]
}

// truncate16 rounds a float32 value x toward zero to the 16-bit dtype dt
// (specials and exact values unchanged): the rounding-mode bug of a
// 16-bit store.
func truncate16(dt scatter.DType, x float64) float64 {
	y := roundDT(dt, x)
	if math.IsNaN(x) || math.IsInf(x, 0) || y == x || math.Abs(y) <= math.Abs(x) && !math.IsInf(y, 0) {
		return y
	}
	// RN went away from zero: take the neighbour toward zero.
	switch dt {
	case scatter.DTFloat16:
		b := scatter.Float16FromFloat64(y)
		return scatter.Float16(uint16(b) - 1).Float64()
	case scatter.DTBFloat16:
		b := scatter.BFloat16FromFloat64(y)
		return scatter.BFloat16(uint16(b) - 1).Float64()
	}
	return y
}

// oneSign reports whether the finite non-zero values of vals all have one
// sign and there is no special value (no cancellation: the bounds are
// then relative and tight).
func oneSign(vals []float64) bool {
	pos, neg := false, false
	for _, v := range vals {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return false
		case v > 0:
			pos = true
		case v < 0:
			neg = true
		}
	}
	return !(pos && neg)
}

// roundDT rounds x to the nearest value of a float dtype.
func roundDT(dt scatter.DType, x float64) float64 {
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

// wrongAnswer returns the canonical result with one touched element moved
// by a large relative amount (three eighths): no bound of a modest group
// allows that.
func wrongAnswer(rng *rand.Rand, canon scatter.Result, groups []group) (scatter.Result, bool) {
	var cands []group
	for _, g := range groups {
		if len(g.vals) <= 24 && oneSign(g.vals) {
			cands = append(cands, g)
		}
	}
	if len(cands) == 0 {
		return scatter.Result{}, false
	}
	g := cands[rng.IntN(len(cands))]
	out := scatter.CloneTensor(canon.Out.Contiguous())
	v := scatter.Float64At(out.Data, g.out)
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > scatter.FactsOf(out.DType()).Max/2 {
		return scatter.Result{}, false
	}
	scatter.SetFloat(out.Data, g.out, v*1.375)
	if scatter.Float64At(out.Data, g.out) == v {
		return scatter.Result{}, false
	}
	return scatter.Result{Out: out}, true
}
