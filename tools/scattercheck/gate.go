package main

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/cuda"
	"github.com/scatterconf/scatter/optimized"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/spec"
	"github.com/scatterconf/scatter/workload"
)

// The gate: the whole suite on one implementation (an outside process
// speaking the protocol, or the built-in backends), with a report.

// shownWarnings are the warnings the gate prints: in one shard of a run
// (-shard), the xfail entries that match no case (unmatched) are one
// line, since most of them match in other shards; the -json report keeps
// each, for merge, which warns of those that match in none.
func shownWarnings(sh shard, warnings, unmatched []string) []string {
	if sh.count <= 1 || len(unmatched) == 0 {
		return warnings
	}
	shown := slices.DeleteFunc(slices.Clone(warnings), func(w string) bool { return slices.Contains(unmatched, w) })
	return append(shown, fmt.Sprintf("%d xfail entries match no case of shard %v; their cases may be in the other shards "+
		"(scattercheck merge warns of those that match in none)", len(unmatched), sh))
}

// notStarted is the name of an implementation that did not start.
const notStarted = "(did not start)"

// gateConfig is the gate's command line.
type gateConfig struct {
	impl             string
	profiles         []scatter.Profile
	level            scatter.Level
	ops              []scatter.Op // nil: every operation
	labels           []string     // nil: every spec case
	suites           map[string]bool
	checks           int
	seed             uint64
	timeout          time.Duration
	startTimeout     time.Duration
	shrinkTime       time.Duration
	shrinkBudget     time.Duration // left for shrinking in this run (all parts)
	maxProcFailures  int
	allowUnsupported bool
	stridedCalls     bool // -strided-calls: views as views to an implementation claiming strides
	strictXfail      bool
	xfailPath        string
	xfailDigest      string // the -xfail file's SHA-256 (hex), set when it is loaded
	junitPath        string
	jsonPath         string
	reproDir         string
	verbose          bool
	propTier         properties.Tier
	workloadDiv      int           // the workloads part's scale-down (-workload-div)
	deadline         time.Duration // the most the whole run may take (0: no limit)
	progress         time.Duration // between progress lines off a terminal (0: none)
	shard            shard         // the part of the work this job runs (-shard i/n; zero: all)

	profileGiven bool        // -profile was on the command line
	torch        *torchNotes // about the profile of a torch implementation

	sess *session // the run as it goes (nil: cases go straight into the reports)
}

// The parts of the suite (-suites).
const (
	suiteSpec       = "spec"
	suiteFixtures   = "fixtures"
	suiteRandom     = "random"
	suiteProperties = "properties"
	suiteWorkloads  = "workloads"
)

var allSuites = []string{suiteSpec, suiteFixtures, suiteRandom, suiteProperties, suiteWorkloads}

// Defaults of the gate's flags.
const (
	defaultChecks          = 100
	defaultSeed            = 1
	defaultTimeout         = 30 * time.Second
	defaultShrinkTime      = 2 * time.Second
	defaultShrinkBudget    = 20 * time.Second
	defaultMaxProcFailures = 10
	defaultProgress        = 30 * time.Second
)

