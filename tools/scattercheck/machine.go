package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"
)

// The machine-readable reports: -json FILE and -junit FILE.

// jsonSchema is the version of the JSON report's layout; fields are only
// ever added.
const jsonSchema = 1

type jsonReport struct {
	Tool     string `json:"tool"`
	Schema   int    `json:"schema"`
	Conforms bool   `json:"conforms"`
	// Complete is false in a report written while the run goes, or when
	// it was cut short (a signal, -deadline); Incomplete then says why.
	Complete   bool   `json:"complete"`
	Incomplete string `json:"incomplete,omitempty"`
	// ToolVersion is the scattercheck that wrote the report, where its
	// build says (toolVersion); merge refuses to join shards of two.
	ToolVersion string    `json:"tool_version,omitempty"`
	Time        string    `json:"time"`
	Warnings    []string  `json:"warnings"`
	Runs        []jsonRun `json:"runs"`
}

type jsonRun struct {
	Implementation implInfo         `json:"implementation"`
	Profile        string           `json:"profile"`
	Level          string           `json:"level"`
	Suites         []string         `json:"suites"`
	Seed           uint64           `json:"seed"`
	Checks         int              `json:"checks"`
	Seconds        float64          `json:"seconds"`
	Restarts       int              `json:"restarts"`
	Notes          []string         `json:"notes,omitempty"`
	Summary        map[string]int   `json:"summary"`
	Matrix         []jsonCell       `json:"matrix"`
	Cases          []jsonCase       `json:"cases"`
	StderrTail     string           `json:"stderr_tail,omitempty"`
	Features       map[string]cntJS `json:"features"`
	Shard          string           `json:"shard,omitempty"`     // "i/n": one shard of n (-shard)
	Selection      string           `json:"selection,omitempty"` // -ops, -labels, -properties-tier, -workload-div
	// Settings: the other flags that change verdicts, where not their
	// defaults (-allow-unsupported, -strided-calls, -xfail by its
	// SHA-256, -timeout, -max-process-failures); StrictXfail:
	// -strict-xfail. Merge compares them between shards.
	Settings    string `json:"settings,omitempty"`
	StrictXfail bool   `json:"strict_xfail,omitempty"`
}

type cntJS map[status]int

type jsonCell struct {
	Op     string `json:"op"`
	DType  string `json:"dtype"`
	Counts cntJS  `json:"counts"`
	Cell   string `json:"cell"`
}

type jsonCase struct {
	ID       string       `json:"id"`
	Source   string       `json:"source"`
	Op       string       `json:"op,omitempty"`
	DType    string       `json:"dtype,omitempty"`
	Features []string     `json:"features,omitempty"`
	Status   status       `json:"status"`
	Reason   string       `json:"reason,omitempty"`
	Truth    string       `json:"truth,omitempty"`
	Seconds  float64      `json:"seconds"`
	Checks   int          `json:"checks,omitempty"`
	Seed     uint64       `json:"seed,omitempty"`
	Note     string       `json:"note,omitempty"`
	Failure  *jsonFailure `json:"failure,omitempty"`
	// ErrorsOnly marks a passing case that judged only calls that must
	// fail (caseResult.ErrorsOnly); merge's nothing-passed check reads it.
	ErrorsOnly bool `json:"errors_only,omitempty"`
	// XfailLike are the mutants that the xfail entry of an XFAIL or XPASS
	// case pins (like=); merge checks them against the likely bug again.
	XfailLike []string `json:"xfail_like,omitempty"`
}

type jsonFailure struct {
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
	Report  string `json:"report"`
	Request string `json:"request,omitempty"`
	PyTorch string `json:"pytorch,omitempty"`
	Shrunk  bool   `json:"shrunk,omitempty"`
	Stderr  string `json:"stderr,omitempty"`
	Repro   string `json:"repro,omitempty"`
	// LikelyBug is the mutant class the failure looks like (likely.go).
	LikelyBug *likelyBug `json:"likely_bug,omitempty"`
}

// toolVersion is this scattercheck's version as its build records it: the
// module version (go run or go install of module@version), and the VCS
// revision where the build stamped one ("" when it knows neither, as a
// go run in a checkout built with -buildvcs=false).
func toolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var parts []string
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		parts = append(parts, v)
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	if rev != "" {
		parts = append(parts, "rev "+rev+modified)
	}
	return strings.Join(parts, " ")
}

func writeJSON(path string, runs []*runReport, warnings []string, ok bool) error {
	return writeJSONFile(path, buildJSON(runs, warnings, ok))
}

