// The combination generator: one call of a given combination (operation,
// dtype, reduction, scalar value, include_self), every dtype included,
// even those the operation rejects, on plain contiguous tensors. It is
// what the recorded fixtures were drawn from (tools/gen, from a seeded
// math/rand Source) and what the live differential test draws (from
// rapid); it is kept draw for draw, so that recording again with the same
// seed reproduces the recorded cases. Every choice is drawn so that 0 is
// the simplest option (rank 1, sizes 1..3, small integer values, in-range
// indices, no corruption), so that rapid shrinks toward plain calls; the
// rare branches reach every error path, the 16-bit float and integer
// edges, 0-d tensors, zero-size dimensions and negative dims.
package callgen

import (
	"math"
	"slices"
	"strings"

	"github.com/scatterconf/scatter"
)

// Combo is one combination of an operation's parameters that the
// generators cover: the operation, the dtype of its data tensors, the
// reduction, whether scatter takes a scalar value, and include_self.
type Combo struct {
	Op          scatter.Op
	DType       scatter.DType
	Reduce      scatter.Reduce // ReduceNone where the op has none (or for its default)
	Value       bool           // scatter: a scalar value instead of src
	ExcludeSelf bool           // scatter_reduce, index_reduce: include_self=False
}

// String names the combination, e.g. "scatter_reduce/amax/float16/exclude_self".
func (c Combo) String() string { return string(c.Op) + "/" + c.Slug("/") }

// Slug names the combination without the operation, joined by sep:
// "amax-float16-exclude_self".
func (c Combo) Slug(sep string) string {
	var parts []string
	if c.Reduce != scatter.ReduceNone {
		parts = append(parts, string(c.Reduce))
	}
	if c.Value {
		parts = append(parts, "value")
	}
	parts = append(parts, c.DType.String())
	switch c.Op {
	case scatter.OpScatterReduce, scatter.OpIndexReduce:
		if c.ExcludeSelf {
			parts = append(parts, "exclude_self")
		} else {
			parts = append(parts, "include_self")
		}
	}
	return strings.Join(parts, sep)
}

// Combos returns every combination of op (all operations when op is ""):
// every dtype, including those the operation rejects, times every
// reduction it takes (scatter also with a scalar value; torch_scatter's
// scatter also with no reduce, its default) times include_self.
func Combos(op scatter.Op) []Combo {
	var cs []Combo
	for _, o := range scatter.Ops {
		if op != "" && o != op {
			continue
		}
		for _, dt := range scatter.DTypes {
			switch o {
			case scatter.OpScatter:
				for _, value := range []bool{false, true} {
					for _, r := range []scatter.Reduce{scatter.ReduceNone, scatter.ReduceAdd, scatter.ReduceMultiply} {
						cs = append(cs, Combo{Op: o, DType: dt, Reduce: r, Value: value})
					}
				}
			case scatter.OpScatterReduce:
				for _, r := range []scatter.Reduce{scatter.ReduceSum, scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin} {
					for _, ex := range []bool{false, true} {
						cs = append(cs, Combo{Op: o, DType: dt, Reduce: r, ExcludeSelf: ex})
					}
				}
			case scatter.OpIndexReduce:
				for _, r := range []scatter.Reduce{scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin} {
					for _, ex := range []bool{false, true} {
						cs = append(cs, Combo{Op: o, DType: dt, Reduce: r, ExcludeSelf: ex})
					}
				}
			case scatter.OpTorchScatter:
				for _, r := range []scatter.Reduce{scatter.ReduceNone, scatter.ReduceSum, scatter.ReduceAdd, scatter.ReduceMul,
					scatter.ReduceMean, scatter.ReduceMin, scatter.ReduceMax} {
					cs = append(cs, Combo{Op: o, DType: dt, Reduce: r})
				}
			default:
				cs = append(cs, Combo{Op: o, DType: dt})
			}
		}
	}
	return cs
}

