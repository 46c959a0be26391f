package properties

import (
	"math"
	"slices"

	"github.com/scatterconf/scatter"
)

// The call generators. Each builds a call that is valid by construction
// (index values in range for the size they address, shapes that keep
// every rule) and then, in a minority of cases (cfg.errorPct), corrupts
// one thing toward an error path: a negative or too large index value, a
// dim out of range, a wrong index dtype, a dtype mismatch, a broken shape
// rule, a bad reduce name, an overflowing scalar. What the corrupted call
// must give is the judge's business, not the generator's: a corruption
// that happens to keep the call valid is just another valid call.

// badIndex says how to corrupt an index tensor's values.
type badIndex uint8

const (
	goodIndex badIndex = iota
	negIndex           // one value negative (mostly in [-size, -1], where wrapping would land in range)
	bigIndex           // one value >= size
)

// dup is the density of duplicate index values.
type dup uint8

const (
	dupRandom dup = iota // uniform in [0, size)
	dupUnique            // distinct along each fiber where the size allows
	dupNarrow            // one or two values per tensor region: heavy duplication
	dupSame              // a single value everywhere
)

// dupMode draws a duplicate density, from unique to all-same.
func (g *gen) dupMode() dup { return dup(g.pick(40, 25, 20, 15)) }

// indexTensor draws an index tensor of the given shape and dtype whose
// values address a dimension of size size. fd is the index's own
// dimension along which values feed one output fiber (the one whose
// values dupUnique keeps distinct), -1 if none.
func (g *gen) indexTensor(shape []int, fd, size int, dt scatter.DType, mode layoutMode, dm dup, bad badIndex) scatter.Tensor {
	l := g.layout(shape, mode)
	if dm == dupUnique && fd >= 0 && fd < len(l.expand) {
		l.expand[fd] = false // a stride-0 fiber repeats its value
	}
	bs := l.baseShape(shape)
	vals := g.indexValues(bs, fd, size, dm)
	if bad != goodIndex && len(vals) > 0 {
		s := g.seeded(1)
		p := s.uniform(len(vals))
		vals[p] = corruptIndex(s, bad, size, dt)
	}
	data := scatter.MakeData(dt, len(vals))
	for i, v := range vals {
		setInt(data, i, v)
	}
	return materialize(data, shape, l)
}

// corruptIndex returns a negative or too large index value.
func corruptIndex(s src, bad badIndex, size int, dt scatter.DType) int64 {
	huge := int64(1) << 40
	if dt == scatter.DTInt32 {
		huge = 1 << 30
	}
	if bad == negIndex {
		if s.intn(0, 9) < 8 {
			return -int64(1 + s.uniform(max(size, 1)))
		}
		return -huge
	}
	if s.intn(0, 9) < 8 {
		return int64(size + s.uniform(3))
	}
	return huge
}

// indexValues draws the row-major values of an index of shape bs, each in
// [0, size) (0 when size is 0: out of range, as nothing else can be).
func (g *gen) indexValues(bs []int, fd, size int, dm dup) []int64 {
	n := numel(bs)
	vals := make([]int64, n)
	if n == 0 || size <= 0 {
		return vals
	}
	s := g.seeded(n)
	switch dm {
	case dupSame:
		v := int64(s.uniform(size))
		for i := range vals {
			vals[i] = v
		}
	case dupNarrow:
		w := 1 + s.uniform(2)
		b := s.uniform(size)
		for i := range vals {
			vals[i] = int64((b + s.uniform(w)) % size)
		}
	case dupUnique:
		if fd < 0 || fd >= len(bs) {
			for i := range vals {
				vals[i] = int64(s.uniform(size))
			}
			break
		}
		outer, fl, inner := numel(bs[:fd]), bs[fd], numel(bs[fd+1:])
		for o := 0; o < outer; o++ {
			for in := 0; in < inner; in++ {
				perm := distinct(s, size, fl)
				for i := 0; i < fl; i++ {
					vals[(o*fl+i)*inner+in] = int64(perm[i])
				}
			}
		}
	default:
		for i := range vals {
			vals[i] = int64(s.uniform(size))
		}
	}
	return vals
}

