package properties

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/reference"
)

// TestRefoldNearestIsReference checks the rounding mutants' engine: with
// round-to-nearest-even and the profile's own accumulator it must give
// the reference's result bit for bit on every call of the operations it
// refolds, under every profile (so that each rounding mutant differs from
// the truth by its bug alone). Each operation has its own draws, half of
// them crowded (callgen.Want.Crowded, as differential/crowded draws them),
// so that every one of them is seen folding a group.
func TestRefoldNearestIsReference(t *testing.T) {
	ops := []scatter.Op{scatter.OpScatterAdd, scatter.OpScatterReduce, scatter.OpScatter, scatter.OpIndexReduce,
		scatter.OpTorchScatterAdd, scatter.OpTorchScatter, scatter.OpTensorScatter}
	for _, prof := range scatter.Profiles {
		ref := reference.New(prof)
		mut := &mutant{name: "nearest", base: ref,
			run: refoldRun(accRule(profileAcc, func(reference.Folds) bool { return true }), prof)}
		for _, op := range ops {
			t.Run(fmt.Sprintf("%s/%s", prof, op), func(t *testing.T) {
				refolded := 0
				rapid.Check(t, func(t *rapid.T) {
					crowded := op != scatter.OpTensorScatter && op != scatter.OpTorchScatterAdd && rapid.Bool().Draw(t, "crowded")
					c := callgen.Call(op, callgen.Options{Profile: prof, MaxElements: 300, Valid: true, Want: callgen.Want{Crowded: crowded},
						DTypes: []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16, scatter.DTFloat32, scatter.DTFloat64}}).Draw(t, "call")
					want, werr := ref.Run(scatter.CloneCall(c))
					got, gerr := mut.Run(scatter.CloneCall(c))
					if (werr == nil) != (gerr == nil) {
						t.Fatalf("errors differ: %v, %v", werr, gerr)
					}
					if werr != nil {
						return
					}
					if g, ok := reference.Expect(c, prof).Folds(); ok && len(g.Groups) > 0 {
						refolded++
					}
					if d := diffResults(got, want, sameSigns); d != "" {
						t.Fatalf("%s\n%s", reference.DescribeCall(c), d)
					}
				})
				t.Logf("refolded %d calls", refolded)
				if refolded == 0 {
					t.Errorf("no %s call had a group to refold: the test checked nothing", op)
				}
			})
		}
	}
}

// TestRefoldExtremesIsReference checks the engine's amax and amin, which
// only the flushing rule refolds: on calls without a subnormal value
// (where flushing changes nothing, there being no arithmetic) it must give
// the reference's result bit for bit, under every profile.
func TestRefoldExtremesIsReference(t *testing.T) {
	for _, prof := range scatter.Profiles {
		t.Run(prof.String(), func(t *testing.T) {
			ref := reference.New(prof)
			mut := &mutant{name: "flush", base: ref, run: refoldRun(flushRule, prof)}
			refolded := 0
			rapid.Check(t, func(t *rapid.T) {
				op := rapid.SampledFrom([]scatter.Op{scatter.OpScatterReduce, scatter.OpIndexReduce}).Draw(t, "op")
				c := callgen.Call(op, callgen.Options{Profile: prof, MaxElements: 300, Valid: true,
					DTypes: []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16, scatter.DTFloat32, scatter.DTFloat64}}).Draw(t, "call")
				g, ok := reference.Expect(c, prof).Folds()
				if !ok || !extreme(g.Reduce) || hasSubnormal(g.Init) || hasSubnormal(g.Src) {
					return
				}
				want, werr := ref.Run(scatter.CloneCall(c))
				got, gerr := mut.Run(scatter.CloneCall(c))
				if werr != nil || gerr != nil {
					t.Fatalf("errors: %v, %v", werr, gerr)
				}
				if len(g.Groups) > 0 {
					refolded++
				}
				if d := diffResults(got, want, sameSigns); d != "" {
					t.Fatalf("%s\n%s", reference.DescribeCall(c), d)
				}
			})
			if refolded == 0 {
				t.Error("no amax or amin call had a group to refold: the test checked nothing")
			}
		})
	}
}

// hasSubnormal reports a subnormal element of a float tensor.
func hasSubnormal(x scatter.Tensor) bool {
	f, _ := formatOf(x.DType())
	for _, p := range x.Positions() {
		if v := scatter.Float64At(x.Data, p); flushed(v, f) != v {
			return true
		}
	}
	return false
}

