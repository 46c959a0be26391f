package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
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
// copy measured in the same run as the ceiling.

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
	timeout      time.Duration
	startTimeout time.Duration
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
	profile := fs.String("profile", "torch-2", "the behaviour of the built-in backends: torch-2 or torch-1.13 (only W7's bfloat16 sums differ: torch-1.13 rounds per step, as PyTorch 1.13 does)")
	scale := fs.Int("scale", 1, fmt.Sprintf("divide every workload's sizes (and the memory copy) by this; the reference needs %d or more", refMinScale))
	jsonPath := fs.String("json", "", "write the results as JSON to this file")
	timeout := fs.Duration("timeout", defaultBenchTimeout, "the most one bench request to an -impl may take, transfer included")
	startTimeout := fs.Duration("start-timeout", protocol.DefaultStartTimeout, "the most an -impl may take to start and answer hello")
	return func() (*benchConfig, error) {
		cfg := &benchConfig{impls: impls, repeat: *repeat, warmup: *warmup, scale: *scale, jsonPath: *jsonPath,
			timeout: *timeout, startTimeout: *startTimeout}
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
// or declined every workload, 1 when a target failed one, 2 for a usage
// error.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scattercheck bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { benchUsage(fs, stderr) }
	parse := benchFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "scattercheck bench: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg, err := parse()
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck bench:", err)
		return 2
	}
	rep := runBenchConfig(cfg, stderr)
	rep.print(stdout)
	code := 0
	if !rep.OK {
		fmt.Fprintln(stdout, "\nFAIL: a target failed a workload")
		code = 1
	}
	if cfg.jsonPath != "" {
		if err := rep.writeJSON(cfg.jsonPath); err != nil {
			fmt.Fprintln(stderr, "scattercheck bench:", err)
			return 2
		}
	}
	return code
}

func benchUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `usage: scattercheck bench [flags]

Times the standard workloads W1-W7 (PERFORMANCE.md, package workload) on
each target side by side: built-in backends in process, outside
implementations through the protocol's bench request (timed inside the
implementation). Prints, per workload and target, the median and minimum
time, GB/s, the fraction of a memory copy measured in the same run, and the
ratio to every other target. Exit status: 0, 1 when a target failed a
workload, 2 for a usage error.

  scattercheck bench -targets optimized -impl '/usr/bin/python3 tools/adapters/torch_adapter.py'
  scattercheck bench -targets reference,optimized -scale 100 -workloads W1,W2 -json bench.json

flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// benchTarget is one target of the run.
type benchTarget struct {
	Name     string `json:"name"` // the column name: the built-in's name, or the implementation's
	Kind     string `json:"kind"` // "built-in" or "impl"
	Command  string `json:"command,omitempty"`
	Impl     string `json:"implementation"` // name and version from Info or the hello
	Strides  bool   `json:"strides,omitempty"`
	Unavail  string `json:"unavailable,omitempty"` // why a built-in cannot run here
	StartErr string `json:"start_error,omitempty"` // why an impl did not start

	info    scatter.Info
	backend scatter.Backend
	client  *protocol.Client
	gaveUp  string // not asked again: a request of it timed out (on this workload)
}

// label describes the target for the report's header.
func (t *benchTarget) label() string {
	switch {
	case t.StartErr != "":
		return fmt.Sprintf("-impl %s: did not start: %s", shQuote(t.Command), firstLine(t.StartErr))
	case t.Kind == "impl":
		s := fmt.Sprintf("-impl %s: %s, timed by its bench request", shQuote(t.Command), t.Impl)
		if t.Strides {
			s += ", views sent as views (strides)"
		} else {
			s += ", views sent contiguous (no strides claim)"
		}
		return s
	case t.Unavail != "":
		return "built-in, unavailable: " + t.Unavail
	}
	return "built-in: " + t.Impl
}

// openTargets makes the built-in backends and starts the implementations.
func openTargets(cfg *benchConfig) []*benchTarget {
	var ts []*benchTarget
	taken := map[string]bool{}
	unique := func(name string) string {
		n := name
		for i := 2; taken[n]; i++ {
			n = name + "#" + strconv.Itoa(i)
		}
		taken[n] = true
		return n
	}
	for _, name := range cfg.builtins {
		b := builtinNamed(name, cfg.profile)
		info := b.Info()
		ts = append(ts, &benchTarget{Name: unique(name), Kind: "built-in", Impl: info.Name + " " + info.Version,
			Unavail: info.Unavailable, info: info, backend: b})
	}
	for i, cmd := range cfg.impls {
		t := &benchTarget{Kind: "impl", Command: cmd}
		c, err := protocol.NewClient(cmd, protocol.ClientOptions{BenchTimeout: cfg.timeout, Timeout: cfg.timeout,
			StartTimeout: cfg.startTimeout})
		if err != nil {
			t.Name = unique(fmt.Sprintf("impl%d", i+1))
			t.StartErr = err.Error()
			ts = append(ts, t)
			continue
		}
		t.client, t.info = c, c.Info()
		t.Name = unique(orDefault(t.info.Name, fmt.Sprintf("impl%d", i+1)))
		t.Impl = strings.TrimSpace(t.info.Name + " " + t.info.Version)
		t.Strides = c.Extensions().Strides
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
	Target   string             `json:"target"`
	Status   string             `json:"status"`
	Reason   string             `json:"reason,omitempty"`
	Seconds  []float64          `json:"seconds,omitempty"` // every timed call, in the order run
	MedianMS float64            `json:"median_ms,omitempty"`
	MinMS    float64            `json:"min_ms,omitempty"`
	GBs      float64            `json:"gb_per_s,omitempty"` // bytes moved / median time
	Memcpy   float64            `json:"memcpy_fraction,omitempty"`
	Ratios   map[string]float64 `json:"speedup_over,omitempty"` // other target -> its median / this one's
}

// canTime reports whether t can be asked to time call; otherwise the
// result says why not.
func (t *benchTarget) canTime(call scatter.Call) (benchResult, bool) {
	r := benchResult{Target: t.Name}
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
// seconds of each timed call. An implementation times them inside itself
// (a bench request of warm+n runs, the first warm dropped).
func (t *benchTarget) time(call scatter.Call, warm, n int) ([]float64, error) {
	if t.client != nil {
		secs, err := t.client.Bench(call, warm+n)
		if err != nil {
			return nil, err
		}
		return secs[warm:], nil
	}
	for range warm {
		runtime.GC()
		if _, err := t.backend.Run(call); err != nil {
			return nil, err
		}
	}
	secs := make([]float64, n)
	for i := range secs {
		// Steady state: a collection (not timed) before each call lets it
		// recycle the last call's output, as a long-running process does
		// (and PyTorch's allocator). On a heap still growing to its goal,
		// which this process's large live heap puts far away, every output
		// would be fresh memory faulted in page by page: about a fifth of
		// W2's time.
		runtime.GC()
		t0 := time.Now()
		_, err := t.backend.Run(call)
		secs[i] = time.Since(t0).Seconds()
		if err != nil {
			return nil, err
		}
	}
	return secs, nil
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
	src, dst []byte
	seconds  []float64
}

func newMemcpy(size int) *memcpy {
	m := &memcpy{src: make([]byte, size), dst: make([]byte, size)}
	for i := range m.src {
		m.src[i] = byte(i)
	}
	copy(m.dst, m.src) // fault the pages in
	return m
}

// round times n copies.
func (m *memcpy) round(n int) {
	for range n {
		t0 := time.Now()
		copy(m.dst, m.src)
		m.seconds = append(m.seconds, time.Since(t0).Seconds())
	}
}

// runBenchConfig runs the bench: for each workload, a round of memory
// copies, then every target in two passes, the second in reverse order
// (each pass -warmup untimed calls and half the timed calls), so that drift on a
// shared machine does not favour the target that runs first; a last round
// of copies at the end. It notes its progress on progress.
func runBenchConfig(cfg *benchConfig, progress io.Writer) *benchReport {
	t0 := time.Now()
	targets := openTargets(cfg)
	defer func() {
		for _, t := range targets {
			t.close()
		}
	}()
	rep := newBenchReport(cfg, targets)
	mc := newMemcpy(max(memcpyBytes/cfg.scale, memcpyMinBytes))
	rep.Memcpy.Bytes = 2 * int64(len(mc.src))
	passes := [][2]int{{0, (cfg.repeat + 1) / 2}, {1, cfg.repeat / 2}}
	for k, w := range cfg.workloads {
		mc.round(cfg.repeat)
		rep.Memcpy.Rounds++
		wl := workload.MustGet(w, cfg.scale)
		fmt.Fprintf(progress, "scattercheck bench: %s (%d of %d): %s\n", wl.Name, k+1, len(cfg.workloads), wl.Description)
		br := benchWorkload{ID: wl.Name, Description: wl.Description, Bytes: wl.Bytes}
		results := make([]benchResult, len(targets))
		active := make([]bool, len(targets))
		for i, t := range targets {
			results[i], active[i] = t.canTime(wl.Call)
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
				secs, err := targets[i].time(wl.Call, cfg.warmup, p[1])
				if err != nil {
					targets[i].classify(&results[i], err)
					var pe *protocol.ProcessError
					if errors.As(err, &pe) && pe.Kind == protocol.KindTimeout {
						// a hang costs -timeout once, not once per workload
						targets[i].gaveUp = wl.Name
					}
					results[i].Seconds = nil
					active[i] = false
					continue
				}
				results[i].Seconds = append(results[i].Seconds, secs...)
			}
		}
		for i := range results {
			if active[i] {
				results[i].Status = benchOK
			}
		}
		br.Results = results
		rep.Workloads = append(rep.Workloads, br)
		runtime.GC() // the workload's data goes before the next is built
	}
	mc.round(cfg.repeat)
	rep.Memcpy.Rounds++
	rep.Memcpy.Seconds = mc.seconds
	rep.finish()
	rep.Seconds = time.Since(t0).Seconds()
	return rep
}
