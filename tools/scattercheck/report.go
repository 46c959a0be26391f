package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/check"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/repro"
)

// status is the outcome of one case.
type status string

const (
	stPass  status = "pass"
	stFail  status = "fail"
	stSkip  status = "skip"
	stUnsup status = "unsupported" // a claimed call answered "unsupported"
	stXfail status = "xfail"       // failed, as the -xfail file expects
	stXpass status = "xpass"       // passed, although the -xfail file expects a failure
)

// implInfo is what the implementation said about itself in its hello.
type implInfo struct {
	Name          string   `json:"name"`
	Version       string   `json:"version"`
	Command       string   `json:"command,omitempty"`
	Builtin       bool     `json:"builtin,omitempty"`
	Ops           []string `json:"ops"`
	DTypes        []string `json:"dtypes"`
	Deterministic bool     `json:"deterministic"`
	// Strides: its hello claims the protocol's strides extension
	Strides bool `json:"strides,omitempty"`
}

// runReport is the outcome of the suite on one implementation under one
// profile.
type runReport struct {
	Impl       implInfo
	Profile    scatter.Profile
	Level      scatter.Level
	Seed       uint64
	Checks     int
	Suites     []string
	Cases      []*caseResult
	Duration   time.Duration
	Notes      []string
	Restarts   int
	StderrTail string
	Shard      string // "i/n" when the run was one shard of n (-shard); "" for the whole
	// Selection names the flags besides -suites that chose the cases
	// (-ops, -labels, -properties-tier, -workload-div), "" when none did: merge checks
	// that the shards of one run chose alike.
	Selection string
	// Settings names the other flags that change verdicts
	// (gateConfig.settings), StrictXfail -strict-xfail: merge checks that
	// the shards of one run ran alike, and fails an XPASS where any ran
	// with -strict-xfail.
	Settings    string
	StrictXfail bool
	// rerun are the flags that draw this run's random calls and
	// properties again (gateConfig.rerunFlags; "" for a merged run)
	rerun string

	// views reports whether a call reached the implementation with its
	// views as views (protocol.Client.SendsViews; nil for a built-in
	// backend): its failure's request line then carries them.
	views func(scatter.Call) bool
}

// requestLine is call's protocol request line as the implementation was
// sent it (repro.LineAs).
func (r *runReport) requestLine(call scatter.Call) string {
	return repro.LineAs(r.views != nil && r.views(call), call)
}

func newRunReport(cfg *gateConfig, p scatter.Profile, ii implInfo) *runReport {
	r := &runReport{Impl: ii, Profile: p, Level: cfg.level, Seed: cfg.seed, Checks: cfg.checks, Shard: cfg.shard.String(),
		Selection: cfg.selection(), Settings: cfg.settings(), StrictXfail: cfg.strictXfail, rerun: cfg.rerunFlags(p)}
	for _, s := range allSuites {
		if cfg.suites[s] {
			r.Suites = append(r.Suites, s)
		}
	}
	return r
}

// selection names the flags besides -suites that chose the cases, as
// "-ops a,b -labels x -properties-tier short" ("" for none).
func (cfg *gateConfig) selection() string {
	var parts []string
	// sorted, each once: -ops a,b and -ops b,a,a choose the same cases
	if cfg.ops != nil {
		ops := make([]string, len(cfg.ops))
		for i, op := range cfg.ops {
			ops[i] = string(op)
		}
		slices.Sort(ops)
		parts = append(parts, "-ops "+strings.Join(slices.Compact(ops), ","))
	}
	if cfg.labels != nil {
		labels := slices.Clone(cfg.labels)
		slices.Sort(labels)
		parts = append(parts, "-labels "+strings.Join(slices.Compact(labels), ","))
	}
	if cfg.suites[suiteWorkloads] && cfg.workloadDiv != defaultWorkloadDiv {
		parts = append(parts, fmt.Sprintf("-workload-div %d", cfg.workloadDiv))
	}
	if cfg.suites[suiteProperties] && cfg.propTier != properties.TierDefault {
		parts = append(parts, "-properties-tier "+cfg.propTier.String())
	}
	return strings.Join(parts, " ")
}

