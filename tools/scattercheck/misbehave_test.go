package main

import (
	"bytes"
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
		{"own-error-kind", 1, []string{"garbage"}, true},
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
				// once: the cases not run are skips, not a failure each
				gaveUp, notRun := 0, 0
				for _, cs := range run.Cases {
					if cs.Failure != nil && cs.Failure.Kind == "gave-up" {
						gaveUp++
						if cs.ID != "gate/gave-up" || !strings.Contains(cs.Failure.Report, "misbehave: hanging") && !strings.Contains(cs.Failure.Report, "timeout") {
							t.Errorf("gave up as %s: %s", cs.ID, cs.Failure.Report)
						}
					}
					if cs.Status == "skip" && strings.Contains(cs.Reason, "not run") {
						notRun++
					}
				}
				if gaveUp != 1 || notRun == 0 {
					t.Errorf("the gate kept going after the hangs, or failed each case not run: %d gave-up failures, %d cases not run; %v", gaveUp, notRun, kinds)
				}
			}
		})
	}
}

// TestCrashHistoryReplays runs the gate on an implementation that crashes on
// every 6th request of a process, which no single request reproduces: the
// crash's repro folder holds history.jsonl (the hello, then the 6 requests
// the process was sent), and feeding it to the implementation crashes it
// again.
func TestCrashHistoryReplays(t *testing.T) {
	gate := buildTool(t, "tools/scattercheck")
	mb := buildTool(t, "tools/adapters/misbehave")
	dir := t.TempDir()
	impl := shQuote(mb) + " -mode crash -every 6"
	cmd := exec.Command(gate, "-impl", impl, "-ops", "gather", "-suites", "spec", "-repro-dir", dir, "-progress", "0")
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	histories, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*", "history.jsonl"))
	if len(histories) == 0 {
		t.Fatalf("no history.jsonl in %s\n%s", dir, out)
	}
	h, err := os.ReadFile(histories[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(h), "\n"), "\n")
	if len(lines) != 7 || lines[0] != `{"id":0,"op":"hello","protocol":1}` {
		t.Fatalf("history.jsonl: %d lines, want the hello and 6 requests:\n%.400s", len(lines), h)
	}
	replay := exec.Command(mb, "-mode", "crash", "-every", "6")
	replay.Stdin = bytes.NewReader(h)
	var stderr bytes.Buffer
	replay.Stderr = &stderr
	err = replay.Run()
	if replay.ProcessState.ExitCode() != 3 || !strings.Contains(stderr.String(), "crashing on request") {
		t.Errorf("the replay did not crash: %v, stderr %q", err, stderr.String())
	}
	// one request alone does not crash it
	one := exec.Command(mb, "-mode", "crash", "-every", "6")
	one.Stdin = strings.NewReader(lines[0] + "\n" + lines[6] + "\n")
	if err := one.Run(); err != nil {
		t.Errorf("the failed request alone crashed it too (%v): the test shows nothing", err)
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
		suites            string // "": spec,random
		level             string // "": conformant
	}{
		{"nan-dropped", "scatter_reduce", "nan-dropped-amax", "", "", ""},
		{"negative-index-wrapped", "scatter_add,gather", "negative-index-wrapped", "", "", ""},
		{"bool-sum-as-and", "scatter_add", "bool-sum-as-and", "", "", ""},
		{"half-truncated", "scatter_add,scatter_reduce", "half-truncated", "", "", ""},
		{"half-per-step", "scatter_add", "half-accumulates-in-dtype", "", "", ""},
		{"half-round-half-away", "scatter_add,scatter_reduce", "rounds-half-away", "", "", ""},
		{"half-round-to-odd", "scatter_add,scatter_reduce", "rounds-to-odd", "", "", ""},
		// few calls show it (16-bit means of 3 or more terms whose float32
		// sum is inexact in the dtype): more calls, from the gate's fixed seed
		{"mean-of-accumulator", "scatter_reduce", "mean-divides-accumulator", "150", "", ""},
		{"subnormals-flushed", "scatter_add,scatter_reduce", "subnormals-flushed", "", "", ""},
		{"index-clamped", "scatter_add,scatter_reduce", "scatter-index-clamped", "", "", ""},
		// the conformant level takes any writer: only strict shows it
		{"first-writer-wins", "scatter", "first-writer-wins", "", "", "strict"},
		{"wrong-dtype", "gather", "", "", "", ""},
		// a workload's output (W7: 10,000 elements at the default
		// -workload-div) is classified past maxLikelyElements
		{"half-per-step", "scatter_add", "half-accumulates-in-dtype", "", "workloads", ""},
	}
	for _, c := range cases {
		name := c.mode
		if c.suites != "" {
			name += "/" + c.suites
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			js := filepath.Join(t.TempDir(), "r.json")
			checks := c.checks
			if checks == "" {
				checks = "30"
			}
			suites := c.suites
			if suites == "" {
				suites = "spec,random"
			}
			level := c.level
			if level == "" {
				level = "conformant"
			}
			cmd := exec.Command(gate, "-impl", shQuote(mb)+" -mode "+c.mode, "-ops", c.ops, "-suites", suites,
				"-checks", checks, "-timeout", "20s", "-level", level, "-json", js)
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, out)
			}
			r := readJSONAs[jsonReport](t, js)
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

// TestMisbehaveXfailPinned runs the gate on misbehave -mode half-per-step
// (16-bit sums rounded at every step: the spec's two float32-accumulation
// cases and, at the default seed, random/scatter_add/bfloat16 fail, each
// looking like mutant half-accumulates-in-dtype) with an xfail file for its failures: pinned
// to that mutant they are XFAIL (exit 0, the JSON and text reports name
// the likely bug); pinned to another, they stand (exit 1, with a warning
// naming what they look like); unpinned, they are XFAIL as before.
func TestMisbehaveXfailPinned(t *testing.T) {
	gate := buildTool(t, "tools/scattercheck")
	mb := buildTool(t, "tools/adapters/misbehave")
	cases := []struct {
		name, like string
		code       int
		want       status
	}{
		{"pinned-right", " like=half-accumulates-in-dtype", 0, stXfail},
		{"pinned-wrong", " like=half-truncated,nan-dropped-amax", 1, stFail},
		{"unpinned", "", 0, stXfail},
	}
	ids := []string{"spec/scatter_add/16-bit/float16/float32-accumulation", "spec/scatter_add/16-bit/bfloat16/float32-accumulation",
		"random/scatter_add/bfloat16"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			js, xf, ju := filepath.Join(dir, "r.json"), filepath.Join(dir, "xfail.txt"), filepath.Join(dir, "r.xml")
			entries := "# 16-bit sums rounded at every step\nspec/scatter_add/16-bit/*" + c.like + " # per step\n" +
				"random/scatter_add/bfloat16" + c.like + "\n"
			if err := os.WriteFile(xf, []byte(entries), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(gate, "-impl", shQuote(mb)+" -mode half-per-step", "-ops", "scatter_add", "-suites", "spec,random",
				"-checks", "30", "-timeout", "20s", "-xfail", xf, "-json", js, "-junit", ju,
				// shrinking to the end on a loaded machine: a call shrunk
				// part way may look like another mutant first
				"-shrink-time", "2m", "-shrink-budget", "4m")
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			r := readJSONAs[jsonReport](t, js)
			byID := map[string]jsonCase{}
			for _, run := range r.Runs {
				for _, cs := range run.Cases {
					byID[cs.ID] = cs
					if cs.Status == stFail && !slices.Contains(ids, cs.ID) {
						t.Errorf("%s fails, which the test does not expect\n%s", cs.ID, out)
					}
				}
			}
			for _, id := range ids {
				cs, ok := byID[id]
				if !ok || cs.Status != c.want {
					t.Errorf("%s: %q, want %s\n%s", id, cs.Status, c.want, out)
					continue
				}
				if c.like != "" && (cs.Failure == nil || cs.Failure.LikelyBug == nil || cs.Failure.LikelyBug.Mutant != "half-accumulates-in-dtype") {
					t.Errorf("%s: the report records no likely bug half-accumulates-in-dtype: %+v", id, cs.Failure)
				}
			}
			text := string(out)
			switch c.name {
			case "pinned-right":
				if !strings.Contains(text, "XFAIL random/scatter_add/bfloat16") || !strings.Contains(text, "(mutant half-accumulates-in-dtype, same outcome)") {
					t.Errorf("the text report does not show the pinned XFAIL with its likely bug:\n%s", out)
				}
				if c := byID["random/scatter_add/bfloat16"]; !slices.Equal(c.XfailLike, []string{"half-accumulates-in-dtype"}) {
					t.Errorf("xfail_like %q", c.XfailLike)
				}
				x, err := os.ReadFile(ju)
				if err != nil {
					t.Fatal(err)
				}
				if n := strings.Count(string(x), "(mutant half-accumulates-in-dtype, same outcome)"); n != len(ids) {
					t.Errorf("the JUnit report shows the likely bug of %d expected failures, want %d", n, len(ids))
				}
			case "pinned-wrong":
				w := `xfail entry "random/scatter_add/bfloat16" (like=half-truncated,nan-dropped-amax) matches random/scatter_add/bfloat16, ` +
					"but its failure looks like half-accumulates-in-dtype; the failure stands"
				if !strings.Contains(text, w) || !slices.ContainsFunc(r.Warnings, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("no warning %q in the text or JSON report:\n%s", w, out)
				}
			}
		})
	}
}

