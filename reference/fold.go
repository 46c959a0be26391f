package reference

import (
	"math"

	"github.com/scatterconf/scatter"
)

// fold executes the plan in the canonical order with the profile's
// rounding (plan.go). It is the reference's result and the judge's strict
// expectation.
func (p *plan) fold() scatter.Result {
	out := p.init.Contiguous()
	var arg scatter.Tensor
	var argData []int64
	if p.arg != nil {
		argData = make([]int64, p.init.NumEl())
		for i := range argData {
			argData[i] = p.arg.sentinel
		}
		arg = scatter.Tensor{Shape: append([]int{}, p.shape...), Data: argData}
	}
	for _, g := range p.groups.all() {
		if p.dtype.IsFloat() {
			v, a := p.foldFloat(g)
			setFloat(out.Data, g.out, v)
			if argData != nil {
				argData[g.out] = a
			}
		} else {
			v, a := p.foldInt(g)
			setInt(out.Data, g.out, v)
			if argData != nil {
				argData[g.out] = a
			}
		}
	}
	return scatter.Result{Out: out, Arg: arg}
}

// roundTo rounds x to the nearest value of the float dtype dt, ties to
// even, and returns it as a float64 (exact for every float dtype).
func roundTo(dt scatter.DType, x float64) float64 {
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

// accType is the type a float sum or product accumulates in: the dtype
// itself, or float32 for 16-bit floats when the plan does not round each
// step (PyTorch ≥ 2.1's opmath buffer).
//
// Every step computes the exact operation in float64 and rounds once to the
// accumulation type. That equals the type's own correctly rounded operation:
// float64 has at least 2p+2 bits for every p here (p = 11, 8, 24), which
// makes the double rounding innocuous for +, * and / (Figueroa, "When is
// double rounding innocuous?", 1995); PyTorch's 16-bit arithmetic (compute
// in float32, round) is correctly rounded for the same reason.
func (p *plan) accType() scatter.DType {
	if (p.dtype == scatter.DTFloat16 || p.dtype == scatter.DTBFloat16) && !p.perStep {
		return scatter.DTFloat32
	}
	return p.dtype
}

// floatIdentity is the value a float group starts from when self does not
// take part: ATen's scatter_reduce_exclude_self_helper and index_reduce's
// init (0, 1, -inf, +inf), or torch_scatter's finite lowest/highest.
func (p *plan) floatIdentity() float64 {
	lo, hi := dtypeRange(p.dtype)
	switch p.kind {
	case kProd:
		return 1
	case kAmax:
		return math.Inf(-1)
	case kAmin:
		return math.Inf(1)
	case kTSMax:
		return lo
	case kTSMin:
		return hi
	}
	return 0
}

// foldFloat folds one group of a float plan and returns the stored value
// and, for torch_scatter min/max, the arg.
func (p *plan) foldFloat(g group) (float64, int64) {
	acc := p.floatIdentity()
	if p.self {
		acc = scatter.Float64At(p.init.Data, g.out)
	}
	start := acc
	var argv int64
	if p.arg != nil {
		argv = p.arg.sentinel
	}
	at := p.accType()
	for _, s := range g.srcs {
		v := scatter.Float64At(p.src.Data, int(s))
		switch p.kind {
		case kAssign:
			acc = v
		case kSum, kMean:
			acc = roundTo(at, acc+v)
		case kProd:
			acc = roundTo(at, acc*v)
		case kAmax: // isnan(v) ? v : std::max(acc, v), std::max(a, b) = a < b ? b : a
			if math.IsNaN(v) || acc < v {
				acc = v
			}
		case kAmin: // isnan(v) ? v : std::min(acc, v), std::min(a, b) = b < a ? b : a
			if math.IsNaN(v) || v < acc {
				acc = v
			}
		case kTSMax: // torch_scatter: if (new > cur) cur = new, arg = e
			if v > acc {
				acc, argv = v, p.arg.dimPos(s)
			}
		case kTSMin:
			if v < acc {
				acc, argv = v, p.arg.dimPos(s)
			}
		}
	}
	acc = roundTo(p.dtype, acc)
	switch {
	case p.kind == kMean:
		acc = roundTo(p.dtype, acc/meanCount(p, g))
	case p.arg != nil && p.arg.masked && acc == start:
		acc = 0
	}
	return acc, argv
}

// setFloat stores v, rounded to the slice's type, at position i
// (scatter.SetFloat).
func setFloat(data any, i int, v float64) { scatter.SetFloat(data, i, v) }

// intAt returns element i of an integer or bool slice as an int64
// (scatter.IntAt).
func intAt(data any, i int) int64 { return scatter.IntAt(data, i) }

// wrap reduces x to dtype dt's width (scatter.DType.WrapInt: two's
// complement; bool is x != 0). Integer arithmetic modulo 2^n is a ring, so
// folding in int64 and wrapping once equals wrapping after every step, in
// any order.
func wrap(dt scatter.DType, x int64) int64 { return dt.WrapInt(x) }

// intIdentity is the start of an integer or bool group without self:
// 0, 1, lowest (bool false), max (bool true).
func (p *plan) intIdentity() int64 {
	lo, hi := p.dtype.IntRange()
	switch p.kind {
	case kProd:
		return 1
	case kAmax, kTSMax:
		return lo
	case kAmin, kTSMin:
		return hi
	}
	return 0
}

// foldInt folds one group of an integer or bool plan. Integer arithmetic
// wraps; on bool, sum is or, prod is and, amax is or, amin is and.
func (p *plan) foldInt(g group) (int64, int64) {
	dt := p.dtype
	acc := p.intIdentity()
	if p.self {
		acc = intAt(p.init.Data, g.out)
	}
	start := acc
	var argv int64
	if p.arg != nil {
		argv = p.arg.sentinel
	}
	for _, s := range g.srcs {
		v := intAt(p.src.Data, int(s))
		switch p.kind {
		case kAssign:
			acc = v
		case kSum, kMean:
			acc = wrap(dt, acc+v)
		case kProd:
			acc = wrap(dt, acc*v)
		case kAmax:
			if acc < v {
				acc = v
			}
		case kAmin:
			if v < acc {
				acc = v
			}
		case kTSMax:
			if v > acc {
				acc, argv = v, p.arg.dimPos(s)
			}
		case kTSMin:
			if v < acc {
				acc, argv = v, p.arg.dimPos(s)
			}
		}
	}
	switch {
	case p.kind == kMean:
		acc = wrap(dt, floorDiv(acc, int64(meanCount(p, g))))
	case p.arg != nil && p.arg.masked && acc == start:
		acc = 0
	}
	return acc, argv
}

// floorDiv is ATen's div_floor_integer: truncating division, minus one when
// the signs differ and the remainder is not zero. Go's int64 division
// wraps on MinInt64 / -1 like the C++ one stored back into the dtype.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
