package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/fixtures/casefile"
	"github.com/scatterconf/scatter/npy"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// parseConfig parses gate flags as the command does.
func parseConfig(t *testing.T, args ...string) *gateConfig {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	parse := gateFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	cfg, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// offByOne is the reference with one bug: float32 scatter_add adds 1 to
// the first element of every non-empty result.
type offByOne struct{ scatter.Backend }

func (b offByOne) Info() scatter.Info {
	return scatter.Info{Name: "off-by-one", Version: "1", DTypes: []scatter.DType{scatter.DTFloat32, scatter.DTInt64}}
}

func (b offByOne) Run(c scatter.Call) (scatter.Result, error) {
	res, err := b.Backend.Run(c)
	if _, ok := c.(scatter.ScatterAdd); ok && err == nil && res.Out.DType() == scatter.DTFloat32 && res.Out.NumEl() > 0 {
		out := res.Out.Contiguous()
		out.Data.([]float32)[0]++
		res.Out = out
	}
	return res, err
}

// jsonOut is the part of the JSON report the tests read.
type jsonOut struct {
	Tool     string   `json:"tool"`
	Schema   int      `json:"schema"`
	Conforms bool     `json:"conforms"`
	Warnings []string `json:"warnings"`
	Runs     []struct {
		Implementation struct {
			Name          string   `json:"name"`
			Version       string   `json:"version"`
			Ops           []string `json:"ops"`
			Deterministic bool     `json:"deterministic"`
			Strides       bool     `json:"strides"`
		} `json:"implementation"`
		Profile  string         `json:"profile"`
		Level    string         `json:"level"`
		Restarts int            `json:"restarts"`
		Notes    []string       `json:"notes"`
		Summary  map[string]int `json:"summary"`
		Matrix   []struct {
			Op, DType, Cell string
		} `json:"matrix"`
		Cases []struct {
			ID      string `json:"id"`
			Source  string `json:"source"`
			Op      string `json:"op"`
			DType   string `json:"dtype"`
			Status  string `json:"status"`
			Reason  string `json:"reason"`
			Note    string `json:"note"`
			Failure *struct {
				Kind      string `json:"kind"`
				Summary   string `json:"summary"`
				Report    string `json:"report"`
				Request   string `json:"request"`
				PyTorch   string `json:"pytorch"`
				Shrunk    bool   `json:"shrunk"`
				Stderr    string `json:"stderr"`
				Repro     string `json:"repro"`
				LikelyBug *struct {
					Mutant string   `json:"mutant"`
					Also   []string `json:"also"`
				} `json:"likely_bug"`
			} `json:"failure"`
		} `json:"cases"`
	} `json:"runs"`
}

func readJSONReport(t *testing.T, path string) jsonOut { return readJSONAs[jsonOut](t, path) }

// readJSONAs reads a -json report into a T (jsonOut, the tests' view, or
// jsonReport, the gate's own).
func readJSONAs[T any](t *testing.T, path string) T {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r T
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("the JSON report does not parse: %v", err)
	}
	return r
}

type junitOut struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// junitRootAttrs are the attributes Jenkins' JUnit schema (junit-10.xsd)
// declares on <testsuites>.
var junitRootAttrs = []string{"name", "time", "tests", "failures", "disabled", "errors"}

// rootAttrs returns the names of the attributes of an XML document's root.
func rootAttrs(t *testing.T, doc []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("no root element: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			var names []string
			for _, a := range se.Attr {
				names = append(names, a.Name.Local)
			}
			return names
		}
	}
}

func readJUnit(t *testing.T, path string) junitOut {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j junitOut
	if err := xml.Unmarshal(b, &j); err != nil {
		t.Fatalf("the JUnit report does not parse: %v", err)
	}
	return j
}