// distinct returns k values in [0, size): distinct while k <= size, then
// repeating the same arrangement.
func distinct(s src, size, k int) []int {
	m := min(k, size)
	chosen := map[int]int{} // a sparse partial Fisher-Yates
	at := func(i int) int {
		if v, ok := chosen[i]; ok {
			return v
		}
		return i
	}
	out := make([]int, k)
	for i := 0; i < m; i++ {
		j := i + s.uniform(size-i)
		vi, vj := at(i), at(j)
		chosen[i], chosen[j] = vj, vi
		out[i] = vj
	}
	for i := m; i < k; i++ {
		out[i] = out[i%m]
	}
	return out
}

// sizeAt is ATen's ensure_nonempty_size.
func sizeAt(shape []int, d int) int {
	if len(shape) == 0 {
		return 1
	}
	return shape[d]
}

// dimArg draws how a wrapped dim d of an n-d tensor is passed: as is, or
// negative.
func (g *gen) dimArg(d, n int) int {
	if g.chance(30) {
		return d - max(n, 1)
	}
	return d
}

// badDim returns a dim outside [-n, n-1].
func (g *gen) badDim(n int) int {
	n = max(n, 1)
	if g.chance(50) {
		return n + g.intn(0, 2)
	}
	return -n - 1 - g.intn(0, 2)
}

// corrupting decides whether this call goes toward an error path.
func (g *gen) corrupting() bool { return !g.valid && g.chance(g.cfg.errorPct) }

// ---- scatter, scatter_add, scatter_reduce ----

// scatterReductions are scatter_reduce's reductions.
var scatterReductions = []scatter.Reduce{scatter.ReduceSum, scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin}

// dimScatterCall draws a scatter, scatter_add or scatter_reduce call.
func (g *gen) dimScatterCall(op scatter.Op) scatter.Call {
	dt := g.dtype(op, nil)
	long := g.want.longIndex
	r := g.rank(0)
	if long && r == 0 {
		r = 1
	}
	self := g.shape(r)
	if long {
		for k := range self {
			self[k] = max(self[k], 1)
		}
	}
	n := max(r, 1)
	d := g.intn(0, n-1)
	dim := g.dimArg(d, r)

	hasSrc := op != scatter.OpScatter || !g.chance(30)
	var reduce scatter.Reduce
	exclude := false
	switch op {
	case scatter.OpScatter:
		reduce = []scatter.Reduce{scatter.ReduceNone, scatter.ReduceAdd, scatter.ReduceMultiply}[g.pick(50, 25, 25)]
	case scatter.OpScatterReduce:
		reduce = oneOf(g, scatterReductions...)
		exclude = g.chance(50)
	}

	// The index: self's rank, within self apart from dim, any length
	// along dim (longer than self's size: duplicates).
	idx := make([]int, r)
	for k := range idx {
		switch {
		case k == d && long:
			idx[k] = g.intn(2, self[k]+2)
		case k == d && self[k] == 0:
			idx[k] = g.intn(0, 2)
		case k == d && g.chance(15):
			idx[k] = g.intn(self[k]+1, 2*self[k]+4)
		case k == d:
			idx[k] = g.intn(1, self[k])
		case g.chance(60):
			idx[k] = self[k]
		case long:
			idx[k] = g.intn(1, self[k])
		default:
			idx[k] = g.intn(0, self[k])
		}
	}
	switch {
	case long:
	case r == 0 && g.chance(50):
		idx = []int{g.intn(1, 3)}
	case r == 1 && g.chance(10):
		idx = []int{}
	}
	g.fit(idx, min(d, len(idx)-1))
	srcShape := slices.Clone(idx)
	for k := range srcShape {
		if g.chance(20) {
			srcShape[k] += g.intn(1, 2)
		}
	}
	if len(idx) == 0 && g.chance(30) {
		srcShape = []int{g.intn(1, 2)}
	}

	idxDT := g.indexDType(g.prof != scatter.Torch113)
	srcDT := dt
	bad := goodIndex
	var value *scatter.Scalar
	overflow := false
	bogusEmpty := !long && (!g.valid && g.chance(5) || g.valid && g.chance(3))
	if bogusEmpty {
		// An empty index skips every shape and dtype rule (but src's
		// dtype and dim): any rank, any sizes, even a float dtype.
		idx = g.shape(g.rank(0))
		if len(idx) == 0 {
			idx = []int{0}
		}
		idx[g.intn(0, len(idx)-1)] = 0
		if g.chance(50) {
			idxDT = g.badIndexDType()
		}
		srcShape = g.shape(g.rank(0))
	} else if g.corrupting() {
		switch g.pick(25, 15, 10, 10, 8, 8, 8, 6, 5, 5, 10) {
		case 0:
			bad = negIndex
		case 1:
			bad = bigIndex
		case 2:
			dim = g.badDim(r)
		case 3:
			idxDT = g.badIndexDType()
		case 4:
			srcDT = g.otherDType(op, dt)
		case 5: // the index's rank differs from self's
			if len(idx) > 1 && g.chance(50) {
				idx, srcShape = idx[1:], srcShape[1:]
			} else {
				idx, srcShape = append([]int{1}, idx...), append([]int{1}, srcShape...)
			}
		case 6: // larger than self in a dimension other than dim
			if k := otherDim(g, len(idx), d); k >= 0 && k < len(self) {
				idx[k] = self[k] + 1
				srcShape[k] = max(srcShape[k], idx[k])
			} else {
				bad = bigIndex
			}
		case 7: // larger than src
			if k := g.intn(0, max(len(idx), 1)-1); len(idx) > 0 && idx[k] > 0 {
				srcShape[k] = idx[k] - 1
			} else {
				bad = negIndex
			}
		case 8: // src of another rank
			if len(srcShape) > 1 && g.chance(50) {
				srcShape = srcShape[1:]
			} else {
				srcShape = append(srcShape, 1)
			}
		case 9:
			if op == scatter.OpScatter {
				reduce = oneOf(g, scatter.ReduceSum, scatter.ReduceMean, "bogus")
			} else if op == scatter.OpScatterReduce {
				reduce = oneOf(g, scatter.ReduceAdd, scatter.ReduceMultiply, "max")
			} else {
				bad = negIndex
			}
		case 10:
			overflow = true
		}
	}

	var spec valueSpec
	if g.valid && g.chance(50) || !g.valid && g.chance(30) {
		spec = exactSpec(dt, numel(srcShape)+1)
	} else {
		spec = g.valueSpec()
	}
	call := struct {
		self, index, src scatter.Tensor
	}{}
	call.self = g.tensor(dt, self, g.valueSpec(), anyLayout)
	call.index = g.indexTensor(idx, min(d, len(idx)-1), sizeAt(self, min(d, max(len(self)-1, 0))), idxDT, anyLayout, g.dupMode(), bad)
	if hasSrc {
		call.src = g.tensor(srcDT, srcShape, spec, anyLayout)
	} else {
		v := g.scalar(dt, overflow)
		value = &v
	}
	switch op {
	case scatter.OpScatter:
		return scatter.Scatter{Self: call.self, Dim: dim, Index: call.index, Src: call.src, Value: value, Reduce: reduce}
	case scatter.OpScatterAdd:
		return scatter.ScatterAdd{Self: call.self, Dim: dim, Index: call.index, Src: call.src}
	}
	return scatter.ScatterReduce{Self: call.self, Dim: dim, Index: call.index, Src: call.src, Reduce: reduce, ExcludeSelf: exclude}
}