// settings names the flags besides -seed, -checks, -strict-xfail and
// those that choose the cases that change verdicts, each only where it is
// not its default, as "-allow-unsupported -strided-calls -xfail
// sha256:HEX -timeout 1m0s -max-process-failures 3" ("" for none). The
// -xfail file goes by its contents, whatever its path.
func (cfg *gateConfig) settings() string {
	var parts []string
	for _, f := range cfg.verdictFlags() {
		parts = append(parts, f.text)
	}
	return strings.Join(parts, " ")
}

// verdictFlag is one of the flags settings names, and whether a rerun of a
// drawn case carries it (rerunFlags: those that change what is sent).
type verdictFlag struct {
	text  string
	rerun bool
}

// verdictFlags are the flags settings names, in its order.
func (cfg *gateConfig) verdictFlags() []verdictFlag {
	var fs []verdictFlag
	if cfg.allowUnsupported {
		fs = append(fs, verdictFlag{"-allow-unsupported", true})
	}
	if cfg.stridedCalls {
		fs = append(fs, verdictFlag{"-strided-calls", true})
	}
	if cfg.xfailPath != "" {
		fs = append(fs, verdictFlag{"-xfail sha256:" + cfg.xfailDigest, false})
	}
	if cfg.timeout != defaultTimeout {
		fs = append(fs, verdictFlag{"-timeout " + cfg.timeout.String(), true})
	}
	if cfg.maxProcFailures != defaultMaxProcFailures {
		fs = append(fs, verdictFlag{fmt.Sprintf("-max-process-failures %d", cfg.maxProcFailures), false})
	}
	return fs
}

// rerunFlags are the gate's flags that run a random case or a property
// again as this run drew it (its draws come from -seed and the case's
// name, whatever else runs): the implementation, profile, level, seed,
// checks, the properties' tier and the flags that change what is sent;
// "" for the built-in backends, which run together.
func (cfg *gateConfig) rerunFlags(p scatter.Profile) string {
	if cfg.impl == "" {
		return "" // the built-ins run together, each at its own level
	}
	parts := []string{"-impl " + shQuote(cfg.impl)}
	parts = append(parts, "-profile "+p.String(), "-level "+cfg.level.String(), fmt.Sprintf("-seed %d -checks %d", cfg.seed, cfg.checks))
	if cfg.propTier != properties.TierDefault {
		parts = append(parts, "-properties-tier "+cfg.propTier.String())
	}
	for _, f := range cfg.verdictFlags() {
		if f.rerun {
			parts = append(parts, f.text)
		}
	}
	return strings.Join(parts, " ")
}

// details is cr.details() with, for a random case or a property of a run
// the gate made, the command that runs it again.
func (r *runReport) details(cr *caseResult) string {
	d := cr.details()
	if r.rerun == "" || !drawn(cr.ID) {
		return d
	}
	only := "-suites random -ops " + string(cr.Op)
	if cr.Source == suiteProperties {
		only = "-suites properties"
		if cr.Op != "" {
			only += " -ops " + string(cr.Op)
		}
	}
	return d + "\nrerun: scattercheck " + r.rerun + " " + only
}

// caseResult is the outcome of one case: a spec case, a fixture, or the
// random calls of one operation and dtype.
type caseResult struct {
	ID       string // "spec/<name>", "fixture/<name>", "random/<op>/<dtype>", "gate/start"
	Source   string // spec, fixtures, random, properties, workloads, gate
	Origin   string // where the truth comes from
	Op       scatter.Op
	DType    scatter.DType
	Features []string
	Status   status
	Reason   string // why skipped; the xfail entry's reason
	Seconds  float64
	Checks   int    // random: calls checked
	Seed     uint64 // random: the pair's seed
	Note     string
	Failure  *failure
	// ErrorsOnly: a passing case that judged only calls that must fail (a
	// spec case of an argument check, the broken calls' property), which
	// does not show that the implementation computes anything.
	ErrorsOnly bool
	// XfailLike are the mutants of the xfail entry (like=) that made the
	// case XFAIL or XPASS: an XFAIL failure's likely bug is one of them.
	XfailLike []string

	// xfail is the entry that decided an XFAIL or XPASS (applyXfail);
	// nil for cases read back from a -json report.
	xfail *xfailEntry
}

