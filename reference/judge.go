package reference

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/scatterconf/scatter"
)

// Expectation is what conforms for one call under one profile: either the
// rules the call breaks (it must fail), or its plan, from which the judge
// derives the canonical result (the strict level) and, for every output
// element, the set of outcomes that any correct implementation may give
// (the conformant level).
//
// The levels (ARCHITECTURE.md, "The judge"):
//
//   - A call that must fail conforms with an error whose code
//     (scatter.CodeOf) is PyTorch's first broken rule (strict) or any of the
//     broken rules (conformant): those PyTorch checks, and the index values
//     that its kernel would check next (an implementation may check them
//     first). Success, an error without a code and
//     scatter.ErrNotSupported are mismatches: a caller that lets an
//     implementation skip the calls it does not offer must handle
//     ErrNotSupported itself, before calling Check.
//   - A call that must succeed conforms with no error and an Out of the
//     expected shape and dtype (any valid strided view), and an Arg (int64,
//     the same shape) exactly for torch_scatter min/max.
//   - Strict: every element bit-identical to the canonical fold (the
//     reference's result): contributions in increasing position along dim,
//     self first, with the profile's rounding; only the sign of a zero
//     that amax/amin reduce is free, as PyTorch's own paths differ there.
//   - Conformant: untouched elements bit-identical to the initial value;
//     integer and bool results exact; plain scatter with duplicate targets
//     one of the candidates; float amax/amin exact up to the sign of a zero;
//     torch_scatter min/max exact up to the sign of a zero, its arg any
//     position of a tied winner; float sum, mean and prod: what some order
//     and tree of the profile's arithmetic gives (bounds.go, "The
//     profile's arithmetic"), exactly for groups of up to maxEnumerate
//     contributions (enumerate.go), else within the rigorous any-order
//     intervals of bounds.go and running_error.go, with the overflow
//     outcomes where overflow is reachable.
//
// NaN payloads and NaN sign bits are never compared, at either level: any
// NaN matches any NaN.
//
// An Expectation is safe for concurrent use.
type Expectation struct {
	call  scatter.Call
	prof  scatter.Profile
	plan  *plan // nil when the call must fail
	errs  errs
	codes []scatter.Code
	canon scatter.Result

	strictOnce sync.Once
	canonOut   any     // canonical Out's elements in row-major order (its contiguous Data)
	canonArg   []int64 // canonical Arg in row-major order
	canonBad   string  // why the canonical result cannot be used, if it cannot

	confOnce sync.Once
	groupOf  []int32 // plan.groups index of each output element; -1: untouched
}

// Expect returns what conforms for call c under profile p.
func Expect(c scatter.Call, p scatter.Profile) *Expectation {
	pl, es := planCall(c, p)
	if len(es) > 0 || pl == nil {
		return failingExpectation(c, p, es)
	}
	return newExpectation(c, p, pl, pl.fold())
}

// failingExpectation is the expectation of a call that breaks the rules es.
func failingExpectation(c scatter.Call, prof scatter.Profile, es errs) *Expectation {
	codes := es.codes()
	if len(codes) == 0 {
		// A planner that returns neither a plan nor a rule: the reference
		// cannot run the call, which only an error can answer.
		codes = []scatter.Code{scatter.ErrInvalidArgument}
	}
	return &Expectation{call: c, prof: prof, errs: es, codes: codes}
}

// Declined returns why the reference cannot judge the call, or "": its
// output would pass the reference's own size limit (2^24 elements, for the
// outputs it allocates itself: torch_scatter's, the F# library's), where
// PyTorch would allocate it. The Expectation then requires
// ErrInvalidArgument, which is the reference's limit and not PyTorch's
// outcome: a caller that can say "not judged" (the oracle answers
// unsupported) should.
func (e *Expectation) Declined() string {
	for _, x := range e.errs {
		if x.Code == scatter.ErrInvalidArgument && strings.HasPrefix(x.Msg, declinedPrefix) {
			return x.Msg
		}
	}
	return ""
}

// newExpectation is the expectation of a call that succeeds with plan p and
// canonical result canon.
func newExpectation(c scatter.Call, prof scatter.Profile, p *plan, canon scatter.Result) *Expectation {
	return &Expectation{call: c, prof: prof, plan: p, canon: canon}
}

// Judge is Expect(c, p).Check(lvl, res, err): nil if the outcome (res, err)
// of call c conforms under profile p at level lvl, else a *Mismatch.
func Judge(c scatter.Call, p scatter.Profile, lvl scatter.Level, res scatter.Result, err error) error {
	return Expect(c, p).Check(lvl, res, err)
}

