package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/spec"
	"github.com/scatterconf/scatter/workload"
)

// partialReason is why a report written while the run goes is incomplete:
// one left behind says that its gate was killed (merge reads it so).
const partialReason = "the run had not finished when this report was written (its gate was killed, or is still running)"

// A session is one gate command as it goes: the runs and the cases judged
// so far, which the reports written while the run goes (and when it is
// cut short by SIGINT, SIGTERM or -deadline) are made of; the progress
// lines; and the implementations started, which it ends when the command
// ends.

// errInterrupted is the answer of a guarded backend once the run is cut
// short: nothing more is sent.
var errInterrupted = errors.New("not run: the run was cut short")

// Timings of a session.
const (
	// cutGrace is how long a run cut short has to wind down (the case in
	// flight, the implementation's end) before the reports are written
	// from what was judged.
	cutGrace = 5 * time.Second
	// partialEvery is how often the reports are rewritten while the run
	// goes.
	partialEvery = 15 * time.Second
	// firstProgress is when the first progress line comes off a terminal
	// (at the latest: -progress may ask for sooner).
	firstProgress = 10 * time.Second
	// longRun is the estimate past which the run says that it is long.
	longRun = 30 * time.Minute
)

type session struct {
	cfg    *gateConfig
	xf     *xfailList
	ctx    context.Context
	cancel context.CancelCauseFunc
	t0     time.Time
	out    io.Writer // progress lines
	tty    bool      // out is a terminal: one live line

	mu       sync.Mutex
	runs     []*runReport
	started  map[*runReport]time.Time
	unavail  map[*runReport]bool
	clients  []*protocol.Client
	frozen   bool
	part     string
	judged   int
	failed   int
	left     map[string]int // cases not yet judged, per part, in all runs to come
	judgedIn map[string]int // cases judged, per part
	ranIn    map[string]int // cases judged that sent a request, per part

	requests atomic.Int64 // requests sent to the implementations
	long     atomic.Bool  // the run has said that it is long
}

// errCut is the cause of a session's context when the run is cut short.
type errCut struct{ reason string }

func (e errCut) Error() string { return e.reason }

func newSession(cfg *gateConfig, xf *xfailList, progressOut io.Writer) *session {
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &session{cfg: cfg, xf: xf, ctx: ctx, cancel: cancel, t0: time.Now(), out: progressOut,
		started: map[*runReport]time.Time{}, unavail: map[*runReport]bool{},
		left: map[string]int{}, judgedIn: map[string]int{}, ranIn: map[string]int{}}
	if f, ok := progressOut.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			s.tty = true
		}
	}
	s.left = plannedCases(cfg)
	return s
}

// plannedCases counts the cases the run will judge, per part, over every
// run (implementation and profile): what the progress and the estimate
// count down from. The properties part counts its properties as the
// package lists them for every operation.
func plannedCases(cfg *gateConfig) map[string]int {
	runsPer := len(cfg.profiles)
	if cfg.impl == "" {
		runsPer *= len(builtins)
	}
	n := map[string]int{}
	if cfg.suites[suiteSpec] || cfg.suites[suiteFixtures] {
		for _, c := range spec.Cases() {
			src := caseSource(c)
			if cfg.suites[src] && cfg.wantOp(c.Call.Op()) && cfg.wantLabels(c.Labels) && cfg.shard.has(specCaseID(c, src)) {
				n[src] += runsPer
			}
		}
	}
	if cfg.suites[suiteRandom] && cfg.checks > 0 {
		for _, op := range scatter.Ops {
			for _, dt := range scatter.DTypes {
				if cfg.wantOp(op) && cfg.shard.has(randomCaseID(op, dt)) {
					n[suiteRandom] += runsPer
				}
			}
		}
	}
	if cfg.suites[suiteProperties] && cfg.checks > 0 {
		n[suiteProperties] += len(cfg.propertyNames()) * runsPer
	}
	if cfg.suites[suiteWorkloads] {
		for w := 1; w <= workload.Count; w++ {
			if cfg.wantOp(workload.MustGet(w, workload.MaxDiv).Call.Op()) && cfg.shard.has(workloadCaseID(w)) {
				n[suiteWorkloads] += runsPer
			}
		}
	}
	return n
}

