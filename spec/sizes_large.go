package spec

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/scatterconf/scatter"
)

// The large sizes cases: past 2^16 elements, where an implementation may
// take another path (a parallel or blocked loop, another kernel, 32-bit
// offsets) for any operation, not only for the scatter_add,
// scatter_reduce and index_reduce that the gate's workloads judge.
const (
	// bigM is the output size of the large cases, and the number of
	// contributions of the smaller ones: 2^16 + 1.
	bigM = 1<<16 + 1
	// bigN is the number of contributions of the larger ones: 2·bigM + 1,
	// so that folded onto bigM outputs (i mod bigM) every output takes
	// two, 2^16 + 1 positions apart, and output 0 a third: the very last.
	bigN = 2*bigM + 1
)

// bigLayout is the index of a large case and the values sent through it:
// contribution i goes to output to[i] of m and carries vals[i]; self
// holds a self (out) for it.
type bigLayout struct {
	name string
	n, m int
	to   []int64
	vals []float64
	self []float64
}

// The layouts: reversed (each of n contributions to its own
// output, the last to output 0) at bigM and bigN, folded (bigN onto
// bigM: i mod bigM), and one target (bigM contributions onto one output:
// a group past 2^16, whose count a 16-bit counter wraps).
const (
	revM = iota
	revN
	folded
	oneTarget
)

func bigLayouts() [4]bigLayout {
	return [4]bigLayout{
		newBigLayout(fmt.Sprintf("n=%d/reversed", bigM), bigM, bigM, func(i int) int { return bigM - 1 - i }),
		newBigLayout(fmt.Sprintf("n=%d/reversed", bigN), bigN, bigN, func(i int) int { return bigN - 1 - i }),
		newBigLayout(fmt.Sprintf("n=%d/onto=%d", bigN, bigM), bigN, bigM, func(i int) int { return i % bigM }),
		oneTargetLayout(),
	}
}

// oneTargetLayout sends bigM contributions to the one output, whose self
// is 4: 3 each, but the last, 65,540. Every sum is exact in float32 and
// int32 and every mean 4, with self counted (262,152 / 65,538) or not
// (262,148 / 65,537); without the last contribution the mean is about 3,
// and a count wrapped at 2^16 (2 or 1) gives 131,076 or 262,148.
func oneTargetLayout() bigLayout {
	l := bigLayout{name: fmt.Sprintf("n=%d/one-target", bigM), n: bigM, m: 1,
		to: make([]int64, bigM), vals: make([]float64, bigM), self: []float64{4}}
	for i := range l.vals {
		l.vals[i] = 3
	}
	l.vals[bigM-1] = 3 + bigM
	return l
}

// newBigLayout builds a layout. With b(o) = (o+5) mod 7 - 3 (in -3..3, 2
// at output 0), contribution i to output o carries b(o) + 2·(i div m):
// reversed, b(o); folded, b(o) and b(o)+2 (and b(0)+4 last). Self is
// b(o)+1 (b(o)+2 where three contributions come), so that every mean
// divides exactly: (b+1 + b + b+2)/3 and (b+2 + b + b+2 + b+4)/4, and
// without self (2b+2)/2 and (3b+6)/3; and so that every reduction of a
// group changes when its last contribution is lost.
func newBigLayout(name string, n, m int, to func(int) int) bigLayout {
	l := bigLayout{name: name, n: n, m: m, to: make([]int64, n), vals: make([]float64, n), self: make([]float64, m)}
	base := func(o int) float64 { return float64((o+5)%7 - 3) }
	counts := make([]int, m)
	for i := range n {
		o := to(i)
		l.to[i] = int64(o)
		l.vals[i] = base(o) + 2*float64(i/m)
		counts[o]++
	}
	for o, c := range counts {
		l.self[o] = base(o) + 1
		if c == 3 {
			l.self[o]++
		}
	}
	return l
}

// bigTensor returns v as a fresh 1-d tensor of dtype dt.
func bigTensor(dt scatter.DType, v []float64) scatter.Tensor {
	switch dt {
	case scatter.DTFloat32:
		d := make([]float32, len(v))
		for i, x := range v {
			d[i] = float32(x)
		}
		return scatter.FromSlice(d)
	case scatter.DTInt32:
		d := make([]int32, len(v))
		for i, x := range v {
			d[i] = int32(x)
		}
		return scatter.FromSlice(d)
	}
	t := full(dt, 0, len(v))
	for i, x := range v {
		setAt(t, i, x)
	}
	return t
}