// Codes returns nil when the call succeeds, else the codes of every rule it
// breaks, PyTorch's (the one it raises) first.
func (e *Expectation) Codes() []scatter.Code {
	if e.plan != nil {
		return nil
	}
	return slices.Clone(e.codes)
}

// Result returns the canonical (strict) result: the reference's fold, the
// Result that New(p).Run(c) returns, folded once by Expect. It is the zero
// Result when the call fails.
func (e *Expectation) Result() scatter.Result { return e.canon }

// Err returns, for a call that must fail, the error that New(p).Run(c)
// returns: PyTorch's broken rule with its message. It is nil for a call
// that succeeds, and for a call that the reference cannot run without
// naming a rule (Codes then holds scatter.ErrInvalidArgument).
func (e *Expectation) Err() error {
	if e.plan != nil || len(e.errs) == 0 {
		return nil
	}
	return e.errs[0]
}

// Check returns nil if the outcome (res, err) conforms at level lvl, else a
// *Mismatch that shows the call and up to ten offending elements with what
// was allowed. See Expectation for the rules; an outcome answering
// scatter.ErrNotSupported is a mismatch.
func (e *Expectation) Check(lvl scatter.Level, res scatter.Result, err error) error {
	if lvl != scatter.Strict {
		lvl = scatter.Conformant
	}
	if e.plan == nil {
		return e.checkError(lvl, err)
	}
	if e.plan.anything {
		// any result or rejection; an error without a code (a process
		// that crashed, hung or answered garbage) is neither, and
		// unsupported is a mismatch here as everywhere (above)
		switch scatter.CodeOf(err) {
		case scatter.ErrNotSupported:
			return e.mismatch(lvl, err, "answered unsupported, where any result or rejection conforms")
		case 0:
			if err != nil {
				return e.mismatch(lvl, err, "returned an error without a code ("+err.Error()+"), where any result or rejection conforms")
			}
		}
		return nil
	}
	if err != nil {
		return e.mismatch(lvl, err, "returned error "+errorName(err)+", want success")
	}
	if reason := e.checkLayout(res); reason != "" {
		return e.mismatch(lvl, nil, reason)
	}
	bad := badElements{shape: e.plan.shape, from: e.fromOf}
	if lvl == scatter.Strict {
		e.strictOnce.Do(e.prepareStrict)
		if e.canonBad != "" {
			return e.mismatch(lvl, nil, "the reference's canonical result is unusable: "+e.canonBad)
		}
		e.compareStrict(res, &bad)
	} else {
		e.confOnce.Do(e.prepareConformant)
		e.compareConformant(res, &bad)
	}
	if bad.count == 0 {
		return nil
	}
	m := e.mismatch(lvl, nil, fmt.Sprintf("%d of %d elements do not conform", bad.count, bad.total))
	m.Elements, m.Count = bad.list, bad.count
	return m
}

// checkError judges the outcome of a call that must fail.
func (e *Expectation) checkError(lvl scatter.Level, err error) error {
	want := e.codes
	if lvl == scatter.Strict {
		want = want[:1]
	}
	got := scatter.CodeOf(err)
	var reason string
	switch {
	case err == nil:
		reason = "succeeded, want error " + codeList(want)
	case got == scatter.ErrNotSupported:
		reason = "answered unsupported, want error " + codeList(want)
	case got == 0:
		reason = "returned an error without a code (" + err.Error() + "), want error " + codeList(want)
	case !slices.Contains(want, got):
		reason = "returned error " + got.String() + ", want error " + codeList(want)
	default:
		return nil
	}
	m := e.mismatch(lvl, err, reason)
	m.Want = slices.Clone(want)
	return m
}

// checkLayout checks the result's tensors: Out valid with the plan's dtype
// and shape, Arg present (int64, the same shape) exactly when the plan has
// one. It returns the first problem, or "".
func (e *Expectation) checkLayout(res scatter.Result) string {
	p := e.plan
	if r := checkTensorLayout("out", res.Out, p.dtype, p.shape); r != "" {
		return r
	}
	switch {
	case p.arg != nil && res.Arg.IsZero():
		return "no arg, want int64" + formatShape(p.shape)
	case p.arg != nil:
		return checkTensorLayout("arg", res.Arg, scatter.DTInt64, p.shape)
	case !res.Arg.IsZero():
		return "returned an arg, want none"
	}
	return ""
}

func checkTensorLayout(name string, t scatter.Tensor, dt scatter.DType, shape []int) string {
	if err := t.Validate(); err != nil {
		return name + " is not a valid tensor: " + err.Error()
	}
	if got := t.DType(); got != dt {
		return fmt.Sprintf("%s has dtype %v, want %v", name, got, dt)
	}
	if !slices.Equal(t.Shape, shape) {
		return fmt.Sprintf("%s has shape %s, want %s", name, formatShape(t.Shape), formatShape(shape))
	}
	return ""
}

