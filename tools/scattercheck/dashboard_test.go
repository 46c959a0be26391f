package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
)

// syntheticRun is a run of the gate over scatter, scatter_reduce and
// gather whose matrix and cases give every kind of cell.
func syntheticRun() jsonRun {
	c := func(id, op, dt string, st status, reason, note string) jsonCase {
		return jsonCase{ID: id, Source: "spec", Op: op, DType: dt, Status: st, Reason: reason, Note: note}
	}
	xf := c("spec/scatter_reduce/amax/float32/nan", "scatter_reduce", "float32", stXfail, "max loses a NaN", "")
	xf.Failure = &jsonFailure{Kind: "mismatch",
		Summary: "1 of 2 elements do not conform; out[0]: got 5.0, allowed nan (any payload)",
		Report: "case scatter_reduce/amax/float32/nan\n  call:   scatter_reduce(self=float32[2](1.0 1.0), dim=0, index=int64[2](0 0), " +
			"src=float32[2](nan 5.0), reduce=\"amax\", include_self=True)\n1. the judge rejects"}
	notOffered := c("spec/scatter/bool/a", "scatter", "bool", stSkip, "not offered: no bool add", "")
	notOffered.Failure = &jsonFailure{Kind: "unsupported", Summary: "answered unsupported: no bool add", Report: "  call: scatter(...)",
		Request: `{"id":1}`, PyTorch: "import torch"}
	fl := c("random/scatter_reduce/int8", "scatter_reduce", "int8", stFail, "", "")
	fl.Failure = &jsonFailure{Kind: "mismatch", Summary: "succeeded, want error shape_mismatch",
		Report: "  call: scatter_reduce(self=int8[1](0), dim=0, index=int64[2](0 0), src=int8[1](1), reduce=\"sum\", include_self=True)"}
	return jsonRun{
		Implementation: implInfo{Name: "fw", Version: "1.0 (test)", Ops: []string{"scatter", "scatter_reduce", "gather"}},
		Profile:        "torch-2", Level: "conformant", Seed: 1, Checks: 30,
		Summary: map[string]int{"pass": 11, "xfail": 1, "fail": 1, "skip": 5, "total": 18},
		Matrix: []jsonCell{
			{Op: "scatter", DType: "float32", Counts: cntJS{stPass: 3}},
			{Op: "scatter", DType: "bool", Counts: cntJS{stPass: 2, stSkip: 1}},
			{Op: "scatter", DType: "int64", Counts: cntJS{stPass: 1, stSkip: 1}},
			{Op: "scatter_reduce", DType: "float32", Counts: cntJS{stPass: 2, stXfail: 1}},
			{Op: "scatter_reduce", DType: "int8", Counts: cntJS{stPass: 1, stFail: 1}},
			{Op: "gather", DType: "float64", Counts: cntJS{stPass: 1}},
			{Op: "gather", DType: "float32", Counts: cntJS{stSkip: 2}},
			{Op: "gather", DType: "int8", Counts: cntJS{stPass: 1, stSkip: 1}},
			{Op: "gather", DType: "int32", Counts: cntJS{stPass: 1, stSkip: 1}},
		},
		Cases: []jsonCase{
			c("spec/scatter/float32/a", "scatter", "float32", stPass, "", ""),
			notOffered,
			c("spec/scatter/int64/a", "scatter", "int64", stSkip, "not offered: index 3 is outside [0, 3): PyTorch raises", ""),
			xf, fl,
			c("random/gather/float64", "gather", "float64", stPass, "", "30 of 30 calls answered unsupported (not offered)"),
			c("random/gather/int8", "gather", "int8", stPass, "", "3 of 30 calls answered unsupported (not offered)"),
			c("spec/gather/float32/a", "gather", "float32", stSkip, "the case's truth is that of [torch-1.13], not of torch-2", ""),
			c("spec/gather/int8/a", "gather", "int8", stSkip, "backend fw does not claim gather on int8", ""),
			// an argument check passed; every call that should succeed declined
			c("spec/gather/int32/bad-index", "gather", "int32", stPass, "", ""),
			c("random/gather/int32", "gather", "int32", stSkip, fmt.Sprintf(declinedResultsRandom, 4), "26 of 30 calls answered unsupported (declined)"),
		},
	}
}

