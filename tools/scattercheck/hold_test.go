package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/check"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/repro"
)

// Tests that a run tells the truth when there is nothing to judge, and
// that a mistyped command line is refused before anything runs.

// TestNothingPassedFails: a run in which no case passed does not pass,
// whatever the reason, and says why; a random case or a property whose
// every call was answered unsupported did not pass; nor does a run whose
// passes judged only calls that must fail, the others declined.
func TestNothingPassedFails(t *testing.T) {
	dir := t.TempDir()
	star := filepath.Join(dir, "xfail")
	if err := os.WriteFile(star, []byte("*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		// the implementation never starts: an xfail entry cannot excuse it
		{"no start, xfail *", []string{"-impl", "false", "-xfail", star}, "cannot excuse"},
		// every case an expected failure
		{"all xfail", []string{"-impl", "false", "-xfail", star, "-suites", "spec"}, "no case passed"},
		// the parts asked for hold nothing for these operations
		{"nothing run", []string{"-ops", "gather", "-suites", "random", "-checks", "0", "-profile", "torch-2"}, "no case passed"},
		// every call answered unsupported, which -allow-unsupported allows:
		// a random case or a property that judged nothing is no pass
		{"every call declined", []string{"-impl", helperImpl(t, "unsupported"), "-allow-unsupported", "-ops", "gather,scatter_add",
			"-suites", "random,properties", "-checks", "5", "-properties-tier", "short", "-profile", "torch-2"}, "answered unsupported to every call"},
		// every call that should succeed answered unsupported, every
		// argument check right: the spec's error cases and the broken
		// calls pass, and the run computed nothing
		{"only errors answered", []string{"-impl", helperImpl(t, "errors-only"), "-allow-unsupported", "-ops", "scatter_add",
			"-checks", "30", "-properties-tier", "short", "-profile", "torch-2"}, "no case that asks for a result passed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errb := runCmd(t, nil, c.args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, out, errb)
			}
			if strings.Contains(out, "PASS: conforms") {
				t.Errorf("the run reads as a pass:\n%s", out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("the output does not say %q:\n%s", c.want, out)
			}
		})
	}
}

// TestPropertiesDeclined: the properties draw only calls of ops and dtypes
// the implementation claims, so a property some of whose cases it answers
// unsupported fails, naming such a call, as a spec or random case does;
// -allow-unsupported counts them as declined, and the run passes.
func TestPropertiesDeclined(t *testing.T) {
	args := []string{"-impl", helperImpl(t, "decline-rank3"), "-ops", "scatter_add", "-suites", "properties",
		"-checks", "40", "-profile", "torch-2", "-seed", "5"}
	code, out, errb := runCmd(t, nil, args...)
	if code != 1 || strings.Contains(out, "PASS: conforms") {
		t.Fatalf("exit %d, want 1 and no pass\n%s%s", code, out, errb)
	}
	for _, want := range []string{"property/differential/scatter_add", "answered unsupported", "no tensors of 3 or more dims",
		"of which 1 answered unsupported: -allow-unsupported skips them"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	code, out, errb = runCmd(t, nil, append(args, "-allow-unsupported")...)
	if code != 0 || !strings.Contains(out, "cases answered unsupported") {
		t.Errorf("with -allow-unsupported: exit %d, want 0 and the declines noted\n%s%s", code, out, errb)
	}
}

// TestWorkloadsCatchALargePathBug: an implementation that is wrong only
// past 32768 index elements passes the random calls and the properties,
// whose tensors are smaller, and fails the workloads part, on the float32
// workloads whose indices are larger at the default -workload-div (W5's
// index, a row id per source row, has 10,000).
func TestWorkloadsCatchALargePathBug(t *testing.T) {
	base := []string{"-impl", helperImpl(t, "wrong-large"), "-checks", "5", "-properties-tier", "short", "-profile", "torch-2"}
	if code, out, errb := runCmd(t, nil, append(base, "-suites", "random,properties")...); code != 0 {
		t.Fatalf("random and properties: exit %d, want 0 (their calls are smaller than the bug)\n%s%s", code, out, errb)
	}
	code, out, errb := runCmd(t, nil, append(base, "-suites", "workloads", "-v")...)
	if code != 1 {
		t.Fatalf("workloads: exit %d, want 1\n%s%s", code, out, errb)
	}
	for _, w := range []string{"W1", "W2", "W3", "W4", "W6"} {
		if !strings.Contains(out, "--- FAIL workload/"+w) {
			t.Errorf("no failure of workload/%s:\n%s", w, out)
		}
	}
	if strings.Contains(out, "--- FAIL workload/W5") || strings.Contains(out, "--- FAIL workload/W7") || !strings.Contains(out, "workload.MustGet(1, 100)") {
		t.Errorf("workload/W5 or W7 (not broken) failed, or W1's failure does not say how to build its call:\n%s", out)
	}
}

// TestFlagsMatchingNothing: -labels, -ops, -suites and -profile values
// that match nothing are usage errors naming the valid values.
func TestFlagsMatchingNothing(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // a valid value the error names
	}{
		{[]string{"-labels", "no_such_label"}, "scatter_reduce"},
		{[]string{"-labels", "float16,no_such_label"}, "bfloat16"},
		{[]string{"-labels", ","}, "no label"},
		{[]string{"-ops", "nosuch"}, "index_reduce"},
		{[]string{"-ops", ","}, "gather"},
		{[]string{"-suites", ""}, "fixtures"},
		{[]string{"-suites", "nosuch"}, "properties"},
		{[]string{"-profile", "torch-3"}, "torch-1.13"},
		{[]string{"-profile", "torch-3"}, "all"},
	} {
		code, out, errb := runCmd(t, nil, c.args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s%s", c.args, code, out, errb)
			continue
		}
		if !strings.Contains(errb, c.want) {
			t.Errorf("%q: the error does not name %q:\n%s", c.args, c.want, errb)
		}
		if out != "" {
			t.Errorf("%q: something ran:\n%s", c.args, out)
		}
	}
}

