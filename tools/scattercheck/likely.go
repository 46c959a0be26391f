package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/reference"
)

// The likely bug of a failure: the mutant of package properties' zoo (a
// reference backend with one known bug) whose answer to the failing call
// is the implementation's. It turns "out[3]: got 0.99951171875" into
// "looks like: float16/bfloat16 sums ... stored by truncation (mutant
// half-truncated)".

// likelyBug names the mutant class a failure looks like.
type likelyBug struct {
	Mutant string `json:"mutant"` // the mutant's name in properties.Mutants
	Bug    string `json:"bug"`    // its bug, in a sentence
	// Match is how the implementation's outcome matched the mutant's:
	// "same outcome" (the same error code, or the same values element for
	// element, NaN matching NaN and zeros of either sign matching) or
	// "same verdict" (the same elements rejected, each on the same side of
	// what was allowed).
	Match string `json:"match"`
	// Also names the other mutants that match as well (one call cannot
	// tell them apart), in the zoo's order.
	Also []string `json:"also,omitempty"`
}

// String renders the line of the text report.
func (l *likelyBug) String() string {
	s := fmt.Sprintf("looks like: %s (mutant %s, %s)", l.Bug, l.Mutant, l.Match)
	if len(l.Also) > 0 {
		s += "; or " + strings.Join(l.Also, ", ")
	}
	return s
}

// unclassifying are the mutants that cannot be compared on one call: one
// answers differently from call to call, one panics, one writes into the
// call's tensors (a modified input is its own failure kind).
var unclassifying = []string{"flaky-duplicates", "panics-on-empty-index", "writes-self"}

// maxLikelyElements bounds the outputs that classification compares (a
// shrunk or spec call is far smaller; a property's case that does not
// shrink may have some thousands: the default tier draws outputs a little
// past 4096, such as 257×4×2×2), and maxClassified the failures of a run
// it looks at: each runs every mutant on the call (about 0.2 s for 4096
// elements, well under a millisecond for a shrunk call).
// maxWorkloadLikelyElements is the bound for the workloads part's seven
// calls, whose outputs at the default -workload-div have up to 64,000
// elements (W7's 10,000: the whole run in 3.4 s, classification included),
// and maxWorkloadLikelyInputs bounds their tensors' elements, all told
// (W2's 1.34 million at the default: W6 keeps 16 outputs at every scale,
// and at -workload-div 1 every mutant on its 10 million contributions took
// 52 s and 1.7 GB).
const (
	maxLikelyElements         = 1 << 14
	maxClassified             = 100
	maxWorkloadLikelyElements = 1 << 16
	maxWorkloadLikelyInputs   = 1 << 21
)

// classify sets f.Likely for a mismatch whose call and outcome are known
// (spec cases, fixtures and random calls; a property's failure once the
// implementation has been asked again, rerunKept in props.go): the first
// mutant under the failure's profile, in the zoo's order, that is wrong
// on the call and whose outcome is the implementation's; failing that,
// the first whose outcome gets the same verdict. Nothing is set when no
// mutant matches.
func (f *failure) classify() {
	if f.classified {
		return
	}
	f.classified = true
	switch {
	case f.Kind != "mismatch":
		article := "a "
		if strings.ContainsAny(f.Kind[:min(1, len(f.Kind))], "aeiou") {
			article = "an "
		}
		f.uncompared = article + f.Kind + " failure, which the zoo does not name"
	case f.call == nil && f.Request == "":
		f.uncompared = "the gate kept no call for it"
	case f.call == nil:
		f.uncompared = "the report it comes from names no likely bug for it"
	case f.err == nil && f.res.Out.IsZero():
		f.uncompared = "the gate kept the call but not the outcome"
	default:
		maxOut, maxIn := maxLikelyElements, 0
		if f.workload {
			maxOut, maxIn = maxWorkloadLikelyElements, maxWorkloadLikelyInputs
		}
		f.Likely, f.uncompared = likelyFor(f.call, f.profile, f.level, f.res, f.err, maxOut, maxIn)
	}
}

// unclassified says why classify could not compare a failure with the
// zoo: a failure that is not a mismatch, one whose call or outcome the
// gate did not keep, or one whose output is past maxLikelyElements. It is
// "" when the failure was compared (and Likely says what matched, if
// anything).
func (f *failure) unclassified() string {
	f.classify()
	return f.uncompared
}

// likelyFor returns the mutant class of outcome (res, err) of call c under
// profile prof at level lvl, or nil: the first mutant with the same
// outcome, the others with the same outcome in Also; failing any, the
// same for the same verdict. Where PyTorch raises on c, only the mutants
// whose bug is in the checks (Mutant.Checks) are compared. uncompared says why it compared nothing (an
// output past maxLikelyElements), "" when it compared.
func likelyFor(c scatter.Call, prof scatter.Profile, lvl scatter.Level, res scatter.Result, err error, maxOut, maxIn int) (l *likelyBug, uncompared string) {
	if maxIn > 0 {
		if n := callElements(c); n > maxIn {
			return nil, fmt.Sprintf("its tensors have %d elements, past the %d that classification runs every mutant on", n, maxIn)
		}
	}
	exp := reference.Expect(cloneCall(c), prof)
	if n := res.Out.NumEl(); exp.Codes() == nil && n > maxOut {
		return nil, fmt.Sprintf("its output has %d elements, past the %d that classification compares", n, maxOut)
	}
	var outcome, verdict *likelyBug
	add := func(l **likelyBug, m properties.Mutant, match string) {
		if *l == nil {
			*l = &likelyBug{Mutant: m.Name, Bug: m.Bug, Match: match}
		} else {
			(*l).Also = append((*l).Also, m.Name)
		}
	}
	raises := exp.Codes() != nil
	for _, m := range properties.MutantsFor(prof) {
		if slices.Contains(unclassifying, m.Name) || raises && !m.Checks {
			// where PyTorch raises, only a mutant whose bug is in the
			// checks tells something by its outcome: another one that
			// fails or succeeds there does so because it changed the
			// call it runs (tail-dropped narrows the index past an
			// out-of-range value, or into another shape error)
			continue
		}
		mres, merr, ok := runGuarded(m.Backend, cloneCall(c))
		if !ok || exp.Check(lvl, mres, merr) == nil {
			continue // the mutant is right on this call: its bug is not shown
		}
		switch {
		case sameOutcome(res, err, mres, merr):
			add(&outcome, m, "same outcome")
		case outcome == nil && sameVerdict(exp, lvl, res, err, mres, merr):
			add(&verdict, m, "same verdict")
		}
	}
	if outcome != nil {
		return outcome, ""
	}
	return verdict, ""
}

