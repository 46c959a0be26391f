package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/spec"
)

// What a run must show before it can pass, and what the command line must
// name before a run starts.

// Kinds of the gate's own failures (cases "gate/...").
const (
	kindNothingPassed = "nothing-passed" // a run in which no case passed
	kindIncomplete    = "incomplete"     // a run cut short (a signal, -deadline)
)

// unexcusable are the failure kinds an -xfail entry cannot turn into an
// expected failure: the implementation did not start, crashed, or the gate
// stopped sending it requests, so nothing about the case was learnt; and
// the gate's own verdicts on the run.
var unexcusable = []string{"start", "crash", "gave-up", "closed", "panic", kindNothingPassed, kindIncomplete}

// excusable reports whether an -xfail entry may excuse a failure of this
// kind.
func excusable(kind string) bool { return !slices.Contains(unexcusable, kind) }

// checkNothingPassed adds a failing case "gate/nothing-passed" to every run
// of an available implementation in which no case passed (all skipped,
// all filtered out, all expected failures, or it never started), or in
// which every case that passed judged only calls that must fail while
// some case was declined (answered unsupported, skipped under
// -allow-unsupported): such a run has checked nothing the implementation
// computes, and must not read as a pass. (A run that selects only
// argument checks, -labels, and declines nothing still passes on them.)
// It returns the reasons, one per such run.
func checkNothingPassed(runs []*runReport, unavailable map[*runReport]bool) []string {
	var reasons []string
	for _, r := range runs {
		if unavailable[r] {
			continue
		}
		c := r.counts()
		results, errorsOnly, declined := 0, 0, 0
		for _, cr := range r.Cases {
			switch {
			case (cr.Status == stPass || cr.Status == stXpass) && cr.ErrorsOnly:
				errorsOnly++
			case cr.Status == stPass || cr.Status == stXpass:
				results++
			case declinedCase(cr):
				declined++
			}
		}
		if results > 0 || errorsOnly > 0 && declined == 0 {
			continue
		}
		var parts []string
		for _, s := range []status{stFail, stUnsup, stXfail, stSkip} {
			if c[s] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", c[s], statusWords[s]))
			}
		}
		what := "no case was run"
		if len(parts) > 0 {
			// the counts of the cases besides this one, which the
			// report's headline counts too
			what = "besides this one: " + strings.Join(parts, ", ")
		}
		reason := fmt.Sprintf("no case passed (%s): the run checked nothing", what)
		if errorsOnly > 0 {
			reason = fmt.Sprintf("no case that asks for a result passed (%d passed on calls that must fail only; %s): "+
				"the run checked the argument checks and nothing the implementation computes", errorsOnly, what)
		}
		if c[stXfail] > 0 {
			reason += "; expected failures do not count as passes"
		}
		switch {
		case slices.ContainsFunc(r.Cases, declinedAll):
			reason += "; the implementation answered unsupported to every call it was asked (-allow-unsupported skips them)"
		case declined > 0:
			reason += "; the implementation answered unsupported to every call that should succeed (-allow-unsupported skips them)"
		}
		reasons = append(reasons, fmt.Sprintf("%s (%v): %s", strings.TrimSpace(r.Impl.Name+" "+r.Impl.Version), r.Profile, reason))
		r.Cases = append(r.Cases, &caseResult{ID: "gate/nothing-passed", Source: "gate", Status: stFail,
			Origin: "the gate: a run passes only when some case passed",
			Failure: &failure{Kind: kindNothingPassed, Summary: reason, Report: reason +
				".\nCheck -labels, -ops, -suites and -checks, the implementation's hello (the operations and dtypes it claims) and the -xfail file."}})
	}
	return reasons
}

// declinedAll reports whether a case was skipped because every call of it
// was answered unsupported.
func declinedAll(cr *caseResult) bool {
	return cr.Status == stSkip && (cr.Reason == declinedRandom ||
		strings.HasPrefix(cr.Reason, declinedProperty+"all ") && strings.HasSuffix(cr.Reason, declinedEvery))
}

// declinedCase reports whether a case was skipped because calls of it
// that should succeed were answered unsupported (-allow-unsupported).
func declinedCase(cr *caseResult) bool {
	return cr.Status == stSkip && (declinedSkip(cr.Reason) || strings.HasPrefix(cr.Reason, declinedProperty))
}

var statusWords = map[status]string{stFail: "failed", stUnsup: "unsupported", stXfail: "expected failures", stSkip: "skipped"}

// specLabels returns every label carried by a spec or fixture case, sorted.
func specLabels() []string {
	seen := map[string]bool{}
	for _, c := range spec.Cases() {
		for _, l := range c.Labels {
			seen[l] = true
		}
	}
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// checkLabels returns a usage error for a -labels value that no case
// carries, naming the labels there are.
func checkLabels(labels []string) error {
	if labels == nil {
		return nil
	}
	valid := specLabels()
	var unknown []string
	for _, l := range labels {
		if _, ok := slices.BinarySearch(valid, l); !ok {
			unknown = append(unknown, fmt.Sprintf("%q", l))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return fmt.Errorf("-labels: no case carries %s; the labels are: %s", strings.Join(unknown, ", "), strings.Join(valid, " "))
}

// profileNames are the values -profile takes.
func profileNames() string {
	var names []string
	for _, p := range scatter.Profiles {
		names = append(names, p.String())
	}
	return strings.Join(append(names, "all"), ", ")
}

// checkOutputs checks, before the run, that the report files and the
// repro folder can be written: a missing or unwritable folder is a usage
// error at once, not after an hour of checking.
func checkOutputs(cfg *gateConfig) error {
	for _, o := range []struct{ flag, path string }{{"-json", cfg.jsonPath}, {"-junit", cfg.junitPath}} {
		if o.path == "" {
			continue
		}
		if err := checkWritableFile(o.path); err != nil {
			return fmt.Errorf("%s %s: %v", o.flag, o.path, err)
		}
	}
	if cfg.reproDir != "" {
		if err := checkWritableDir(cfg.reproDir); err != nil {
			return fmt.Errorf("-repro-dir %s: %v", cfg.reproDir, err)
		}
	}
	return nil
}

// checkWritableFile checks that path can be created or replaced: its
// folder exists and takes a new file, and it is not a folder.
func checkWritableFile(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return errors.New("is a folder")
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("its folder %s does not exist", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return probeDir(dir)
}

// checkWritableDir creates dir if needed and checks that it takes files.
func checkWritableDir(dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return errors.New("is not a folder")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot be created: %v", cause(err))
	}
	return probeDir(dir)
}

// probeDir creates and removes a file in dir.
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".scattercheck-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %v", dir, cause(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// cause is the reason inside a *os.PathError, or err.
func cause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
