package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The report of scattercheck bench: the table on standard output and the
// -json file.

// benchSchema is the version of the -json layout: 2 since the targets
// have labels and the times are nanoseconds (schema 1 named a target by
// "target" and timed it in "seconds"; -compare reads both).
const benchSchema = 2

// benchReport is the whole run (the -json file; within a schema, fields
// are only ever added).
type benchReport struct {
	Tool   string `json:"tool"`
	Schema int    `json:"schema"`
	Date   string `json:"date"` // the run's start, RFC 3339, UTC
	OK     bool   `json:"ok"`   // no target failed a workload, one timed at least one, and the run was not cut short
	// Incomplete says why the run was cut short ("" when it was not):
	// the workloads timed until then are reported, the one in flight not.
	Incomplete string          `json:"incomplete,omitempty"`
	Profile    string          `json:"profile"`
	Scale      int             `json:"scale"`
	Repeat     int             `json:"repeat"`
	Warmup     int             `json:"warmup"` // untimed calls per target, workload and pass
	Seconds    float64         `json:"seconds"`
	Machine    benchMachine    `json:"machine"`
	Memcpy     benchMemcpy     `json:"memcpy"`
	Targets    []*benchTarget  `json:"targets"`
	Workloads  []benchWorkload `json:"workloads"`
	Pairs      []benchPair     `json:"pairs"`
	// Warnings are the figures not to take at face value (finish): a
	// speed past what this host's memory moves, times spread widely.
	Warnings []string `json:"warnings,omitempty"`
}

// implausibleMemcpy is the fraction of the memory copy's bandwidth past
// which a result is warned of: a workload moves its bytes through memory
// at least once, so a kernel on this host's memory cannot be ten times
// faster than copying them (built-in backends reach 0.8 at full size,
// under 0.6 scaled down); one faster did no work, or timed a device's own
// memory.
const implausibleMemcpy = 10

// spreadWarn is the median over the minimum past which a result's times
// are warned of as spread.
const spreadWarn = 10

// benchMachine is where the bench ran.
type benchMachine struct {
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	CPUModel   string `json:"cpu_model"` // "" where it cannot be read
	Cores      int    `json:"cores"`     // logical CPUs this process may use
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	MemTotal   int64  `json:"mem_total_bytes,omitempty"`
}

// benchMemcpy is the memory copy measured in the run.
type benchMemcpy struct {
	Bytes     int64   `json:"bytes"` // moved per copy: read and written
	Rounds    int     `json:"rounds"`
	SamplesNS []int64 `json:"samples_ns"`
	MedianNS  float64 `json:"median_ns"`
	MinNS     int64   `json:"min_ns"`
	MedianGBs float64 `json:"median_gb_per_s"`
	MaxGBs    float64 `json:"max_gb_per_s"`
	MinGBs    float64 `json:"min_gb_per_s"`
}

// benchWorkload is one workload and every target's result on it.
type benchWorkload struct {
	ID          string        `json:"id"`
	Description string        `json:"description"`
	Bytes       int64         `json:"bytes"`
	Results     []benchResult `json:"results"`
}

// benchPair sums up A against B (labels) over the workloads both timed:
// the speed-up of A (B's median time over A's), geometric mean and range.
type benchPair struct {
	A         string  `json:"a"`
	B         string  `json:"b"`
	Workloads int     `json:"workloads"`
	GeoMean   float64 `json:"geomean_speedup"`
	Min       float64 `json:"min_speedup"`
	MinOn     string  `json:"min_on"`
	Max       float64 `json:"max_speedup"`
	MaxOn     string  `json:"max_on"`
}

func newBenchReport(cfg *benchConfig, targets []*benchTarget) *benchReport {
	return &benchReport{Tool: "scattercheck bench", Schema: benchSchema, Date: time.Now().UTC().Format(time.RFC3339),
		Profile: cfg.profile.String(), Scale: cfg.scale, Repeat: cfg.repeat, Warmup: cfg.warmup,
		Machine: thisMachine(), Targets: targets}
}