// TestOutputPathsCheckedFirst: an unwritable -json, -junit or -repro-dir
// is a usage error before anything runs.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-json", filepath.Join(dir, "nosuch", "r.json")},
		{"-junit", filepath.Join(dir, "nosuch", "r.xml")},
		{"-json", dir},
		{"-repro-dir", filepath.Join(file, "sub")},
		{"-repro-dir", file},
	} {
		// the whole suite would take a minute: a usage error comes at once
		code, out, errb := runCmd(t, nil, append(args, "-profile", "torch-2")...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s%s", args, code, out, errb)
			continue
		}
		if out != "" || !strings.Contains(errb, args[0]) {
			t.Errorf("%q: stdout %q, stderr %q", args, out, errb)
		}
	}
}

// TestFloodingImplementation: an implementation that writes bytes without
// end (never a newline) fails its start at once, and the gate holds no
// more of it than a hello may take. (The bound is generous; the measured
// resident memory is in README.md.)
func TestFloodingImplementation(t *testing.T) {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	t0 := time.Now()
	code, out, errb := runCmd(t, nil, "-impl", "exec cat /dev/zero", "-start-timeout", "20s", "-progress", "0")
	runtime.ReadMemStats(&b)
	if code != 1 || !strings.Contains(out, "longer than") {
		t.Errorf("exit %d, want 1 with a too long hello\n%s%s", code, tailOf(out, 2000), errb)
	}
	if n := b.TotalAlloc - a.TotalAlloc; n > 256<<20 {
		t.Errorf("the gate allocated %d MiB reading the implementation", n>>20)
	}
	if d := time.Since(t0); d > 15*time.Second {
		t.Errorf("the start failed after %v", d)
	}
}