func gateFlags(fs *flag.FlagSet) func() (*gateConfig, error) {
	impl := fs.String("impl", "", "run the suite on this command, a child process speaking the protocol (PROTOCOL.md); without it, on the built-in backends")
	profile := fs.String("profile", "", "the truth to judge against: torch-2, torch-2.8, torch-2.6, torch-1.13 or all (default torch-2 with -impl, all without)")
	level := fs.String("level", "conformant", "conformant (any correct summation order) or strict (bit-exact with the canonical order)")
	ops := fs.String("ops", "", "only these operations (comma-separated, e.g. scatter_reduce,gather)")
	labels := fs.String("labels", "", "only the spec and fixture cases carrying one of these comma-separated labels")
	suites := fs.String("suites", strings.Join(allSuites, ","), "the parts of the suite to run: spec (documented examples, rules, edge cases), fixtures (recorded PyTorch cases), random (random calls per operation and dtype, shrunk), properties (package properties: differential on larger and strided tensors, invariants, metamorphic relations), workloads (the bench's standard workloads W1-W7, sizes divided by -workload-div, judged)")
	workloadDiv := fs.Int("workload-div", defaultWorkloadDiv, fmt.Sprintf("the workloads part divides the standard workloads' sizes by this (1: the bench's full sizes; at most %d)", workload.MaxDiv))
	checks := fs.Int("checks", defaultChecks, "random calls per operation and dtype (0: no random part)")
	seed := fs.Uint64("seed", defaultSeed, "seed of the random part (0: a fresh one, printed in the report)")
	timeout := fs.Duration("timeout", defaultTimeout, "the most one request may take before the implementation is killed (and restarted)")
	startTimeout := fs.Duration("start-timeout", protocol.DefaultStartTimeout, "the most the implementation may take to start and answer hello")
	shrink := fs.Duration("shrink-time", defaultShrinkTime, "the most time spent shrinking one random failure")
	shrinkBudget := fs.Duration("shrink-budget", defaultShrinkBudget, "the most time spent shrinking in all (once spent, failures are reported as found)")
	maxProc := fs.Int("max-process-failures", defaultMaxProcFailures, "after this many hangs, crashes or garbage answers, stop sending requests (0: never stop)")
	allowUnsup := fs.Bool("allow-unsupported", false, "count calls answered \"unsupported\" as skipped instead of failed")
	stridedCalls := fs.Bool("strided-calls", false, "send the views of the random calls and of the properties' strided draws as views (the strides extension) to an implementation that claims it, "+
		"but the calls PyTorch 2 answers by their layout (a failure's request line then carries them); without it operation requests are contiguous")
	xfail := fs.String("xfail", "", "file of expected failures: one case id or glob a line, optionally followed by like=MUTANT[,MUTANT...] (excuse only a failure that looks like one of them) and '# reason'")
	strictXfail := fs.Bool("strict-xfail", false, "an expected failure that passes (XPASS) fails the run")
	junit := fs.String("junit", "", "write a JUnit XML report to this file")
	jsonPath := fs.String("json", "", "write a JSON report to this file")
	repro := fs.String("repro-dir", "", "write each failure as a fixture folder (case.json, .npy files, repro.py) below this folder")
	verbose := fs.Bool("v", false, "print every failure in full (default: the first five)")
	deadline := fs.Duration("deadline", 0, "the most the whole run may take: then the implementation is ended and the reports hold what was judged, marked incomplete (0: no limit)")
	progress := fs.Duration("progress", defaultProgress, "off a terminal, a progress line on standard error this often (the first within 10s); on a terminal a live line (0: none)")
	shardFlag := fs.String("shard", "", "run only part i of n of the cases (i/n, 1 <= i <= n), split by case id; the n shards' -json reports joined by scattercheck merge hold the cases of one run")
	tier := fs.String("properties-tier", "default", "the tensor sizes of the properties part: short (up to 256 elements), default (4096, sizes around 32 and 256) or long (2^17, sizes around 65536)")
	return func() (*gateConfig, error) {
		cfg := &gateConfig{impl: *impl, checks: *checks, seed: *seed, timeout: *timeout, startTimeout: *startTimeout,
			shrinkTime: *shrink, shrinkBudget: *shrinkBudget, maxProcFailures: *maxProc, allowUnsupported: *allowUnsup, stridedCalls: *stridedCalls, strictXfail: *strictXfail,
			xfailPath: *xfail, junitPath: *junit, jsonPath: *jsonPath, reproDir: *repro, verbose: *verbose,
			deadline: *deadline, progress: *progress, suites: map[string]bool{}, torch: &torchNotes{}}
		var err error
		if cfg.profiles, err = parseProfiles(*profile, *impl != ""); err != nil {
			return nil, err
		}
		if cfg.level, err = scatter.ParseLevel(*level); err != nil {
			return nil, err
		}
		if cfg.ops, err = parseOps(*ops); err != nil {
			return nil, err
		}
		if *labels != "" {
			if cfg.labels = splitList(*labels); cfg.labels == nil {
				return nil, fmt.Errorf("-labels %q names no label", *labels)
			}
			if err := checkLabels(cfg.labels); err != nil {
				return nil, err
			}
		}
		if len(splitList(*suites)) == 0 {
			return nil, fmt.Errorf("-suites %q names no part (want some of %s)", *suites, strings.Join(allSuites, ", "))
		}
		for _, s := range splitList(*suites) {
			if !slices.Contains(allSuites, s) {
				return nil, fmt.Errorf("unknown suite %q (want %s)", s, strings.Join(allSuites, ", "))
			}
			cfg.suites[s] = true
		}
		if cfg.checks < 0 || cfg.timeout <= 0 || cfg.startTimeout <= 0 || cfg.maxProcFailures < 0 {
			return nil, fmt.Errorf("-checks, -timeout, -start-timeout and -max-process-failures must not be negative or zero")
		}
		if cfg.deadline < 0 || cfg.progress < 0 {
			return nil, fmt.Errorf("-deadline and -progress must not be negative")
		}
		if cfg.shard, err = parseShard(*shardFlag); err != nil {
			return nil, err
		}
		switch *tier {
		case "short":
			cfg.propTier = properties.TierShort
		case "default":
			cfg.propTier = properties.TierDefault
		case "long":
			cfg.propTier = properties.TierLong
		default:
			return nil, fmt.Errorf("unknown -properties-tier %q (want short, default or long)", *tier)
		}
		if *workloadDiv < 1 || *workloadDiv > workload.MaxDiv {
			return nil, fmt.Errorf("-workload-div %d is not in [1, %d]", *workloadDiv, workload.MaxDiv)
		}
		cfg.workloadDiv = *workloadDiv
		if cfg.seed == 0 {
			// below 2^53, so that a JSON reader that holds numbers as
			// doubles (JavaScript, jq) reads back the seed that reruns it
			cfg.seed = max(uint64(time.Now().UnixNano())%(1<<53), 1)
		}
		return cfg, nil
	}
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseProfiles(s string, impl bool) ([]scatter.Profile, error) {
	switch s {
	case "":
		if impl {
			return []scatter.Profile{scatter.Torch2}, nil
		}
		return slices.Clone(scatter.Profiles), nil
	case "all":
		return slices.Clone(scatter.Profiles), nil
	}
	p, err := scatter.ParseProfile(s)
	if err != nil {
		return nil, fmt.Errorf("unknown -profile %q (want one of %s)", s, profileNames())
	}
	return []scatter.Profile{p}, nil
}

func parseOps(s string) ([]scatter.Op, error) {
	if s == "" {
		return nil, nil
	}
	var names []string
	for _, o := range scatter.Ops {
		names = append(names, string(o))
	}
	var ops []scatter.Op
	for _, name := range splitList(s) {
		op := scatter.Op(name)
		if !slices.Contains(scatter.Ops, op) {
			return nil, fmt.Errorf("-ops: unknown operation %q (want some of %s)", name, strings.Join(names, ", "))
		}
		ops = append(ops, op)
	}
	if ops == nil {
		return nil, fmt.Errorf("-ops %q names no operation (want some of %s)", s, strings.Join(names, ", "))
	}
	return ops, nil
}

// builtins are the backends this module ships, by their -targets names
// (scattercheck bench), in the order the gate runs them.
var builtins = []struct {
	name string
	make func(scatter.Profile) scatter.Backend
}{
	{"reference", func(p scatter.Profile) scatter.Backend { return reference.New(p) }},
	{"optimized", func(p scatter.Profile) scatter.Backend { return optimized.New(p) }},
	{"optimized-deterministic", func(p scatter.Profile) scatter.Backend { return optimized.New(p, optimized.Deterministic()) }},
	// unavailable without a GPU: skipped (reported) with the reason
	{"cuda", func(p scatter.Profile) scatter.Backend { return cuda.New(p) }},
}

// builtin returns the backends this module ships, under profile p.
func builtin(p scatter.Profile) []scatter.Backend {
	bs := make([]scatter.Backend, len(builtins))
	for i, b := range builtins {
		bs[i] = b.make(p)
	}
	return bs
}

// runGate is the gate command: it runs the suite and returns the exit
// status, 0 exactly when every implementation checked conforms.
func runGate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scattercheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usage(fs, stderr) }
	parse := gateFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "scattercheck: unexpected argument %q (subcommands: oracle, export, bench)\n", fs.Arg(0))
		return 2
	}
	cfg, err := parse()
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck:", err)
		return 2
	}
	if err := checkOutputs(cfg); err != nil {
		fmt.Fprintln(stderr, "scattercheck:", err)
		return 2
	}
	var xf *xfailList
	if cfg.xfailPath != "" {
		if xf, err = loadXfail(cfg.xfailPath); err != nil {
			fmt.Fprintln(stderr, "scattercheck:", err)
			return 2
		}
		cfg.xfailDigest = xf.digest
	}

	levelGiven := false
	fs.Visit(func(f *flag.Flag) {
		levelGiven = levelGiven || f.Name == "level"
		cfg.profileGiven = cfg.profileGiven || f.Name == "profile"
	})

	// The run goes in a goroutine of its own, so that a run cut short
	// (SIGINT, SIGTERM, -deadline) still ends with its reports when a
	// case in flight does not return.
	sess := newSession(cfg, xf, stderr)
	cfg.sess = sess
	stopWatch := sess.watch()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if cfg.impl != "" {
			runImpl(cfg)
		} else {
			runBuiltins(cfg, levelGiven)
		}
	}()
	select {
	case <-done:
	case <-sess.ctx.Done():
		select {
		case <-done:
		case <-time.After(cutGrace):
		}
	}
	stopWatch()
	sess.terminateClients()
	judged, total := sess.counted()
	runs, unavailable := sess.finish()
	cut := sess.cutReason()
	if cut != "" {
		markIncomplete(runs, cut, judged, total)
	}

	notes, warnings := cfg.torch.take()
	for _, r := range runs {
		warnings = append(warnings, r.applyXfail(xf)...)
	}
	unmatched := xf.unmatched()
	warnings = append(warnings, unmatched...)
	warnings = append(warnings, unpinnedExcuses(xf, runs)...)
	var nothing []string
	if cut == "" {
		nothing = checkNothingPassed(runs, unavailable)
	}
	if cfg.reproDir != "" {
		for _, r := range runs {
			if err := r.writeRepros(cfg.reproDir); err != nil {
				warnings = append(warnings, "writing the repro folders: "+err.Error())
			}
		}
	}
	for _, r := range runs {
		r.print(stdout, cfg.verbose)
	}
	for _, n := range notes {
		fmt.Fprintln(stdout, "note:", n)
	}
	for _, w := range shownWarnings(cfg.shard, warnings, unmatched) {
		fmt.Fprintln(stdout, "warning:", w)
	}
	ok := cut == ""
	for _, r := range runs {
		ok = ok && r.conforms(cfg.strictXfail)
	}
	code := 0
	if err := writeReports(cfg, runs, warnings, ok, cut); err != nil {
		fmt.Fprintln(stderr, "scattercheck:", err)
		code = 2
	}
	switch {
	case cut != "":
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, interruptedLine(cut, judged, total, cfg))
		return 1
	case !ok:
		fmt.Fprintln(stdout)
		for _, n := range nothing {
			fmt.Fprintln(stdout, "FAIL:", n)
		}
		fmt.Fprintln(stdout, "FAIL: the implementation does not conform")
		return 1
	}
	fmt.Fprintln(stdout, "\nPASS: conforms")
	return code
}

