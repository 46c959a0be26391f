package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// The report of scattercheck bench: the table on standard output and the
// -json file.

// benchReport is the whole run (the -json file: "schema": 1, fields are
// only ever added).
type benchReport struct {
	Tool       string          `json:"tool"`
	Schema     int             `json:"schema"`
	Time       string          `json:"time"`
	OK         bool            `json:"ok"` // no target failed a workload
	Profile    string          `json:"profile"`
	Scale      int             `json:"scale"`
	Repeat     int             `json:"repeat"`
	Warmup     int             `json:"warmup"` // untimed calls per target, workload and pass
	Go         string          `json:"go"`
	Platform   string          `json:"platform"`
	CPUs       int             `json:"cpus"`
	GOMAXPROCS int             `json:"gomaxprocs"`
	Seconds    float64         `json:"seconds"`
	Memcpy     benchMemcpy     `json:"memcpy"`
	Targets    []*benchTarget  `json:"targets"`
	Workloads  []benchWorkload `json:"workloads"`
	Pairs      []benchPair     `json:"pairs"`
}

// benchMemcpy is the memory copy measured in the run.
type benchMemcpy struct {
	Bytes     int64     `json:"bytes"` // moved per copy: read and written
	Rounds    int       `json:"rounds"`
	Seconds   []float64 `json:"seconds"`
	MedianGBs float64   `json:"median_gb_per_s"`
	MaxGBs    float64   `json:"max_gb_per_s"`
	MinGBs    float64   `json:"min_gb_per_s"`
}

// benchWorkload is one workload and every target's result on it.
type benchWorkload struct {
	ID          string        `json:"id"`
	Description string        `json:"description"`
	Bytes       int64         `json:"bytes"`
	Results     []benchResult `json:"results"`
}

// benchPair sums up A against B over the workloads both timed: the
// speed-up of A (B's median time over A's), geometric mean and range.
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
	return &benchReport{Tool: "scattercheck bench", Schema: 1, Time: time.Now().UTC().Format(time.RFC3339),
		Profile: cfg.profile.String(), Scale: cfg.scale, Repeat: cfg.repeat, Warmup: cfg.warmup, Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Targets: targets}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// finish derives the figures from the times: medians, GB/s, the memory
// copy's fraction, the ratios and the pairs.
func (r *benchReport) finish() {
	m := &r.Memcpy
	if len(m.Seconds) > 0 {
		m.MedianGBs = float64(m.Bytes) / median(m.Seconds) / 1e9
		m.MaxGBs = float64(m.Bytes) / slices.Min(m.Seconds) / 1e9
		m.MinGBs = float64(m.Bytes) / slices.Max(m.Seconds) / 1e9
	}
	r.OK = true
	for wi := range r.Workloads {
		w := &r.Workloads[wi]
		for i := range w.Results {
			res := &w.Results[i]
			if res.Status == benchFailed {
				r.OK = false
			}
			if res.Status != benchOK {
				continue
			}
			med := median(res.Seconds)
			res.MedianMS, res.MinMS = med*1e3, slices.Min(res.Seconds)*1e3
			if med > 0 {
				res.GBs = float64(w.Bytes) / med / 1e9
			}
			if m.MedianGBs > 0 {
				res.Memcpy = res.GBs / m.MedianGBs
			}
		}
		for i := range w.Results {
			a := &w.Results[i]
			for j, b := range w.Results {
				if i != j && a.Status == benchOK && b.Status == benchOK && a.MedianMS > 0 && b.MedianMS > 0 {
					if a.Ratios == nil {
						a.Ratios = map[string]float64{}
					}
					a.Ratios[b.Target] = b.MedianMS / a.MedianMS
				}
			}
		}
	}
	r.Pairs = nil
	for i, a := range r.Targets {
		for _, b := range r.Targets[i+1:] {
			p := benchPair{A: a.Name, B: b.Name}
			logSum := 0.0
			for _, w := range r.Workloads {
				s, ok := w.speedup(a.Name, b.Name)
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

// speedup returns target a's speed-up over b on the workload, if both
// timed it.
func (w *benchWorkload) speedup(a, b string) (float64, bool) {
	for _, res := range w.Results {
		if res.Target == a {
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
	fmt.Fprintf(w, "  (%s; %s, %d CPUs, GOMAXPROCS %d, %s)\n", passes, r.Platform, r.CPUs, r.GOMAXPROCS, r.Go)
	fmt.Fprintln(w, "\ntargets:")
	nameW := len("target")
	for _, t := range r.Targets {
		nameW = max(nameW, len(t.Name))
	}
	for _, t := range r.Targets {
		fmt.Fprintf(w, "  %-*s  %s\n", nameW, t.Name, t.label())
	}
	m := r.Memcpy
	fmt.Fprintf(w, "\nmemory copy (Go copy of %s, bytes read + written): median %s GB/s (%s to %s; %d copies in %d rounds)\n",
		byteSize(m.Bytes/2), fmtGBs(m.MedianGBs), fmtGBs(m.MinGBs), fmtGBs(m.MaxGBs), len(m.Seconds), m.Rounds)
	fmt.Fprintln(w, "\nworkloads (bytes moved: source and index read, output read and written):")
	for _, wl := range r.Workloads {
		fmt.Fprintf(w, "  %-3s %s (%s)\n", wl.ID, wl.Description, byteSize(wl.Bytes))
	}
	fmt.Fprintln(w)
	header := fmt.Sprintf("%-8s  %-*s  %10s  %10s  %7s  %9s  %s", "workload", nameW, "target", "median ms", "min ms", "GB/s", "of memcpy", "ratio of medians")
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, strings.Repeat("-", len(header)))
	for _, wl := range r.Workloads {
		for i, res := range wl.Results {
			id := ""
			if i == 0 {
				id = wl.ID
			}
			if res.Status != benchOK {
				fmt.Fprintf(w, "%-8s  %-*s  %s: %s\n", id, nameW, res.Target, res.Status, res.Reason)
				continue
			}
			var ratios []string
			for _, other := range wl.Results {
				if s, ok := res.Ratios[other.Target]; ok {
					ratios = append(ratios, ratioText(s, other.Target))
				}
			}
			line := fmt.Sprintf("%-8s  %-*s  %10s  %10s  %7s  %8.1f%%  %s", id, nameW, res.Target, fmtMS(res.MedianMS),
				fmtMS(res.MinMS), fmtGBs(res.GBs), 100*res.Memcpy, strings.Join(ratios, ", "))
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
