package cuda

import (
	"slices"

	"github.com/scatterconf/scatter"
)

// The planners: the host half of each operation. A planner first runs the
// checks that need no index values, in a conservative form: when anything
// is off (a rule broken, or a case the GPU path does not take, such as an
// empty index) it returns a nil program and the reference answers the
// call, which gives PyTorch's error code and precedence exactly. A valid
// call is then normalised into a geometry (staged) and built into a
// program.

// geom is the normalised 3-d description of Params (kernels/00_prelude.cu):
// contribution (a, k, b), a < A, k < K, b < B, reads the index at
// a*isA + k*isK + b*isB and the source at a*ssA + k*ssK + b*ssB, and goes
// to output a*osA + v*osK + b.
type geom struct {
	n, A, K, B    int64
	isA, isK, isB int64
	ssA, ssK, ssB int64
	osA, osK      int64
	size          int64
}

// staged is a call's geometry with its host data packed for upload.
type staged struct {
	g     geom
	idx   any // int32 or int64 slice: index values, or output offsets (table)
	src   any // source values
	self  any // self (contiguous, the output's shape)
	outN  int
	table bool
}

func prod(s []int) int64 {
	n := int64(1)
	for _, x := range s {
		n *= int64(x)
	}
	return n
}

// fits3d reports whether an index of shape I over an output of shape S
// along dim d maps linearly: every dim but 0, d and d+1 has the same size.
func fits3d(I, S []int, d int) bool {
	for j := range I {
		if j != 0 && j != d && j != d+1 && I[j] != S[j] {
			return false
		}
	}
	return true
}

// stageDim normalises a dim-scatter (scatter_, scatter_add_,
// scatter_reduce_) or a gather: for every position p of index,
// t = p with t[dim] = index[p]. self is the output's initial value (the
// input, for gather); src the source tensor, or value a one-element slice.
// oob reports an out-of-range index value found on the host (table mode).
func stageDim(self, index, src scatter.Tensor, value any, d int, forceTable bool) (st staged, oob bool) {
	S := shapeOrScalar(self)
	I := shapeOrScalar(index)
	A, K, B := prod(I[:d]), int64(I[d]), prod(I[d+1:])
	Bs := prod(S[d+1:])
	st.self = pack(viewOf(self))
	st.outN = scatter.Numel(S)
	iv := viewOf(index)
	g := geom{n: A * K * B, A: A, K: K, B: B, size: int64(S[d])}
	if !forceTable && fits3d(I, S, d) {
		g.osA, g.osK = int64(S[d])*Bs, Bs
		expanded := B > 1 && index.Strides != nil
		for j := d + 1; expanded && j < len(I); j++ {
			expanded = I[j] == 1 || index.Strides[j] == 0
		}
		if expanded {
			// an index constant along the inner dims (PyG's expanded
			// index): one value per row
			st.idx = pack(view{data: iv.data, off: iv.off, shape: I[:d+1], strides: iv.strides[:d+1]})
			g.isA, g.isK, g.isB = K, 1, 0
		} else {
			st.idx = pack(iv)
			g.isA, g.isK, g.isB = K*B, B, 1
		}
	} else {
		// table mode: the host computes every output offset
		vals := indexInts(pack(iv))
		offs := make([]int64, len(vals))
		sst := scatter.ContiguousStrides(S)
		c := make([]int, len(I))
		for p, v := range vals {
			if v < 0 || v >= int64(S[d]) {
				return st, true
			}
			var o int64
			for j := range c {
				x := int64(c[j])
				if j == d {
					x = v
				}
				o += x * int64(sst[j])
			}
			offs[p] = o
			for j := len(c) - 1; j >= 0; j-- {
				if c[j]++; c[j] < I[j] {
					break
				}
				c[j] = 0
			}
		}
		st.idx = offs
		st.table = true
		g = geom{n: int64(len(vals)), A: 1, K: int64(len(vals)), B: 1, isK: 1, osK: 1, size: int64(st.outN)}
	}
	switch {
	case value != nil:
		st.src = value
	case src.IsZero():
		// gather: no source
	default:
		sv := viewOf(src)
		st.src = pack(view{data: sv.data, off: sv.off, shape: I, strides: sv.strides})
		if st.table {
			g.ssK = 1
		} else {
			g.ssA, g.ssK, g.ssB = K*B, B, 1
		}
	}
	st.g = g
	return st, false
}

