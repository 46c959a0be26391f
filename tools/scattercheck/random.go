package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/check"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// The random part of the gate: for every operation and dtype the
// implementation claims, rapid draws calls (package callgen, with the
// properties' short tier: small tensors in every layout, one call in
// about seven broken on purpose), runs each on the
// implementation and asks the judge whether the outcome conforms; the
// first call that does not is shrunk by rapid to a minimal one, which the
// report shows.
//
// rapid reads its case count, seed and shrink time only from its own
// command-line flags, so runRandom sets them on flag.CommandLine; outside
// go test it first initialises package testing (rapid calls
// testing.Short).

// randomOpts configure the random part.
type randomOpts struct {
	checks     int           // calls per operation and dtype
	seed       uint64        // the base seed; each pair derives its own
	shrinkTime time.Duration // the most time rapid spends shrinking one failure
	allowUnsup bool          // unsupported answers are declines, not failures
}

// randomOutcome is what the random part found for one operation and dtype.
type randomOutcome struct {
	checks      int // calls run before the first failure (all when none failed)
	unsupported int // calls answered unsupported (with allowUnsup)
	errorsWant  int // calls that had to fail
	resultsSeen int // calls that had to succeed and were answered (judged)
	seed        uint64
	shrinkSpent time.Duration // time from the first failure to the end
	fail        *randomFail
	rapidNote   string // what rapid said beyond the failure, e.g. a flaky failure
}

// randomFail is the minimal failing call found, with its outcome.
type randomFail struct {
	kind   string // mismatch, unsupported, panic, modified-inputs, or a protocol.ProcessError kind
	call   scatter.Call
	res    scatter.Result
	err    error
	report string
	shrunk bool
}

// randomMaxElements bounds the tensors of the random part's calls.
const randomMaxElements = 256

var rapidInit sync.Once

// prepareRapid makes rapid usable outside go test.
func prepareRapid() {
	rapidInit.Do(func() {
		if !testing.Testing() {
			testing.Init()
		}
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
		// never write rapid's fail files into the user's tree
		setRapidFlag("rapid.nofailfile", "true")
	})
}

func setRapidFlag(name, value string) {
	if f := flag.Lookup(name); f != nil {
		_ = f.Value.Set(value)
	}
}

// pairSeed derives the seed of one operation and dtype from the base seed,
// so that each pair's calls do not depend on which other pairs run.
func pairSeed(seed uint64, op scatter.Op, dt scatter.DType) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%s", seed, op, dt)
	s := h.Sum64() >> 1
	if s == 0 {
		s = 1
	}
	return s
}

// runRandom checks op on dt with random calls.
func runRandom(b scatter.Backend, prof scatter.Profile, lvl scatter.Level, op scatter.Op, dt scatter.DType,
	others []scatter.DType, o randomOpts) randomOutcome {
	prepareRapid()
	out := randomOutcome{seed: pairSeed(o.seed, op, dt)}
	if o.checks <= 0 {
		return out
	}
	setRapidFlag("rapid.checks", strconv.Itoa(o.checks))
	setRapidFlag("rapid.seed", strconv.FormatUint(out.seed, 10))
	setRapidFlag("rapid.shrinktime", o.shrinkTime.String())
	setRapidFlag("rapid.v", "false")
	setRapidFlag("rapid.log", "false")

	r := &randomProp{b: b, prof: prof, lvl: lvl, op: op, dt: dt, others: others, allowUnsup: o.allowUnsup}
	tb := &recTB{name: fmt.Sprintf("scattercheck/%s/%s", op, dt)}
	func() {
		defer func() {
			// rapid panics when a failure changes while it shrinks (an
			// implementation that is not deterministic); what was found
			// stands.
			if p := recover(); p != nil {
				tb.notes = append(tb.notes, fmt.Sprintf("rapid stopped: %v", p))
			}
		}()
		rapid.Check(tb, r.property)
	}()
	if !r.failedAt.IsZero() {
		out.shrinkSpent = time.Since(r.failedAt)
	}
	out.checks, out.unsupported, out.errorsWant, out.resultsSeen = r.checks, r.unsupported, r.errorsWant, r.resultsSeen
	switch {
	case r.fail != nil:
		out.fail = r.fail
	case r.unsup != nil && !o.allowUnsup:
		out.fail = r.unsup
	}
	for _, m := range append(tb.errors, tb.notes...) {
		if strings.Contains(m, "flaky") {
			out.rapidNote = "rapid could not reproduce the first failure, so it was not shrunk"
		} else if strings.Contains(m, "only generated") || strings.HasPrefix(m, "rapid stopped") {
			out.rapidNote = firstLine(m)
		}
	}
	if out.fail == nil && tb.failed {
		// rapid failed without a failing call of ours (it should not).
		out.fail = &randomFail{kind: "suite", report: strings.Join(tb.errors, "\n")}
	}
	return out
}

// randomProp is the property rapid checks for one operation and dtype.
type randomProp struct {
	b          scatter.Backend
	prof       scatter.Profile
	lvl        scatter.Level
	op         scatter.Op
	dt         scatter.DType
	others     []scatter.DType
	allowUnsup bool

	checks, unsupported, errorsWant, resultsSeen int
	fail                                         *randomFail // the last failing call: after shrinking, the minimal one
	first                                        []byte      // the request line of the first failing call
	noRepeat                                     bool        // a process failure: do not run again
	failedAt                                     time.Time   // when the first failure was found
	unsup                                        *randomFail // the smallest call answered unsupported
	unsupLen                                     int
}

