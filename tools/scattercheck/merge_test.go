package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// shardReport is a -json report of shard i of 2 of implementation x whose
// one case passes (or has status st).
func shardReport(shard string, id string, st status) jsonReport {
	return jsonReport{Tool: "scattercheck", Schema: jsonSchema, Conforms: true, Complete: true, ToolVersion: "v1.0.0", Runs: []jsonRun{{
		Implementation: implInfo{Name: "x", Version: "1", Command: "x-impl"}, Profile: "torch-2", Level: "conformant",
		Suites: []string{"spec"}, Seed: 1, Checks: 100, Shard: shard,
		Cases: []jsonCase{{ID: id, Source: "spec", Status: st}}}}}
}

// TestMergeShardsThatDoNotJoin: shards of one implementation that ran
// with different settings, one cut short, one whose implementation did
// not start, or of another level merge into an incomplete report whose
// reason names the input; -strict-xfail on one shard fails the merged
// run's XPASS.
func TestMergeShardsThatDoNotJoin(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(r *jsonReport)
		want   string // in the incomplete reason; "" for a complete merge
	}{
		{"alike", func(*jsonReport) {}, ""},
		{"seed", func(r *jsonReport) { r.Runs[0].Seed = 2 }, "s2.json (shard 2/2): seed 2, checks 100"},
		{"checks", func(r *jsonReport) { r.Runs[0].Checks = 10 }, "different settings"},
		{"xfail-file", func(r *jsonReport) { r.Runs[0].Settings = "-xfail sha256:ab" }, "s2.json (shard 2/2): seed 1, checks 100, -xfail sha256:ab"},
		{"strided-calls", func(r *jsonReport) { r.Runs[0].Settings = "-strided-calls" }, "different settings"},
		{"cut-short", func(r *jsonReport) { r.Complete, r.Incomplete = false, partialReason }, "s2.json (shard 2/2): " + partialReason},
		{"not-started", func(r *jsonReport) { r.Runs[0].Implementation.Name = notStarted }, "did not start in s2.json (shard 2/2)"},
		{"level", func(r *jsonReport) { r.Runs[0].Level = "strict" }, "x 1 (torch-2, strict level, -impl 'x-impl')"},
		{"tool-version", func(r *jsonReport) { r.ToolVersion = "v0.9.0" }, "different versions of scattercheck (s2.json: v0.9.0; s1.json: v1.0.0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			second := shardReport("2/2", "spec/b", stPass)
			c.change(&second)
			out, _, err := mergeReports([]mergeInput{{"s1.json", shardReport("1/2", "spec/a", stPass)}, {"s2.json", second}}, false)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if !out.Complete || !out.Conforms {
					t.Errorf("complete %v, conforms %v (%s), want both", out.Complete, out.Conforms, out.Incomplete)
				}
				return
			}
			if out.Complete || out.Conforms || !strings.Contains(out.Incomplete, c.want) {
				t.Errorf("complete %v, conforms %v, incomplete %q; want an incomplete merge saying %q", out.Complete, out.Conforms, out.Incomplete, c.want)
			}
		})
	}
	t.Run("strict-xfail", func(t *testing.T) {
		for _, strict := range []bool{false, true} {
			second := shardReport("2/2", "spec/b", stXpass)
			second.Runs[0].StrictXfail = strict
			out, _, err := mergeReports([]mergeInput{{"s1.json", shardReport("1/2", "spec/a", stPass)}, {"s2.json", second}}, false)
			if err != nil {
				t.Fatal(err)
			}
			if out.Conforms == strict || out.Runs[0].StrictXfail != strict {
				t.Errorf("a shard with strict_xfail %v and an XPASS: merged conforms %v, strict_xfail %v", strict, out.Conforms, out.Runs[0].StrictXfail)
			}
		}
	})
}

// TestMergeRefusesToOverwrite: merge does not write its report over an
// input or over a shard's report (OUT.json forgotten).
func TestMergeRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r jsonReport) string {
		p := filepath.Join(dir, name)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s1 := write("s1.json", shardReport("1/2", "spec/a", stPass))
	s2 := write("s2.json", shardReport("2/2", "spec/b", stPass))
	before, _ := os.ReadFile(s1)
	code, _, errs := runCmd(t, nil, "merge", s1, s2)
	if after, _ := os.ReadFile(s1); code != 2 || !strings.Contains(errs, "holds the report of shard 1/2") || string(after) != string(before) {
		t.Errorf("merge s1.json s2.json: exit %d, %q; s1.json changed: %v", code, errs, string(after) != string(before))
	}
	if code, _, errs := runCmd(t, nil, "merge", s2, s1, s2); code != 2 || !strings.Contains(errs, "both the merged report and an input") {
		t.Errorf("merge s2.json s1.json s2.json: exit %d, %q", code, errs)
	}
	merged := filepath.Join(dir, "merged.json")
	for range 2 { // a merged report is written over, as any new file
		if code, out, errs := runCmd(t, nil, "merge", merged, s1, s2); code != 0 {
			t.Errorf("merge merged.json s1.json s2.json: exit %d\n%s%s", code, out, errs)
		}
	}
}

// TestSettings: the flags that change verdicts, as a run's JSON records
// them for merge; none at their defaults.
func TestSettings(t *testing.T) {
	cfg := &gateConfig{timeout: defaultTimeout, maxProcFailures: defaultMaxProcFailures}
	if s := cfg.settings(); s != "" {
		t.Errorf("defaults: settings %q, want none", s)
	}
	cfg = &gateConfig{timeout: time.Minute, maxProcFailures: 3, allowUnsupported: true, stridedCalls: true, xfailPath: "x.txt", xfailDigest: "ab12"}
	if s, want := cfg.settings(), "-allow-unsupported -strided-calls -xfail sha256:ab12 -timeout 1m0s -max-process-failures 3"; s != want {
		t.Errorf("settings %q, want %q", s, want)
	}
	l, err := loadXfail(filepath.Join("..", "adapters", "xfail", "numpy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.digest) != 64 {
		t.Errorf("loadXfail: digest %q, want 64 hex digits", l.digest)
	}
}

// TestInterruptedLineNamesShard: a shard cut short says which shard, and
// counts its own cases.
func TestInterruptedLineNamesShard(t *testing.T) {
	got := interruptedLine("the -deadline of 3s was reached after 5s", 10, 20, &gateConfig{shard: shard{index: 2, count: 4}})
	if !strings.HasPrefix(got, "INCOMPLETE: shard 2/4: the -deadline of 3s was reached after 5s: 10 of about 20 of its cases done") {
		t.Errorf("%q", got)
	}
}
