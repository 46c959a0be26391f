package optimized

import (
	"github.com/scatterconf/scatter"
)

// The fast paths' validation. Each planner accepts a call only when every
// rule PyTorch (and the reference) checks before the kernel holds; the
// index values are then checked by the first pass over the index, before
// any write to memory the caller can see. Whatever is not accepted goes to
// the reference, which reports the broken rule in PyTorch's order, or
// computes the exotic call.

// maxOutputElems is the reference's limit on the outputs it allocates
// itself (torch_scatter's inferred sizes; reference/broadcast.go).
const maxOutputElems = 1 << 24

// okTensor reports whether t is a valid view within the reference's limits.
func okTensor(t scatter.Tensor) bool {
	return t.Validate() == nil && t.NumEl() <= scatter.MaxElements
}

func nd(t scatter.Tensor) int { return max(t.Dim(), 1) }

// indexDTypeOK is the scatter/gather index rule of the profile.
func (b *backend) indexDTypeOK(dt scatter.DType) bool {
	return dt == scatter.DTInt64 || (dt == scatter.DTInt32 && b.prof.Int32Index())
}

// dimScatterGeom accepts the checks of scatter_meta_impl
// (SEMANTICS.md §1.3) and returns the walk; hasSrc says whether the call
// has a src tensor (else a scalar value).
func (b *backend) dimScatterGeom(self, index, src scatter.Tensor, hasSrc bool, dim int) (geom, bool) {
	if !okTensor(self) || !okTensor(index) || (hasSrc && !okTensor(src)) {
		return geom{}, false
	}
	dim, ok := scatter.WrapDim(dim, self.Dim())
	if !ok || index.NumEl() == 0 || self.NumEl() == 0 || !b.indexDTypeOK(index.DType()) {
		return geom{}, false
	}
	if hasSrc && src.DType() != self.DType() {
		return geom{}, false
	}
	if nd(self) != nd(index) {
		return geom{}, false
	}
	for d := 0; d < nd(self); d++ {
		if d != dim && scatter.SizeAt(index.Shape, d) > scatter.SizeAt(self.Shape, d) {
			return geom{}, false
		}
	}
	if hasSrc {
		if src.Dim() > 0 && src.Dim() < nd(self) || nd(src) != nd(index) {
			return geom{}, false
		}
		for d := 0; d < nd(self); d++ {
			if scatter.SizeAt(index.Shape, d) > scatter.SizeAt(src.Shape, d) {
				return geom{}, false
			}
		}
	}
	I, ist := shapeOf(index)
	S, _ := shapeOf(self)
	ost := scatter.ContiguousStrides(S)
	sst := make([]int, len(I))
	sOff := 0
	if hasSrc {
		_, sst = shapeOf(src)
		sOff = src.Offset
	}
	return buildGeom(I, dim, ist, sst, ost, index.Offset, sOff, S[dim], self.NumEl())
}

// job makes the rjob of a walk.
func newJob(g geom, idx any, op opKind, self scatter.Tensor) *rjob {
	return &rjob{g: g, rowsKind: g.rows(), idx: idx, op: op, fin: fin{op: op},
		initSelf: true, self: self, exact: exactOp(op, self.DType())}
}

// scatter: torch.Tensor.scatter_(dim, index, src|value, reduce=None|add|multiply),
// and scatter_add_. Plain scatter takes every dtype; add and multiply all
// but bool.
func (b *backend) scatter(c scatter.Scatter) (scatter.Result, bool) {
	var op opKind
	switch c.Reduce {
	case scatter.ReduceNone:
		op = opAssign
	case scatter.ReduceAdd:
		op = opSum
	case scatter.ReduceMultiply:
		op = opProd
	default:
		return scatter.Result{}, false
	}
	dt := c.Self.DType()
	hasSrc := !c.Src.IsZero()
	if hasSrc == (c.Value != nil) || (op != opAssign && !foldable(dt)) {
		return scatter.Result{}, false
	}
	g, ok := b.dimScatterGeom(c.Self, c.Index, c.Src, hasSrc, c.Dim)
	if !ok {
		return scatter.Result{}, false
	}
	srcData := c.Src.Data
	if !hasSrc {
		if srcData, ok = b.convertValue(dt, *c.Value); !ok {
			return scatter.Result{}, false
		}
	}
	j := newJob(g, c.Index.Data, op, c.Self)
	out, ok := b.runTyped(j, c.Self.Data, srcData, b.prof.RoundsPerStep())
	if !ok {
		return scatter.Result{}, false
	}
	return result(c.Self.Shape, out), true
}

