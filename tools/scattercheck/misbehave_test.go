package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMisbehavingImplementations runs the gate (the built command, so that
// the runs can go side by side) on tools/adapters/misbehave in each of its
// modes: the run always ends, with exit status 1 and a report naming what
// went wrong, or 0 for an implementation that is only slow.
func TestMisbehavingImplementations(t *testing.T) {
	gate := buildTool(t, "tools/scattercheck")
	mb := buildTool(t, "tools/adapters/misbehave")
	cases := []struct {
		mode     string
		code     int
		kinds    []string // failure kinds the report must show
		restarts bool     // the implementation was restarted
	}{
		{"hang", 1, []string{"timeout"}, true},
		{"crash", 1, []string{"crash"}, true},
		{"garbage", 1, []string{"garbage"}, true},
		{"slow", 0, nil, false},
		{"wrong-shape", 1, []string{"mismatch"}, false},
		{"wrong-dtype", 1, []string{"mismatch"}, false},
		{"truncated-base64", 1, []string{"garbage"}, true},
		{"huge-size", 1, []string{"garbage"}, true},
		{"wrong-id", 1, []string{"garbage"}, true},
		{"no-hello", 1, []string{"start"}, false},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			js := filepath.Join(t.TempDir(), "r.json")
			impl := shQuote(mb) + " -mode " + c.mode + " -every 4 -delay 100ms"
			// a short timeout for the hangs, a generous one for the rest
			// (a loaded machine must not turn a slow answer into a hang)
			timeout := "10s"
			if c.mode == "hang" {
				timeout = "700ms"
			}
			t0 := time.Now()
			cmd := exec.Command(gate, "-impl", impl, "-ops", "gather", "-suites", "spec,random", "-checks", "5",
				"-timeout", timeout, "-max-process-failures", "4", "-json", js)
			out, _ := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			if d := time.Since(t0); d > 30*time.Second {
				t.Errorf("the run took %v", d)
			}
			r := readJSONReport(t, js)
			if len(r.Runs) != 1 {
				t.Fatalf("%d runs", len(r.Runs))
			}
			run := r.Runs[0]
			var kinds []string
			for _, cs := range run.Cases {
				if cs.Failure != nil {
					kinds = append(kinds, cs.Failure.Kind)
					if cs.Failure.Summary == "" || cs.Failure.Report == "" {
						t.Errorf("%s: a failure without summary or report", cs.ID)
					}
				}
			}
			for _, k := range c.kinds {
				if !slices.Contains(kinds, k) {
					t.Errorf("no %s failure among %v\n%s", k, kinds, out)
				}
			}
			if c.restarts != (run.Restarts > 0) {
				t.Errorf("restarts %d", run.Restarts)
			}
			if c.code == 1 && !strings.Contains(string(out), "FAIL: the implementation does not conform") {
				t.Errorf("no verdict in the summary:\n%s", out)
			}
			if c.mode == "hang" || c.mode == "crash" {
				// the stderr tail of the implementation is in the report
				found := false
				for _, cs := range run.Cases {
					found = found || cs.Failure != nil && strings.Contains(cs.Failure.Stderr, "misbehave: ")
				}
				if !found {
					t.Error("no failure shows the implementation's stderr")
				}
			}
			if c.mode == "hang" {
				// after -max-process-failures the gate stops sending
				if !slices.Contains(kinds, "gave-up") {
					t.Errorf("the gate kept going after the hangs: %v", kinds)
				}
			}
		})
	}
}

// TestMisbehaveLikelyBug runs the gate on the misbehave adapter's bug
// modes, each a class of the mutant zoo: the report, text and JSON, must
// name that mutant as what some failure looks like (first, or among the
// others that answer alike on that call), and a failure matching no
// mutant must name none.
func TestMisbehaveLikelyBug(t *testing.T) {
	gate := buildTool(t, "tools/scattercheck")
	mb := buildTool(t, "tools/adapters/misbehave")
	cases := []struct {
		mode, ops, mutant string
		checks            string // random calls per operation and dtype; "": 30
	}{
		{"nan-dropped", "scatter_reduce", "nan-dropped-amax", ""},
		{"negative-index-wrapped", "scatter_add,gather", "negative-index-wrapped", ""},
		{"bool-sum-as-and", "scatter_add", "bool-sum-as-and", ""},
		{"half-truncated", "scatter_add,scatter_reduce", "half-truncated", ""},
		{"half-per-step", "scatter_add", "half-accumulates-in-dtype", ""},
		{"half-round-half-away", "scatter_add,scatter_reduce", "rounds-half-away", ""},
		{"half-round-to-odd", "scatter_add,scatter_reduce", "rounds-to-odd", ""},
		// few calls show it (16-bit means of 3 or more terms whose float32
		// sum is inexact in the dtype): more calls, from the gate's fixed seed
		{"mean-of-accumulator", "scatter_reduce", "mean-divides-accumulator", "150"},
		{"wrong-dtype", "gather", "", ""},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			js := filepath.Join(t.TempDir(), "r.json")
			checks := c.checks
			if checks == "" {
				checks = "30"
			}
			cmd := exec.Command(gate, "-impl", shQuote(mb)+" -mode "+c.mode, "-ops", c.ops, "-suites", "spec,random",
				"-checks", checks, "-timeout", "20s", "-json", js)
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, out)
			}
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			var r jsonReport
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			named, failures := map[string]int{}, 0
			for _, run := range r.Runs {
				for _, cs := range run.Cases {
					if f := cs.Failure; f != nil && f.Kind == "mismatch" {
						failures++
						if l := f.LikelyBug; l != nil {
							named[l.Mutant]++
							for _, m := range l.Also {
								named[m]++
							}
						}
					}
				}
			}
			if failures == 0 {
				t.Fatalf("no mismatch\n%s", out)
			}
			t.Logf("%d mismatches; named: %v", failures, named)
			if c.mutant == "" {
				if len(named) > 0 {
					t.Errorf("a wrong dtype looks like no mutant, but the report names %v", named)
				}
				return
			}
			if named[c.mutant] == 0 {
				t.Errorf("no failure is named %s: %v\n%s", c.mutant, named, out)
			}
			if !strings.Contains(string(out), "looks like: ") || !strings.Contains(string(out), c.mutant) {
				t.Errorf("the text report lacks \"looks like: ... %s\":\n%s", c.mutant, out)
			}
		})
	}
}
