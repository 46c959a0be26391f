package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// What the judge allows at each output element, as data.
//
// The judge (reference.Expectation) answers one question: does this
// outcome conform? Its report names, for up to ten offending elements,
// what was allowed there, in words ("exactly 3.5", "one of {1.0, 4.0}",
// "[2.9999998, 3.0000002] or inf (exact sum ...)"). The oracle service and
// the fixture export need that for every element, as data. allowedSets
// gets it from the judge itself, never from a second copy of its rules:
//
//  1. start from the canonical result (which conforms);
//  2. put a value that cannot conform (NaN, then the largest finite
//     values, the infinities, ...) into up to ten elements at a time and
//     read what the judge says was allowed there;
//  3. parse those words into values and an interval;
//  4. verify the parse against the judge: every value and both ends of the
//     interval conform, the neighbours just outside do not; the other
//     zero is tried where a zero is allowed (the sign of a zero is free in
//     some places). An element whose words do not survive this keeps the
//     judge's words only ("text", "unverified").
//
// Each probe runs the judge over the whole result, so the cost grows with
// the square of the number of elements; allowedSets refuses results with
// more than maxElems elements.

// aval is one element value: f for the float dtypes, i for the integer
// ones, bool (0 or 1) and arg.
type aval struct {
	f float64
	i int64
}

// elemAllowed is what conforms at one element: any of vals (a NaN matches
// any NaN), or a value in [lo, hi] when hasRange, ordered with -0 < +0;
// anything when any; or, when unverified, only the judge's words in text.
type elemAllowed struct {
	any        bool
	vals       []aval
	hasRange   bool
	lo, hi     float64
	note       string
	text       string
	unverified bool
}

// allowedTensor is the allowed sets of one result tensor ("out" or "arg").
type allowedTensor struct {
	name  string
	dtype scatter.DType
	shape []int
	elems []elemAllowed
}

// errTooLarge says the result has too many elements to probe.
type errTooLarge struct{ n, max int }

func (e errTooLarge) Error() string {
	return fmt.Sprintf("the result has %d elements; per-element allowed sets are given up to %d", e.n, e.max)
}

// anyOutcome reports whether every outcome conforms (an undefined call).
func anyOutcome(exp *reference.Expectation, lvl scatter.Level) bool {
	return exp.Check(lvl, scatter.Result{}, errors.New("probe")) == nil
}

// allowedSets returns, for a call that succeeds, what conforms at each
// element of its out (and arg) at level lvl.
func allowedSets(exp *reference.Expectation, lvl scatter.Level, maxElems int) ([]allowedTensor, error) {
	canon := exp.Result()
	if canon.Out.IsZero() {
		return nil, errors.New("the call does not succeed")
	}
	base := scatter.Result{Out: canon.Out.Contiguous()}
	if !canon.Arg.IsZero() {
		base.Arg = canon.Arg.Contiguous()
	}
	if n := base.Out.NumEl() + max(0, base.Arg.NumEl()); n > maxElems {
		return nil, errTooLarge{n, maxElems}
	}
	if err := exp.Check(lvl, base, nil); err != nil {
		return nil, fmt.Errorf("the judge rejects the reference's own result: %v", err)
	}
	var out []allowedTensor
	for _, name := range []string{"out", "arg"} {
		t := base.Out
		if name == "arg" {
			if base.Arg.IsZero() {
				continue
			}
			t = base.Arg
		}
		p := &prober{exp: exp, lvl: lvl, base: base, name: name, t: t, dt: t.DType()}
		out = append(out, allowedTensor{name: name, dtype: p.dt, shape: t.Shape, elems: p.run()})
	}
	return out, nil
}

// prober finds the allowed sets of one tensor of a conforming result.
type prober struct {
	exp  *reference.Expectation
	lvl  scatter.Level
	base scatter.Result
	name string
	t    scatter.Tensor // contiguous, inside base
	dt   scatter.DType
}

type probeItem struct {
	i int
	v aval
}

// probe puts each item's value into its element (distinct elements, at
// most ten), runs the judge and restores the elements. It returns, per
// item, the judge's words when the value does not conform, "" when it
// does.
func (p *prober) probe(items []probeItem) []string {
	old := make([]aval, len(items))
	for k, it := range items {
		old[k] = p.get(it.i)
		p.set(it.i, it.v)
	}
	err := p.exp.Check(p.lvl, p.base, nil)
	for k, it := range items {
		p.set(it.i, old[k])
	}
	words := make([]string, len(items))
	var m *reference.Mismatch
	if !errors.As(err, &m) {
		return words
	}
	for _, e := range m.Elements {
		if e.Tensor != p.name {
			continue
		}
		pos := rowMajor(e.Index, p.t.Shape)
		for k, it := range items {
			if it.i == pos {
				words[k] = e.Allowed
			}
		}
	}
	return words
}