func (r *randomProp) property(t *rapid.T) {
	if r.noRepeat {
		return
	}
	call := callgen.New(callgen.Rapid(t), callgen.Options{
		Profile:      r.prof,
		Claims:       scatter.Info{Ops: []scatter.Op{r.op}, DTypes: append([]scatter.DType{r.dt}, r.others...)},
		DTypes:       []scatter.DType{r.dt},
		MaxElements:  randomMaxElements,
		Boundaries:   []int{31, 32, 33},
		FaultPercent: 15,
	}).Call(r.op)
	if r.fail == nil {
		r.checks++
	}
	exp := reference.Expect(scatter.CloneCall(call), r.prof)
	if r.fail == nil && exp.Codes() != nil {
		r.errorsWant++
	}
	o := check.Run(r.b, call)
	res, err, panicked := o.Res, o.Err, o.Panicked
	var pe *protocol.ProcessError
	switch {
	case panicked != "":
		r.failPanic(t, call, panicked)
	case errors.As(err, &pe) || errors.Is(err, errGaveUp):
		// A hang costs the whole timeout and a crash a restart: report
		// it as found, without replaying or shrinking.
		r.noRepeat = true
		r.record(processKind(err), call, res, err, err.Error())
		t.Fatalf("process failure")
	case scatter.CodeOf(err) == scatter.ErrNotSupported:
		// A declined call is counted and kept (the smallest one), and the
		// search goes on: a mismatch elsewhere matters more, and is shrunk.
		if r.fail == nil {
			r.unsupported++
			if line, _ := protocol.EncodeCall(0, call); r.unsup == nil || len(line) < r.unsupLen {
				r.unsup = &randomFail{kind: "unsupported", call: call, err: err,
					report: "the implementation answered unsupported for a call it claims: " + err.Error()}
				r.unsupLen = len(line)
			}
		}
		return
	}
	if r.fail == nil && exp.Codes() == nil {
		r.resultsSeen++
	}
	if o.Modified != nil {
		r.failModified(t, call, res, err)
	}
	if jerr := exp.Check(r.lvl, res, err); jerr != nil {
		r.failMismatch(t, call, res, err, jerr)
	}
}

// record keeps a failing call. Each kind fails from its own function, so
// that rapid, which tells failures apart by where they happen, shrinks a
// failure into one of the same kind.
func (r *randomProp) record(kind string, call scatter.Call, res scatter.Result, err error, report string) {
	line, _ := protocol.EncodeCall(0, call)
	if r.fail == nil {
		r.first = line
		r.failedAt = time.Now()
	}
	r.fail = &randomFail{kind: kind, call: call, res: res, err: err, report: report, shrunk: !bytes.Equal(line, r.first)}
}

func (r *randomProp) failPanic(t *rapid.T, call scatter.Call, p string) {
	r.record("panic", call, scatter.Result{}, nil, "the implementation panicked:\n"+p)
	t.Fatalf("panic")
}

func (r *randomProp) failModified(t *rapid.T, call scatter.Call, res scatter.Result, err error) {
	r.record("modified-inputs", call, res, err, "the implementation modified its input tensors")
	t.Fatalf("modified inputs")
}

func (r *randomProp) failMismatch(t *rapid.T, call scatter.Call, res scatter.Result, err, jerr error) {
	r.record("mismatch", call, res, err, "the judge rejects the outcome at the "+r.lvl.String()+" level:\n"+jerr.Error())
	t.Fatalf("mismatch")
}

// recTB is the rapid.TB of the random part: it records what rapid reports.
type recTB struct {
	name   string
	failed bool
	errors []string
	notes  []string
}

func (t *recTB) Helper()      {}
func (t *recTB) Name() string { return t.name }
func (t *recTB) Logf(string, ...any) {
}
func (t *recTB) Log(...any) {}
func (t *recTB) Skipf(format string, args ...any) {
	t.notes = append(t.notes, "skipped: "+fmt.Sprintf(format, args...))
}
func (t *recTB) Skip(args ...any) { t.notes = append(t.notes, "skipped: "+fmt.Sprint(args...)) }
func (t *recTB) SkipNow()         { t.notes = append(t.notes, "skipped") }
func (t *recTB) Errorf(format string, args ...any) {
	t.failed = true
	t.errors = append(t.errors, fmt.Sprintf(format, args...))
}
func (t *recTB) Error(args ...any) { t.Errorf("%s", fmt.Sprint(args...)) }
func (t *recTB) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
}
func (t *recTB) Fatal(args ...any) { t.Errorf("%s", fmt.Sprint(args...)) }
func (t *recTB) FailNow()          { t.failed = true }
func (t *recTB) Fail()             { t.failed = true }
func (t *recTB) Failed() bool      { return t.failed }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// cloneCall is scatter.CloneCall: a deep copy of a call, strides kept.
func cloneCall(c scatter.Call) scatter.Call { return scatter.CloneCall(c) }
