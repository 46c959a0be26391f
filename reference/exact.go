package reference

import (
	"math"

	"github.com/scatterconf/scatter"
)

// The judge's exact rules: the outcomes that do not depend on the order of
// the contributions (integers, bool, amax/amin, torch_scatter min/max,
// untouched elements) and the candidates of plain scatter. The float
// intervals are in bounds.go.

// elem is one element: its bit pattern in the dtype (integers: the value as
// int64 bits; bool: 0 or 1), its value, and whether it is a NaN.
type elem struct {
	bits uint64
	i    int64   // integers and bool: the value
	f    float64 // the exact value (integers: converted)
	nan  bool
}

// elemAt returns element i (a position in data).
func elemAt(data any, i int) elem {
	switch d := data.(type) {
	case []bool:
		if d[i] {
			return intElem(1)
		}
		return intElem(0)
	case []uint8:
		return intElem(int64(d[i]))
	case []int8:
		return intElem(int64(d[i]))
	case []int16:
		return intElem(int64(d[i]))
	case []int32:
		return intElem(int64(d[i]))
	case []int64:
		return intElem(d[i])
	case []scatter.Float16:
		return elem{bits: uint64(d[i]), f: d[i].Float64(), nan: d[i].IsNaN()}
	case []scatter.BFloat16:
		return elem{bits: uint64(d[i]), f: d[i].Float64(), nan: d[i].IsNaN()}
	case []float32:
		x := d[i]
		return elem{bits: uint64(math.Float32bits(x)), f: float64(x), nan: x != x}
	case []float64:
		x := d[i]
		return elem{bits: math.Float64bits(x), f: x, nan: x != x}
	}
	return elem{nan: true, f: math.NaN()}
}

func intElem(v int64) elem { return elem{bits: uint64(v), i: v, f: float64(v)} }

// floatElem returns the dtype value v (exactly representable) of a float dtype.
func floatElem(dt scatter.DType, v float64) elem {
	return elem{bits: dtypeBits(dt, v), f: v, nan: v != v}
}

// zeroElem returns +0, 0 or false in dtype dt.
func zeroElem(dt scatter.DType) elem {
	if dt.IsFloat() {
		return floatElem(dt, 0)
	}
	return intElem(0)
}

// sameOutcome reports whether got matches want bit for bit, any NaN
// matching any NaN (payloads and NaN signs are never compared).
func sameOutcome(want, got elem) bool {
	if want.nan || got.nan {
		return want.nan && got.nan
	}
	return want.bits == got.bits
}

// meanCount returns the count that divides group g's sum in plan p (a
// kMean plan), exactly as PyTorch forms it under the profile (plan.go's
// meanRule):
//
//	n = (countSelf ? 1 : 0) + len(g.srcs), or counts[g.out] where set
//	integers: n wraps in the dtype (uint8: 256 -> 0; int8: 129 -> -127);
//	floats with meanRule.perStep (PyTorch 1.13): the count grows by one
//	    rounded addition at a time in the dtype, which is exact up to 2^p
//	    and then stops (2^p + 1 is a tie that rounds to the even 2^p):
//	    min(n, 2^p), i.e. 2048 for float16, 256 for bfloat16;
//	floats otherwise (PyTorch 2): n rounded once to the dtype (float16:
//	    2049 -> 2048, 2050 -> 2050, 65520 and more -> +Inf);
//	count == 0 becomes 1 (torch), or count < 1 becomes 1 (clampBelow,
//	torch_scatter).
//
// The fold (plan.floatCount, plan.intCount) must divide by the same count;
// this is written separately from the plan's rule so that the judge checks
// the fold rather than repeats it.
func meanCount(p *plan, g group) (count float64) {
	n := int64(len(g.srcs))
	if p.mean != nil && p.mean.countSelf {
		n++
	}
	if p.mean != nil && p.mean.counts != nil {
		n = p.mean.counts[g.out]
	}
	if f := formatOf(p.dtype); f != nil {
		if p.mean != nil && p.mean.perStep {
			n = min(n, int64(1)<<f.prec)
		}
		count = f.nearest(newBig().SetInt64(n))
	} else {
		count = float64(wrap(p.dtype, n))
	}
	if count == 0 || p.mean != nil && p.mean.clampBelow && count < 1 {
		count = 1
	}
	return count
}

