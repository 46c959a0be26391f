package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// uByEnumeration counts U over every arrangement of n1 x's and n2 y's
// (a bit set of the x positions in the pooled order): U is the number of
// pairs with the x after the y.
func uByEnumeration(n1, n2 int) []int64 {
	counts := make([]int64, n1*n2+1)
	n := n1 + n2
	for mask := 0; mask < 1<<n; mask++ {
		xs, u, ysSeen := 0, 0, 0
		for pos := range n {
			if mask&(1<<pos) != 0 {
				xs++
				u += ysSeen
			} else {
				ysSeen++
			}
		}
		if xs == n1 {
			counts[u]++
		}
	}
	return counts
}

// TestUCounts: the Gaussian binomial coefficients against every
// arrangement counted one by one.
func TestUCounts(t *testing.T) {
	for _, c := range [][2]int{{1, 1}, {1, 4}, {2, 3}, {3, 3}, {4, 5}, {5, 4}, {6, 6}, {3, 9}} {
		got, want := uCounts(c[0], c[1]), uByEnumeration(c[0], c[1])
		if len(got) != len(want) {
			t.Fatalf("n1=%d n2=%d: %d counts, want %d", c[0], c[1], len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("n1=%d n2=%d: U=%d: %d arrangements, want %d", c[0], c[1], i, got[i], want[i])
			}
		}
	}
	// the largest exact case stays exact: the counts sum to C(60, 30)
	sum, binom := int64(0), int64(1)
	for _, c := range uCounts(30, 30) {
		if c < 0 {
			t.Fatalf("negative count %d", c)
		}
		sum += c
	}
	for i := int64(1); i <= 30; i++ {
		binom = binom * (30 + i) / i // C(30+i, i), exact at every step
	}
	if sum != binom {
		t.Errorf("uCounts(30, 30) sums to %d, want C(60, 30) = %d", sum, binom)
	}
}

func TestMannWhitney(t *testing.T) {
	seq := func(from, n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(from + i)
		}
		return s
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	// complete separation: only 2 of the C(n1+n2, n1) arrangements are
	// as extreme, one each way
	for _, c := range []struct {
		n    int
		want float64
	}{{3, 2.0 / 20}, {4, 2.0 / 70}, {5, 2.0 / 252}, {10, 2.0 / 184756}} {
		u, p := mannWhitney(seq(100, c.n), seq(0, c.n))
		if u != float64(c.n*c.n) || !near(p, c.want) {
			t.Errorf("%d vs %d separated: U %v, p %v, want %v", c.n, c.n, u, p, c.want)
		}
		u, p = mannWhitney(seq(0, c.n), seq(100, c.n))
		if u != 0 || !near(p, c.want) {
			t.Errorf("%d vs %d separated, the other way: U %v, p %v", c.n, c.n, u, p)
		}
	}
	// a mixed case: U = 9 of 20 pairs; p from the arrangements counted
	// one by one
	xs, ys := []float64{1, 4, 6, 8}, []float64{2, 3, 5, 7, 9}
	u, p := mannWhitney(xs, ys)
	counts := uByEnumeration(4, 5)
	lo, hi, total := 0.0, 0.0, 0.0
	for i, c := range counts {
		total += float64(c)
		if i <= 9 {
			lo += float64(c)
		}
		if i >= 9 {
			hi += float64(c)
		}
	}
	if u != 9 || !near(p, math.Min(1, 2*math.Min(lo, hi)/total)) {
		t.Errorf("mixed: U %v, p %v, want 9 and %v", u, p, 2*math.Min(lo, hi)/total)
	}
	if u2, p2 := mannWhitney(ys, xs); u2 != 20-u || !near(p2, p) {
		t.Errorf("mixed, swapped: U %v, p %v", u2, p2)
	}
	// ties: the normal approximation. Pooled 1 2 2 2 3 3 3 4, midranks
	// 1, 3, 3, 3, 6, 6, 6, 8; the x's rank sum 1+3+3+6 = 13, U = 13 - 10 = 3;
	// mean 8, variance 16/12 × (9 - 48/56) with 48 = 2 × (3³ - 3) from the
	// two triples; z = (|3 - 8| - 1/2) / sd
	u, p = mannWhitney([]float64{1, 2, 2, 3}, []float64{2, 3, 3, 4})
	z := 4.5 / math.Sqrt(16.0/12*(9-48.0/56))
	if u != 3 || !near(p, math.Erfc(z/math.Sqrt2)) {
		t.Errorf("ties: U %v, p %v, want 3 and %v", u, p, math.Erfc(z/math.Sqrt2))
	}
	// beyond exactUMax: the normal approximation, far in the tail
	if u, p := mannWhitney(seq(0, 35), seq(35, 35)); u != 0 || !(p > 0 && p < 1e-10) {
		t.Errorf("35 vs 35 separated: U %v, p %v", u, p)
	}
	// no information: p = 1
	for _, c := range [][2][]float64{{{1, 1, 1}, {1, 1}}, {nil, {1, 2}}, {{1}, nil}} {
		if _, p := mannWhitney(c[0], c[1]); p != 1 {
			t.Errorf("%v vs %v: p %v, want 1", c[0], c[1], p)
		}
	}
}