// ComboOptions tune the combination generator.
type ComboOptions struct {
	// Large draws tensors of about 1–4K elements (PyTorch's multi-thread
	// paths) instead of mostly at most 64.
	Large bool
}

// ComboCall draws one call of combination c from src; nil for an operation
// it does not know.
func ComboCall(src Source, c Combo, o ComboOptions) scatter.Call {
	g := &comboDrawer{s: src.s, large: o.Large}
	switch c.Op {
	case scatter.OpScatter:
		return g.scatter(c)
	case scatter.OpScatterAdd:
		self, dim, index, src := g.dimScatter(c.DType, true)
		return scatter.ScatterAdd{Self: self, Dim: dim, Index: index, Src: src}
	case scatter.OpScatterReduce:
		self, dim, index, src := g.dimScatter(c.DType, true)
		r := c.Reduce
		if g.rare(2) {
			r = pickOne(g, scatter.ReduceAdd, scatter.ReduceMultiply, "max")
		}
		return scatter.ScatterReduce{Self: self, Dim: dim, Index: index, Src: src, Reduce: r, ExcludeSelf: c.ExcludeSelf}
	case scatter.OpIndexReduce:
		return g.indexReduce(c)
	case scatter.OpGather:
		return g.gather(c.DType)
	case scatter.OpTorchScatterAdd:
		return g.torchScatterAdd(c.DType)
	case scatter.OpTorchScatter:
		return g.torchScatter(c)
	case scatter.OpTensorScatter:
		return g.tensorScatter(c.DType)
	case scatter.OpTensorGather:
		return g.tensorGather(c.DType)
	}
	return nil
}

// comboDrawer draws the parts of one call of a combination.
type comboDrawer struct {
	s     source
	large bool
}

// intn draws from [0, n); 0 is the simplest choice.
func (g *comboDrawer) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return g.s.intn(0, n-1)
}

// rare reports true with probability pct/100; false is the simple choice.
func (g *comboDrawer) rare(pct int) bool { return g.intn(100) >= 100-pct }

// pick returns i with probability w[i]/sum(w); 0 is the simplest.
func (g *comboDrawer) pick(w ...int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	v := g.intn(total)
	for i, x := range w {
		if v < x {
			return i
		}
		v -= x
	}
	return len(w) - 1
}

// pickOne draws one of xs uniformly.
func pickOne[T any](g *comboDrawer, xs ...T) T { return xs[g.intn(len(xs))] }

// rank draws a number of dimensions, at least least: 1 or 2 mostly, 0 and
// 3 less often; 2 or 3 when large.
func (g *comboDrawer) rank(least int) int {
	r := []int{1, 2, 0, 3}[g.pick(35, 30, 15, 20)]
	if g.large {
		r = 2 + g.intn(2)
	}
	return max(r, least)
}

// size draws one dimension's size: 1..3 mostly, 0 and 4..5 rarely.
func (g *comboDrawer) size() int {
	switch g.pick(85, 5, 10) {
	case 1:
		return 0
	case 2:
		return 4 + g.intn(2)
	}
	return 1 + g.intn(3)
}

// shape draws a shape of rank r; a large one holds about 1–4K elements.
func (g *comboDrawer) shape(r int) []int {
	s := make([]int, r)
	for d := range s {
		switch {
		case !g.large:
			s[d] = g.size()
		case r == 2:
			s[d] = 32 + g.intn(32)
		case d == 0:
			s[d] = 1 + g.intn(3)
		default:
			s[d] = 16 + g.intn(20)
		}
	}
	return s
}

// dim draws a dim for a tensor of n dimensions (0-d counts as 1): in range,
// often negative, rarely out of range.
func (g *comboDrawer) dim(n int) int {
	m := max(n, 1)
	d := g.intn(m)
	switch g.pick(70, 25, 5) {
	case 1:
		d -= m
	case 2:
		if g.intn(2) == 0 {
			d = m
		} else {
			d = -m - 1
		}
	}
	return d
}