// TestSubnormalsFlushed checks the mutant subnormals-flushed on hand-made
// calls under torch-2: the sum of two bfloat16 subnormals, a float32
// product that underflows, amax of 0 and a float32 subnormal (and of a
// float64 one beside -inf), and a
// float16 mean whose operand is subnormal are zeros; a subnormal times
// inf is NaN; the untouched subnormal of self stays, and so does a call
// with no subnormal.
func TestSubnormalsFlushed(t *testing.T) {
	mut := mutantNamed(t, "subnormals-flushed")
	bf := floatTensor[scatter.BFloat16]
	h := floatTensor[scatter.Float16]
	f32 := func(vs ...float32) scatter.Tensor { return scatter.FromSlice(vs, len(vs)) }
	i0 := scatter.FromSlice([]int64{0}, 1)
	tiny := math.Ldexp(1, -130) // subnormal in float32 and bfloat16
	for _, c := range []struct {
		name string
		call scatter.Call
		want []float64
	}{
		{"bfloat16 sum of subnormals", scatter.ScatterAdd{Self: bf(tiny, tiny), Dim: 0, Index: i0, Src: bf(tiny)}, []float64{0, tiny}},
		{"float32 product underflows", scatter.ScatterReduce{Self: f32(1e-20, 5), Dim: 0, Index: i0, Src: f32(1e-20), Reduce: scatter.ReduceProd}, []float64{0, 5}},
		{"amax of 0 and a subnormal", scatter.ScatterReduce{Self: f32(0, 5), Dim: 0, Index: i0, Src: f32(float32(tiny)), Reduce: scatter.ReduceAmax}, []float64{0, 5}},
		// JAX on CPU, seed 2 of its gate: an infinity beside the subnormal
		// still leaves the max to the flushed operands
		{"float64 amax with -inf beside a subnormal", scatter.ScatterReduce{Self: scatter.FromSlice([]float64{0, 5}, 2), Dim: 0,
			Index: scatter.FromSlice([]int64{0, 0}, 2), Src: scatter.FromSlice([]float64{math.Inf(-1), 5e-324}, 2), Reduce: scatter.ReduceAmax},
			[]float64{0, 5}},
		{"float16 mean of a subnormal", scatter.ScatterReduce{Self: h(1, 5), Dim: 0, Index: i0, Src: h(math.Ldexp(1, -20)), Reduce: scatter.ReduceMean, ExcludeSelf: true}, []float64{0, 5}},
		{"no subnormal", scatter.ScatterAdd{Self: f32(1, 5), Dim: 0, Index: i0, Src: f32(2)}, []float64{3, 5}},
		// TensorFlow on CPU (its dashboard run): a subnormal read as 0
		// times inf is NaN, where PyTorch's product is inf
		{"bfloat16 product of a subnormal and inf", scatter.ScatterReduce{Self: bf(tiny, 5), Dim: 0, Index: i0, Src: bf(math.Inf(1)), Reduce: scatter.ReduceProd},
			[]float64{math.NaN(), 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := mut.Run(c.call)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.want {
				if got := scatter.Float64At(res.Out.Data, i); got != w && !(math.IsNaN(got) && math.IsNaN(w)) {
					t.Errorf("out[%d] = %g, want %g", i, got, w)
				}
			}
		})
	}
}

// TestRoundBigModes checks roundBig on hand-made cases of every mode:
// float16 1 + 2^-11 (a tie between 1 and 1 + 2^-10), 1 + 3·2^-12 (above
// the tie), their negatives, a subnormal and an overflow.
func TestRoundBigModes(t *testing.T) {
	tie, above := 1+math.Ldexp(1, -11), 1+3*math.Ldexp(1, -12)
	next := 1 + math.Ldexp(1, -10)
	cases := []struct {
		x    float64
		m    rmode
		want float64
	}{
		{tie, rNearestEven, 1}, {tie, rHalfAway, next}, {tie, rTowardZero, 1}, {tie, rToOdd, next},
		{above, rNearestEven, next}, {above, rHalfAway, next}, {above, rTowardZero, 1}, {above, rToOdd, next},
		{-tie, rNearestEven, -1}, {-tie, rHalfAway, -next}, {-tie, rTowardZero, -1},
		{1, rToOdd, 1}, {next, rToOdd, next},
		{math.Ldexp(3, -25), rNearestEven, math.Ldexp(4, -25)}, // 1.5 subnormal ulps: tie to even (2)
		{math.Ldexp(3, -25), rTowardZero, math.Ldexp(2, -25)},
		{65520, rNearestEven, math.Inf(1)}, {65520, rTowardZero, 65504}, {65520, rToOdd, 65504},
	}
	for _, c := range cases {
		if got := roundBig(new(big.Float).SetPrec(200).SetFloat64(c.x), false, fmtFloat16, c.m); got != c.want {
			t.Errorf("roundBig(%v, float16, mode %d) = %v, want %v", c.x, c.m, got, c.want)
		}
	}
	// the sticky bit: 1 + 2^-11 truncated from above is past the tie
	if got := roundBig(new(big.Float).SetFloat64(tie), true, fmtFloat16, rNearestEven); got != next {
		t.Errorf("sticky tie: %v, want %v", got, next)
	}
}
