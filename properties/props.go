package properties

import (
	"fmt"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/repro"
)

// Family groups the properties by the operations they exercise; each fuzz
// target (FuzzTarget) drives one family.
type Family uint8

const (
	// FamilyScatter is PyTorch's scatter, scatter_add and scatter_reduce.
	FamilyScatter Family = iota
	// FamilyIndexGather is index_reduce and gather.
	FamilyIndexGather
	// FamilyNeighbours is torch_scatter (1.x scatter_add, 2.x scatter)
	// and the F# Tensor library's scatter and gather.
	FamilyNeighbours
)

func (f Family) String() string {
	return [...]string{"scatter", "index-gather", "neighbours"}[f]
}

// ops returns the operations of the family.
func (f Family) ops() []scatter.Op {
	switch f {
	case FamilyIndexGather:
		return []scatter.Op{scatter.OpIndexReduce, scatter.OpGather}
	case FamilyNeighbours:
		return []scatter.Op{scatter.OpTorchScatterAdd, scatter.OpTorchScatter, scatter.OpTensorScatter, scatter.OpTensorGather}
	}
	return []scatter.Op{scatter.OpScatter, scatter.OpScatterAdd, scatter.OpScatterReduce}
}

// property is one named property.
type property struct {
	name   string
	family Family
	weight int // multiplies the case count
	// ops are the operations the property calls, all of which the backend
	// must claim on a common dtype (any one of them with anyOp).
	ops   []scatter.Op
	anyOp bool
	// keep restricts the dtypes the property draws (nil: all).
	keep func(scatter.DType) bool
	// strict: only for targets judged at the strict level.
	strict bool
	// storage: checks what the backend does to the storage it is given
	// (not for a Target.Copies one); views: compares strided views with
	// their contiguous copies (not for a Target.Materialises one).
	storage, views bool
	// broken: every call it draws is broken toward one error path or,
	// a quarter of them, two (callgen's FaultPercent 100).
	broken bool
	run    func(c *caseCtx)
}

// skipReason says why p cannot run on target's backend, described by info
// and judged at level lvl, or "".
func (p *property) skipReason(target Target, info scatter.Info, lvl scatter.Level) string {
	if p.strict && lvl != scatter.Strict {
		return "only for targets judged at the strict level (-level strict; in Go, a backend that claims Deterministic)"
	}
	if p.storage && target.Copies {
		return "the target receives copies of the tensors (through the line protocol): what it does to the storage it is given cannot be seen"
	}
	if p.views && target.Materialises {
		return "strided views reach the target as contiguous copies (an implementation behind the protocol is sent operation requests contiguous, unless it claims the strides extension and the gate runs with -strided-calls): a view and its copy are the same call to it"
	}
	if p.anyOp {
		for _, op := range p.ops {
			if len(dtypesFor(info, []scatter.Op{op}, p.keep)) > 0 {
				return ""
			}
		}
		return fmt.Sprintf("backend %s claims none of %v", info.Name, p.ops)
	}
	if len(dtypesFor(info, p.ops, p.keep)) == 0 {
		return fmt.Sprintf("backend %s does not claim %v on a common dtype", info.Name, p.ops)
	}
	return ""
}

// dtypesFor returns the dtypes the backend claims for every op of ops
// (and keep allows), simplest first.
func dtypesFor(info scatter.Info, ops []scatter.Op, keep func(scatter.DType) bool) []scatter.DType {
	var dts []scatter.DType
	for _, dt := range callgen.DTypeOrder {
		ok := keep == nil || keep(dt)
		for _, op := range ops {
			ok = ok && info.Claims(op, dt)
		}
		if ok {
			dts = append(dts, dt)
		}
	}
	return dts
}

// allProperties lists the properties in the order Check runs them:
// differential first (the cheapest way to kill), then the invariants, then
// the metamorphic relations.
func allProperties() []*property {
	var ps []*property
	for _, op := range scatter.Ops {
		ps = append(ps, differential(op))
	}
	ps = append(ps, crowded(), brokenCalls(scatter.Ops, FamilyScatter))
	all := scatter.Ops
	ps = append(ps,
		inputsUnchanged(all, FamilyScatter),
		stridedAgrees(all, FamilyScatter),
		repeatable(all, FamilyScatter),
		permuteDuplicates(FamilyScatter),
		permuteDuplicates(FamilyIndexGather),
		split(),
		linear(),
		includeSelf(scatter.OpScatterReduce),
		includeSelf(scatter.OpIndexReduce),
		meanIsSumOverCount(),
		indexReduceIsScatterReduce(),
		gatherInvertsScatter(),
		broadcastIsExpand(scatter.OpTorchScatter),
		broadcastIsExpand(scatter.OpTorchScatterAdd),
		fsharpScatterIsScatterAdd(),
	)
	return ps
}