// TestDashboardTableRendering: the framework × operation × dtype table
// from a synthetic report, cell by cell, and the same table from the
// report compacted.
func TestDashboardTableRendering(t *testing.T) {
	rep := dashReport{jsonReport: jsonReport{Tool: "scattercheck", Schema: jsonSchema, Runs: []jsonRun{syntheticRun()}}}
	want := "| framework | version | operation | bool | uint8 | int8 | int16 | int32 | int64 | float16 | bfloat16 | float32 | float64 |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n" +
		"| fw ([report](fw.json)) | 1.0 (test) | `scatter` | ok, part | — | — | — | — | ok | — | — | ok | — |\n" +
		"|  |  | `scatter_reduce` | — | — | FAIL | — | — | — | — | — | differs | — |\n" +
		"|  |  | `gather` | — | — | ok | — | ok, part | — | — | — | — | — |\n"
	got := renderTable([]loadedReport{{file: "fw.json", rep: rep}})
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}

	compact := compactReport(rep.jsonReport, "fw", []string{"-impl", "x", "-json", "/tmp/r.json", "-checks", "30"}, 1500*time.Millisecond)
	if got := renderTable([]loadedReport{{file: "fw.json", rep: compact}}); got != want {
		t.Errorf("table of the compacted report:\n%s\nwant:\n%s", got, want)
	}
	var ids []string
	for _, c := range compact.Runs[0].Cases {
		ids = append(ids, c.ID)
	}
	wantIDs := "spec/scatter/bool/a spec/scatter/int64/a spec/scatter_reduce/amax/float32/nan random/scatter_reduce/int8 random/gather/float64 random/gather/int8 random/gather/int32"
	if strings.Join(ids, " ") != wantIDs {
		t.Errorf("compacted cases %v, want %s", ids, wantIDs)
	}
	if f := compact.Runs[0].Cases[0].Failure; f == nil || f.Request != "" || f.PyTorch != "" || f.Report == "" {
		t.Errorf("the kept skip's failure: %+v", f)
	}
	if f := rep.Runs[0].Cases[1].Failure; f.Request == "" {
		t.Errorf("compacting changed the gate's report: %+v", f)
	}
	om := compact.Dashboard.Omitted[0]
	if om.Pass != 2 || om.Skip != 2 || om.SkipReasons["backend fw does not claim gather on int8"] != 1 {
		t.Errorf("omitted %+v", om)
	}
	if g := strings.Join(compact.Dashboard.Gate, " "); g != "-impl x -checks 30" || compact.Dashboard.Seconds != 1.5 {
		t.Errorf("gate %q, seconds %v", g, compact.Dashboard.Seconds)
	}

	diffs := renderDifferences([]loadedReport{{file: "fw.json", rep: compact}})
	for _, w := range []string{
		"| max loses a NaN | 1 | `spec/scatter_reduce/amax/float32/nan` | `scatter_reduce(self=float32[2](1.0 1.0), dim=0, index=int64[2](0 0), src=float32[2](nan 5.0), reduce=\"amax\", include_self=True)` | nan (any payload) | out[0] = 5.0 |",
		"| **FAIL, no xfail entry** | 1 | `random/scatter_reduce/int8` |",
		"| error shape_mismatch | succeeded |",
	} {
		if !strings.Contains(diffs, w) {
			t.Errorf("differences lack %q:\n%s", w, diffs)
		}
	}
}