// TestBuiltinRun is the command without -impl: every part on the built-in
// backends under both profiles, with both machine reports.
func TestBuiltinRun(t *testing.T) {
	dir := t.TempDir()
	js, ju := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	code, out, errb := runCmd(t, nil, "-checks", "10", "-properties-tier", "short", "-json", js, "-junit", ju)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	if !strings.Contains(out, "PASS: conforms") || !strings.Contains(out, "operation ") {
		t.Errorf("the summary lacks the matrix or the verdict:\n%s", out)
	}
	r := readJSONReport(t, js)
	if r.Tool != "scattercheck" || r.Schema != jsonSchema || !r.Conforms || len(r.Runs) != len(scatter.Profiles)*len(builtin(scatter.Torch2)) {
		t.Fatalf("report header: %+v", r)
	}
	total := 0
	levels := map[string]string{} // implementation name and version -> level
	for _, run := range r.Runs {
		// each built-in backend is judged at the level it claims
		want := "conformant"
		if run.Implementation.Deterministic {
			want = "strict"
		}
		if run.Level != want {
			t.Errorf("run header: %+v %s, want level %s", run.Implementation, run.Level, want)
		}
		levels[run.Implementation.Name+" "+run.Implementation.Version] = run.Level
		total += len(run.Cases)
		for _, k := range []string{"pass", "fail", "skip", "unsupported", "xfail", "xpass", "total"} {
			if _, ok := run.Summary[k]; !ok {
				t.Errorf("run %s: summary %v lacks %q (the README lists every key)", run.Implementation.Name, run.Summary, k)
			}
		}
		if run.Summary["skip"] == len(run.Cases) {
			// unavailable here (cuda without a GPU): every case skipped with the reason
			for _, c := range run.Cases {
				if c.Reason == "" {
					t.Errorf("%s skipped without a reason", c.ID)
				}
			}
			continue
		}
		if _, err := scatter.ParseProfile(run.Profile); err != nil {
			t.Errorf("run profile %q", run.Profile)
		}
		if run.Summary["total"] != len(run.Cases) || run.Summary["fail"] != 0 || run.Summary["pass"] == 0 {
			t.Errorf("summary %v for %d cases", run.Summary, len(run.Cases))
		}
		if len(run.Matrix) < len(scatter.Ops) {
			t.Errorf("matrix has %d cells", len(run.Matrix))
		}
		seen := map[string]bool{}
		sources := map[string]bool{}
		for _, c := range run.Cases {
			if seen[c.ID] {
				t.Errorf("case id %s twice", c.ID)
			}
			seen[c.ID] = true
			sources[c.Source] = true
			if c.Status == "skip" && c.Reason == "" {
				t.Errorf("%s skipped without a reason", c.ID)
			}
		}
		for _, s := range []string{suiteSpec, suiteRandom, suiteProperties} {
			if !sources[s] {
				t.Errorf("no case from %s", s)
			}
		}
	}
	j := readJUnit(t, ju)
	if b, err := os.ReadFile(ju); err != nil {
		t.Fatal(err)
	} else if attrs := rootAttrs(t, b); !slices.ContainsFunc(attrs, func(a string) bool { return a == "tests" }) ||
		slices.ContainsFunc(attrs, func(a string) bool { return !slices.Contains(junitRootAttrs, a) }) {
		t.Errorf("JUnit root attributes %v: Jenkins' junit-10.xsd allows only %v", attrs, junitRootAttrs)
	}
	if j.Tests != total || j.Failures != 0 || len(j.Suites) != len(r.Runs) {
		t.Errorf("JUnit: %d tests, %d failures, %d suites; want %d, 0, %d", j.Tests, j.Failures, len(j.Suites), total, len(r.Runs))
	}
	for _, s := range j.Suites {
		props := map[string]string{}
		for _, p := range s.Properties {
			props[p.Name] = p.Value
		}
		if props["profile"] == "" || props["level"] != levels[props["implementation"]+" "+props["version"]] {
			t.Errorf("suite %s properties %v", s.Name, props)
		}
		if s.Skipped == 0 {
			t.Errorf("suite %s: no skipped testcase (the other profile's cases)", s.Name)
		}
	}
}