// failure is what a failing case shows.
type failure struct {
	// Kind: mismatch (the judge rejects the outcome), unsupported, panic,
	// modified-inputs, suite (the oracle disagrees with the recorded truth:
	// the suite's own problem), or a process failure: timeout, crash,
	// garbage, start, gave-up.
	Kind    string
	Summary string
	Report  string // the judge's report: the call, what came back, what was allowed
	Request string // the (minimal) call as a protocol request line
	PyTorch string // a ready-to-run PyTorch program for the call
	Shrunk  bool   // random: the call is rapid's minimal one
	Seed    uint64
	Stderr  string // process failures: the tail of the implementation's standard error
	Repro   string // the -repro-dir folder written for it
	// Likely is the mutant class the failure looks like (likely.go), nil
	// when none matches or the outcome is not known.
	Likely *likelyBug

	call    scatter.Call
	res     scatter.Result
	err     error
	profile scatter.Profile
	level   scatter.Level

	classified bool // classify has run
	// clipped: the call's request line is longer than maxReportLine, so
	// Request and PyTorch hold notes (-repro-dir writes the call in full)
	clipped bool
	// workload: a workload's failure, one call larger than any drawn
	// one, which classify compares up to the workloads' own bounds
	workload bool
	// uncompared is why classify compared nothing ("" when it did)
	uncompared string
}

// counts tallies statuses.
type counts map[status]int

func (c counts) total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

func (r *runReport) counts() counts {
	c := counts{}
	for _, cr := range r.Cases {
		c[cr.Status]++
	}
	return c
}

// conforms reports whether the run passes: no failure, no claimed call
// declined, and (with strictXfail) no unexpected pass.
func (r *runReport) conforms(strictXfail bool) bool {
	c := r.counts()
	return c[stFail] == 0 && c[stUnsup] == 0 && (!strictXfail || c[stXpass] == 0)
}

// maxReportLine is the longest request line a report prints (a spec case
// of 10,007 elements has one of about 120 KB, and its program as much).
const maxReportLine = 64 << 10

// fillDetails completes every failure with its request line and PyTorch
// program, and the first maxClassified failures (expected ones aside)
// with the bug they likely are (done once, before any report is
// written).
func (r *runReport) fillDetails() {
	classified := 0
	for _, cr := range r.Cases {
		f := cr.Failure
		if f == nil {
			continue
		}
		if f.call != nil && f.Request == "" {
			f.Request = r.requestLine(f.call)
			f.PyTorch = repro.Program(f.call)
			if n := len(f.Request); n > maxReportLine {
				// the report stays readable; -repro-dir writes the call in full
				f.clipped = true
				f.Request = fmt.Sprintf("(the request line is %d bytes, over the %d a report prints: -repro-dir writes it, with the call's tensors as .npy files)", n, maxReportLine)
				f.PyTorch = "(not printed for a call this large: -repro-dir writes a repro.py that loads the call's tensors from its .npy files)"
			}
		}
		if cr.Status == stFail && !f.classified && classified < maxClassified {
			f.classify()
			classified++
		}
	}
}

// cell renders one matrix cell.
func cell(c counts) string {
	run := c[stPass] + c[stFail] + c[stUnsup] + c[stXfail] + c[stXpass]
	switch {
	case c.total() == 0:
		return "·"
	case c[stFail] > 0:
		return fmt.Sprintf("FAIL %d/%d", c[stFail], run)
	case c[stUnsup] > 0:
		return fmt.Sprintf("unsup %d/%d", c[stUnsup], run)
	case c[stXfail]+c[stXpass] > 0:
		return fmt.Sprintf("xfail %d/%d", c[stXfail]+c[stXpass], run)
	case run == 0:
		return "skip"
	}
	return fmt.Sprintf("ok %d", run)
}