// prepareStrict reads the canonical result once.
func (e *Expectation) prepareStrict() {
	p := e.plan
	if r := checkTensorLayout("out", e.canon.Out, p.dtype, p.shape); r != "" {
		e.canonBad = r
		return
	}
	e.canonOut = e.canon.Out.Contiguous().Data
	if p.arg != nil {
		if r := checkTensorLayout("arg", e.canon.Arg, scatter.DTInt64, p.shape); r != "" {
			e.canonBad = r
			return
		}
		e.canonArg, _ = scatter.Values[int64](e.canon.Arg)
	}
}

// compareStrict compares every element with the canonical result.
func (e *Expectation) compareStrict(res scatter.Result, bad *badElements) {
	dt := e.plan.dtype
	tieFree := e.tieFree()
	for i, pos := range res.Out.EachPosition() {
		bad.total++
		got, want := elemAt(res.Out.Data, pos), elemAt(e.canonOut, i)
		if tieFree != nil && tieFree[i] && want.f == 0 && got.f == 0 && !got.nan && !want.nan {
			continue
		}
		if !sameOutcome(want, got) {
			bad.add("out", i, func() string { return formatElem(dt, got) },
				func() string { return describeExact(dt, want, false) })
		}
	}
	if e.plan.arg == nil {
		return
	}
	args, _ := scatter.Values[int64](res.Arg)
	for i, got := range args {
		bad.total++
		if want := e.canonArg[i]; got != want {
			bad.add("arg", i, func() string { return fmt.Sprint(got) },
				func() string { return fmt.Sprintf("exactly %d", want) })
		}
	}
}

// tieFree returns, for a float amax/amin plan, which out elements (in
// row-major order) a group reduces; nil for the other plans. PyTorch's own
// amax/amin paths disagree on the sign of a zero from a tie of -0 and +0
// (the scalar functor keeps the accumulator, the vectorised maximum_stub
// of multi-dim index_reduce_ takes the source on wide rows: SEMANTICS.md
// §5.3), so even the strict level leaves that sign free there.
func (e *Expectation) tieFree() []bool {
	k := e.plan.kind
	if !e.plan.dtype.IsFloat() || !(k == kAmax || k == kAmin || k == kTSMax || k == kTSMin) {
		return nil
	}
	free := make([]bool, scatter.DataLen(e.canonOut))
	for _, g := range e.plan.groups.all() {
		if g.out >= 0 && g.out < len(free) {
			free[g.out] = true
		}
	}
	return free
}

// prepareConformant maps, once, every output element to the group that
// reduces into it.
func (e *Expectation) prepareConformant() {
	p := e.plan
	n, _ := scatter.NumElements(p.shape)
	e.groupOf = make([]int32, n)
	for i := range e.groupOf {
		e.groupOf[i] = -1
	}
	for gi, g := range p.groups.all() {
		if g.out >= 0 && g.out < n {
			e.groupOf[g.out] = int32(gi)
		}
	}
}

// compareConformant compares every element with its conformant set. The
// canonical result is in every element's set (TestAllowedAgreesWithJudge),
// so an element equal to it conforms without the set being derived: a
// group's set (an enumeration or an error bound over its contributions) is
// derived only where the answer differs from the canonical one, and not
// kept, so that judging a call costs no memory per group beyond the plan's
// (a judge that kept every group's set held about 1 KB per output element).
func (e *Expectation) compareConformant(res scatter.Result, bad *badElements) {
	p := e.plan
	dt := p.dtype
	e.strictOnce.Do(e.prepareStrict)
	canonOK := e.canonBad == ""
	for i, pos := range res.Out.EachPosition() {
		bad.total++
		got := elemAt(res.Out.Data, pos)
		if canonOK && sameOutcome(elemAt(e.canonOut, i), got) {
			continue
		}
		if gi := e.groupOf[i]; gi >= 0 {
			a, _ := groupAllow(p, p.groups.at(int(gi)))
			if !a.match(got) {
				bad.add("out", i, func() string { return formatElem(dt, got) },
					func() string { return describeAllow(dt, &a) })
			}
			continue
		}
		want := untouched(p, i)
		if !sameOutcome(want, got) {
			bad.add("out", i, func() string { return formatElem(dt, got) },
				func() string { return describeExact(dt, want, false) + " (untouched)" })
		}
	}
	if p.arg == nil {
		return
	}
	args, _ := scatter.Values[int64](res.Arg)
	for i, got := range args {
		bad.total++
		if canonOK && got == e.canonArg[i] {
			continue
		}
		want := []int64{p.arg.sentinel}
		if gi := e.groupOf[i]; gi >= 0 {
			_, want = groupAllow(p, p.groups.at(int(gi)))
		}
		if !slices.Contains(want, got) {
			bad.add("arg", i, func() string { return fmt.Sprint(got) },
				func() string { return describeArgs(want, p.arg.sentinel) })
		}
	}
}

