package properties

import (
	"math"
	"math/big"
	"slices"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// The rounding mutants: backends whose float sums, products and means of
// the scatter family fold in the canonical order (self first, then the
// contributions in increasing position along dim) but with a wrong
// arithmetic: another rounding mode, another accumulation precision,
// subnormals flushed to zero, or the mean divided in another precision.
// Each refolding mutant computes every step from the exact operation
// (math/big) and rounds it with its own rule, so that it is wrong by
// exactly its bug and nothing else (TestRefoldNearestIsReference: with
// the profile's rule the refold is the reference, bit for bit).
//
// The profile's arithmetic, which each one departs from (PROFILES.md,
// scatter.Profile.RoundsPerStep):
//
//	sum:  acc = fl_A(acc + x_i) for every contribution, out = fl_D(acc)
//	prod: acc = fl_A(acc * x_i),                         out = fl_D(acc)
//	mean: out = fl_D(fl_D(acc) / count)
//
// with fl the round-to-nearest-even of IEEE 754, D the tensor's dtype and
// A the accumulator: float32 for float16 and bfloat16 under torch 2 (the
// opmath buffer), D itself under torch 1.13 and for float32 and float64.
// Each refolding mutant covers every float sum, product and mean that the
// reference folds (its groups are reference.Expectation.Folds):
// scatter_add, scatter_reduce (sum, prod, mean), scatter with reduce add
// or multiply, index_reduce (prod, mean), torch_scatter's sums and means
// and the F# library's scatter, and subnormals-flushed refolds amax and
// amin too; other calls, groups holding a NaN or an infinity (but for
// subnormals-flushed, whose 0 · inf is NaN where a subnormal's is inf), and means
// whose count reaches 256 (where bfloat16's count would saturate) are
// the reference's. An accumulator that overflows goes on in IEEE
// arithmetic (inf op finite), as a fold in that format does
// (TestRefoldPastOverflow). mean-divides-accumulator is the one that
// does not refold (meanDividesAccumulator).
//
// Double rounding through float32 where a 16-bit profile rounds once has
// no mutant for float16 and bfloat16: float32 has at least 2p + 2 bits for
// p = 11 and 8, so fl_D(fl32(x)) = fl_D(x) for the sum, product or
// quotient x of two dtype values (Figueroa, 1995), and for float32 data
// float32 is the dtype itself; no implementation could show it.
// float64-via-float32 is the double rounding that loses bits.

// rmode is a rounding rule of a format's values.
type rmode uint8

const (
	rNearestEven rmode = iota // IEEE 754's default: to nearest, ties to even
	rTowardZero               // truncation
	rHalfAway                 // to nearest, ties away from zero
	rToOdd                    // inexact results take the neighbour whose last bit is 1
)

// fpFormat is a binary floating-point format: prec significand bits
// (the leading one included), the least normal exponent and the largest
// finite value.
type fpFormat struct {
	prec, emin int
	max        float64
}

var (
	fmtFloat16  = factsFormat(scatter.DTFloat16)
	fmtBFloat16 = factsFormat(scatter.DTBFloat16)
	fmtFloat32  = factsFormat(scatter.DTFloat32)
	fmtFloat64  = factsFormat(scatter.DTFloat64)
)

// factsFormat is the format of a float dtype, from its landmarks.
func factsFormat(dt scatter.DType) fpFormat {
	f := scatter.FactsOf(dt)
	return fpFormat{prec: f.Prec, emin: f.EMin, max: f.Max}
}

// formatOf returns the format of a float dtype.
func formatOf(dt scatter.DType) (fpFormat, bool) {
	switch dt {
	case scatter.DTFloat16:
		return fmtFloat16, true
	case scatter.DTBFloat16:
		return fmtBFloat16, true
	case scatter.DTFloat32:
		return fmtFloat32, true
	case scatter.DTFloat64:
		return fmtFloat64, true
	}
	return fpFormat{}, false
}

// exactPrec holds the exact sum or product of two float64 values (their
// exponents span 2^-1074 .. 2^1024).
const exactPrec = 2200

// roundBig rounds x to format f with rule m and returns it as a float64
// (exact: every format here fits in float64). sticky says that the true
// value lies strictly beyond x in magnitude (x was truncated toward zero
// from it), so that ties and exactness are judged for the true value.
// Subnormal results keep the format's fixed least exponent; a result past
// the largest finite value is ±Inf for the nearest rules and ±max for
// truncation and round-to-odd (which never round up to infinity).
func roundBig(x *big.Float, sticky bool, f fpFormat, m rmode) float64 {
	if x.Sign() == 0 && !sticky {
		if x.Signbit() {
			return math.Copysign(0, -1)
		}
		return 0
	}
	neg := x.Signbit()
	abs := new(big.Float).SetPrec(x.Prec()).Abs(x)
	e := f.emin
	if abs.Sign() != 0 {
		e = max(abs.MantExp(nil)-1, f.emin)
	}
	shift := f.prec - 1 - e
	scaled := new(big.Float).SetPrec(abs.Prec()+64).SetMantExp(abs, shift)
	n, _ := scaled.Int(nil)
	frac := new(big.Float).SetPrec(scaled.Prec()).Sub(scaled, new(big.Float).SetInt(n))
	half := frac.Cmp(big.NewFloat(0.5))
	inexact := frac.Sign() != 0 || sticky
	up := false
	switch m {
	case rNearestEven:
		up = half > 0 || half == 0 && (sticky || n.Bit(0) == 1)
	case rHalfAway:
		up = half > 0 || half == 0
	case rToOdd:
		if inexact && n.Bit(0) == 0 {
			n.SetBit(n, 0, 1)
		}
	case rTowardZero:
	}
	if up {
		n.Add(n, big.NewInt(1))
	}
	v, _ := new(big.Float).SetMantExp(new(big.Float).SetInt(n), -shift).Float64()
	if v > f.max {
		if m == rNearestEven || m == rHalfAway {
			v = math.Inf(1)
		} else {
			v = f.max
		}
	}
	if neg {
		v = -v
	}
	return v
}

// exactOp returns a op b (op '+' or '*') exactly.
func exactOp(a, b float64, op byte) *big.Float {
	x := new(big.Float).SetPrec(exactPrec).SetFloat64(a)
	y := new(big.Float).SetPrec(exactPrec).SetFloat64(b)
	if op == '*' {
		return x.Mul(x, y)
	}
	return x.Add(x, y)
}

// quotient returns a/c truncated toward zero at 256 bits, and whether the
// truncation dropped something (the sticky bit for roundBig).
func quotient(a, c float64) (*big.Float, bool) {
	q := new(big.Float).SetPrec(256).SetMode(big.ToZero)
	q.Quo(new(big.Float).SetFloat64(a), new(big.Float).SetFloat64(c))
	return q, q.Acc() != big.Exact
}

// foldRule is a mutant arithmetic: where the accumulator lives and how
// every rounding is done.
type foldRule struct {
	// acc is the accumulator's format for the call's groups.
	acc func(g reference.Folds) fpFormat
	// mode is the rounding of every step, of the store to the dtype and
	// of the mean's division.
	mode rmode
	// applies says which calls the bug touches.
	applies func(g reference.Folds) bool
	// twice: the contributions are folded without self and rounded to
	// the dtype, then combined with self and rounded again (sums and
	// products with self).
	twice bool
	// flush: every operand, step and result that is subnormal in its
	// format is a zero of its sign (the FTZ and DAZ modes of a float
	// unit); such a rule refolds amax and amin too.
	flush bool
}

// profileAcc is the accumulator format of the profile: float32 for the
// 16-bit floats unless the profile rounds them per step, else the dtype.
func profileAcc(g reference.Folds) fpFormat {
	if is16(g.DType) && !g.PerStep {
		return fmtFloat32
	}
	f, _ := formatOf(g.DType)
	return f
}

// dtypeAcc accumulates in the dtype itself.
func dtypeAcc(g reference.Folds) fpFormat {
	f, _ := formatOf(g.DType)
	return f
}

// fixedAcc accumulates in format f.
func fixedAcc(f fpFormat) func(reference.Folds) fpFormat {
	return func(reference.Folds) fpFormat { return f }
}

// is16 reports a 16-bit float dtype; isF32 float32; isF64 float64.
func is16(dt scatter.DType) bool  { return dt == scatter.DTFloat16 || dt == scatter.DTBFloat16 }
func isF32(dt scatter.DType) bool { return dt == scatter.DTFloat32 }
func isF64(dt scatter.DType) bool { return dt == scatter.DTFloat64 }

// modeRule is the profile's arithmetic with every rounding (accumulator
// steps, store, division) done with rule m, for float16, bfloat16 and
// float32.
func modeRule(m rmode) foldRule {
	return foldRule{acc: profileAcc, mode: m, applies: func(g reference.Folds) bool { return is16(g.DType) || isF32(g.DType) }}
}

// accRule is the profile's arithmetic with the accumulator acc, for the
// calls of applies.
func accRule(acc func(reference.Folds) fpFormat, applies func(g reference.Folds) bool) foldRule {
	return foldRule{acc: acc, mode: rNearestEven, applies: applies}
}

// opmathProfiles are the profiles that accumulate 16-bit sums in float32
// and round once (scatter.Profile.RoundsPerStep false).
var opmathProfiles = func() []scatter.Profile {
	var ps []scatter.Profile
	for _, p := range scatter.Profiles {
		if !p.RoundsPerStep() {
			ps = append(ps, p)
		}
	}
	return ps
}()

// modeMutant builds a mutant that rounds with rule m under a profile.
func modeMutant(m rmode) func(scatter.Profile) runFunc {
	return func(p scatter.Profile) runFunc { return refoldRun(modeRule(m), p) }
}

// flushMutant builds the mutant that flushes subnormals to zero (operands,
// every step and the result, each in its own format) under a profile: the
// profile's arithmetic otherwise, amax and amin included.
func flushMutant(p scatter.Profile) runFunc {
	return refoldRun(flushRule, p)
}

// flushRule is the profile's arithmetic with subnormals flushed to zero.
var flushRule = foldRule{acc: profileAcc, mode: rNearestEven, applies: func(reference.Folds) bool { return true }, flush: true}

// twiceMutant builds the mutant that rounds 16-bit sums, products and
// means' sums twice (the contributions' fold, then self combined with
// it) under a profile that accumulates them in float32 and rounds once.
func twiceMutant(p scatter.Profile) runFunc {
	return refoldRun(foldRule{acc: profileAcc, mode: rNearestEven, twice: true,
		applies: func(g reference.Folds) bool { return is16(g.DType) && !g.PerStep }}, p)
}

// accMutant builds a mutant that accumulates in acc under a profile.
func accMutant(acc func(reference.Folds) fpFormat, applies func(reference.Folds) bool) func(scatter.Profile) runFunc {
	return func(p scatter.Profile) runFunc { return refoldRun(accRule(acc, applies), p) }
}

// refoldRun returns the run function of a mutant that folds with rule r,
// judged under profile prof.
func refoldRun(r foldRule, prof scatter.Profile) runFunc {
	return refoldWith(prof, func(g reference.Folds) bool { return r.applies(g) && (!extreme(g.Reduce) || r.flush) }, r.fold)
}

// refoldWith returns the run function of a mutant that gives each group
// of a call the value fold returns for it (the reference's stands where
// fold's ok is false), on calls whose folds applies takes, under profile
// prof.
func refoldWith(prof scatter.Profile, applies func(reference.Folds) bool, fold func(reference.Folds, reference.FoldGroup) (float64, bool)) runFunc {
	return func(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
		res, err := b.Run(c)
		if err != nil {
			return res, err
		}
		g, ok := reference.Expect(c, prof).Folds()
		if !ok || len(g.Groups) == 0 || !applies(g) {
			return res, nil
		}
		out := scatter.CloneTensor(res.Out.Contiguous())
		for _, grp := range g.Groups {
			if v, ok := fold(g, grp); ok {
				scatter.SetFloat(out.Data, grp.Out, v)
			}
		}
		return scatter.Result{Out: out, Arg: res.Arg}, nil
	}
}

// groupValues returns the values one group folds, in the canonical
// order: self's first where it takes part, then the contributions.
func groupValues(g reference.Folds, grp reference.FoldGroup) []float64 {
	vals := make([]float64, 0, len(grp.Srcs)+1)
	if g.Self {
		vals = append(vals, scatter.Float64At(g.Init.Data, grp.Out))
	}
	for _, s := range grp.Srcs {
		vals = append(vals, scatter.Float64At(g.Src.Data, s))
	}
	return vals
}

// fold folds one group with the rule; ok is false where the mutant leaves
// the reference's value (specials, a count of 256 or more).
func (r foldRule) fold(g reference.Folds, grp reference.FoldGroup) (float64, bool) {
	vals := groupValues(g, grp)
	for _, v := range vals {
		// an infinity takes part in a max or min as any value does, and
		// in a flushed fold (a subnormal read as 0 times inf is NaN); in
		// another sum, product or mean the reference's value stands
		if math.IsNaN(v) || isSpecial(v) && !extreme(g.Reduce) && !r.flush {
			return 0, false
		}
	}
	count := int(g.Count(grp))
	dtFmt := dtypeAcc(g)
	if r.flush {
		for i, v := range vals {
			vals[i] = flushed(v, dtFmt)
		}
	}
	if extreme(g.Reduce) {
		acc := vals[0]
		for _, v := range vals[1:] {
			if g.Reduce == scatter.ReduceAmax && v > acc || g.Reduce == scatter.ReduceAmin && v < acc {
				acc = v
			}
		}
		return acc, true
	}
	if g.Reduce == scatter.ReduceMean && count >= 256 {
		return 0, false
	}
	if r.twice && g.Self && len(vals) > 1 {
		sum, ok := r.foldTwice(g, vals[0], vals[1:])
		if !ok || g.Reduce != scatter.ReduceMean || isSpecial(sum) {
			return sum, ok
		}
		// a mean divides the twice-rounded sum
		q, sticky := quotient(sum, float64(count))
		return r.round(q, sticky, dtFmt), true
	}
	op, acc := opOf(g.Reduce)
	if g.Self {
		acc, vals = vals[0], vals[1:] // self starts the fold as it is (a -0 stays -0)
	}
	accFmt := r.acc(g)
	for _, v := range vals {
		acc = r.step(acc, v, op, accFmt)
	}
	if g.Reduce != scatter.ReduceMean || isSpecial(acc) {
		return r.store(acc, dtFmt), true // a mean divides a special into itself
	}
	sum := r.store(acc, dtFmt)
	if math.IsInf(sum, 0) || math.Abs(sum) > dtFmt.max {
		return 0, false
	}
	q, sticky := quotient(sum, float64(count))
	return r.round(q, sticky, dtFmt), true
}

// foldTwice folds the contributions alone in the accumulator, rounds
// that to the dtype, then combines it with self and rounds again:
// out = fl_D(self op fl_D(acc(srcs))) (a mean's sum, which fold then
// divides by the count).
func (r foldRule) foldTwice(g reference.Folds, self float64, srcs []float64) (float64, bool) {
	op, _ := opOf(g.Reduce)
	accFmt, dtFmt := r.acc(g), dtypeAcc(g)
	acc := srcs[0] // the first contribution starts the fold as it is
	for _, v := range srcs[1:] {
		acc = r.step(acc, v, op, accFmt)
	}
	return r.step(self, r.store(acc, dtFmt), op, dtFmt), true
}

// opOf returns the operation of a sum or product and its identity.
func opOf(red scatter.Reduce) (byte, float64) {
	if red == scatter.ReduceProd {
		return '*', 1
	}
	return '+', 0
}

// step is one step of a fold in format f: acc op v, rounded. Past an
// overflow (an operand infinite or NaN) the fold goes on in IEEE
// arithmetic, exact on the specials, as a fold in that format does: inf
// op finite is inf or NaN.
func (r foldRule) step(acc, v float64, op byte, f fpFormat) float64 {
	if isSpecial(acc) || isSpecial(v) {
		if op == '*' {
			return acc * v
		}
		return acc + v
	}
	return r.round(exactOp(acc, v, op), false, f)
}

// store rounds a fold's accumulator to format f; a special is stored as
// it is.
func (r foldRule) store(acc float64, f fpFormat) float64 {
	if isSpecial(acc) {
		return acc
	}
	return r.round(new(big.Float).SetFloat64(acc), false, f)
}

// isSpecial reports an infinity or a NaN.
func isSpecial(v float64) bool { return math.IsInf(v, 0) || math.IsNaN(v) }

// round rounds x (with the sticky bit) to format f with the rule's mode,
// then, for a flushing rule, a subnormal result to a zero of its sign.
func (r foldRule) round(x *big.Float, sticky bool, f fpFormat) float64 {
	v := roundBig(x, sticky, f, r.mode)
	if r.flush {
		v = flushed(v, f)
	}
	return v
}

// flushed returns v, or a zero of v's sign where v is subnormal in format
// f (below f's smallest normal, 2^emin, in magnitude).
func flushed(v float64, f fpFormat) float64 {
	if v != 0 && math.Abs(v) < math.Ldexp(1, f.emin) {
		return math.Copysign(0, v)
	}
	return v
}

// extreme reports amax and amin, which only a flushing rule refolds.
func extreme(r scatter.Reduce) bool { return r == scatter.ReduceAmax || r == scatter.ReduceAmin }

// meanDividesAccumulator runs the mutant mean-divides-accumulator: a
// float16 or bfloat16 mean (scatter_reduce, torch_scatter) divides the
// float32 accumulator and rounds once, out = fl_D(acc / count), where
// torch 2 stores the sum in the dtype first, out = fl_D(fl_D(acc) / count).
// It is the reference run on float32 copies of the tensors (whose float32
// sum is the 16-bit call's accumulator, step for step, and whose mean is
// fl32(acc / count)), rounded to the dtype: rounding through float32 is
// innocuous for a quotient (24 >= 2·11 + 2), so this is fl_D(acc / count).
func meanDividesAccumulator(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	if err != nil {
		return res, err
	}
	var wide scatter.Call
	var dt scatter.DType
	switch x := c.(type) {
	case scatter.ScatterReduce:
		dt = x.Self.DType()
		if x.Reduce != scatter.ReduceMean || !is16(dt) || x.Src.DType() != dt {
			return res, err
		}
		x.Self, x.Src = toFloat32(x.Self), toFloat32(x.Src)
		wide = x
	case scatter.TorchScatter:
		dt = x.Src.DType()
		if x.Reduce != scatter.ReduceMean || !is16(dt) || !x.Out.IsZero() && x.Out.DType() != dt {
			return res, err
		}
		x.Src = toFloat32(x.Src)
		if !x.Out.IsZero() {
			x.Out = toFloat32(x.Out)
		}
		wide = x
	default:
		return res, err
	}
	w, werr := b.Run(wide)
	if werr != nil || !slices.Equal(w.Out.Shape, res.Out.Shape) {
		return res, err
	}
	wc := w.Out.Contiguous()
	out := scatter.Tensor{Shape: wc.Shape, Data: scatter.MakeData(dt, wc.NumEl())}
	for i := 0; i < wc.NumEl(); i++ {
		scatter.SetFloat(out.Data, i, scatter.Float64At(wc.Data, i))
	}
	return scatter.Result{Out: out, Arg: res.Arg}, nil
}