// header writes the run's one-line title.
func (r *runReport) title() string {
	c := r.counts()
	s := fmt.Sprintf("%s %s — profile %v, %v level: %d passed, %d failed", r.Impl.Name, r.Impl.Version, r.Profile,
		r.Level, c[stPass], c[stFail])
	if c[stUnsup] > 0 {
		s += fmt.Sprintf(", %d unsupported", c[stUnsup])
	}
	if c[stXfail]+c[stXpass] > 0 {
		s += fmt.Sprintf(", %d xfail, %d xpass", c[stXfail], c[stXpass])
	}
	s += fmt.Sprintf(", %d skipped", c[stSkip])
	if n := r.otherProfiles(); n > 0 {
		// the recorded fixtures of other PyTorch versions: most of the
		// skips of a default run, which say nothing about the implementation
		s += fmt.Sprintf(", %d of them other profiles' cases", n)
	}
	return s + fmt.Sprintf(" (%.1fs)", r.Duration.Seconds())
}

// otherProfiles counts the cases skipped because their truth is another
// profile's (check.Target.SkipReason).
func (r *runReport) otherProfiles() int {
	n := 0
	for _, cr := range r.Cases {
		if cr.Status == stSkip && strings.HasPrefix(cr.Reason, check.OtherProfilePrefix) {
			n++
		}
	}
	return n
}

// print writes the human summary: what was checked, the matrix of
// operation × dtype, the features, why cases were skipped, and the
// failures in full.
func (r *runReport) print(w io.Writer, verbose bool) {
	r.fillDetails()
	r.printHeader(w)
	r.printMatrix(w)
	r.printProperties(w)
	r.printFeatures(w, verbose)
	r.printSkips(w)
	r.printNotes(w)
	r.printExpected(w)
	r.printFailures(w, verbose)
}

// printHeader writes the title, the implementation, its claims, the
// suites, the restarts and the notes.
func (r *runReport) printHeader(w io.Writer) {
	fmt.Fprintf(w, "\n== %s\n", r.title())
	if r.Impl.Command != "" {
		fmt.Fprintf(w, "   implementation: %s\n", r.Impl.Command)
	}
	det := ""
	if r.Impl.Deterministic {
		det = ", claims deterministic"
	}
	if r.Impl.Strides {
		det += ", claims the strides extension"
	}
	fmt.Fprintf(w, "   claims: ops %s; dtypes %s%s\n", strings.Join(r.Impl.Ops, " "), strings.Join(r.Impl.DTypes, " "), det)
	fmt.Fprintf(w, "   suites: %s", strings.Join(r.Suites, ", "))
	if slices.Contains(r.Suites, suiteRandom) {
		fmt.Fprintf(w, " (random: %d calls per operation and dtype, seed %d)", r.Checks, r.Seed)
	}
	fmt.Fprintln(w)
	if r.Restarts > 0 {
		fmt.Fprintf(w, "   the implementation was restarted %d times\n", r.Restarts)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "   note: %s\n", n)
	}
}