// badElements collects the offending elements: the first maxReported in
// full, and the count of all.
type badElements struct {
	shape []int
	list  []BadElement
	count int
	total int
	from  func(i int) string // what out's element i is reduced from (Expectation.fromOf); nil: not said
}

// maxReported is how many offending elements a Mismatch lists.
const maxReported = 10

// add records an offending element at row-major position i of tensor name;
// got and allowed are formatted only for the reported ones, and so is
// what the element is reduced from (from, when set).
func (b *badElements) add(name string, i int, got, allowed func() string) {
	b.count++
	if len(b.list) < maxReported {
		e := BadElement{Tensor: name, Index: multiIndex(i, b.shape), Got: got(), Allowed: allowed()}
		if b.from != nil {
			e.From = b.from(i)
		}
		b.list = append(b.list, e)
	}
}

// maxFrom is how many of an element's contributions BadElement.From lists.
const maxFrom = 8

// fromOf describes what output element i is reduced from, in canonical
// order: the initial value where the reduction starts from it (self,
// torch_scatter's out, or the fill or zeros a call starts from without
// one), then each contribution as its tensor's name, its multi-index in
// the tensor the call was given, and its value (scatter's scalar value as
// value=v); "" for an element outside every group (untouched).
func (e *Expectation) fromOf(i int) string {
	e.confOnce.Do(e.prepareConformant)
	p := e.plan
	if i < 0 || i >= len(e.groupOf) || e.groupOf[i] < 0 {
		return ""
	}
	g := p.groups.at(int(e.groupOf[i]))
	var parts []string
	if name := initName(e.call); p.self && p.kind != kAssign {
		parts = append(parts, name+" "+formatElem(p.dtype, elemAt(p.init.Data, g.out)))
	}
	name, given := srcOf(e.call)
	for k, s := range g.srcs {
		if k == maxFrom {
			parts = append(parts, fmt.Sprintf("... %d more (%d contributions)", len(g.srcs)-maxFrom, len(g.srcs)))
			break
		}
		v := formatElem(p.dtype, elemAt(p.src.Data, int(s)))
		if name == "value" {
			parts = append(parts, "value="+v)
			continue
		}
		parts = append(parts, name+formatShape(givenIndex(multiIndex(int(s), p.src.Shape), given))+"="+v)
	}
	return strings.Join(parts, ", ")
}

// givenIndex maps a multi-index of the plan's src, which may be the given
// tensor broadcast (torch_scatter 1.x's src to the index's shape), to the
// given tensor's own: the leading dimensions broadcasting added are
// dropped, and a dimension of size 1 that was stretched is read at 0.
func givenIndex(idx, given []int) []int {
	if given == nil || len(given) > len(idx) {
		return idx
	}
	idx = append([]int{}, idx[len(idx)-len(given):]...)
	for d, n := range given {
		if n == 1 {
			idx[d] = 0
		}
	}
	return idx
}

// initName names what a call's reduction starts from, as BadElement.From
// does: self, torch_scatter's out, or "initial" for the fill value or
// zeros torch_scatter (without out) and the F# scatter start from.
func initName(c scatter.Call) string {
	switch c.Op() {
	case scatter.OpTorchScatter, scatter.OpTorchScatterAdd:
		if out := c.Tensors()["out"]; !out.IsZero() {
			return "out"
		}
		return "initial"
	case scatter.OpTensorScatter:
		return "initial"
	}
	return "self"
}

// srcOf names the tensor a call's contributions come from, as
// BadElement.From does, with its shape as the call was given it (nil
// where the plan holds it as given); "value" for scatter's scalar.
func srcOf(c scatter.Call) (string, []int) {
	switch c := c.(type) {
	case scatter.Scatter:
		if c.Value != nil {
			return "value", nil
		}
	case scatter.IndexReduce:
		return "source", nil
	case scatter.Gather:
		return "input", nil
	case scatter.TorchScatterAdd:
		return "src", c.Src.Shape
	}
	return "src", nil
}

// multiIndex returns the multi-index of row-major position i in shape.
func multiIndex(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = i % shape[d]
			i /= shape[d]
		}
	}
	return idx
}

// mismatch returns a Mismatch of this expectation's call at level lvl.
func (e *Expectation) mismatch(lvl scatter.Level, err error, reason string) *Mismatch {
	m := &Mismatch{Profile: e.prof, Level: lvl, Reason: reason, Err: err, Call: DescribeCall(e.call)}
	if e.call != nil {
		m.Op = e.call.Op()
	}
	return m
}