// groupOperands returns the operands of group g in canonical order:
// init[g.out] when the plan includes self, then the src values.
func groupOperands(p *plan, g group) []elem {
	vs := make([]elem, 0, len(g.srcs)+1)
	if p.self {
		vs = append(vs, elemAt(p.init.Data, g.out))
	}
	for _, s := range g.srcs {
		vs = append(vs, elemAt(p.src.Data, int(s)))
	}
	return vs
}

// intFold returns the exact result of an integer or bool group of a kSum,
// kProd, kMean, kAmax or kAmin plan: integer arithmetic is order
// independent, wrapping included.
func intFold(p *plan, g group) elem {
	dt := p.dtype
	vs := groupOperands(p, g)
	lo, hi := dt.IntRange()
	var acc int64
	switch p.kind {
	case kProd:
		acc = 1
		for _, v := range vs {
			if dt == scatter.DTBool {
				acc &= v.i
			} else {
				acc *= v.i
			}
		}
	case kAmax:
		acc = lo
		for _, v := range vs {
			acc = max(acc, v.i)
		}
	case kAmin:
		acc = hi
		for _, v := range vs {
			acc = min(acc, v.i)
		}
	default: // kSum, kMean (bool mean is rejected by every planner)
		for _, v := range vs {
			if dt == scatter.DTBool {
				acc |= v.i
			} else {
				acc += v.i
			}
		}
		if p.kind == kMean && dt != scatter.DTBool {
			acc = floorDiv(wrap(dt, acc), int64(meanCount(p, g)))
		}
	}
	return intElem(wrap(dt, acc))
}

// floatExtreme returns the result of a float kAmax or kAmin group: NaN if
// any participating value is NaN, else the largest (smallest) value; the
// identity -inf (+inf) of an excluded self never wins.
func floatExtreme(p *plan, g group) elem {
	best := math.Inf(-1)
	if p.kind == kAmin {
		best = math.Inf(1)
	}
	for _, v := range groupOperands(p, g) {
		if v.nan {
			return floatElem(p.dtype, math.NaN())
		}
		if p.kind == kAmax && v.f > best || p.kind == kAmin && v.f < best {
			best = v.f
		}
	}
	return floatElem(p.dtype, best)
}

// tsFold folds a torch_scatter min/max group as its CPU kernel does: a
// value strictly greater (max) or smaller (min) than the accumulator
// replaces it and records its position along dim, so a NaN never wins and
// ties keep the earlier. It returns the value before masking (raw), after
// masking (out: 0 where the plan masks and raw still equals the value the
// group started from), and the arg (the sentinel where no src value won).
func tsFold(p *plan, g group) (raw, out elem, arg int64) {
	start := tsIdentity(p)
	if p.self {
		start = elemAt(p.init.Data, g.out)
	}
	acc := start
	rule := p.arg
	if rule == nil { // a plan without its argRule: judge the values alone
		rule = &argRule{inner: 1, size: 1} // every dimPos 0
	}
	arg = rule.sentinel
	isFloat := p.dtype.IsFloat()
	for _, s := range g.srcs {
		v := elemAt(p.src.Data, int(s))
		var better bool
		switch {
		case isFloat && p.kind == kTSMax:
			better = v.f > acc.f
		case isFloat:
			better = v.f < acc.f
		case p.kind == kTSMax:
			better = v.i > acc.i
		default:
			better = v.i < acc.i
		}
		if better {
			acc = v
			arg = rule.dimPos(s)
		}
	}
	return acc, tsMask(p, start, acc), arg
}

// tsIdentity is torch_scatter's initial value when out is not given: the
// dtype's lowest value for max and highest for min (for floats the finite
// ±max, not ±inf).
func tsIdentity(p *plan) elem {
	if f := formatOf(p.dtype); f != nil {
		m, _ := f.max.Float64()
		if p.kind == kTSMax {
			m = -m
		}
		return floatElem(p.dtype, m)
	}
	lo, hi := p.dtype.IntRange()
	if p.kind == kTSMax {
		return intElem(lo)
	}
	return intElem(hi)
}

// tsMask applies torch_scatter's masked_fill(out == init, 0) when the plan
// masks (out was not given): v becomes 0 if it still equals start, the
// value its element started from.
func tsMask(p *plan, start, v elem) elem {
	if p.arg == nil || !p.arg.masked {
		return v
	}
	if !v.nan && !start.nan && v.f == start.f && v.i == start.i {
		return zeroElem(p.dtype)
	}
	return v
}

