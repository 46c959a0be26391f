package main

import (
	"math"
	"math/bits"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
)

// The gate's own generator of random calls, over the nine operations. Every
// choice is a rapid draw, so rapid can replay and shrink a failing call:
// sizes shrink toward 1, values toward 0, and every deliberate corruption
// (a bad dim, rank, size, dtype or index) toward its absence.
//
// Most calls are valid; about one in six breaks a rule on purpose, so that
// the error paths are exercised too. The judge (reference.Expect) decides
// what each call must do, so the generator never needs to know.

// rgen draws the parts of one call.
type rgen struct {
	t  *rapid.T
	dt scatter.DType // the data dtype of the call
	// others are the other data dtypes the implementation claims (for the
	// dtype-mismatch calls, which only use claimed dtypes).
	others []scatter.DType
}

// intn draws an int in [lo, hi], shrinking toward the end nearest 0.
// rapid's integer draws favour small values; values (where that is the
// point) use intn, sizes and choices use uniform.
func (g *rgen) intn(lo, hi int) int {
	if lo >= hi {
		return lo
	}
	return rapid.IntRange(lo, hi).Draw(g.t, "")
}

// uniform draws an int in [lo, hi] uniformly, from single bits (which
// rapid does not bias); it shrinks to lo.
func (g *rgen) uniform(lo, hi int) int {
	if lo >= hi {
		return lo
	}
	n := uint64(hi - lo + 1)
	k := bits.Len64(n - 1)
	var v uint64
	for range k {
		v <<= 1
		if rapid.Bool().Draw(g.t, "") {
			v |= 1
		}
	}
	return lo + int(v*n>>k)
}

// chance is true pct percent of the time; it shrinks to false.
func (g *rgen) chance(pct int) bool { return g.uniform(0, 99) >= 100-pct }

// pick draws one of xs; it shrinks to the first.
func pick[T any](g *rgen, xs ...T) T { return xs[g.uniform(0, len(xs)-1)] }

// size draws a dimension size: mostly 1 to 4, sometimes 0.
func (g *rgen) size() int {
	if g.chance(5) {
		return 0
	}
	return g.uniform(1, 4)
}

func (g *rgen) shape(rank int) []int {
	s := make([]int, rank)
	for d := range s {
		s[d] = g.size()
	}
	return s
}

func numel(s []int) int {
	n := 1
	for _, x := range s {
		n *= x
	}
	return n
}

// sizeAt is PyTorch's ensure_nonempty_size: a 0-d tensor is one element
// along dim 0.
func sizeAt(s []int, d int) int {
	if len(s) == 0 || d < 0 || d >= len(s) {
		return 1
	}
	return s[d]
}

// dim draws a dim for nd dimensions: mostly valid (negative ones too),
// sometimes just outside the range. It returns the dim and its wrapped
// value (clamped into range when invalid, for shaping the other tensors).
func (g *rgen) dim(nd int) (dim, wrapped int) {
	if nd < 1 {
		nd = 1
	}
	dim = g.intn(-nd, nd-1)
	if g.chance(3) {
		dim = pick(g, nd, -nd-1)
	}
	wrapped = dim
	if wrapped < 0 {
		wrapped += nd
	}
	return dim, max(0, min(wrapped, nd-1))
}

// dataDType is the call's dtype, or (rarely) another claimed one for a
// dtype-mismatch call.
func (g *rgen) dataDType() scatter.DType {
	if len(g.others) > 0 && g.chance(3) {
		return g.others[g.uniform(0, len(g.others)-1)]
	}
	return g.dt
}

// indexDType is int64 mostly, int32 sometimes (valid everywhere under
// torch-2 and for index_reduce, an error for scatter and gather under
// torch-1.13), int16 rarely (an error everywhere).
func (g *rgen) indexDType() scatter.DType {
	switch {
	case g.chance(3):
		return scatter.DTInt16
	case g.chance(10):
		return scatter.DTInt32
	}
	return scatter.DTInt64
}

// index draws an index tensor of the given dtype and shape with values in
// [0, bound), sometimes just outside.
func (g *rgen) index(dt scatter.DType, shape []int, bound int) scatter.Tensor {
	n := numel(shape)
	data := scatter.MakeData(dt, n)
	for i := 0; i < n; i++ {
		var v int
		switch {
		case g.chance(2):
			v = pick(g, bound, -1)
		case bound <= 0:
			v = g.uniform(-1, 1)
		default:
			v = g.uniform(0, bound-1)
		}
		switch d := data.(type) {
		case []int64:
			d[i] = int64(v)
		case []int32:
			d[i] = int32(v)
		case []int16:
			d[i] = int16(v)
		}
	}
	return scatter.Tensor{Shape: shape, Data: data}
}