// thisMachine describes the machine the bench runs on.
func thisMachine() benchMachine {
	m := benchMachine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Cores: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = cpuModel(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemTotal = memTotal(string(b))
	}
	return m
}

// cpuModel returns the processor's name from the text of /proc/cpuinfo:
// the first "model name" (x86, and arm64 kernels that give one), else
// the first "Hardware", "cpu model" or "cpu" (other architectures).
func cpuModel(cpuinfo string) string {
	for _, key := range []string{"model name", "Hardware", "cpu model", "cpu"} {
		for line := range strings.Lines(cpuinfo) {
			k, v, ok := strings.Cut(line, ":")
			if ok && strings.TrimSpace(k) == key {
				if v = strings.TrimSpace(v); v != "" {
					return v
				}
			}
		}
	}
	return ""
}

// memTotal returns MemTotal in bytes from the text of /proc/meminfo, or 0.
func memTotal(meminfo string) int64 {
	for line := range strings.Lines(meminfo) {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n << 10
				}
			}
		}
	}
	return 0
}

// medianNS is the median of ns (of an even count, the mean of the
// middle two).
func medianNS(ns []int64) float64 {
	s := slices.Clone(ns)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return (float64(s[n/2-1]) + float64(s[n/2])) / 2
}

// finish derives the figures from the times: medians, GB/s, the memory
// copy's fraction, the ratios and the pairs.
func (r *benchReport) finish() {
	m := &r.Memcpy
	if len(m.SamplesNS) > 0 {
		m.MedianNS, m.MinNS = medianNS(m.SamplesNS), slices.Min(m.SamplesNS)
		m.MedianGBs = float64(m.Bytes) / m.MedianNS
		m.MaxGBs = float64(m.Bytes) / float64(max(m.MinNS, 1))
		m.MinGBs = float64(m.Bytes) / float64(max(slices.Max(m.SamplesNS), 1))
	}
	r.OK = true
	r.Warnings = nil
	for wi := range r.Workloads {
		w := &r.Workloads[wi]
		for i := range w.Results {
			res := &w.Results[i]
			if res.Status == benchFailed {
				r.OK = false
			}
			if res.Status != benchOK || len(res.SamplesNS) == 0 {
				continue
			}
			res.MedianNS, res.MinNS = medianNS(res.SamplesNS), slices.Min(res.SamplesNS)
			if res.MedianNS > 0 {
				res.GBs = float64(w.Bytes) / res.MedianNS // bytes per ns: GB/s
			}
			if m.MedianGBs > 0 {
				res.Memcpy = res.GBs / m.MedianGBs
			}
			if res.Memcpy > implausibleMemcpy {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s, %s: %.0fx the memory copy's bandwidth, faster than this host's memory moves "+
					"the workload's bytes: it did not do the work, or timed a device's own memory (bench does not check results: "+
					"the gate's workloads part does, -suites workloads -workload-div 1)", w.ID, res.Label, res.Memcpy))
			}
			if res.MedianNS > spreadWarn*float64(max(res.MinNS, 1)) {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s, %s: median %s ms, fastest %s ms: its times spread widely (a loaded machine, "+
					"or its threads oversubscribed: for PyTorch, SCATTER_TORCH_BENCH_THREADS=1 on a shared machine); compare minimums, or rerun",
					w.ID, res.Label, fmtMS(res.MedianNS/1e6), fmtMS(float64(res.MinNS)/1e6)))
			}
		}
		for i := range w.Results {
			a := &w.Results[i]
			for j, b := range w.Results {
				if i != j && a.Status == benchOK && b.Status == benchOK && a.MedianNS > 0 && b.MedianNS > 0 {
					if a.Ratios == nil {
						a.Ratios = map[string]float64{}
					}
					a.Ratios[b.Label] = b.MedianNS / a.MedianNS
				}
			}
		}
	}
	r.noteUntimed()
	r.Pairs = nil
	for i, a := range r.Targets {
		for _, b := range r.Targets[i+1:] {
			p := benchPair{A: a.Label, B: b.Label}
			logSum := 0.0
			for _, w := range r.Workloads {
				s, ok := w.speedup(a.Label, b.Label)
				if !ok {
					continue
				}
				p.Workloads++
				logSum += math.Log(s)
				if p.Min == 0 || s < p.Min {
					p.Min, p.MinOn = s, w.ID
				}
				if s > p.Max {
					p.Max, p.MaxOn = s, w.ID
				}
			}
			if p.Workloads > 0 {
				p.GeoMean = math.Exp(logSum / float64(p.Workloads))
				r.Pairs = append(r.Pairs, p)
			}
		}
	}
}