// untouched returns what an element that no contribution reaches holds:
// its initial value, or 0 where torch_scatter masks an initial value that
// is the type's extreme (a plan may hold untouched elements as 0 already,
// or as the extreme that the mask then clears).
func untouched(p *plan, o int) elem {
	v := elemAt(p.init.Data, o)
	if p.arg != nil && p.arg.masked && (p.kind == kTSMax || p.kind == kTSMin) {
		return tsMask(p, tsIdentity(p), v)
	}
	return v
}

// tsArgs returns the args that conform for a torch_scatter min/max group:
// the position along dim of every src value equal (as a number) to the
// winning value raw, as an order-free or atomic kernel may pick any of them
// (torch_scatter's CUDA kernel writes the arg wherever src == out), and the
// sentinel where the canonical fold leaves it.
func tsArgs(p *plan, g group, raw elem, arg int64) []int64 {
	var args []int64
	if arg == p.arg.sentinel {
		args = append(args, arg)
	}
	for _, s := range g.srcs {
		v := elemAt(p.src.Data, int(s))
		if !v.nan && !raw.nan && v.f == raw.f && v.i == raw.i {
			args = addArg(args, p.arg.dimPos(s))
		}
	}
	return args
}

func addArg(xs []int64, x int64) []int64 {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// allow is the set of outcomes that conform at one output element at the
// conformant level: vals (bit for bit, any NaN matching a NaN; ±0 alike
// when zeroSign), or the float span rng when isRange.
type allow struct {
	vals     []elem
	zeroSign bool
	isRange  bool
	rng      span
	note     string // for reports: what the value is
}

// match reports whether y conforms.
func (a *allow) match(y elem) bool {
	for _, v := range a.vals {
		if sameOutcome(v, y) || a.zeroSign && !v.nan && !y.nan && v.f == 0 && y.f == 0 {
			return true
		}
	}
	return a.isRange && a.rng.contains(y.f)
}

// groupAllow returns what conforms for group g, and for torch_scatter
// min/max the args that conform.
func groupAllow(p *plan, g group) (allow, []int64) {
	dt := p.dtype
	f := formatOf(dt)
	switch p.kind {
	case kAssign:
		var a allow
		for _, s := range g.srcs {
			v := elemAt(p.src.Data, int(s))
			if !containsOutcome(a.vals, v) {
				a.vals = append(a.vals, v)
			}
		}
		if len(a.vals) > 1 {
			a.note = "a value of a duplicate target"
		}
		return a, nil
	case kTSMax, kTSMin:
		raw, out, arg := tsFold(p, g)
		var args []int64
		if p.arg != nil {
			args = tsArgs(p, g, raw, arg)
		}
		return allow{vals: []elem{out}, zeroSign: f != nil}, args
	}
	if f == nil {
		return allow{vals: []elem{intFold(p, g)}}, nil
	}
	switch p.kind {
	case kAmax, kAmin:
		return allow{vals: []elem{floatExtreme(p, g)}, zeroSign: true}, nil
	case kSum, kMean, kProd:
		vs := groupOperands(p, g)
		xs := make([]float64, len(vs))
		for i, v := range vs {
			xs[i] = v.f
		}
		ar := planArith(p)
		var count float64
		if p.kind == kMean {
			count = meanCount(p, g)
		}
		if a, ok := enumeratedAllow(ar, p.kind, xs, count, !p.self); ok {
			return a, nil
		}
		if z, ok := zeroSum(p, xs); ok {
			return allow{vals: []elem{z}}, nil
		}
		var s span
		switch p.kind {
		case kSum:
			s = sumSpan(ar, xs)
		case kMean:
			s = meanSpan(ar, xs, count)
		default:
			s = prodSpan(ar, xs)
		}
		return allow{isRange: true, rng: s, note: s.note}, nil
	}
	return allow{}, nil // no kind left: nothing conforms
}

// zeroSum returns the result of a sum or mean group too large to enumerate
// whose terms xs are all zeros: -0 when every term is -0 and no identity
// (+0) starts the group, +0 otherwise, in every order (enumerate.go). The
// intervals, which leave a zero's sign free, judge the rest.
func zeroSum(p *plan, xs []float64) (elem, bool) {
	if p.kind == kProd {
		return elem{}, false
	}
	neg := p.self // without self the identity +0 is a term
	for _, x := range xs {
		if x != 0 {
			return elem{}, false
		}
		neg = neg && math.Signbit(x)
	}
	z := 0.0
	if neg {
		z = math.Copysign(0, -1)
	}
	return floatElem(p.dtype, z), true
}

func containsOutcome(vs []elem, v elem) bool {
	for _, w := range vs {
		if sameOutcome(w, v) {
			return true
		}
	}
	return false
}
