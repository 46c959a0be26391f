package properties_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/reference"
)

// partial is the reference claiming only some operations and dtypes, and
// declining (ErrNotSupported) the calls decline picks.
type partial struct {
	base    scatter.Backend
	ops     []scatter.Op
	dtypes  []scatter.DType
	decline func(scatter.Call) bool
	unavail string

	mu   sync.Mutex
	seen map[string]bool // "op/dtype" of every data tensor it was given
}

func (p *partial) Info() scatter.Info {
	i := p.base.Info()
	i.Name, i.Ops, i.DTypes, i.Unavailable = "partial", p.ops, p.dtypes, p.unavail
	return i
}

func (p *partial) Run(c scatter.Call) (scatter.Result, error) {
	p.mu.Lock()
	for name, t := range c.Tensors() {
		if name != "index" && !strings.HasPrefix(name, "indices") {
			p.seen[string(c.Op())+"/"+t.DType().String()] = true
		}
	}
	p.mu.Unlock()
	if p.decline != nil && p.decline(c) {
		return scatter.Result{}, scatter.Errorf(scatter.ErrNotSupported, "declined")
	}
	return p.base.Run(c)
}

// sumsAndReductions is the reference claiming scatter_add and
// scatter_reduce on float32 and int64, and declining scatter_reduce's
// reductions named.
func sumsAndReductions(declined ...scatter.Reduce) *partial {
	return &partial{
		base:   reference.New(scatter.Torch2),
		ops:    []scatter.Op{scatter.OpScatterAdd, scatter.OpScatterReduce},
		dtypes: []scatter.DType{scatter.DTFloat32, scatter.DTInt64},
		decline: func(c scatter.Call) bool {
			x, ok := c.(scatter.ScatterReduce)
			return ok && slices.Contains(declined, x.Reduce)
		},
		seen: map[string]bool{},
	}
}

// TestSkipsUnclaimed checks that what a backend does not claim is skipped,
// never failed: unclaimed operations (their properties skip with the
// reason), unclaimed dtypes (never drawn), and ErrNotSupported answers
// (the case is skipped and counted).
func TestSkipsUnclaimed(t *testing.T) {
	noFailFiles(t)
	// three of the five reductions: a run of the short tier misses them
	// all only when every case is a sum or a mean, about (2/5)^cases
	// (with prod alone, (4/5)^cases, a run failed now and then: 30 runs
	// in a row pass with the three)
	b := sumsAndReductions(scatter.ReduceProd, scatter.ReduceAmax, scatter.ReduceAmin)
	rec := &recorder{name: t.Name()}
	rep := properties.CheckTB(rec, properties.Target{Backend: b, Profile: scatter.Torch2}, properties.Budget{Tier: properties.TierShort})
	if rep.Failed() || rec.failed {
		t.Fatalf("a partial backend failed:\n%s", strings.Join(rec.errors, "\n"))
	}
	byName := map[string]properties.PropertyReport{}
	for _, p := range rep.Properties {
		byName[p.Name] = p
	}
	for _, name := range []string{"differential/gather", "differential/tensor.scatter", "metamorphic/gather-inverts-scatter",
		"metamorphic/index_reduce-is-scatter_reduce", "metamorphic/include-self/index_reduce"} {
		if byName[name].Skipped == "" {
			t.Errorf("%s ran on a backend that does not claim its operations", name)
		}
	}
	for _, name := range []string{"differential/scatter_add", "differential/scatter_reduce", "invariants/inputs-unchanged", "metamorphic/linear"} {
		if p := byName[name]; p.Skipped != "" || p.Cases == 0 {
			t.Errorf("%s did not run: %+v", name, p)
		}
	}
	if p := byName["differential/scatter_reduce"]; p.Unsupported == 0 {
		t.Errorf("no scatter_reduce prod, amax or amin call was declined (and skipped) in %d cases (seed %d: -rapid.seed reruns them)", p.Cases, rep.Seed)
	}
	for k := range b.seen {
		op, dt, _ := strings.Cut(k, "/")
		if !slices.Contains(b.ops, scatter.Op(op)) || !slices.Contains([]string{"float32", "int64"}, dt) {
			t.Errorf("the backend was given an unclaimed operation or dtype: %s", k)
		}
	}
}

