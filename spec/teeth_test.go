package spec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/spec"
)

// specTeeth names mutants of the zoo that the spec's cases of one label
// must each kill at the conformant level (the mutant presented as a
// backend that does not claim determinism), under every profile whose
// rules the mutant departs from: cases written for a bug that only a
// chosen call shows, which the random parts of the gate meet by chance
// alone.
var specTeeth = []struct{ mutant, label string }{
	// a float64 accumulation of float32 agrees with some order of float32
	// additions for most groups; the "accumulation" cases are groups
	// where it agrees with none (spec/accumulation.go)
	{"float32-accumulates-in-float64", "accumulation"},
	// a call's path past 2^16 contributions is met by no other part of
	// the spec; losing its last contribution changes output 0 of every
	// "large" case, and the last element of a large gather
	// (spec/sizes_large.go)
	{"large-tail-dropped", "large"},
	// a mean's count kept in 16 bits wraps only past 2^16 operands: the
	// float means onto one target of 65,537 (spec/sizes_large.go)
	{"mean-count-wraps", "count-past-2^16"},
	// torch 2.14's expanded-index path lays index rows by their own
	// length in an out wider than src; the random calls reach that path
	// with such an out rarely (spec/edge_cases.go, torch-2 only)
	{"expanded-path-rows-in-place", "expanded-path"},
}

// mutantFor returns the zoo's mutant of that name whose bug departs from
// profile p's rules (properties.MutantsFor), and whether there is one.
func mutantFor(p scatter.Profile, name string) (properties.Mutant, bool) {
	ms := properties.MutantsFor(p)
	i := slices.IndexFunc(ms, func(m properties.Mutant) bool { return m.Name == name })
	if i < 0 {
		return properties.Mutant{}, false
	}
	return ms[i], true
}

// TestSpecKillsMutants runs the cases of each specTeeth label on its
// mutant: every case that the profile does not skip must fail, by the
// judge's verdict at the conformant level.
func TestSpecKillsMutants(t *testing.T) {
	cases := spec.Cases()
	for _, e := range specTeeth {
		for _, p := range scatter.Profiles {
			m, ok := mutantFor(p, e.mutant)
			if !ok {
				continue
			}
			t.Run(e.mutant+"/"+p.String(), func(t *testing.T) {
				tgt := spec.Target{Backend: m.Conformant(), Profile: p}
				if lvl := tgt.JudgeLevel(); lvl != scatter.Conformant {
					t.Fatalf("judged at the %v level", lvl)
				}
				ran := 0
				for _, c := range cases {
					if !slices.Contains(c.Labels, e.label) || tgt.SkipReason(c) != "" {
						continue
					}
					ran++
					err := spec.CheckCase(tgt, c)
					if err == nil {
						t.Errorf("case %s passes mutant %s at the conformant level", c.Name, e.mutant)
					} else if !strings.Contains(err.Error(), "the judge rejects the backend's outcome at the conformant level") {
						t.Errorf("case %s fails mutant %s, but not by the judge's verdict:\n%v", c.Name, e.mutant, err)
					}
				}
				if ran == 0 {
					t.Fatalf("no case labelled %s under %v", e.label, p)
				}
				t.Logf("%d cases labelled %s kill %s under %v", ran, e.label, e.mutant, p)
			})
		}
	}
}

// TestPrecedenceKillsLastRuleReported: every precedence case kills the
// mutant last-rule-reported at the strict level (the mutant claims
// determinism, as the reference does), under every profile; the
// conformant level accepts any broken rule, so there it passes them all.
func TestPrecedenceKillsLastRuleReported(t *testing.T) {
	cases := spec.Cases()
	for _, p := range scatter.Profiles {
		m, ok := mutantFor(p, "last-rule-reported")
		if !ok {
			t.Fatalf("no mutant last-rule-reported under %v", p)
		}
		t.Run(p.String(), func(t *testing.T) {
			strict, conformant := spec.Target{Backend: m.Backend, Profile: p}, spec.Target{Backend: m.Conformant(), Profile: p}
			if lvl := strict.JudgeLevel(); lvl != scatter.Strict {
				t.Fatalf("judged at the %v level", lvl)
			}
			ran := 0
			for _, c := range cases {
				if !slices.Contains(c.Labels, "precedence") || strict.SkipReason(c) != "" {
					continue
				}
				ran++
				if spec.CheckCase(strict, c) == nil {
					t.Errorf("case %s passes mutant last-rule-reported at the strict level", c.Name)
				}
				if err := spec.CheckCase(conformant, c); err != nil {
					t.Errorf("case %s fails mutant last-rule-reported at the conformant level:\n%v", c.Name, err)
				}
			}
			if ran == 0 {
				t.Fatal("no precedence case")
			}
			t.Logf("%d precedence cases kill last-rule-reported at the strict level", ran)
		})
	}
}
