// Package callgen draws random calls of the nine operations: the one
// generator behind the properties, the gate's random part and the live
// differential test, usable in any rapid property.
//
// A call is valid by construction (index values in range for the size
// they address, shapes that keep every rule) or, in a share of the calls
// set by Options.FaultPercent, broken on purpose toward one error path: a
// negative or too large index value, a dim out of range, a wrong index
// dtype, a dtype mismatch, a broken shape rule, a bad reduce name, an
// overflowing scalar. A quarter of the broken calls are broken twice, so
// that some break two rules and the strict level judges which one PyTorch
// (or the F# library) reports. What a call must give is the judge's
// business (reference.Expect), not the generator's. Tensors come in
// every layout (offsets, guard elements, transposed and gapped strides,
// stride-0 expanded dimensions) unless Options ask for plain ones, with
// duplicate index values at a drawn density, special float values and raw
// 16-bit patterns drawn on purpose, and a share of calls whose values are
// signed zeros, mostly -0.0 (whole groups of -0.0, self included: the sign
// of their sum, mean or extreme depends on where the fold starts).
//
// Draws come from a Source: rapid's stream (Rapid), which shrinks a
// failing call toward the simplest one (rank 1, small sizes, small
// values, no fault), or a seeded math/rand generator (Rand).
//
//	rapid.Check(t, func(t *rapid.T) {
//		call := callgen.Call(scatter.OpScatterReduce, callgen.Options{Profile: scatter.Torch2}).Draw(t, "call")
//		...
//	})
//
// The combination generator (ComboCall) draws one call of a given
// operation × dtype × reduction × include_self, plain and small, the
// recorded fixtures' random cases among them.
package callgen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
)

// Options are the knobs of the generator. The zero value draws every
// operation and dtype for the torch-2 profile, tensors of up to
// DefaultMaxElements elements in every layout, and no faults.
type Options struct {
	// Profile is the truth the calls are drawn for (which index dtypes
	// are valid).
	Profile scatter.Profile
	// Claims limits the operations and dtypes drawn (a backend's Info;
	// zero: all); dtype-mismatch faults use only claimed dtypes too.
	Claims scatter.Info
	// DTypes, when not nil, is the dtypes of the calls' data (the
	// claimed ones among them); Claims still gives the other dtype of a
	// dtype mismatch.
	DTypes []scatter.DType
	// MaxElements bounds the elements of every tensor of a call (backing
	// slices not counted); 0 is DefaultMaxElements. A call that would
	// pass it is drawn again (Drawer.Call); from 16 elements up every
	// operation has calls enough within it, while under that some draws
	// fail (rapid counts them invalid; DrawCall returns an error).
	MaxElements int
	// Boundaries are sizes drawn on purpose for one dimension in a share
	// of the shapes (block boundaries of a kernel, say).
	Boundaries []int
	// FaultPercent is the share of calls broken toward an error path.
	FaultPercent int
	// Valid draws no fault at all, and no empty index that skips the
	// rules (the calls are meant to succeed).
	Valid bool
	// Layouts says which tensor layouts to draw (AnyLayout: plain about
	// half the time).
	Layouts LayoutMode
	// Duplicates fixes the density of duplicate index values (DupDrawn:
	// drawn per index tensor).
	Duplicates Dup
	// Want narrows the shapes to what a relation between calls needs.
	Want Want
}

// DefaultMaxElements is the element bound of Options' zero value.
const DefaultMaxElements = 4096

// Want narrows the call builders to the shapes a relation needs.
type Want struct {
	// LongIndex: an index of rank >= 1, not empty, with at least two
	// positions along dim (index_reduce: a vector of two or more).
	LongIndex bool
	// Vector: torch_scatter with a 1-d index along dim.
	Vector bool
	// FullSource: index_reduce with source slices of self's shape.
	FullSource bool
	// Crowded: a scatter, scatter_add, scatter_reduce, index_reduce or
	// torch_scatter 2.x scatter call that folds long groups, where the
	// order and the width of an accumulation show: sums, products and
	// means only (scatter: a src, reduce add or multiply; scatter_reduce:
	// sum, prod or mean; index_reduce: prod or mean; torch_scatter: sum,
	// mean or mul), three or more positions along dim, index values one
	// or two per region (DupSame, DupNarrow), and values whose sums round
	// (RoundingValues: no small integers, no special values).
	Crowded bool
}

func (o Options) withDefaults() Options {
	if o.MaxElements <= 0 {
		o.MaxElements = DefaultMaxElements
	}
	return o
}

// Call returns a rapid generator of calls of op.
func Call(op scatter.Op, o Options) *rapid.Generator[scatter.Call] {
	return rapid.Custom(func(t *rapid.T) scatter.Call { return New(Rapid(t), o).Call(op) })
}

// AnyCall returns a rapid generator of calls of any claimed operation.
func AnyCall(o Options) *rapid.Generator[scatter.Call] {
	return rapid.Custom(func(t *rapid.T) scatter.Call {
		g := New(Rapid(t), o)
		ops := g.ops()
		if len(ops) == 0 {
			t.Skipf("no claimed operation")
		}
		return g.Call(OneOf(g, ops...))
	})
}

// ErrNothingToDraw is DrawCall's error when the options leave no dtype to
// draw for the operation.
var ErrNothingToDraw = errors.New("callgen: no claimed dtype for the operation")

// DrawCall draws one call of op from r (a seeded run: no shrinking). It
// fails when the options leave nothing to draw: no dtype, or no call
// within MaxElements (a bound of a few elements).
func DrawCall(r *rand.Rand, op scatter.Op, o Options) (c scatter.Call, err error) {
	defer func() {
		switch x := recover().(type) {
		case nil:
		case skipped:
			c, err = nil, errors.New(string(x))
		default:
			panic(x)
		}
	}()
	g := New(Rand(r), o)
	if !slices.Contains(scatter.Ops, op) {
		return nil, fmt.Errorf("callgen: unknown operation %q", op)
	}
	if len(g.claimed(op, g.keepDTypes)) == 0 {
		return nil, fmt.Errorf("%w %s", ErrNothingToDraw, op)
	}
	return g.Call(op), nil
}

// ops returns the operations with a dtype to draw.
func (g *Drawer) ops() []scatter.Op {
	var ops []scatter.Op
	for _, op := range scatter.Ops {
		if len(g.claimed(op, g.keepDTypes)) > 0 {
			ops = append(ops, op)
		}
	}
	return ops
}

// keepDTypes keeps the dtypes of Options.DTypes (all when nil).
func (g *Drawer) keepDTypes(dt scatter.DType) bool {
	return g.o.DTypes == nil || slices.Contains(g.o.DTypes, dt)
}
