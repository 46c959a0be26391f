package callgen

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

// Dup is the density of duplicate index values.
type Dup uint8

const (
	DupDrawn  Dup = iota // drawn per index tensor (Options: the default)
	DupRandom            // uniform in [0, size)
	DupUnique            // distinct along each fiber where the size allows
	DupNarrow            // one or two values per tensor region: heavy duplication
	DupSame              // a single value everywhere
	DupSorted            // uniform, sorted along each fiber: segments, as a CSR or PyG index is
)

// Duplicates draws a duplicate density, from unique to all-same, or a
// sorted index (or returns Options.Duplicates when set).
func (g *Drawer) Duplicates() Dup { return g.dups(40, 25, 20, 15, 12) }

// crowdedDups draws the density of a crowded call's index (Want.Crowded):
// one or two values per region; Duplicates otherwise.
func (g *Drawer) crowdedDups(crowded bool) Dup {
	if crowded {
		return OneOf(g, DupSame, DupNarrow)
	}
	return g.Duplicates()
}

// dups draws a density from DupRandom on with the given weights, or
// returns Options.Duplicates when set.
func (g *Drawer) dups(weights ...int) Dup {
	if g.o.Duplicates != DupDrawn {
		return g.o.Duplicates
	}
	return DupRandom + Dup(g.pick(weights...))
}

// IndexTensor draws an index tensor of the given shape and dtype whose
// values address a dimension of size size (none out of range). fd is the
// index's own dimension along which values feed one output fiber (the one
// whose values DupUnique keeps distinct), -1 if none.
func (g *Drawer) IndexTensor(shape []int, fd, size int, dt scatter.DType, mode LayoutMode, dm Dup) scatter.Tensor {
	return g.indexTensor(shape, fd, size, dt, mode, dm, goodIndex)
}

// indexTensor draws an index tensor of the given shape and dtype whose
// values address a dimension of size size. fd is the index's own
// dimension along which values feed one output fiber (the one whose
// values DupUnique keeps distinct), -1 if none.
func (g *Drawer) indexTensor(shape []int, fd, size int, dt scatter.DType, mode LayoutMode, dm Dup, bad badIndex) scatter.Tensor {
	l := g.layout(shape, mode)
	if dm == DupUnique && fd >= 0 && fd < len(l.expand) {
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
		scatter.SetInt(data, i, v)
	}
	return materialize(data, shape, l)
}

// corruptIndex returns a negative or too large index value.
func corruptIndex(s source, bad badIndex, size int, dt scatter.DType) int64 {
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
func (g *Drawer) indexValues(bs []int, fd, size int, dm Dup) []int64 {
	n := scatter.Numel(bs)
	vals := make([]int64, n)
	if n == 0 || size <= 0 {
		return vals
	}
	s := g.seeded(n)
	switch dm {
	case DupSame:
		v := int64(s.uniform(size))
		for i := range vals {
			vals[i] = v
		}
	case DupNarrow:
		w := 1 + s.uniform(2)
		b := s.uniform(size)
		for i := range vals {
			vals[i] = int64((b + s.uniform(w)) % size)
		}
	case DupUnique:
		if fd < 0 || fd >= len(bs) {
			for i := range vals {
				vals[i] = int64(s.uniform(size))
			}
			break
		}
		eachFiber(bs, fd, func(at []int) {
			perm := distinct(s, size, len(at))
			for i, p := range at {
				vals[p] = int64(perm[i])
			}
		})
	case DupSorted:
		for i := range vals {
			vals[i] = int64(s.uniform(size))
		}
		if fd < 0 || fd >= len(bs) {
			slices.Sort(vals)
			break
		}
		fiber := make([]int64, bs[fd])
		eachFiber(bs, fd, func(at []int) {
			for i, p := range at {
				fiber[i] = vals[p]
			}
			slices.Sort(fiber)
			for i, p := range at {
				vals[p] = fiber[i]
			}
		})
	default:
		for i := range vals {
			vals[i] = int64(s.uniform(size))
		}
	}
	return vals
}

// eachFiber calls f once per fiber of a row-major tensor of shape bs along
// dimension fd, with the positions of its elements in order along fd.
func eachFiber(bs []int, fd int, f func(at []int)) {
	outer, fl, inner := scatter.Numel(bs[:fd]), bs[fd], scatter.Numel(bs[fd+1:])
	at := make([]int, fl)
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			for i := range at {
				at[i] = (o*fl+i)*inner + in
			}
			f(at)
		}
	}
}

