package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func TestImplLabel(t *testing.T) {
	for _, c := range []struct{ name, version, want string }{
		{"torch", "2.14.1", "torch 2.14.1"},
		{"torch", "1.13.0a0", "torch 1.13.0a0"},
		{"torch+torch_scatter-2.1.2", "2.14.1", "torch 2.14.1+torch_scatter-2.1.2"},
		{"torch+torch_scatter-2.1.2", "2.14.1+debian", "torch 2.14.1+torch_scatter-2.1.2"},
		{"torch", "2.6.0+cpu", "torch 2.6.0"},
		{"x", "+local", "x +local"},
		{"jax", "0.10.2 (jaxlib 0.10.2, cpu, x64)", "jax 0.10.2"},
		{"numpy", "", "numpy"},
		{"", "", ""},
		{"", "3", "3"},
		{" helper ", " 1 ", "helper 1"},
	} {
		if got := implLabel(c.name, c.version); got != c.want {
			t.Errorf("implLabel(%q, %q) = %q, want %q", c.name, c.version, got, c.want)
		}
	}
}

// TestBenchstatFormat writes a made-up run as Go benchmark lines.
func TestBenchstatFormat(t *testing.T) {
	r := &benchReport{Profile: "torch-2", Scale: 1, Repeat: 2, Warmup: 3,
		Machine: benchMachine{GOOS: "linux", GOARCH: "amd64", CPUModel: "A CPU @ 2GHz"},
		Memcpy:  benchMemcpy{Bytes: 2e6, SamplesNS: []int64{1000, 2000}},
		Workloads: []benchWorkload{{ID: "W1", Bytes: 4e6, Results: []benchResult{
			{Label: "optimized", Status: benchOK, SamplesNS: []int64{2e6, 4e6}, PeakRSS: 1 << 30},
			{Label: "torch 2.14.1+ts=a/b", Status: benchOK, SamplesNS: []int64{8e6}},
			{Label: "numpy 1.24.2", Status: benchUnsupported, Reason: "no"},
		}}},
	}
	var b bytes.Buffer
	r.writeBenchstat(&b)
	want := `goos: linux
goarch: amd64
cpu: A CPU @ 2GHz
profile: torch-2
scale: 1
repeat: 2
warmup: 3
BenchmarkMemcpy 1 1000 ns/op 2000000.00 MB/s
BenchmarkMemcpy 1 2000 ns/op 1000000.00 MB/s
BenchmarkW1/target=optimized 1 2000000 ns/op 2000.00 MB/s 1073741824 peak-RSS-B
BenchmarkW1/target=optimized 1 4000000 ns/op 1000.00 MB/s
BenchmarkW1/target=torch-2.14.1+ts_a_b 1 8000000 ns/op 500.00 MB/s
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestBenchFormatBenchstat runs the bench with -format benchstat: every
// line is a configuration line or a benchmark line of the Go format.
func TestBenchFormatBenchstat(t *testing.T) {
	code, out, errb := runCmd(t, nil, "bench", "-scale", "1000", "-repeat", "2", "-workloads", "W1,W7", "-format", "benchstat")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	benchmarks := map[string]int{}
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if !strings.HasPrefix(line, "Benchmark") {
			if k, _, ok := strings.Cut(line, ": "); !ok || strings.ContainsAny(k, " \t") {
				t.Errorf("neither a benchmark nor a configuration line: %q", line)
			}
			continue
		}
		// name, iterations, then value-unit pairs
		if len(f) < 6 || len(f)%2 != 0 || f[1] != "1" || f[3] != "ns/op" || f[5] != "MB/s" {
			t.Errorf("benchmark line %q", line)
			continue
		}
		for i := 2; i < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err != nil || !(v > 0) {
				t.Errorf("%q: value %q", line, f[i])
			}
		}
		// the peak RSS on the first line of each workload and target
		if first := benchmarks[f[0]] == 0; rssReadable && f[0] != "BenchmarkMemcpy" && first != (len(f) == 8 && f[7] == "peak-RSS-B") {
			t.Errorf("%q: peak RSS where not expected, or not where expected (first line %v)", line, first)
		}
		benchmarks[f[0]]++
	}
	want := map[string]int{"BenchmarkMemcpy": 6, "BenchmarkW1/target=optimized": 2, "BenchmarkW7/target=optimized": 2}
	if len(benchmarks) != len(want) {
		t.Errorf("benchmarks %v, want %v", benchmarks, want)
	}
	for k, n := range want {
		if benchmarks[k] != n {
			t.Errorf("%s: %d lines, want %d", k, benchmarks[k], n)
		}
	}
}