func (b *backend) indexDTypeOK(dt scatter.DType) bool {
	return dt == scatter.DTInt64 || (dt == scatter.DTInt32 && b.prof.Int32Index())
}

// dimShapeOK is scatter_shape_check for a non-empty index, true when no
// rule is broken.
func dimShapeOK(self, index, src scatter.Tensor, dim int) bool {
	if nd(self) != nd(index) {
		return false
	}
	for d := 0; d < nd(self); d++ {
		if d != dim && scatter.SizeAt(index.Shape, d) > scatter.SizeAt(self.Shape, d) {
			return false
		}
	}
	if src.IsZero() {
		return true
	}
	if nd(src) != nd(index) || (src.Dim() > 0 && src.Dim() < nd(self)) {
		return false
	}
	for d := 0; d < nd(self); d++ {
		if scatter.SizeAt(index.Shape, d) > scatter.SizeAt(src.Shape, d) {
			return false
		}
	}
	return true
}

// convertValue converts a scatter_ value to dtype dt exactly as the
// reference does (c10's checked conversion), by asking it for a
// one-element scatter; ok is false when the value overflows.
func (b *backend) convertValue(v scatter.Scalar, dt scatter.DType) (any, bool) {
	one := scatter.Tensor{Shape: []int{1}, Data: scatter.MakeData(dt, 1)}
	res, err := b.ref.Run(scatter.Scatter{Self: one, Dim: 0, Index: scatter.FromSlice([]int64{0}), Value: &v})
	if err != nil {
		return nil, false
	}
	return pack(viewOf(res.Out)), true
}

// dimOp describes what a program folds.
type dimOp struct {
	op      int
	exclude bool // include_self=False
	// perStep: 16-bit float sums and products round after every step
	// (PyTorch 1.13, index_reduce); false: a float32 accumulator.
	perStep bool
	// countPerStep: a float mean count saturates at 2^precision (PyTorch 1.13).
	countPerStep bool
}

// planScatter: scatter_ (src or value; reduce None, add, multiply) and
// scatter_add_.
func (b *backend) planScatter(c scatter.Scatter) (*program, error) {
	var op int
	switch c.Reduce {
	case scatter.ReduceNone:
		op = opAssign
	case scatter.ReduceAdd:
		op = opSum
	case scatter.ReduceMultiply:
		op = opProd
	default:
		return nil, nil
	}
	hasSrc := !c.Src.IsZero()
	if hasSrc == (c.Value != nil) || !okTensor(c.Self) || !okTensor(c.Index) || (hasSrc && !okTensor(c.Src)) {
		return nil, nil
	}
	d, ok := scatter.WrapDim(c.Dim, c.Self.Dim())
	dt := c.Self.DType()
	if !ok || c.Index.NumEl() == 0 || !b.indexDTypeOK(c.Index.DType()) || (hasSrc && c.Src.DType() != dt) ||
		!dimShapeOK(c.Self, c.Index, c.Src, d) {
		return nil, nil
	}
	var value any
	if !hasSrc {
		if value, ok = b.convertValue(*c.Value, dt); !ok {
			return nil, nil
		}
	}
	st, oob := stageDim(c.Self, c.Index, c.Src, value, d, b.cfg.pol.forceTable)
	if oob {
		return nil, nil
	}
	return b.build(&st, dt, c.Self.Shape, dimOp{op: op, perStep: b.prof.RoundsPerStep()})
}