// tailOf is the end of s, for a failure's message.
func tailOf(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// TestNothingPassedErrorsOnly: passes that judged only calls that must
// fail make a run pass when nothing was declined (a selection of argument
// checks), and not when other cases were declined; a pass that computed
// something makes it pass; the mark survives a -json report, which merge
// reads back.
func TestNothingPassedErrorsOnly(t *testing.T) {
	errPass := func() *caseResult {
		return &caseResult{ID: "spec/a", Source: suiteSpec, Status: stPass, ErrorsOnly: true}
	}
	for _, c := range []struct {
		name  string
		cases []*caseResult
		pass  bool
	}{
		{"argument checks alone", []*caseResult{errPass()}, true},
		{"argument checks, the rest not offered", []*caseResult{errPass(),
			{ID: "spec/b", Source: suiteSpec, Status: stSkip, Reason: notOffered + "no"}}, false},
		{"argument checks, random results declined", []*caseResult{errPass(),
			{ID: "random/gather/float32", Source: suiteRandom, Status: stSkip, Reason: fmt.Sprintf(declinedResultsRandom, 3)}}, false},
		{"argument checks, a property declined", []*caseResult{errPass(),
			{ID: "property/differential/gather", Source: suiteProperties, Status: stSkip, Reason: declinedProperty + "all 4" + declinedEvery}}, false},
		{"a result too", []*caseResult{errPass(), {ID: "spec/c", Source: suiteSpec, Status: stPass},
			{ID: "spec/b", Source: suiteSpec, Status: stSkip, Reason: notOffered + "no"}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &runReport{Impl: implInfo{Name: "x"}, Profile: scatter.Torch2, Cases: c.cases}
			checkNothingPassed([]*runReport{r}, nil)
			if got := r.conforms(false); got != c.pass {
				t.Errorf("conforms = %v, want %v", got, c.pass)
			}
		})
	}
	r := &runReport{Impl: implInfo{Name: "x"}, Profile: scatter.Torch2, Cases: []*caseResult{errPass()}}
	js := buildJSON([]*runReport{r}, nil, true)
	if back := caseFromJSON(js.Runs[0].Cases[0]); !back.ErrorsOnly {
		t.Error("errors_only is lost in the -json report")
	}
}

// TestStridedCalls: an implementation that claims the strides extension
// and reads a transposed view as if it were contiguous passes the random
// calls and the properties when operation requests are contiguous (the
// default), and fails both under -strided-calls, which sends their views
// as views. Each failure's repro folder replays it: its request.jsonl,
// fed to the implementation, gets an answer the judge rejects (before,
// the line was the call's contiguous copy, which it answers right).
func TestStridedCalls(t *testing.T) {
	impl := helperImpl(t, "flat-views")
	args := []string{"-impl", impl, "-ops", "scatter_add,gather", "-suites", "random,properties",
		"-checks", "30", "-properties-tier", "short", "-profile", "torch-2", "-seed", "3"}
	if code, out, errb := runCmd(t, nil, args...); code != 0 {
		t.Fatalf("contiguous requests: exit %d, want 0\n%s%s", code, out, errb)
	}
	dir, js := t.TempDir(), filepath.Join(t.TempDir(), "r.json")
	code, out, errb := runCmd(t, nil, append(args, "-strided-calls", "-repro-dir", dir, "-json", js)...)
	if code != 1 {
		t.Fatalf("-strided-calls: exit %d, want 1\n%s%s", code, out, errb)
	}
	run := readJSONReport(t, js).Runs[0]
	if !run.Implementation.Strides || !strings.Contains(out, "claims the strides extension") {
		t.Errorf("the report does not say that the implementation claims the strides extension")
	}
	if !slices.ContainsFunc(run.Notes, func(n string) bool {
		var k int
		_, err := fmt.Sscanf(n, "-strided-calls: %d operation requests carried views", &k)
		return err == nil && k > 0
	}) {
		t.Errorf("no note says how many requests carried views: %q", run.Notes)
	}
	replayed := map[string]int{}
	for _, c := range run.Cases {
		if c.Status != string(stFail) || c.Failure == nil || c.Failure.Repro == "" {
			continue
		}
		replayed[strings.Split(c.ID, "/")[0]]++
		line, err := os.ReadFile(filepath.Join(c.Failure.Repro, "request.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if why := replayRejected(t, impl, line); why != "" {
			t.Errorf("%s: replaying its request.jsonl does not reproduce the failure: %s\n%.600s", c.ID, why, line)
		}
	}
	if replayed["random"] == 0 || replayed["property"] == 0 {
		t.Fatalf("failures with a repro folder: %v, want random cases and properties\n%s", replayed, out)
	}
}

// TestStridedCallsUnclaimed: -strided-calls on an implementation that
// does not claim the strides extension sends every call contiguous, and
// the report says so (a run that checked no view does not look as if it
// had).
func TestStridedCallsUnclaimed(t *testing.T) {
	impl := helperImpl(t, "flat-views") + ` | sed -u 's/"strides":true/"strides":false/'`
	js := filepath.Join(t.TempDir(), "r.json")
	code, out, errb := runCmd(t, nil, "-impl", impl, "-ops", "gather", "-suites", "random", "-checks", "20",
		"-profile", "torch-2", "-seed", "3", "-strided-calls", "-json", js)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (every call contiguous)\n%s%s", code, out, errb)
	}
	const want = "-strided-calls: the implementation does not claim the strides extension"
	run := readJSONReport(t, js).Runs[0]
	if !slices.ContainsFunc(run.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("notes %q, want one starting %q", run.Notes, want)
	}
	if run.Implementation.Strides {
		t.Error("the -json report says the implementation claims the strides extension")
	}
	if !strings.Contains(out, want) {
		t.Errorf("the report does not say it:\n%s", out)
	}
}

// TestPropertyHang: a call that hangs inside a property costs one timeout:
// rapid's replays of the failing case get the timeout it got without the
// call being sent again (before, this one was sent three times, one
// timeout each). The property's repro folder holds the process failure's
// history.jsonl (the requests its process was sent) and its error in
// scattercheck.json, as a spec case's does (before, neither: the
// properties report their failures as text), and its request.jsonl is the
// call that hung, also where that is a relation's second call (with
// -strided-calls, invariants/strided-vs-contiguous's contiguous copy: the
// helper hangs only on calls sent without a view).
func TestPropertyHang(t *testing.T) {
	t.Run("contiguous", func(t *testing.T) { propertyHang(t, "") })
	t.Run("strided-calls", func(t *testing.T) { propertyHang(t, "property/invariants/strided-vs-contiguous", "-strided-calls") })
}

// propertyHang runs TestPropertyHang's check with extra gate flags;
// mustTimeOut names a case that must fail on a timeout ("" for none).
func propertyHang(t *testing.T, mustTimeOut string, extra ...string) {
	dir := t.TempDir()
	hangs, repros, js := filepath.Join(dir, "hangs"), filepath.Join(dir, "repro"), filepath.Join(dir, "r.json")
	impl := benchMarkEnv + "=" + shQuote(hangs) + " " + helperImpl(t, "hang-large")
	code, out, errb := runCmd(t, nil, append([]string{"-impl", impl, "-ops", "scatter_add", "-suites", "properties", "-checks", "20",
		"-properties-tier", "short", "-profile", "torch-2", "-seed", "3", "-timeout", "1s", "-repro-dir", repros, "-json", js}, extra...)...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errb)
	}
	b, err := os.ReadFile(hangs)
	if err != nil {
		t.Fatalf("the helper never hung: %v\n%s", err, out)
	}
	calls := strings.Fields(string(b))
	if len(calls) != len(slices.Compact(slices.Sorted(slices.Values(calls)))) {
		t.Errorf("a call was sent again after it hung (SHA-256 of each hung call: %q)", calls)
	}
	timeouts, named := 0, mustTimeOut == ""
	for _, c := range readJSONReport(t, js).Runs[0].Cases {
		if c.Failure == nil || c.Failure.Kind != protocol.KindTimeout {
			continue
		}
		timeouts++
		named = named || c.ID == mustTimeOut
		if c.Failure.Repro == "" {
			t.Errorf("%s: no repro folder", c.ID)
			continue
		}
		if _, err := os.Stat(filepath.Join(c.Failure.Repro, "history.jsonl")); err != nil {
			t.Errorf("%s: %v", c.ID, err)
		}
		var meta struct{ Error string }
		readJSONInto(t, filepath.Join(c.Failure.Repro, "scattercheck.json"), &meta)
		if !strings.Contains(meta.Error, "timeout") {
			t.Errorf("%s: scattercheck.json's error is %q, want the timeout", c.ID, meta.Error)
		}
		// the repro is the call that hung, whichever of the property's
		// calls it was
		req, err := os.ReadFile(filepath.Join(c.Failure.Repro, "request.jsonl"))
		lines := strings.Split(strings.TrimSpace(string(req)), "\n")
		if err != nil || len(lines) != 2 {
			t.Fatalf("%s: request.jsonl: %v\n%s", c.ID, err, req)
		}
		_, call, err := protocol.DecodeCall([]byte(lines[1]))
		if err != nil {
			t.Fatal(err)
		}
		same, _ := protocol.EncodeOptions{Strides: true}.EncodeCall(0, call)
		if !slices.Contains(calls, fmt.Sprintf("%x", sha256.Sum256(same))) {
			t.Errorf("%s: request.jsonl's call is not the one that hung", c.ID)
		}
	}
	if timeouts == 0 || !named {
		t.Fatalf("%d properties failed with a timeout, want some, %q among them\n%s", timeouts, mustTimeOut, out)
	}
}