// watch cuts the run short on SIGINT, SIGTERM, SIGHUP and -deadline, and writes
// progress lines and the partial reports while the run goes. The function
// returned stops it.
func (s *session) watch() func() {
	sigs := make(chan os.Signal, 2)
	notifyCut(sigs)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var deadline <-chan time.Time
		if s.cfg.deadline > 0 {
			t := time.NewTimer(s.cfg.deadline)
			defer t.Stop()
			deadline = t.C
		}
		tick := time.NewTicker(s.tickEvery())
		defer tick.Stop()
		lastLine, lastWrite := time.Time{}, time.Now()
		for {
			select {
			case <-stop:
				return
			case sig := <-sigs:
				s.cut("interrupted by " + signalName(sig))
			case <-deadline:
				s.cut(fmt.Sprintf("the -deadline of %v was reached", s.cfg.deadline))
			case now := <-tick.C:
				if s.ctx.Err() != nil {
					continue
				}
				if s.dueProgress(now, lastLine) {
					s.printProgress(now)
					lastLine = now
				}
				if now.Sub(lastWrite) >= s.partialEvery() {
					s.writePartial(partialReason)
					lastWrite = now
				}
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(stop)
		wg.Wait()
		if s.tty && s.cfg.progress > 0 {
			fmt.Fprint(s.out, "\r\033[K")
		}
	}
}

// partialEvery is how often the reports are rewritten while the run
// goes: every partialEvery, or every -progress when that is sooner.
func (s *session) partialEvery() time.Duration {
	if p := s.cfg.progress; p > 0 && p < partialEvery {
		return p
	}
	return partialEvery
}

func (s *session) tickEvery() time.Duration {
	d := time.Second
	if p := s.cfg.progress; p > 0 && p < d {
		d = p
	}
	return d
}

// dueProgress says whether a progress line is due: every tick on a
// terminal; off one, the first after firstProgress (or -progress, when
// sooner), then every -progress.
func (s *session) dueProgress(now, last time.Time) bool {
	p := s.cfg.progress
	switch {
	case p <= 0:
		return false
	case s.tty:
		return true
	case last.IsZero():
		return now.Sub(s.t0) >= min(firstProgress, p)
	}
	return now.Sub(last) >= p
}

// cut ends the run early: nothing more is sent, the implementations are
// ended, and the reports are written from what was judged.
func (s *session) cut(reason string) {
	if s.ctx.Err() != nil {
		return
	}
	s.cancel(errCut{reason: fmt.Sprintf("%s after %v", reason, time.Since(s.t0).Round(time.Second))})
	if s.out != nil {
		if s.tty {
			fmt.Fprint(s.out, "\r\033[K")
		}
		fmt.Fprintf(s.out, "scattercheck: %s: ending the implementation and writing what was judged\n", reason)
	}
	s.terminateClients()
}

// stopped reports whether the run was cut short.
func (s *session) stopped() bool { return s != nil && s.ctx.Err() != nil }

// cutReason is why the run was cut short, or "".
func (s *session) cutReason() string {
	if s == nil || s.ctx.Err() == nil {
		return ""
	}
	var c errCut
	if errors.As(context.Cause(s.ctx), &c) {
		return c.reason
	}
	return "cut short"
}

// context is the session's context (nil for none).
func (s *session) context() context.Context {
	if s == nil {
		return nil
	}
	return s.ctx
}

func (s *session) addClient(c *protocol.Client) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.clients = append(s.clients, c)
	s.mu.Unlock()
	if s.stopped() {
		c.Terminate()
	}
}

// terminateClients ends every implementation started (their whole
// process groups), and returns once they are gone.
func (s *session) terminateClients() {
	s.mu.Lock()
	cs := append([]*protocol.Client(nil), s.clients...)
	s.mu.Unlock()
	for _, c := range cs {
		c.Terminate()
	}
}

// addRun registers a run as it starts.
func (s *session) addRun(r *runReport, unavailable bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return
	}
	s.runs = append(s.runs, r)
	s.started[r] = time.Now()
	if unavailable {
		s.unavail[r] = true
	}
}