// otherDim returns a dimension of an n-d tensor other than d, or -1.
func otherDim(g *gen, n, d int) int {
	if n < 2 {
		return -1
	}
	k := g.intn(0, n-2)
	if k >= d {
		k++
	}
	return k
}

// scalar draws a Python scalar for a tensor of dtype dt: ints, floats with
// a fractional part (which an integer dtype truncates toward zero), bools,
// special floats for float dtypes; with overflow, one the dtype cannot
// hold.
func (g *gen) scalar(dt scatter.DType, overflow bool) scatter.Scalar {
	lo, hi := intRange(dt)
	if overflow && dt != scatter.DTBool && dt != scatter.DTFloat64 {
		switch {
		case dt.IsInt():
			switch g.pick(40, 30, 20, 10) {
			case 0:
				return scatter.Int(hi + 1 + int64(g.intn(0, 100)))
			case 1:
				if dt == scatter.DTUint8 {
					return scatter.Int(-256 - int64(g.intn(0, 100)))
				}
				return scatter.Int(lo - 1 - int64(g.intn(0, 100)))
			case 2:
				return scatter.Float(float64(hi) * 4)
			}
			return scatter.Float(math.NaN())
		case dt == scatter.DTFloat16:
			return scatter.Float(oneOf(g, 70000.0, -1e6, 65520.0))
		default:
			return scatter.Float(oneOf(g, 1e39, -3.5e38, 1e300))
		}
	}
	switch {
	case dt == scatter.DTBool:
		switch g.pick(50, 30, 20) {
		case 0:
			return scatter.Bool(g.chance(50))
		case 1:
			return scatter.Int(int64(g.intn(-2, 2)))
		}
		return scatter.Float(oneOf(g, 0.0, 2.5, math.NaN(), -0.5))
	case dt.IsInt():
		switch g.pick(35, 40, 10, 15) {
		case 0:
			v := int64(g.intn(-8, 8))
			if dt == scatter.DTUint8 {
				v = max(v, -v)
			}
			return scatter.Int(v)
		case 1:
			// a fractional part of .5 and more, where rounding and truncation differ
			whole := float64(g.intn(-6, 6))
			frac := oneOf(g, 0.5, 0.7, 0.25, 0.9)
			v := whole + frac
			if g.chance(50) {
				v = whole - frac
			}
			if dt == scatter.DTUint8 {
				v = math.Abs(v)
			}
			return scatter.Float(v)
		case 2:
			return scatter.Bool(g.chance(50))
		}
		return scatter.Int(oneOf(g, lo, hi, hi-1, lo+1))
	}
	switch g.pick(30, 40, 10, 20) {
	case 0:
		return scatter.Int(int64(g.intn(-8, 8)))
	case 1:
		return scatter.Float(float64(g.intn(-40, 40)) / 8)
	case 2:
		return scatter.Bool(g.chance(50))
	}
	f := factsOf(dt)
	return scatter.Float(oneOf(g, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), f.minSub, f.max, -f.max, 1e-3))
}

