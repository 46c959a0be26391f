package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/workload"
)

// scattercheck bench: the standard workloads (package workload) timed on
// any target, side by side in one run: the built-in backends in process,
// outside implementations through the protocol's bench request (timed
// inside the implementation, so no transfer is counted), with a memory
// copy measured in the same run as the ceiling, and the peak RSS of each
// target on each workload (rss.go). The report (benchreport.go) is a
// table, a -json file or Go benchmark lines (bench_benchstat.go);
// -compare (compare.go) shows the change since an earlier -json file.

// benchConfig is the command line of scattercheck bench.
type benchConfig struct {
	builtins     []string // names of built-in targets, in order
	impls        []string // commands of outside implementations, in order
	workloads    []int
	repeat       int
	warmup       int
	profile      scatter.Profile
	scale        int
	jsonPath     string
	format       string  // "table" or "benchstat"
	compare      string  // -compare OLD.json
	failSlower   float64 // -fail-slower PCT: exit 1 when a target is slower by more (negative: never)
	timeout      time.Duration
	startTimeout time.Duration
	// ctx, when done (SIGINT, SIGTERM, SIGHUP), cuts the run short:
	// what was timed is reported, marked incomplete (nil: never)
	ctx context.Context
}

// Defaults and bounds of the bench's flags.
const (
	defaultBenchRepeat = 10
	// defaultBenchWarmup: on the project's machine the first few calls on
	// fresh workload data run up to twice as slow, for every target alike
	// (W1: 16 ms for about six calls, then 8 ms), so each pass starts
	// with untimed calls.
	defaultBenchWarmup  = 3
	defaultBenchTimeout = 10 * time.Minute
	// refMinScale is the smallest -scale at which the reference may be a
	// target: at full size it takes seconds a call (BenchmarkReference*
	// of optimized/ time it at 100 too).
	refMinScale = 100
	// memcpyBytes is the size of the memory copy at full scale, as
	// BenchmarkMemcpy copies it.
	memcpyBytes = 256 << 20
	// memcpyMinBytes bounds the memory copy's size from below at high
	// -scale.
	memcpyMinBytes = 64 << 10
)

// builtinNames are the -targets names of the built-in backends, in the
// order of builtins.
var builtinNames = func() []string {
	ns := make([]string, len(builtins))
	for i, b := range builtins {
		ns[i] = b.name
	}
	return ns
}()

// builtinNamed returns the built-in backend called name (one of
// builtinNames) under profile p, or nil.
func builtinNamed(name string, p scatter.Profile) scatter.Backend {
	for _, b := range builtins {
		if b.name == name {
			return b.make(p)
		}
	}
	return nil
}

// shQuote quotes a command for the report, as a shell would take it.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, " ") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