// TestSkipsUnjudged: a property in which the backend declined every case
// it drew (here scatter_reduce's mean, which the backend claims with the
// operation but does not compute) is skipped with the reason, not passed:
// no call that should succeed was judged.
func TestSkipsUnjudged(t *testing.T) {
	noFailFiles(t)
	b := sumsAndReductions(scatter.ReduceMean)
	rec := &recorder{name: t.Name()}
	rep := properties.CheckTB(rec, properties.Target{Backend: b, Profile: scatter.Torch2},
		properties.Budget{Tier: properties.TierShort, Match: "^(metamorphic/mean-is-sum-over-count|differential/scatter_add)$"})
	if rep.Failed() || rec.failed {
		t.Fatalf("a partial backend failed:\n%s", strings.Join(rec.errors, "\n"))
	}
	for _, p := range rep.Properties {
		switch p.Name {
		case "metamorphic/mean-is-sum-over-count":
			if want := fmt.Sprintf("%sall %d%s", properties.UnjudgedPrefix, p.Cases, properties.UnjudgedAll); p.Cases == 0 || p.Skipped != want || p.Unjudged() != want {
				t.Errorf("%s: skipped %q, want %q", p.Name, p.Skipped, want)
			}
		case "differential/scatter_add":
			if p.Skipped != "" || p.Unjudged() != "" {
				t.Errorf("%s: skipped %q", p.Name, p.Skipped)
			}
		}
	}
	if len(rep.Properties) != 2 {
		t.Errorf("ran %d properties, want 2", len(rep.Properties))
	}
}

// TestSkipsUnavailable checks that an unavailable backend is skipped with
// its reason.
func TestSkipsUnavailable(t *testing.T) {
	b := &partial{base: reference.New(scatter.Torch2), unavail: "no GPU here", seen: map[string]bool{}}
	rec := &recorder{name: t.Name()}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(recorderStop); !ok {
					panic(r)
				}
			}
		}()
		properties.CheckTB(rec, properties.Target{Backend: b, Profile: scatter.Torch2})
	}()
	if rec.failed || len(b.seen) > 0 || !slices.ContainsFunc(rec.logs, func(s string) bool { return strings.Contains(s, "no GPU here") }) {
		t.Fatalf("an unavailable backend was not skipped with its reason: failed=%v, calls=%v, logs=%q", rec.failed, b.seen, rec.logs)
	}
}

// TestSkipsWhatCopiesHide checks that a target that receives copies of the
// tensors (Target.Copies) skips the property that looks at its storage, and
// one that receives views materialised (Target.Materialises) the one that
// compares views with their copies, each saying why; the other properties
// still run.
func TestSkipsWhatCopiesHide(t *testing.T) {
	noFailFiles(t)
	for _, tc := range []struct {
		name                 string
		copies, materialises bool
		skipped              []string
	}{
		{"in-process", false, false, nil},
		{"copies", true, false, []string{"invariants/inputs-unchanged"}},
		{"copies/materialises", true, true, []string{"invariants/inputs-unchanged", "invariants/strided-vs-contiguous"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{name: t.Name()}
			target := properties.Target{Backend: reference.New(scatter.Torch2), Profile: scatter.Torch2,
				Copies: tc.copies, Materialises: tc.materialises}
			rep := properties.CheckTB(rec, target, properties.Budget{Tier: properties.TierShort, Checks: 2,
				Match: "^invariants/(inputs-unchanged|strided-vs-contiguous)$|^differential/scatter_add$"})
			if rep.Failed() || rec.failed {
				t.Fatalf("the reference failed:\n%s", strings.Join(rec.errors, "\n"))
			}
			for _, p := range rep.Properties {
				want := slices.Contains(tc.skipped, p.Name)
				if got := p.Skipped != ""; got != want {
					t.Errorf("%s: skipped %v (%q), want %v", p.Name, got, p.Skipped, want)
				}
				if want && !strings.Contains(p.Skipped, "cannot be seen") && !strings.Contains(p.Skipped, "the same call") {
					t.Errorf("%s: the reason %q does not say what the copies hide", p.Name, p.Skipped)
				}
			}
			if len(rep.Properties) != 3 {
				t.Errorf("%d properties reported, want 3", len(rep.Properties))
			}
		})
	}
}