func (l bigLayout) index() scatter.Tensor                  { return scatter.FromSlice(append([]int64(nil), l.to...)) }
func (l bigLayout) src(dt scatter.DType) scatter.Tensor    { return bigTensor(dt, l.vals) }
func (l bigLayout) selfOf(dt scatter.DType) scatter.Tensor { return bigTensor(dt, l.self) }

// want folds the contributions, after self's value where withSelf, with
// r ("" for plain scatter: the one value sent) in exact arithmetic: the
// values are small integers, so sums and products are exact in float32 and
// int32, and a mean divides exactly (want panics otherwise: the layout is
// built for it). An output nothing reaches takes untouched.
func (l bigLayout) want(dt scatter.DType, r scatter.Reduce, withSelf bool, untouched float64) scatter.Tensor {
	acc, cnt := make([]float64, l.m), make([]int, l.m)
	if withSelf {
		copy(acc, l.self)
		for o := range cnt {
			cnt[o] = 1
		}
	}
	for i, o := range l.to {
		v := l.vals[i]
		switch {
		case cnt[o] == 0:
			acc[o] = v
		case r == scatter.ReduceSum || r == scatter.ReduceMean || r == scatter.ReduceAdd:
			acc[o] += v
		case r == scatter.ReduceProd || r == scatter.ReduceMul || r == scatter.ReduceMultiply:
			acc[o] *= v
		case r == scatter.ReduceAmax || r == scatter.ReduceMax:
			acc[o] = math.Max(acc[o], v)
		case r == scatter.ReduceAmin || r == scatter.ReduceMin:
			acc[o] = math.Min(acc[o], v)
		default:
			panic(fmt.Sprintf("bigLayout.want: reduce %q over %d values", r, cnt[o]+1))
		}
		cnt[o]++
	}
	for o, c := range cnt {
		switch {
		case c == 0:
			acc[o] = untouched
		case r == scatter.ReduceMean:
			if math.Mod(acc[o], float64(c)) != 0 {
				panic(fmt.Sprintf("bigLayout.want: the mean %v/%d is not exact", acc[o], c))
			}
			acc[o] /= float64(c)
		}
	}
	return bigTensor(dt, acc)
}

// arg is torch_scatter's arg of a max (min) over the layout: the
// position of each output's largest (smallest) contribution, which is
// unique (n where none comes).
func (l bigLayout) arg(r scatter.Reduce) scatter.Tensor {
	d := make([]int64, l.m)
	for o := range d {
		d[o] = int64(l.n)
	}
	for i, o := range l.to {
		v, j := l.vals[i], d[o]
		if j == int64(l.n) || r == scatter.ReduceMax && v > l.vals[j] || r == scatter.ReduceMin && v < l.vals[j] {
			d[o] = int64(i)
		}
	}
	return scatter.FromSlice(d)
}

// negated is the layout with its values and self negated: the last
// contribution of a group, the largest, becomes the smallest, which amin
// and min then cannot do without; sums and means stay exact.
func (l bigLayout) negated() bigLayout {
	l.vals, l.self = slices.Clone(l.vals), slices.Clone(l.self)
	for i := range l.vals {
		l.vals[i] = -l.vals[i]
	}
	for o := range l.self {
		l.self[o] = -l.self[o]
	}
	return l
}

// gathered is what gathering input at the layout's outputs gives: out[i]
// = input[to[i]].
func (l bigLayout) gathered(dt scatter.DType, input []float64) scatter.Tensor {
	v := make([]float64, l.n)
	for i, o := range l.to {
		v[i] = input[o]
	}
	return bigTensor(dt, v)
}

// largeCases returns the large sizes cases (largeTemplates), fresh: the
// tensors of its calls and outcomes copied.
func largeCases() []Case {
	ts := largeTemplates()
	cs := make([]Case, len(ts))
	for i, c := range ts {
		c.Call, c.Want, c.WantArg = scatter.CloneCall(c.Call), scatter.CloneTensor(c.Want), scatter.CloneTensor(c.WantArg)
		cs[i] = c
	}
	return cs
}

// largeTemplates builds the large sizes cases once (copying them is
// cheaper than folding them again at every call of Cases).
var largeTemplates = sync.OnceValue(buildLargeCases)