// replayRejected feeds a repro folder's request.jsonl (the hello, then one
// call) to the implementation command impl and returns "" when the judge
// (torch-2, conformant) rejects its answer to the call, else why not.
func replayRejected(t *testing.T, impl string, lines []byte) string {
	t.Helper()
	parts := strings.SplitN(strings.TrimSpace(string(lines)), "\n", 2)
	if len(parts) != 2 {
		return "not a hello and a call"
	}
	_, call, err := protocol.DecodeCall([]byte(parts[1]))
	if err != nil {
		return "the call does not decode: " + err.Error()
	}
	cmd := exec.Command("sh", "-c", impl)
	cmd.Stdin = bytes.NewReader(lines)
	got, err := cmd.Output()
	if err != nil {
		return "the implementation: " + err.Error()
	}
	answers := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(answers) != 2 {
		return fmt.Sprintf("%d answer lines", len(answers))
	}
	a, err := protocol.DecodeAnswer([]byte(answers[1]))
	if err != nil {
		return "the answer does not decode: " + err.Error()
	}
	var aerr error
	if a.Err != nil {
		aerr = a.Err
	}
	if reference.Expect(call, scatter.Torch2).Check(scatter.Conformant, a.Result, aerr) == nil {
		return "the judge accepts the answer"
	}
	return ""
}

