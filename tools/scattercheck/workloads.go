package main

import (
	"fmt"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/check"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/spec"
	"github.com/scatterconf/scatter/workload"
)

// The workloads part: the standard workloads W1-W7 that `scattercheck
// bench` times (package workload), each once, as ordinary operation
// requests, judged by the oracle like any other call. The other parts draw
// tensors of at most a few thousand elements (the properties' long tier:
// 2^17); an implementation that takes another path past some size (a
// parallel or blocked kernel, a grid of many blocks) is judged there only
// here. Sizes are divided by -workload-div (the 64 columns and W6's 16
// outputs kept): at the default of 100, W1 is 100,000 contributions into
// 10,000 outputs and W2 10,000 rows of 64; -workload-div 1 judges the
// bench's own calls.

// defaultWorkloadDiv is -workload-div's default.
const defaultWorkloadDiv = 100

// workloadCaseID is the case id of workload w.
func workloadCaseID(w int) string { return "workload/" + workload.Name(w) }

// runWorkloadsPart judges the standard workloads on the implementation.
func runWorkloadsPart(target spec.Target, g *guarded, cfg *gateConfig, emit func(*caseResult)) {
	for w := 1; w <= workload.Count; w++ {
		if cfg.sess.stopped() {
			return
		}
		id := workloadCaseID(w)
		if !cfg.shard.has(id) {
			continue
		}
		if !cfg.wantOp(workload.Op(w)) {
			continue // before its data is built: W2's is 280 MB at -workload-div 1
		}
		emit(workloadCase(target, g, cfg, workload.MustGet(w, cfg.workloadDiv), id))
	}
}

// workloadCase runs and judges one workload.
func workloadCase(target spec.Target, g *guarded, cfg *gateConfig, wl workload.Workload, id string) *caseResult {
	c := wl.Call
	cr := &caseResult{ID: id, Source: suiteWorkloads, Op: c.Op(), DType: caseDType(c), Features: []string{"workload"},
		Origin: fmt.Sprintf("package workload: %s, the bench's %s with its sizes divided by %d, judged by reference.Expect",
			wl.Description, wl.Name, wl.Div)}
	if reason := target.SkipReason(spec.Case{Call: c}); reason != "" {
		cr.Status, cr.Reason = stSkip, reason
		return cr
	}
	lvl := target.JudgeLevel()
	g.reset()
	t0 := time.Now()
	o := check.Run(g, scatter.CloneCall(c))
	cr.Seconds = time.Since(t0).Seconds()
	f := &failure{call: c, res: o.Res, err: o.Err, profile: target.Profile, level: lvl, workload: true}
	switch {
	case o.Panicked != "":
		f.Kind, f.Report = "panic", "the implementation panicked:\n"+o.Panicked
	case processKind(o.Err) != "":
		f.Kind, f.Report = processKind(o.Err), o.Err.Error()
	case scatter.CodeOf(o.Err) == scatter.ErrNotSupported:
		f.Kind, f.Report = "unsupported", "the implementation answered unsupported for a call it claims: "+o.Err.Error()
	case o.Modified != nil:
		f.Kind, f.Report = "modified-inputs", fmt.Sprintf("the implementation modified its input tensors:\n%v", o.Modified)
	default:
		jerr := reference.Expect(scatter.CloneCall(c), target.Profile).Check(lvl, o.Res, o.Err)
		if jerr == nil {
			cr.Status = stPass
			return cr
		}
		f.Kind, f.Report = "mismatch", "the judge rejects the outcome at the "+lvl.String()+" level:\n"+jerr.Error()
	}
	f.Summary = summarize(f, []string{f.Report})
	// the call is too large to print: its request line and a PyTorch
	// program with its values would take megabytes in every report
	f.Request = fmt.Sprintf("(the request is the bench's %s at -workload-div %d, %d bytes of data moved; package workload builds it: workload.MustGet(%d, %d); -repro-dir writes its tensors as .npy files)",
		wl.Name, wl.Div, wl.Bytes, wl.ID, wl.Div)
	f.PyTorch = "(not printed for a workload: -repro-dir writes the call's tensors, which numpy.load reads)"
	cr.fail(f, cfg.allowUnsupported)
	return cr
}

// maxWorkloadLine is the longest request line -repro-dir writes for a
// workload (at -workload-div 1, W2's is over 700 MB).
const maxWorkloadLine = 64 << 20

// workloadLine is a workload's request line for its repro folder, or a
// note where it is longer than maxWorkloadLine.
func workloadLine(line string) string {
	if len(line) > maxWorkloadLine {
		return fmt.Sprintf("(the request line is %d bytes, over the %d this folder holds: repro.py reads the .npy files)", len(line), maxWorkloadLine)
	}
	return line
}