// convertValue converts scatter's scalar value to dtype dt with c10's
// checked conversion, by asking the reference to scatter it into a
// one-element tensor (so the rules are the reference's own); ok is false
// when the value does not fit.
func (b *backend) convertValue(dt scatter.DType, v scatter.Scalar) (any, bool) {
	self, err := scatter.Zeros(dt, 1)
	if err != nil {
		return nil, false
	}
	res, err := b.ref.Run(scatter.Scatter{Self: self, Index: scatter.FromSlice([]int64{0}), Value: &v})
	if err != nil {
		return nil, false
	}
	return res.Out.Data, true
}

// scatterReduce: torch.Tensor.scatter_reduce_(dim, index, src, reduce,
// include_self): every dtype but bool.
func (b *backend) scatterReduce(c scatter.ScatterReduce) (scatter.Result, bool) {
	var op opKind
	switch c.Reduce {
	case scatter.ReduceSum, scatter.ReduceMean:
		op = opSum
	case scatter.ReduceProd:
		op = opProd
	case scatter.ReduceAmax:
		op = opAmax
	case scatter.ReduceAmin:
		op = opAmin
	default:
		return scatter.Result{}, false
	}
	dt := c.Self.DType()
	if c.Src.IsZero() || !foldable(dt) {
		return scatter.Result{}, false
	}
	g, ok := b.dimScatterGeom(c.Self, c.Index, c.Src, true, c.Dim)
	if !ok {
		return scatter.Result{}, false
	}
	mean := c.Reduce == scatter.ReduceMean
	j := newJob(g, c.Index.Data, op, c.Self)
	j.initSelf = !c.ExcludeSelf
	j.fin = fin{op: op, counted: mean || c.ExcludeSelf, mean: mean, countSelf: !c.ExcludeSelf,
		excl: c.ExcludeSelf, cntPerStep: b.prof.RoundsPerStep()}
	out, ok := b.runTyped(j, c.Self.Data, c.Src.Data, b.prof.RoundsPerStep())
	if !ok {
		return scatter.Result{}, false
	}
	return result(c.Self.Shape, out), true
}

// indexReduce: torch.Tensor.index_reduce_(dim, index, source, reduce,
// include_self), for every dtype but bool, when source has self's shape
// apart from dim (no broadcast source slices) and self has at least one
// dimension.
func (b *backend) indexReduce(c scatter.IndexReduce) (scatter.Result, bool) {
	var op opKind
	switch c.Reduce {
	case scatter.ReduceMean:
		op = opSum
	case scatter.ReduceProd:
		op = opProd
	case scatter.ReduceAmax:
		op = opAmax
	case scatter.ReduceAmin:
		op = opAmin
	default:
		return scatter.Result{}, false
	}
	self, index, source := c.Self, c.Index, c.Source
	if !okTensor(self) || !okTensor(index) || !okTensor(source) {
		return scatter.Result{}, false
	}
	dt := self.DType()
	dim, ok := scatter.WrapDim(c.Dim, self.Dim())
	if !ok || index.Dim() > 1 || !index.DType().IsIndex() || source.DType() != dt || !foldable(dt) {
		return scatter.Result{}, false
	}
	n := index.NumEl()
	if self.Dim() == 0 || source.Dim() != self.Dim() || n == 0 || self.NumEl() == 0 || source.Shape[dim] != n {
		return scatter.Result{}, false
	}
	for d := range self.Shape {
		if d != dim && source.Shape[d] != self.Shape[d] {
			return scatter.Result{}, false
		}
	}
	I := append([]int{}, self.Shape...)
	I[dim] = n
	ist := make([]int, len(I))
	if index.Dim() == 1 {
		ist[dim] = index.StridesOrDefault()[0]
	}
	g, ok := buildGeom(I, dim, ist, source.StridesOrDefault(), scatter.ContiguousStrides(self.Shape),
		index.Offset, source.Offset, self.Shape[dim], self.NumEl())
	if !ok {
		return scatter.Result{}, false
	}
	mean := c.Reduce == scatter.ReduceMean
	j := newJob(g, index.Data, op, self)
	j.initSelf = !c.ExcludeSelf
	j.fin = fin{op: op, counted: mean || c.ExcludeSelf, mean: mean, countSelf: !c.ExcludeSelf,
		excl: c.ExcludeSelf, cntPerStep: b.prof.IndexMeanCountPerStep(self.Dim(), dim, index.DType())}
	// 16-bit values round after every step in every version: the binary
	// ops of index_reduce_ round their output.
	out, ok := b.runTyped(j, self.Data, source.Data, true)
	if !ok {
		return scatter.Result{}, false
	}
	return result(self.Shape, out), true
}

