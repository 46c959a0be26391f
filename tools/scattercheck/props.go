package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// The properties part: package properties' rapid properties (the
// differential check of every operation on larger and strided tensors,
// the invariants and the metamorphic relations), run outside go test
// through properties.CheckTB with a TB that records what they report.
// Each property is one case, "property/<name>"; a failure carries
// rapid's shrunk counterexample as the properties print it, and the first
// call's protocol request line is decoded back into the call, so that the
// report, the PyTorch program and -repro-dir work as for the other parts.

// propTB is the TB handed to properties.CheckTB: logs are dropped,
// failures and skips recorded (the properties report per property through
// their Report as well).
type propTB struct {
	failed bool
	errors []string
}

func (t *propTB) Helper()             {}
func (t *propTB) Name() string        { return "scattercheck" }
func (t *propTB) Logf(string, ...any) {}
func (t *propTB) Log(...any)          {}
func (t *propTB) Skipf(string, ...any) {
}
func (t *propTB) Skip(...any) {}
func (t *propTB) SkipNow()    {}
func (t *propTB) Errorf(format string, args ...any) {
	t.failed = true
	t.errors = append(t.errors, fmt.Sprintf(format, args...))
}
func (t *propTB) Error(args ...any)                 { t.Errorf("%s", fmt.Sprint(args...)) }
func (t *propTB) Fatalf(format string, args ...any) { t.Errorf(format, args...) }
func (t *propTB) Fatal(args ...any)                 { t.Errorf("%s", fmt.Sprint(args...)) }
func (t *propTB) FailNow()                          { t.failed = true }
func (t *propTB) Fail()                             { t.failed = true }
func (t *propTB) Failed() bool                      { return t.failed }

// opsPropertyMatch is the properties.Budget.Match of -ops: the properties
// whose name ends in one of the operations, and the invariants and
// relations that draw any of them ("" without -ops: all).
func (cfg *gateConfig) opsPropertyMatch() string {
	if cfg.ops == nil {
		return ""
	}
	var alts []string
	for _, op := range cfg.ops {
		alts = append(alts, regexp.QuoteMeta(string(op)))
	}
	return "(^|/)(" + strings.Join(alts, "|") + ")$|^invariants/"
}

// propertyNames are the properties the run's part runs: those -ops
// selects, of this shard.
func (cfg *gateConfig) propertyNames() []string {
	var sel *regexp.Regexp
	if m := cfg.opsPropertyMatch(); m != "" {
		sel = regexp.MustCompile(m)
	}
	var names []string
	for _, name := range properties.Properties() {
		if (sel == nil || sel.MatchString(name)) && cfg.shard.has("property/"+name) {
			names = append(names, name)
		}
	}
	return names
}