// noteUntimed warns of a target that declined every workload it was
// given (an implementation that does not offer bench, or not these
// operations): its row says unsupported, which is no failure. When no
// target timed anything, the run is not OK: a bench that measured
// nothing must not pass a CI job.
func (r *benchReport) noteUntimed() {
	timed, declined, reason := map[string]int{}, map[string]int{}, map[string]string{}
	timedAll := 0
	for _, w := range r.Workloads {
		for _, res := range w.Results {
			switch res.Status {
			case benchOK:
				timed[res.Label]++
				timedAll++
			case benchUnsupported:
				declined[res.Label]++
				if reason[res.Label] == "" {
					reason[res.Label] = res.Reason
				}
			}
		}
	}
	for _, t := range r.Targets {
		if timed[t.Label] == 0 && declined[t.Label] > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s timed no workload: it declined %d of %d (%s)", t.Label, declined[t.Label], len(r.Workloads), reason[t.Label]))
		}
	}
	if timedAll == 0 && len(r.Workloads) > 0 && r.Incomplete == "" {
		r.OK = false
	}
}

// failText says why a finished run is not OK: a failed target, or
// nothing timed.
func (r *benchReport) failText() string {
	for _, w := range r.Workloads {
		for _, res := range w.Results {
			if res.Status == benchFailed {
				return "a target failed a workload"
			}
		}
	}
	return "nothing was timed: no target timed a workload (each declined, was unavailable or skipped it)"
}

// speedup returns target a's speed-up over b on the workload, if both
// timed it.
func (w *benchWorkload) speedup(a, b string) (float64, bool) {
	for _, res := range w.Results {
		if res.Label == a {
			s, ok := res.Ratios[b]
			return s, ok
		}
	}
	return 0, false
}

// ratioText says a speed-up s of this target over other in words.
func ratioText(s float64, other string) string {
	if s >= 1 {
		return fmt.Sprintf("%.2fx faster than %s", s, other)
	}
	return fmt.Sprintf("%.2fx slower than %s", 1/s, other)
}

func fmtMS(ms float64) string {
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.1f", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f", ms)
	}
	return fmt.Sprintf("%.4f", ms)
}

func fmtGBs(g float64) string {
	if g >= 10 {
		return fmt.Sprintf("%.1f", g)
	}
	return fmt.Sprintf("%.2f", g)
}

