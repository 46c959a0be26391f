package reference

import (
	"errors"
	"math"

	"github.com/scatterconf/scatter"
)

// Allowed is what conforms for one call at one level, as data: the codes
// of a call that must fail, or, for a call that succeeds, the outcomes
// that conform at every element of its result. It is what the judge
// (Expectation.Check) accepts, element by element.
type Allowed struct {
	// Any is true when the call's outcome is undefined (PyTorch leaves it
	// so): anything conforms, a result of any layout or any rejection
	// (an error with a code other than ErrNotSupported).
	Any bool
	// Errors is, for a call that must fail, the codes that conform at the
	// level, PyTorch's (the one it raises) first; strict: PyTorch's only.
	// It is nil for a call that succeeds.
	Errors []scatter.Code
	// Out is what conforms at each element of the result's out; Arg, for
	// torch_scatter min/max, at each element of its arg (nil otherwise).
	// Both are zero for a call that must fail and when Any is true.
	Out AllowedTensor
	Arg *AllowedTensor
}

// AllowedTensor is what conforms at each element of one result tensor,
// in row-major order.
type AllowedTensor struct {
	DType scatter.DType
	Shape []int
	Elems []Outcomes
}

// Outcomes is the set of values that conform at one element: every value
// of the dtype when Any; else any of Values (bit for bit, -0.0 and 0.0
// distinct, a NaN matching any NaN) or, when Range, a value in the closed
// interval [Lo, Hi] of the dtype's values ordered with -0.0 < 0.0. Where
// the sign of a zero is free, both zeros are in the set: in Values, or
// inside the interval. Values hold scatter.Float for the float dtypes,
// scatter.Int for the integer ones and arg, scatter.Bool for bool.
//
// Range is given for float sums, means and products at the conformant
// level; Values then add the outcomes beyond it (inf where overflow is
// reachable in some order, nan, the other zero).
type Outcomes struct {
	Any    bool
	Values []scatter.Scalar
	Range  bool
	Lo, Hi float64
	// Note says what the value is, in words: "untouched", "a value of a
	// duplicate target", "exact sum 3 of 2 terms"; or "".
	Note string
}

// Contains reports whether v (a value of the element's dtype, as in
// Values) is in the set.
func (o Outcomes) Contains(v scatter.Scalar) bool {
	if o.Any {
		return true
	}
	for _, w := range o.Values {
		if sameScalar(w, v) {
			return true
		}
	}
	if !o.Range || !v.IsFloat() {
		return false
	}
	f := v.Float64()
	return !math.IsNaN(f) && totalLE(o.Lo, f) && totalLE(f, o.Hi)
}

// sameScalar compares two values bit for bit, any NaN matching any NaN.
func sameScalar(a, b scatter.Scalar) bool {
	if a.IsFloat() != b.IsFloat() {
		return false
	}
	if !a.IsFloat() {
		return a.Int64() == b.Int64()
	}
	x, y := a.Float64(), b.Float64()
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return x == y && math.Signbit(x) == math.Signbit(y)
}

// totalLE is a <= b with -0 < +0.
func totalLE(a, b float64) bool {
	if a == 0 && b == 0 {
		return math.Signbit(a) || !math.Signbit(b)
	}
	return a <= b
}

// errCanonUnusable is Allowed's error when the reference's own result
// cannot be read (a bug of the reference, not of the call).
var errCanonUnusable = errors.New("the reference's canonical result is unusable")

// Anything reports whether every outcome conforms: the call's outcome is
// undefined (Allowed then returns Any without building a set).
func (e *Expectation) Anything() bool { return e.plan != nil && e.plan.anything }

// Allowed returns what conforms at level lvl, as data: the same sets that
// Check accepts. It costs time and memory linear in the result's elements.
// The error is not nil only when the reference's own result cannot be
// read.
func (e *Expectation) Allowed(lvl scatter.Level) (Allowed, error) {
	if e.plan == nil {
		want := e.codes
		if lvl == scatter.Strict {
			want = want[:1]
		}
		return Allowed{Errors: append([]scatter.Code{}, want...)}, nil
	}
	if e.plan.anything {
		return Allowed{Any: true}, nil
	}
	p := e.plan
	out := AllowedTensor{DType: p.dtype, Shape: append([]int{}, p.shape...)}
	var arg *AllowedTensor
	if p.arg != nil {
		arg = &AllowedTensor{DType: scatter.DTInt64, Shape: append([]int{}, p.shape...)}
	}
	if lvl == scatter.Strict {
		e.strictOnce.Do(e.prepareStrict)
		if e.canonBad != "" {
			return Allowed{}, errors.Join(errCanonUnusable, errors.New(e.canonBad))
		}
		out.Elems = e.strictOutcomes()
		if arg != nil {
			arg.Elems = make([]Outcomes, len(e.canonArg))
			for i, a := range e.canonArg {
				arg.Elems[i] = Outcomes{Values: []scatter.Scalar{scatter.Int(a)}}
			}
		}
		return Allowed{Out: out, Arg: arg}, nil
	}
	e.confOnce.Do(e.prepareConformant)
	n := len(e.groupOf)
	out.Elems = make([]Outcomes, n)
	var args [][]int64 // per group: the args that conform (torch_scatter min/max)
	if arg != nil {
		args = make([][]int64, p.groups.len())
	}
	for gi, g := range p.groups.all() {
		a, as := groupAllow(p, g)
		if g.out >= 0 && g.out < n {
			out.Elems[g.out] = a.outcomes(p.dtype)
		}
		if args != nil {
			args[gi] = as
		}
	}
	for i, gi := range e.groupOf {
		if gi < 0 {
			out.Elems[i] = Outcomes{Values: []scatter.Scalar{elemScalar(p.dtype, untouched(p, i))}, Note: "untouched"}
		}
	}
	if arg != nil {
		arg.Elems = make([]Outcomes, n)
		for i, gi := range e.groupOf {
			want := []int64{p.arg.sentinel}
			if gi >= 0 {
				want = args[gi]
			}
			vs := make([]scatter.Scalar, len(want))
			for k, a := range want {
				vs[k] = scatter.Int(a)
			}
			arg.Elems[i] = Outcomes{Values: vs}
		}
	}
	return Allowed{Out: out, Arg: arg}, nil
}

