package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
)

// The dashboard's reports are the gate's -json reports (schema 1, every
// field kept) made compact: a run of the gate holds every case in full,
// some 8,000 of them, most of them passing or skipped because the
// framework does not claim them or they belong to another profile, which
// makes a report of about 6 MB. The dashboard keeps in full only the
// cases that say something about the framework:
//
//   - every case that did not pass or skip (fail, unsupported, xfail,
//     xpass), with its failure;
//   - every case skipped because the framework answered "unsupported"
//     (reason "not offered: ..."), which the table shows as a gap, with
//     its failure's request line and PyTorch program left out (the
//     judge's report still shows the call), and every random pair
//     skipped because all its calls, or all those that should succeed,
//     were (reason "every call ...");
//   - every passing random pair some of whose calls were answered
//     unsupported (its note says how many);
//
// and leaves out the others, counted in the "dashboard" object beside the
// report's fields: per run, the number of passing and of skipped cases
// left out and the skipped ones by reason. The run's summary, matrix
// (counts per operation × dtype) and features are the gate's, untouched,
// so every count of the full report is still there.

// dashReport is a committed report: the gate's report with its cases
// compacted, and what was done to it.
type dashReport struct {
	jsonReport
	Dashboard *dashInfo `json:"dashboard,omitempty"`
}

// dashInfo says how a report was made and compacted.
type dashInfo struct {
	Framework string         `json:"framework"`
	Gate      []string       `json:"gate"`    // the gate's flags (its -json, a temporary file, left out)
	Seconds   float64        `json:"seconds"` // the gate run's wall time
	Compacted string         `json:"compacted"`
	Omitted   []omittedCases `json:"omitted"` // one per run, in the order of runs
	// Repro is the framework's repro script, ReproOutput what it printed
	// (the command line first) when the dashboard last ran it.
	Repro       string `json:"repro,omitempty"`
	ReproOutput string `json:"repro_output,omitempty"`
}

// omittedCases counts the cases of one run left out of the report.
type omittedCases struct {
	Pass        int            `json:"pass"`
	Skip        int            `json:"skip"`
	SkipReasons map[string]int `json:"skip_reasons"`
}

const compactedNote = "cases that passed, and cases skipped for any reason but an \"unsupported\" answer, are left out " +
	"and counted in omitted (per run); the skipped cases kept have no request line or PyTorch program; " +
	"summary, matrix and features are the gate's, over every case"

// allUnsupported matches the gate's note on a random pair whose calls were
// answered unsupported (gate.go).
var allUnsupported = regexp.MustCompile(`(\d+) of (\d+) calls answered unsupported`)

// keepCase says whether a case stays in full in the compacted report.
func keepCase(c jsonCase) bool {
	switch c.Status {
	case stPass:
		return allUnsupported.MatchString(c.Note)
	case stSkip:
		return declinedSkip(c.Reason)
	}
	return true
}

// declinedSkip reports whether a skipped case's reason says the framework
// declined it: a case answered unsupported, or a random pair all of whose
// calls, or all those that should succeed, were (gate.go).
func declinedSkip(reason string) bool {
	return strings.HasPrefix(reason, notOffered) || reason == declinedRandom || strings.HasPrefix(reason, declinedResultsPrefix)
}

// compactReport makes the committed report from the gate's.
func compactReport(rep jsonReport, name string, args []string, wall time.Duration) dashReport {
	var gate []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-json" && i+1 < len(args) {
			i++
			continue
		}
		gate = append(gate, args[i])
	}
	info := &dashInfo{Framework: name, Gate: gate, Seconds: wall.Round(time.Millisecond).Seconds(), Compacted: compactedNote}
	out := rep
	out.Runs = make([]jsonRun, len(rep.Runs))
	for i, r := range rep.Runs {
		om := omittedCases{SkipReasons: map[string]int{}}
		kept := []jsonCase{}
		for _, c := range r.Cases {
			if keepCase(c) {
				if c.Status == stSkip && c.Failure != nil {
					f := *c.Failure
					f.Request, f.PyTorch = "", ""
					c.Failure = &f
				}
				kept = append(kept, c)
				continue
			}
			if c.Status == stPass {
				om.Pass++
			} else {
				om.Skip++
				om.SkipReasons[c.Reason]++
			}
		}
		r.Cases = kept
		out.Runs[i] = r
		info.Omitted = append(info.Omitted, om)
	}
	return dashReport{jsonReport: out, Dashboard: info}
}

func writeDashReport(path string, r dashReport) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// loadedReport is a report found in -dir, for the README.
type loadedReport struct {
	fw   framework
	file string // its base name
	size int64
	rep  dashReport
}