// torchScatter: torch_scatter 2.x scatter with reduce sum/add/mean and no
// out, for every dtype but bool, when the index is 1-d along dim (the
// PyG case) or has src's shape.
func (b *backend) torchScatter(c scatter.TorchScatter) (scatter.Result, bool) {
	mean := false
	switch c.Reduce {
	case scatter.ReduceNone, scatter.ReduceSum, scatter.ReduceAdd:
	case scatter.ReduceMean:
		mean = true
	default:
		return scatter.Result{}, false
	}
	src, index := c.Src, c.Index
	// An int32 index goes to the reference: under PyTorch 2 the broadcast
	// index may take scatter_add_'s expanded-index path, which rejects it.
	if !c.Out.IsZero() || !okTensor(src) || !okTensor(index) || !foldable(src.DType()) || !b.indexDTypeOK(index.DType()) ||
		index.DType() == scatter.DTInt32 {
		return scatter.Result{}, false
	}
	n := src.Dim()
	d := scatter.DimOr(c.Dim, -1)
	if d < 0 {
		d += n
	}
	if n == 0 || d < 0 || d >= n || src.NumEl() == 0 {
		return scatter.Result{}, false
	}
	S := src.Shape
	var ist []int
	switch {
	case index.Dim() == 1 && index.Shape[0] == S[d]:
		ist = make([]int, n)
		ist[d] = index.StridesOrDefault()[0]
	case sameShape(index.Shape, S):
		ist = index.StridesOrDefault()
	default:
		return scatter.Result{}, false
	}
	var size int
	if c.DimSize != nil {
		size = *c.DimSize
	} else {
		lo, hi := b.indexRange(index)
		if lo < 0 || hi >= maxOutputElems {
			return scatter.Result{}, false
		}
		size = int(hi) + 1
	}
	if size <= 0 {
		return scatter.Result{}, false
	}
	outShape := append([]int{}, S...)
	outShape[d] = size
	outN := 1
	for _, s := range outShape {
		if outN > maxOutputElems/s {
			return scatter.Result{}, false
		}
		outN *= s
	}
	g, ok := buildGeom(S, d, ist, src.StridesOrDefault(), scatter.ContiguousStrides(outShape),
		index.Offset, src.Offset, size, outN)
	if !ok {
		return scatter.Result{}, false
	}
	j := newJob(g, index.Data, opSum, scatter.Tensor{})
	j.zeroSelf = true
	j.exact = exactOp(opSum, src.DType())
	j.fin = fin{op: opSum, counted: mean, mean: mean, clampBelow: true, cntPerStep: b.prof.RoundsPerStep()}
	zeros := scatter.MakeData(src.DType(), 0)
	out, ok := b.runTyped(j, zeros, src.Data, b.prof.RoundsPerStep())
	if !ok {
		return scatter.Result{}, false
	}
	return result(outShape, out), true
}

// indexRange returns the smallest and largest value of an int32/int64
// index view (one parallel pass).
func (b *backend) indexRange(t scatter.Tensor) (lo, hi int64) {
	switch d := t.Data.(type) {
	case []int64:
		return viewRange(b, t, d)
	case []int32:
		return viewRange(b, t, d)
	}
	return -1, -1
}

func viewRange[I ix](b *backend, t scatter.Tensor, d []I) (int64, int64) {
	n := t.NumEl()
	W := b.workers
	if n < b.serialMax {
		W = 1
	}
	los := make([]int64, W)
	his := make([]int64, W)
	var tmp []I
	if !t.IsContiguous() {
		tmp = make([]I, n)
	}
	parallel(W, func(w int) {
		lo, hi := split(n, W, w)
		var vals []I
		if tmp == nil {
			vals = d[t.Offset+lo : t.Offset+hi]
		} else {
			copyView(tmp, t, d, lo, hi)
			vals = tmp[lo:hi]
		}
		mn, mx := int64(1<<62), int64(-1<<62)
		for _, v := range vals {
			mn = min(mn, int64(v))
			mx = max(mx, int64(v))
		}
		los[w], his[w] = mn, mx
	})
	mn, mx := los[0], his[0]
	for w := 1; w < W; w++ {
		mn, mx = min(mn, los[w]), max(mx, his[w])
	}
	return mn, mx
}