// otherDType returns a dtype other than dt.
func (g *comboDrawer) otherDType(dt scatter.DType) scatter.DType {
	others := slices.DeleteFunc(slices.Clone(scatter.DTypes), func(x scatter.DType) bool { return x == dt })
	return others[g.intn(len(others))]
}

// indexDType draws int64, int32 with probability int32pct, and rarely a
// dtype no operation takes as an index.
func (g *comboDrawer) indexDType(int32pct int) scatter.DType {
	switch g.pick(97-int32pct, int32pct, 3) {
	case 1:
		return scatter.DTInt32
	case 2:
		return pickOne(g, scatter.DTInt16, scatter.DTUint8, scatter.DTFloat32, scatter.DTBool)
	}
	return scatter.DTInt64
}

// indexVals draws n index values in [0, size), with, rarely, one of them
// out of range: negative, size, or far off.
func (g *comboDrawer) indexVals(n, size int) []int64 {
	v := make([]int64, n)
	for i := range v {
		if size > 0 {
			v[i] = int64(g.intn(size))
		}
	}
	if n > 0 && g.rare(8) {
		v[g.intn(n)] = pickOne(g, -1, int64(size), -int64(size)-1, int64(size)+7, -int64(size))
	}
	return v
}

// plainIndex returns vals as a tensor of dtype dt and the given shape
// (bool and uint8 keep only what they can hold).
func plainIndex(dt scatter.DType, vals []int64, shape []int) scatter.Tensor {
	data := scatter.MakeData(dt, len(vals))
	for i, v := range vals {
		scatter.SetInt(data, i, v)
	}
	return scatter.Tensor{Shape: append([]int{}, shape...), Data: data}
}

// tensor draws a tensor of dtype dt and shape.
func (g *comboDrawer) tensor(dt scatter.DType, shape []int) scatter.Tensor {
	return scatter.Tensor{Shape: append([]int{}, shape...), Data: g.data(dt, scatter.Numel(shape))}
}

// data draws n elements of dtype dt in one of four moods: small integers
// (exact in every dtype, sums exact), a mix with the dtype's special
// values, raw bit patterns, or signed zeros (float dtypes; the others draw
// small integers then).
func (g *comboDrawer) data(dt scatter.DType, n int) any {
	data := scatter.MakeData(dt, n)
	mood := g.pick(50, 27, 13, 10)
	for i := 0; i < n; i++ {
		g.elem(data, i, dt, mood)
	}
	return data
}

// small draws a small integer: 0, ±1, ±2, ±3.
func (g *comboDrawer) small() int64 {
	v := int64(g.intn(4))
	if g.intn(2) == 1 {
		v = -v
	}
	return v
}