// loadReports reads DIR/<name>.json for every framework of the table that
// has one: a dashboard report, or a plain gate report.
func loadReports(table []framework, dir string) ([]loadedReport, error) {
	var out []loadedReport
	for _, fw := range table {
		path := filepath.Join(dir, fw.Name+".json")
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var r dashReport
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if r.Tool != "scattercheck" || r.Schema != jsonSchema {
			return nil, fmt.Errorf("%s: not a scattercheck -json report of schema %d", path, jsonSchema)
		}
		out = append(out, loadedReport{fw: fw, file: filepath.Base(path), size: int64(len(b)), rep: r})
	}
	return out, nil
}

// cellKind is what the table says of one operation and dtype.
type cellKind int

const (
	cellNone    cellKind = iota // nothing run: not claimed, or every call answered unsupported
	cellOK                      // every case run passed
	cellPart                    // passed, and some calls were answered unsupported
	cellDiffers                 // some cases failed as the xfail file expects
	cellFail                    // a failure no xfail entry explains
)

var cellText = map[cellKind]string{cellNone: "—", cellOK: "ok", cellPart: "ok, part", cellDiffers: "differs", cellFail: "FAIL"}

// cellAt derives one cell of the table from the gate's matrix counts and
// the cases kept in full:
//
//   - FAIL when a case failed or a claimed call was answered unsupported
//     (a run without -allow-unsupported);
//   - differs when a case is an expected failure;
//   - ok, part when a case passed, and some case was not offered (answered
//     unsupported), or a random pair passed with every call answered
//     unsupported (it passed on nothing);
//   - ok when cases passed and nothing was unsupported;
//   - — when nothing ran.
//
// A call with an index PyTorch rejects that the adapter answered
// unsupported (its reason says "PyTorch raises") does not make a cell
// "part": every framework here accepts such an index by design, which the
// README's differences say once.
func cellAt(counts cntJS, kept []jsonCase) cellKind {
	notOffered, emptyPasses := 0, 0
	for _, c := range kept {
		switch {
		case c.Status == stSkip && declinedSkip(c.Reason) && !strings.Contains(c.Reason, "PyTorch raises"):
			notOffered++
		case c.Status == stPass:
			if m := allUnsupported.FindStringSubmatch(c.Note); m != nil {
				n, _ := strconv.Atoi(m[1])
				of, _ := strconv.Atoi(m[2])
				if n == of {
					emptyPasses++
				}
			}
		}
	}
	passed := counts[stPass] + counts[stXpass] - emptyPasses
	switch {
	case counts[stFail]+counts[stUnsup] > 0:
		return cellFail
	case counts[stXfail] > 0:
		return cellDiffers
	case passed > 0 && notOffered+emptyPasses > 0:
		return cellPart
	case passed > 0:
		return cellOK
	}
	return cellNone
}

// runCells is the table of one run: (op, dtype) -> cell.
func runCells(r jsonRun) map[[2]string]cellKind {
	kept := map[[2]string][]jsonCase{}
	for _, c := range r.Cases {
		if c.Op != "" && c.DType != "" {
			k := [2]string{c.Op, c.DType}
			kept[k] = append(kept[k], c)
		}
	}
	cells := map[[2]string]cellKind{}
	for _, m := range r.Matrix {
		k := [2]string{m.Op, m.DType}
		cells[k] = cellAt(m.Counts, kept[k])
	}
	// A property's case names an operation but no dtype, so the matrix
	// does not count it: its failure (or expected failure) marks the cell
	// of its failing call's operation and dtype.
	for _, c := range r.Cases {
		if c.DType != "" || c.Failure == nil || c.Failure.Request == "" || (c.Status != stXfail && c.Status != stFail) {
			continue
		}
		_, call, err := protocol.DecodeCall([]byte(c.Failure.Request))
		if err != nil {
			continue
		}
		k := [2]string{string(call.Op()), caseDType(call).String()}
		switch cur, ok := cells[k]; {
		case !ok:
		case c.Status == stFail:
			cells[k] = cellFail
		case cur == cellOK || cur == cellPart:
			cells[k] = cellDiffers
		}
	}
	return cells
}

// claimedOps is the operations of a run's hello, in the gate's order.
func claimedOps(r jsonRun) []string {
	var ops []string
	for _, op := range tableOps {
		if slices.Contains(r.Implementation.Ops, op) {
			ops = append(ops, op)
		}
	}
	return ops
}

// The operations and dtypes of the table, in the gate's order.
var tableOps, tableDTypes = func() (ops, dts []string) {
	for _, op := range scatter.Ops {
		ops = append(ops, string(op))
	}
	for _, dt := range scatter.DTypes {
		dts = append(dts, dt.String())
	}
	return ops, dts
}()