// print writes the human report: the run, the targets, the memory copy,
// the workloads, the table and the pairs.
func (r *benchReport) print(w io.Writer) {
	size := "full size"
	if r.Scale > 1 {
		size = fmt.Sprintf("scaled down %dx (-scale %d)", r.Scale, r.Scale)
	}
	fmt.Fprintf(w, "scattercheck bench: %s, %d timed calls per target and workload, built-ins under profile %s\n", size, r.Repeat, r.Profile)
	passes := fmt.Sprintf("two passes, the second in reverse target order, each after %d untimed calls", r.Warmup)
	if r.Repeat == 1 {
		passes = fmt.Sprintf("one pass, after %d untimed calls", r.Warmup)
	}
	m := r.Machine
	fmt.Fprintf(w, "  (%s; %s/%s, %s, %d CPUs, GOMAXPROCS %d, %s)\n", passes, m.GOOS, m.GOARCH, orDefault(m.CPUModel, "CPU model unknown"),
		m.Cores, m.GOMAXPROCS, m.Go)
	fmt.Fprintln(w, "\ntargets:")
	nameW := len("target")
	for _, t := range r.Targets {
		nameW = max(nameW, len(t.Label))
	}
	for _, t := range r.Targets {
		fmt.Fprintf(w, "  %-*s  %s\n", nameW, t.Label, t.label())
	}
	mc := r.Memcpy
	fmt.Fprintf(w, "\nmemory copy (Go copy of %s, bytes read + written): median %s GB/s (%s to %s; %d copies in %d rounds)\n",
		byteSize(mc.Bytes/2), fmtGBs(mc.MedianGBs), fmtGBs(mc.MinGBs), fmtGBs(mc.MaxGBs), len(mc.SamplesNS), mc.Rounds)
	fmt.Fprintln(w, "\nworkloads (bytes moved: source and index read, output read and written):")
	for _, wl := range r.Workloads {
		fmt.Fprintf(w, "  %-3s %s (%s)\n", wl.ID, wl.Description, byteSize(wl.Bytes))
	}
	fmt.Fprintln(w, "\npeak RSS: the resident memory at its highest on the workload, and how much of it came after the start:")
	kinds := map[string]bool{}
	for _, t := range r.Targets {
		if t.RSS != "" && !strings.HasPrefix(t.RSS, "none") && !kinds[t.Kind] {
			kinds[t.Kind] = true
			fmt.Fprintf(w, "  %s targets: %s\n", t.Kind, t.RSS)
		}
	}
	for _, t := range r.Targets {
		if strings.HasPrefix(t.RSS, "none") {
			fmt.Fprintf(w, "  %s: %s\n", t.Label, t.RSS)
		}
	}
	fmt.Fprintln(w)
	header := fmt.Sprintf("%-8s  %-*s  %10s  %10s  %7s  %9s  %9s  %9s  %s", "workload", nameW, "target", "median ms", "min ms", "GB/s",
		"of memcpy", "peak RSS", "+ since", "ratio of medians")
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, strings.Repeat("-", len(header)))
	for _, wl := range r.Workloads {
		for i, res := range wl.Results {
			id := ""
			if i == 0 {
				id = wl.ID
			}
			if res.Status != benchOK {
				fmt.Fprintf(w, "%-8s  %-*s  %s: %s\n", id, nameW, res.Label, res.Status, res.Reason)
				continue
			}
			var ratios []string
			for _, other := range wl.Results {
				if s, ok := res.Ratios[other.Label]; ok {
					ratios = append(ratios, ratioText(s, other.Label))
				}
			}
			peak, grew := "-", "-"
			if res.PeakRSS > 0 {
				peak, grew = rssSize(res.PeakRSS), rssSize(res.PeakRSS-res.StartRSS)
			}
			line := fmt.Sprintf("%-8s  %-*s  %10s  %10s  %7s  %8.1f%%  %9s  %9s  %s", id, nameW, res.Label, fmtMS(res.MedianNS/1e6),
				fmtMS(float64(res.MinNS)/1e6), fmtGBs(res.GBs), 100*res.Memcpy, peak, grew, strings.Join(ratios, ", "))
			fmt.Fprintln(w, strings.TrimRight(line, " "))
		}
	}
	if len(r.Pairs) > 0 {
		fmt.Fprintln(w, "\nside by side (speed-up: the other's median time over this one's; geometric mean of the workloads both timed):")
		for _, p := range r.Pairs {
			fmt.Fprintf(w, "  %s vs %s: %s", p.A, p.B, ratioText(p.GeoMean, p.B))
			if p.Workloads > 1 {
				fmt.Fprintf(w, " over %d workloads (speed-up %.2fx on %s to %.2fx on %s)", p.Workloads, p.Min, p.MinOn, p.Max, p.MaxOn)
			} else {
				fmt.Fprintf(w, " on %s", p.MinOn)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "\n%.1f s in all\n", r.Seconds)
}

// rssSize writes n bytes of memory in MiB or GiB, as the kernel counts
// them (kB of 1024 bytes), to three significant digits or so.
func rssSize(n int64) string {
	if n >= 10<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	if n >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	}
	if n >= 10<<20 {
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// byteSize writes n bytes as MB (10^6) or, for copies, MiB.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// writeJSON writes the report to path.
func (r *benchReport) writeJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