// planScatterReduce: scatter_reduce_(dim, index, src, reduce, include_self).
func (b *backend) planScatterReduce(c scatter.ScatterReduce) (*program, error) {
	var op int
	switch c.Reduce {
	case scatter.ReduceSum:
		op = opSum
	case scatter.ReduceProd:
		op = opProd
	case scatter.ReduceMean:
		op = opMean
	case scatter.ReduceAmax:
		op = opAmax
	case scatter.ReduceAmin:
		op = opAmin
	default:
		return nil, nil
	}
	if c.Src.IsZero() || !okTensor(c.Self) || !okTensor(c.Index) || !okTensor(c.Src) {
		return nil, nil
	}
	d, ok := scatter.WrapDim(c.Dim, c.Self.Dim())
	dt := c.Self.DType()
	if !ok || c.Index.NumEl() == 0 || !b.indexDTypeOK(c.Index.DType()) || c.Src.DType() != dt ||
		!dimShapeOK(c.Self, c.Index, c.Src, d) || (op == opMean && dt == scatter.DTBool) {
		return nil, nil
	}
	st, oob := stageDim(c.Self, c.Index, c.Src, nil, d, b.cfg.pol.forceTable)
	if oob {
		return nil, nil
	}
	t113 := b.prof.RoundsPerStep()
	return b.build(&st, dt, c.Self.Shape, dimOp{op: op, exclude: c.ExcludeSelf, perStep: t113, countPerStep: t113})
}

// planIndexReduce: index_reduce_(dim, index, source, reduce, include_self).
// 16-bit floats round after every step in every PyTorch version; the mean
// count saturates under PyTorch 1.13 only.
func (b *backend) planIndexReduce(c scatter.IndexReduce) (*program, error) {
	var op int
	switch c.Reduce {
	case scatter.ReduceProd:
		op = opProd
	case scatter.ReduceMean:
		op = opMean
	case scatter.ReduceAmax:
		op = opAmax
	case scatter.ReduceAmin:
		op = opAmin
	default:
		return nil, nil
	}
	if !okTensor(c.Self) || !okTensor(c.Index) || !okTensor(c.Source) {
		return nil, nil
	}
	d, ok := scatter.WrapDim(c.Dim, c.Self.Dim())
	dt := c.Self.DType()
	src := c.Source
	cnt := c.Index.NumEl()
	if !ok || c.Index.Dim() > 1 || !c.Index.DType().IsIndex() || src.DType() != dt ||
		!(d == 0 || d < src.Dim()) || cnt != scatter.SizeAt(src.Shape, d) || cnt == 0 ||
		(c.Self.Dim() <= 1 && src.Dim() > 1) {
		return nil, nil
	}
	if b.prof.IndexReduceExactShape() && !scatter.SameShapeExceptDim(c.Self.Shape, src.Shape, d) {
		return nil, nil // PyTorch 2: source has self's shape but along dim
	}
	multi := c.Self.Dim() > 1
	if multi && (src.Dim() == 0 || scatter.SizeAt(c.Self.Shape, d) == 0) {
		return nil, nil // select(dim, 0) fails first: an error
	}
	if dt == scatter.DTBool && (c.ExcludeSelf || !multi || op == opMean) {
		return nil, nil // every one of these is an error
	}
	var st staged
	st.self = pack(viewOf(c.Self))
	st.idx = pack(viewOf(c.Index))
	K := int64(cnt)
	if !multi {
		S := shapeOrScalar(c.Self)
		st.outN = scatter.Numel(S)
		st.src = pack(viewOf(src))
		st.g = geom{n: K, A: 1, K: K, B: 1, isK: 1, ssK: 1, osK: 1, size: int64(S[0])}
	} else {
		S := c.Self.Shape
		st.outN = scatter.Numel(S)
		shape := slices.Clone(S)
		shape[d] = cnt
		strides, ok := sliceBroadcast(S, src, d)
		if !ok {
			return nil, nil
		}
		st.src = pack(view{data: src.Data, off: src.Offset, shape: shape, strides: strides})
		A, B := prod(S[:d]), prod(S[d+1:])
		st.g = geom{n: A * K * B, A: A, K: K, B: B, isK: 1, ssA: K * B, ssK: B, ssB: 1,
			osA: int64(S[d]) * B, osK: B, size: int64(S[d])}
	}
	if st.g.n == 0 {
		return nil, nil
	}
	return b.build(&st, dt, c.Self.Shape, dimOp{op: op, exclude: c.ExcludeSelf, perStep: true,
		countPerStep: b.prof.IndexMeanCountPerStep(c.Self.Dim(), d, c.Index.DType())})
}

