package reference

import (
	"slices"

	"github.com/scatterconf/scatter"
)

// Folds is the arithmetic of a call whose result is made of float sums,
// products, means, maxima or minima, as data: what the reference folds (plan.go), for
// whoever folds it another way (the rounding mutants of package
// properties, say). For every output element that receives a
// contribution (and, in a torch_scatter mean with MeanCounts, every
// element of a given out whose count is not 1):
//
//	acc = Self ? Init[g.Out] : the identity (0 or 1; amax and amin: the
//	      first contribution, which then starts the fold)
//	for s in g.Srcs (canonical order): acc = acc op Src[s]
//	out[g.Out] = acc rounded to DType                 (sums, products)
//	out[g.Out] = fl(fl(acc) / count),                  (means)
//	    count = Count(g), in the dtype as meanRule forms it
//	out[g.Out] = acc, op: isnan(v) ? v : max(acc, v), a tie keeps acc
//	    (amax; amin with min)
//
// with acc rounded to DType after every step when PerStep (PyTorch 1.13's
// 16-bit sums, index_reduce's in every version), else kept in float32 for
// float16 and bfloat16 and rounded once (PyTorch 2's opmath buffer).
// Elements outside the groups keep Init's value.
type Folds struct {
	DType          scatter.DType  // a float dtype: the output's and the contributions'
	Reduce         scatter.Reduce // scatter.ReduceSum, ReduceProd, ReduceMean, ReduceAmax or ReduceAmin
	Self           bool           // Init[g.Out] is the first operand of every group
	PerStep        bool           // 16-bit steps round to the dtype
	MeanCountsSelf bool           // a mean counts Init's operand too (scatter_reduce and index_reduce with include_self)
	MeanCounts     []int64        // a mean's count per output position, where it is not the group's (torch_scatter: counted over the index as given); else nil
	Init, Src      scatter.Tensor // contiguous: the output before any contribution, the contributions' values
	Groups         []FoldGroup    // the output elements that receive a contribution, in the reference's order
}

// Count returns the number that divides group g's sum in a mean, before
// PyTorch converts it to the dtype: MeanCounts[g.Out] where set, else
// len(g.Srcs) plus one when MeanCountsSelf.
func (f Folds) Count(g FoldGroup) int64 {
	if f.MeanCounts != nil {
		return f.MeanCounts[g.Out]
	}
	n := int64(len(g.Srcs))
	if f.MeanCountsSelf {
		n++
	}
	return n
}

// FoldGroup is one output element (its row-major position in the
// contiguous result and in Init) and the positions in Src of its
// contributions, in canonical order (increasing position along dim).
type FoldGroup struct {
	Out  int
	Srcs []int
}

// Folds returns the call's sums, products, means, maxima or minima as
// data, and false for a call that fails, whose outcome is undefined, or
// whose result is not one of those over float contributions of its own
// dtype (plain scatter, gather, torch_scatter max and min with their
// arg, integers, bool).
// The tensors and slices are copies: nothing the caller changes reaches
// the Expectation.
func (e *Expectation) Folds() (Folds, bool) {
	p := e.plan
	if p == nil || p.anything || !p.dtype.IsFloat() || p.src.DType() != p.dtype {
		return Folds{}, false
	}
	f := Folds{DType: p.dtype, Self: p.self, PerStep: p.perStep,
		Init: scatter.CloneTensor(p.init), Src: scatter.CloneTensor(p.src)}
	switch p.kind {
	case kSum:
		f.Reduce = scatter.ReduceSum
	case kProd:
		f.Reduce = scatter.ReduceProd
	case kMean:
		f.Reduce, f.MeanCountsSelf = scatter.ReduceMean, p.mean != nil && p.mean.countSelf
		if p.mean != nil && p.mean.counts != nil {
			f.MeanCounts = slices.Clone(p.mean.counts)
		}
	case kAmax:
		f.Reduce = scatter.ReduceAmax
	case kAmin:
		f.Reduce = scatter.ReduceAmin
	default:
		return Folds{}, false
	}
	f.Groups = make([]FoldGroup, p.groups.len())
	for i, g := range p.groups.all() {
		srcs := make([]int, len(g.srcs))
		for j, s := range g.srcs {
			srcs[j] = int(s)
		}
		f.Groups[i] = FoldGroup{Out: g.out, Srcs: srcs}
	}
	return f, true
}