// ---- index_reduce ----

var indexReductions = []scatter.Reduce{scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin}

// indexReduceCall draws an index_reduce call: a vector index (or 0-d) of
// int32 or int64, a source whose size along dim is the index's length, its
// slices the shape of self's or broadcasting to it.
func (g *gen) indexReduceCall() scatter.Call {
	op := scatter.OpIndexReduce
	dt := g.dtype(op, nil)
	long, full := g.want.longIndex, g.want.fullSource
	r := g.rank(0)
	if long && r == 0 {
		r = 1
	}
	self := g.shape(r)
	if long {
		for k := range self {
			self[k] = max(self[k], 1)
		}
	}
	n := max(r, 1)
	d := g.intn(0, n-1)
	dim := g.dimArg(d, r)
	size := sizeAt(self, d)
	L := g.intn(0, size+2)
	switch {
	case long:
		L = g.intn(2, size+3)
	case g.chance(10):
		L = g.intn(size+1, 2*size+4)
	}
	idx := []int{L}
	if L == 1 && !full && g.chance(15) {
		idx = []int{}
	}
	var source []int
	if r <= 1 {
		source = []int{L}
		if L == 1 && !full && g.chance(20) {
			source = []int{}
		}
	} else {
		source = slices.Clone(self)
		source[d] = L
		if !full && g.chance(15) {
			if k := otherDim(g, r, d); k >= 0 {
				source[k] = 1 // a slice that broadcasts
			}
		}
	}
	g.fit(source, d)
	idxDT := oneOf(g, scatter.DTInt64, scatter.DTInt32)
	srcDT := dt
	reduce := oneOf(g, indexReductions...)
	exclude := g.chance(50)
	bad := goodIndex
	if g.corrupting() {
		switch g.pick(25, 15, 10, 8, 10, 8, 10, 6, 8) {
		case 0:
			bad = negIndex
		case 1:
			bad = bigIndex
		case 2:
			dim = g.badDim(r)
		case 3:
			idx = []int{L, 1}
		case 4:
			idxDT = oneOf(g, scatter.DTInt16, scatter.DTFloat32, scatter.DTUint8)
		case 5:
			srcDT = g.otherDType(op, dt)
		case 6:
			if len(source) > 0 {
				source[min(d, len(source)-1)]++
			} else {
				idx = []int{2}
			}
		case 7:
			reduce = oneOf(g, scatter.ReduceSum, "add", scatter.ReduceMin)
		case 8:
			if k := otherDim(g, len(source), d); k >= 0 {
				source[k] = self[k] + 2
			} else {
				bad = negIndex
			}
		}
	}
	spec := g.valueSpec()
	if g.valid && g.chance(40) {
		spec = exactSpec(dt, numel(source)+1)
	}
	fd := 0
	if len(idx) != 1 {
		fd = -1
	}
	return scatter.IndexReduce{
		Self:        g.tensor(dt, self, g.valueSpec(), anyLayout),
		Dim:         dim,
		Index:       g.indexTensor(idx, fd, size, idxDT, anyLayout, g.dupMode(), bad),
		Source:      g.tensor(srcDT, source, spec, anyLayout),
		Reduce:      reduce,
		ExcludeSelf: exclude,
	}
}