// Properties returns the names of the properties Check runs, in the order
// it runs them (Budget.Match selects among them).
func Properties() []string {
	var names []string
	for _, p := range allProperties() {
		names = append(names, p.name)
	}
	return names
}

// familyProperties lists the properties a fuzz target of family f runs:
// the family's own, and differential/broken and the invariants restricted
// to its operations.
func familyProperties(f Family) []*property {
	var ps []*property
	for _, p := range allProperties() {
		if strings.HasPrefix(p.name, "invariants/") || p.broken {
			continue
		}
		if p.family == f {
			ps = append(ps, p)
		}
	}
	return append(ps, brokenCalls(f.ops(), f), inputsUnchanged(f.ops(), f), stridedAgrees(f.ops(), f), repeatable(f.ops(), f))
}

// ---- running ----

// propState counts one property's cases.
type propState struct {
	cases                                int
	firstFail                            int
	expectedErrors, unsupported, vacuous int
}

func (s *propState) casesUntilFailure() int {
	if s.firstFail > 0 {
		return s.firstFail
	}
	return s.cases
}

// report is the property's counts as its PropertyReport gives them.
func (s *propState) report(failed bool) PropertyReport {
	return PropertyReport{Cases: s.casesUntilFailure(), Failed: failed,
		ExpectedErrors: s.expectedErrors, Unsupported: s.unsupported, Vacuous: s.vacuous}
}

func (s *propState) summary() string {
	n := s.casesUntilFailure()
	str := fmt.Sprintf("%d cases (%d expected errors, %d vacuous, %d declined as unsupported)", n, s.expectedErrors, s.vacuous, s.unsupported)
	if s.firstFail > 0 {
		str += fmt.Sprintf("; failed at case %d", s.firstFail)
	}
	return str
}

// runCtx is one property's run on one target.
type runCtx struct {
	target Target
	info   scatter.Info
	level  scatter.Level
	cfg    callgen.Options // the tier's sizes and faults
	prop   *property
	st     *propState
}

// property is the rapid property function.
func (r *runCtx) property(rt *rapid.T) {
	r.st.cases++
	r.prop.run(&caseCtx{runCtx: r, rt: rt})
}

// caseCtx is one case of a property.
type caseCtx struct {
	*runCtx
	rt *rapid.T
}

// counting reports whether the case still counts toward the statistics
// (not a replay while rapid shrinks a failure).
func (c *caseCtx) counting() bool { return c.st.firstFail == 0 }

func (c *caseCtx) expectedError() {
	if c.counting() {
		c.st.expectedErrors++
	}
}

func (c *caseCtx) declined() {
	if c.counting() {
		c.st.unsupported++
	}
}

func (c *caseCtx) vacuous() {
	if c.counting() {
		c.st.vacuous++
	}
}

// drawn wraps a drawn call so that rapid's log shows it readably.
type drawn struct{ c scatter.Call }

func (d drawn) GoString() string { return reference.DescribeCall(d.c) }

// draw draws a call with f on a generator restricted to the property's
// dtypes; valid asks for no corruption.
func (c *caseCtx) draw(label string, valid bool, f func(g *callgen.Drawer) scatter.Call) scatter.Call {
	return c.drawWant(label, valid, callgen.Want{}, f)
}

// drawWant is draw with the generators narrowed to w.
func (c *caseCtx) drawWant(label string, valid bool, w callgen.Want, f func(g *callgen.Drawer) scatter.Call) scatter.Call {
	keep := c.prop.keep
	info := c.info
	if keep != nil {
		inner := info
		info.DTypes = nil
		for _, dt := range scatter.DTypes {
			if keep(dt) && (inner.DTypes == nil || slices.Contains(inner.DTypes, dt)) {
				info.DTypes = append(info.DTypes, dt)
			}
		}
	}
	if !c.prop.anyOp && len(c.prop.ops) > 1 {
		// relations between operations need a dtype all of them take
		info.DTypes = dtypesFor(c.info, c.prop.ops, keep)
	}
	return rapid.Custom(func(t *rapid.T) drawn {
		g := c.drawer(t, info, valid, w)
		return drawn{f(g)}
	}).Draw(c.rt, label).c
}

