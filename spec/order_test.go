package spec

import (
	"slices"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// pairwise answers every call like the reference, except that it returns
// a fixed float16 result for scatter_add: what summing SEMANTICS.md §12
// #45's contributions pairwise gives (2048 + (1+1+...+1) = 2058) instead of
// PyTorch's left-to-right 2048.
type pairwise struct{ anyOrder }

// anyOrder is a backend whose Info does not claim Deterministic, so that
// it is judged at the conformant level unless a target asks for strict.
type anyOrder struct{ scatter.Backend }

func (a anyOrder) Info() scatter.Info {
	i := a.Backend.Info()
	i.Deterministic = false
	return i
}

func (p pairwise) Run(c scatter.Call) (scatter.Result, error) {
	if _, ok := c.(scatter.ScatterAdd); ok {
		return scatter.Result{Out: f16(2058)}, nil
	}
	return p.Backend.Run(c)
}

// TestCheckCaseConformantAcceptsAnotherOrder: at the conformant level a
// correct sum in another order passes a case whose recorded outcome is
// PyTorch's left-to-right sum; at the strict level it fails.
func TestCheckCaseConformantAcceptsAnotherOrder(t *testing.T) {
	var c *Case
	for _, x := range edgeCases() {
		if strings.Contains(x.Source, "#45") && x.Profiles != nil && x.Profiles[0] == scatter.Torch113 {
			c = &x
			break
		}
	}
	if c == nil {
		t.Fatal("no torch-1.13 case for SEMANTICS.md §12 #45")
	}
	b := pairwise{anyOrder{reference.New(scatter.Torch113)}}
	if err := CheckCase(Target{Backend: b, Profile: scatter.Torch113}, *c); err != nil {
		t.Errorf("conformant level rejects a correct pairwise sum:\n%v", err)
	}
	if err := CheckCase(Target{Backend: b, Profile: scatter.Torch113, Level: scatter.Strict}, *c); err == nil {
		t.Error("strict level accepts 2058 where PyTorch's order gives 2048")
	}
}

// reversed answers like the reference on the call with every source row
// reversed: for orderCases, whose index is all zeros, the contributions
// folded in the reverse order.
type reversed struct{ anyOrder }

func (r reversed) Run(c scatter.Call) (scatter.Result, error) {
	c = scatter.CloneCall(c)
	for name, t := range c.Tensors() {
		if name == "src" || name == "source" {
			flipRows(t) // the clone's own storage, which the call holds
		}
	}
	return r.Backend.Run(c)
}

// flipRows reverses, in place, each row (the last dimension) of a
// contiguous float32 or float64 tensor.
func flipRows(t scatter.Tensor) {
	n := t.Shape[len(t.Shape)-1]
	switch v := t.Data.(type) {
	case []float32:
		reverseRows(v, n)
	case []float64:
		reverseRows(v, n)
	}
}

func reverseRows[T any](v []T, n int) {
	for i := 0; i < len(v); i += n {
		slices.Reverse(v[i : i+n])
	}
}

// TestOrderCases: every case of orderCases passes a backend that folds
// in the reverse order at the conformant level (a correct sum) and fails
// it at the strict level (not PyTorch's order); the reference passes both.
func TestOrderCases(t *testing.T) {
	cs := orderCases()
	if len(cs) != 18 {
		t.Fatalf("%d order cases, want 18", len(cs))
	}
	ref := reference.New(scatter.Torch2)
	for _, c := range cs {
		t.Run(c.Name, func(t *testing.T) {
			if err := CheckCase(Target{Backend: ref, Profile: scatter.Torch2}, c); err != nil {
				t.Errorf("the reference fails:\n%v", err)
			}
			b := reversed{anyOrder{ref}}
			if err := CheckCase(Target{Backend: b, Profile: scatter.Torch2}, c); err != nil {
				t.Errorf("conformant level rejects a correct sum in the reverse order:\n%v", err)
			}
			if err := CheckCase(Target{Backend: b, Profile: scatter.Torch2, Level: scatter.Strict}, c); err == nil {
				t.Error("strict level accepts the reverse order")
			}
		})
	}
}

// TestCasesOf: a target is given its profile's cases and those of every
// profile, not another version's.
func TestCasesOf(t *testing.T) {
	all := Cases()
	for _, p := range scatter.Profiles {
		n := 0
		for _, c := range all {
			if c.Profiles == nil || slices.Contains(c.Profiles, p) {
				n++
			}
		}
		cs := casesOf(p)
		if len(cs) != n || n == len(all) {
			t.Errorf("%v: %d cases, want %d of %d", p, len(cs), n, len(all))
		}
		for _, c := range cs {
			if c.Profiles != nil && !slices.Contains(c.Profiles, p) {
				t.Errorf("%v: %s is %v's", p, c.Name, c.Profiles)
			}
		}
	}
}