func rowMajor(idx, shape []int) int {
	pos := 0
	for d := range shape {
		pos = pos*shape[d] + idx[d]
	}
	return pos
}

// probeAll runs probes of any number of items, ten distinct elements at a
// time.
func (p *prober) probeAll(items []probeItem) []string {
	words := make([]string, len(items))
	pending := make([]int, len(items))
	for k := range pending {
		pending[k] = k
	}
	for len(pending) > 0 {
		var batch []probeItem
		var ks, rest []int
		seen := map[int]bool{}
		for _, k := range pending {
			if len(batch) < 10 && !seen[items[k].i] {
				seen[items[k].i] = true
				batch = append(batch, items[k])
				ks = append(ks, k)
			} else {
				rest = append(rest, k)
			}
		}
		for j, w := range p.probe(batch) {
			words[ks[j]] = w
		}
		pending = rest
	}
	return words
}

// candidates are the values tried, in order, to make an element not
// conform.
func (p *prober) candidates(cur aval) []aval {
	if p.name == "arg" {
		return []aval{{i: -987654321}, {i: math.MaxInt64}, {i: cur.i + 1}, {i: cur.i - 1}}
	}
	switch {
	case p.dt == scatter.DTBool:
		return []aval{{i: 1 - cur.i}, {i: cur.i}}
	case p.dt.IsFloat():
		m := maxFinite(p.dt)
		return []aval{{f: math.NaN()}, {f: m}, {f: -m}, {f: math.Inf(1)}, {f: math.Inf(-1)},
			{f: 0}, {f: math.Copysign(0, -1)}, {f: 1}, {f: -1}}
	}
	lo, hi := intRange(p.dt)
	return []aval{{i: wrapTo(cur.i+1, lo, hi)}, {i: wrapTo(cur.i-1, lo, hi)}, {i: lo}, {i: hi}, {i: 0}, {i: 1}}
}

// run finds the allowed set of every element.
func (p *prober) run() []elemAllowed {
	n := p.t.NumEl()
	res := make([]elemAllowed, n)
	words := make([]string, n)
	next := make([]int, n)
	cands := make([][]aval, n)
	var pending []int
	for i := 0; i < n; i++ {
		cands[i] = p.candidates(p.get(i))
		pending = append(pending, i)
	}
	// 1. the judge's words for every element.
	for len(pending) > 0 {
		var items []probeItem
		for _, i := range pending {
			items = append(items, probeItem{i, cands[i][next[i]]})
		}
		ws := p.probeAll(items)
		var again []int
		for k, i := range pending {
			if ws[k] != "" {
				words[i] = ws[k]
				continue
			}
			next[i]++
			if next[i] < len(cands[i]) {
				again = append(again, i)
			} else {
				res[i].any = true
			}
		}
		pending = again
	}
	// 2. parse, and 3. verify against the judge.
	type check struct {
		elem int
		v    aval
		zero bool // the other zero: extends the set when it conforms
	}
	var checks []check
	for i := range res {
		if res[i].any {
			continue
		}
		a, ok := parseAllowed(p.dt, p.name == "arg", words[i])
		if !ok {
			res[i] = elemAllowed{text: words[i], unverified: true}
			continue
		}
		res[i] = a
		for _, v := range a.vals {
			checks = append(checks, check{i, v, false})
			if p.dt.IsFloat() && v.f == 0 {
				checks = append(checks, check{i, aval{f: -v.f}, true})
			}
		}
		if a.hasRange {
			checks = append(checks, check{i, aval{f: a.lo}, false}, check{i, aval{f: a.hi}, false})
			if below, ok := stepFloat(p.dt, a.lo, -1); ok {
				checks = append(checks, check{i, aval{f: below}, below == 0})
			}
			if above, ok := stepFloat(p.dt, a.hi, +1); ok {
				checks = append(checks, check{i, aval{f: above}, above == 0})
			}
		}
	}
	items := make([]probeItem, len(checks))
	for k, c := range checks {
		items[k] = probeItem{c.elem, c.v}
	}
	ws := p.probeAll(items)
	// The judge's words may give a zero without its sign where only one
	// sign conforms (a product with a zero factor has the sign of the
	// product): a rejected zero whose other zero conforms is replaced.
	wrongZero := make([]bool, len(res))
	for k, c := range checks {
		a := &res[c.elem]
		if a.unverified {
			continue
		}
		judged := ws[k] == ""
		if judged == a.contains(p.dt, c.v) {
			continue
		}
		switch {
		case c.zero && judged:
			a.vals = append(a.vals, c.v) // the other zero conforms too
		case !judged && p.dt.IsFloat() && c.v.f == 0 && !c.zero && !wrongZero[c.elem]:
			wrongZero[c.elem] = true
			a.vals = slices.DeleteFunc(a.vals, func(w aval) bool { return sameAval(p.dt, w, c.v) })
			if len(a.vals) == 0 && !a.hasRange {
				a.vals = nil
			}
		default:
			res[c.elem] = elemAllowed{text: words[c.elem], unverified: true}
		}
	}
	for i, bad := range wrongZero {
		// the replacement must have come from the other zero's check
		if bad && !res[i].unverified && len(res[i].vals) == 0 && !res[i].hasRange {
			res[i] = elemAllowed{text: words[i], unverified: true}
		}
	}
	return res
}