func benchFlags(fs *flag.FlagSet) func() (*benchConfig, error) {
	targets := fs.String("targets", "optimized", "built-in backends to time, comma-separated: "+strings.Join(builtinNames, ", ")+"; none for only -impl")
	var impls stringList
	fs.Var(&impls, "impl", "an outside implementation to time: sh -c CMD speaking the protocol, timed by its bench request (repeatable)")
	wls := fs.String("workloads", "all", "the workloads, comma-separated: W1 to W7, or all")
	repeat := fs.Int("repeat", defaultBenchRepeat, "timed calls per target and workload (after -warmup untimed calls per pass); the table shows their median and minimum")
	warmup := fs.Int("warmup", defaultBenchWarmup, "untimed calls before each pass's timed calls, per target and workload")
	profile := fs.String("profile", "torch-2", "the behaviour of the built-in backends: torch-2, torch-2.8, torch-2.6 or torch-1.13 (only W7's bfloat16 sums differ: torch-1.13 rounds per step, as PyTorch 1.13 does)")
	scale := fs.Int("scale", 1, fmt.Sprintf("divide every workload's sizes (and the memory copy) by this; the reference needs %d or more", refMinScale))
	jsonPath := fs.String("json", "", "write the results as JSON to this file")
	format := fs.String("format", "table", "the output: table, or benchstat (the samples as Go benchmark lines, for benchstat)")
	compare := fs.String("compare", "", "OLD.json: show the change since this -json file of an earlier run (with a second file NEW.json as argument: compare the two files, run nothing)")
	failSlower := fs.Float64("fail-slower", -1, "with -compare: exit 1 when a target is slower than in OLD by more than this many percent, beyond the noise (p < 0.05)")
	timeout := fs.Duration("timeout", defaultBenchTimeout, "the most one bench request to an -impl may take, transfer included")
	startTimeout := fs.Duration("start-timeout", protocol.DefaultStartTimeout, "the most an -impl may take to start and answer hello")
	return func() (*benchConfig, error) {
		cfg := &benchConfig{impls: impls, repeat: *repeat, warmup: *warmup, scale: *scale, jsonPath: *jsonPath,
			format: *format, compare: *compare, failSlower: *failSlower, timeout: *timeout, startTimeout: *startTimeout}
		var err error
		if cfg.profile, err = scatter.ParseProfile(*profile); err != nil {
			return nil, err
		}
		if *targets != "none" {
			for _, name := range splitList(*targets) {
				if !slices.Contains(builtinNames, name) {
					return nil, fmt.Errorf("unknown target %q (want some of %s, or none)", name, strings.Join(builtinNames, ", "))
				}
				if slices.Contains(cfg.builtins, name) {
					return nil, fmt.Errorf("target %q given twice", name)
				}
				cfg.builtins = append(cfg.builtins, name)
			}
		}
		if len(cfg.builtins)+len(cfg.impls) == 0 {
			return nil, fmt.Errorf("nothing to time: give -targets or -impl")
		}
		if *wls == "all" || *wls == "" {
			for w := 1; w <= workload.Count; w++ {
				cfg.workloads = append(cfg.workloads, w)
			}
		} else {
			for _, s := range splitList(*wls) {
				w, err := workload.Parse(s)
				if err != nil {
					return nil, errors.New(msgOf(err))
				}
				if !slices.Contains(cfg.workloads, w) {
					cfg.workloads = append(cfg.workloads, w)
				}
			}
		}
		switch {
		case cfg.format != "table" && cfg.format != "benchstat":
			return nil, fmt.Errorf("-format must be table or benchstat, not %q", cfg.format)
		case cfg.failSlower >= 0 && cfg.compare == "":
			return nil, fmt.Errorf("-fail-slower goes with -compare OLD.json")
		case cfg.format == "benchstat" && cfg.compare != "":
			return nil, fmt.Errorf("-format benchstat does not go with -compare: give benchstat the two runs written with -format benchstat")
		case len(cfg.workloads) == 0:
			return nil, fmt.Errorf("no workload in -workloads %q", *wls)
		case cfg.repeat < 1:
			return nil, fmt.Errorf("-repeat must be at least 1")
		case cfg.warmup < 1:
			return nil, fmt.Errorf("-warmup must be at least 1")
		case cfg.scale < 1 || cfg.scale > workload.MaxDiv:
			return nil, fmt.Errorf("-scale must be in [1, %d]", workload.MaxDiv)
		case cfg.timeout <= 0 || cfg.startTimeout <= 0:
			return nil, fmt.Errorf("-timeout and -start-timeout must be positive")
		case slices.Contains(cfg.builtins, "reference") && cfg.scale < refMinScale:
			return nil, fmt.Errorf("the reference takes seconds a call at full size: time it on scaled-down workloads, -scale %d or more (every target then runs the same scaled workloads)", refMinScale)
		}
		return cfg, nil
	}
}