// runBuiltins runs the suite on every built-in backend, once per profile.
func runBuiltins(cfg *gateConfig, levelGiven bool) {
	for _, p := range cfg.profiles {
		for _, b := range builtin(p) {
			if cfg.sess.stopped() {
				return
			}
			// a built-in backend is held to what it claims: strict
			// when deterministic, unless -level says otherwise
			bcfg := cfg
			if b.Info().Deterministic && !levelGiven {
				c := *cfg
				c.level = scatter.Strict
				bcfg = &c
			}
			runTarget(b, nil, bcfg, p)
		}
	}
}

// runImpl starts the implementation and runs the suite on it, once per
// profile.
func runImpl(cfg *gateConfig) []*runReport {
	opts := protocol.ClientOptions{Timeout: cfg.timeout, StartTimeout: cfg.startTimeout, Context: cfg.sess.context()}
	if cfg.stridedCalls {
		opts.CallViews = reference.LayoutFree
	}
	t0 := time.Now()
	client, err := protocol.NewClient(cfg.impl, opts)
	if err != nil {
		var runs []*runReport
		for _, p := range cfg.profiles {
			r := newRunReport(cfg, p, implInfo{Command: cfg.impl, Name: notStarted})
			cfg.sess.addRun(r, false)
			cr := &caseResult{ID: "gate/start", Source: "gate", Status: stFail, Origin: "PROTOCOL.md, Handshake",
				Failure: &failure{Kind: protocol.KindStart, Summary: firstLine(err.Error()), Report: err.Error()}}
			var pe *protocol.ProcessError
			if errors.As(err, &pe) {
				cr.Failure.Stderr = tail(pe.Stderr, 40)
			}
			cfg.sess.add(r, cr)
			cfg.sess.update(r, func(r *runReport) { r.Duration = time.Since(t0) })
			runs = append(runs, r)
		}
		return runs
	}
	cfg.sess.addClient(client)
	defer client.Close()
	cfg.profiles = torchProfiles(client.Info(), cfg.profiles, cfg.profileGiven, cfg.torch)
	var runs []*runReport
	for _, p := range cfg.profiles {
		if cfg.sess.stopped() {
			break
		}
		runs = append(runs, runTarget(client, client, cfg, p))
	}
	return runs
}