// drawer returns a Drawer of the property's tier for this case's stream.
func (c *caseCtx) drawer(t *rapid.T, info scatter.Info, valid bool, w callgen.Want) *callgen.Drawer {
	o := c.cfg
	o.Profile, o.Claims, o.Valid, o.Want = c.target.Profile, info, valid, w
	if c.prop.broken {
		o.FaultPercent = 100
	}
	return callgen.New(callgen.Rapid(t), o)
}

// drawOp draws one of ops that the backend claims (for the property's
// dtypes).
func (c *caseCtx) drawOp(ops []scatter.Op) scatter.Op {
	var claimed []scatter.Op
	for _, op := range ops {
		if len(dtypesFor(c.info, []scatter.Op{op}, c.prop.keep)) > 0 {
			claimed = append(claimed, op)
		}
	}
	if len(claimed) == 0 {
		c.rt.Skipf("no claimed operation among %v", ops)
	}
	return rapid.SampledFrom(claimed).Draw(c.rt, "op")
}

// expect returns the judge's expectation of call under the target's
// profile, computed on a copy that no backend sees.
func (c *caseCtx) expect(call scatter.Call) *reference.Expectation {
	return reference.Expect(scatter.CloneCall(call), c.target.Profile)
}

// exec runs call on the backend: a panic or a change to the inputs fails
// the case at once, with the call printed.
func (c *caseCtx) exec(call scatter.Call) outcome {
	before := scatter.CloneCall(call)
	o := run(c.target.Backend, call)
	if o.panicked != "" {
		c.fail("the backend panicked:\n"+o.panicked, before)
	}
	if o.modified != nil {
		c.fail("the backend modified its input tensors (bit for bit, guard elements included):\n  "+strings.ReplaceAll(o.modified.Error(), "\n", "\n  "), before)
	}
	return o
}

// fail ends the case as a failure of the property, reporting msg and every
// call involved with its reproductions.
func (c *caseCtx) fail(msg string, calls ...scatter.Call) {
	if c.st.firstFail == 0 {
		c.st.firstFail = c.st.cases
	}
	var b strings.Builder
	fmt.Fprintf(&b, "property %s: backend %s %s (%v, %v level): %s", c.prop.name, c.info.Name, c.info.Version,
		c.target.Profile, c.level, msg)
	for i, call := range calls {
		b.WriteString(repro.Block(fmt.Sprintf("call %d", i+1), call, c.target.SendsViews(call)))
	}
	c.rt.Fatalf("%s", b.String())
}

// ---- differential ----

// differential checks the backend's outcome of a drawn call against the
// judge at the target's level: a result that conforms, or an error with a
// code the broken rules allow. An ErrNotSupported answer is skipped.
func differential(op scatter.Op) *property {
	fam := FamilyScatter
	switch op {
	case scatter.OpIndexReduce, scatter.OpGather:
		fam = FamilyIndexGather
	case scatter.OpTorchScatter, scatter.OpTorchScatterAdd, scatter.OpTensorScatter, scatter.OpTensorGather:
		fam = FamilyNeighbours
	}
	return &property{name: "differential/" + string(op), family: fam, weight: 2, ops: []scatter.Op{op}, run: func(c *caseCtx) {
		c.judge(c.draw("call", false, func(g *callgen.Drawer) scatter.Call { return g.Call(op) }), "")
	}}
}