// distinct returns k values in [0, size): distinct while k <= size, then
// repeating the same arrangement.
func distinct(s source, size, k int) []int {
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

// dimArg draws how a wrapped dim d of an n-d tensor is passed: as is, or
// negative.
func (g *Drawer) DimArg(d, n int) int {
	if g.Chance(30) {
		return d - max(n, 1)
	}
	return d
}

// badDim returns a dim outside [-n, n-1].
func (g *Drawer) badDim(n int) int {
	n = max(n, 1)
	if g.Chance(50) {
		return n + g.IntRange(0, 2)
	}
	return -n - 1 - g.IntRange(0, 2)
}

// faults returns how many faults this call gets: none in the calls that
// are not broken (all but Options.FaultPercent of them), else one, or two
// in secondFaultPercent of the broken ones. A second fault may break
// another rule (the strict level then judges the order in which PyTorch
// checks them: SEMANTICS.md §1.3) or the same one again.
func (g *Drawer) faults() int {
	switch {
	case g.o.Valid || !g.Chance(g.o.FaultPercent):
		return 0
	case g.Chance(secondFaultPercent):
		return 2
	}
	return 1
}

// secondFaultPercent is the share of the broken calls that get a second
// fault.
const secondFaultPercent = 25

// ---- scatter, scatter_add, scatter_reduce ----

// scatterReductions are scatter_reduce's reductions (a crowded call's
// first three).
var scatterReductions = []scatter.Reduce{scatter.ReduceSum, scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin}

// dimDraft is a scatter, scatter_add or scatter_reduce call being drawn:
// the steps of DimScatterCall fill it in order.
type dimDraft struct {
	op       scatter.Op
	dt       scatter.DType
	long     bool // Want.LongIndex or Want.Crowded
	crowded  bool // Want.Crowded
	self     []int
	d        int // the dim, wrapped
	dim      int // the dim as passed (maybe negative, maybe broken)
	hasSrc   bool
	reduce   scatter.Reduce
	exclude  bool
	idx      []int // the index's shape
	srcShape []int
	idxDT    scatter.DType
	srcDT    scatter.DType
	bad      badIndex
	overflow bool
}

// DimScatterCall draws a scatter, scatter_add or scatter_reduce call:
// self's shape and dim, the reduction, the index's and src's shapes, at
// most one fault, then the tensors.
func (g *Drawer) DimScatterCall(op scatter.Op) scatter.Call {
	return g.bounded(func() scatter.Call { return g.dimScatterCall(op) })
}

func (g *Drawer) dimScatterCall(op scatter.Op) scatter.Call {
	c := g.dimSelf(op)
	g.dimReduction(c)
	g.dimIndexShape(c)
	c.idxDT = g.IndexDType(g.o.Profile.Int32Index())
	c.srcDT = c.dt
	c.bad = goodIndex
	if !c.long && (!g.o.Valid && g.Chance(5) || g.o.Valid && g.Chance(3)) {
		g.dimBogusEmpty(c)
	} else {
		for range g.faults() {
			g.dimFault(c)
		}
	}
	return g.dimTensors(c)
}

// dimSelf draws the dtype, self's shape and the dim.
func (g *Drawer) dimSelf(op scatter.Op) *dimDraft {
	w := g.o.Want
	c := &dimDraft{op: op, dt: g.DType(op, nil), long: w.LongIndex || w.Crowded, crowded: w.Crowded}
	r := g.Rank(0)
	if c.long && r == 0 {
		r = 1
	}
	c.self = g.Shape(r)
	if c.long {
		for k := range c.self {
			c.self[k] = max(c.self[k], 1)
		}
	}
	n := max(len(c.self), 1)
	c.d = g.IntRange(0, n-1)
	c.dim = g.DimArg(c.d, len(c.self))
	return c
}

// dimReduction draws whether src is given (plain scatter may take a
// value instead), the reduction and include_self.
func (g *Drawer) dimReduction(c *dimDraft) {
	c.hasSrc = c.op != scatter.OpScatter || c.crowded || !g.Chance(30)
	switch {
	case c.crowded && c.op == scatter.OpScatter:
		c.reduce = OneOf(g, scatter.ReduceAdd, scatter.ReduceMultiply)
	case c.op == scatter.OpScatter:
		c.reduce = []scatter.Reduce{scatter.ReduceNone, scatter.ReduceAdd, scatter.ReduceMultiply}[g.pick(50, 25, 25)]
	case c.op == scatter.OpScatterReduce:
		reds := scatterReductions
		if c.crowded {
			reds = reds[:3] // sum, prod, mean
		}
		c.reduce = OneOf(g, reds...)
		if g.o.Valid && c.dt == scatter.DTBool && c.reduce == scatter.ReduceMean {
			// mean divides, and bool has no division
			reds = slices.DeleteFunc(slices.Clone(reds), func(r scatter.Reduce) bool { return r == scatter.ReduceMean })
			c.reduce = OneOf(g, reds...)
		}
		c.exclude = g.Chance(50)
	}
}

// dimIndexShape draws the index's shape: self's rank, within self apart
// from dim, any length along dim (longer than self's size: duplicates);
// and src's, at least the index's.
func (g *Drawer) dimIndexShape(c *dimDraft) {
	self, d, long := c.self, c.d, c.long
	idx := make([]int, len(c.self))
	for k := range idx {
		switch {
		case k == d && c.crowded:
			idx[k] = g.IntRange(3, self[k]+6)
		case k == d && long:
			idx[k] = g.IntRange(2, self[k]+2)
		case k == d && self[k] == 0:
			idx[k] = g.IntRange(0, 2)
		case k == d && g.Chance(15):
			idx[k] = g.IntRange(self[k]+1, 2*self[k]+4)
		case k == d:
			idx[k] = g.IntRange(1, self[k])
		case g.Chance(60):
			idx[k] = self[k]
		case long:
			idx[k] = g.IntRange(1, self[k])
		default:
			idx[k] = g.IntRange(0, self[k])
		}
	}
	if g.o.Valid && len(self) > 0 && self[d] == 0 {
		idx[d] = 0 // no index value is in range of an empty dim
	}
	switch {
	case long:
	case len(c.self) == 0 && g.Chance(50):
		idx = []int{g.IntRange(1, 3)}
	case len(c.self) == 1 && g.Chance(10):
		idx = []int{}
	}
	g.fit(idx, min(d, len(idx)-1))
	srcShape := slices.Clone(idx)
	for k := range srcShape {
		if g.Chance(20) {
			srcShape[k] += g.IntRange(1, 2)
		}
	}
	if len(idx) == 0 && g.Chance(30) {
		srcShape = []int{g.IntRange(1, 2)}
	}
	c.idx, c.srcShape = idx, srcShape
}

// dimBogusEmpty makes the index empty: an empty index skips every shape
// and dtype rule (but src's dtype and dim): any rank, any sizes, even a
// float dtype.
func (g *Drawer) dimBogusEmpty(c *dimDraft) {
	c.idx = g.Shape(g.Rank(0))
	if len(c.idx) == 0 {
		c.idx = []int{0}
	}
	c.idx[g.IntRange(0, len(c.idx)-1)] = 0
	if g.Chance(50) {
		c.idxDT = g.badIndexDType()
	}
	c.srcShape = g.Shape(g.Rank(0))
}

// dimFault breaks the call toward one error path.
func (g *Drawer) dimFault(c *dimDraft) {
	switch g.pick(25, 15, 10, 10, 8, 8, 8, 6, 5, 5, 10) {
	case 0:
		c.bad = negIndex
	case 1:
		c.bad = bigIndex
	case 2:
		c.dim = g.badDim(len(c.self))
	case 3:
		c.idxDT = g.badIndexDType()
	case 4:
		c.srcDT = g.otherDType(c.op, c.dt)
	case 5: // the index's rank differs from self's
		if len(c.idx) > 1 && len(c.srcShape) > 1 && g.Chance(50) {
			c.idx, c.srcShape = c.idx[1:], c.srcShape[1:]
		} else {
			c.idx, c.srcShape = append([]int{1}, c.idx...), append([]int{1}, c.srcShape...)
		}
	case 6: // larger than self in a dimension other than dim
		if k := otherDim(g, len(c.idx), c.d); k >= 0 && k < len(c.self) && k < len(c.srcShape) {
			c.idx[k] = c.self[k] + 1
			c.srcShape[k] = max(c.srcShape[k], c.idx[k])
		} else {
			c.bad = bigIndex
		}
	case 7: // larger than src
		if k := g.IntRange(0, max(len(c.idx), 1)-1); len(c.idx) > 0 && k < len(c.srcShape) && c.idx[k] > 0 {
			c.srcShape[k] = c.idx[k] - 1
		} else {
			c.bad = negIndex
		}
	case 8: // src of another rank
		if len(c.srcShape) > 1 && g.Chance(50) {
			c.srcShape = c.srcShape[1:]
		} else {
			c.srcShape = append(c.srcShape, 1)
		}
	case 9:
		if c.op == scatter.OpScatter {
			c.reduce = OneOf(g, scatter.ReduceSum, scatter.ReduceMean, "bogus", scatter.ReduceEmpty)
		} else if c.op == scatter.OpScatterReduce {
			c.reduce = OneOf(g, scatter.ReduceAdd, scatter.ReduceMultiply, "max", "min", scatter.ReduceEmpty)
		} else {
			c.bad = negIndex
		}
	case 10:
		c.overflow = true
	}
}

// dimTensors draws the tensors (or plain scatter's value) and returns the
// call.
func (g *Drawer) dimTensors(c *dimDraft) scatter.Call {
	var vals Values
	switch {
	case c.crowded:
		vals = RoundingValues()
	case g.o.Valid && g.Chance(50) || !g.o.Valid && g.Chance(30):
		vals = ExactValues(c.dt, scatter.Numel(c.srcShape)+1)
	default:
		vals = g.Values()
	}
	selfVals := vals
	if !c.crowded {
		selfVals = g.Values()
	}
	self := g.Tensor(c.dt, c.self, selfVals, AnyLayout)
	index := g.indexTensor(c.idx, min(c.d, len(c.idx)-1), scatter.SizeAt(c.self, min(c.d, max(len(c.self)-1, 0))), c.idxDT, AnyLayout, g.crowdedDups(c.crowded), c.bad)
	var src scatter.Tensor
	var value *scatter.Scalar
	if c.hasSrc {
		src = g.Tensor(c.srcDT, c.srcShape, vals, AnyLayout)
	} else {
		v := g.scalar(c.dt, c.overflow)
		value = &v
	}
	switch c.op {
	case scatter.OpScatter:
		return scatter.Scatter{Self: self, Dim: c.dim, Index: index, Src: src, Value: value, Reduce: c.reduce}
	case scatter.OpScatterAdd:
		return scatter.ScatterAdd{Self: self, Dim: c.dim, Index: index, Src: src}
	}
	return scatter.ScatterReduce{Self: self, Dim: c.dim, Index: index, Src: src, Reduce: c.reduce, ExcludeSelf: c.exclude}
}

// otherDim returns a dimension of an n-d tensor other than d, or -1.
func otherDim(g *Drawer, n, d int) int {
	if n < 2 {
		return -1
	}
	k := g.IntRange(0, n-2)
	if k >= d {
		k++
	}
	return k
}

// scalar draws a Python scalar for a tensor of dtype dt: ints, floats with
// a fractional part (which an integer dtype truncates toward zero), bools,
// special floats for float dtypes; with overflow, one the dtype cannot
// hold.
func (g *Drawer) scalar(dt scatter.DType, overflow bool) scatter.Scalar {
	lo, hi := dt.IntRange()
	if overflow && dt != scatter.DTBool && dt != scatter.DTFloat64 {
		switch {
		case dt.IsInt():
			switch g.pick(30, 25, 15, 20, 10) {
			case 0:
				return scatter.Int(hi + 1 + int64(g.IntRange(0, 100)))
			case 1:
				if dt == scatter.DTUint8 {
					return scatter.Int(-256 - int64(g.IntRange(0, 100)))
				}
				return scatter.Int(lo - 1 - int64(g.IntRange(0, 100)))
			case 2:
				return scatter.Float(float64(hi) * 4)
			case 3:
				// just outside the range, where a check after truncation
				// toward zero passes: lowest - 0.5 (uint8: -0.5), max + 1
				return scatter.Float(OneOf(g, float64(lo)-0.5, float64(hi)+1))
			}
			return scatter.Float(math.NaN())
		}
		// Past the dtype's max by less than half an ulp, where a check of
		// the rounded value passes (c10 checks the double), or a Python int
		// into float16.
		switch dt {
		case scatter.DTFloat16:
			if g.Chance(30) {
				return scatter.Int(OneOf(g, int64(100000), int64(-70000), int64(65520)))
			}
			return scatter.Float(OneOf(g, 70000.0, -1e6, 65520.0, 65510.0, -65510.0))
		case scatter.DTBFloat16:
			return scatter.Float(OneOf(g, 1e39, -3.5e38, 1e300, 3.39e38, -3.39e38))
		default:
			return scatter.Float(OneOf(g, 1e39, -3.5e38, 1e300, 3.4028235e38, -3.4028235e38))
		}
	}
	switch {
	case dt == scatter.DTBool:
		switch g.pick(50, 30, 20) {
		case 0:
			return scatter.Bool(g.Chance(50))
		case 1:
			return scatter.Int(int64(g.IntRange(-2, 2)))
		}
		return scatter.Float(OneOf(g, 0.0, 2.5, math.NaN(), -0.5))
	case dt.IsInt():
		switch g.pick(35, 40, 10, 15) {
		case 0:
			v := int64(g.IntRange(-8, 8))
			if dt == scatter.DTUint8 {
				v = max(v, -v)
			}
			return scatter.Int(v)
		case 1:
			// a fractional part of .5 and more, where rounding and truncation differ
			whole := float64(g.IntRange(-6, 6))
			frac := OneOf(g, 0.5, 0.7, 0.25, 0.9)
			v := whole + frac
			if g.Chance(50) {
				v = whole - frac
			}
			if dt == scatter.DTUint8 {
				v = math.Abs(v)
			}
			return scatter.Float(v)
		case 2:
			return scatter.Bool(g.Chance(50))
		}
		return scatter.Int(OneOf(g, lo, hi, hi-1, lo+1))
	}
	switch g.pick(30, 40, 10, 20) {
	case 0:
		return scatter.Int(int64(g.IntRange(-8, 8)))
	case 1:
		return scatter.Float(float64(g.IntRange(-40, 40)) / 8)
	case 2:
		return scatter.Bool(g.Chance(50))
	}
	f := scatter.FactsOf(dt)
	return scatter.Float(OneOf(g, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), f.MinSub, f.Max, -f.Max, 1e-3))
}

