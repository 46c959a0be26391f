package properties_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/properties"
)

// recorder is a TB that records instead of failing: TestMutants runs
// each mutant through properties.CheckTB, the entry any TB uses, and
// inspects what it reported.
type recorder struct {
	name   string
	mu     sync.Mutex
	failed bool
	errors []string
	logs   []string
}

type recorderStop struct{}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any) { r.Logf("%s", fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.FailNow()
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fail() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
}
func (r *recorder) FailNow() { r.Fail(); panic(recorderStop{}) }
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}
func (r *recorder) Skipf(format string, args ...any) { r.Logf(format, args...); r.SkipNow() }
func (r *recorder) Skip(args ...any)                 { r.Log(args...); r.SkipNow() }
func (r *recorder) SkipNow()                         { panic(recorderStop{}) }

// noFailFiles stops rapid from writing fail files (a mutant's
// counterexamples are not regressions to keep) and bounds its shrinking
// (unless -rapid.shrinktime was given) for the rest of the test.
func noFailFiles(t *testing.T) {
	set := func(name, v string) {
		f := flag.Lookup(name)
		if f == nil {
			return
		}
		given := false
		flag.Visit(func(g *flag.Flag) { given = given || g.Name == name })
		if given {
			return
		}
		old := f.Value.String()
		_ = f.Value.Set(v)
		t.Cleanup(func() { _ = f.Value.Set(old) })
	}
	set("rapid.nofailfile", "true")
	set("rapid.shrinktime", "5s")
}

// conformantBlind lists the mutants that the properties cannot be relied
// on to kill at the conformant level, with the reason: every answer they
// give is one that some correct order or thread count also produces (or,
// for float32-accumulates-in-float64, all but on rare groups), so
// TestMutants judges them at the strict level.
var conformantBlind = map[string]string{
	"first-writer-wins":  "plain scatter with duplicate targets may take any writer at the conformant level, the first along dim as well as the last; which one PyTorch's CPU kernels keep (the last) is the strict level's",
	"flaky-duplicates":   "plain scatter with duplicate targets may take any writer at the conformant level; alternating writers is what a multi-threaded backend does, and only a backend claiming determinism must repeat itself",
	"last-rule-reported": "every rule a call breaks conforms at the conformant level, in whichever order an implementation checks them; PyTorch's first is the strict level's",
	"float32-accumulates-in-float64": "a float32 sum accumulated in float64 and rounded once is, for most groups, also the result of some order of per-step float32 additions " +
		"(always for 2 terms: fl32(fl64(a+b)) = fl32(a+b)); it is visible only in groups of 3 or more terms that no order rounds alike, which differential/crowded draws by chance alone. " +
		"The spec's \"accumulation\" cases are such groups and kill it at the conformant level (spec.TestSpecKillsMutants)",
}

// longTier lists the mutants that only the long tier can show, with the
// test that kills them there.
var longTier = map[string]string{
	"large-tail-dropped":      "needs a call of more than 65,536 contributions: the spec's large cases kill it (spec.TestSpecKillsMutants)",
	"float32-count-saturates": "needs a group of more than 2^24 contributions: TestFloat32CountSaturates (SCATTER_PROPERTIES=long)",
	"mean-count-wraps":        "needs a mean of a group of 2^16 operands or more: the spec's one-target means kill it (spec.TestSpecKillsMutants)",
}

// specOnly lists the mutants whose bug the default budget's random calls
// meet too rarely to count on, with the spec cases that kill them
// (spec.TestSpecKillsMutants holds them).
var specOnly = map[string]string{
	"expanded-path-rows-in-place": "needs a torch_scatter call on torch 2.14's expanded-index path (dim 0, floating, rows of 16 or more) into an out wider than src: the spec's expanded-path cases kill it",
}