// crowded is the differential check on calls that fold long groups
// (callgen.Want.Crowded): float sums, products and means of scatter,
// scatter_add, scatter_reduce, index_reduce and torch_scatter 2.x scatter
// with three or more contributions to a target and values whose sums
// round, where the order and the width of an accumulation show. The
// differential properties draw such groups rarely: a backend that
// accumulates float16 and bfloat16 in float32 where torch 1.13 rounds
// every step, or float32 in float64, or divides a 16-bit mean's float32
// accumulator, passed 1 default run in 15 to 30.
func crowded() *property {
	ops := []scatter.Op{scatter.OpScatter, scatter.OpScatterAdd, scatter.OpScatterReduce, scatter.OpIndexReduce, scatter.OpTorchScatter}
	// scatter_reduce, with three reductions and include_self, drawn twice
	// as often as each of the others
	weighted := append(slices.Clone(ops), scatter.OpScatterReduce)
	return &property{name: "differential/crowded", family: FamilyScatter, weight: 2, ops: ops, anyOp: true, keep: scatter.DType.IsFloat, run: func(c *caseCtx) {
		op := c.drawOp(weighted)
		c.judge(c.drawWant("call", true, callgen.Want{Crowded: true}, func(g *callgen.Drawer) scatter.Call { return g.Call(op) }), "")
	}}
}

// brokenCalls is the differential check on calls of ops all drawn toward
// an error path, a quarter of them toward two (callgen's FaultPercent
// 100: 76% to 98% of them break a rule, 2% to 16% rules of two kinds, by
// operation): an error must be one the judge allows at the target's
// level, at the strict level the kind of the first rule PyTorch (or the F#
// library) checks, at the conformant level the kind of any rule the call
// breaks. differential/<op> breaks about 15% of its calls and few of
// those twice, so the order in which an implementation checks its rules
// showed there about once in 300 cases.
func brokenCalls(ops []scatter.Op, f Family) *property {
	return &property{name: "differential/broken", family: f, weight: 2, ops: ops, anyOp: true, broken: true, run: func(c *caseCtx) {
		op := c.drawOp(ops)
		c.judge(c.draw("call", false, func(g *callgen.Drawer) scatter.Call { return g.Call(op) }), "")
	}}
}

// judge runs call on the backend and fails the case when the judge
// rejects the outcome at the target's level, saying how the call was
// made (how: "" or a clause ending in ", "); an ErrNotSupported answer is
// declined.
func (c *caseCtx) judge(call scatter.Call, how string) {
	exp := c.expect(call)
	o := c.exec(call)
	if o.unsupported() {
		c.declined()
		return
	}
	if exp.Codes() != nil {
		c.expectedError()
	}
	if err := exp.Check(c.level, o.res, o.err); err != nil {
		c.fail(fmt.Sprintf("%sthe judge rejects the outcome at the %v level:\n%v", how, c.level, err), call)
	}
}

// ---- invariants ----

// inputsUnchanged runs calls whose tensors of one dtype share a single
// backing slice (self and src side by side, guards between) and checks
// that no bit of it changes, and that the outcome still conforms.
func inputsUnchanged(ops []scatter.Op, f Family) *property {
	return &property{name: "invariants/inputs-unchanged", family: f, ops: ops, anyOp: true, storage: true, run: func(c *caseCtx) {
		op := c.drawOp(ops)
		call := c.draw("call", false, func(g *callgen.Drawer) scatter.Call { return g.Call(op) })
		c.judge(aliasCall(call), "with its tensors sharing backing slices, ")
	}}
}

// aliasCall puts the tensors of each dtype into one shared backing slice.
func aliasCall(call scatter.Call) scatter.Call {
	groups := map[scatter.DType][]scatter.Tensor{}
	names := map[scatter.DType][]string{}
	mapCall(call, func(name string, t scatter.Tensor) scatter.Tensor {
		groups[t.DType()] = append(groups[t.DType()], t)
		names[t.DType()] = append(names[t.DType()], name)
		return t
	})
	starts := map[string]int{}
	shared := map[scatter.DType]any{}
	for dt, ts := range groups {
		if len(ts) < 2 {
			continue
		}
		var parts []any
		pos := 0
		for i, t := range ts {
			parts = append(parts, t.Data)
			starts[names[dt][i]] = pos
			pos += scatter.DataLen(t.Data) + 1 // one guard between
		}
		shared[dt] = concatData(dt, parts)
	}
	return mapCall(call, func(name string, t scatter.Tensor) scatter.Tensor {
		data, ok := shared[t.DType()]
		if !ok {
			return t
		}
		u := t
		u.Shape = slices.Clone(t.Shape)
		u.Strides = slices.Clone(t.Strides)
		u.Offset = t.Offset + starts[name]
		u.Data = data
		return u
	})
}