// maxHistories is how many process failures of a run keep the requests
// their process was sent (protocol.ProcessError.History, at most about
// 16 MiB each), for -repro-dir's history.jsonl.
const maxHistories = 10

// errGaveUp is the answer of a guarded backend that has stopped sending
// requests after too many process failures.
var errGaveUp = errors.New("not run: the gate stopped sending requests after too many hangs, crashes or garbage answers (-max-process-failures)")

// guarded is the implementation as the gate drives it: it records the
// outcome of the last call, counts process failures, and after too many
// answers errGaveUp without sending anything. Its Info is the
// implementation's, without the deterministic claim unless the gate
// judges at the strict level: -level is what the user asks for.
type guarded struct {
	inner    scatter.Backend
	info     scatter.Info
	maxProc  int
	procFail int
	gaveUp   bool
	sess     *session // counts the requests; once the run is cut short, nothing is sent

	lastRes scatter.Result
	lastErr error
	ran     bool
	known   knownCrashes // torch's own known crashes

	// declined is the first call answered unsupported since
	// firstDecline was last called, and its answer (the properties
	// part's failure shows it).
	declined    scatter.Call
	declinedErr error

	// failed holds the run's first process failures (maxHistories), by a
	// digest of the request line that failed (sentKey): a property's
	// failure, which the properties report as text, finds its error there
	// (the requests before it, for -repro-dir's history.jsonl, and its
	// message); and a call that timed out, asked again (rapid replays a
	// failing case while it shrinks and to report it), is answered that
	// timeout without being sent, so that a hang costs one timeout, not
	// one per replay.
	failed map[[sha256.Size]byte]error
	// timedOut counts the timeouts in failed: Run looks a call up only
	// when there is one (a lookup encodes the call once more)
	timedOut int
}

func (g *guarded) Info() scatter.Info { return g.info }

func (g *guarded) Run(c scatter.Call) (scatter.Result, error) {
	g.ran = true
	if g.sess.stopped() {
		g.lastRes, g.lastErr = scatter.Result{}, errInterrupted
		return g.lastRes, g.lastErr
	}
	if g.gaveUp {
		g.lastRes, g.lastErr = scatter.Result{}, errGaveUp
		return g.lastRes, g.lastErr
	}
	if g.timedOut > 0 {
		if err := g.processErr(c); processKind(err) == protocol.KindTimeout {
			g.lastRes, g.lastErr = scatter.Result{}, err
			return g.lastRes, g.lastErr
		}
	}
	g.sess.countRequest()
	res, err := g.inner.Run(c)
	err = cleanErr(err) // the implementation's text is data
	g.lastRes, g.lastErr = res, err
	if g.declined == nil && scatter.CodeOf(err) == scatter.ErrNotSupported {
		g.declined, g.declinedErr = cloneCall(c), err
	}
	known := g.known.saw(c, err) // torch's own known crash: not a process failure
	var pe *protocol.ProcessError
	if errors.As(err, &pe) && g.procFail >= maxHistories {
		pe.History = nil // the gate's memory stays bounded, whatever -max-process-failures says
	}
	if pe != nil && !known {
		g.procFail++
		if g.maxProc > 0 && g.procFail >= g.maxProc {
			g.gaveUp = true
		}
		if key, ok := g.sentKey(c); ok && len(g.failed) < maxHistories && g.failed[key] == nil {
			// the first failure of a call stays (a crash replayed is sent
			// again, and its history would be the restarted process's)
			if g.failed == nil {
				g.failed = map[[sha256.Size]byte]error{}
			}
			g.failed[key] = err
			if pe.Kind == protocol.KindTimeout {
				g.timedOut++
			}
		}
	}
	return res, err
}