// TestFailureReport runs a broken backend: its failures carry a minimal
// call as a request line and a PyTorch program, the machine reports carry
// them, -xfail turns them into expected failures, and -repro-dir writes
// fixture folders that read back.
func TestFailureReport(t *testing.T) {
	cfg := parseConfig(t, "-checks", "30", "-ops", "scatter_add,gather", "-suites", "spec,random,properties",
		"-properties-tier", "short")
	r := runTarget(offByOne{reference.New(scatter.Torch2)}, nil, cfg, scatter.Torch2)
	if r.conforms(false) {
		t.Fatal("the broken backend conforms")
	}
	byID := map[string]*caseResult{}
	for _, cr := range r.Cases {
		byID[cr.ID] = cr
		if cr.Op != "" && cr.Op != scatter.OpScatterAdd && cr.Op != scatter.OpGather {
			t.Errorf("%s: -ops let %s through", cr.ID, cr.Op)
		}
		if cr.Op == scatter.OpGather && (cr.Status == stFail || cr.Status == stUnsup) {
			t.Errorf("%s fails: %s", cr.ID, cr.Failure.Report)
		}
	}
	rf := byID["random/scatter_add/float32"]
	if rf == nil || rf.Status != stFail {
		t.Fatalf("random/scatter_add/float32: %+v", rf)
	}
	if b := byID["random/scatter_add/bfloat16"]; b == nil || b.Status != stSkip || !strings.Contains(b.Reason, "does not claim") {
		t.Errorf("random/scatter_add/bfloat16: %+v", b)
	}
	r.fillDetails()
	f := rf.Failure
	if f.Kind != "mismatch" || !f.Shrunk || !strings.Contains(f.Report, "allowed") {
		t.Errorf("random failure: kind %s, shrunk %v, report:\n%s", f.Kind, f.Shrunk, f.Report)
	}
	_, call, err := protocol.DecodeCall([]byte(f.Request))
	if err != nil {
		t.Fatalf("the request line does not decode: %v\n%s", err, f.Request)
	}
	sa, ok := call.(scatter.ScatterAdd)
	if !ok || sa.Self.NumEl() > 4 || sa.Src.NumEl() > 4 {
		t.Errorf("the shrunk call is not small: %s", f.Request)
	}
	if !strings.Contains(f.PyTorch, "scatter_add_(") || !strings.Contains(f.PyTorch, "dtype=torch.float32") {
		t.Errorf("PyTorch program:\n%s", f.PyTorch)
	}
	var text bytes.Buffer
	r.print(&text, true)
	for _, want := range []string{"FAIL", `request (protocol, one line, after the hello {"id":0,"op":"hello","protocol":1})`, "PyTorch:", "random/scatter_add/float32"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the summary lacks %q", want)
		}
	}

	// -repro-dir
	dir := t.TempDir()
	if err := r.writeRepros(dir); err != nil {
		t.Fatal(err)
	}
	if f.Repro == "" {
		t.Fatal("no repro folder for the random failure")
	}
	rel, _ := filepath.Rel(dir, f.Repro)
	fx, err := casefile.Decode(os.DirFS(dir), filepath.ToSlash(rel))
	if err != nil {
		t.Fatalf("the repro folder is not a fixture: %v", err)
	}
	a, _ := protocol.EncodeCall(0, fx.Call)
	b, _ := protocol.EncodeCall(0, call)
	if !bytes.Equal(a, b) {
		t.Errorf("the repro's call differs:\n%s\n%s", a, b)
	}
	for _, name := range []string{"request.jsonl", "repro.py", "report.txt", "scattercheck.json", "got_out.npy", "expected_out.npy"} {
		if _, err := os.Stat(filepath.Join(f.Repro, name)); err != nil {
			t.Errorf("repro folder: %v", err)
		}
	}
	if fh, err := os.Open(filepath.Join(f.Repro, "got_out.npy")); err == nil {
		got, err := npy.Read(fh)
		fh.Close()
		if err != nil || got.DType() != scatter.DTFloat32 {
			t.Errorf("got_out.npy: %v %v", got, err)
		}
	}

	// a call too large to print: notes in the report, the call in full in
	// its repro folder
	big := byID["spec/scatter_add/float32/sizes/n=10007/reversed"]
	if big == nil || big.Status != stFail {
		t.Fatalf("the sizes case: %+v", big)
	}
	if bf := big.Failure; !strings.Contains(bf.Request, "-repro-dir writes it") || !strings.Contains(bf.PyTorch, "not printed") || len(bf.Request) > 300 {
		t.Errorf("a large call's report prints %d bytes of request, %d of program", len(bf.Request), len(bf.PyTorch))
	} else if line, err := os.ReadFile(filepath.Join(bf.Repro, "request.jsonl")); err != nil {
		t.Error(err)
	} else if hello, call, ok := bytes.Cut(bytes.TrimSpace(line), []byte("\n")); !ok || !bytes.Equal(hello, protocol.EncodeHello(0)) {
		t.Errorf("the repro folder's request.jsonl does not start with the hello: %.200s", line)
	} else if _, bc, err := protocol.DecodeCall(call); err != nil || bc.(scatter.ScatterAdd).Src.NumEl() != 10007 {
		t.Errorf("the repro folder's request.jsonl: %v", err)
	} else if py, _ := os.ReadFile(filepath.Join(bf.Repro, "repro.py")); !bytes.Contains(py, []byte("np.load")) {
		t.Errorf("the repro folder's repro.py does not read the .npy files:\n%s", py)
	}

	// machine reports of a failing run
	js, ju := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	if err := writeJSON(js, []*runReport{r}, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := writeJUnit(ju, []*runReport{r}, false); err != nil {
		t.Fatal(err)
	}
	jr := readJSONReport(t, js)
	if jr.Conforms || jr.Runs[0].Summary["fail"] == 0 {
		t.Errorf("JSON summary %v", jr.Runs[0].Summary)
	}
	found := false
	for _, c := range jr.Runs[0].Cases {
		if c.ID == rf.ID {
			found = c.Failure != nil && c.Failure.Request == f.Request && c.Failure.PyTorch != "" && c.Failure.Shrunk
		}
	}
	if !found {
		t.Error("the JSON report lacks the random failure's request and program")
	}
	j := readJUnit(t, ju)
	fails := 0
	for _, c := range j.Suites[0].Cases {
		if c.Failure != nil {
			fails++
			if c.Failure.Type == "" || c.Failure.Message == "" ||
				strings.HasPrefix(c.Name, "random/") && !strings.Contains(c.Failure.Text, "request (protocol") {
				t.Errorf("JUnit failure of %s: %+v", c.Name, c.Failure)
			}
		}
	}
	if fails == 0 || fails != j.Failures {
		t.Errorf("JUnit: %d failure elements, failures=%d", fails, j.Failures)
	}

	// -xfail
	xf, err := parseXfail("xfail.txt", strings.NewReader(`# expected failures
random/scatter_add/*      # the off-by-one bug, issue 1
spec/scatter_add/*
spec/gather/*             # passes: XPASS
nosuch/case
`))
	if err != nil {
		t.Fatal(err)
	}
	r.applyXfail(xf)
	c := r.counts()
	if c[stXfail] == 0 || c[stXpass] == 0 {
		t.Errorf("xfail %d, xpass %d", c[stXfail], c[stXpass])
	}
	if byID["random/scatter_add/float32"].Status != stXfail || byID["random/scatter_add/float32"].Reason != "the off-by-one bug, issue 1" {
		t.Errorf("xfail entry not applied: %+v", byID["random/scatter_add/float32"])
	}
	w := xf.unmatched()
	if len(w) != 1 || !strings.Contains(w[0], "nosuch/case") || !strings.Contains(w[0], "xfail.txt:5") {
		t.Errorf("unmatched warnings %q", w)
	}
	// what still fails is the properties' and the xpasses decide strictness
	rest := false
	for _, cr := range r.Cases {
		rest = rest || cr.Status == stFail || cr.Status == stUnsup
	}
	if r.conforms(false) == rest {
		t.Errorf("conforms(false) = %v with failures left %v", r.conforms(false), rest)
	}
	if r.conforms(true) {
		t.Error("an XPASS must fail the run under -strict-xfail")
	}
}