// concatData concatenates element slices of dtype dt, a guard element
// after each.
func concatData(dt scatter.DType, parts []any) any {
	n := 0
	for _, p := range parts {
		n += scatter.DataLen(p) + 1
	}
	out := scatter.MakeData(dt, n)
	pos := 0
	for _, p := range parts {
		k := scatter.DataLen(p)
		for i := 0; i < k; i++ {
			scatter.CopyElem(out, pos+i, p, i)
		}
		setGuard(out, pos+k)
		pos += k + 1
	}
	return out
}

// setGuard stores the dtype's guard element at position i.
func setGuard(data any, i int) {
	g := callgen.Guard(scatter.DTypeOf(data))
	switch d := data.(type) {
	case []bool:
		d[i] = g.(bool)
	case []uint8:
		d[i] = g.(uint8)
	case []int8:
		d[i] = g.(int8)
	case []int16:
		d[i] = g.(int16)
	case []int32:
		d[i] = g.(int32)
	case []int64:
		d[i] = g.(int64)
	case []scatter.Float16:
		d[i] = g.(scatter.Float16)
	case []scatter.BFloat16:
		d[i] = g.(scatter.BFloat16)
	case []float32:
		d[i] = g.(float32)
	case []float64:
		d[i] = g.(float64)
	}
}

// stridedAgrees runs a call whose every tensor is a strided view (offset,
// transposed, gapped or expanded, over guarded backing slices) and the
// same call on contiguous copies: the outcomes agree bit for bit (NaN
// payloads aside) for a target judged strict, and the strided outcome
// conforms to the contiguous call otherwise.
func stridedAgrees(ops []scatter.Op, f Family) *property {
	return &property{name: "invariants/strided-vs-contiguous", family: f, ops: ops, anyOp: true, views: true, run: func(c *caseCtx) {
		op := c.drawOp(ops)
		call := c.draw("call", false, func(g *callgen.Drawer) scatter.Call { return g.Call(op) })
		call = rapid.Custom(func(t *rapid.T) drawn {
			g := c.drawer(t, c.info, false, callgen.Want{})
			return drawn{mapCall(call, func(_ string, x scatter.Tensor) scatter.Tensor { return g.Restride(x) })}
		}).Draw(c.rt, "strided").c
		flat := contiguousCall(call)
		a := c.exec(call)
		b := c.exec(flat)
		if a.unsupported() || b.unsupported() {
			c.declined()
			return
		}
		if c.level == scatter.Strict {
			if d := diffOutcomes(a, b, sameSigns); d != "" {
				c.fail("the strided call (1) and its contiguous copy (2) disagree: "+d, call, flat)
			}
			return
		}
		if err := c.expect(flat).Check(scatter.Conformant, a.res, a.err); err != nil {
			c.fail(fmt.Sprintf("the strided call (1) does not conform to its contiguous copy (2):\n%v", err), call, flat)
		}
	}}
}

// diffOutcomes compares two outcomes: the same error code, or results
// equal in mode.
func diffOutcomes(a, b outcome, mode compareMode) string {
	switch {
	case a.err != nil && b.err != nil:
		if ca, cb := scatter.CodeOf(a.err), scatter.CodeOf(b.err); ca != cb {
			return fmt.Sprintf("errors %v and %v", errName(a.err), errName(b.err))
		}
		return ""
	case a.err != nil || b.err != nil:
		return fmt.Sprintf("one failed and one did not: %v / %v", errName(a.err), errName(b.err))
	}
	if d := diffResults(a.res, b.res, mode); d != "" {
		return "\n  " + d
	}
	return ""
}

// repeatable runs one call three times, on fresh copies: a target that
// claims determinism must give the same bits (NaN payloads included) or
// the same error code each time.
func repeatable(ops []scatter.Op, f Family) *property {
	return &property{name: "invariants/repeatable", family: f, ops: ops, anyOp: true, strict: true, run: func(c *caseCtx) {
		op := c.drawOp(ops)
		call := c.draw("call", false, func(g *callgen.Drawer) scatter.Call { return g.Call(op) })
		first := c.exec(scatter.CloneCall(call))
		if first.unsupported() {
			c.declined()
			return
		}
		for i := 2; i <= 3; i++ {
			again := c.exec(scatter.CloneCall(call))
			if d := diffOutcomes(again, first, sameBits); d != "" {
				c.fail(fmt.Sprintf("run %d differs from run 1: %s", i, d), call)
			}
		}
	}}
}