// fill draws a tensor of dtype dt and shape.
func (g *rgen) fill(dt scatter.DType, shape []int) scatter.Tensor {
	n := numel(shape)
	data := scatter.MakeData(dt, n)
	for i := 0; i < n; i++ {
		switch d := data.(type) {
		case []bool:
			d[i] = g.chance(50)
		case []uint8:
			d[i] = uint8(g.intVal(0, math.MaxUint8))
		case []int8:
			d[i] = int8(g.intVal(math.MinInt8, math.MaxInt8))
		case []int16:
			d[i] = int16(g.intVal(math.MinInt16, math.MaxInt16))
		case []int32:
			d[i] = int32(g.intVal(math.MinInt32, math.MaxInt32))
		case []int64:
			d[i] = g.intVal(math.MinInt64, math.MaxInt64)
		case []scatter.Float16:
			d[i] = scatter.Float16FromFloat64(g.floatVal(65504))
		case []scatter.BFloat16:
			d[i] = scatter.BFloat16FromFloat64(g.floatVal(3.3895313892515355e38))
		case []float32:
			d[i] = float32(g.floatVal(math.MaxFloat32))
		case []float64:
			d[i] = g.floatVal(math.MaxFloat64)
		}
	}
	return scatter.Tensor{Shape: shape, Data: data}
}

// intVal draws a small integer mostly, any value of [lo, hi] sometimes
// (where sums and products wrap).
func (g *rgen) intVal(lo, hi int64) int64 {
	if g.chance(8) {
		return rapid.Int64Range(lo, hi).Draw(g.t, "")
	}
	return max(lo, min(hi, int64(g.intn(-6, 6))))
}

// floatVal draws a small integer mostly, a fraction with a larger
// magnitude often (rounding), and a special value sometimes: NaN, ±Inf,
// -0, the largest finite value (overflow) or a subnormal-ish tiny one.
func (g *rgen) floatVal(maxFinite float64) float64 {
	switch {
	case g.chance(8):
		return pick(g, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), maxFinite, -maxFinite, 1e-7, 0.1)
	case g.chance(25):
		return float64(g.intn(-4000, 4000)) / 64
	}
	return float64(g.intn(-6, 6))
}

// scalar draws scatter's value or torch_scatter's fill_value for dtype dt.
func (g *rgen) scalar(dt scatter.DType) scatter.Scalar {
	switch {
	case g.chance(3):
		return pick(g, scatter.Int(1<<40), scatter.Float(1e300), scatter.Float(math.NaN()))
	case dt == scatter.DTBool && g.chance(50):
		return scatter.Bool(g.chance(50))
	case g.chance(30):
		return scatter.Float(float64(g.intn(-40, 40)) / 4)
	}
	return scatter.Int(int64(g.intn(-5, 5)))
}

// call draws a call of op.
func (g *rgen) call(op scatter.Op) scatter.Call {
	switch op {
	case scatter.OpScatter, scatter.OpScatterAdd, scatter.OpScatterReduce:
		return g.dimCall(op)
	case scatter.OpIndexReduce:
		return g.indexReduce()
	case scatter.OpGather:
		return g.gather()
	case scatter.OpTorchScatterAdd:
		return g.torchScatterAdd()
	case scatter.OpTorchScatter:
		return g.torchScatter()
	case scatter.OpTensorScatter:
		return g.tensorScatter()
	case scatter.OpTensorGather:
		return g.tensorGather()
	}
	return nil
}