// runPropertiesPart runs package properties on the implementation.
func runPropertiesPart(g *guarded, cfg *gateConfig, p scatter.Profile) []*caseResult {
	prepareRapid()
	// properties reads the seed from rapid's flag when it was given: set
	// it as given, so that -seed reruns the same cases.
	_ = flag.CommandLine.Set("rapid.seed", strconv.FormatUint(cfg.seed, 10))
	setRapidFlag("rapid.shrinktime", cfg.shrinkFor().String())
	budget := properties.Budget{Tier: cfg.propTier, Checks: cfg.checks, Match: cfg.opsPropertyMatch()}
	if cfg.shard.count > 1 {
		// this shard's properties, by name, among those -ops selects
		var mine []string
		for _, name := range cfg.propertyNames() {
			mine = append(mine, regexp.QuoteMeta(name))
		}
		if mine == nil {
			return nil
		}
		budget.Match = "^(" + strings.Join(mine, "|") + ")$"
	}
	t0 := time.Now()
	g.firstDecline()
	tb := &propTB{}
	var rep properties.Report
	func() {
		defer func() {
			if r := recover(); r != nil {
				tb.Errorf("the properties stopped: %v", r)
			}
		}()
		rep = properties.CheckTB(tb, propertiesTarget(g, p, cfg), budget)
	}()
	declined, declinedErr := g.firstDecline()
	var out []*caseResult
	if rep.Failed() {
		// each failing property may have shrunk for up to the shrink time
		for _, pr := range rep.Properties {
			if pr.Failed {
				cfg.spendShrink(cfg.shrinkFor())
			}
		}
	}
	for _, pr := range rep.Properties {
		cr := &caseResult{ID: "property/" + pr.Name, Source: suiteProperties, Features: []string{"property"},
			Origin: "package properties: " + pr.Name + ", judged by reference.Expect", Seed: rep.Seed, Checks: pr.Cases}
		if i := strings.LastIndexByte(pr.Name, '/'); i >= 0 {
			if op := scatter.Op(pr.Name[i+1:]); isOp(op) {
				cr.Op = op
			}
		}
		var notes []string
		if pr.Unsupported > 0 {
			notes = append(notes, fmt.Sprintf("%d of %d cases answered unsupported (%s)", pr.Unsupported, pr.Cases, unsupportedCounts(cfg.allowUnsupported)))
		}
		cr.Note = strings.Join(notes, "; ")
		switch {
		case pr.Failed:
			cr.Status = stFail
			cr.Failure = propertyFailure(pr, p, cfg.level, rep.Seed, g)
		case pr.Unsupported > 0 && !cfg.allowUnsupported:
			// the properties draw only what the implementation claims:
			// a decline fails, as in the spec and random parts
			f := &failure{Kind: "unsupported", call: declined, err: declinedErr, profile: p, level: cfg.level, Seed: rep.Seed,
				Report: fmt.Sprintf("the implementation answered unsupported for %d of the property's %d cases, calls of ops and dtypes it claims (-allow-unsupported counts them as declined)", pr.Unsupported, pr.Cases)}
			if declined != nil {
				f.Report += "; the first such call of the properties part: " + reference.DescribeCall(declined)
			}
			f.Summary = summarize(f, nil)
			cr.fail(f, false)
		case pr.Skipped != "":
			// a property that does not apply, or one in which no call
			// that should succeed was judged (pr.Unjudged): not a pass
			// (checkNothingPassed counts on it)
			cr.Status, cr.Reason = stSkip, pr.Skipped
		default:
			cr.Status = stPass
			cr.ErrorsOnly = pr.Vacuous+pr.ExpectedErrors >= pr.Cases
		}
		out = append(out, cr)
	}
	if len(out) == 0 && tb.failed {
		out = append(out, &caseResult{ID: "property/(run)", Source: suiteProperties, Status: stFail,
			Failure: &failure{Kind: "suite", Summary: firstLine(strings.Join(tb.errors, "\n")), Report: strings.Join(tb.errors, "\n")}})
	}
	if n := len(out); n > 0 {
		// the time is the part's, spread evenly
		per := time.Since(t0).Seconds() / float64(n)
		for _, cr := range out {
			cr.Seconds = per
		}
	}
	return out
}

func isOp(op scatter.Op) bool {
	for _, o := range scatter.Ops {
		if o == op {
			return true
		}
	}
	return false
}

var protocolLineRE = regexp.MustCompile(`(?m)^\s*protocol: (.*)$`)
var writtenToRE = regexp.MustCompile(`^\(\d+ bytes, written to (.+)\)$`)

// propertyFailure turns a property's report into a failure, with the call
// of its first "protocol:" line, or the one rerunKept keeps.
func propertyFailure(pr properties.PropertyReport, p scatter.Profile, lvl scatter.Level, seed uint64, g *guarded) *failure {
	f := &failure{Kind: "mismatch", Report: pr.Failure, Seed: seed, Shrunk: true, profile: p, level: lvl}
	var calls []scatter.Call
	for _, m := range protocolLineRE.FindAllStringSubmatch(pr.Failure, -1) {
		line := strings.TrimSpace(m[1])
		if w := writtenToRE.FindStringSubmatch(line); w != nil {
			b, err := os.ReadFile(w[1])
			if err != nil {
				continue
			}
			line = strings.TrimSpace(string(b))
		}
		if _, c, err := protocol.DecodeCall([]byte(line)); err == nil {
			calls = append(calls, c)
		}
	}
	if len(calls) > 0 {
		f.call = calls[0]
	}
	switch {
	case strings.Contains(pr.Failure, "protocol: timeout") || strings.Contains(pr.Failure, ": timeout: "):
		f.Kind = protocol.KindTimeout
	case strings.Contains(pr.Failure, "protocol: crash"):
		f.Kind = protocol.KindCrash
	case strings.Contains(pr.Failure, "protocol: garbage"):
		f.Kind = protocol.KindGarbage
	case strings.Contains(pr.Failure, errGaveUp.Error()):
		f.Kind = "gave-up"
	case strings.Contains(pr.Failure, "panicked"):
		f.Kind = "panic"
	}
	// what failed: the judge's verdict, else the property's own words
	lines := strings.Split(pr.Failure, "\n")
	for _, l := range lines {
		if strings.Contains(l, " does not conform (") {
			f.Summary = strings.TrimSpace(l)
			break
		}
	}
	if f.Summary == "" {
		for _, l := range lines {
			if i := strings.Index(l, " level): "); i >= 0 {
				f.Summary = strings.TrimSpace(l[i+len(" level): "):])
				break
			}
		}
	}
	// rapid's and the properties' advice on rerunning under go test does
	// not apply here (-seed does)
	var keep []string
	for _, l := range lines {
		if strings.HasPrefix(l, "To reproduce, specify") || strings.HasPrefix(l, "Go repro:") ||
			strings.HasPrefix(l, "Failed test output:") {
			continue
		}
		keep = append(keep, l)
	}
	f.Report = strings.TrimRight(strings.Join(keep, "\n"), "\n")
	if f.Summary == "" {
		f.Summary = firstLine(pr.Failure)
	}
	if g.gaveUp && errors.Is(g.lastErr, errGaveUp) && f.Kind == "mismatch" && strings.Contains(pr.Failure, "without a code") {
		f.Kind = "gave-up"
	}
	switch f.Kind {
	case protocol.KindTimeout, protocol.KindCrash, protocol.KindGarbage:
		// the call that failed so (a relation's failure prints all its
		// calls, the failing one not always first) and its error, as the
		// gate kept it: the requests before it for -repro-dir's
		// history.jsonl, and the repro of that call
		for _, c := range calls {
			if err := g.processErr(c); processKind(err) == f.Kind {
				f.call, f.err = c, err
				f.Summary = summarize(f, nil) // "timeout on request 9 (scatter_add): ..."
				break
			}
		}
	}
	f.rerunKept(calls, g)
	return f
}