// TestMisbehavePropertyPinned runs the gate's properties on misbehave
// -mode half-per-step: the property keeps only its call, the gate asks the
// implementation again for its answer, so that the failure of
// property/differential/scatter_add is classified and an expected
// failure pinned to the bug it shows is XFAIL (exit 0), one pinned to
// another bug stands (exit 1, with a warning).
func TestMisbehavePropertyPinned(t *testing.T) {
	gate := buildTool(t, "tools/scattercheck")
	mb := buildTool(t, "tools/adapters/misbehave")
	const id = "property/differential/scatter_add"
	for _, c := range []struct {
		like string
		code int
		want status
	}{{"half-accumulates-in-dtype", 0, stXfail}, {"nan-dropped-amax", 1, stFail}} {
		t.Run(c.like, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			js, xf := filepath.Join(dir, "r.json"), filepath.Join(dir, "xfail.txt")
			if err := os.WriteFile(xf, []byte(id+" like="+c.like+" # 16-bit sums rounded at every step\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// gather's differential property passes: a run must pass
			// something (an implementation behind the protocol skips
			// the invariants on storage and views)
			// 400 calls: the property meets a 16-bit sum that rounding
			// at every step changes on every seed tried (1-6); at 30,
			// on one seed in four
			cmd := exec.Command(gate, "-impl", shQuote(mb)+" -mode half-per-step", "-ops", "scatter_add,gather", "-suites", "properties",
				"-checks", "400", "-timeout", "20s", "-xfail", xf, "-json", js, "-shrink-time", "2m", "-shrink-budget", "4m")
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			r := readJSONAs[jsonReport](t, js)
			var got *jsonCase
			for _, run := range r.Runs {
				for i, cs := range run.Cases {
					if cs.ID == id {
						got = &run.Cases[i]
					}
				}
			}
			if got == nil || got.Status != c.want || got.Failure == nil {
				t.Fatalf("%s: %+v, want status %s\n%s", id, got, c.want, out)
			}
			l := got.Failure.LikelyBug
			if l == nil || l.Mutant != "half-accumulates-in-dtype" && !slices.Contains(l.Also, "half-accumulates-in-dtype") {
				t.Errorf("the property's failure is not classified as half-accumulates-in-dtype: %+v\n%s", l, out)
			}
			if c.code == 1 && !strings.Contains(string(out), "the failure stands") {
				t.Errorf("no warning that the pinned failure stands:\n%s", out)
			}
		})
	}
}
