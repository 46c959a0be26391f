package properties

import (
	"math"
	"slices"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// The mutants of bugs found in the wild: each reproduces the class of a
// reported bug of a scatter implementation, whose address its comment
// gives.

// expandedIndexMisread runs the mutant expanded-index-misread: a fast
// path for an index expanded from a vector along dim (PyTorch's CPU
// scatter_add and scatter_reduce sum/mean for floating types along dim 0;
// any dim in later fast paths) whose test of eligibility looks only at
// the index's stride along dim (1), so that a transposed, strided or plain
// contiguous index is read as if every other dimension had stride 0:
// each position takes the target of the first one of its fiber along dim.
// pytorch/pytorch#99595 (the eligibility check), #129093 and #151978
// (wrong values for expanded or strided index layouts on a fast path).
func expandedIndexMisread(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	misread := func(self, index scatter.Tensor, dim int) (scatter.Tensor, bool) {
		d, ok := scatter.WrapDim(dim, self.Dim())
		if !ok || !self.DType().IsFloat() || index.Validate() != nil || index.Dim() < 2 || d >= index.Dim() {
			return index, false
		}
		st := index.StridesOrDefault()
		if st[d] != 1 {
			return index, false
		}
		expanded := make([]int, len(st))
		expanded[d] = 1
		if slices.Equal(st, expanded) {
			return index, false // truly expanded: the fast path is right
		}
		return scatter.Tensor{Shape: index.Shape, Strides: expanded, Offset: index.Offset, Data: index.Data}, true
	}
	switch x := c.(type) {
	case scatter.ScatterAdd:
		if idx, ok := misread(x.Self, x.Index, x.Dim); ok {
			if _, err := b.Run(c); err != nil {
				return scatter.Result{}, err
			}
			x.Index = idx
			return b.Run(x)
		}
	case scatter.ScatterReduce:
		if x.Reduce != scatter.ReduceSum && x.Reduce != scatter.ReduceMean {
			break
		}
		if idx, ok := misread(x.Self, x.Index, x.Dim); ok {
			if _, err := b.Run(c); err != nil {
				return scatter.Result{}, err
			}
			x.Index = idx
			return b.Run(x)
		}
	}
	return b.Run(c)
}

// boolSumAsAnd runs the mutant bool-sum-as-and: a bool sum (scatter_add,
// scatter_reduce sum, scatter with reduce add) computed as a logical and
// instead of or: the CUDA behaviour that PyTorch's own
// test/test_scatter_gather_ops.py notes ("a + b on CPU and buggy a && b
// on CUDA").
func boolSumAsAnd(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	switch x := c.(type) {
	case scatter.ScatterAdd:
		if x.Self.DType() == scatter.DTBool {
			return b.Run(scatter.Scatter{Self: x.Self, Dim: x.Dim, Index: x.Index, Src: x.Src, Reduce: scatter.ReduceMultiply})
		}
	case scatter.Scatter:
		if x.Self.DType() == scatter.DTBool && x.Reduce == scatter.ReduceAdd {
			x.Reduce = scatter.ReduceMultiply
			return b.Run(x)
		}
	case scatter.ScatterReduce:
		if x.Self.DType() == scatter.DTBool && x.Reduce == scatter.ReduceSum {
			x.Reduce = scatter.ReduceProd
			return b.Run(x)
		}
	}
	return b.Run(c)
}

// tsMaxOutIgnored runs the mutant ts-max-out-ignored: torch_scatter's
// max and min with an out tensor give the extreme of the contributions
// alone where there are any, as if out did not take part (it does: out's
// values are the initial ones, so a zero out clamps negative maxima to
// 0, which rusty1s/pytorch_scatter#472 reports as surprising); untouched
// elements keep out's values.
func tsMaxOutIgnored(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	x, ok := c.(scatter.TorchScatter)
	if !ok || x.Out.IsZero() || x.Reduce != scatter.ReduceMax && x.Reduce != scatter.ReduceMin {
		return b.Run(c)
	}
	res, err := b.Run(c)
	if err != nil || x.Out.Validate() != nil || x.Src.Validate() != nil {
		return res, err
	}
	d, ok := scatter.WrapDim(scatter.DimOr(x.Dim, -1), x.Src.Dim())
	if !ok || d >= x.Out.Dim() || res.Arg.IsZero() {
		return res, err
	}
	alone := x
	alone.Out = scatter.Tensor{}
	alone.DimSize = scatter.Ptr(x.Out.Shape[d])
	r1, err1 := b.Run(alone)
	if err1 != nil || !slices.Equal(r1.Out.Shape, res.Out.Shape) || r1.Out.DType() != x.Out.DType() {
		return res, err
	}
	out := scatter.CloneTensor(r1.Out.Contiguous())
	outVals := x.Out.Contiguous()
	args := r1.Arg.Contiguous()
	sentinel := int64(scatter.SizeAt(x.Src.Shape, d))
	for i := 0; i < out.NumEl(); i++ {
		if scatter.IntAt(args.Data, i) == sentinel {
			scatter.CopyElem(out.Data, i, outVals.Data, i)
		}
	}
	return scatter.Result{Out: out, Arg: args}, nil
}

// tsDefaultFillZero runs the mutant ts-default-fill-zero: torch_scatter's
// max and min without an out tensor start every group from 0 (torch_scatter
// 1.x's default fill_value) instead of the dtype's lowest or highest
// value, so negative maxima (positive minima) are clamped to 0:
// rusty1s/pytorch_scatter#24.
func tsDefaultFillZero(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	x, ok := c.(scatter.TorchScatter)
	if !ok || !x.Out.IsZero() || x.Reduce != scatter.ReduceMax && x.Reduce != scatter.ReduceMin {
		return b.Run(c)
	}
	res, err := b.Run(c)
	if err != nil {
		return res, err
	}
	x.Out = zerosLike(res.Out)
	x.DimSize = nil
	r1, err1 := b.Run(x)
	if err1 != nil {
		return res, err
	}
	return r1, nil
}

// cas16NeighbourLost runs the mutant cas16-neighbour-lost: 16-bit atomic
// adds (float16, bfloat16, int16) done with a compare-and-swap on the
// enclosing aligned 32-bit word that writes back a stale copy of the
// neighbouring element, so that when both halves of a word are updated the
// even one's updates are lost (it keeps its initial value):
// PaddlePaddle/Paddle PR 79717. It touches scatter_add, scatter with
// reduce add and scatter_reduce sum with include_self, on a contiguous
// result in row-major order.
func cas16NeighbourLost(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	switch x := c.(type) {
	case scatter.ScatterAdd:
	case scatter.Scatter:
		if x.Reduce != scatter.ReduceAdd || x.Src.IsZero() {
			return b.Run(c)
		}
	case scatter.ScatterReduce:
		if x.Reduce != scatter.ReduceSum || x.ExcludeSelf {
			return b.Run(c)
		}
	default:
		return b.Run(c)
	}
	res, err := b.Run(c)
	if err != nil {
		return res, err
	}
	self, dim, index, _ := dimParts(c)
	switch self.DType() {
	case scatter.DTFloat16, scatter.DTBFloat16, scatter.DTInt16:
	default:
		return res, err
	}
	counts := dimScatterCounts(self, dim, index)
	out := scatter.CloneTensor(res.Out.Contiguous())
	init := self.Contiguous()
	for p := 0; p+1 < len(counts); p += 2 {
		if counts[p] > 0 && counts[p+1] > 0 {
			scatter.CopyElem(out.Data, p, init.Data, p)
		}
	}
	return scatter.Result{Out: out}, nil
}

// outOfRangeIgnored runs the mutant out-of-range-ignored: index values
// outside [0, size) are silently skipped (their updates dropped, gather
// reading 0) instead of raising index_out_of_range: tensorflow/tensorflow#58748
// (tf.tensor_scatter_nd_update on CPU), tinygrad's scatter, which masks
// out-of-range targets away, and Paddle's take_along_axis, which gives
// zeros for any index into an input empty along the axis.
func outOfRangeIgnored(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	if scatter.CodeOf(err) != scatter.ErrIndexOutOfRange {
		return res, err
	}
	if g, ok := c.(scatter.Gather); ok {
		n := dimSize(g.Input, g.Dim)
		if n < 0 || !g.Index.DType().IsIndex() || g.Index.Validate() != nil {
			return res, err
		}
		if n == 0 { // nothing to read: every element reads 0
			return scatter.Result{Out: scatter.Tensor{Shape: slices.Clone(g.Index.Shape),
				Data: scatter.MakeData(g.Input.DType(), g.Index.NumEl())}}, nil
		}
		vals := indexInts(g.Index)
		g.Index = mapIndex(g.Index, func(v int64) int64 { return max(0, min(int64(n-1), v)) })
		r1, err1 := b.Run(g)
		if err1 != nil {
			return res, err
		}
		out := scatter.CloneTensor(r1.Out.Contiguous())
		zero := scatter.MakeData(out.DType(), 1)
		for q, v := range vals {
			if v < 0 || v >= int64(n) {
				scatter.CopyElem(out.Data, q, zero, 0)
			}
		}
		return scatter.Result{Out: out}, nil
	}
	r1, ok := dropUpdates(b, c, func(v int64, size int) bool { return v < 0 || v >= int64(size) })
	if !ok {
		return res, err
	}
	return r1, nil
}

// lastRuleReported builds the mutant last-rule-reported under profile p:
// a call that breaks rules of two kinds or more fails with the last kind
// of the reference's list, in the order PyTorch (or the F# library)
// checks them, as a port that checks them in another order does. Any
// broken rule's error conforms at the conformant level; only the strict
// level, which demands the first, sees it.
func lastRuleReported(p scatter.Profile) runFunc {
	return func(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
		res, err := b.Run(c)
		if err == nil {
			return res, err
		}
		codes := reference.Expect(c, p).Codes()
		if len(codes) < 2 {
			return res, err
		}
		return scatter.Result{}, scatter.Errorf(codes[len(codes)-1], "the last broken rule checked first (%v)", err)
	}
}

// outOfRangeMiscoded runs the mutant out-of-range-miscoded: a call that
// PyTorch rejects for an index value out of range fails, but with the
// code of a generic error, invalid_argument, as when a framework leaves
// the check to the array library under it (onnx.reference's
// GatherElements on an input empty along the axis: NumPy's "0-length
// sequence" ValueError). A caller that handles index_out_of_range misses it.
func outOfRangeMiscoded(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	if scatter.CodeOf(err) == scatter.ErrIndexOutOfRange {
		return scatter.Result{}, scatter.Errorf(scatter.ErrInvalidArgument, "ValueError: %v", err)
	}
	return res, err
}

// narrowIndexBound runs the mutant narrow-index-bound: with an int32
// index (narrower than int64), the in-bounds test of every update
// compares the index with the dimension's size converted to the index's
// narrow element type the way XLA's ScatterExpander built it for s8 and
// u8 indices (here: wrapped to 8 bits, two's complement), so valid updates
// along a dimension of 128 or more elements are dropped:
// openxla/xla#48718.
func narrowIndexBound(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	if err != nil {
		return res, err
	}
	if !isDimScatter(c) || dimIndex(c).DType() != scatter.DTInt32 {
		return res, err
	}
	r1, ok := dropUpdates(b, c, func(v int64, size int) bool { return v >= int64(int8(size)) })
	if !ok {
		return res, err
	}
	return r1, nil
}

// dropUpdates runs a dim-scatter call (scatter, scatter_add,
// scatter_reduce) without the updates whose index value v drop(v, size)
// selects (toExtra). ok is false when the call is not a dim-scatter,
// drop selects nothing, or the call still fails.
func dropUpdates(b scatter.Backend, c scatter.Call, drop func(v int64, size int) bool) (scatter.Result, bool) {
	if !isDimScatter(c) {
		return scatter.Result{}, false
	}
	self, dim, index, src := dimParts(c)
	d, ok := scatter.WrapDim(dim, self.Dim())
	if !ok || self.Validate() != nil || index.Validate() != nil || self.Dim() == 0 {
		return scatter.Result{}, false
	}
	size := self.Shape[d]
	return toExtra(b, index, d, size, func(_ int, v int64) bool { return drop(v, size) },
		func(idx scatter.Tensor) scatter.Call { return withDimParts(c, extendAlong(self, d), idx, src) })
}

// toExtra drops updates from a call: it sets the index values that
// drop(q, v) selects (q the row-major position, v the value) to size,
// the extra slice along d that with(idx) adds to the output (extendAlong,
// or torch_scatter's dim_size), runs the call with builds, and cuts its
// result (and arg) back to size along d. ok is false when the index is
// not of an index dtype, drop selects nothing, or the call fails.
func toExtra(b scatter.Backend, index scatter.Tensor, d, size int, drop func(q int, v int64) bool,
	with func(idx scatter.Tensor) scatter.Call) (scatter.Result, bool) {
	if !index.DType().IsIndex() {
		return scatter.Result{}, false
	}
	idx := scatter.CloneTensor(index.Contiguous())
	any := false
	for q := 0; q < idx.NumEl(); q++ {
		if drop(q, scatter.IntAt(idx.Data, q)) {
			scatter.SetInt(idx.Data, q, int64(size))
			any = true
		}
	}
	if !any {
		return scatter.Result{}, false
	}
	r, err := b.Run(with(idx))
	if err != nil {
		return scatter.Result{}, false
	}
	r.Out = narrow(r.Out.Contiguous(), d, 0, size).Contiguous()
	if r.Arg.Data != nil {
		r.Arg = narrow(r.Arg.Contiguous(), d, 0, size).Contiguous()
	}
	return r, true
}

// extendAlong returns a contiguous copy of t with one more slice (zeros)
// at the end of dimension d.
func extendAlong(t scatter.Tensor, d int) scatter.Tensor {
	shape := slices.Clone(t.Shape)
	shape[d]++
	out, _ := scatter.Zeros(t.DType(), shape...)
	c := t.Contiguous()
	for q := 0; q < c.NumEl(); q++ {
		scatter.CopyElem(out.Data, ravel(unravel(q, t.Shape), shape), c.Data, q)
	}
	return out
}

// saturation is the count at which adding 1.0 to a float32 stops
// changing it: 2^24 + 1 rounds to 2^24 (ties to even).
const saturation = 1 << 24

// float32CountSaturates runs the mutant float32-count-saturates: a
// scatter_reduce mean counts its contributions in float32, adding 1.0 at
// a time, so the count stops at 2^24 (jax-ml/jax#18440: a float32
// scatter-add of ones tops out at 2^24, as jnp.bincount's counts do;
// pytorch/pytorch#124783 for scatter_add_), where torch 2 counts exactly
// and rounds the count once. Only groups of more than 2^24 contributions
// show it: the long-tier test TestFloat32CountSaturates.
func float32CountSaturates(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	x, ok := c.(scatter.ScatterReduce)
	if !ok || x.Reduce != scatter.ReduceMean || !x.Self.DType().IsFloat() || x.Self.Validate() != nil || x.Index.Validate() != nil ||
		x.Index.NumEl() < saturation {
		return b.Run(c)
	}
	incl := 1
	if x.ExcludeSelf {
		incl = 0
	}
	if _, ok := scatter.WrapDim(x.Dim, x.Self.Dim()); !ok || !x.Index.DType().IsIndex() ||
		slices.Max(dimScatterCounts(x.Self, x.Dim, x.Index))+incl <= saturation {
		return b.Run(c)
	}
	return meanFromSum(b, x, func(sum float64, n int) float64 { return sum / float64(min(n, saturation)) }, nil, incl)
}

// gatherIndexSizedOffsets runs the mutant gather-index-sized-offsets: a
// gather kernel that computes the input's offset of out[l, i, r] (l the
// dimensions before dim, r those after, flattened) as
//
//	(l·input.size(dim) + index[l, i, r])·R + r,  R = Π index.size(k>dim)
//
// with l and R counted over the index's sizes, which is the input's
// offset only when the index has the input's sizes in every dimension
// other than dim. When it is smaller there (as PyTorch allows), the input
// is read as if it were a contiguous tensor of the index's sizes but
// along dim. candle's gather kernels after huggingface/candle#2567,
// which admitted such indices (the source offset formula is quoted in
// huggingface/candle#3711).
func gatherIndexSizedOffsets(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	x, ok := c.(scatter.Gather)
	if err != nil || !ok || x.Index.NumEl() == 0 {
		return res, err
	}
	d, _ := scatter.WrapDim(x.Dim, x.Input.Dim())
	if x.Input.Dim() == 0 || len(x.Index.Shape) != x.Input.Dim() || slices.Equal(x.Index.Shape, x.Input.Shape) {
		return res, err
	}
	shape := slices.Clone(x.Index.Shape)
	shape[d] = x.Input.Shape[d]
	if slices.Equal(shape, x.Input.Shape) {
		return res, err // only the size along dim differs: the offsets are right
	}
	in := x.Input.Contiguous()
	x.Input = scatter.Tensor{Shape: shape, Data: in.Data}
	return b.Run(x)
}

// gatherSmallerIndexRejected runs the mutant gather-smaller-index-rejected:
// gather requires the index to have the input's size in every dimension
// other than dim, where PyTorch requires only that it be no larger, and
// raises shape_mismatch for a smaller one. ONNX's GatherElements
// reference implementation (onnx.reference: "all dimensions of index and
// self should be the same size"), and candle's gather before
// huggingface/candle#2567. The rule is checked before the index values,
// as PyTorch checks its shape rules: a call that PyTorch rejects for an
// index value out of range gets shape_mismatch too.
func gatherSmallerIndexRejected(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	x, ok := c.(scatter.Gather)
	if err != nil && scatter.CodeOf(err) != scatter.ErrIndexOutOfRange || !ok || x.Index.NumEl() == 0 {
		return res, err
	}
	d, _ := scatter.WrapDim(x.Dim, x.Input.Dim())
	if len(x.Index.Shape) != len(x.Input.Shape) {
		return res, err // 0-d against 1-d: no dimension besides dim
	}
	for k, s := range x.Index.Shape {
		if k != d && s != x.Input.Shape[k] {
			return scatter.Result{}, scatter.Errorf(scatter.ErrShapeMismatch,
				"Except for dimension %d, all dimensions of index %v and input %v should be the same size", d, x.Index.Shape, x.Input.Shape)
		}
	}
	return res, err
}

// gatherIndexModulo runs the mutant gather-index-modulo: gather reads an
// index value v outside [0, size) at v mod size, as NumPy's choose and
// take do with mode="wrap", instead of raising index_out_of_range: ONNX's
// GatherElements reference implementation (onnx.reference, np.choose
// with mode="wrap"), where data [1, 2, 3] and indices [3, 0] give [1, 1].
// An input empty along dim still fails (there is nothing to wrap into).
func gatherIndexModulo(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	x, ok := c.(scatter.Gather)
	if !ok || scatter.CodeOf(err) != scatter.ErrIndexOutOfRange {
		return res, err
	}
	n := int64(dimSize(x.Input, x.Dim))
	if n <= 0 {
		return res, err
	}
	x.Index = mapIndex(x.Index, func(v int64) int64 { return (v%n + n) % n })
	if r, werr := b.Run(x); werr == nil {
		return r, nil
	}
	return res, err
}

// nanLostToLater builds the mutant nan-lost-to-later: scatter_reduce and
// index_reduce amax and amin fold each group in index order (self first
// where it takes part) with acc = acc > v ? acc : v (acc < v ? acc : v for
// amin), std::max(v, acc) with its operands swapped: the comparison with
// a NaN is false, so a NaN wins when it comes and the next value replaces
// it. A group's result is NaN when a NaN comes last, else the extreme of
// the values after its last NaN; a group without NaN keeps the
// reference's value. ONNX Runtime's ScatterElements max (seed 2 of its
// gate: self -8, contributions NaN then -4 give -4; self -4 and a NaN
// alone give NaN), where PyTorch propagates every NaN.
func nanLostToLater(p scatter.Profile) runFunc {
	return refoldWith(p, func(g reference.Folds) bool { return extreme(g.Reduce) }, lostToLater)
}

// lostToLater folds one group as nan-lost-to-later does; ok is false for
// a group without NaN.
func lostToLater(g reference.Folds, grp reference.FoldGroup) (float64, bool) {
	vals := groupValues(g, grp)
	last := -1
	for i, v := range vals {
		if math.IsNaN(v) {
			last = i
		}
	}
	if last < 0 {
		return 0, false
	}
	isMax := g.Reduce == scatter.ReduceAmax
	acc := math.NaN()
	for i, v := range vals[last+1:] {
		if i == 0 || isMax && v >= acc || !isMax && v <= acc { // a tie takes the later value
			acc = v
		}
	}
	return acc, true
}