// printMatrix writes the operation × dtype matrix and the counts by part.
func (r *runReport) printMatrix(w io.Writer) {
	byOpDT := map[scatter.Op]map[scatter.DType]counts{}
	bySrc := map[string]counts{}
	for _, cr := range r.Cases {
		if bySrc[cr.Source] == nil {
			bySrc[cr.Source] = counts{}
		}
		bySrc[cr.Source][cr.Status]++
		if cr.Op == "" || !cr.DType.Valid() {
			continue
		}
		if byOpDT[cr.Op] == nil {
			byOpDT[cr.Op] = map[scatter.DType]counts{}
		}
		if byOpDT[cr.Op][cr.DType] == nil {
			byOpDT[cr.Op][cr.DType] = counts{}
		}
		byOpDT[cr.Op][cr.DType][cr.Status]++
	}
	if len(byOpDT) == 0 {
		if len(bySrc) > 0 {
			fmt.Fprintf(w, "\nby part: %s\n", byPart(bySrc))
		}
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprint(tw, "operation\t")
	for _, dt := range scatter.DTypes {
		fmt.Fprintf(tw, "%v\t", dt)
	}
	fmt.Fprintln(tw)
	for _, op := range scatter.Ops {
		row := byOpDT[op]
		if row == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t", op)
		for _, dt := range scatter.DTypes {
			fmt.Fprintf(tw, "%s\t", cell(row[dt]))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintf(w, "by part: %s\n", byPart(bySrc))
}

// byPart writes the counts of each part of the suite, in the suites'
// order, the gate's own cases last.
func byPart(bySrc map[string]counts) string {
	var parts []string
	for _, s := range append(slices.Clone(allSuites), "gate") {
		if c := bySrc[s]; c != nil {
			parts = append(parts, fmt.Sprintf("%s %s", s, cell(c)))
		}
	}
	return strings.Join(parts, ", ")
}

// printProperties writes the properties of package properties, three to
// a line.
func (r *runReport) printProperties(w io.Writer) {
	var props []*caseResult
	for _, cr := range r.Cases {
		if cr.Source == suiteProperties {
			props = append(props, cr)
		}
	}
	if len(props) == 0 {
		return
	}
	fmt.Fprintln(w, "\nproperties:")
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for i, cr := range props {
		c := counts{cr.Status: 1}
		fmt.Fprintf(tw, "  %s\t%s\t", strings.TrimPrefix(cr.ID, "property/"), cell(c))
		if i%3 == 2 || i == len(props)-1 {
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
}

// printFeatures writes the counts per feature: those with a failure, or
// all when verbose.
func (r *runReport) printFeatures(w io.Writer, verbose bool) {
	byFeat := map[string]counts{}
	for _, cr := range r.Cases {
		for _, f := range cr.Features {
			if byFeat[f] == nil {
				byFeat[f] = counts{}
			}
			byFeat[f][cr.Status]++
		}
	}
	if len(byFeat) == 0 {
		return
	}
	feats := make([]string, 0, len(byFeat))
	quiet := 0
	for f, c := range byFeat {
		if verbose || c[stFail]+c[stUnsup]+c[stXfail]+c[stXpass] > 0 {
			feats = append(feats, f)
		} else {
			quiet++
		}
	}
	sort.Strings(feats)
	if len(feats) == 0 {
		fmt.Fprintf(w, "\nfeatures: each of the %d passed or was skipped throughout (-v lists them)\n", quiet)
		return
	}
	if verbose {
		fmt.Fprintln(w, "\nfeatures:")
	} else {
		fmt.Fprintln(w, "\nfeatures (those with a failure; -v lists all):")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for i, f := range feats {
		fmt.Fprintf(tw, "  %s\t%s\t", f, cell(byFeat[f]))
		if i%4 == 3 || i == len(feats)-1 {
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()
	if quiet > 0 {
		fmt.Fprintf(w, "  (%d more features, each passed or skipped throughout)\n", quiet)
	}
}

// printSkips writes the skipped cases, counted by reason.
func (r *runReport) printSkips(w io.Writer) {
	skips := map[string]int{}
	for _, cr := range r.Cases {
		if cr.Status == stSkip {
			skips[cr.Reason]++
		}
	}
	if len(skips) == 0 {
		return
	}
	fmt.Fprintln(w, "\nskipped:")
	reasons := make([]string, 0, len(skips))
	for s := range skips {
		reasons = append(reasons, s)
	}
	sort.Strings(reasons)
	for _, s := range reasons {
		fmt.Fprintf(w, "  %4d  %s\n", skips[s], s)
	}
}

// printNotes writes the notes of the random part.
func (r *runReport) printNotes(w io.Writer) {
	var notes []string
	for _, cr := range r.Cases {
		if cr.Note != "" {
			notes = append(notes, fmt.Sprintf("  %s: %s", cr.ID, cr.Note))
		}
	}
	if len(notes) == 0 {
		return
	}
	fmt.Fprintln(w, "\nnotes:")
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}

// printExpected writes the expected failures (XFAIL) and those that
// passed (XPASS).
func (r *runReport) printExpected(w io.Writer) {
	var xs []string
	for _, cr := range r.Cases {
		switch cr.Status {
		case stXfail:
			xs = append(xs, fmt.Sprintf("  XFAIL %s: %s", cr.ID, orDash(cr.Reason)))
			if f := cr.Failure; len(cr.XfailLike) > 0 && f != nil && f.Likely != nil {
				// a pinned entry excused it: show the bug it was pinned to
				xs = append(xs, fmt.Sprintf("      %s", f.Likely))
			}
		case stXpass:
			xs = append(xs, fmt.Sprintf("  XPASS %s: expected to fail (%s) but passed%s", cr.ID, orDash(cr.Reason), drawsHint(cr)))
		}
	}
	if len(xs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nexpected failures:")
	for _, x := range xs {
		fmt.Fprintln(w, x)
	}
}

// drawn reports whether a case's calls are drawn (a random case or a
// property), so that which of them meet a bug depends on -seed and
// -checks.
func drawn(id string) bool {
	return strings.HasPrefix(id, "random/") || strings.HasPrefix(id, "property/")
}

// drawsHint is what an XPASS of a random case or a property adds: whether
// such a case meets a known bug depends on its draws (-seed, -checks), so
// its entry may need `sometimes` (which needs like=) rather than removal.
func drawsHint(cr *caseResult) string {
	if !drawn(cr.ID) {
		return ""
	}
	if len(cr.XfailLike) == 0 {
		return "; its draws change with -seed and -checks: pin the entry (like=, from the failure's looks like: line) and add sometimes if the bug shows only in some " +
			"(a bug that looks like no mutant cannot be pinned: keep the -seed and -checks the entry was written for)"
	}
	return "; its draws change with -seed and -checks: add sometimes to the entry if the bug shows only in some"
}

// printFailures writes a one-line index of the failures, then the first
// ones in full (all when verbose).
func (r *runReport) printFailures(w io.Writer, verbose bool) {
	var fails []*caseResult
	for _, cr := range r.Cases {
		if cr.Status == stFail || cr.Status == stUnsup {
			fails = append(fails, cr)
		}
	}
	if len(fails) == 0 {
		return
	}
	if unsup := len(fails) - r.counts()[stFail]; unsup > 0 {
		// the headline counts them apart; without -allow-unsupported
		// they fail the run too
		fmt.Fprintf(w, "\nfailures (%d, of which %d answered unsupported: -allow-unsupported skips them):\n", len(fails), unsup)
	} else {
		fmt.Fprintf(w, "\nfailures (%d):\n", len(fails))
	}
	for _, cr := range fails {
		fmt.Fprintf(w, "  %s [%s] %s\n", cr.ID, cr.Failure.Kind, cr.Failure.Summary)
		if l := cr.Failure.Likely; l != nil {
			fmt.Fprintf(w, "      %s\n", l)
		}
	}
	const shown = 5
	for i, cr := range fails {
		if !verbose && i >= shown {
			fmt.Fprintf(w, "\n... %d more failures in full with -v (or in -json / -junit / -repro-dir)\n", len(fails)-i)
			break
		}
		fmt.Fprintf(w, "\n--- %s %s\n%s\n", strings.ToUpper(string(cr.Status)), cr.ID, r.details(cr))
	}
}

// details renders a failure in full: where the truth comes from, the
// report, the request line, the PyTorch program and the stderr tail.
func (cr *caseResult) details() string {
	f := cr.Failure
	var b strings.Builder
	fmt.Fprintf(&b, "kind: %s\n", f.Kind)
	if cr.Origin != "" {
		fmt.Fprintf(&b, "truth: %s\n", cr.Origin)
	}
	if cr.Source == suiteRandom {
		fmt.Fprintf(&b, "random: the case's own seed %d (drawn from the run's -seed, which reruns it), %d calls before this failure", f.Seed, cr.Checks)
		if f.Shrunk {
			b.WriteString(", shrunk to a minimal call")
		}
		b.WriteString("\n")
	}
	b.WriteString(strings.TrimRight(f.Report, "\n") + "\n")
	if f.Likely != nil {
		fmt.Fprintf(&b, "%s\n", f.Likely)
	}
	if f.Request != "" {
		fmt.Fprintf(&b, "request (protocol, one line, after the hello %s):\n  %s\n", protocol.EncodeHello(0), f.Request)
	}
	if f.PyTorch != "" {
		fmt.Fprintf(&b, "PyTorch:\n%s", indentLines(f.PyTorch, "  "))
	}
	if f.Repro != "" {
		fmt.Fprintf(&b, "repro folder: %s\n", f.Repro)
	}
	if f.Stderr != "" {
		fmt.Fprintf(&b, "implementation's stderr (tail):\n%s\n", indentLines(f.Stderr, "  | "))
	}
	return strings.TrimRight(b.String(), "\n")
}

func indentLines(s, pad string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func orDash(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}