// contains reports whether v is in the set (not for unverified or any).
func (a *elemAllowed) contains(dt scatter.DType, v aval) bool {
	if a.any {
		return true
	}
	for _, w := range a.vals {
		if sameAval(dt, w, v) {
			return true
		}
	}
	if a.hasRange && !math.IsNaN(v.f) {
		return totalLE(a.lo, v.f) && totalLE(v.f, a.hi)
	}
	return false
}

func sameAval(dt scatter.DType, a, b aval) bool {
	if dt.IsFloat() {
		if math.IsNaN(a.f) || math.IsNaN(b.f) {
			return math.IsNaN(a.f) && math.IsNaN(b.f)
		}
		return a.f == b.f && math.Signbit(a.f) == math.Signbit(b.f)
	}
	return a.i == b.i
}

// totalLE is a <= b with -0 < +0.
func totalLE(a, b float64) bool {
	if a == 0 && b == 0 {
		return math.Signbit(a) || !math.Signbit(b)
	}
	return a <= b
}

// parseAllowed reads the judge's words for one element (reference's
// report: describeAllow, describeExact, describeArgs).
func parseAllowed(dt scatter.DType, isArg bool, s string) (elemAllowed, bool) {
	var a elemAllowed
	s = strings.TrimSpace(s)
	// Trailing notes in parentheses: "(exact sum 3 of 2 terms)", "(untouched)".
	for strings.HasSuffix(s, ")") {
		open := matchingOpen(s)
		if open < 0 {
			return a, false
		}
		inner := s[open+1 : len(s)-1]
		if isValueSuffix(inner) {
			break
		}
		if a.note == "" {
			a.note = inner
		} else {
			a.note = inner + "; " + a.note
		}
		s = strings.TrimSpace(s[:open])
	}
	if s == "nothing" {
		return a, true
	}
	if strings.HasPrefix(s, "one of {") && strings.HasSuffix(s, "}") {
		for _, tok := range strings.Split(s[len("one of {"):len(s)-1], ", ") {
			v, ok := parseVal(dt, isArg, tok)
			if !ok {
				return a, false
			}
			a.vals = append(a.vals, v)
		}
		return a, true
	}
	for _, part := range strings.Split(s, " or ") {
		part = strings.TrimSpace(part)
		switch {
		case strings.HasPrefix(part, "exactly "):
			v, ok := parseVal(dt, isArg, strings.TrimPrefix(part, "exactly "))
			if !ok {
				return a, false
			}
			a.vals = append(a.vals, v)
		case strings.HasPrefix(part, "[") && strings.HasSuffix(part, "]"):
			lo, hi, found := strings.Cut(part[1:len(part)-1], ", ")
			l, ok1 := parseVal(dt, false, lo)
			h, ok2 := parseVal(dt, false, hi)
			if !found || !ok1 || !ok2 || a.hasRange || !dt.IsFloat() {
				return a, false
			}
			a.hasRange, a.lo, a.hi = true, l.f, h.f
		default:
			v, ok := parseVal(dt, isArg, part)
			if !ok {
				return a, false
			}
			a.vals = append(a.vals, v)
		}
	}
	return a, true
}

func matchingOpen(s string) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// isValueSuffix reports whether a parenthesised group belongs to a value:
// a 16-bit pattern, "any payload" of a NaN, "the sentinel" of an arg.
func isValueSuffix(inner string) bool {
	if inner == "any payload" || inner == "the sentinel" {
		return true
	}
	if !strings.HasPrefix(inner, "0x") || len(inner) < 3 {
		return false
	}
	_, err := strconv.ParseUint(inner[2:], 16, 64)
	return err == nil
}