// buildLargeCases returns the large sizes cases: every operation of the
// suite, each at 65,537 and at 131,075 contributions in float32, and once
// in int32; every output has 65,537 elements or more, but those of the
// means of one group of 65,537 contributions (a count past 2^16, which a
// 16-bit counter wraps), in float32 and once in int32. Every reduction
// takes part: plain scatter with src, with a value, and its reduce add and
// multiply; scatter_reduce's five, index_reduce's and torch_scatter's
// four and five, in float32, and the means again in int32 (floor
// division). Reversed, scatter_reduce and
// index_reduce leave self out (include_self=False); folded and onto one
// target they take it.
// Losing the last contribution of a call (or its last block) changes
// output 0, and the last element of a gather (amin and min take the
// values negated, so that the last is the smallest). The truth is
// arithmetic on small integers.
func buildLargeCases() []Case {
	ls := bigLayouts()
	const (
		F32 = scatter.DTFloat32
		I32 = scatter.DTInt32
	)
	type entry struct {
		op    scatter.Op
		r     scatter.Reduce
		value bool // plain scatter of a scalar value
		dt    scatter.DType
		l     int
	}
	entries := []entry{
		{scatter.OpScatter, "", false, F32, revN},
		{scatter.OpScatter, "", true, F32, revM},
		{scatter.OpScatter, scatter.ReduceAdd, false, F32, folded},
		{scatter.OpScatter, scatter.ReduceMultiply, false, F32, revM},
		{scatter.OpScatterAdd, "", false, F32, revM},
		{scatter.OpScatterAdd, "", false, F32, folded},
		{scatter.OpScatterReduce, scatter.ReduceSum, false, F32, folded},
		{scatter.OpScatterReduce, scatter.ReduceProd, false, F32, revM},
		{scatter.OpScatterReduce, scatter.ReduceMean, false, F32, folded},
		{scatter.OpScatterReduce, scatter.ReduceAmax, false, F32, revM},
		{scatter.OpScatterReduce, scatter.ReduceAmin, false, F32, folded},
		{scatter.OpIndexReduce, scatter.ReduceProd, false, F32, folded},
		{scatter.OpIndexReduce, scatter.ReduceAmax, false, F32, folded},
		{scatter.OpIndexReduce, scatter.ReduceAmin, false, F32, revM},
		{scatter.OpGather, "", false, F32, revM},
		{scatter.OpGather, "", false, F32, folded},
		{scatter.OpTorchScatterAdd, "", false, F32, folded},
		{scatter.OpTorchScatter, scatter.ReduceMean, false, F32, folded},
		{scatter.OpIndexReduce, scatter.ReduceMean, false, F32, revM},
		{scatter.OpIndexReduce, scatter.ReduceMean, false, F32, folded},
		{scatter.OpTorchScatter, scatter.ReduceSum, false, F32, revM},
		{scatter.OpTorchScatter, scatter.ReduceMul, false, F32, revM},
		{scatter.OpTorchScatter, scatter.ReduceMax, false, F32, folded},
		{scatter.OpTorchScatter, scatter.ReduceMin, false, F32, revM},
		{scatter.OpTensorScatter, "", false, F32, folded},
		{scatter.OpTensorScatter, "", false, F32, revM},
		{scatter.OpTensorGather, "", false, F32, folded},
		{scatter.OpTensorGather, "", false, F32, revM},

		{scatter.OpScatter, "", false, I32, revM},
		{scatter.OpScatterAdd, "", false, I32, folded},
		{scatter.OpScatterReduce, scatter.ReduceMean, false, I32, folded},
		{scatter.OpIndexReduce, scatter.ReduceMean, false, I32, revM},
		{scatter.OpGather, "", false, I32, folded},
		{scatter.OpTorchScatterAdd, "", false, I32, revM},
		{scatter.OpTorchScatter, scatter.ReduceMean, false, I32, folded},
		{scatter.OpTensorScatter, "", false, I32, revM},
		{scatter.OpTensorGather, "", false, I32, folded},

		// means of one group of 65,537 (65,538 with self)
		{scatter.OpScatterReduce, scatter.ReduceMean, false, F32, oneTarget},
		{scatter.OpScatterReduce, scatter.ReduceMean, false, I32, oneTarget},
		{scatter.OpIndexReduce, scatter.ReduceMean, false, F32, oneTarget},
		{scatter.OpTorchScatter, scatter.ReduceMean, false, F32, oneTarget},
	}
	const source = "arithmetic: small integers (-6..6) whose sums, products, extremes and means (built to divide exactly) are exact in float32 and int32, " +
		"through a call of more than 2^16 elements"
	// The gathers read the reversed layout's values at bigM: the reversed
	// index reverses them, the folded one reads position i mod bigM.
	input := ls[revM].vals
	var cs []Case
	for _, e := range entries {
		l := ls[e.l]
		if e.r == scatter.ReduceAmin || e.r == scatter.ReduceMin {
			l = l.negated()
		}
		d := e.dt.String()
		c := Case{Source: source}
		labels := []string{string(e.op), d}
		pre, post := "", ""                // the name's parts before and after the dtype
		excl := e.l == revM || e.l == revN // scatter_reduce and index_reduce
		switch e.op {
		case scatter.OpScatter:
			x := scatter.Scatter{Self: l.selfOf(e.dt), Index: l.index()}
			switch {
			case e.value:
				pre = "value/"
				x.Value = scatter.Ptr(scatter.Int(5))
				c.Want = full(e.dt, 5, l.m)
				labels = append(labels, "scalar-value")
			case e.r != "":
				pre = "reduce=" + string(e.r) + "/"
				x.Src, x.Reduce = l.src(e.dt), e.r
				c.Want = l.want(e.dt, e.r, true, 0)
				labels = append(labels, "deprecated-reduce")
			default:
				x.Src = l.src(e.dt)
				c.Want = l.want(e.dt, "", false, 0)
			}
			c.Call = x
		case scatter.OpScatterAdd:
			c.Call = scatter.ScatterAdd{Self: l.selfOf(e.dt), Index: l.index(), Src: l.src(e.dt)}
			c.Want = l.want(e.dt, scatter.ReduceSum, true, 0)
		case scatter.OpScatterReduce:
			pre, post = string(e.r)+"/", fmt.Sprintf("include_self=%v/", !excl)
			c.Call = scatter.ScatterReduce{Self: l.selfOf(e.dt), Index: l.index(), Src: l.src(e.dt), Reduce: e.r, ExcludeSelf: excl}
			c.Want = l.want(e.dt, e.r, !excl, 0)
			labels = append(labels, string(e.r), "include_self")
		case scatter.OpIndexReduce:
			pre, post = string(e.r)+"/", fmt.Sprintf("include_self=%v/", !excl)
			c.Call = scatter.IndexReduce{Self: l.selfOf(e.dt), Index: l.index(), Source: l.src(e.dt), Reduce: e.r, ExcludeSelf: excl}
			c.Want = l.want(e.dt, e.r, !excl, 0)
			labels = append(labels, string(e.r), "include_self")
		case scatter.OpGather:
			c.Call = scatter.Gather{Input: bigTensor(e.dt, input), Index: l.index()}
			c.Want = l.gathered(e.dt, input)
		case scatter.OpTensorGather:
			c.Call = scatter.TensorGather{Indices: []scatter.Tensor{l.index()}, Src: bigTensor(e.dt, input)}
			c.Want = l.gathered(e.dt, input)
		case scatter.OpTorchScatterAdd:
			c.Call = scatter.TorchScatterAdd{Src: l.src(e.dt), Index: l.index()}
			c.Want = l.want(e.dt, scatter.ReduceSum, false, 0)
			labels = append(labels, "torch_scatter")
		case scatter.OpTorchScatter:
			pre = string(e.r) + "/"
			c.Call = scatter.TorchScatter{Src: l.src(e.dt), Index: l.index(), Reduce: e.r}
			c.Want = l.want(e.dt, e.r, false, 0)
			labels = append(labels, "torch_scatter", string(e.r))
			if e.r == scatter.ReduceMax || e.r == scatter.ReduceMin {
				c.WantArg = l.arg(e.r)
				labels = append(labels, "argmax")
			}
		case scatter.OpTensorScatter:
			c.Call = scatter.TensorScatter{Indices: []scatter.Tensor{l.index()}, Shape: []int{l.m}, Src: l.src(e.dt)}
			c.Want = l.want(e.dt, scatter.ReduceSum, false, 0)
		}
		if e.l == folded || e.l == oneTarget {
			labels = append(labels, "duplicates")
		}
		if e.l == oneTarget && e.dt == F32 {
			labels = append(labels, "count-past-2^16")
		}
		if e.r == scatter.ReduceMean && e.dt == I32 {
			labels = append(labels, "floor-division")
		}
		lname := l.name
		if e.l == folded && (e.op == scatter.OpGather || e.op == scatter.OpTensorGather) {
			lname = fmt.Sprintf("n=%d/from=%d", bigN, bigM)
		}
		c.Name = fmt.Sprintf("%s/%s%s/%ssizes/%s", e.op, pre, d, post, lname)
		c.Labels = append([]string{"sizes", "large"}, labels...)
		cs = append(cs, c)
	}
	return cs
}