// TestMutants checks that the default budget kills every mutant of the
// zoo at the conformant level (any correct order, rigorous sets: the
// mutant presented as a backend that does not claim determinism), and
// those of conformantBlind at the strict level: each runs through
// properties.CheckTB (stopping at the first property that fails) under its
// profile and must fail, on one seed (those of longTier are left to their
// long-tier test). A kill at the conformant level is a kill at the strict
// one too (the canonical result is among the conformant outcomes). The log says which property killed it, after
// how many cases, and the call it took.
func TestMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("the mutant zoo needs the default budget (run without -short)")
	}
	noFailFiles(t)
	names := map[string]bool{}
	for _, m := range properties.Mutants() {
		names[m.Name] = true
		if why, ok := longTier[m.Name]; ok {
			t.Logf("%s: a long-tier mutant, %s", m.Name, why)
			continue
		}
		if why, ok := specOnly[m.Name]; ok {
			t.Logf("%s: %s", m.Name, why)
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			rec := &recorder{name: t.Name()}
			start := time.Now()
			target := properties.Target{Backend: m.Conformant(), Profile: m.Profile}
			want := scatter.Conformant
			if why, blind := conformantBlind[m.Name]; blind {
				target.Backend, want = m.Backend, scatter.Strict
				t.Logf("blind at the conformant level by design, judged strict: %s", why)
			}
			var rep properties.Report
			func() {
				defer func() {
					if r := recover(); r != nil {
						if _, ok := r.(recorderStop); !ok {
							panic(r)
						}
					}
				}()
				rep = properties.CheckTB(rec, target, properties.Budget{Tier: properties.TierDefault, FailFast: true})
			}()
			if rep.Level != want {
				t.Fatalf("judged at the %v level, want %v", rep.Level, want)
			}
			if !rep.Failed() {
				t.Fatalf("mutant %s survived the %v budget at the %v level (%d cases, seed %d): %s", m.Name, rep.Tier, rep.Level, rep.CasesRun(), rep.Seed, m.Bug)
			}
			var killer properties.PropertyReport
			for _, p := range rep.Properties {
				if p.Failed {
					killer = p
				}
			}
			t.Logf("killed at the %v level by %s at its case %d (%d cases in all, seed %d, %v): %s\n%s", rep.Level, killer.Name, killer.Cases,
				rep.CasesRun(), rep.Seed, time.Since(start).Round(time.Millisecond), m.Bug, theCall(killer.Failure))
			// The report must carry the reproductions: the call, the Go
			// command, the protocol line and the PyTorch one-liner.
			// (A line too long to print is written to a file, named instead.)
			for _, want := range [][]string{{"call 1:"}, {"Go repro: cd "}, {"protocol: {\"id\":1,\"op\":", "protocol: ("},
				{"pytorch:  python3 -c '", "pytorch:  ("}} {
				if !slices.ContainsFunc(want, func(w string) bool { return strings.Contains(killer.Failure, w) }) {
					t.Errorf("the failure report lacks %q:\n%s", want[0], killer.Failure)
				}
			}
			if testing.Verbose() {
				lines := strings.Split(killer.Failure, "\n")
				if len(lines) > 40 {
					lines = append(lines[:40], "...")
				}
				t.Logf("the shrunk counterexample:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
	for _, table := range []map[string]string{conformantBlind, longTier, specOnly} {
		for name := range table {
			if !names[name] {
				t.Errorf("a table names %q, which is not in the zoo", name)
			}
		}
	}
}

// theCall returns the lines of a failure report that show the call and
// what was wrong with it (the judge's words), up to ten.
func theCall(failure string) string {
	var out []string
	for _, l := range strings.Split(failure, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "call:") || strings.HasPrefix(t, "out[") || strings.HasPrefix(t, "arg[") || strings.Contains(t, "does not conform") {
			out = append(out, "  "+t)
		}
		if len(out) == 10 {
			break
		}
	}
	return strings.Join(out, "\n")
}

// TestMutantsAnswerEveryCall runs every mutant of every profile on drawn
// calls of every operation, valid and broken toward an error path: each
// must answer (a result or an error), never panic, but the one whose bug
// is a panic. A mutant that panics on calls outside its bug would be
// "killed" by any property that draws them, and the gate could not
// compare it with a failure (likely.go skips a mutant that panics).
func TestMutantsAnswerEveryCall(t *testing.T) {
	for _, p := range scatter.Profiles {
		r := rand.New(rand.NewPCG(1, uint64(p)))
		var calls []scatter.Call
		for len(calls) < 1500 {
			op := scatter.Ops[r.IntN(len(scatter.Ops))]
			if c, err := callgen.DrawCall(r, op, callgen.Options{Profile: p, FaultPercent: 20}); err == nil {
				calls = append(calls, c)
			}
		}
		for _, m := range properties.MutantsFor(p) {
			if m.Name == "panics-on-empty-index" {
				continue
			}
			t.Run(p.String()+"/"+m.Name, func(t *testing.T) {
				for _, c := range calls {
					func() {
						defer func() {
							if e := recover(); e != nil {
								t.Fatalf("panics on %v: %v", c, e)
							}
						}()
						_, _ = m.Backend.Run(scatter.CloneCall(c))
					}()
				}
			})
		}
	}
}