// parseVal reads one value as the judge writes it.
func parseVal(dt scatter.DType, isArg bool, tok string) (aval, bool) {
	tok = strings.TrimSpace(tok)
	var bits string
	if open := strings.LastIndexByte(tok, '('); open > 0 && strings.HasSuffix(tok, ")") {
		inner := tok[open+1 : len(tok)-1]
		if !isValueSuffix(inner) {
			return aval{}, false
		}
		if strings.HasPrefix(inner, "0x") {
			bits = inner[2:]
		}
		tok = strings.TrimSpace(tok[:open])
	}
	if isArg || (!dt.IsFloat() && dt != scatter.DTBool) {
		i, err := strconv.ParseInt(tok, 10, 64)
		return aval{i: i}, err == nil
	}
	if dt == scatter.DTBool {
		switch tok {
		case "True":
			return aval{i: 1}, true
		case "False":
			return aval{i: 0}, true
		}
		return aval{}, false
	}
	switch tok {
	case "nan":
		return aval{f: math.NaN()}, true
	case "inf":
		return aval{f: math.Inf(1)}, true
	case "-inf":
		return aval{f: math.Inf(-1)}, true
	}
	if bits != "" && (dt == scatter.DTFloat16 || dt == scatter.DTBFloat16) {
		b, err := strconv.ParseUint(bits, 16, 16)
		if err != nil {
			return aval{}, false
		}
		return aval{f: fromBits16(dt, uint16(b))}, true
	}
	size := 64
	if dt == scatter.DTFloat32 {
		size = 32
	}
	f, err := strconv.ParseFloat(tok, size)
	if err != nil {
		return aval{}, false
	}
	return aval{f: roundTo(dt, f)}, true
}

// ---- element access ----

func (p *prober) get(i int) aval {
	switch d := p.t.Data.(type) {
	case []bool:
		if d[i] {
			return aval{i: 1}
		}
		return aval{}
	case []uint8:
		return aval{i: int64(d[i])}
	case []int8:
		return aval{i: int64(d[i])}
	case []int16:
		return aval{i: int64(d[i])}
	case []int32:
		return aval{i: int64(d[i])}
	case []int64:
		return aval{i: d[i]}
	case []scatter.Float16:
		return aval{f: d[i].Float64()}
	case []scatter.BFloat16:
		return aval{f: d[i].Float64()}
	case []float32:
		return aval{f: float64(d[i])}
	case []float64:
		return aval{f: d[i]}
	}
	return aval{}
}

func (p *prober) set(i int, v aval) {
	switch d := p.t.Data.(type) {
	case []bool:
		d[i] = v.i != 0
	case []uint8:
		d[i] = uint8(v.i)
	case []int8:
		d[i] = int8(v.i)
	case []int16:
		d[i] = int16(v.i)
	case []int32:
		d[i] = int32(v.i)
	case []int64:
		d[i] = v.i
	case []scatter.Float16:
		d[i] = scatter.Float16FromFloat64(v.f)
	case []scatter.BFloat16:
		d[i] = scatter.BFloat16FromFloat64(v.f)
	case []float32:
		d[i] = float32(v.f)
	case []float64:
		d[i] = v.f
	}
}

// ---- dtype arithmetic ----