func (g *comboDrawer) elem(data any, i int, dt scatter.DType, mood int) {
	if mood == 3 && dt.IsFloat() {
		// mostly -0.0, so that a tensor's groups are -0.0 (self's too
		// where it drew this mood as well)
		scatter.SetFloat(data, i, signedZero(g.intn(8), func() float64 { return float64(g.small()) }))
		return
	}
	if mood == 0 || mood == 3 || (mood == 1 && g.intn(2) == 0) {
		v := g.small()
		switch dt {
		case scatter.DTUint8:
			v = max(v, -v)
		case scatter.DTBool:
			v &= 1
		}
		scatter.SetInt(data, i, v)
		return
	}
	switch d := data.(type) {
	case []bool:
		d[i] = g.intn(2) == 1
	case []uint8:
		if mood == 1 {
			d[i] = pickOne(g, uint8(255), 254, 128, 127, 250)
		} else {
			d[i] = uint8(g.s.u64())
		}
	case []int8:
		if mood == 1 {
			d[i] = pickOne(g, int8(math.MinInt8), math.MaxInt8, -1, math.MinInt8+1, 100, -100)
		} else {
			d[i] = int8(g.s.u64())
		}
	case []int16:
		if mood == 1 {
			d[i] = pickOne(g, int16(math.MinInt16), math.MaxInt16, -1, 1000, -1000)
		} else {
			d[i] = int16(g.s.u64())
		}
	case []int32:
		if mood == 1 {
			d[i] = pickOne(g, int32(math.MinInt32), math.MaxInt32, -1, 65536, -65537)
		} else {
			d[i] = int32(g.s.u64())
		}
	case []int64:
		if mood == 1 {
			d[i] = pickOne(g, int64(math.MinInt64), math.MaxInt64, -1, 1<<32, 1<<53+1)
		} else {
			d[i] = int64(g.s.u64())
		}
	case []scatter.Float16:
		if mood == 1 {
			d[i] = scatter.Float16FromFloat64(g.special(dt))
		} else {
			d[i] = scatter.Float16(g.s.u64())
		}
	case []scatter.BFloat16:
		if mood == 1 {
			d[i] = scatter.BFloat16FromFloat64(g.special(dt))
		} else {
			d[i] = scatter.BFloat16(g.s.u64())
		}
	case []float32:
		switch {
		case mood == 1:
			d[i] = float32(g.special(dt))
		case g.intn(2) == 0:
			// exact in float16: the same data in every float dtype
			d[i] = scatter.Float16(g.s.u64()).Float32()
		default:
			d[i] = math.Float32frombits(uint32(g.s.u64()))
		}
	case []float64:
		switch {
		case mood == 1:
			d[i] = g.special(dt)
		case g.intn(2) == 0:
			d[i] = scatter.Float16(g.s.u64()).Float64()
		default:
			// a modest exponent, so that sums round instead of overflowing
			d[i] = math.Ldexp(float64(int64(g.s.u64()>>11))/(1<<52)-1, g.intn(80)-40)
		}
	}
}

// special draws a value that float kernels treat with care: signed zeros,
// infinities, NaN, subnormals, the extremes, and values where 16-bit
// accumulation saturates.
func (g *comboDrawer) special(dt scatter.DType) float64 {
	f := scatter.FactsOf(dt)
	maxF, minNormal, minSub := f.Max, f.MinNorm, f.MinSub
	v := pickOne(g, 0.5, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), minSub, 3*minSub, minNormal,
		maxF, 2048, 256, 0.1, 1.0/3, 65504, 1e-3)
	if g.intn(2) == 1 {
		v = -v
	}
	return v
}

// scalar draws a Python scalar for a tensor of dtype dt: ints, floats,
// bools, special floats and, rarely, values that overflow dt.
func (g *comboDrawer) scalar(dt scatter.DType) scatter.Scalar {
	switch g.pick(40, 30, 10, 12, 8) {
	case 1:
		return scatter.Float(pickOne(g, 0.5, -2.7, 1.23, 2.5, -0.5, 3.0, 1e-3))
	case 2:
		return scatter.Bool(g.intn(2) == 1)
	case 3:
		return scatter.Float(pickOne(g, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e-40, 65504, 65520, 1e5, 3e38, 1e39))
	case 4:
		// the edges of c10's checked conversion: negative ints wrap into
		// unsigned types down to -max, floats do not; float limits are
		// the finite maximum, not the rounding threshold
		return pickOne(g, scatter.Int(300), scatter.Int(-129), scatter.Int(256), scatter.Int(128), scatter.Int(-1),
			scatter.Int(-255), scatter.Int(-256), scatter.Int(255), scatter.Int(127), scatter.Int(-128), scatter.Int(32768),
			scatter.Int(-32769), scatter.Int(1<<31), scatter.Int(-1<<31-1), scatter.Int(1<<40), scatter.Int(math.MaxInt64),
			scatter.Int(math.MinInt64), scatter.Float(-0.5), scatter.Float(255.5), scatter.Float(255.0), scatter.Float(127.5),
			scatter.Float(-128.5), scatter.Float(-128.0), scatter.Float(65504.5), scatter.Float(65520), scatter.Float(3.39e38),
			scatter.Float(3.4028235e38), scatter.Float(3.4028236e38), scatter.Float(1e300), scatter.Float(-1e300),
			scatter.Float(2.5e9), scatter.Float(2147483647.5), scatter.Float(9.3e18), scatter.Float(-1e19), scatter.Float(5e-324))
	}
	return scatter.Int(g.small())
}