// sentKey is the digest of the request line that sends c (its views as
// views where the implementation gets them so, protocol.Client.SendsViews),
// and whether c has one: a call that does not encode, or of more than
// maxKeyedElements elements (a workload's, whose line is hundreds of MB),
// has none.
func (g *guarded) sentKey(c scatter.Call) ([sha256.Size]byte, bool) {
	if callElements(c) > maxKeyedElements {
		return [sha256.Size]byte{}, false
	}
	views := false
	if cl, ok := g.inner.(*protocol.Client); ok {
		views = cl.SendsViews(c)
	}
	line, err := protocol.EncodeOptions{Strides: views}.EncodeCall(0, c)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(line), true
}

// callElements is the number of elements of c's tensors, together.
func callElements(c scatter.Call) int {
	n := 0
	for _, t := range c.Tensors() {
		n += t.NumEl()
	}
	return n
}

// maxKeyedElements bounds the calls sentKey encodes once more (only after
// a process failure): the properties' largest (the long tier's 2^17
// elements a tensor) are within it.
const maxKeyedElements = 1 << 20

// processErr returns the process failure the implementation answered c
// with (kept in failed), or nil.
func (g *guarded) processErr(c scatter.Call) error {
	if len(g.failed) == 0 {
		return nil
	}
	if key, ok := g.sentKey(c); ok {
		return g.failed[key]
	}
	return nil
}

func (g *guarded) reset() { g.lastRes, g.lastErr, g.ran = scatter.Result{}, nil, false }

// firstDecline returns the first call answered unsupported since the last
// call of firstDecline (nil if none), and its answer, and forgets it.
func (g *guarded) firstDecline() (scatter.Call, error) {
	c, err := g.declined, g.declinedErr
	g.declined, g.declinedErr = nil, nil
	return c, err
}

// gaveUpCases folds the cases a guarded backend did not run after it gave
// up (answered errGaveUp, failure kind "gave-up") into skips, and keeps the
// process failures that made it give up, so that the run fails once, with
// them, instead of once per case not run (and a repro of each, for calls
// never sent).
type gaveUpCases struct {
	notRun   int
	failures []string // "ID: summary" of each process failure
}

// fold turns a gave-up case into a skip, and notes a process failure.
func (gu *gaveUpCases) fold(cr *caseResult) {
	if cr.Status != stFail || cr.Failure == nil {
		return
	}
	switch cr.Failure.Kind {
	case "gave-up":
		gu.notRun++
		cr.Status, cr.Reason, cr.Failure, cr.Note = stSkip, errGaveUp.Error(), nil, ""
	case "timeout", "crash", "garbage", "closed":
		gu.failures = append(gu.failures, cr.ID+": "+cr.Failure.Summary)
	}
}

// verdict is the failing case "gate/gave-up" of a run whose backend gave up
// after n process failures.
func (gu *gaveUpCases) verdict(n int) *caseResult {
	msg := fmt.Sprintf("the gate stopped sending requests after %d hangs, crashes or garbage answers (-max-process-failures); %d cases were not run", n, gu.notRun)
	report := msg + ". The process failures:\n  " + strings.Join(gu.failures, "\n  ")
	return &caseResult{ID: "gate/gave-up", Source: "gate", Status: stFail,
		Origin:  "the gate: a run passes only when every case it planned ran",
		Failure: &failure{Kind: "gave-up", Summary: msg, Report: report}}
}

// processKind names a process failure: the ProcessError's kind, or
// "gave-up".
func processKind(err error) string {
	var pe *protocol.ProcessError
	if errors.As(err, &pe) {
		return pe.Kind
	}
	if errors.Is(err, errGaveUp) {
		return "gave-up"
	}
	return ""
}

