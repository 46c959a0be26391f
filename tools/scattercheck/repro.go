package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/fixtures/casefile"
	"github.com/scatterconf/scatter/npy"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/repro"
)

// -repro-dir DIR: each failure becomes a folder
//
//	DIR/<profile>/<op>/<case>/
//
// (<op> the op of the call written there, <case> the case id, reproName)
// in the layout of the recorded fixtures (package fixtures/casefile):
// case.json and one .npy file per tensor of the call, with the oracle's
// outcome as the expectation (expected_out.npy, or the error kind PyTorch
// raises first), so that casefile.Decode reads it back as a fixture. Beside
// them, files that casefile does not know:
//
//	got_out.npy got_arg.npy   what the implementation returned, when it returned
//	allowed_lo.npy allowed_hi.npy  the conformant bounds per element (allowed.go), when they are intervals
//	scattercheck.json         the case id, status, failure kind, summary, the error returned
//	request.jsonl             the hello and the call as a protocol request line, to replay
//	                          with sh -c CMD < request.jsonl (the line alone when it is a note)
//	history.jsonl             a hang, crash or garbage answer: the hello and every request the
//	                          process was sent since it started, the failed one last (bounded:
//	                          protocol.ProcessError.History), to replay with sh -c CMD < history.jsonl
//	repro.py                  the PyTorch program
//	report.txt                the full report

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._=+-]+`)

// reproName returns the folder of case id below its profile's folder:
// "<op>/<id with unsafe runs replaced>", where op is the op of the call
// written there (writeRepros): a property's case has no op of its own,
// or one that is not its call's (permute-duplicates/scatter draws
// scatter_reduce calls too).
func reproName(op scatter.Op, id string) string {
	name := strings.Trim(unsafeName.ReplaceAllString(strings.ReplaceAll(id, "/", "-"), "_"), "_.")
	if len(name) > 120 {
		name = name[:120]
	}
	return string(op) + "/" + name
}

// writeRepros writes a folder for every failure of the run.
func (r *runReport) writeRepros(dir string) error {
	r.fillDetails()
	var errs []string
	for _, cr := range r.Cases {
		f := cr.Failure
		if f == nil || f.call == nil || (cr.Status != stFail && cr.Status != stUnsup) {
			continue
		}
		name := reproName(f.call.Op(), cr.ID)
		folder := filepath.Join(dir, r.Profile.String(), filepath.FromSlash(name))
		if err := writeRepro(folder, name, r, cr); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", cr.ID, err))
			continue
		}
		f.Repro = folder
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

func writeRepro(folder, name string, r *runReport, cr *caseResult) error {
	f := cr.Failure
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	exp := reference.Expect(scatter.CloneCall(f.call), r.Profile)
	fx := casefile.Fixture{Name: name, Profile: r.Profile, Call: f.call,
		Provenance: fmt.Sprintf("scattercheck: the reference oracle's outcome under %v; %s %s answered got_*.npy", r.Profile, r.Impl.Name, r.Impl.Version),
		Source:     cr.ID + " (" + cr.Origin + ")"}
	if codes := exp.Codes(); codes != nil {
		fx.WantErr, fx.Message = codes[0], "the first rule PyTorch checks (any of "+codeNames(codes)+" conforms at the conformant level)"
	} else {
		fx.Want = exp.Result()
	}
	files := map[string][]byte{}
	if fs, err := casefile.Files(fx); err == nil {
		files = fs
	} else {
		files["casefile-error.txt"] = []byte(err.Error() + "\n")
	}
	put := func(name string, t scatter.Tensor) {
		if t.IsZero() || t.Validate() != nil {
			return
		}
		var b bytes.Buffer
		if npy.Write(&b, t) == nil {
			files[name] = b.Bytes()
		}
	}
	put("got_out.npy", f.res.Out)
	put("got_arg.npy", f.res.Arg)
	if exp.Codes() == nil {
		if lo, hi, ok := allowedBounds(exp, r.Level); ok {
			put("allowed_lo.npy", lo)
			put("allowed_hi.npy", hi)
		}
	}
	meta := map[string]any{
		"id": cr.ID, "status": cr.Status, "kind": f.Kind, "summary": f.Summary, "profile": r.Profile.String(),
		"level": r.Level.String(), "implementation": r.Impl.Name + " " + r.Impl.Version, "truth": cr.Origin,
	}
	if f.err != nil {
		meta["error"] = f.err.Error()
		if c := scatter.CodeOf(f.err); c != 0 {
			meta["error_kind"] = c.String()
		}
	}
	if cr.Source == suiteRandom {
		meta["seed"], meta["shrunk"] = f.Seed, f.Shrunk
	}
	var pe *protocol.ProcessError
	if errors.As(f.err, &pe) && len(pe.History) > 0 {
		files["history.jsonl"] = replay(pe.History...)
		meta["history_requests"], meta["history_dropped"] = len(pe.History), pe.HistoryDropped
	}
	js, _ := json.MarshalIndent(meta, "", "  ")
	files["scattercheck.json"] = append(js, '\n')
	files["request.jsonl"] = []byte(f.Request + "\n")
	files["repro.py"] = []byte(f.PyTorch)
	if cr.Source == suiteWorkloads || f.clipped {
		// the reports print notes for a call this large; its folder
		// holds the request itself and a program that reads the .npy files
		files["request.jsonl"] = []byte(workloadLine(r.requestLine(f.call)) + "\n")
		files["repro.py"] = []byte(repro.NpyProgram(f.call))
	}
	if line := files["request.jsonl"]; bytes.HasPrefix(line, []byte("{")) {
		// the hello first, as the suite sends it: the file replays the
		// call as it stands (a note, for a call not written, stays alone)
		files["request.jsonl"] = replay(bytes.TrimSuffix(line, []byte("\n")))
	}
	files["report.txt"] = []byte(r.details(cr) + "\n")
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(folder, n), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// replay returns the request lines after the hello, one a line, as the
// suite sends them to a process that has just started.
func replay(lines ...[]byte) []byte {
	b := append(protocol.EncodeHello(0), '\n')
	for _, line := range lines {
		b = append(append(b, line...), '\n')
	}
	return b
}

func codeNames(cs []scatter.Code) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}