// ---- gather ----

// gatherCall draws a gather call: an index of input's rank, within input
// apart from dim, any length along dim.
func (g *gen) gatherCall() scatter.Call {
	op := scatter.OpGather
	dt := g.dtype(op, nil)
	r := g.rank(0)
	in := g.shape(r)
	n := max(r, 1)
	d := g.intn(0, n-1)
	dim := g.dimArg(d, r)
	idx := make([]int, r)
	for k := range idx {
		switch {
		case k == d:
			idx[k] = g.intn(1, in[k]+3)
		case g.chance(60):
			idx[k] = in[k]
		default:
			idx[k] = g.intn(0, in[k])
		}
	}
	if r == 1 && g.chance(10) {
		idx = []int{}
	}
	g.fit(idx, min(d, len(idx)-1))
	idxDT := g.indexDType(g.prof != scatter.Torch113)
	bad := goodIndex
	if !g.valid && g.chance(5) || g.valid && g.chance(3) {
		// an empty index returns an empty result with no check but dim's
		idx = g.shape(g.rank(1))
		idx[g.intn(0, len(idx)-1)] = 0
		if g.chance(50) {
			idxDT = g.badIndexDType()
		}
	} else if g.corrupting() {
		switch g.pick(25, 15, 10, 10, 10, 10) {
		case 0:
			bad = negIndex
		case 1:
			bad = bigIndex
		case 2:
			dim = g.badDim(r)
		case 3:
			idxDT = g.badIndexDType()
		case 4:
			if len(idx) > 1 && g.chance(50) {
				idx = idx[1:]
			} else {
				idx = append([]int{1}, idx...)
			}
		case 5:
			if k := otherDim(g, len(idx), d); k >= 0 && k < len(in) {
				idx[k] = in[k] + 1
			} else {
				bad = bigIndex
			}
		}
	}
	return scatter.Gather{
		Input: g.tensor(dt, in, g.valueSpec(), anyLayout),
		Dim:   dim,
		Index: g.indexTensor(idx, min(d, len(idx)-1), sizeAt(in, min(d, max(len(in)-1, 0))), idxDT, anyLayout, g.dupMode(), bad),
	}
}

// ---- torch_scatter ----

// tsReductions are torch_scatter 2.x scatter's reductions, "" (sum) first.
var tsReductions = []scatter.Reduce{scatter.ReduceNone, scatter.ReduceSum, scatter.ReduceAdd, scatter.ReduceMean,
	scatter.ReduceMul, scatter.ReduceMin, scatter.ReduceMax}

// tsIndexForm is how a torch_scatter index relates to src's shape.
type tsIndexForm uint8

const (
	tsVector  tsIndexForm = iota // 1-d along dim
	tsFull                       // src's shape
	tsLeading                    // src's leading dims, size-1 dims broadcasting
)

// tsIndexShape returns an index shape of the given form for src shape S
// and dim d, and the index's own dimension that runs along d (-1: none).
func (g *gen) tsIndexShape(form tsIndexForm, S []int, d int) ([]int, int) {
	switch form {
	case tsVector:
		return []int{S[d]}, 0
	case tsFull:
		return slices.Clone(S), d
	}
	k := g.intn(1, len(S))
	I := slices.Clone(S[:k])
	for j := range I {
		if j != d && g.chance(30) {
			I[j] = 1
		}
	}
	if d < k {
		return I, d
	}
	return I, -1
}