// runTarget runs the suite on backend b (client is b when b is an outside
// process) under profile p.
func runTarget(b scatter.Backend, client *protocol.Client, cfg *gateConfig, p scatter.Profile) *runReport {
	t0 := time.Now()
	info := b.Info()
	g := &guarded{inner: b, info: info, maxProc: cfg.maxProcFailures, sess: cfg.sess}
	g.info.Name, g.info.Version = cleanLine(info.Name, maxNameLen), cleanLine(info.Version, maxNameLen)
	if isTorch(info) {
		g.known.version = info.Version
	}
	if cfg.level != scatter.Strict {
		g.info.Deterministic = false
	}
	if cfg.ops != nil {
		// -ops narrows what the parts draw: the properties' invariants
		// pick among the claimed operations. None in common is an empty
		// claim, not a nil one (which claims every operation).
		ops := []scatter.Op{}
		for _, op := range cfg.ops {
			if info.Ops == nil || slices.Contains(info.Ops, op) {
				ops = append(ops, op)
			}
		}
		g.info.Ops = ops
	}
	ii := implInfo{Name: info.Name, Version: info.Version, Command: cfg.impl, Deterministic: info.Deterministic,
		Builtin: client == nil, Strides: client != nil && client.Extensions().Strides}
	for _, op := range info.Ops {
		ii.Ops = append(ii.Ops, string(op))
	}
	if info.Ops == nil {
		ii.Ops = []string{"(all)"}
	}
	for _, dt := range info.DTypes {
		ii.DTypes = append(ii.DTypes, dt.String())
	}
	if info.DTypes == nil {
		ii.DTypes = []string{"(all)"}
	}
	r := newRunReport(cfg, p, cleanInfo(ii))
	viewCalls := 0
	if client != nil {
		r.views, viewCalls = client.SendsViews, client.ViewCalls()
	}
	if info.Deterministic && cfg.level != scatter.Strict {
		r.Notes = append(r.Notes, "the implementation claims to be deterministic; this run judges it at the conformant level as asked (-level strict holds it to bit-exactness)")
	}
	cfg.sess.addRun(r, info.Unavailable != "")
	var gaveUp gaveUpCases
	emit := func(cr *caseResult) {
		g.known.excuse(cr)
		gaveUp.fold(cr)
		cfg.sess.add(r, cr)
	}
	target := spec.Target{Backend: g, Profile: p, Level: cfg.level}

	if cfg.suites[suiteSpec] || cfg.suites[suiteFixtures] {
		for _, c := range spec.Cases() {
			if cfg.sess.stopped() {
				break
			}
			src := caseSource(c)
			if !cfg.suites[src] || !cfg.wantOp(c.Call.Op()) || !cfg.wantLabels(c.Labels) || !cfg.shard.has(specCaseID(c, src)) {
				continue
			}
			emit(runSpecCase(target, g, c, src, cfg))
		}
	}
	if cfg.suites[suiteRandom] && cfg.checks > 0 && !cfg.sess.stopped() {
		runRandomPart(g, info, cfg, p, emit)
	}
	if cfg.suites[suiteProperties] && cfg.checks > 0 && !cfg.sess.stopped() {
		for _, cr := range runPropertiesPart(g, cfg, p) {
			emit(cr)
		}
	}
	if cfg.suites[suiteWorkloads] && !cfg.sess.stopped() {
		runWorkloadsPart(target, g, cfg, emit)
	}
	if g.gaveUp {
		cfg.sess.add(r, gaveUp.verdict(g.procFail))
	}
	cfg.sess.update(r, func(r *runReport) {
		if client != nil {
			r.Restarts = client.Restarts()
			r.StderrTail = cleanText(client.Stderr(), maxStderrLine)
			if cfg.stridedCalls {
				r.Notes = append(r.Notes, stridedCallsNote(client, viewCalls))
			}
		}
		r.Duration = time.Since(t0)
	})
	return r
}

// stridedCallsNote says what -strided-calls did in a run that began when
// client had sent before operation requests with views: how many it sent,
// or that the implementation does not claim the strides extension, so
// that none went (a run that checked no view does not look as if it had).
func stridedCallsNote(client *protocol.Client, before int) string {
	if !client.Extensions().Strides {
		return `-strided-calls: the implementation does not claim the strides extension (its hello has no "strides": true), so every operation request went contiguous`
	}
	return fmt.Sprintf("-strided-calls: %d operation requests carried views", client.ViewCalls()-before)
}

// shrinkFor is the shrink time of the next failure: -shrink-time, within
// what is left of -shrink-budget.
func (cfg *gateConfig) shrinkFor() time.Duration {
	return max(0, min(cfg.shrinkTime, cfg.shrinkBudget))
}

func (cfg *gateConfig) spendShrink(d time.Duration) { cfg.shrinkBudget -= d }

func (cfg *gateConfig) wantOp(op scatter.Op) bool {
	return cfg.ops == nil || slices.Contains(cfg.ops, op)
}

func (cfg *gateConfig) wantLabels(labels []string) bool {
	return cfg.labels == nil || slices.ContainsFunc(labels, func(l string) bool { return slices.Contains(cfg.labels, l) })
}

// caseSource says whether a spec case is a recorded fixture (which
// package spec may hand out among its cases) or one of the spec's own.
func caseSource(c spec.Case) string {
	if slices.Contains(c.Labels, "fixture") || strings.HasPrefix(c.Source, "fixture") ||
		strings.HasPrefix(c.Name, "fixture/") || strings.HasPrefix(c.Name, "fixtures/") {
		return suiteFixtures
	}
	return suiteSpec
}

// specCaseID is the case id of a spec case or fixture.
func specCaseID(c spec.Case, src string) string {
	id := c.Name
	if src == suiteSpec {
		id = "spec/" + c.Name
	} else if !strings.HasPrefix(id, "fixture") {
		id = "fixture/" + c.Name
	}
	return id
}