// dimCall draws scatter, scatter_add or scatter_reduce: self, dim, an
// index no larger than self outside dim (larger along it), a src no
// smaller than the index; sometimes a long 1-d index with many duplicates.
func (g *rgen) dimCall(op scatter.Op) scatter.Call {
	rank := g.uniform(0, 3)
	self := g.shape(rank)
	dim, wd := g.dim(rank)
	var idx []int
	switch {
	case rank == 0:
		idx = []int{}
		if g.chance(50) {
			idx = []int{g.uniform(0, 2)}
		}
	case rank == 1 && op != scatter.OpScatter && g.chance(8):
		idx = []int{g.intn(16, 300)} // long folds: rounding, counts
	default:
		idx = make([]int, rank)
		for d := range idx {
			if d == wd {
				idx[d] = g.uniform(0, self[d]+2)
			} else {
				idx[d] = g.uniform(0, self[d])
			}
			if g.chance(2) {
				idx[d]++ // larger than self: shape_mismatch
			}
		}
	}
	if g.chance(2) {
		idx = append(idx, 1) // rank mismatch
	}
	src := append([]int{}, idx...)
	for d := range src {
		if g.chance(15) {
			src[d]++
		}
		if g.chance(2) && src[d] > 0 {
			src[d]-- // smaller than the index: shape_mismatch
		}
	}
	index := g.index(g.indexDType(), idx, sizeAt(self, wd))
	selfT := g.fill(g.dt, self)
	switch op {
	case scatter.OpScatterAdd:
		return scatter.ScatterAdd{Self: selfT, Dim: dim, Index: index, Src: g.fill(g.dataDType(), src)}
	case scatter.OpScatterReduce:
		r := pick(g, scatter.ReduceSum, scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin)
		if g.chance(2) {
			r = scatter.ReduceAdd // not a scatter_reduce name
		}
		return scatter.ScatterReduce{Self: selfT, Dim: dim, Index: index, Src: g.fill(g.dataDType(), src),
			Reduce: r, ExcludeSelf: g.chance(50)}
	}
	c := scatter.Scatter{Self: selfT, Dim: dim, Index: index}
	if g.chance(30) {
		c.Value = scatter.Ptr(g.scalar(g.dt))
	} else {
		c.Src = g.fill(g.dataDType(), src)
	}
	switch {
	case g.chance(2):
		c.Reduce = scatter.ReduceSum // not a scatter name
	case g.chance(40):
		c.Reduce = pick(g, scatter.ReduceAdd, scatter.ReduceMultiply)
	}
	return c
}

// indexReduce draws index_reduce: a vector index of the source's length
// along dim, sometimes a source slice that broadcasts.
func (g *rgen) indexReduce() scatter.Call {
	rank := g.uniform(0, 3)
	self := g.shape(rank)
	dim, wd := g.dim(rank)
	k := g.uniform(0, 5)
	if rank == 1 && g.chance(8) {
		k = g.intn(16, 300)
	}
	idx := []int{k}
	if g.chance(3) {
		idx = []int{k, 1} // not a vector
	}
	var src []int
	if rank == 0 {
		src = []int{}
		if k != 1 || g.chance(50) {
			src = []int{k}
		}
	} else {
		src = append([]int{}, self...)
		src[wd] = k
		for d := range src {
			if d != wd && g.chance(6) {
				src[d] = 1 // broadcasts into the self slice
			}
		}
		if g.chance(2) {
			src[wd]++ // count mismatch
		}
	}
	dt := scatter.DTInt64
	switch {
	case g.chance(3):
		dt = scatter.DTInt16
	case g.chance(25):
		dt = scatter.DTInt32
	}
	r := pick(g, scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin)
	if g.chance(2) {
		r = scatter.ReduceSum // index_reduce has no sum
	}
	return scatter.IndexReduce{Self: g.fill(g.dt, self), Dim: dim, Index: g.index(dt, idx, sizeAt(self, wd)),
		Source: g.fill(g.dataDType(), src), Reduce: r, ExcludeSelf: g.chance(50)}
}

// gather draws gather: an index no larger than the input outside dim.
func (g *rgen) gather() scatter.Call {
	rank := g.uniform(0, 3)
	in := g.shape(rank)
	dim, wd := g.dim(rank)
	idx := make([]int, rank)
	for d := range idx {
		if d == wd {
			idx[d] = g.uniform(0, 4)
		} else {
			idx[d] = g.uniform(0, in[d])
		}
		if g.chance(2) {
			idx[d]++
		}
	}
	if rank == 0 && g.chance(50) {
		idx = []int{g.uniform(0, 2)}
	}
	return scatter.Gather{Input: g.fill(g.dt, in), Dim: dim, Index: g.index(g.indexDType(), idx, sizeAt(in, wd))}
}

// tsParts draws what both torch_scatter operations share: src, dim (nil
// for the default -1), the output size along dim, dim_size and out.
func (g *rgen) tsParts() (src []int, dim *int, wd, k int, dimSize *int, out scatter.Tensor) {
	rank := g.uniform(1, 3)
	if g.chance(2) {
		rank = 0
	}
	src = g.shape(rank)
	d, w := g.dim(rank)
	if g.chance(30) && d == -1 {
		dim = nil
	} else {
		dim = &d
	}
	wd = w
	if rank == 0 {
		wd = 0
	}
	k = g.uniform(1, 4)
	if g.chance(30) {
		dimSize = scatter.Ptr(k + g.uniform(0, 2))
		if g.chance(5) {
			dimSize = scatter.Ptr(-1)
		}
	}
	if rank > 0 && g.chance(15) {
		os := append([]int{}, src...)
		os[wd] = k + g.uniform(0, 1)
		out = g.fill(g.dataDType(), os)
	}
	return
}