// torchScatterCall draws a torch_scatter 2.x scatter call.
func (g *gen) torchScatterCall() scatter.Call {
	op := scatter.OpTorchScatter
	dt := g.dtype(op, nil)
	reduce := tsReductions[g.pick(15, 15, 5, 15, 15, 18, 17)]
	r := g.rank(1)
	if g.want.vector && r == 1 {
		r = 2
	}
	S := g.shape(r)
	d := g.intn(0, r-1)
	var dim *int
	if d != r-1 || g.chance(70) {
		dim = scatter.Ptr(g.dimArg(d, r))
	}
	form := tsIndexForm(g.pick(50, 30, 20))
	if g.want.vector {
		form = tsVector
	}
	I, fd := g.tsIndexShape(form, S, d)
	N := g.intn(1, 5)
	var dimSize *int
	hasOut := g.chance(20)
	if !hasOut && g.chance(40) {
		dimSize = scatter.Ptr(N)
	}
	idxDT := scatter.DTInt64
	if g.chance(15) {
		idxDT = scatter.DTInt32
	}
	outDT := dt
	bad := goodIndex
	srcShape := S
	outBad := false
	if g.corrupting() {
		switch g.pick(25, 15, 10, 15, 10, 8, 7, 5, 5) {
		case 0:
			bad = negIndex
		case 1:
			bad = bigIndex
			if !hasOut {
				dimSize = scatter.Ptr(N)
			}
		case 2:
			dim = scatter.Ptr(g.badDim(r))
		case 3: // an index that does not broadcast to src
			if form == tsVector {
				I = []int{S[d] + g.intn(1, 2)}
			} else {
				I[g.intn(0, len(I)-1)] += 2
			}
		case 4:
			hasOut, outBad = true, true
		case 5:
			hasOut = true
			outDT = g.otherDType(op, dt)
		case 6:
			reduce = oneOf(g, scatter.ReduceProd, scatter.ReduceAmax, "bogus")
		case 7:
			dimSize = scatter.Ptr(-g.intn(1, 3))
			hasOut = false
		case 8:
			srcShape = []int{}
			dim = scatter.Ptr(0)
			I = []int{}
		}
	}
	var out scatter.Tensor
	if hasOut {
		os := slices.Clone(srcShape)
		if len(os) > 0 {
			os[d] = N
			if outBad {
				k := g.intn(0, len(os)-1)
				if k != d && os[k] > 0 {
					os[k]--
				} else {
					os = append(os, 1)
				}
			}
		}
		out = g.tensor(outDT, os, g.valueSpec(), anyLayout)
	}
	spec := g.valueSpec()
	if g.valid && g.chance(40) {
		spec = exactSpec(dt, numel(srcShape)+1)
	}
	return scatter.TorchScatter{
		Src:     g.tensor(dt, srcShape, spec, anyLayout),
		Index:   g.indexTensor(I, fd, N, idxDT, anyLayout, g.dupMode(), bad),
		Dim:     dim,
		Out:     out,
		DimSize: dimSize,
		Reduce:  reduce,
	}
}

// torchScatterAddCall draws a torch_scatter 1.x scatter_add call (with
// fill_value): a 1-d index of src.size(dim) elements, or an index of src's
// rank whose size-1 dims broadcast either way.
func (g *gen) torchScatterAddCall() scatter.Call {
	op := scatter.OpTorchScatterAdd
	dt := g.dtype(op, nil)
	r := g.rank(1)
	if r > 3 {
		r = 3
	}
	if g.want.vector && r == 1 {
		r = 2
	}
	S := g.shape(r)
	d := g.intn(0, r-1)
	var dim *int
	if d != r-1 || g.chance(70) {
		dim = scatter.Ptr(g.dimArg(d, r))
	}
	var I []int
	fd := d
	form := g.pick(45, 35, 20)
	if g.want.vector {
		form = 0
	}
	switch form {
	case 0:
		I, fd = []int{S[d]}, 0
	case 1:
		I = slices.Clone(S)
	default:
		I = slices.Clone(S)
		for j := range I {
			switch {
			case S[j] == 1 && g.chance(30):
				I[j] = g.intn(2, 3) // src broadcasts
			case j != d && g.chance(30):
				I[j] = 1 // the index broadcasts
			}
		}
	}
	N := g.intn(1, 5)
	var dimSize *int
	hasOut := g.chance(15)
	if !hasOut && g.chance(30) {
		dimSize = scatter.Ptr(N)
	}
	var fill scatter.Scalar
	if g.chance(50) {
		fill = g.fillValue(dt)
	}
	bad := goodIndex
	srcShape := S
	outDT := dt
	if g.corrupting() {
		switch g.pick(25, 15, 10, 10, 15, 10, 5, 5, 5) {
		case 0:
			bad = negIndex
		case 1:
			bad = bigIndex
			if !hasOut {
				dimSize = scatter.Ptr(N)
			}
		case 2:
			dim = scatter.Ptr(g.badDim(r))
		case 3:
			if len(I) > 1 {
				I = append(I, 1)
			} else {
				I = []int{I[0], 2}
			}
		case 4:
			if len(I) == 1 {
				I = []int{S[d] + 1}
			} else {
				I[g.intn(0, len(I)-1)] += 2
			}
		case 5:
			fill = g.scalar(dt, true)
			hasOut = false
		case 6:
			dimSize = scatter.Ptr(-g.intn(1, 3))
			hasOut = false
		case 7:
			srcShape, I, dim = []int{}, []int{1}, scatter.Ptr(0)
		case 8:
			hasOut = true
			outDT = g.otherDType(op, dt)
		}
	}
	if len(I) == 1 && len(srcShape) > 0 && srcShape[min(d, len(srcShape)-1)] > 0 && I[0] == 0 {
		I[0] = 1 // an empty 1-d index reads uninitialised memory: not generated
	}
	var out scatter.Tensor
	if hasOut && len(srcShape) > 0 {
		os := slices.Clone(srcShape)
		if len(I) == len(os) {
			for j := range os {
				os[j] = max(os[j], I[j])
			}
		}
		os[d] = N
		out = g.tensor(outDT, os, g.valueSpec(), anyLayout)
	}
	spec := g.valueSpec()
	if g.valid && g.chance(40) {
		spec = exactSpec(dt, numel(srcShape)+1)
	}
	return scatter.TorchScatterAdd{
		Src:       g.tensor(dt, srcShape, spec, anyLayout),
		Index:     g.indexTensor(I, min(fd, len(I)-1), N, scatter.DTInt64, anyLayout, g.dupMode(), bad),
		Dim:       dim,
		Out:       out,
		DimSize:   dimSize,
		FillValue: fill,
	}
}

