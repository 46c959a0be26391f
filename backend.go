package scatter

import "slices"

// Backend is an implementation of the scatter family. Run performs one call
// out of place: it must not modify the call's tensors, and it returns either
// a Result or an error whose code (CodeOf) says which rule the call broke;
// ErrNotSupported says the backend does not offer the call.
//
// The suites (spec.DescribeBackend, properties.Check) take any Backend; a
// backend never lists the suites.
type Backend interface {
	Info() Info
	Run(Call) (Result, error)
}

// Result is what an operation returns: Out, and for torch_scatter.scatter
// with min or max also Arg (the zero Tensor otherwise).
type Result struct {
	Out Tensor
	Arg Tensor
}

// Info describes a backend and what it claims. What it does not claim is
// skipped by the suites with the reason; what it claims must conform.
type Info struct {
	Name    string
	Version string
	Ops     []Op    // nil: every operation
	DTypes  []DType // nil: every dtype
	// Deterministic claims bit-exactness with the canonical order: the
	// backend is judged at the strict level.
	Deterministic bool
	// Unavailable, when not empty, says why the backend cannot run here
	// (no GPU, say); the suites skip it with this reason.
	Unavailable string
}

// Claims reports whether the backend claims op on dtype dt.
func (i Info) Claims(op Op, dt DType) bool {
	return (i.Ops == nil || slices.Contains(i.Ops, op)) && (i.DTypes == nil || slices.Contains(i.DTypes, dt))
}