// add records a judged case of run r. Once the run is cut short, cases
// are dropped: the one in flight may have been cut, and the reports hold
// what was judged before.
func (s *session) add(r *runReport, cr *caseResult) {
	cleanCase(cr)
	if s == nil {
		r.Cases = append(r.Cases, cr)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen || s.ctx.Err() != nil {
		return
	}
	r.Cases = append(r.Cases, cr)
	s.judged++
	if cr.Status == stFail || cr.Status == stUnsup {
		s.failed++
	}
	s.part = cr.Source
	s.judgedIn[cr.Source]++
	if cr.Status != stSkip {
		s.ranIn[cr.Source]++
	}
	if s.left[cr.Source] > 0 {
		s.left[cr.Source]--
	}
}

// update changes run r under the session's lock.
func (s *session) update(r *runReport, f func(r *runReport)) {
	if s == nil {
		f(r)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.frozen {
		f(r)
	}
}

// finish freezes the session and returns its runs: nothing is added
// after. A run not finished (cut short) gets its duration so far.
func (s *session) finish() (runs []*runReport, unavailable map[*runReport]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frozen = true
	for _, r := range s.runs {
		if r.Duration == 0 {
			r.Duration = time.Since(s.started[r])
		}
	}
	return s.runs, s.unavail
}

// snapshot copies the runs as they stand, for a partial report.
func (s *session) snapshot() ([]*runReport, map[*runReport]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	unavail := map[*runReport]bool{}
	var runs []*runReport
	for _, r := range s.runs {
		c := *r
		c.Notes = append([]string(nil), r.Notes...)
		c.Cases = make([]*caseResult, len(r.Cases))
		for i, cr := range r.Cases {
			cc := *cr
			if cr.Failure != nil {
				f := *cr.Failure
				cc.Failure = &f
			}
			c.Cases[i] = &cc
		}
		if c.Duration == 0 {
			c.Duration = time.Since(s.started[r])
		}
		runs = append(runs, &c)
		unavail[&c] = s.unavail[r]
	}
	return runs, unavail
}

// counted returns the cases judged and planned so far.
func (s *session) counted() (judged, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	total = s.judged
	for _, n := range s.left {
		total += n
	}
	return s.judged, total
}

// markIncomplete adds to every run a failing case "gate/incomplete" that
// says why the run is incomplete and how far it got.
func markIncomplete(runs []*runReport, reason string, judged, total int) {
	msg := fmt.Sprintf("the run is incomplete (%s): %d of about %d cases done (passed, failed or skipped); the others are not in this report", reason, judged, total)
	for _, r := range runs {
		r.Cases = append(r.Cases, incompleteCase(msg))
	}
}

// incompleteCase is the failing case "gate/incomplete" that says why a run
// is incomplete (msg).
func incompleteCase(msg string) *caseResult {
	return &caseResult{ID: "gate/incomplete", Source: "gate", Status: stFail,
		Origin:  "the gate: a run passes only when it is complete",
		Failure: &failure{Kind: kindIncomplete, Summary: msg, Report: msg + "."}}
}

// writePartial rewrites the -json and -junit reports with what was judged
// so far, marked incomplete.
func (s *session) writePartial(reason string) {
	if s.cfg.jsonPath == "" && s.cfg.junitPath == "" {
		return
	}
	runs, _ := s.snapshot()
	judged, total := s.counted()
	markIncomplete(runs, reason, judged, total)
	s.mu.Lock() // the xfail list is shared with the final report
	defer s.mu.Unlock()
	if s.frozen {
		return
	}
	var ws []string
	for _, r := range runs {
		ws = append(ws, r.applyXfail(s.xf)...)
	}
	_ = writeReports(s.cfg, runs, ws, false, reason)
}

// writeReports writes the -json and -junit reports, each to a temporary
// file first, renamed into place, so that a reader never sees half of
// one. incomplete says why the run is incomplete ("" for a complete
// run).
func writeReports(cfg *gateConfig, runs []*runReport, warnings []string, ok bool, incomplete string) error {
	var errs []error
	if cfg.jsonPath != "" {
		errs = append(errs, atomicWrite(cfg.jsonPath, func(tmp string) error {
			rep := buildJSON(runs, warnings, ok)
			rep.Complete, rep.Incomplete = incomplete == "", incomplete
			return writeJSONFile(tmp, rep)
		}))
	}
	if cfg.junitPath != "" {
		errs = append(errs, atomicWrite(cfg.junitPath, func(tmp string) error {
			return writeJUnit(tmp, runs, cfg.strictXfail)
		}))
	}
	return errors.Join(errs...)
}

func atomicWrite(path string, write func(tmp string) error) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".partial")
	if err := write(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// countRequest counts one request sent to an implementation.
func (s *session) countRequest() {
	if s != nil {
		s.requests.Add(1)
	}
}

// estimate returns the time the run has left, from the requests sent so
// far: every case still to judge costs the requests such a case costs
// (a spec or fixture case one, unless it is skipped; a random pair
// -checks; a property twice -checks), each at the mean time per request
// so far. ok is false before there is anything to go by.
func (s *session) estimate(now time.Time) (left time.Duration, ok bool) {
	reqs := s.requests.Load()
	if reqs < 5 {
		return 0, false
	}
	per := float64(now.Sub(s.t0)) / float64(reqs)
	s.mu.Lock()
	defer s.mu.Unlock()
	var want float64
	for part, n := range s.left {
		cost := 1.0
		switch part {
		case suiteSpec, suiteFixtures:
			if j := s.judgedIn[part]; j > 0 {
				cost = float64(s.ranIn[part]) / float64(j)
			}
		case suiteRandom:
			cost = float64(s.cfg.checks)
		case suiteProperties:
			cost = 2 * float64(s.cfg.checks)
		}
		want += float64(n) * cost
	}
	return time.Duration(want * per), true
}

// printProgress writes the progress: a live line on a terminal, a plain
// line otherwise. The first estimate past longRun is said once, plainly.
func (s *session) printProgress(now time.Time) {
	judged, total := s.counted()
	s.mu.Lock()
	part, failed := s.part, s.failed
	s.mu.Unlock()
	if part == "" {
		part = "starting"
	}
	elapsed := now.Sub(s.t0).Round(time.Second)
	line := fmt.Sprintf("scattercheck: %s: %d of about %d cases done, %d failed, %v elapsed", part, judged, total, failed, elapsed)
	left, ok := s.estimate(now)
	if ok {
		line += fmt.Sprintf(", about %s left", roundEstimate(left))
	} else {
		line += ", estimating the time left"
	}
	if s.tty {
		fmt.Fprint(s.out, "\r\033[K"+line)
	} else {
		fmt.Fprintln(s.out, line)
	}
	if ok && left > longRun && s.long.CompareAndSwap(false, true) {
		if s.tty {
			fmt.Fprintln(s.out)
		}
		fmt.Fprintf(s.out, "scattercheck: this is a long run: about %s in all at the present pace; -checks, -suites, -ops and -deadline shorten it\n",
			roundEstimate(left+elapsed))
	}
}

// roundEstimate writes a duration rounded to what an estimate can claim:
// "1h21m", "12m30s", "40s".
func roundEstimate(d time.Duration) string {
	switch {
	case d >= time.Hour:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return d.Round(10 * time.Second).String()
	}
	return d.Round(time.Second).String()
}

// signalName is a signal as a shell names it.
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// interruptedLine is the verdict of a run cut short.
func interruptedLine(reason string, judged, total int, cfg *gateConfig) string {
	var files []string
	for _, f := range []string{cfg.jsonPath, cfg.junitPath} {
		if f != "" {
			files = append(files, f)
		}
	}
	s := fmt.Sprintf("INCOMPLETE: %s: %d of about %d cases done (passed, failed or skipped)", reason, judged, total)
	if cfg.shard.count > 1 {
		s = fmt.Sprintf("INCOMPLETE: shard %v: %s: %d of about %d of its cases done (passed, failed or skipped)", cfg.shard, reason, judged, total)
	}
	switch len(files) {
	case 1:
		s += "; " + files[0] + " holds what was judged"
	case 2:
		s += "; " + strings.Join(files, " and ") + " hold what was judged"
	}
	return s
}