// fillValue draws a fill_value for dtype dt (in range).
func (g *gen) fillValue(dt scatter.DType) scatter.Scalar {
	if dt.IsFloat() && g.chance(30) {
		return scatter.Float(oneOf(g, -2.5, math.NaN(), math.Inf(-1), 0.375, math.Copysign(0, -1)))
	}
	if dt == scatter.DTUint8 {
		return scatter.Int(int64(g.intn(1, 9)))
	}
	if dt == scatter.DTBool {
		return scatter.Bool(true)
	}
	return scatter.Int(int64(oneOf(g, -3, 7, -1, 100)))
}

// ---- the F# Tensor library ----

// fsIndexShape returns a shape that broadcasts (NumPy rules) to shape:
// shape itself, size-1 dims, or a suffix.
func (g *gen) fsIndexShape(shape []int) []int {
	switch g.pick(60, 20, 20) {
	case 1:
		s := slices.Clone(shape)
		for j := range s {
			if g.chance(40) {
				s[j] = 1
			}
		}
		return s
	case 2:
		if len(shape) > 0 {
			return slices.Clone(shape[g.intn(1, len(shape)):])
		}
	}
	return slices.Clone(shape)
}

// tensorScatterCall draws an F# Tensor.scatter call: one index per target
// dimension (None for a positional one), broadcasting to src's shape.
func (g *gen) tensorScatterCall() scatter.Call {
	op := scatter.OpTensorScatter
	dt := g.dtype(op, func(d scatter.DType) bool { return d != scatter.DTBool })
	rs := []int{1, 2, 0, 3}[g.pick(35, 35, 10, 20)]
	S := g.shape(rs)
	R := rs
	if g.chance(30) {
		R++
	}
	T := make([]int, R)
	some := make([]bool, R)
	for k := range T {
		if k < rs && g.chance(40) {
			T[k] = S[k] + g.intn(0, 2)
		} else {
			some[k] = true
			T[k] = g.intn(1, 5)
		}
	}
	bad := goodIndex
	badAt := -1
	dropLast := false
	idxDT := scatter.DTInt64
	if g.corrupting() {
		switch g.pick(25, 15, 10, 10, 10, 10, 10, 10) {
		case 0:
			bad = negIndex
		case 1:
			bad = bigIndex
		case 2:
			if k := g.intn(0, max(rs, 1)-1); rs > 0 && S[k] > 0 {
				some[k], T[k] = false, S[k]-1
			} else {
				bad = negIndex
			}
		case 3:
			if R > rs {
				some[R-1] = false
			} else {
				T = append(T, 2)
				some = append(some, false)
			}
		case 4:
			if len(T) > 0 && g.chance(50) {
				dropLast = true // one index too few
			} else {
				badAt = -2 // one index too many
			}
		case 5:
			idxDT = scatter.DTInt32
		case 6:
			badAt = g.intn(0, max(R, 1)-1) // a shape that does not broadcast
		case 7:
			dt = scatter.DTBool
		}
	}
	indices := make([]scatter.Tensor, len(T))
	hasBad := bad != goodIndex
	for k := range indices {
		if !some[k] {
			continue
		}
		is := g.fsIndexShape(S)
		if k == badAt {
			is = append(slices.Clone(S), 2)
		}
		b := goodIndex
		if hasBad && g.chance(50) || hasBad && k == lastSome(some) {
			b, hasBad = bad, false
		}
		indices[k] = g.indexTensor(is, -1, T[k], idxDT, anyLayout, dup(g.pick(50, 0, 30, 20)), b)
	}
	switch {
	case badAt == -2:
		indices = append(indices, g.indexTensor([]int{1}, -1, 1, idxDT, plainLayout, dupRandom, goodIndex))
	case dropLast:
		indices = indices[:len(indices)-1]
	}
	spec := g.valueSpec()
	if g.valid && g.chance(40) {
		spec = exactSpec(dt, numel(S)+1)
	}
	return scatter.TensorScatter{Indices: indices, Shape: T, Src: g.tensor(dt, S, spec, anyLayout)}
}

