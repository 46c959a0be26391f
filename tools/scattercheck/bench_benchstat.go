package main

import (
	"fmt"
	"io"
	"strings"
)

// -format benchstat: the bench's samples as the text of Go benchmarks,
// which benchstat (golang.org/x/perf/cmd/benchstat) reads: a line per
// timed call,
//
//	BenchmarkW1/target=optimized 1 8123456 ns/op 2043.17 MB/s 1288490188 peak-RSS-B
//
// one iteration of the workload's call, its time, the bytes moved per
// second (10^6 bytes, as the testing package counts MB/s) and, on the
// first line of a target only, its peak RSS on the workload (one figure,
// not a sample per call: repeated on every line, benchstat would take
// the copies for samples and find any difference significant; left out
// when none was read). The memory copy is BenchmarkMemcpy.
// "target" is a key of the name, so that benchstat -col /target sets
// the targets of one run side by side, and benchstat OLD NEW compares two
// runs. Configuration lines (goos, goarch, cpu, and the bench's own:
// profile, scale, repeat, warmup) come first.

// benchstatName turns a label into a part of a benchmark name: benchstat
// splits a line at white space and a name at "/" and "=", so those become
// "-" and "_".
func benchstatName(label string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			return '-'
		case r == '/' || r == '=':
			return '_'
		}
		return r
	}, label)
}

// writeBenchstat writes the report in the format of Go benchmarks.
func (r *benchReport) writeBenchstat(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\n", m.GOOS, m.GOARCH)
	if m.CPUModel != "" {
		fmt.Fprintf(w, "cpu: %s\n", m.CPUModel)
	}
	fmt.Fprintf(w, "profile: %s\nscale: %d\nrepeat: %d\nwarmup: %d\n",
		r.Profile, r.Scale, r.Repeat, r.Warmup)
	for _, ns := range r.Memcpy.SamplesNS {
		fmt.Fprintf(w, "BenchmarkMemcpy 1 %d ns/op %.2f MB/s\n", ns, mbPerS(r.Memcpy.Bytes, ns))
	}
	for _, wl := range r.Workloads {
		for _, res := range wl.Results {
			if res.Status != benchOK {
				continue
			}
			rss := ""
			if res.PeakRSS > 0 {
				rss = fmt.Sprintf(" %d peak-RSS-B", res.PeakRSS)
			}
			for i, ns := range res.SamplesNS {
				if i > 0 {
					rss = "" // one figure, not a sample per call
				}
				fmt.Fprintf(w, "Benchmark%s/target=%s 1 %d ns/op %.2f MB/s%s\n", wl.ID, benchstatName(res.Label), ns,
					mbPerS(wl.Bytes, ns), rss)
			}
		}
	}
}

// mbPerS is bytes moved in ns nanoseconds, in 10^6 bytes a second.
func mbPerS(bytes, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return float64(bytes) / float64(ns) * 1e3
}