// runSpecCase runs one spec (or fixture) case through spec.CheckCase.
func runSpecCase(t spec.Target, g *guarded, c spec.Case, src string, cfg *gateConfig) *caseResult {
	cr := &caseResult{ID: specCaseID(c, src), Source: src, Origin: c.Source, Op: c.Call.Op(), DType: caseDType(c.Call),
		Features: features(c.Labels)}
	if reason := t.SkipReason(c); reason != "" {
		cr.Status, cr.Reason = stSkip, reason
		return cr
	}
	g.reset()
	t0 := time.Now()
	err := spec.CheckCase(t, c)
	cr.Seconds = time.Since(t0).Seconds()
	if err == nil {
		cr.Status, cr.ErrorsOnly = stPass, c.WantErr != 0
		return cr
	}
	f := &failure{Report: err.Error(), call: c.Call, res: g.lastRes, err: g.lastErr, profile: t.Profile,
		level: t.JudgeLevel()}
	var sf *spec.Failure
	var problems []string
	if errors.As(err, &sf) {
		problems = sf.Problems
	}
	f.Kind = classify(problems, g)
	f.Summary = summarize(f, problems)
	cr.fail(f, cfg.allowUnsupported)
	return cr
}

// fail sets f as the case's failure: status fail, or unsupported for a
// claimed call answered unsupported (skipped as not offered when
// allowUnsupported), with the implementation's stderr tail when a process
// failure carries one.
func (cr *caseResult) fail(f *failure, allowUnsupported bool) {
	var pe *protocol.ProcessError
	if errors.As(f.err, &pe) {
		f.Stderr = tail(pe.Stderr, 40)
	}
	cr.Failure, cr.Status = f, stFail
	if f.Kind == "unsupported" {
		cr.Status = stUnsup
		if allowUnsupported {
			cr.Status, cr.Reason = stSkip, notOffered+unsupportedMessage(f.err)
		}
	}
}

// classify names what went wrong in a failed spec case.
func classify(problems []string, g *guarded) string {
	if k := processKind(g.lastErr); k != "" {
		return k
	}
	for _, p := range problems {
		switch {
		case strings.HasPrefix(p, "the backend panicked"):
			return "panic"
		case strings.HasPrefix(p, "the backend answered unsupported"):
			return "unsupported"
		case strings.HasPrefix(p, "the backend modified its input"):
			return "modified-inputs"
		}
	}
	if len(problems) > 0 && !slices.ContainsFunc(problems, func(p string) bool {
		return !strings.HasPrefix(p, "the oracle rejects the recorded outcome")
	}) {
		// Only the oracle disagrees with the recorded truth: the suite's
		// own problem, not the implementation's.
		return "suite"
	}
	return "mismatch"
}

func unsupportedMessage(err error) string {
	var e *scatter.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// summarize writes a failure in one line: the judge's reason and first
// offending element, or the process failure.
func summarize(f *failure, problems []string) string {
	switch f.Kind {
	case "timeout", "crash", "garbage", "start", "closed", "gave-up":
		var pe *protocol.ProcessError
		if errors.As(f.err, &pe) {
			s := fmt.Sprintf("%s on request %d (%s): %s", pe.Kind, pe.ID, pe.Op, pe.Detail)
			if last := lastStderrLine(pe.Stderr); last != "" {
				s += "; stderr: " + last
			}
			return s
		}
		if f.err != nil {
			return f.Kind + ": " + firstLine(f.err.Error())
		}
	case "unsupported":
		return "answered unsupported: " + unsupportedMessage(f.err)
	case "mismatch":
		if f.call != nil {
			jerr := reference.Expect(cloneCall(f.call), f.profile).Check(f.level, f.res, f.err)
			var m *reference.Mismatch
			if errors.As(jerr, &m) {
				s := m.Reason
				if len(m.Elements) > 0 {
					s += "; " + firstLine(m.Elements[0].String()) // without its from: line
				}
				return s
			}
		}
	}
	if len(problems) > 0 {
		return firstLines(problems[0], 3)
	}
	return firstLine(f.Report)
}

// firstLines joins the first n non-empty lines of s, clipped.
func firstLines(s string, n int) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && len(parts) < n {
			parts = append(parts, l)
		}
	}
	out := strings.Join(parts, " ")
	if len(out) > 300 {
		out = out[:300] + "..."
	}
	return out
}

// runRandomPart runs the random calls for every operation and dtype, and
// hands each pair's case to emit once judged.
func runRandomPart(g *guarded, info scatter.Info, cfg *gateConfig, p scatter.Profile, emit func(*caseResult)) {
	opts := randomOpts{checks: cfg.checks, seed: cfg.seed, allowUnsup: cfg.allowUnsupported}
	for _, op := range scatter.Ops {
		if !cfg.wantOp(op) {
			continue
		}
		var claimed []scatter.DType
		for _, dt := range scatter.DTypes {
			if info.Claims(op, dt) {
				claimed = append(claimed, dt)
			}
		}
		for _, dt := range scatter.DTypes {
			if cfg.sess.stopped() {
				return
			}
			if !cfg.shard.has(randomCaseID(op, dt)) {
				continue
			}
			emit(randomCase(g, info, cfg, p, op, dt, claimed, &opts))
		}
	}
}