// dimScatter draws the tensors of scatter_, scatter_add_ and
// scatter_reduce_: self, a dim, an index of self's rank no larger than
// self apart from dim, and a src at least as large as the index (when
// withSrc); rarely one of the shape, rank, dtype or value rules broken.
func (g *comboDrawer) dimScatter(dt scatter.DType, withSrc bool) (self scatter.Tensor, dim int, index, src scatter.Tensor) {
	if g.large && g.intn(3) == 0 {
		return g.funnel(dt, withSrc)
	}
	r := g.rank(0)
	sshape := g.shape(r)
	dim = g.dim(r)
	wd := wrapOr0(dim, r)
	ir := r
	if r == 0 && g.intn(2) == 1 {
		ir = 1 // a 0-d self takes a 1-d index
	}
	if g.rare(3) {
		ir = pickOne(g, ir+1, max(ir-1, 0))
	}
	ishape := make([]int, ir)
	for d := range ishape {
		s := scatter.SizeAt(sshape, d)
		switch {
		case d == wd && g.large:
			ishape[d] = 8 + g.intn(24)
		case d == wd:
			ishape[d] = []int{1, 2, 3, 4, 0, 6}[g.pick(25, 25, 20, 15, 5, 10)]
		default:
			ishape[d] = s
			if g.rare(25) {
				ishape[d] = g.intn(s + 1)
			}
			if g.rare(3) {
				ishape[d] = s + 1
			}
		}
	}
	idt := g.indexDType(4)
	index = plainIndex(idt, g.indexVals(scatter.Numel(ishape), scatter.SizeAt(sshape, wd)), ishape)
	self = g.tensor(dt, sshape)
	if !withSrc {
		return self, dim, index, scatter.Tensor{}
	}
	sr := ir
	if ir == 0 && g.intn(3) == 2 {
		sr = 1
	}
	if g.rare(3) {
		sr = pickOne(g, sr+1, max(sr-1, 0))
	}
	srcShape := make([]int, sr)
	for d := range srcShape {
		srcShape[d] = scatter.SizeAt(ishape, d)
		if g.intn(3) == 2 {
			srcShape[d] += 1 + g.intn(2)
		}
	}
	if sr > 0 && g.rare(3) {
		d := g.intn(sr)
		srcShape[d] = max(srcShape[d]-1, 0)
	}
	sdt := dt
	if g.rare(3) {
		sdt = g.otherDType(dt)
	}
	return self, dim, index, g.tensor(sdt, srcShape)
}

// funnel draws a 1-d scatter of some hundred contributions into one or two
// targets: mean counts then saturate (float16, bfloat16) or wrap (int8,
// uint8), and 16-bit sums stop growing.
func (g *comboDrawer) funnel(dt scatter.DType, withSrc bool) (self scatter.Tensor, dim int, index, src scatter.Tensor) {
	size := 1 + g.intn(2)
	n := 120 + g.intn(300)
	index = plainIndex(scatter.DTInt64, g.indexVals(n, size), []int{n})
	self = g.tensor(dt, []int{size})
	if withSrc {
		src = g.tensor(dt, []int{n})
	}
	return self, -g.intn(2), index, src
}

func (g *comboDrawer) scatter(c Combo) scatter.Call {
	self, dim, index, src := g.dimScatter(c.DType, !c.Value)
	s := scatter.Scatter{Self: self, Dim: dim, Index: index, Src: src, Reduce: c.Reduce}
	if c.Value {
		s.Value = scatter.Ptr(g.scalar(c.DType))
	}
	if g.rare(2) {
		s.Reduce = pickOne(g, scatter.ReduceSum, "mean", "bogus")
	}
	return s
}