func maxFinite(dt scatter.DType) float64 {
	switch dt {
	case scatter.DTFloat16:
		return 65504
	case scatter.DTBFloat16:
		return scatter.BFloat16(0x7f7f).Float64()
	case scatter.DTFloat32:
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

func intRange(dt scatter.DType) (lo, hi int64) {
	switch dt {
	case scatter.DTUint8:
		return 0, math.MaxUint8
	case scatter.DTInt8:
		return math.MinInt8, math.MaxInt8
	case scatter.DTInt16:
		return math.MinInt16, math.MaxInt16
	case scatter.DTInt32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

func wrapTo(v, lo, hi int64) int64 {
	if v > hi {
		return lo
	}
	if v < lo {
		return hi
	}
	return v
}

func fromBits16(dt scatter.DType, b uint16) float64 {
	if dt == scatter.DTBFloat16 {
		return scatter.BFloat16(b).Float64()
	}
	return scatter.Float16(b).Float64()
}

// roundTo rounds f to the dtype (exact for values of the dtype).
func roundTo(dt scatter.DType, f float64) float64 {
	switch dt {
	case scatter.DTFloat16:
		return scatter.Float16FromFloat64(f).Float64()
	case scatter.DTBFloat16:
		return scatter.BFloat16FromFloat64(f).Float64()
	case scatter.DTFloat32:
		return float64(float32(f))
	}
	return f
}

// floatBits returns the bit pattern of a dtype value and its width.
func floatBits(dt scatter.DType, f float64) (uint64, uint) {
	switch dt {
	case scatter.DTFloat16:
		return uint64(scatter.Float16FromFloat64(f)), 16
	case scatter.DTBFloat16:
		return uint64(scatter.BFloat16FromFloat64(f)), 16
	case scatter.DTFloat32:
		return uint64(math.Float32bits(float32(f))), 32
	}
	return math.Float64bits(f), 64
}

func fromFloatBits(dt scatter.DType, b uint64) float64 {
	switch dt {
	case scatter.DTFloat16, scatter.DTBFloat16:
		return fromBits16(dt, uint16(b))
	case scatter.DTFloat32:
		return float64(math.Float32frombits(uint32(b)))
	}
	return math.Float64frombits(b)
}

// stepFloat returns the dtype value next to f in the total order with
// -0 < +0 (dir -1 below, +1 above), or false past ±Inf.
func stepFloat(dt scatter.DType, f float64, dir int) (float64, bool) {
	if math.IsNaN(f) || math.IsInf(f, dir) {
		return 0, false
	}
	b, w := floatBits(dt, f)
	sign := uint64(1) << (w - 1)
	// key: +0 -> 0, -0 -> -1, ordered like the values.
	var key int64
	if b&sign == 0 {
		key = int64(b)
	} else {
		key = -int64(b&^sign) - 1
	}
	key += int64(dir)
	if key >= 0 {
		b = uint64(key)
	} else {
		b = sign | uint64(-key-1)
	}
	return fromFloatBits(dt, b), true
}

// ---- bounds, for the .npy files of export and -repro-dir ----

// allowedBounds returns tensors lo and hi of the out's dtype and shape: at
// each element the smallest and largest value that conforms (the hull of
// its allowed set; NaN when only NaN conforms, ±Inf when anything does).
// ok is false when the sets cannot be had (too large, no success).
func allowedBounds(exp *reference.Expectation, lvl scatter.Level, name string) (lo, hi scatter.Tensor, ok bool) {
	sets, err := allowedSets(exp, lvl, defaultAllowedMax)
	if err != nil {
		return lo, hi, false
	}
	for _, at := range sets {
		if at.name != name {
			continue
		}
		return boundsOf(at)
	}
	return lo, hi, false
}

func boundsOf(at allowedTensor) (lo, hi scatter.Tensor, ok bool) {
	n := len(at.elems)
	lo = scatter.Tensor{Shape: slices.Clone(at.shape), Data: scatter.MakeData(at.dtype, n)}
	hi = scatter.Tensor{Shape: slices.Clone(at.shape), Data: scatter.MakeData(at.dtype, n)}
	pl := &prober{t: lo, dt: at.dtype}
	ph := &prober{t: hi, dt: at.dtype}
	for i, a := range at.elems {
		l, h, ok := a.hull(at.dtype)
		if !ok {
			return lo, hi, false
		}
		pl.set(i, l)
		ph.set(i, h)
	}
	return lo, hi, true
}

// hull returns the least and greatest conforming values.
func (a *elemAllowed) hull(dt scatter.DType) (lo, hi aval, ok bool) {
	if a.unverified {
		return lo, hi, false
	}
	if a.any {
		if dt.IsFloat() {
			return aval{f: math.Inf(-1)}, aval{f: math.Inf(1)}, true
		}
		l, h := intRange(dt)
		if dt == scatter.DTBool {
			l, h = 0, 1
		}
		return aval{i: l}, aval{i: h}, true
	}
	first := true
	add := func(v aval) {
		if dt.IsFloat() {
			if math.IsNaN(v.f) {
				return
			}
			if first || !totalLE(lo.f, v.f) {
				lo = v
			}
			if first || !totalLE(v.f, hi.f) {
				hi = v
			}
		} else {
			if first || v.i < lo.i {
				lo = v
			}
			if first || v.i > hi.i {
				hi = v
			}
		}
		first = false
	}
	for _, v := range a.vals {
		add(v)
	}
	if a.hasRange {
		add(aval{f: a.lo})
		add(aval{f: a.hi})
	}
	if first {
		if dt.IsFloat() && len(a.vals) > 0 { // only NaN
			return aval{f: math.NaN()}, aval{f: math.NaN()}, true
		}
		return lo, hi, false
	}
	return lo, hi, true
}