func TestXfailGlobs(t *testing.T) {
	l, err := parseXfail("x", strings.NewReader("a/*/c\nspec/[ab]x?\n# comment\n\nexact/id # why # more\n"))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"a/b/c": "a/*/c", "a/b/x/c": "a/*/c", "a/c": "", "spec/ax1": "spec/[ab]x?", "spec/cx1": "",
		"exact/id": "exact/id", "exact/id2": "",
	} {
		e := l.match(id)
		got := ""
		if e != nil {
			got = e.pattern
		}
		if got != want {
			t.Errorf("%s matched %q, want %q", id, got, want)
		}
	}
	if e := l.match("exact/id"); e.reason != "why # more" {
		t.Errorf("reason %q", e.reason)
	}
	for _, bad := range []string{"two words", "a[b"} {
		if _, err := parseXfail("x", strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestLevelFollowsTheFlag: -level is what the user asks for. A backend
// claiming determinism is judged conformant by default (the report says
// so, and the strict-only property is skipped), strict with -level strict.
func TestLevelFollowsTheFlag(t *testing.T) {
	for _, lvl := range []string{"conformant", "strict"} {
		cfg := parseConfig(t, "-level", lvl, "-checks", "5", "-ops", "gather", "-suites", "properties", "-properties-tier", "short")
		r := runTarget(reference.New(scatter.Torch2), nil, cfg, scatter.Torch2)
		if !r.conforms(false) {
			t.Fatalf("%s: the reference does not conform", lvl)
		}
		var rep *caseResult
		for _, cr := range r.Cases {
			if cr.ID == "property/invariants/repeatable" {
				rep = cr
			}
		}
		if rep == nil {
			t.Fatalf("%s: no invariants/repeatable", lvl)
		}
		noted := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "claims to be deterministic") })
		switch lvl {
		case "conformant":
			if rep.Status != stSkip || !noted || r.Level != scatter.Conformant {
				t.Errorf("conformant: repeatable %s, noted %v", rep.Status, noted)
			}
		case "strict":
			if rep.Status != stPass || noted || r.Level != scatter.Strict {
				t.Errorf("strict: repeatable %s, noted %v", rep.Status, noted)
			}
		}
	}
}