// buildJSON is the JSON report of a complete run.
func buildJSON(runs []*runReport, warnings []string, ok bool) jsonReport {
	rep := jsonReport{Tool: "scattercheck", Schema: jsonSchema, Conforms: ok, Complete: true, Time: time.Now().UTC().Format(time.RFC3339),
		Warnings: warnings, ToolVersion: toolVersion()}
	if rep.Warnings == nil {
		rep.Warnings = []string{}
	}
	for _, r := range runs {
		r.fillDetails()
		jr := jsonRun{Implementation: r.Impl, Profile: r.Profile.String(), Level: r.Level.String(), Suites: r.Suites,
			Seed: r.Seed, Checks: r.Checks, Seconds: r.Duration.Seconds(), Restarts: r.Restarts, Notes: r.Notes, Shard: r.Shard, Selection: r.Selection,
			Settings: r.Settings, StrictXfail: r.StrictXfail,
			Summary: map[string]int{}, StderrTail: r.StderrTail, Features: map[string]cntJS{}, Matrix: []jsonCell{}}
		if jr.Implementation.Ops == nil {
			jr.Implementation.Ops = []string{} // one that did not start said none
		}
		if jr.Implementation.DTypes == nil {
			jr.Implementation.DTypes = []string{}
		}
		for _, s := range []status{stPass, stFail, stSkip, stUnsup, stXfail, stXpass} {
			jr.Summary[string(s)] = 0 // every key, 0 where none
		}
		for s, n := range r.counts() {
			jr.Summary[string(s)] = n
		}
		jr.Summary["total"] = len(r.Cases)
		cells := map[[2]string]counts{}
		var order [][2]string
		for _, cr := range r.Cases {
			for _, f := range cr.Features {
				if jr.Features[f] == nil {
					jr.Features[f] = cntJS{}
				}
				jr.Features[f][cr.Status]++
			}
			if cr.Op != "" && cr.DType.Valid() {
				k := [2]string{string(cr.Op), cr.DType.String()}
				if cells[k] == nil {
					cells[k] = counts{}
					order = append(order, k)
				}
				cells[k][cr.Status]++
			}
			jc := jsonCase{ID: cr.ID, Source: cr.Source, Op: string(cr.Op), Features: cr.Features, Status: cr.Status,
				Reason: cr.Reason, ErrorsOnly: cr.ErrorsOnly, XfailLike: cr.XfailLike, Truth: cr.Origin, Seconds: cr.Seconds, Checks: cr.Checks, Seed: cr.Seed, Note: cr.Note}
			if cr.DType.Valid() {
				jc.DType = cr.DType.String()
			}
			if f := cr.Failure; f != nil {
				jc.Failure = &jsonFailure{Kind: f.Kind, Summary: f.Summary, Report: f.Report, Request: f.Request,
					PyTorch: f.PyTorch, Shrunk: f.Shrunk, Stderr: f.Stderr, Repro: f.Repro, LikelyBug: f.Likely}
			}
			jr.Cases = append(jr.Cases, jc)
		}
		for _, k := range order {
			jr.Matrix = append(jr.Matrix, jsonCell{Op: k[0], DType: k[1], Counts: cntJS(cells[k]), Cell: cell(cells[k])})
		}
		rep.Runs = append(rep.Runs, jr)
	}
	return rep
}

func writeJSONFile(path string, rep jsonReport) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// JUnit XML: one <testsuite> per run (implementation, profile, level),
// one <testcase> per case. A failure or an unsupported answer is a
// <failure> whose text is the full report (judge's report, request line,
// PyTorch program); a skip and an expected failure are <skipped>; an
// unexpected pass is a passing testcase with a note in <system-out> (a
// <failure> with -strict-xfail).

// junitSuites is the root: the attributes Jenkins' JUnit schema
// (junit-10.xsd) allows there, which has no "skipped" (each testsuite has
// its own).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemErr  string          `xml:"system-err,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func secs(f float64) string { return fmt.Sprintf("%.3f", f) }

func writeJUnit(path string, runs []*runReport, strictXfail bool) error {
	top := junitSuites{Name: "scattercheck"}
	var total time.Duration
	for _, r := range runs {
		r.fillDetails()
		s := junitSuite{
			Name:      fmt.Sprintf("%s %s (%v, %v)", r.Impl.Name, r.Impl.Version, r.Profile, r.Level),
			Time:      secs(r.Duration.Seconds()),
			Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05"),
			Properties: []junitProperty{
				{"implementation", r.Impl.Name}, {"version", r.Impl.Version}, {"command", r.Impl.Command},
				{"profile", r.Profile.String()}, {"level", r.Level.String()},
				{"deterministic", fmt.Sprint(r.Impl.Deterministic)},
				{"ops", strings.Join(r.Impl.Ops, ",")}, {"dtypes", strings.Join(r.Impl.DTypes, ",")},
				{"suites", strings.Join(r.Suites, ",")}, {"seed", fmt.Sprint(r.Seed)}, {"checks", fmt.Sprint(r.Checks)},
				{"restarts", fmt.Sprint(r.Restarts)},
			},
			SystemErr: r.StderrTail,
		}
		total += r.Duration
		for _, cr := range r.Cases {
			class := "scattercheck." + cr.Source
			if cr.Op != "" {
				class += "." + string(cr.Op)
			}
			jc := junitCase{Name: cr.ID, Classname: class, Time: secs(cr.Seconds)}
			switch cr.Status {
			case stFail, stUnsup:
				f := cr.Failure
				jc.Failure = &junitMessage{Message: f.Summary, Type: f.Kind, Text: r.details(cr)}
				s.Failures++
			case stSkip:
				jc.Skipped = &junitMessage{Message: cr.Reason}
				s.Skipped++
			case stXfail:
				msg := "expected failure"
				if cr.Reason != "" {
					msg += ": " + cr.Reason
				}
				jc.Skipped = &junitMessage{Message: msg, Text: r.details(cr)}
				s.Skipped++
			case stXpass:
				msg := "XPASS: expected to fail (" + orDash(cr.Reason) + ") but passed"
				if strictXfail || r.StrictXfail {
					jc.Failure = &junitMessage{Message: msg, Type: "xpass"}
					s.Failures++
				} else {
					jc.SystemOut = msg
				}
			}
			if cr.Note != "" {
				jc.SystemOut = strings.TrimPrefix(jc.SystemOut+"\n"+cr.Note, "\n")
			}
			s.Cases = append(s.Cases, jc)
			s.Tests++
		}
		top.Tests += s.Tests
		top.Failures += s.Failures
		top.Suites = append(top.Suites, s)
	}
	top.Time = secs(total.Seconds())
	b, err := xml.MarshalIndent(top, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
