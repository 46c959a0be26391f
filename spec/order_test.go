package spec

import (
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// pairwise answers every call like the reference, except that it returns
// a fixed float16 result for scatter_add: what summing SEMANTICS.md §12
// #45's contributions pairwise gives (2048 + (1+1+...+1) = 2058) instead of
// PyTorch's left-to-right 2048.
type pairwise struct{ scatter.Backend }

func (p pairwise) Info() scatter.Info {
	i := p.Backend.Info()
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
	b := pairwise{reference.New(scatter.Torch113)}
	if err := CheckCase(Target{Backend: b, Profile: scatter.Torch113}, *c); err != nil {
		t.Errorf("conformant level rejects a correct pairwise sum:\n%v", err)
	}
	if err := CheckCase(Target{Backend: b, Profile: scatter.Torch113, Level: scatter.Strict}, *c); err == nil {
		t.Error("strict level accepts 2058 where PyTorch's order gives 2048")
	}
}