// sliceBroadcast returns the strides of the view of source whose shape is
// self's with dim's size replaced by len(index): source.select(dim, i)
// broadcast to a slice of self, as index_reduce_'s binary op does
// (right-aligned, size-1 dims stretched). ok is false when the slice does
// not broadcast.
func sliceBroadcast(S []int, src scatter.Tensor, dim int) (strides []int, ok bool) {
	strides = make([]int, len(S))
	var ss, sst []int
	if src.Dim() > 0 {
		st := src.StridesOrDefault()
		for j := range src.Shape {
			if j != dim {
				ss = append(ss, src.Shape[j])
				sst = append(sst, st[j])
			}
		}
		strides[dim] = st[dim]
	}
	var sl []int
	var slDim []int // the self dim of each slice dim
	for j := range S {
		if j != dim {
			sl = append(sl, S[j])
			slDim = append(slDim, j)
		}
	}
	if len(ss) > len(sl) {
		return nil, false
	}
	off := len(sl) - len(ss)
	for j, s := range ss {
		if s != 1 && s != sl[off+j] {
			return nil, false
		}
		if s != 1 {
			strides[slDim[off+j]] = sst[j]
		}
	}
	return strides, true
}

// planGather: gather(input, dim, index).
func (b *backend) planGather(c scatter.Gather) (*program, error) {
	if !okTensor(c.Input) || !okTensor(c.Index) {
		return nil, nil
	}
	d, ok := scatter.WrapDim(c.Dim, c.Input.Dim())
	if !ok || c.Index.NumEl() == 0 || !b.indexDTypeOK(c.Index.DType()) || nd(c.Input) != nd(c.Index) {
		return nil, nil
	}
	for j := 0; j < nd(c.Input); j++ {
		if j != d && scatter.SizeAt(c.Index.Shape, j) > scatter.SizeAt(c.Input.Shape, j) {
			return nil, nil
		}
	}
	st, oob := stageDim(c.Input, c.Index, scatter.Tensor{}, nil, d, b.cfg.pol.forceTable)
	if oob || st.outN == 0 {
		return nil, nil
	}
	dt := c.Input.DType()
	n := int(st.g.n)
	pr := &program{dt: dt, shape: slices.Clone(c.Index.Shape), outN: n}
	in := pr.addBuf(st.outN*dt.Size(), st.self)
	idx := pr.addBuf(byteLen(st.idx), st.idx)
	pr.out = pr.addBuf(n*dt.Size(), nil)
	p := st.g.params()
	if _, is32 := st.idx.([]int32); is32 {
		p.Flags |= fIdx32
	}
	refs := noRefs()
	refs[rOut], refs[rSrc], refs[rIdx] = pr.out, in, idx
	pr.launch("gather_"+widthName(dt.Size()), st.g.n, p, refs)
	return pr, nil
}

func byteLen(data any) int {
	_, n := bytesOf(data)
	return n
}

func (g geom) params() params {
	return params{N: g.n, A: g.A, K: g.K, B: g.B, IsA: g.isA, IsK: g.isK, IsB: g.isB,
		SsA: g.ssA, SsK: g.ssK, SsB: g.ssB, OsA: g.osA, OsK: g.osK, Size: g.size}
}
