package reference

import "github.com/scatterconf/scatter"

// A plan is the normalised description of one valid call, shared by the
// reference's fold (fold.go) and the judge (judge.go). Every operation of the
// suite comes down to it:
//
//	out := copy(init)
//	for each group g (in increasing g.out):
//	    acc := init[g.out] if self, else identity(kind)
//	    for s in g.srcs (canonical order: increasing position along dim):
//	        acc = combine(kind, acc, src[s])
//	    out[g.out] = post(kind, acc, count(g))
//
// Positions are row-major linear offsets into the contiguous init (the
// output's shape) and src tensors.
type plan struct {
	dtype  scatter.DType
	shape  []int          // the output's shape
	init   scatter.Tensor // contiguous; the output before any contribution
	src    scatter.Tensor // contiguous; the values contributions point into
	kind   kind
	self   bool     // init[g.out] is the first operand of the reduction
	groups groupSet // the output elements that receive at least one contribution

	// perStep: float16/bfloat16 sums and products round to the dtype after
	// every step (PyTorch 1.13, and index_reduce in every version); false:
	// they accumulate in float32 and round once (PyTorch ≥ 2.1's opmath
	// buffer). Other dtypes ignore it.
	perStep bool

	// shiftedRows: the groups are laid by torch 2.14's expanded-index
	// path, by the index's rows in an out wider than src (sumGroups)
	shiftedRows bool

	mean *meanRule // kMean only
	arg  *argRule  // kTSMin and kTSMax only

	// anything: the call's outcome is undefined (torch_scatter 1.x with an
	// empty 1-d index, whose uninitialised replacement is read); the judge
	// accepts every outcome.
	anything bool
}

// kind is how a plan's contributions combine.
type kind uint8

const (
	kAssign kind = iota // plain scatter and gathers: the last contribution wins
	kSum                // +; bool: or
	kProd               // *; bool: and
	kMean               // kSum, then divided by a count (meanRule)
	kAmax               // isnan(v) ? v : max(acc, v), ties keep acc
	kAmin               // isnan(v) ? v : min(acc, v), ties keep acc
	kTSMax              // torch_scatter max: v > acc replaces acc (NaN never wins), arg
	kTSMin              // torch_scatter min: v < acc replaces acc, arg
)

func (k kind) String() string {
	return [...]string{"assign", "sum", "prod", "mean", "amax", "amin", "ts_max", "ts_min"}[k]
}

// meanRule says how the count of a mean is formed:
//
//	count = (countSelf ? 1 : 0) + len(g.srcs), or counts[g.out] where
//	        counts is set, kept in the output's dtype
//	        (accumulated one at a time with the plan's rounding: it
//	        saturates for 16-bit floats under perStep, and wraps for integers)
//	count < 1 (torch_scatter) or count == 0 (torch) becomes 1
//	out = acc / count (floats), floor(acc / count) (integers)
type meanRule struct {
	countSelf  bool // scatter_reduce/index_reduce with include_self; false for torch_scatter
	clampBelow bool // torch_scatter: count < 1 becomes 1; torch: only count == 0 does
	// perStep: a 16-bit float count grows by one rounded addition at a time
	// (it saturates: float16 at 2048, bfloat16 at 256), as in PyTorch 1.13;
	// false: the exact count is converted once (PyTorch 2's float32 opmath
	// buffer and int64 counts).
	perStep bool
	// counts: the count of every output position, in place of the group's
	// contributions (torch_scatter's mean when the count it takes from the
	// index as given differs from them; the plan then also holds an empty
	// group for every position of a given out whose count is not 1).
	counts []int64
}

// argRule describes torch_scatter's min/max argument output (int64, the
// output's shape): the position along dim of the winning src element, or
// sentinel (src.size(dim)) where none won.
type argRule struct {
	// the coordinate along dim of src position s: s / inner % size
	inner, size int
	sentinel    int64
	// masked: out was not given. Then init is zeros (what an element that
	// receives nothing ends as), plan.self is false, each group starts from
	// the dtype's finite lowest (max) or highest (min) value, and a group
	// whose result still equals that start becomes 0 with the sentinel arg.
	masked bool
}

// dimPos returns the coordinate along dim of src position s.
func (r *argRule) dimPos(s int32) int64 { return int64(int(s) / r.inner % r.size) }

// errs collects the rules a call breaks, in PyTorch's order of checking:
// the first is the error PyTorch raises (and the reference returns, and the
// strict level demands); any of them is accepted at the conformant level.
type errs []*scatter.Error

// add records a broken rule.
func (e *errs) add(c scatter.Code, format string, args ...any) {
	*e = append(*e, scatter.Errorf(c, format, args...))
}

// codes returns the distinct codes in order.
func (e errs) codes() []scatter.Code {
	var cs []scatter.Code
	for _, x := range e {
		if !containsCode(cs, x.Code) {
			cs = append(cs, x.Code)
		}
	}
	return cs
}

func containsCode(cs []scatter.Code, c scatter.Code) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}