// rerunKept gives a property's mismatch an outcome, which the property
// does not keep, so that it can be classified (likely.go) and an expected
// failure pinned to a mutant (like=) can be checked: the implementation
// is asked again for the calls the failure printed, in order, and the
// first whose answer the judge rejects becomes the failure's call (its
// repro too) and that answer its outcome. When every answer is allowed
// (the property failed on how two answers relate, or the implementation
// answers differently from call to call; a call answered unsupported is
// passed over), or the rerun fails as a process or is cut short, the
// failure stays unclassified and says why.
func (f *failure) rerunKept(calls []scatter.Call, g *guarded) {
	if f.Kind != "mismatch" || len(calls) == 0 {
		return
	}
	declined := 0
	for i, c := range calls {
		res, err := g.Run(cloneCall(c))
		if errors.Is(err, errInterrupted) {
			f.classified, f.uncompared = true, fmt.Sprintf("the run was cut short before the implementation was asked again for its call %d", i+1)
			return
		}
		if processKind(err) != "" {
			f.classified, f.uncompared = true, fmt.Sprintf("asked again for its call %d, the implementation failed as a process (%s)", i+1, firstLine(err.Error()))
			return
		}
		if scatter.CodeOf(err) == scatter.ErrNotSupported {
			declined++
			continue
		}
		if reference.Expect(cloneCall(c), f.profile).Check(f.level, res, err) != nil {
			f.call, f.res, f.err = c, res, err
			if len(calls) > 1 {
				f.Report += fmt.Sprintf("\n(asked again, the implementation answered call %d of the %d above as the judge rejects: the likely bug and the repro are of that call)", i+1, len(calls))
			}
			return
		}
	}
	how := "as allowed"
	if declined > 0 {
		how = fmt.Sprintf("as allowed (%d of them unsupported)", declined)
	}
	f.classified = true
	f.uncompared = fmt.Sprintf("asked again, the implementation answered the %d call(s) it printed %s: the property failed on how answers relate, or on an answer that changes from call to call", len(calls), how)
}

// propertiesTarget is the properties' target for the guarded backend g: an
// implementation behind the protocol receives copies of the tensors, and
// every view as a contiguous copy (Client.Run sends operation requests
// contiguous whatever the strides claim; only bench requests carry
// views), unless -strided-calls asks for views and the implementation
// claims the strides extension: then the views of the calls that
// reference.LayoutFree passes reach it as views, and a failure's protocol
// lines carry them (Target.Views).
func propertiesTarget(g *guarded, p scatter.Profile, cfg *gateConfig) properties.Target {
	t := properties.Target{Backend: g, Profile: p, Level: cfg.level}
	if c, ok := g.inner.(*protocol.Client); ok {
		t.Copies, t.Materialises = true, !(cfg.stridedCalls && c.Extensions().Strides)
		t.Views = c.SendsViews
	}
	return t
}