// ---- index_reduce ----

var indexReductions = []scatter.Reduce{scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin}

// indexReduceCall draws an index_reduce call: a vector index (or 0-d) of
// int32 or int64, a source whose size along dim is the index's length, its
// slices the shape of self's or broadcasting to it.
func (g *Drawer) IndexReduceCall() scatter.Call {
	return g.bounded(g.indexReduceCall)
}

func (g *Drawer) indexReduceCall() scatter.Call {
	op := scatter.OpIndexReduce
	dt := g.DType(op, nil)
	// bool goes only through the multi-dim path with include_self, and
	// has no division: a valid bool call is of rank 2 or more, include
	// self, and reduce by prod, amax or amin
	validBool := g.o.Valid && dt == scatter.DTBool
	crowded := g.o.Want.Crowded
	long, full := g.o.Want.LongIndex || crowded, g.o.Want.FullSource || crowded
	r := g.Rank(0)
	if long && r == 0 {
		r = 1
	}
	if validBool && r < 2 {
		r = 2
	}
	self := g.Shape(r)
	if long {
		for k := range self {
			self[k] = max(self[k], 1)
		}
	}
	n := max(r, 1)
	d := g.IntRange(0, n-1)
	dim := g.DimArg(d, r)
	size := scatter.SizeAt(self, d)
	L := g.IntRange(0, size+2)
	switch {
	case crowded:
		L = g.IntRange(3, size+6)
	case long:
		L = g.IntRange(2, size+3)
	case g.Chance(10):
		L = g.IntRange(size+1, 2*size+4)
	}
	if g.o.Valid && size == 0 {
		L = 0 // no index value is in range of an empty dim
	}
	// a valid call under a profile that demands source's exact shape: a
	// 0-d self takes one index entry and a 0-d source, a 1-d self no 0-d
	// source, and no source slice broadcasts
	exact := g.o.Valid && g.o.Profile.IndexReduceExactShape()
	if exact && r == 0 {
		L = 1
	}
	idx := []int{L}
	if L == 1 && !full && g.Chance(15) {
		idx = []int{}
	}
	var source []int
	if r <= 1 {
		source = []int{L}
		if exact {
			if r == 0 {
				source = []int{}
			}
		} else if L == 1 && !full && g.Chance(20) {
			source = []int{}
		}
	} else {
		source = slices.Clone(self)
		source[d] = L
		if !full && !exact && g.Chance(15) {
			if k := otherDim(g, r, d); k >= 0 {
				source[k] = 1 // a slice that broadcasts
			}
		}
	}
	g.fit(source, d)
	if (full || exact) && r >= 2 {
		// what fit took off source's other dimensions, self loses too
		for k := range self {
			if k != d {
				self[k] = source[k]
			}
		}
	}
	idxDT := OneOf(g, scatter.DTInt64, scatter.DTInt32)
	srcDT := dt
	var reduce scatter.Reduce
	if crowded {
		reduce = OneOf(g, scatter.ReduceProd, scatter.ReduceMean)
	} else {
		reduce = OneOf(g, indexReductions...)
	}
	exclude := g.Chance(50)
	if validBool {
		if reduce == scatter.ReduceMean {
			reduce = OneOf(g, scatter.ReduceProd, scatter.ReduceAmax, scatter.ReduceAmin)
		}
		exclude = false
	}
	bad := goodIndex
	for range g.faults() {
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
			idxDT = OneOf(g, scatter.DTInt16, scatter.DTFloat32, scatter.DTUint8)
		case 5:
			srcDT = g.otherDType(op, dt)
		case 6:
			if len(source) > 0 {
				source[min(d, len(source)-1)]++
			} else {
				idx = []int{2}
			}
		case 7:
			reduce = OneOf(g, scatter.ReduceSum, "add", scatter.ReduceMin)
		case 8:
			if k := otherDim(g, len(source), d); k >= 0 {
				source[k] = self[k] + 2
			} else {
				bad = negIndex
			}
		}
	}
	spec, selfSpec := RoundingValues(), RoundingValues()
	if !crowded {
		spec = g.Values()
		if g.o.Valid && g.Chance(40) {
			spec = ExactValues(dt, scatter.Numel(source)+1)
		}
		selfSpec = g.Values()
	}
	fd := 0
	if len(idx) != 1 {
		fd = -1
	}
	return scatter.IndexReduce{
		Self:        g.Tensor(dt, self, selfSpec, AnyLayout),
		Dim:         dim,
		Index:       g.indexTensor(idx, fd, size, idxDT, AnyLayout, g.crowdedDups(crowded), bad),
		Source:      g.Tensor(srcDT, source, spec, AnyLayout),
		Reduce:      reduce,
		ExcludeSelf: exclude,
	}
}