// msgOf returns the message of a *scatter.Error, or err's text.
func msgOf(err error) string {
	var e *scatter.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// runBench is scattercheck bench: it returns 0 when every target timed
// or declined every workload and one timed at least one, 1 when a target
// failed one or nothing was timed, 2 for a usage
// error. With -compare OLD.json NEW.json it compares the files and runs
// nothing (0; 1 with -fail-slower for a slower or broken NEW; 2 when a
// file cannot be read).
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scattercheck bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { benchUsage(fs, stderr) }
	parse := benchFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := parse()
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck bench:", err)
		return 2
	}
	switch {
	case fs.NArg() == 1 && cfg.compare != "":
		return compareFiles(fs, cfg.compare, fs.Arg(0), cfg.failSlower, stdout, stderr)
	case fs.NArg() > 1 && cfg.compare != "":
		fmt.Fprintf(stderr, "scattercheck bench: unexpected argument %q (-compare OLD.json takes one NEW.json, %q)\n", fs.Arg(1), fs.Arg(0))
		return 2
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "scattercheck bench: unexpected argument %q (a second file goes with -compare OLD.json)\n", fs.Arg(0))
		return 2
	}
	var old *benchReport
	if cfg.compare != "" {
		if old, err = loadBench(cfg.compare); err != nil {
			fmt.Fprintln(stderr, "scattercheck bench: -compare:", err)
			return 2
		}
	}
	ctx, stop := cutContext(context.Background())
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the process, as without the bench's handler
	}()
	cfg.ctx = ctx
	rep := runBenchConfig(cfg, stderr)
	if cfg.format == "benchstat" {
		rep.writeBenchstat(stdout)
	} else {
		rep.print(stdout)
	}
	slower := false
	if old != nil {
		fmt.Fprintln(stdout)
		printCompare(stdout, cfg.compare, old, orDefault(cfg.jsonPath, "this run"), rep)
		slower = failSlower(stdout, cfg.failSlower, old, rep)
	}
	warnTo := stdout
	if cfg.format == "benchstat" {
		warnTo = stderr // benchstat's input stays benchmark lines
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(warnTo, "warning:", w)
	}
	code := 0
	if rep.Incomplete != "" {
		fmt.Fprintf(warnTo, "INCOMPLETE: %s: %d of %d workloads timed, reported above\n", rep.Incomplete, len(rep.Workloads), len(cfg.workloads))
		code = 1
	} else if !rep.OK {
		if cfg.format == "benchstat" {
			for _, w := range rep.Workloads {
				for _, res := range w.Results {
					if res.Status == benchFailed {
						fmt.Fprintf(stderr, "scattercheck bench: %s, %s failed: %s\n", w.ID, res.Label, res.Reason)
					}
				}
			}
			fmt.Fprintln(stderr, "scattercheck bench: FAIL:", rep.failText())
		} else {
			fmt.Fprintln(stdout, "\nFAIL:", rep.failText())
		}
		code = 1
	}
	if cfg.jsonPath != "" {
		if err := rep.writeJSON(cfg.jsonPath); err != nil {
			fmt.Fprintln(stderr, "scattercheck bench:", err)
			return 2
		}
	}
	if slower {
		code = 1
	}
	return code
}

// failSlower reports whether NEW fails -fail-slower pct against OLD, and
// says why: a target slower than in OLD by more than pct percent, beyond
// the noise; NEW cut short or with a failed target; a target timed in OLD
// that NEW did not time; or nothing timed in both. pct < 0: never.
func failSlower(w io.Writer, pct float64, old, cur *benchReport) bool {
	if pct < 0 {
		return false
	}
	var why []string
	if cur.Incomplete != "" {
		why = append(why, "NEW was cut short: "+cur.Incomplete)
	} else if !cur.OK {
		why = append(why, "NEW: "+cur.failText())
	}
	compared := 0
	for _, d := range compareBench(old, cur) {
		switch {
		case d.timed():
			compared++
			if d.significant() && d.Ratio > 1+pct/100 {
				why = append(why, fmt.Sprintf("%s %s %+.1f%%", d.Workload, d.Label, 100*(d.Ratio-1)))
			}
		case d.Old != nil && d.Old.Status == benchOK:
			why = append(why, fmt.Sprintf("%s %s timed in OLD, not in NEW (%s)", d.Workload, d.Label, whyNotCompared(d)))
		}
	}
	if compared == 0 {
		why = append(why, "nothing timed in both runs")
	}
	if len(why) == 0 {
		return false
	}
	fmt.Fprintf(w, "\nFAIL: -fail-slower %g%%: %s\n", pct, strings.Join(why, "; "))
	return true
}

// compareFiles is scattercheck bench -compare OLD.json NEW.json: no flag
// that shapes a run may come with it.
func compareFiles(fs *flag.FlagSet, oldPath, newPath string, failPct float64, stdout, stderr io.Writer) int {
	var extra []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "compare" && f.Name != "fail-slower" {
			extra = append(extra, "-"+f.Name)
		}
	})
	if len(extra) > 0 {
		fmt.Fprintf(stderr, "scattercheck bench: -compare OLD.json NEW.json runs nothing: %s has no effect there\n", strings.Join(extra, ", "))
		return 2
	}
	old, err := loadBench(oldPath)
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck bench: -compare:", err)
		return 2
	}
	cur, err := loadBench(newPath)
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck bench: -compare:", err)
		return 2
	}
	printCompare(stdout, oldPath, old, newPath, cur)
	if failSlower(stdout, failPct, old, cur) {
		return 1
	}
	return 0
}

func benchUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `usage: scattercheck bench [flags]

Times the standard workloads W1-W7 (PERFORMANCE.md, package workload) on
each target side by side: built-in backends in process, outside
implementations through the protocol's bench request (timed inside the
implementation). Prints, per workload and target, the median and minimum
time, GB/s, the fraction of a memory copy measured in the same run, the
peak RSS, and the ratio to every other target. An outside implementation
is labelled by the name and version of its hello. With -compare OLD.json,
also the change since an earlier run's -json file (a Mann-Whitney U test
tells it from noise); -compare OLD.json NEW.json compares two files and
runs nothing. Exit status: 0, 1 when a target failed a workload, 2 for a
usage error.

  scattercheck bench -targets optimized -impl '/usr/bin/python3 tools/adapters/torch_adapter.py'
  scattercheck bench -targets reference,optimized -scale 100 -workloads W1,W2 -json bench.json
  scattercheck bench -json new.json -compare old.json
  scattercheck bench -compare old.json new.json
  scattercheck bench -format benchstat > new.txt; benchstat old.txt new.txt

flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// benchTarget is one target of the run.
type benchTarget struct {
	// Label names the target in the table, the JSON and -compare: a
	// built-in's name, or an implementation's name and version from its
	// hello (implLabel), with " #2", " #3"... when another target has the
	// label already.
	Label    string `json:"label"`
	Name     string `json:"name"`    // the name from Info or the hello
	Version  string `json:"version"` // the version from Info or the hello
	Kind     string `json:"kind"`    // "built-in" or "impl"
	Command  string `json:"command,omitempty"`
	Strides  bool   `json:"strides,omitempty"`
	Unavail  string `json:"unavailable,omitempty"` // why a built-in cannot run here
	StartErr string `json:"start_error,omitempty"` // why an impl did not start
	// RSS says what the target's peak RSS figures cover, or why there are
	// none.
	RSS string `json:"rss"`

	info    scatter.Info
	backend scatter.Backend
	client  *protocol.Client
	gaveUp  string // not asked again: a request of it timed out (on this workload)
	rssRoot int    // the process of an impl whose tree is measured (0: not found yet)
}

// What the peak RSS figures of each kind of target cover.
const (
	rssBuiltin = "this process (scattercheck), one more untimed call after the timed ones, its free memory returned to the system first: " +
		"the peak since the call began, the Go runtime and the workload's inputs included"
	rssImpl = "the implementation's process tree (sh -c CMD and every process below it; the sum of their peaks): " +
		"the peak since the target's first bench request on the workload, which carried the inputs, to its last"
)

// implLabel is the label of an implementation whose hello gives name and
// version: "torch 2.14.1", "numpy 1.24.2", "jax 0.10.2". The version is
// shortened to its first word ("0.10.2 (jaxlib ...)" is long) without a
// local part ("2.14.1+debian", as Debian builds name themselves; the
// whole version stays in the target's "version"), and a name that adds a
// library after a "+" gets it after the version:
// "torch 2.14.1+torch_scatter-2.1.2" for torch+torch_scatter-2.1.2.
func implLabel(name, version string) string {
	name, version = strings.TrimSpace(name), strings.TrimSpace(version)
	if f := strings.Fields(version); len(f) > 0 {
		version = f[0]
	}
	if v, _, _ := strings.Cut(version, "+"); v != "" {
		version = v
	}
	head, tail, plus := strings.Cut(name, "+")
	if version == "" {
		return name
	}
	if head == "" {
		return version
	}
	l := head + " " + version
	if plus {
		l += "+" + tail
	}
	return l
}

// label describes the target for the report's header.
func (t *benchTarget) label() string {
	switch {
	case t.StartErr != "":
		return fmt.Sprintf("-impl %s: did not start: %s", shQuote(t.Command), firstLine(t.StartErr))
	case t.Kind == "impl":
		s := fmt.Sprintf("-impl %s: %s, timed by its bench request", shQuote(t.Command), strings.TrimSpace(t.Name+" "+t.Version))
		if t.Strides {
			s += ", views sent as views (strides)"
		} else {
			s += ", views sent contiguous (no strides claim)"
		}
		return s
	case t.Unavail != "":
		return "built-in, unavailable: " + t.Unavail
	}
	return "built-in: " + t.Name + " " + t.Version
}

// openTargets makes the built-in backends and starts the implementations.
func openTargets(cfg *benchConfig) []*benchTarget {
	var ts []*benchTarget
	taken := map[string]bool{}
	unique := func(name string) string {
		n := name
		for i := 2; taken[n]; i++ {
			n = name + " #" + strconv.Itoa(i)
		}
		taken[n] = true
		return n
	}
	builtinRSS, implRSS := rssBuiltin, rssImpl
	if _, _, err := procMemory(selfPID); err != nil {
		builtinRSS, implRSS = "none: "+err.Error(), "none: "+err.Error()
	}
	for _, name := range cfg.builtins {
		b := builtinNamed(name, cfg.profile)
		info := b.Info()
		ts = append(ts, &benchTarget{Label: unique(name), Name: info.Name, Version: info.Version, Kind: "built-in",
			Unavail: info.Unavailable, RSS: builtinRSS, info: info, backend: b})
	}
	roots := map[int]bool{} // the processes of the implementations started so far
	for i, cmd := range cfg.impls {
		t := &benchTarget{Kind: "impl", Command: cmd, RSS: implRSS}
		known, rssErr := implRoots()
		c, err := protocol.NewClient(cmd, protocol.ClientOptions{BenchTimeout: cfg.timeout, Timeout: cfg.timeout,
			StartTimeout: cfg.startTimeout, Context: cfg.ctx})
		if err != nil {
			t.Label = unique(fmt.Sprintf("impl%d", i+1))
			t.StartErr = err.Error()
			t.RSS = ""
			ts = append(ts, t)
			continue
		}
		t.client, t.info = c, c.Info()
		t.Name, t.Version = t.info.Name, t.info.Version
		t.Label = unique(orDefault(implLabel(t.Name, t.Version), fmt.Sprintf("impl%d", i+1)))
		t.Strides = c.Extensions().Strides
		// the process just started: the new process group among this
		// one's children
		if rssErr == nil && !strings.HasPrefix(t.RSS, "none") {
			t.rssRoot, rssErr = newImplRoot(cmd, known, roots)
		}
		if rssErr != nil {
			t.RSS = "none: " + rssErr.Error()
		} else {
			roots[t.rssRoot] = true
		}
		ts = append(ts, t)
	}
	return ts
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// The statuses of one target on one workload.
const (
	benchOK          = "ok"
	benchUnsupported = "unsupported" // the target declined (an unsupported answer, ErrNotSupported)
	benchSkipped     = "skipped"     // not claimed in the hello, or a built-in unavailable here
	benchFailed      = "failed"      // an error, a process failure, an impl that did not start
)

// benchResult is one target on one workload.
type benchResult struct {
	Label   string `json:"label"`   // the target's label
	Name    string `json:"name"`    // the target's name (Info, hello)
	Version string `json:"version"` // the target's version (Info, hello)
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	// SamplesNS are the timed calls in nanoseconds, in the order run.
	SamplesNS []int64            `json:"samples_ns,omitempty"`
	MedianNS  float64            `json:"median_ns,omitempty"` // of an even count: the mean of the middle two
	MinNS     int64              `json:"min_ns,omitempty"`
	Bytes     int64              `json:"bytes"`                     // moved per call: the workload's
	GBs       float64            `json:"gb_per_s,omitempty"`        // bytes moved / median time
	Memcpy    float64            `json:"memcpy_fraction,omitempty"` // GBs over the memory copy's median GB/s
	Ratios    map[string]float64 `json:"speedup_over,omitempty"`    // other target's label -> its median / this one's
	// PeakRSS is the peak resident memory measured on the workload (the
	// target's "rss" says whose and when), StartRSS the resident memory
	// when the measurement began; both 0 when none could be read.
	PeakRSS  int64 `json:"peak_rss_bytes,omitempty"`
	StartRSS int64 `json:"start_rss_bytes,omitempty"`
}

// canTime reports whether t can be asked to time call; otherwise the
// result says why not.
func (t *benchTarget) canTime(call scatter.Call) (benchResult, bool) {
	r := benchResult{Label: t.Label, Name: t.Name, Version: t.Version}
	switch {
	case t.StartErr != "":
		r.Status, r.Reason = benchFailed, "did not start (see the targets)"
	case t.gaveUp != "":
		r.Status, r.Reason = benchFailed, "not run: a bench request timed out on "+t.gaveUp
	case t.Unavail != "":
		r.Status, r.Reason = benchSkipped, "unavailable here (see the targets)"
	case !t.info.Claims(call.Op(), caseDType(call)):
		r.Status, r.Reason = benchSkipped, fmt.Sprintf("%s on %v not claimed", call.Op(), caseDType(call))
	default:
		return r, true
	}
	return r, false
}

// time runs call warm times untimed, then n times timed, and returns the
// nanoseconds of each timed call. An implementation times them inside
// itself (a bench request of warm+n runs, the first warm dropped).
func (t *benchTarget) time(call scatter.Call, warm, n int) ([]int64, error) {
	if t.client != nil {
		secs, err := t.client.Bench(call, warm+n)
		if err != nil {
			return nil, err
		}
		return nanoseconds(secs[warm:]), nil
	}
	for range warm {
		runtime.GC()
		if _, err := t.backend.Run(call); err != nil {
			return nil, err
		}
	}
	ns := make([]int64, n)
	for i := range ns {
		// Steady state: a collection (not timed) before each call lets it
		// recycle the last call's output, as a long-running process does
		// (and PyTorch's allocator). On a heap still growing to its goal,
		// which this process's large live heap puts far away, every output
		// would be fresh memory faulted in page by page: about a fifth of
		// W2's time.
		runtime.GC()
		t0 := time.Now()
		_, err := t.backend.Run(call)
		ns[i] = time.Since(t0).Nanoseconds()
		if err != nil {
			return nil, err
		}
	}
	return ns, nil
}

// nanoseconds converts times in seconds to whole nanoseconds.
func nanoseconds(secs []float64) []int64 {
	ns := make([]int64, len(secs))
	for i, s := range secs {
		ns[i] = int64(math.Round(s * 1e9))
	}
	return ns
}

// startRSS begins the peak RSS measurement of an implementation on a
// workload: the peaks of its process tree are reset. It returns false
// when none can be read; then the result has no RSS.
func (t *benchTarget) startRSS(targets []*benchTarget, res *benchResult) bool {
	if t.client == nil || t.rssRoot == 0 {
		return false // not an implementation, or its process was not found at the start
	}
	roots, err := implRoots()
	if err != nil {
		return false
	}
	if !roots[t.rssRoot] {
		// restarted since (a crash): the new process is the one
		// implementation process that no other target has. (The
		// client restarts it with the next request, so on the workload
		// right after the crash there is none yet: no RSS there.)
		taken := map[int]bool{}
		for _, o := range targets {
			if o != t && o.rssRoot != 0 {
				taken[o.rssRoot] = true
			}
		}
		root, err := newImplRoot(t.Command, nil, taken)
		if err != nil {
			return false
		}
		t.rssRoot = root
	}
	r, err := resetTree(t.rssRoot)
	if err != nil {
		return false
	}
	res.StartRSS = r.Current
	return true
}

// endRSS ends the measurement startRSS began.
func (t *benchTarget) endRSS(res *benchResult) {
	if r, err := peakOfTree(t.rssRoot); err == nil {
		res.PeakRSS = max(r.Peak, res.StartRSS)
	} else {
		res.StartRSS = 0
	}
}

// builtinRSS measures the peak RSS of this process during one more
// untimed call of a built-in target, after a collection that returns the
// free memory to the system: the peak is then what the live data (the
// workload's inputs among it) and the call need, not what the heap has
// kept from earlier calls and targets.
func (t *benchTarget) builtinRSS(call scatter.Call, res *benchResult) {
	debug.FreeOSMemory()
	r, err := resetTree(selfPID)
	if err != nil {
		return
	}
	if _, err := t.backend.Run(call); err != nil {
		return
	}
	if p, err := peakOfTree(selfPID); err == nil {
		res.StartRSS, res.PeakRSS = r.Current, max(p.Peak, r.Current)
	}
}

// classify turns a failed time into a result's status and reason.
func (t *benchTarget) classify(r *benchResult, err error) {
	var pe *protocol.ProcessError
	switch {
	case errors.As(err, &pe):
		r.Status, r.Reason = benchFailed, pe.Kind+": "+pe.Detail
		if l := lastStderrLine(pe.Stderr); l != "" {
			r.Reason += "; stderr: " + l
		}
	case scatter.CodeOf(err) == scatter.ErrNotSupported:
		r.Status, r.Reason = benchUnsupported, msgOf(err)
	default:
		r.Status = benchFailed
		if code := scatter.CodeOf(err); code != 0 {
			r.Reason = code.String() + ": " + msgOf(err)
		} else {
			r.Reason = err.Error()
		}
	}
	r.Reason = firstLine(r.Reason)
}

func (t *benchTarget) close() {
	if t.client != nil {
		t.client.Close()
	}
}

// memcpy times Go copies of size bytes.
type memcpy struct {
	size int
	ns   []int64
}

// round times n copies between buffers made (and faulted in) for the
// round alone, so that they do not count in the peak RSS of the built-in
// targets.
func (m *memcpy) round(n int) {
	src, dst := make([]byte, m.size), make([]byte, m.size)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // fault the pages in
	for range n {
		t0 := time.Now()
		copy(dst, src)
		m.ns = append(m.ns, time.Since(t0).Nanoseconds())
	}
}

// runBenchConfig runs the bench: for each workload, a round of memory
// copies, then every target in two passes, the second in reverse order
// (each pass -warmup untimed calls and half the timed calls), so that
// drift on a shared machine does not favour the target that runs first,
// then the peak RSS of each built-in target in one more call; a last
// round of copies at the end. It notes its progress on progress.
func runBenchConfig(cfg *benchConfig, progress io.Writer) *benchReport {
	t0 := time.Now()
	targets := openTargets(cfg)
	defer func() {
		for _, t := range targets {
			t.close()
		}
	}()
	rep := newBenchReport(cfg, targets)
	mc := &memcpy{size: max(memcpyBytes/cfg.scale, memcpyMinBytes)}
	rep.Memcpy.Bytes = 2 * int64(mc.size)
	passes := [][2]int{{0, (cfg.repeat + 1) / 2}, {1, cfg.repeat / 2}}
	cut := func() bool { return cfg.ctx != nil && cfg.ctx.Err() != nil }
	for k, w := range cfg.workloads {
		if cut() {
			break
		}
		mc.round(cfg.repeat)
		rep.Memcpy.Rounds++
		wl := workload.MustGet(w, cfg.scale)
		fmt.Fprintf(progress, "scattercheck bench: %s (%d of %d): %s\n", wl.Name, k+1, len(cfg.workloads), wl.Description)
		br := benchWorkload{ID: wl.Name, Description: wl.Description, Bytes: wl.Bytes}
		results := make([]benchResult, len(targets))
		active := make([]bool, len(targets))
		rss := make([]bool, len(targets)) // an implementation's RSS measurement has begun
		for i, t := range targets {
			results[i], active[i] = t.canTime(wl.Call)
			results[i].Bytes = wl.Bytes
		}
		for _, p := range passes {
			if p[1] == 0 {
				continue
			}
			for k := range targets {
				i := k
				if p[0] == 1 {
					i = len(targets) - 1 - k
				}
				if !active[i] {
					continue
				}
				if p[0] == 0 && targets[i].client != nil {
					// over all the target's requests on the workload, or none
					rss[i] = targets[i].startRSS(targets, &results[i])
				}
				if cut() {
					break
				}
				ns, err := targets[i].time(wl.Call, cfg.warmup, p[1])
				if cut() {
					break // the workload in flight is left out
				}
				if err != nil {
					targets[i].classify(&results[i], err)
					var pe *protocol.ProcessError
					if errors.As(err, &pe) && pe.Kind == protocol.KindTimeout {
						// a hang costs -timeout once, not once per workload
						targets[i].gaveUp = wl.Name
					}
					results[i].SamplesNS, results[i].StartRSS = nil, 0
					active[i], rss[i] = false, false
					continue
				}
				results[i].SamplesNS = append(results[i].SamplesNS, ns...)
			}
		}
		for i, t := range targets {
			switch {
			case !active[i] || cut():
			case rss[i]:
				t.endRSS(&results[i])
			case t.backend != nil:
				t.builtinRSS(wl.Call, &results[i])
			}
			if active[i] {
				results[i].Status = benchOK
			}
		}
		if cut() {
			break
		}
		br.Results = results
		rep.Workloads = append(rep.Workloads, br)
		runtime.GC() // the workload's data goes before the next is built
	}
	if !cut() {
		mc.round(cfg.repeat)
		rep.Memcpy.Rounds++
	}
	rep.Memcpy.SamplesNS = mc.ns
	rep.finish()
	if cut() {
		rep.OK = false
		rep.Incomplete = "cut short by a signal (SIGINT, SIGTERM or SIGHUP)"
	}
	rep.Seconds = time.Since(t0).Seconds()
	return rep
}