// count returns how many of bs are true.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// lastSome returns the last k with some[k], or -1.
func lastSome(some []bool) int {
	for k := len(some) - 1; k >= 0; k-- {
		if some[k] {
			return k
		}
	}
	return -1
}

// tensorGatherCall draws an F# Tensor.gather call: one index per source
// dimension, at least one given; the target's shape is their common
// broadcast shape.
func (g *gen) tensorGatherCall() scatter.Call {
	op := scatter.OpTensorGather
	dt := g.dtype(op, nil)
	rs := g.rank(1)
	S := g.shape(rs)
	rt := rs
	if g.chance(40) {
		rt = g.intn(0, rs)
	}
	some := make([]bool, rs)
	for k := range some {
		some[k] = k >= rt || g.chance(50)
	}
	if !slices.Contains(some, true) {
		some[g.intn(0, rs-1)] = true
	}
	T := make([]int, rt)
	for k := range T {
		if some[k] {
			T[k] = g.intn(1, 4)
		} else {
			T[k] = g.intn(0, S[k])
		}
	}
	g.fit(T, -1)
	bad := goodIndex
	idxDT := scatter.DTInt64
	extra := false
	badShape := -1
	if g.corrupting() {
		switch g.pick(25, 15, 10, 10, 10, 10, 10) {
		case 0:
			bad = negIndex
		case 1:
			bad = bigIndex
		case 2:
			some = make([]bool, rs)
		case 3:
			extra = true
		case 4:
			idxDT = scatter.DTInt32
		case 5: // a second index whose shape does not broadcast with the first's
			badShape = slices.IndexFunc(T, func(x int) bool { return x != 1 })
			if badShape < 0 || count(some) < 2 {
				badShape, bad = -1, negIndex
			}
		case 6:
			if rt < rs && some[rs-1] {
				some[rs-1] = false
			} else {
				bad = bigIndex
			}
		}
	}
	indices := make([]scatter.Tensor, rs)
	first := true
	hasBad := bad != goodIndex
	for k := range indices {
		if !some[k] {
			continue
		}
		is := slices.Clone(T)
		if !first {
			is = g.fsIndexShape(T)
			if badShape >= 0 {
				is = slices.Clone(T)
				is[badShape] += 2
				badShape = -1
			}
		}
		first = false
		b := goodIndex
		if hasBad && (g.chance(50) || k == lastSome(some)) {
			b, hasBad = bad, false
		}
		indices[k] = g.indexTensor(is, -1, S[k], idxDT, anyLayout, dup(g.pick(50, 0, 30, 20)), b)
	}
	if extra {
		indices = append(indices, g.indexTensor(T, -1, 1, idxDT, plainLayout, dupRandom, goodIndex))
	}
	return scatter.TensorGather{Indices: indices, Src: g.tensor(dt, S, g.valueSpec(), anyLayout)}
}

// call draws a call of operation op.
func (g *gen) call(op scatter.Op) scatter.Call {
	switch op {
	case scatter.OpScatter, scatter.OpScatterAdd, scatter.OpScatterReduce:
		return g.dimScatterCall(op)
	case scatter.OpIndexReduce:
		return g.indexReduceCall()
	case scatter.OpGather:
		return g.gatherCall()
	case scatter.OpTorchScatterAdd:
		return g.torchScatterAddCall()
	case scatter.OpTorchScatter:
		return g.torchScatterCall()
	case scatter.OpTensorScatter:
		return g.tensorScatterCall()
	case scatter.OpTensorGather:
		return g.tensorGatherCall()
	}
	panic("properties: unknown op " + string(op))
}