// randomCase runs the random calls of one operation and dtype.
func randomCase(g *guarded, info scatter.Info, cfg *gateConfig, p scatter.Profile, op scatter.Op, dt scatter.DType,
	claimed []scatter.DType, opts *randomOpts) *caseResult {
	cr := &caseResult{ID: randomCaseID(op, dt), Source: suiteRandom, Op: op, DType: dt,
		Features: []string{"random"}, Origin: "random calls (callgen), judged by reference.Expect"}
	switch {
	case info.Unavailable != "":
		cr.Status, cr.Reason = stSkip, fmt.Sprintf("backend %s is unavailable: %s", info.Name, info.Unavailable)
		return cr
	case info.Ops != nil && !slices.Contains(info.Ops, op):
		cr.Status, cr.Reason = stSkip, fmt.Sprintf("backend %s does not claim %s", info.Name, op)
		return cr
	case !slices.Contains(claimed, dt):
		cr.Status, cr.Reason = stSkip, fmt.Sprintf("backend %s does not claim %s on %v", info.Name, op, dt)
		return cr
	}
	others := slices.DeleteFunc(slices.Clone(claimed), func(x scatter.DType) bool { return x == dt })
	opts.shrinkTime = cfg.shrinkFor()
	t0 := time.Now()
	ro := runRandom(g, p, cfg.level, op, dt, others, *opts)
	cr.Seconds = time.Since(t0).Seconds()
	if ro.fail != nil {
		cfg.spendShrink(ro.shrinkSpent)
	}
	cr.Checks, cr.Seed = ro.checks, ro.seed
	cr.Note = ro.rapidNote
	if ro.unsupported > 0 {
		cr.Note = strings.TrimPrefix(cr.Note+fmt.Sprintf("; %d of %d calls answered unsupported (%s)", ro.unsupported, ro.checks, unsupportedCounts(cfg.allowUnsupported)), "; ")
	}
	if ro.fail == nil {
		cr.Status = stPass
		switch {
		case ro.checks > 0 && ro.unsupported == ro.checks:
			// nothing was judged: not a pass (checkNothingPassed counts on it)
			cr.Status, cr.Reason = stSkip, declinedRandom
		case ro.unsupported > 0 && ro.resultsSeen == 0:
			// only argument checks were judged: every call that should
			// succeed was declined, so the operation is not offered
			cr.Status, cr.Reason = stSkip, fmt.Sprintf(declinedResultsRandom, ro.checks-ro.unsupported)
		}
		return cr
	}
	rf := ro.fail
	f := &failure{Kind: rf.kind, Report: rf.report, call: rf.call, res: rf.res, err: rf.err, profile: p,
		level: cfg.level, Shrunk: rf.shrunk, Seed: ro.seed}
	f.Summary = summarize(f, []string{rf.report})
	cr.fail(f, false) // the random part counts declines itself (-allow-unsupported)
	return cr
}

// unsupportedCounts says how unsupported answers to claimed calls count.
func unsupportedCounts(allowed bool) string {
	if allowed {
		return "declined, as -allow-unsupported asks"
	}
	return "each a failure: the calls are of operations and dtypes the implementation claims"
}

// declinedRandom is the reason of a random case whose every call was
// answered unsupported, declinedResultsRandom (with the count of calls
// judged) of one whose every call that should succeed was, and
// declinedProperty the start of a property's.
const (
	notOffered            = "not offered: "
	declinedRandom        = "every call was answered unsupported (not offered)"
	declinedResultsPrefix = "every call that should succeed was answered unsupported"
	declinedResultsRandom = declinedResultsPrefix + " (not offered): only the %d calls that must fail were judged"
	declinedProperty      = properties.UnjudgedPrefix
	declinedEvery         = properties.UnjudgedAll // ends declinedProperty's reason when all were
)

// randomCaseID is the case id of the random calls of one operation and
// dtype.
func randomCaseID(op scatter.Op, dt scatter.DType) string { return fmt.Sprintf("random/%s/%s", op, dt) }

// caseDType is the dtype a call is filed under: that of its first data
// tensor (self, input, src or source).
func caseDType(c scatter.Call) scatter.DType {
	ts := c.Tensors()
	for _, name := range []string{"self", "input", "src", "source"} {
		if t, ok := ts[name]; ok {
			return t.DType()
		}
	}
	return scatter.DTInvalid
}

// features are the labels that name a feature, not an operation, a dtype
// or a side of a rule pair.
func features(labels []string) []string {
	var fs []string
	for _, l := range labels {
		if _, err := scatter.ParseDType(l); err == nil {
			continue
		}
		if slices.Contains(scatter.Ops, scatter.Op(l)) || l == "rule-keeps" || l == "rule-breaks" {
			continue
		}
		fs = append(fs, l)
	}
	return fs
}

// lastStderrLine is the last line of an implementation's stderr that is
// its own (not a note of protocol.Client's).
func lastStderrLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "--- protocol.Client:") {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			return l
		}
	}
	return ""
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