func (g *comboDrawer) gather(dt scatter.DType) scatter.Call {
	self, dim, index, _ := g.dimScatter(dt, false)
	return scatter.Gather{Input: self, Dim: dim, Index: index}
}

// indexReduce draws index_reduce_: a vector index (int32 or int64) of n
// values along dim and a source like self with n slices along dim; rarely
// a broadcasting or lower-rank source slice, a 0-d source, a count that
// does not match, a 2-d index or another dtype.
func (g *comboDrawer) indexReduce(c Combo) scatter.Call {
	r := g.rank(0)
	sshape := g.shape(r)
	dim := g.dim(r)
	wd := wrapOr0(dim, r)
	n := []int{1, 2, 3, 4, 0}[g.pick(25, 30, 20, 20, 5)]
	if g.large {
		n = 8 + g.intn(24)
		if r > 0 && g.intn(3) == 0 { // a funnel: mean counts saturate or wrap
			sshape[wd] = 1 + g.intn(2)
			n = 120 + g.intn(300)
		}
	}
	ishape := []int{n}
	switch {
	case n == 1 && g.rare(15):
		ishape = []int{}
	case g.rare(2):
		ishape = []int{1, n}
	}
	index := plainIndex(g.indexDType(40), g.indexVals(n, scatter.SizeAt(sshape, wd)), ishape)
	var srcShape []int
	if r == 0 {
		srcShape = []int{n}
		if n == 1 && g.intn(2) == 0 {
			srcShape = []int{}
		}
	} else {
		srcShape = slices.Clone(sshape)
		srcShape[wd] = n
		if g.rare(10) {
			for d := range srcShape {
				if d != wd && g.intn(2) == 0 {
					srcShape[d] = 1
				}
			}
		}
		switch g.pick(88, 4, 4, 4) {
		case 1:
			srcShape[wd] = n + 1
		case 2:
			if n == 1 {
				srcShape = []int{} // a 0-d source
			}
		case 3:
			if wd > 0 {
				srcShape = srcShape[1:] // a lower-rank source
			} else if len(srcShape) > 1 {
				srcShape = srcShape[:len(srcShape)-1]
			}
		}
	}
	sdt := c.DType
	if g.rare(3) {
		sdt = g.otherDType(c.DType)
	}
	red := c.Reduce
	if g.rare(2) {
		red = pickOne(g, scatter.ReduceSum, "add")
	}
	return scatter.IndexReduce{Self: g.tensor(c.DType, sshape), Dim: dim, Index: index, Source: g.tensor(sdt, srcShape),
		Reduce: red, ExcludeSelf: c.ExcludeSelf}
}

// tsDim draws torch_scatter's dim: absent (-1) or explicit; it returns the
// dim and its wrapped value.
func (g *comboDrawer) tsDim(n int) (*int, int) {
	if g.intn(5) < 2 {
		return nil, wrapOr0(-1, n)
	}
	d := g.dim(n)
	return scatter.Ptr(d), wrapOr0(d, n)
}

// tsSize draws the size along dim of an output: enough for every index
// value, sometimes more, rarely less (an out-of-range index).
func (g *comboDrawer) tsSize(vals []int64) int {
	m := int64(-1)
	for _, v := range vals {
		m = max(m, v)
	}
	k := int(m+1) + g.intn(2)
	if g.rare(5) {
		k = max(k-2, 0)
	}
	return max(k, 0)
}