// strictOutcomes returns the strict level's set of every out element: the
// canonical value, and the other zero where an amax/amin tie leaves the
// sign of a zero free.
func (e *Expectation) strictOutcomes() []Outcomes {
	dt := e.plan.dtype
	tieFree := e.tieFree()
	os := make([]Outcomes, scatter.DataLen(e.canonOut))
	for i := range os {
		want := elemAt(e.canonOut, i)
		v := elemScalar(dt, want)
		if tieFree != nil && tieFree[i] && !want.nan && want.f == 0 {
			os[i] = Outcomes{Values: []scatter.Scalar{v, scatter.Float(-v.Float64())}}
			continue
		}
		os[i] = Outcomes{Values: []scatter.Scalar{v}}
	}
	return os
}

// elemScalar returns element v of dtype dt as a value of Outcomes.
func elemScalar(dt scatter.DType, v elem) scatter.Scalar {
	switch {
	case dt == scatter.DTBool:
		return scatter.Bool(v.i != 0)
	case dt.IsFloat() && v.nan:
		return scatter.Float(math.NaN())
	case dt.IsFloat():
		return scatter.Float(v.f)
	}
	return scatter.Int(v.i)
}

// outcomes returns the conformant set a as data.
func (a *allow) outcomes(dt scatter.DType) Outcomes {
	if a.coversAll(dt) {
		return Outcomes{Any: true}
	}
	o := Outcomes{Note: a.note}
	if !a.isRange {
		switch {
		case len(a.vals) == 1 && a.zeroSign && dt.IsFloat() && !a.vals[0].nan && a.vals[0].f == 0:
			o.Values = []scatter.Scalar{scatter.Float(0), scatter.Float(math.Copysign(0, -1))}
		default:
			for _, v := range a.vals {
				o.Values = append(o.Values, elemScalar(dt, v))
			}
		}
		return o
	}
	r := a.rng
	if !r.empty {
		if r.lo == r.hi {
			v := r.lo
			switch {
			case v == 0 && r.sign == 0:
				o.Values = append(o.Values, scatter.Float(0), scatter.Float(math.Copysign(0, -1)))
			case v == 0:
				o.Values = append(o.Values, scatter.Float(math.Copysign(0, float64(r.sign))))
			default:
				o.Values = append(o.Values, scatter.Float(v))
			}
		} else {
			o.Range, o.Lo, o.Hi = true, r.lo, r.hi
		}
	}
	if r.posInf && (r.empty || !math.IsInf(r.hi, 1)) {
		o.Values = append(o.Values, scatter.Float(math.Inf(1)))
	}
	if r.negInf && (r.empty || !math.IsInf(r.lo, -1)) {
		o.Values = append(o.Values, scatter.Float(math.Inf(-1)))
	}
	if r.nan {
		o.Values = append(o.Values, scatter.Float(math.NaN()))
	}
	// A zero the judge allows just outside the interval in the total
	// order (an interval from +0 or up to -0, the sign of its zeros free).
	if o.Range {
		for _, z := range []float64{math.Copysign(0, -1), 0} {
			if zs := scatter.Float(z); !o.Contains(zs) && r.contains(z) {
				o.Values = append(o.Values, zs)
			}
		}
	}
	return o
}

// coversAll reports whether every value of the dtype conforms.
func (a *allow) coversAll(dt scatter.DType) bool {
	if a.isRange {
		f := formatOf(dt)
		if f == nil {
			return false
		}
		m, _ := f.max.Float64()
		for _, y := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), m, -m, 0, math.Copysign(0, -1)} {
			if !a.rng.contains(y) {
				return false
			}
		}
		return true
	}
	if dt.IsFloat() {
		return false // a list of values never holds every float
	}
	lo, hi := dt.IntRange()
	return uint64(len(a.vals)) > uint64(hi-lo) // the values are distinct
}