// TestSeedReproducible: the same -seed draws the same random calls.
func TestSeedReproducible(t *testing.T) {
	var lines [2]string
	for i := range lines {
		cfg := parseConfig(t, "-checks", "40", "-ops", "scatter_add", "-suites", "random", "-seed", "7")
		r := runTarget(offByOne{reference.New(scatter.Torch2)}, nil, cfg, scatter.Torch2)
		r.fillDetails()
		for _, cr := range r.Cases {
			if cr.ID == "random/scatter_add/float32" && cr.Failure != nil {
				lines[i] = cr.Failure.Request
			}
		}
	}
	if lines[0] == "" || lines[0] != lines[1] {
		t.Errorf("two runs with -seed 7 found\n%s\n%s", lines[0], lines[1])
	}
	// the failure's rerun line, run, finds the same call (an -impl run's:
	// the command is only quoted here, the backend is the same)
	cfg := parseConfig(t, "-impl", "impl", "-checks", "40", "-suites", "random,spec", "-seed", "7")
	r := runTarget(offByOne{reference.New(scatter.Torch2)}, nil, cfg, scatter.Torch2)
	r.fillDetails()
	var rerun string
	for _, cr := range r.Cases {
		if cr.ID == "random/scatter_add/float32" && cr.Failure != nil {
			_, rerun, _ = strings.Cut(r.details(cr), "\nrerun: scattercheck ")
		}
	}
	if want := "-impl 'impl' -profile torch-2 -level conformant -seed 7 -checks 40 -suites random -ops scatter_add"; rerun != want {
		t.Fatalf("rerun line %q, want %q", rerun, want)
	}
	cfg = parseConfig(t, strings.Fields(rerun)...)
	r = runTarget(offByOne{reference.New(scatter.Torch2)}, nil, cfg, scatter.Torch2)
	r.fillDetails()
	again := ""
	for _, cr := range r.Cases {
		if cr.ID == "random/scatter_add/float32" && cr.Failure != nil {
			again = cr.Failure.Request
		}
	}
	if again != lines[0] {
		t.Errorf("the rerun line found\n%s\nnot\n%s", again, lines[0])
	}
	// -seed 0 picks one that a JSON reader holding numbers as doubles
	// reads back exactly
	if s := parseConfig(t, "-seed", "0").seed; s == 0 || s >= 1<<53 {
		t.Errorf("-seed 0 picked %d, want one in [1, 2^53)", s)
	}
}

// scatterOnly claims plain scatter alone.
type scatterOnly struct{ scatter.Backend }

func (b scatterOnly) Info() scatter.Info {
	return scatter.Info{Name: "scatter-only", Version: "1", Ops: []scatter.Op{scatter.OpScatter}}
}

// TestOpsOutsideTheClaims: -ops naming only operations the implementation
// does not claim runs nothing of them (every case skipped, saying why),
// never fails them as unsupported; the run fails as one that checked
// nothing.
func TestOpsOutsideTheClaims(t *testing.T) {
	cfg := parseConfig(t, "-ops", "gather,scatter_add", "-suites", "spec,random,properties", "-checks", "5", "-properties-tier", "short")
	r := runTarget(scatterOnly{reference.New(scatter.Torch2)}, nil, cfg, scatter.Torch2)
	for _, cr := range r.Cases {
		if cr.Status != stSkip {
			t.Errorf("%s: %s, want skipped", cr.ID, cr.Status)
		}
	}
	if len(r.Cases) == 0 {
		t.Fatal("no case reported")
	}
	checkNothingPassed([]*runReport{r}, nil)
	if r.conforms(false) {
		t.Error("a run that checked nothing conforms")
	}
}