// torchScatterAdd draws torch_scatter 1.x scatter_add: a 1-d index of
// src's length along dim, or one of src's shape with size-1 dims on either
// side broadcasting; sometimes a fill_value.
func (g *rgen) torchScatterAdd() scatter.Call {
	src, dim, wd, k, dimSize, out := g.tsParts()
	var idx []int
	if len(src) > 0 && g.chance(40) {
		idx = []int{src[wd]}
	} else {
		idx = append([]int{}, src...)
		for d := range idx {
			if d != wd && g.chance(10) {
				idx[d] = 1
			}
		}
	}
	c := scatter.TorchScatterAdd{Src: g.fill(g.dt, src), Index: g.index(g.tsIndexDType(), idx, k), Dim: dim,
		DimSize: dimSize, Out: out}
	if g.chance(30) {
		c.FillValue = g.scalar(g.dt)
	}
	return c
}

// torchScatter draws torch_scatter 2.x scatter: a 1-d index of src's
// length along dim, or one matching src's leading dims.
func (g *rgen) torchScatter() scatter.Call {
	src, dim, wd, k, dimSize, out := g.tsParts()
	var idx []int
	if len(src) > 0 && g.chance(40) {
		idx = []int{src[wd]}
	} else {
		idx = append([]int{}, src[:g.uniform(min(len(src), wd+1), len(src))]...)
	}
	r := pick(g, scatter.ReduceSum, scatter.ReduceAdd, scatter.ReduceMul, scatter.ReduceMean, scatter.ReduceMin, scatter.ReduceMax)
	if g.chance(20) {
		r = scatter.ReduceNone
	}
	return scatter.TorchScatter{Src: g.fill(g.dt, src), Index: g.index(g.tsIndexDType(), idx, k), Dim: dim,
		DimSize: dimSize, Out: out, Reduce: r}
}

func (g *rgen) tsIndexDType() scatter.DType {
	if g.chance(3) {
		return scatter.DTInt32
	}
	return scatter.DTInt64
}

// broadcastable returns shape with some sizes replaced by 1 and,
// sometimes, leading dims dropped: a shape that broadcasts to it.
func (g *rgen) broadcastable(shape []int) []int {
	s := append([]int{}, shape...)
	for d := range s {
		if g.chance(15) {
			s[d] = 1
		}
	}
	if len(s) > 0 && g.chance(10) {
		s = s[1:]
	}
	return s
}

// fsIndexDType is int64 (the F# library's index type), rarely int32.
func (g *rgen) fsIndexDType() scatter.DType {
	if g.chance(2) {
		return scatter.DTInt32
	}
	return scatter.DTInt64
}

// tensorScatter draws the F# Tensor.scatter: one index or None per target
// dimension, each index broadcasting to src's shape; Nones only below
// src's rank, where the target is at least as large as src.
func (g *rgen) tensorScatter() scatter.Call {
	srank := g.uniform(1, 3)
	if g.chance(3) {
		srank = 0
	}
	src := g.shape(srank)
	trank := srank
	if g.chance(20) {
		trank++
	}
	shape := make([]int, trank)
	indices := make([]scatter.Tensor, trank)
	for k := range shape {
		if k < srank && g.chance(40) {
			shape[k] = src[k] + g.uniform(0, 1)
			continue
		}
		shape[k] = g.uniform(1, 4)
		indices[k] = g.index(g.fsIndexDType(), g.broadcastable(src), shape[k])
	}
	if g.chance(2) && trank > 0 {
		indices = indices[1:] // one index per target dimension is required
	}
	return scatter.TensorScatter{Indices: indices, Shape: shape, Src: g.fill(g.dt, src)}
}

// tensorGather draws the F# Tensor.gather: one index or None per source
// dimension, the given ones broadcasting to the target shape.
func (g *rgen) tensorGather() scatter.Call {
	srank := g.uniform(1, 3)
	trank := g.uniform(1, srank)
	target := make([]int, trank)
	for d := range target {
		target[d] = g.uniform(1, 4)
	}
	src := make([]int, srank)
	indices := make([]scatter.Tensor, srank)
	some := false
	for k := range src {
		if k < trank && g.chance(40) {
			src[k] = target[k] + g.uniform(0, 1)
			continue
		}
		src[k] = g.size()
		indices[k] = g.index(g.fsIndexDType(), g.broadcastable(target), src[k])
		some = true
	}
	if !some && !g.chance(3) {
		indices[0] = g.index(g.fsIndexDType(), target[:1], src[0])
	}
	return scatter.TensorGather{Indices: indices, Src: g.fill(g.dt, src)}
}