// torchScatterAdd draws torch_scatter 1.x's scatter_add: a src, an index
// that is 1-d along dim or of src's rank broadcasting either way, an
// optional out, dim_size and a fill_value.
func (g *comboDrawer) torchScatterAdd(dt scatter.DType) scatter.Call {
	n := g.rank(1)
	if g.rare(3) {
		n = 0
	}
	S := g.shape(n)
	dimp, wd := g.tsDim(n)
	K := 1 + g.intn(4)
	var ishape, eshape []int
	if n > 0 && g.intn(2) == 0 {
		ishape = []int{S[wd]}
		if g.rare(3) {
			ishape = []int{1}
		}
		eshape = slices.Clone(S)
	} else {
		ishape = make([]int, n)
		eshape = make([]int, n)
		for d := range ishape {
			switch g.pick(75, 15, 10) {
			case 0:
				ishape[d] = S[d]
			case 1:
				ishape[d] = 1
			case 2:
				if S[d] == 1 {
					ishape[d] = 2 + g.intn(2)
				} else {
					ishape[d] = S[d] + 1
				}
			}
			eshape[d] = max(S[d], ishape[d])
			if S[d] == 0 || ishape[d] == 0 {
				eshape[d] = 0
			}
		}
		if g.rare(3) {
			ishape = append(ishape, 1)
		}
	}
	if len(ishape) == 1 && ishape[0] == 0 && n > 0 && S[wd] > 0 {
		ishape[0] = S[wd] // an empty 1-d index is undefined in torch_scatter 1.x
	}
	vals := g.indexVals(scatter.Numel(ishape), K)
	index := plainIndex(g.indexDType(3), vals, ishape)
	c := scatter.TorchScatterAdd{Src: g.tensor(dt, S), Index: index, Dim: dimp, FillValue: g.scalar(dt)}
	switch g.pick(60, 20, 20) {
	case 1:
		if n > 0 {
			oshape := slices.Clone(eshape)
			oshape[wd] = g.tsSize(vals)
			odt := dt
			if g.rare(5) {
				odt = g.otherDType(dt)
			}
			c.Out = g.tensor(odt, oshape)
		}
	case 2:
		k := g.tsSize(vals)
		if g.rare(5) {
			k = -1
		}
		c.DimSize = scatter.Ptr(k)
	}
	return c
}

// torchScatter draws torch_scatter 2.x's scatter: a src, an index that is
// 1-d along dim or matches src's leading dimensions (size 1 broadcasting),
// an optional out (rarely of another rank or size) and dim_size.
func (g *comboDrawer) torchScatter(c Combo) scatter.Call {
	n := g.rank(1)
	if g.rare(3) {
		n = 0
	}
	S := g.shape(n)
	dimp, wd := g.tsDim(n)
	K := 1 + g.intn(4)
	var ishape []int
	if n < 2 || g.intn(2) == 0 {
		ishape = []int{scatter.SizeAt(S, wd)}
		if g.rare(3) {
			ishape = []int{1}
		}
	} else {
		k := 2 + g.intn(n-1)
		ishape = slices.Clone(S[:k])
		if g.rare(10) {
			ishape[g.intn(k)] = 1
		}
	}
	vals := g.indexVals(scatter.Numel(ishape), K)
	index := plainIndex(g.indexDType(3), vals, ishape)
	ts := scatter.TorchScatter{Src: g.tensor(c.DType, S), Index: index, Dim: dimp, Reduce: c.Reduce}
	if g.rare(2) {
		ts.Reduce = pickOne(g, scatter.ReduceProd, scatter.ReduceAmax, "bogus")
	}
	switch g.pick(60, 20, 20) {
	case 1:
		oshape := slices.Clone(S)
		if n > 0 {
			oshape[wd] = g.tsSize(vals)
		}
		switch g.pick(88, 3, 3, 3, 3) {
		case 1:
			oshape = append([]int{1 + g.intn(2)}, oshape...) // more dims than src
		case 2:
			oshape = append(oshape, 1+g.intn(2))
		case 4:
			if n > 0 {
				oshape = oshape[:n-1] // fewer dims than src
			}
		case 3:
			if n > 1 {
				d := (wd + 1) % n
				oshape[d]++
			}
		}
		odt := c.DType
		if g.rare(4) {
			odt = g.otherDType(c.DType)
		}
		ts.Out = g.tensor(odt, oshape)
	case 2:
		k := g.tsSize(vals)
		if g.rare(5) {
			k = -1
		}
		ts.DimSize = scatter.Ptr(k)
	}
	return ts
}