// samplesMS makes samples of ms milliseconds each, plus i × step.
func samplesMS(n int, ms, step float64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64((ms + float64(i)*step) * 1e6)
	}
	return s
}

// writeBenchFile writes a made-up run as a -json file.
func writeBenchFile(t *testing.T, r *benchReport) string {
	t.Helper()
	r.Tool, r.Schema = "scattercheck bench", benchSchema
	r.finish()
	path := filepath.Join(t.TempDir(), "bench.json")
	if err := r.writeJSON(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBenchCompareFiles compares two made-up runs: a target 20% faster
// beyond the noise, one whose samples overlap, one that failed in the new
// run, and a target in each run alone.
func TestBenchCompareFiles(t *testing.T) {
	machine := benchMachine{GOOS: "linux", GOARCH: "amd64", CPUModel: "a CPU", Cores: 2, GOMAXPROCS: 2, Go: "go1.26"}
	res := func(label string, ns []int64, peak int64) benchResult {
		return benchResult{Label: label, Status: benchOK, SamplesNS: ns, PeakRSS: peak}
	}
	old := &benchReport{Date: "2026-01-01T00:00:00Z", Profile: "torch-2", Scale: 1, Repeat: 10, Machine: machine,
		Memcpy:  benchMemcpy{Bytes: 1e9, SamplesNS: []int64{0.9e8, 1.1e8}}, // 10 GB/s
		Targets: []*benchTarget{{Label: "optimized"}, {Label: "torch 2.14.1"}, {Label: "numpy 1.24.2"}, {Label: "torch 1.13.1"}},
		Workloads: []benchWorkload{{ID: "W1", Bytes: 1e9, Results: []benchResult{
			res("optimized", samplesMS(10, 100, 1), 2<<30),
			res("torch 2.14.1", samplesMS(10, 100, 1), 0),
			res("numpy 1.24.2", samplesMS(10, 50, 1), 0),
			res("torch 1.13.1", samplesMS(10, 200, 1), 0),
		}}}}
	cur := &benchReport{Date: "2026-02-01T00:00:00Z", Profile: "torch-2", Scale: 1, Repeat: 10, Machine: machine,
		Memcpy:  benchMemcpy{Bytes: 1e9, SamplesNS: []int64{1.9e8, 2.1e8}}, // 5 GB/s
		Targets: []*benchTarget{{Label: "optimized"}, {Label: "torch 2.14.1"}, {Label: "numpy 1.24.2"}, {Label: "jax 0.10.2"}},
		Workloads: []benchWorkload{{ID: "W1", Bytes: 1e9, Results: []benchResult{
			res("optimized", samplesMS(10, 80, 1), 1<<30),   // median 84.5 ms against 104.5: 0.809
			res("torch 2.14.1", samplesMS(10, 100.5, 1), 0), // interleaved with the old samples
			{Label: "numpy 1.24.2", Status: benchFailed, Reason: "crash"},
			res("jax 0.10.2", samplesMS(10, 30, 1), 0),
		}}}}
	oldPath, newPath := writeBenchFile(t, old), writeBenchFile(t, cur)
	code, out, errb := runCmd(t, nil, "bench", "-compare", oldPath, newPath)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	row := func(label string) string {
		for line := range strings.Lines(out) {
			if f := strings.Fields(line); len(f) > 1 && (strings.HasPrefix(line, "W1        "+label) || strings.HasPrefix(line, "          "+label)) {
				return line
			}
		}
		t.Errorf("no row of %s:\n%s", label, out)
		return ""
	}
	// optimized: every new sample below every old one; p = 2/C(20, 10)
	for _, want := range []string{"104.5", "84.50", "0.809", "-19.1%", "0.000", "faster", "2.00 GiB -> 1.00 GiB"} {
		if r := row("optimized"); !strings.Contains(r, want) {
			t.Errorf("optimized row lacks %q: %q", want, r)
		}
	}
	// torch 2.14.1: new sample i beats old samples 0..i, U = 1+2+...+10 =
	// 55 of 100 pairs; p from every arrangement counted
	counts, tail, total := uByEnumeration(10, 10), 0.0, 0.0
	for u, c := range counts {
		total += float64(c)
		if u >= 55 {
			tail += float64(c)
		}
	}
	if r, want := row("torch 2.14.1"), fmt.Sprintf("%.3f  ~", 2*tail/total); !strings.Contains(r, want) || 2*tail/total < compareAlpha {
		t.Errorf("overlapping samples: %q, want %q", r, want)
	}
	for label, want := range map[string]string{"numpy 1.24.2": "not timed in NEW: failed: crash", "jax 0.10.2": "only in NEW (ok)",
		"torch 1.13.1": "only in OLD (ok)"} {
		if r := row(label); !strings.Contains(r, want) {
			t.Errorf("%s: %q, want %q", label, r, want)
		}
	}
	if !strings.Contains(out, "optimized     0.809 (-19.1%) over 1 workloads") || strings.Contains(out, "note:") ||
		!strings.Contains(out, "median 10.0 GB/s in OLD, 5.00 GB/s in NEW (p 0.333)") { // 2 vs 2 separated: 2/C(4, 2)
		t.Errorf("geometric means or notes:\n%s", out)
	}
	// different settings are noted
	cur.Scale, cur.Machine.CPUModel = 100, "another CPU"
	_, out, _ = runCmd(t, nil, "bench", "-compare", oldPath, writeBenchFile(t, cur))
	if !strings.Contains(out, "note: OLD ran at -scale 1, NEW at 100") || !strings.Contains(out, "note: the runs are on different machines") {
		t.Errorf("no notes of the differences:\n%s", out)
	}
}

// TestBenchCompareSchema1 reads a file of schema 1, as scattercheck bench
// wrote it before labels: the target named by "name" and "target", times
// in "seconds".
func TestBenchCompareSchema1(t *testing.T) {
	dir := t.TempDir()
	v1 := `{"tool": "scattercheck bench", "schema": 1, "time": "2025-12-01T00:00:00Z", "ok": true, "profile": "torch-2",
	 "scale": 1, "repeat": 4, "go": "go1.25", "platform": "linux/amd64", "cpus": 2, "gomaxprocs": 2, "seconds": 9,
	 "memcpy": {"bytes": 536870912, "rounds": 2, "seconds": [0.05, 0.05], "median_gb_per_s": 10.7},
	 "targets": [{"name": "optimized", "kind": "built-in", "implementation": "optimized torch-2"},
	             {"name": "torch", "kind": "impl", "command": "python3 a.py", "implementation": "torch 2.14.1"}],
	 "workloads": [{"id": "W1", "description": "d", "bytes": 1000000000, "results": [
	   {"target": "optimized", "status": "ok", "seconds": [0.010, 0.011, 0.012, 0.013], "median_ms": 11.5},
	   {"target": "torch", "status": "ok", "seconds": [0.020, 0.021, 0.022, 0.023], "median_ms": 21.5}]}],
	 "pairs": []}`
	oldPath := filepath.Join(dir, "v1.json")
	if err := os.WriteFile(oldPath, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := loadBench(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	w := old.Workloads[0].Results
	if old.Date != "2025-12-01T00:00:00Z" || old.Machine.GOARCH != "amd64" || old.Targets[1].Label != "torch" ||
		w[1].Label != "torch" || len(w[1].SamplesNS) != 4 || w[1].SamplesNS[3] != 23e6 || w[1].MedianNS != 21.5e6 ||
		len(old.Memcpy.SamplesNS) != 2 {
		t.Errorf("schema 1 read as %+v %+v", old, w)
	}
	cur := &benchReport{Profile: "torch-2", Scale: 1, Repeat: 4, Workloads: []benchWorkload{{ID: "W1", Bytes: 1e9,
		Results: []benchResult{{Label: "optimized", Status: benchOK, SamplesNS: samplesMS(4, 5, 0.5)}}}}}
	code, out, errb := runCmd(t, nil, "bench", "-compare", oldPath, writeBenchFile(t, cur))
	if code != 0 || !strings.Contains(out, "11.50") || !strings.Contains(out, "5.75") || !strings.Contains(out, "faster") ||
		!strings.Contains(out, "torch      only in OLD") {
		t.Errorf("exit %d\n%s%s", code, out, errb)
	}
}

func TestBenchCompareBad(t *testing.T) {
	dir := t.TempDir()
	good := writeBenchFile(t, &benchReport{})
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-compare", filepath.Join(dir, "nosuch.json"), good}, "no such file"},
		{[]string{"-compare", good, write("other.json", `{"tool": "scattercheck", "schema": 1}`)}, "not the -json file of scattercheck bench"},
		{[]string{"-compare", good, write("future.json", `{"tool": "scattercheck bench", "schema": 3}`)}, "schema 3"},
		{[]string{"-compare", good, write("broken.json", `{"tool": `)}, "broken.json"},
		{[]string{"-repeat", "3", "-compare", good, good}, "-repeat has no effect"},
		{[]string{"-compare", good, good, good}, "unexpected argument"},
		{[]string{"-compare", filepath.Join(dir, "nosuch.json"), "-scale", "1000"}, "no such file"}, // checked before the run
		{[]string{"-format", "benchstat", "-compare", good}, "does not go with -compare"},
		// results timed without a time, or with a negative one (schema 2 and 1)
		{[]string{"-compare", good, write("notimes.json", `{"tool": "scattercheck bench", "schema": 2,
		  "workloads": [{"id": "W1", "results": [{"label": "x", "status": "ok", "samples_ns": []}]}]}`)}, "x is \"ok\" but has no times"},
		{[]string{"-compare", good, write("zero.json", `{"tool": "scattercheck bench", "schema": 2,
		  "workloads": [{"id": "W1", "results": [{"label": "x", "status": "ok", "samples_ns": [5, -3]}]}]}`)}, "x has a time of -3 ns"},
		{[]string{"-compare", write("v1.json", `{"tool": "scattercheck bench", "schema": 1, "targets": [], "memcpy": {},
		  "workloads": [{"id": "W1", "results": [{"target": "x", "status": "ok", "seconds": []}]}]}`), good}, "x is \"ok\" but has no times"},
	} {
		code, out, errb := runCmd(t, nil, append([]string{"bench"}, c.args...)...)
		if code != 2 || !strings.Contains(errb, c.msg) {
			t.Errorf("%v: exit %d, want 2 and %q\nstdout: %s\nstderr: %s", c.args, code, c.msg, out, errb)
		}
	}
}

// TestBenchCompareRun runs the bench and compares it with a made-up
// earlier run, in the same output.
func TestBenchCompareRun(t *testing.T) {
	old := writeBenchFile(t, &benchReport{Profile: "torch-2", Scale: 1000, Repeat: 2, Workloads: []benchWorkload{{ID: "W1", Bytes: 1,
		Results: []benchResult{{Label: "optimized", Status: benchOK, SamplesNS: []int64{1e12, 1e12}}}}}}) // 1000 s a call
	js := filepath.Join(t.TempDir(), "new.json")
	code, out, errb := runCmd(t, nil, "bench", "-scale", "1000", "-repeat", "2", "-workloads", "W1", "-json", js, "-compare", old)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	// two samples a side: p is at least 2/C(4, 2) = 1/3, so no verdict
	for _, want := range []string{"median ms", "scattercheck bench -compare", "NEW " + js, "1000000.0", "  ~"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := loadBench(js); err != nil {
		t.Error(err)
	}
}

// TestBenchCompareRenamedAndResized: a target whose version changed pairs
// by its name; a workload of another size gets no verdict.
func TestBenchCompareRenamedAndResized(t *testing.T) {
	run := func(label string, bytes int64, ms float64) *benchReport {
		r := &benchReport{Targets: []*benchTarget{{Label: label, Name: "kern", Kind: "impl", Command: "./kern"},
			{Label: "optimized", Name: "optimized", Kind: "built-in"}}, Workloads: []benchWorkload{{ID: "W1", Bytes: bytes, Results: []benchResult{
			{Label: label, Name: "kern", Status: benchOK, Bytes: bytes, SamplesNS: samplesMS(10, ms, 0.01)},
			{Label: "optimized", Name: "optimized", Status: benchOK, Bytes: bytes, SamplesNS: samplesMS(10, 5, 0.01)},
		}}}}
		r.finish()
		return r
	}
	ds := compareBench(run("kern 1.0", 1e6, 10), run("kern 1.1", 1e6, 8))
	if len(ds) != 2 || ds[0].Label != "kern 1.0 -> kern 1.1" || !ds[0].significant() || !(ds[0].Ratio < 0.81) {
		t.Errorf("renamed: %+v", ds)
	}
	// two built-ins of one name are two backends
	a, b := run("kern 1.0", 1e6, 10), run("kern 1.0", 1e6, 10)
	b.Targets[1].Label, b.Workloads[0].Results[1].Label = "optimized-deterministic", "optimized-deterministic"
	if ds = compareBench(a, b); len(ds) != 3 || ds[1].Old != nil || ds[2].New != nil {
		t.Errorf("optimized against optimized-deterministic: %+v", ds)
	}
	ds = compareBench(run("kern 1.0", 1e6, 10), run("kern 1.0", 2e6, 10))
	if len(ds) != 2 || ds[0].timed() || !strings.Contains(whyNotCompared(ds[0]), "another -scale") {
		t.Errorf("resized: %+v, %q", ds, whyNotCompared(ds[0]))
	}
}

// TestBenchFailSlower: -fail-slower fails a comparison where a target got
// slower, beyond the noise, by more than the percentage given, not below
// it; and one whose NEW run was cut short, or did not time a target OLD
// timed.
func TestBenchFailSlower(t *testing.T) {
	report := func(ms float64) *benchReport {
		return &benchReport{Profile: "torch-2", Scale: 1, Repeat: 10, Workloads: []benchWorkload{{ID: "W1", Bytes: 1e6,
			Results: []benchResult{{Label: "kern 1", Name: "kern", Status: benchOK, Bytes: 1e6, SamplesNS: samplesMS(10, ms, 0.01)}}}}}
	}
	old, cur := writeBenchFile(t, report(10)), writeBenchFile(t, report(12)) // 20% slower
	for _, c := range []struct {
		pct  string
		code int
	}{{"10", 1}, {"30", 0}} {
		code, out, errs := runCmd(t, nil, "bench", "-compare", old, "-fail-slower", c.pct, cur)
		if code != c.code || (code == 1) != strings.Contains(out, "FAIL: -fail-slower "+c.pct+"%: W1 kern 1 +19.9%") {
			t.Errorf("-fail-slower %s: exit %d, want %d\n%s%s", c.pct, code, c.code, out, errs)
		}
	}
	cut := report(10)
	cut.Workloads = nil
	writeBenchFile(t, cut) // finish, then cut short as a signal leaves it
	cut.OK, cut.Incomplete = false, "cut short by a signal"
	cutPath := filepath.Join(t.TempDir(), "cut.json")
	if err := cut.writeJSON(cutPath); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, nil, "bench", "-compare", old, "-fail-slower", "30", cutPath)
	if code != 1 || !strings.Contains(out, "NEW was cut short") || !strings.Contains(out, "W1 kern 1 timed in OLD, not in NEW (only in OLD") {
		t.Errorf("-fail-slower against a cut-short run: exit %d\n%s", code, out)
	}
	if code, _, errs := runCmd(t, nil, "bench", "-fail-slower", "5", "-workloads", "W1"); code != 2 || !strings.Contains(errs, "goes with -compare") {
		t.Errorf("-fail-slower alone: exit %d, %q", code, errs)
	}
}