// TestDashboardReadmeBlocks: the generated blocks are rewritten, the text
// around them kept, and a block missing from the file appended.
func TestDashboardReadmeBlocks(t *testing.T) {
	first := renderReadme("", nil, nil)
	for _, b := range readmeBlocks {
		if !strings.Contains(first, beginMarker(b.name)) || !strings.Contains(first, endMarker(b.name)) {
			t.Fatalf("skeleton lacks block %s:\n%s", b.name, first)
		}
	}
	edited := strings.Replace(first, "## The table", "## The table\n\nHand-written: how to read it.", 1)
	edited = strings.Replace(edited, beginMarker("table")+"\n", beginMarker("table")+"\nstale table\n", 1)
	i := strings.Index(edited, beginMarker("repros"))
	j := strings.Index(edited, endMarker("repros")) + len(endMarker("repros"))
	edited = edited[:i] + "Hand-written: the end." + edited[j:]

	rep := dashReport{jsonReport: jsonReport{Tool: "scattercheck", Schema: jsonSchema, Runs: []jsonRun{syntheticRun()}}}
	got := renderReadme(edited, []framework{{Name: "fw"}}, []loadedReport{{fw: framework{Name: "fw"}, file: "fw.json", rep: rep}})
	for _, w := range []string{"Hand-written: how to read it.", "Hand-written: the end.", "| fw ([report](fw.json)) |"} {
		if !strings.Contains(got, w) {
			t.Errorf("README lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "stale table") {
		t.Errorf("the stale table was kept:\n%s", got)
	}
	if k := strings.Index(got, beginMarker("repros")); k < strings.Index(got, "Hand-written: the end.") {
		t.Errorf("the missing repros block was not appended at the end:\n%s", got)
	}
	again := renderReadme(got, []framework{{Name: "fw"}}, []loadedReport{{fw: framework{Name: "fw"}, file: "fw.json", rep: rep}})
	if again != got {
		t.Errorf("a second rendering differs:\n%s\nfirst:\n%s", again, got)
	}
}

// TestDashboardEndToEnd runs the dashboard in a temporary folder on the
// Go example adapter answering as torch 1.13 (so that three spec cases of
// scatter_reduce differ from torch 2), beside a framework that is not
// installed: the run passes with two xfail entries, the compact report
// and the README say so, the repro's output is kept; without the int32
// entry the run fails and the table says FAIL.
func TestDashboardEndToEnd(t *testing.T) {
	ex := buildTool(t, "tools/adapters/example")
	dir := t.TempDir()
	t.Setenv("SCATTER_CACHE", filepath.Join(dir, "cache"))
	xfail := filepath.Join(dir, "xfail.txt")
	repro := filepath.Join(dir, "repro.sh")
	if err := os.WriteFile(repro, []byte("echo 'max alias: raises'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "docs")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	table := []framework{
		{Name: "example", Command: shQuote(ex) + " -profile torch-1.13", Runner: "sh", Xfail: xfail, Repro: repro,
			Gate: []string{"-ops", "scatter_reduce", "-suites", "spec"}},
		{Name: "absent", Install: "absent"},
	}
	write := func(entries string) {
		if err := os.WriteFile(xfail, []byte(entries), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (int, string) {
		var o, e bytes.Buffer
		code := dashboard(table, append([]string{"-dir", out, "-progress", "0"}, args...), &o, &e)
		return code, o.String() + e.String()
	}

	write("spec/scatter_reduce/float32/reduce-alias-*/keeps/*  # torch 1.13 has no max and min aliases\n" +
		"spec/scatter_reduce/float32/index-int32/*  # torch 1.13 takes int64 indices only\n")
	code, text := run()
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, text)
	}
	if !strings.Contains(text, "skipped, not installed: absent (") {
		t.Errorf("the absent framework is not named as skipped:\n%s", text)
	}
	b, err := os.ReadFile(filepath.Join(out, "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep dashReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	r := rep.Runs[0]
	if !rep.Conforms || r.Summary["xfail"] != 3 || rep.Dashboard == nil || rep.Dashboard.Omitted[0].Pass != r.Summary["pass"] ||
		len(r.Cases) != 3 || !strings.Contains(rep.Dashboard.ReproOutput, "max alias: raises") {
		t.Errorf("report: conforms %v, summary %v, %d cases, dashboard %+v", rep.Conforms, r.Summary, len(r.Cases), rep.Dashboard)
	}
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"| example | 0.1 (torch-1.13) |",
		"| example ([report](example.json)) | 0.1 (torch-1.13) | `scatter_reduce` | — | — | — | — | — | ok | — | — | differs | — |",
		"| torch 1.13 has no max and min aliases | 2 |",
		"| torch 1.13 takes int64 indices only | 1 |",
		"Not installed when the dashboard last ran, so not here: absent",
		"max alias: raises",
	} {
		if !strings.Contains(string(readme), w) {
			t.Errorf("README lacks %q:\n%s", w, readme)
		}
	}

	// hand-written text survives a run; without the int32 entry the run fails
	hand := strings.Replace(string(readme), "## The table\n", "## The table\n\nHand-written.\n", 1)
	if err := os.WriteFile(filepath.Join(out, "README.md"), []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	write("spec/scatter_reduce/float32/reduce-alias-*/keeps/*  # torch 1.13 has no max and min aliases\n")
	code, text = run("-frameworks", "example", "-repros=false")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, text)
	}
	readme, _ = os.ReadFile(filepath.Join(out, "README.md"))
	for _, w := range []string{"Hand-written.", "| FAIL | — |", "**FAIL, no xfail entry**", "max alias: raises"} {
		if !strings.Contains(string(readme), w) {
			t.Errorf("second README lacks %q:\n%s", w, readme)
		}
	}
	if code, text := run("-frameworks", "nosuch"); code != 2 || !strings.Contains(text, "unknown framework") {
		t.Errorf("-frameworks nosuch: exit %d\n%s", code, text)
	}
	// asked for by name and not installed: the run fails
	if code, text := run("-frameworks", "absent"); code != 1 || !strings.Contains(text, "skipped, not installed: absent (") ||
		!strings.Contains(text, "FAIL: frameworks asked for by -frameworks were not run") {
		t.Errorf("-frameworks absent, not installed: exit %d, want 1\n%s", code, text)
	}
	// installed, but its install fails when run again: a failure, not a skip
	if err := os.MkdirAll(filepath.Join(dir, "cache", "frameworks", "absent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, text := run("-frameworks", "absent"); code != 1 || !strings.Contains(text, "FAIL: installed, but their install failed: absent (") ||
		strings.Contains(text, "skipped, not installed") {
		t.Errorf("-frameworks absent, its install failing: exit %d, want 1\n%s", code, text)
	}
}

// TestRunCellsProperty: a property's case has no dtype, so the matrix
// does not count it; its expected failure marks the cell of the call it
// failed on (here an ok scatter_add float16 becomes differs), its failure
// fails that cell, and a cell the run does not have stays out.
func TestRunCellsProperty(t *testing.T) {
	req := func(dt scatter.DType) string {
		z, err := scatter.Zeros(dt, 2)
		if err != nil {
			t.Fatal(err)
		}
		c := scatter.ScatterAdd{Self: z, Index: scatter.FromSlice([]int64{0, 0}), Src: z}
		line, err := protocol.EncodeCall(1, c)
		if err != nil {
			t.Fatal(err)
		}
		return string(line)
	}
	ok := cntJS{stPass: 3}
	run := func(st status, dt scatter.DType) jsonRun {
		return jsonRun{
			Matrix: []jsonCell{{Op: "scatter_add", DType: "float16", Counts: ok}, {Op: "scatter_add", DType: "float32", Counts: ok}},
			Cases: []jsonCase{{ID: "property/differential/crowded", Op: "", Status: st,
				Failure: &jsonFailure{Request: req(dt)}}},
		}
	}
	for _, tc := range []struct {
		st   status
		dt   scatter.DType
		want cellKind
	}{{stXfail, scatter.DTFloat16, cellDiffers}, {stFail, scatter.DTFloat16, cellFail}, {stPass, scatter.DTFloat16, cellOK}, {stXfail, scatter.DTInt8, cellOK}} {
		cells := runCells(run(tc.st, tc.dt))
		if got := cells[[2]string{"scatter_add", "float16"}]; got != tc.want {
			t.Errorf("%v on %v: float16 cell %v, want %v", tc.st, tc.dt, got, tc.want)
		}
		if got := cells[[2]string{"scatter_add", "float32"}]; got != cellOK {
			t.Errorf("%v on %v: float32 cell %v, want ok", tc.st, tc.dt, got)
		}
		if _, ok := cells[[2]string{"scatter_add", "int8"}]; ok {
			t.Errorf("a cell the run does not have was made")
		}
	}
}
