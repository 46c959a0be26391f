package spec

import "github.com/scatterconf/scatter"

// Case is one table entry of the spec: a call and what PyTorch gives for it.
type Case struct {
	// Name carries the case's parameters, e.g.
	// "scatter_reduce/amax/float32/include_self=false/docs".
	Name string
	// Labels select the case with -ginkgo.label-filter: the operation
	// ("scatter_reduce"), the dtype ("float32"), the rule or feature
	// ("include_self", "duplicates", "shape-rule", "docs", "edge-case", ...).
	Labels []string
	// Source says where the expected outcome comes from, e.g.
	// "SEMANTICS.md §12 #48" or "torch.Tensor.scatter_reduce_ docs".
	Source string

	Call scatter.Call
	// Want is the expected Out when the call succeeds; WantArg the expected
	// Arg (torch_scatter min/max). WantErr is the expected error code when
	// the call fails (0 when it succeeds).
	Want    scatter.Tensor
	WantArg scatter.Tensor
	WantErr scatter.Code

	// Profiles lists the profiles whose truth this is; nil means all.
	Profiles []scatter.Profile
	// OneOf marks a Want that is one of several conforming outcomes (plain
	// scatter with duplicate targets: CPU's last writer). A backend is then
	// held to the judge alone; the reference must still equal Want.
	OneOf bool
	// SignedZeros marks a Want whose zero signs are part of the truth (the
	// ±0 rows of SEMANTICS.md §12); otherwise -0 equals +0.
	SignedZeros bool
}

// Subject is the case as check.Target.SkipReason sees it: its call and
// the profiles whose truth it records.
func (c Case) Subject() (scatter.Call, []scatter.Profile) { return c.Call, c.Profiles }