// broadcastShape draws the shape of an F# index that broadcasts to to:
// rarely with leading dims left out, some dims 1, or one that does not
// broadcast.
func (g *comboDrawer) broadcastShape(to []int) []int {
	s := slices.Clone(to)
	if len(s) > 0 && g.rare(15) {
		s = s[1+g.intn(len(s)):]
	}
	for d := range s {
		if g.rare(15) {
			s[d] = 1
		}
	}
	if len(s) > 0 && g.rare(3) {
		s[g.intn(len(s))] += 1
	}
	return s
}

// tensorScatter draws the F# Tensor.scatter: a src, a target shape of at
// least src's rank and size, and one index per target dimension (None only
// below src's rank), each broadcasting to src's shape.
func (g *comboDrawer) tensorScatter(dt scatter.DType) scatter.Call {
	sr := g.rank(0)
	S := g.shape(sr)
	m := sr
	if g.rare(25) {
		m++
	}
	if sr > 0 && g.rare(3) {
		m--
	}
	T := make([]int, m)
	for k := range T {
		if k < sr {
			T[k] = S[k] + g.pick(70, 30)
		} else {
			T[k] = 1 + g.intn(3)
		}
	}
	indices := make([]scatter.Tensor, m)
	for k := range indices {
		none := k < sr && g.intn(2) == 0
		if g.rare(2) {
			none = !none
		}
		if none {
			if k < sr && g.rare(3) {
				T[k] = max(S[k]-1, 0)
			}
			continue
		}
		ishape := g.broadcastShape(S)
		idt := scatter.DTInt64
		if g.rare(3) {
			idt = scatter.DTInt32
		}
		indices[k] = plainIndex(idt, g.indexVals(scatter.Numel(ishape), T[k]), ishape)
	}
	if g.rare(3) {
		if len(indices) > 0 && g.intn(2) == 0 {
			indices = indices[:len(indices)-1]
		} else {
			indices = append(indices, scatter.Tensor{})
		}
	}
	return scatter.TensorScatter{Indices: indices, Shape: T, Src: g.tensor(dt, S)}
}

// tensorGather draws the F# Tensor.gather: a src, and one index per src
// dimension (at least one given), the given ones broadcasting to a common
// target shape no larger than src where an index is None.
func (g *comboDrawer) tensorGather(dt scatter.DType) scatter.Call {
	sr := g.rank(1)
	if g.rare(3) {
		sr = 0
	}
	S := g.shape(sr)
	tr := sr
	if tr > 0 && g.rare(25) {
		tr--
	}
	T := make([]int, tr)
	for k := range T {
		T[k] = 1 + g.intn(max(S[k], 1))
		if g.rare(3) {
			T[k] = 0
		}
	}
	indices := make([]scatter.Tensor, sr)
	some := false
	for k := range indices {
		if k < tr && g.intn(2) == 0 && !g.rare(2) {
			continue
		}
		ishape := g.broadcastShape(T)
		idt := scatter.DTInt64
		if g.rare(3) {
			idt = scatter.DTInt32
		}
		indices[k] = plainIndex(idt, g.indexVals(scatter.Numel(ishape), S[k]), ishape)
		some = true
	}
	if !some && len(indices) > 0 && !g.rare(10) {
		ishape := g.broadcastShape(T)
		indices[0] = plainIndex(scatter.DTInt64, g.indexVals(scatter.Numel(ishape), S[0]), ishape)
	}
	if g.rare(3) {
		if len(indices) > 0 && g.intn(2) == 0 {
			indices = indices[:len(indices)-1]
		} else {
			indices = append(indices, scatter.Tensor{})
		}
	}
	return scatter.TensorGather{Indices: indices, Src: g.tensor(dt, S)}
}

// wrapOr0 is dim wrapped against n dims, or 0 when out of range (for
// shaping the other tensors of a call whose dim is wrong on purpose).
func wrapOr0(dim, n int) int {
	d, _ := scatter.WrapDim(dim, n)
	return d
}
