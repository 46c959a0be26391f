// Package check holds what every harness of the suite shares when it runs
// a backend: the Target (a backend, the truth it is judged against and the
// level), why a call does not apply to it, and the guarded run, which
// catches a panic and checks that the backend left every tensor it was
// given unchanged, bit for bit. The tables (spec), the properties and the
// scattercheck command all run backends through it.
package check

import (
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/scatterconf/scatter"
)

// Target is a backend to check and the truth it is judged against.
type Target struct {
	Backend scatter.Backend
	// Profile is the PyTorch version whose behaviour is the truth.
	Profile scatter.Profile
	// Level is the least level the backend is judged at. A backend whose
	// Info claims Deterministic promises bit-exactness with the canonical
	// order and is always judged Strict, whatever Level says; one that does
	// not is judged at Level (the zero value, Conformant, unless set to
	// Strict). To judge a deterministic backend at the conformant level,
	// hand in a wrapper whose Info does not claim Deterministic: the claim
	// belongs to the backend, not to the harness.
	Level scatter.Level
	// Copies: the backend receives copies of each call's tensors (it is a
	// process behind the line protocol), so what it does to the storage it
	// is given (writes into an input, or into storage two inputs share)
	// cannot be seen here; the checks that look for it say so and skip.
	Copies bool
	// Materialises: a strided view reaches the backend as a contiguous
	// copy (an implementation behind the protocol: operation requests are
	// contiguous, with or without the strides extension), so a
	// view and its contiguous copy are the same call to it; the checks that
	// compare them say so and skip.
	Materialises bool
	// Views, if not nil, reports whether a call reaches the backend with
	// its views as views (protocol.Client.SendsViews: an implementation
	// that claims the strides extension, run with ClientOptions.CallViews);
	// a failure's protocol request line then carries them, so that
	// replaying it reproduces the failure. Nil: the line is contiguous.
	Views func(scatter.Call) bool
	// AllowUnsupported: the backend may decline (scatter.ErrNotSupported)
	// a call of an operation and dtypes it claims, such as a reduction,
	// an index dtype or a layout it does not cover, which Info cannot
	// name; the spec then skips a case it declines, with its reason, as
	// the gate's -allow-unsupported does. Without it such a decline
	// fails the case: the backend claims the call. (The properties skip a
	// declined case either way, and skip a property in which no call that
	// should succeed was judged.)
	AllowUnsupported bool
}

// SendsViews reports whether call reaches t's backend with its views as
// views (Views).
func (t Target) SendsViews(call scatter.Call) bool { return t.Views != nil && t.Views(call) }

// JudgeLevel returns the level t's backend is judged at: Strict when the
// backend claims Deterministic or t.Level is Strict, Conformant otherwise.
func (t Target) JudgeLevel() scatter.Level {
	if t.Level == scatter.Strict || t.Backend.Info().Deterministic {
		return scatter.Strict
	}
	return scatter.Conformant
}

// A Subject is what a harness runs on a target: a call, and the profiles
// whose truth it holds (nil: every profile). A spec case is one.
type Subject interface {
	Subject() (scatter.Call, []scatter.Profile)
}

// OtherProfilePrefix begins SkipReason's reason for a case whose truth is
// other profiles' (a recorded fixture of another PyTorch version).
const OtherProfilePrefix = "the case's truth is that of "

// SkipReason says why s does not apply to t, or returns "" when it does:
// the backend is unavailable here, the truth belongs to other profiles, or
// the backend does not claim the operation or one of the dtypes of the
// call's data tensors (self or input, src or source, out).
func (t Target) SkipReason(s Subject) string {
	c, profiles := s.Subject()
	info := t.Backend.Info()
	if info.Unavailable != "" {
		return fmt.Sprintf("backend %s is unavailable: %s", info.Name, info.Unavailable)
	}
	if profiles != nil && !slices.Contains(profiles, t.Profile) {
		return fmt.Sprintf(OtherProfilePrefix+"%v, not of %v", profiles, t.Profile)
	}
	op := c.Op()
	if info.Ops != nil && !slices.Contains(info.Ops, op) {
		return fmt.Sprintf("backend %s does not claim %s", info.Name, op)
	}
	for _, dt := range DataDTypes(c) {
		if !info.Claims(op, dt) {
			return fmt.Sprintf("backend %s does not claim %s on %v", info.Name, op, dt)
		}
	}
	return ""
}

// DataDTypes returns the dtypes of a call's data tensors (not its indices),
// each once.
func DataDTypes(c scatter.Call) []scatter.DType {
	var ts []scatter.Tensor
	switch c := c.(type) {
	case scatter.Scatter:
		ts = []scatter.Tensor{c.Self, c.Src}
	case scatter.ScatterAdd:
		ts = []scatter.Tensor{c.Self, c.Src}
	case scatter.ScatterReduce:
		ts = []scatter.Tensor{c.Self, c.Src}
	case scatter.IndexReduce:
		ts = []scatter.Tensor{c.Self, c.Source}
	case scatter.Gather:
		ts = []scatter.Tensor{c.Input}
	case scatter.TorchScatterAdd:
		ts = []scatter.Tensor{c.Src, c.Out}
	case scatter.TorchScatter:
		ts = []scatter.Tensor{c.Src, c.Out}
	case scatter.TensorScatter:
		ts = []scatter.Tensor{c.Src}
	case scatter.TensorGather:
		ts = []scatter.Tensor{c.Src}
	}
	var dts []scatter.DType
	for _, t := range ts {
		if !t.IsZero() && !slices.Contains(dts, t.DType()) {
			dts = append(dts, t.DType())
		}
	}
	return dts
}

// Outcome is what one guarded run of a backend gave.
type Outcome struct {
	Res scatter.Result
	Err error
	// Panicked is the panic and its stack, when the backend panicked.
	Panicked string
	// Modified is a *ModifiedError when the backend changed the tensors
	// or arguments it was given.
	Modified error
}

// Unsupported reports whether the backend declined the call.
func (o Outcome) Unsupported() bool { return scatter.CodeOf(o.Err) == scatter.ErrNotSupported }

// Run runs c on b, turning a panic into Outcome.Panicked (with its stack),
// and checks afterwards that c is unchanged bit for bit (Unchanged against
// a deep copy taken first). c itself is what b sees: tensors sharing a
// backing slice stay shared.
func Run(b scatter.Backend, c scatter.Call) (o Outcome) {
	before := scatter.CloneCall(c)
	func() {
		defer func() {
			if r := recover(); r != nil {
				o.Panicked = fmt.Sprintf("%v\n%s", r, debug.Stack())
			}
		}()
		o.Res, o.Err = b.Run(c)
	}()
	o.Modified = Unchanged(before, c)
	return o
}