// ---- gather ----

// gatherCall draws a gather call: an index of input's rank, within input
// apart from dim, any length along dim.
func (g *Drawer) gatherCall() scatter.Call {
	op := scatter.OpGather
	dt := g.DType(op, nil)
	r := g.Rank(0)
	in := g.Shape(r)
	n := max(r, 1)
	d := g.IntRange(0, n-1)
	dim := g.DimArg(d, r)
	idx := make([]int, r)
	for k := range idx {
		switch {
		case k == d:
			idx[k] = g.IntRange(1, in[k]+3)
		case g.Chance(60):
			idx[k] = in[k]
		default:
			idx[k] = g.IntRange(0, in[k])
		}
	}
	if g.o.Valid && r > 0 && in[d] == 0 {
		idx[d] = 0 // no index value is in range of an empty dim
	}
	if r == 1 && g.Chance(10) {
		idx = []int{}
	}
	g.fit(idx, min(d, len(idx)-1))
	idxDT := g.IndexDType(g.o.Profile.Int32Index())
	bad := goodIndex
	if !g.o.Valid && g.Chance(5) || g.o.Valid && g.Chance(3) {
		// an empty index returns an empty result with no check but dim's
		idx = g.Shape(g.Rank(1))
		idx[g.IntRange(0, len(idx)-1)] = 0
		if g.Chance(50) {
			idxDT = g.badIndexDType()
		}
	} else {
		for range g.faults() {
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
				if len(idx) > 1 && g.Chance(50) {
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
	}
	return scatter.Gather{
		Input: g.Tensor(dt, in, g.Values(), AnyLayout),
		Dim:   dim,
		Index: g.indexTensor(idx, min(d, len(idx)-1), scatter.SizeAt(in, min(d, max(len(in)-1, 0))), idxDT, AnyLayout, g.Duplicates(), bad),
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
// A leading index may set S's trailing dims to its own shape.
func (g *Drawer) tsIndexShape(form tsIndexForm, S []int, d int, valid bool, stretch int) ([]int, int) {
	switch form {
	case tsVector:
		return []int{S[d]}, 0
	case tsFull:
		return slices.Clone(S), d
	}
	k := g.IntRange(1, len(S))
	if valid && k == 1 && d != 0 {
		// torch_scatter reads a 1-d index along dim (tsVector): a valid
		// one has one element (it broadcasts) or another dim
		if g.Chance(50) {
			return []int{1}, 0
		}
		k = 2
	}
	I := slices.Clone(S[:k])
	for j := range I {
		if j != d && g.Chance(30) {
			I[j] = 1
		}
	}
	if d < k && g.Chance(stretch) {
		// stretched along dim: every src element of a line goes to one
		// target, and scatter_mean's count, taken from the index as
		// given, is not the number of contributions
		I[d] = 1
	}
	if k >= 2 && k < len(S) && g.Chance(25) {
		// src's trailing dims the index's shape too (S changes), where
		// NumPy's broadcasting would line the index up instead; kept
		// only where it still lines up with the leading ones
		old := slices.Clone(S)
		copy(S[len(S)-k:], I)
		ok := S[d] == old[d]
		for j := range I {
			ok = ok && (I[j] == S[j] || I[j] == 1 && j != d)
		}
		if !ok {
			copy(S, old)
		}
	}
	if d < k {
		return I, d
	}
	return I, -1
}

// tsCountStretches reports whether scatter_mean's count, built over an
// index of shape I and broadcast to out as torch_scatter does, stretches
// along out's dimension k (k != d): a 1-d count lands on d, a k-d one on
// out's leading dimensions, where its size is I[k] except along the
// dimension it was counted on (d, or I's last where I has d or fewer
// dimensions), whose size is out's along d.
func tsCountStretches(I []int, d, k int) bool {
	switch {
	case len(I) <= 1 || k >= len(I):
		return true
	case len(I) <= d && k == len(I)-1:
		return false
	}
	return I[k] == 1
}

// torchScatterCall draws a torch_scatter 2.x scatter call.
func (g *Drawer) torchScatterCall() scatter.Call {
	op := scatter.OpTorchScatter
	dt := g.DType(op, nil)
	crowded := g.o.Want.Crowded
	var reduce scatter.Reduce
	if crowded {
		reduce = OneOf(g, scatter.ReduceSum, scatter.ReduceMean, scatter.ReduceMul)
	} else {
		reduce = tsReductions[g.pick(15, 15, 5, 15, 15, 18, 17)]
	}
	sums := reduce == scatter.ReduceNone || reduce == scatter.ReduceSum || reduce == scatter.ReduceAdd
	if g.o.Valid && dt == scatter.DTBool && !sums {
		// mul, min and max run torch_scatter's own kernel, which has no
		// bool, and mean divides
		reduce = OneOf(g, scatter.ReduceNone, scatter.ReduceSum, scatter.ReduceAdd)
		sums = true
	}
	r := g.Rank(1)
	if g.o.Want.Vector && r == 1 {
		r = 2
	}
	S := g.Shape(r)
	d := g.IntRange(0, r-1)
	if crowded {
		for k := range S {
			S[k] = max(S[k], 1)
		}
		S[d] = g.IntRange(3, 12) // three or more contributions along dim
		g.fit(S, d)
	}
	var dim *int
	if d != r-1 || g.Chance(70) {
		dim = scatter.Ptr(g.DimArg(d, r))
	}
	// a mean's count is taken from the index as given: a leading index
	// stretched along dim (or of rank at most dim) and an out larger
	// than src show it, so a mean draws them more often
	mean := reduce == scatter.ReduceMean
	form, stretch, larger := tsIndexForm(g.pick(50, 30, 20)), 15, 20
	if mean {
		form, stretch, larger = tsIndexForm(g.pick(30, 25, 45)), 40, 50
	}
	switch {
	case g.o.Want.Vector:
		form = tsVector
	case crowded && form == tsLeading:
		form = tsFull // (a 1-d leading index would be read along dim)
	}
	I, fd := g.tsIndexShape(form, S, d, g.o.Valid, stretch)
	N := g.IntRange(1, 5)
	var dimSize *int
	hasOut := g.Chance(20)
	if !hasOut && g.Chance(40) {
		dimSize = scatter.Ptr(N)
	}
	idxDT := scatter.DTInt64
	if !crowded && g.Chance(15) && (!g.o.Valid || g.o.Profile.Int32Index() && (sums || reduce == scatter.ReduceMean)) {
		// torch_scatter's sums and means go through scatter_add_, which
		// takes int32 where the profile does; its own kernel (mul, min,
		// max) reads the index as int64
		idxDT = scatter.DTInt32
	}
	outDT := dt
	bad := goodIndex
	srcShape := S
	outBad := false
	for range g.faults() {
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
			if form == tsVector || len(I) == 0 {
				I = []int{S[d] + g.IntRange(1, 2)}
			} else {
				I[g.IntRange(0, len(I)-1)] += 2
			}
		case 4:
			hasOut, outBad = true, true
		case 5:
			hasOut = true
			outDT = g.otherDType(op, dt)
		case 6:
			reduce = OneOf(g, scatter.ReduceProd, scatter.ReduceAmax, "bogus", scatter.ReduceEmpty)
		case 7:
			dimSize = scatter.Ptr(-g.IntRange(1, 3))
			hasOut = false
		case 8:
			srcShape = []int{}
			dim = scatter.Ptr(0)
			I = []int{}
		}
	}
	if hasOut && g.Chance(25) {
		dimSize = scatter.Ptr(g.ignoredDimSize(N)) // (ignored next to out)
	}
	var out scatter.Tensor
	if hasOut {
		os := slices.Clone(srcShape)
		if len(os) > 0 {
			os[d] = N
			switch k := g.IntRange(0, len(os)-1); {
			case outBad:
				if k != d && os[k] > 0 {
					os[k]--
				} else {
					os = append(os, 1)
				}
			case (sums || mean && tsCountStretches(I, d, k)) && k != d && g.Chance(larger):
				// larger than src off dim, as scatter_add_ allows: the
				// rest of out is summed over nothing, and a mean's count
				// (broadcast to out) divides it too
				os[k] += g.IntRange(1, 2)
			}
		}
		outSpec := RoundingValues()
		if !crowded {
			outSpec = g.Values()
		}
		out = g.Tensor(outDT, os, outSpec, AnyLayout)
	}
	spec := RoundingValues()
	if !crowded {
		spec = g.Values()
		if g.o.Valid && g.Chance(40) {
			spec = ExactValues(dt, scatter.Numel(srcShape)+1)
		}
	}
	dimSize = sizedOutput(bad, out, dimSize, N)
	return scatter.TorchScatter{
		Src:     g.Tensor(dt, srcShape, spec, AnyLayout),
		Index:   g.indexTensor(I, fd, N, idxDT, AnyLayout, g.crowdedDups(crowded), bad),
		Dim:     dim,
		Out:     out,
		DimSize: dimSize,
		Reduce:  reduce,
	}
}

// ignoredDimSize draws a dim_size to pass next to out, whose size along
// dim is n: torch_scatter reads dim_size only without out, so any value,
// one that disagrees with out or is negative, changes nothing.
func (g *Drawer) ignoredDimSize(n int) int {
	return OneOf(g, n, n+g.IntRange(1, 3), n-1, -1)
}

// torchScatterAddCall draws a torch_scatter 1.x scatter_add call (with
// fill_value): a 1-d index of src.size(dim) elements, or an index of src's
// rank whose size-1 dims broadcast either way.
func (g *Drawer) torchScatterAddCall() scatter.Call {
	op := scatter.OpTorchScatterAdd
	dt := g.DType(op, nil)
	r := g.Rank(1)
	if r > 3 {
		r = 3
	}
	if g.o.Want.Vector && r == 1 {
		r = 2
	}
	S := g.Shape(r)
	d := g.IntRange(0, r-1)
	var dim *int
	if d != r-1 || g.Chance(70) {
		dim = scatter.Ptr(g.DimArg(d, r))
	}
	var I []int
	fd := d
	form := g.pick(45, 35, 20)
	if g.o.Want.Vector {
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
			case S[j] == 1 && g.Chance(30):
				I[j] = g.IntRange(2, 3) // src broadcasts
			case j != d && g.Chance(30):
				I[j] = 1 // the index broadcasts
			}
		}
	}
	N := g.IntRange(1, 5)
	var dimSize *int
	hasOut := g.Chance(15)
	if !hasOut && g.Chance(30) {
		dimSize = scatter.Ptr(N)
	}
	var fill scatter.Scalar
	if g.Chance(50) {
		fill = g.fillValue(dt)
	}
	bad := goodIndex
	srcShape := S
	outDT := dt
	for range g.faults() {
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
				I[g.IntRange(0, len(I)-1)] += 2
			}
		case 5:
			fill = g.scalar(dt, true)
			hasOut = false
		case 6:
			dimSize = scatter.Ptr(-g.IntRange(1, 3))
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
	if hasOut && g.Chance(25) {
		dimSize = scatter.Ptr(g.ignoredDimSize(N)) // (ignored next to out)
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
		out = g.Tensor(outDT, os, g.Values(), AnyLayout)
	}
	spec := g.Values()
	if g.o.Valid && g.Chance(40) {
		spec = ExactValues(dt, scatter.Numel(srcShape)+1)
	}
	dimSize = sizedOutput(bad, out, dimSize, N)
	return scatter.TorchScatterAdd{
		Src:       g.Tensor(dt, srcShape, spec, AnyLayout),
		Index:     g.indexTensor(I, min(fd, len(I)-1), N, scatter.DTInt64, AnyLayout, g.Duplicates(), bad),
		Dim:       dim,
		Out:       out,
		DimSize:   dimSize,
		FillValue: fill,
	}
}

// fillValue draws a fill_value for dtype dt (in range).
func (g *Drawer) fillValue(dt scatter.DType) scatter.Scalar {
	if dt.IsFloat() && g.Chance(30) {
		return scatter.Float(OneOf(g, -2.5, math.NaN(), math.Inf(-1), 0.375, math.Copysign(0, -1)))
	}
	if dt == scatter.DTUint8 {
		return scatter.Int(int64(g.IntRange(1, 9)))
	}
	if dt == scatter.DTBool {
		return scatter.Bool(true)
	}
	return scatter.Int(int64(OneOf(g, -3, 7, -1, 100)))
}

// sizedOutput returns a torch_scatter call's dim_size: dimSize, or n
// where the index has a value too large (bad) and neither out nor
// dim_size sizes the output. A single fault draws such an index with
// dim_size n; a second one may take away the out it was drawn for (or the
// src shape out is made from), and without dim_size the output would be
// sized by that value (up to 2^40 elements): an allocation failure in
// PyTorch, and no rule of the suite.
func sizedOutput(bad badIndex, out scatter.Tensor, dimSize *int, n int) *int {
	if bad == bigIndex && out.Data == nil && dimSize == nil {
		return scatter.Ptr(n)
	}
	return dimSize
}

// ---- the F# Tensor library ----

// fsIndexShape returns a shape that broadcasts (NumPy rules) to shape:
// shape itself, size-1 dims, or a suffix.
func (g *Drawer) fsIndexShape(shape []int) []int {
	switch g.pick(60, 20, 20) {
	case 1:
		s := slices.Clone(shape)
		for j := range s {
			if g.Chance(40) {
				s[j] = 1
			}
		}
		return s
	case 2:
		if len(shape) > 0 {
			return slices.Clone(shape[g.IntRange(1, len(shape)):])
		}
	}
	return slices.Clone(shape)
}

// tensorScatterCall draws an F# Tensor.scatter call: one index per target
// dimension (None for a positional one), broadcasting to src's shape.
func (g *Drawer) tensorScatterCall() scatter.Call {
	op := scatter.OpTensorScatter
	keep := func(d scatter.DType) bool { return d != scatter.DTBool } // bool: only as a fault
	if g.o.DTypes != nil {
		keep = nil // dtypes asked for by name are drawn, bool (an error) too
	}
	dt := g.DType(op, keep)
	rs := []int{1, 2, 0, 3}[g.pick(35, 35, 10, 20)]
	S := g.Shape(rs)
	R := rs
	if g.Chance(30) {
		R++
	}
	T := make([]int, R)
	some := make([]bool, R)
	for k := range T {
		if k < rs && g.Chance(40) {
			T[k] = S[k] + g.IntRange(0, 2)
		} else {
			some[k] = true
			T[k] = g.IntRange(1, 5)
		}
	}
	bad := goodIndex
	badAt := -1
	dropLast := false
	idxDT := scatter.DTInt64
	for range g.faults() {
		switch g.pick(25, 15, 10, 10, 10, 10, 10, 10) {
		case 0:
			bad = negIndex
		case 1:
			bad = bigIndex
		case 2:
			if k := g.IntRange(0, max(rs, 1)-1); rs > 0 && S[k] > 0 {
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
			if len(T) > 0 && g.Chance(50) {
				dropLast = true // one index too few
			} else {
				badAt = -2 // one index too many
			}
		case 5:
			idxDT = scatter.DTInt32
		case 6:
			badAt = g.IntRange(0, max(R, 1)-1) // a shape that does not broadcast
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
		if hasBad && g.Chance(50) || hasBad && k == lastSome(some) {
			b, hasBad = bad, false
		}
		indices[k] = g.indexTensor(is, -1, T[k], idxDT, AnyLayout, g.dups(50, 0, 30, 20), b)
	}
	switch {
	case badAt == -2:
		indices = append(indices, g.indexTensor([]int{1}, -1, 1, idxDT, PlainLayout, DupRandom, goodIndex))
	case dropLast:
		indices = indices[:len(indices)-1]
	}
	spec := g.Values()
	if g.o.Valid && g.Chance(40) {
		spec = ExactValues(dt, scatter.Numel(S)+1)
	}
	return scatter.TensorScatter{Indices: indices, Shape: T, Src: g.Tensor(dt, S, spec, AnyLayout)}
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
func (g *Drawer) tensorGatherCall() scatter.Call {
	op := scatter.OpTensorGather
	dt := g.DType(op, nil)
	rs := g.Rank(1)
	S := g.Shape(rs)
	rt := rs
	if g.Chance(40) {
		rt = g.IntRange(0, rs)
	}
	some := make([]bool, rs)
	for k := range some {
		some[k] = k >= rt || g.Chance(50)
	}
	if !slices.Contains(some, true) {
		some[g.IntRange(0, rs-1)] = true
	}
	T := make([]int, rt)
	for k := range T {
		if some[k] {
			T[k] = g.IntRange(1, 4)
		} else {
			T[k] = g.IntRange(0, S[k])
		}
	}
	g.fit(T, -1)
	for k := range some {
		if g.o.Valid && len(T) > 0 && some[k] && S[k] == 0 {
			T[0] = 0 // no index value is in range of an empty dim
		}
	}
	bad := goodIndex
	idxDT := scatter.DTInt64
	extra := false
	badShape := -1
	for range g.faults() {
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
		if hasBad && (g.Chance(50) || k == lastSome(some)) {
			b, hasBad = bad, false
		}
		indices[k] = g.indexTensor(is, -1, S[k], idxDT, AnyLayout, g.dups(50, 0, 30, 20), b)
	}
	if extra {
		indices = append(indices, g.indexTensor(T, -1, 1, idxDT, PlainLayout, DupRandom, goodIndex))
	}
	return scatter.TensorGather{Indices: indices, Src: g.Tensor(dt, S, g.Values(), AnyLayout)}
}

// Call draws a call of operation op.
func (g *Drawer) Call(op scatter.Op) scatter.Call {
	var draw func() scatter.Call
	switch op {
	case scatter.OpScatter, scatter.OpScatterAdd, scatter.OpScatterReduce:
		draw = func() scatter.Call { return g.dimScatterCall(op) }
	case scatter.OpIndexReduce:
		draw = g.indexReduceCall
	case scatter.OpGather:
		draw = g.gatherCall
	case scatter.OpTorchScatterAdd:
		draw = g.torchScatterAddCall
	case scatter.OpTorchScatter:
		draw = g.torchScatterCall
	case scatter.OpTensorScatter:
		draw = g.tensorScatterCall
	case scatter.OpTensorGather:
		draw = g.tensorGatherCall
	default:
		g.src.skip("unknown operation %q", op)
		return nil
	}
	return g.bounded(draw)
}

// boundedTries is how many times bounded draws a call.
const boundedTries = 8

// bounded returns a call of draw none of whose tensors has more than
// MaxElements elements. The builders keep their shapes within the bound
// (Shape and fit), but the sizes they add to them (a source longer than
// its index, an out's dim_size, a crowded group) may pass it: such a call
// is drawn again, up to boundedTries times; about 5% of them at a bound
// of 64 elements, up to 1.3% at 256 (crowded draws) and 0.13% at 4096
// (with the properties' boundary sizes). Past that,
// with a bound too small for the operation's shapes (a few elements),
// the draw is rejected (Source's skip: rapid counts it invalid).
func (g *Drawer) bounded(draw func() scatter.Call) scatter.Call {
	for range boundedTries {
		// 6% of the calls draw their general values as signed zeros
		g.zeros = g.Chance(6)
		c := draw()
		g.zeros = false
		if within(c, g.o.MaxElements) {
			return c
		}
	}
	g.src.skip("no call within %d elements in %d draws", g.o.MaxElements, boundedTries)
	return nil
}

// within reports whether every tensor of c has at most n elements.
func within(c scatter.Call, n int) bool {
	for _, t := range c.Tensors() {
		if t.NumEl() > n {
			return false
		}
	}
	return true
}