// TestPropertyFailureFindsTheCallThatFailed: a relation's failure prints
// all its calls; when the one that hung is not the first, the failure's
// call (its repro) and error (its history.jsonl) are that call's, as the
// gate kept them, not the first call's.
func TestPropertyFailureFindsTheCallThatFailed(t *testing.T) {
	call := func(i int64) scatter.Call {
		return scatter.Gather{Input: scatter.FromSlice([]float32{1, 2}), Dim: 0, Index: scatter.FromSlice([]int64{i})}
	}
	first, hung := call(0), call(1)
	pe := &protocol.ProcessError{Kind: protocol.KindTimeout, ID: 7, Op: "gather", Detail: "no answer within 1s"}
	g := &guarded{inner: reference.New(scatter.Torch2)}
	key, ok := g.sentKey(hung)
	if !ok {
		t.Fatal("no key")
	}
	g.failed, g.timedOut = map[[sha256.Size]byte]error{key: pe}, 1
	text := "property p: backend x (torch-2, conformant level): the first call (1) and the second (2) disagree: returned error without a code (" +
		pe.Error() + ")" + repro.Block("call 1", first, false) + repro.Block("call 2", hung, false)
	f := propertyFailure(properties.PropertyReport{Name: "p", Failed: true, Failure: text}, scatter.Torch2, scatter.Conformant, 1, g)
	if f.Kind != protocol.KindTimeout || f.err != error(pe) || repro.Line(f.call) != repro.Line(hung) {
		t.Errorf("kind %s, error %v, call %s; want the timeout of call 2", f.Kind, f.err, repro.Line(f.call))
	}
	if !strings.HasPrefix(f.Summary, "timeout on request 7 (gather)") {
		t.Errorf("summary %q", f.Summary)
	}
}

// TestTitleCountsOtherProfiles: the headline says how many of the skipped
// cases are other profiles' (most of a default run's skips, which say
// nothing about the implementation).
func TestTitleCountsOtherProfiles(t *testing.T) {
	r := &runReport{Impl: implInfo{Name: "x", Version: "1"}, Profile: scatter.Torch2, Cases: []*caseResult{
		{ID: "a", Status: stSkip, Reason: check.OtherProfilePrefix + "[torch-1.13], not of torch-2"},
		{ID: "b", Status: stSkip, Reason: "backend x does not claim gather"},
		{ID: "c", Status: stPass}}}
	if got, want := r.title(), "1 passed, 0 failed, 2 skipped, 1 of them other profiles' cases ("; !strings.Contains(got, want) {
		t.Errorf("title %q, want it to hold %q", got, want)
	}
}