// runGuarded runs a mutant, a panic being no outcome (ok false).
func runGuarded(b scatter.Backend, c scatter.Call) (res scatter.Result, err error, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	res, err = b.Run(c)
	return res, err, true
}

// sameOutcome reports whether two outcomes are the same: both errors of
// one code, or both results of one shape and dtype with equal values (a
// NaN equals a NaN, -0 equals +0) and equal args.
func sameOutcome(r1 scatter.Result, e1 error, r2 scatter.Result, e2 error) bool {
	if e1 != nil || e2 != nil {
		return e1 != nil && e2 != nil && scatter.CodeOf(e1) == scatter.CodeOf(e2)
	}
	return sameTensor(r1.Out, r2.Out) && sameArg(r1, r2)
}

// sameArg reports whether two results have no arg, or equal ones.
func sameArg(r1, r2 scatter.Result) bool {
	return r1.Arg.IsZero() && r2.Arg.IsZero() || sameTensor(r1.Arg, r2.Arg)
}

// sameLayout reports whether two tensors are valid, of one dtype and one
// shape.
func sameLayout(a, b scatter.Tensor) bool {
	return a.Validate() == nil && b.Validate() == nil && a.DType() == b.DType() && slices.Equal(a.Shape, b.Shape)
}

// sameTensor compares two tensors' values (see sameOutcome).
func sameTensor(a, b scatter.Tensor) bool {
	if !sameLayout(a, b) {
		return false
	}
	pa, pb := a.Positions(), b.Positions()
	for i := range pa {
		if !sameValue(a.DType(), a.Data, pa[i], b.Data, pb[i]) {
			return false
		}
	}
	return true
}

// sameValue compares element i of x with element j of y.
func sameValue(dt scatter.DType, x any, i int, y any, j int) bool {
	if dt.IsFloat() {
		u, v := scatter.Float64At(x, i), scatter.Float64At(y, j)
		return u == v || math.IsNaN(u) && math.IsNaN(v)
	}
	return scatter.IntAt(x, i) == scatter.IntAt(y, j)
}

// sameVerdict reports whether two results of a call that must succeed
// get the same verdict element by element: the same elements of out
// conform, and every one that does not is the same value in both or lies
// on the same side (below or above) of what is allowed there. The args
// must be the same.
func sameVerdict(exp *reference.Expectation, lvl scatter.Level, r1 scatter.Result, e1 error, r2 scatter.Result, e2 error) bool {
	if e1 != nil || e2 != nil || exp.Codes() != nil {
		return false
	}
	a, b := r1.Out, r2.Out
	if !sameLayout(a, b) || !sameArg(r1, r2) {
		return false
	}
	allowed, err := exp.Allowed(lvl)
	if err != nil || allowed.Any || len(allowed.Out.Elems) != a.NumEl() {
		return false
	}
	dt := a.DType()
	pa, pb := a.Positions(), b.Positions()
	bad := 0
	for i, o := range allowed.Out.Elems {
		u, v := scalarAt(dt, a.Data, pa[i]), scalarAt(dt, b.Data, pb[i])
		cu, cv := o.Contains(u), o.Contains(v)
		if cu != cv {
			return false
		}
		if cu {
			continue
		}
		bad++
		if sameValue(dt, a.Data, pa[i], b.Data, pb[i]) {
			continue
		}
		if !u.IsFloat() {
			return false
		}
		su := side(o, u.Float64())
		if su == 0 || su != side(o, v.Float64()) {
			return false
		}
	}
	return bad > 0
}

// side is -1 below the hull of an element's allowed outcomes (its
// interval and its values, NaN aside), +1 above it, 0 inside it or for a
// NaN (where only the same value is the same verdict).
func side(o reference.Outcomes, x float64) int {
	lo, hi := math.Inf(1), math.Inf(-1)
	if o.Range {
		lo, hi = o.Lo, o.Hi
	}
	for _, w := range o.Values {
		if f := w.Float64(); !math.IsNaN(f) {
			lo, hi = min(lo, f), max(hi, f)
		}
	}
	switch {
	case x < lo:
		return -1
	case x > hi:
		return 1
	}
	return 0
}

// scalarAt returns element i of a tensor's data as the scalar kind the
// allowed sets hold.
func scalarAt(dt scatter.DType, data any, i int) scatter.Scalar {
	switch {
	case dt.IsFloat():
		return scatter.Float(scatter.Float64At(data, i))
	case dt == scatter.DTBool:
		return scatter.Bool(scatter.IntAt(data, i) != 0)
	}
	return scatter.Int(scatter.IntAt(data, i))
}
