package optimized_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/optimized"
	"github.com/scatterconf/scatter/reference"
)

// Randomized differential tests against the reference: calls large enough
// to cross the serial threshold (tens of thousands of contributions), with
// duplicates, NaN, infinities, signed zeros, 16-bit types, strided,
// transposed and expanded views, judged by reference.Expect at the
// conformant level (the default backend, and every path forced) and at the
// strict level (the Deterministic option, whose every path must be
// canonical).

// variant is one configuration of the backend under test.
type variant struct {
	name  string
	opts  []optimized.Option
	level scatter.Level
}

var variants = []variant{
	{"default", nil, scatter.Conformant},
	{"deterministic", []optimized.Option{optimized.Deterministic()}, scatter.Strict},
	{"private/3", []optimized.Option{optimized.Workers(3), optimized.ForcePath("private")}, scatter.Conformant},
	{"owner/3", []optimized.Option{optimized.Workers(3), optimized.ForcePath("owner")}, scatter.Conformant},
	{"deterministic/private/3", []optimized.Option{optimized.Deterministic(), optimized.Workers(3), optimized.ForcePath("private")}, scatter.Strict},
	{"deterministic/owner/4", []optimized.Option{optimized.Deterministic(), optimized.Workers(4), optimized.ForcePath("owner")}, scatter.Strict},
	{"serial", []optimized.Option{optimized.ForcePath("serial")}, scatter.Strict},
}

// gen makes random tensors.
type gen struct {
	r       *rand.Rand
	special float64 // probability of a special float value
}

// floatVal returns a random value: mostly uniform in [-1, 1), sometimes
// NaN, ±0, ±inf, a large or a tiny value.
func (g *gen) floatVal() float64 {
	if g.r.Float64() >= g.special {
		return g.r.Float64()*2 - 1
	}
	switch g.r.Intn(7) {
	case 0:
		return math.NaN()
	case 1:
		return 0
	case 2:
		return math.Copysign(0, -1)
	case 3:
		return math.Inf(1 - 2*g.r.Intn(2))
	case 4:
		return (g.r.Float64()*2 - 1) * 1e30
	case 5:
		return (g.r.Float64()*2 - 1) * 1e-30
	}
	return float64(g.r.Intn(5) - 2)
}

// data returns n random elements of dtype dt.
func (g *gen) data(dt scatter.DType, n int) any {
	switch dt {
	case scatter.DTBool:
		d := make([]bool, n)
		for i := range d {
			d[i] = g.r.Intn(2) == 0
		}
		return d
	case scatter.DTUint8:
		d := make([]uint8, n)
		for i := range d {
			d[i] = uint8(g.r.Intn(256))
		}
		return d
	case scatter.DTInt8:
		d := make([]int8, n)
		for i := range d {
			d[i] = int8(g.r.Intn(256) - 128)
		}
		return d
	case scatter.DTInt16:
		d := make([]int16, n)
		for i := range d {
			d[i] = int16(g.r.Intn(1<<16) - 1<<15)
		}
		return d
	case scatter.DTInt32:
		d := make([]int32, n)
		for i := range d {
			d[i] = int32(g.r.Intn(2001) - 1000)
		}
		return d
	case scatter.DTInt64:
		d := make([]int64, n)
		for i := range d {
			if g.r.Intn(50) == 0 {
				d[i] = g.r.Int63() - g.r.Int63()
			} else {
				d[i] = int64(g.r.Intn(2001) - 1000)
			}
		}
		return d
	case scatter.DTFloat16:
		d := make([]scatter.Float16, n)
		for i := range d {
			d[i] = scatter.Float16FromFloat64(g.floatVal())
		}
		return d
	case scatter.DTBFloat16:
		d := make([]scatter.BFloat16, n)
		for i := range d {
			d[i] = scatter.BFloat16FromFloat64(g.floatVal())
		}
		return d
	case scatter.DTFloat32:
		d := make([]float32, n)
		for i := range d {
			d[i] = float32(g.floatVal())
		}
		return d
	case scatter.DTFloat64:
		d := make([]float64, n)
		for i := range d {
			d[i] = g.floatVal()
		}
		return d
	}
	panic(dt)
}

// layouts of a generated tensor
const (
	contiguous = iota
	strided    // every other element of a larger buffer, at an offset
	transposed // the dims stored in reverse order
	nLayouts
)

// tensor returns a tensor of shape with dtype dt in the given layout.
func (g *gen) tensor(dt scatter.DType, shape []int, layout int) scatter.Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	switch {
	case layout == strided:
		data := g.data(dt, 2*n+3)
		st := scatter.ContiguousStrides(shape)
		for i := range st {
			st[i] *= 2
		}
		return scatter.Tensor{Shape: slices.Clone(shape), Strides: st, Offset: 3, Data: data}
	case layout == transposed && len(shape) >= 2:
		rev := slices.Clone(shape)
		slices.Reverse(rev)
		st := scatter.ContiguousStrides(rev)
		slices.Reverse(st)
		return scatter.Tensor{Shape: slices.Clone(shape), Strides: st, Data: g.data(dt, n)}
	}
	return scatter.Tensor{Shape: slices.Clone(shape), Data: g.data(dt, n)}
}

// index returns an index tensor of shape with values in [0, size).
func (g *gen) index(dt scatter.DType, shape []int, size int, layout int) scatter.Tensor {
	t := g.tensor(dt, shape, layout)
	switch d := t.Data.(type) {
	case []int64:
		for i := range d {
			d[i] = int64(g.r.Intn(size))
		}
	case []int32:
		for i := range d {
			d[i] = int32(g.r.Intn(size))
		}
	}
	return t
}

// expandedIndex returns an index of shape [J, C...] whose values are
// constant along the trailing dims (stride 0): PyG's expanded index.
func (g *gen) expandedIndex(dt scatter.DType, J int, rest []int, size int) scatter.Tensor {
	base := g.index(dt, []int{J}, size, contiguous)
	if g.r.Intn(2) == 0 {
		base = g.index(dt, []int{J}, size, strided)
	}
	shape := append([]int{J}, rest...)
	st := make([]int, len(shape))
	st[0] = base.StridesOrDefault()[0]
	return scatter.Tensor{Shape: shape, Strides: st, Offset: base.Offset, Data: base.Data}
}

var floatTypes = []scatter.DType{scatter.DTFloat32, scatter.DTFloat64, scatter.DTFloat16, scatter.DTBFloat16}
var numTypes = []scatter.DType{scatter.DTFloat32, scatter.DTFloat64, scatter.DTFloat16, scatter.DTBFloat16,
	scatter.DTInt64, scatter.DTInt32, scatter.DTInt8, scatter.DTUint8, scatter.DTInt16}

func (g *gen) pick(dts []scatter.DType) scatter.DType { return dts[g.r.Intn(len(dts))] }

// randomCall returns a random call of about n contributions.
func (g *gen) randomCall(prof scatter.Profile, n int) scatter.Call {
	idt := scatter.DTInt64
	if prof == scatter.Torch2 && g.r.Intn(3) == 0 {
		idt = scatter.DTInt32
	}
	lay := func() int { return g.r.Intn(nLayouts) }
	// output extent along dim: heavy contention .. sparse
	sizes := []int{1, 16, 1000, n / 10, n, 3 * n}
	size := max(sizes[g.r.Intn(len(sizes))], 1)
	dt := g.pick(numTypes)
	switch g.r.Intn(9) {
	case 0, 1: // 1-d scatter family
		self := g.tensor(dt, []int{size}, lay())
		index := g.index(idt, []int{n}, size, lay())
		src := g.tensor(dt, []int{n + g.r.Intn(3)}, lay())
		return g.dimCall(self, index, src, 0)
	case 2: // rows: expanded index along dim 0
		C := []int{2, 7, 64}[g.r.Intn(3)]
		J := max(n/C, 2)
		R := max(size/C, 1)
		self := g.tensor(dt, []int{R, C}, lay())
		index := g.expandedIndex(idt, J, []int{C}, R)
		src := g.tensor(dt, []int{J, C}, lay())
		return g.dimCall(self, index, src, 0)
	case 3: // 2-d, dim 1, index narrower than self and src
		R := 1 + g.r.Intn(50)
		K := max(n/R, 1)
		S := max(size/R, 1)
		self := g.tensor(dt, []int{R + 1, S}, lay())
		index := g.index(idt, []int{R, K}, S, lay())
		src := g.tensor(dt, []int{R + g.r.Intn(2), K + g.r.Intn(2)}, lay())
		return g.dimCall(self, index, src, []int{1, -1}[g.r.Intn(2)])
	case 4: // 3-d, dim 1
		A, C := 1+g.r.Intn(4), 1+g.r.Intn(8)
		J := max(n/(A*C), 1)
		S := max(size/(A*C), 1)
		self := g.tensor(dt, []int{A, S, C}, lay())
		var index scatter.Tensor
		if g.r.Intn(2) == 0 {
			index = g.index(idt, []int{A, J, C}, S, lay())
		} else {
			base := g.index(idt, []int{A, J, 1}, S, contiguous)
			index = scatter.Tensor{Shape: []int{A, J, C}, Strides: []int{J, 1, 0}, Data: base.Data}
		}
		src := g.tensor(dt, []int{A, J, C}, lay())
		return g.dimCall(self, index, src, 1)
	case 5: // index_reduce
		reduces := []scatter.Reduce{scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin}
		red := reduces[g.r.Intn(4)]
		iidt := []scatter.DType{scatter.DTInt64, scatter.DTInt32}[g.r.Intn(2)]
		if red == scatter.ReduceProd {
			dt = g.pick(floatTypes)
		}
		C := []int{1, 3, 64}[g.r.Intn(3)]
		J := max(n/C, 1)
		R := max(size/C, 1)
		switch g.r.Intn(3) {
		case 0: // 1-d
			return scatter.IndexReduce{Self: g.tensor(dt, []int{size}, lay()), Dim: 0, Index: g.index(iidt, []int{n}, size, lay()),
				Source: g.tensor(dt, []int{n}, lay()), Reduce: red, ExcludeSelf: g.r.Intn(2) == 0}
		case 1: // rows, dim 0
			return scatter.IndexReduce{Self: g.tensor(dt, []int{R, C}, lay()), Dim: 0, Index: g.index(iidt, []int{J}, R, lay()),
				Source: g.tensor(dt, []int{J, C}, lay()), Reduce: red, ExcludeSelf: g.r.Intn(2) == 0}
		default: // dim 1
			return scatter.IndexReduce{Self: g.tensor(dt, []int{C, R}, lay()), Dim: 1, Index: g.index(iidt, []int{J}, R, lay()),
				Source: g.tensor(dt, []int{C, J}, lay()), Reduce: red, ExcludeSelf: g.r.Intn(2) == 0}
		}
	case 6: // gather
		dt = g.pick(append(numTypes, scatter.DTBool))
		switch g.r.Intn(3) {
		case 0:
			return scatter.Gather{Input: g.tensor(dt, []int{size}, lay()), Dim: 0, Index: g.index(idt, []int{n}, size, lay())}
		case 1:
			C := 1 + g.r.Intn(64)
			J := max(n/C, 1)
			R := max(size/C, 1)
			return scatter.Gather{Input: g.tensor(dt, []int{R, C + 1}, lay()), Dim: 0, Index: g.expandedIndex(idt, J, []int{C}, R)}
		default:
			R := 1 + g.r.Intn(50)
			K := max(n/R, 1)
			S := max(size/R, 1)
			return scatter.Gather{Input: g.tensor(dt, []int{R + 2, S}, lay()), Dim: 1, Index: g.index(idt, []int{R, K}, S, lay())}
		}
	case 7: // torch_scatter sum / mean
		red := []scatter.Reduce{scatter.ReduceNone, scatter.ReduceSum, scatter.ReduceMean, scatter.ReduceMean}[g.r.Intn(4)]
		var dimSize *int
		if g.r.Intn(2) == 0 {
			dimSize = scatter.Ptr(size + g.r.Intn(3))
		}
		if g.r.Intn(2) == 0 {
			return scatter.TorchScatter{Src: g.tensor(dt, []int{n}, lay()), Index: g.index(idt, []int{n}, size, lay()),
				Dim: scatter.Ptr(0), DimSize: dimSize, Reduce: red}
		}
		C := []int{1, 5, 64}[g.r.Intn(3)]
		J := max(n/C, 1)
		R := max(size/C, 1)
		if dimSize != nil {
			dimSize = scatter.Ptr(R)
		}
		return scatter.TorchScatter{Src: g.tensor(dt, []int{J, C}, lay()), Index: g.index(idt, []int{J}, R, lay()),
			Dim: scatter.Ptr(0), DimSize: dimSize, Reduce: red}
	default: // scatter with a value
		self := g.tensor(dt, []int{size}, lay())
		index := g.index(idt, []int{n}, size, lay())
		v := scatter.Float(g.floatVal())
		if !dt.IsFloat() {
			v = scatter.Int(int64(g.r.Intn(7) - 3))
		}
		red := []scatter.Reduce{scatter.ReduceNone, scatter.ReduceAdd, scatter.ReduceMultiply}[g.r.Intn(3)]
		return scatter.Scatter{Self: self, Dim: 0, Index: index, Value: &v, Reduce: red}
	}
}

// dimCall picks a scatter-family operation for self, index, src.
func (g *gen) dimCall(self, index, src scatter.Tensor, dim int) scatter.Call {
	dt := self.DType()
	switch g.r.Intn(4) {
	case 0:
		red := []scatter.Reduce{scatter.ReduceNone, scatter.ReduceAdd, scatter.ReduceMultiply}[g.r.Intn(3)]
		if red == scatter.ReduceMultiply && !dt.IsFloat() {
			red = scatter.ReduceNone
		}
		return scatter.Scatter{Self: self, Dim: dim, Index: index, Src: src, Reduce: red}
	case 1:
		return scatter.ScatterAdd{Self: self, Dim: dim, Index: index, Src: src}
	}
	reduces := []scatter.Reduce{scatter.ReduceSum, scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin}
	red := reduces[g.r.Intn(5)]
	if red == scatter.ReduceProd && !dt.IsFloat() {
		red = scatter.ReduceSum
	}
	return scatter.ScatterReduce{Self: self, Dim: dim, Index: index, Src: src, Reduce: red, ExcludeSelf: g.r.Intn(2) == 0}
}

// snapshot copies the bytes of every tensor's data of a call.
func snapshot(c scatter.Call) map[string]string {
	m := map[string]string{}
	for name, t := range c.Tensors() {
		v := reflect.ValueOf(t.Data)
		n := v.Len() * int(v.Type().Elem().Size())
		if n > 0 {
			m[name] = string(unsafe.Slice((*byte)(v.UnsafePointer()), n))
		}
	}
	return m
}

func describe(c scatter.Call) string {
	s := string(c.Op())
	for name, t := range c.Tensors() {
		s += fmt.Sprintf(" %s=%v%v/st%v/off%d", name, t.DType(), t.Shape, t.Strides, t.Offset)
	}
	return s
}

// checkCall runs c on the variants vs (all when nil) and judges the
// outcomes.
func checkCall(t *testing.T, prof scatter.Profile, c scatter.Call, vs ...variant) {
	t.Helper()
	if vs == nil {
		vs = variants
	}
	exp := reference.Expect(c, prof)
	for _, v := range vs {
		b := optimized.New(prof, v.opts...)
		before := snapshot(c)
		res, err := b.Run(c)
		if !maps.Equal(before, snapshot(c)) {
			t.Fatalf("%s %v: the backend modified its inputs: %s", v.name, prof, describe(c))
		}
		if jerr := exp.Check(v.level, res, err); jerr != nil {
			t.Fatalf("%s %v at %v: %s\n%v", v.name, prof, v.level, describe(c), jerr)
		}
	}
}

// fastShare counts, per operation, the calls a fast path took.
type fastShare map[string][2]int

func (f fastShare) note(prof scatter.Profile, c scatter.Call) {
	_, ok := optimized.Fast(optimized.New(prof), c)
	k := string(c.Op())
	x := f[k]
	x[1]++
	if ok {
		x[0]++
	}
	f[k] = x
}

func TestDifferentialRandom(t *testing.T) {
	share := fastShare{}
	defer func() { t.Logf("fast path taken (of calls): %v", share) }()
	for _, prof := range scatter.Profiles {
		g := &gen{r: rand.New(rand.NewSource(int64(prof) + 1))}
		cases := 48
		if testing.Short() {
			cases = 12
		}
		for i := 0; i < cases; i++ {
			g.special = []float64{0, 0.001, 0.05}[i%3]
			n := 40_000 + g.r.Intn(40_000)
			if i%12 == 0 {
				n = 200_000
			}
			c := g.randomCall(prof, n)
			share.note(prof, c)
			// the default and deterministic backends, and two of the
			// forced paths in turn
			forced := variants[2:]
			checkCall(t, prof, c, variants[0], variants[1], forced[i%len(forced)], forced[(i+2)%len(forced)])
		}
	}
}

// Small calls: every path forced on calls of a few elements, many of them.
func TestDifferentialSmall(t *testing.T) {
	for _, prof := range scatter.Profiles {
		g := &gen{r: rand.New(rand.NewSource(int64(prof) + 100))}
		for i := 0; i < 600; i++ {
			g.special = []float64{0, 0.1, 0.3}[i%3]
			checkCall(t, prof, g.randomCall(prof, 1+g.r.Intn(40)))
		}
	}
}

// Invalid calls: one index value out of range (too large or negative) at a
// random position. The fast paths must notice it before anything is
// written and answer PyTorch's error, which the strict variants must give
// exactly.
func TestDifferentialErrors(t *testing.T) {
	for _, prof := range scatter.Profiles {
		g := &gen{r: rand.New(rand.NewSource(int64(prof) + 200))}
		for i := 0; i < 40; i++ {
			n := 40_000 + g.r.Intn(20_000)
			if i%2 == 0 {
				n = 1 + g.r.Intn(50)
			}
			c := g.randomCall(prof, n)
			idx := c.Tensors()["index"]
			pos := idx.Positions()
			p := pos[g.r.Intn(len(pos))]
			bad := []int64{-1, 1 << 40, -(1 << 40), 1 << 20}[g.r.Intn(4)]
			switch d := idx.Data.(type) {
			case []int64:
				d[p] = bad
			case []int32:
				d[p] = int32(bad)
			}
			checkCall(t, prof, c)
		}
	}
}

// The standard workloads scaled down 100x, on every variant, under both
// profiles: the paths the benchmarks time are the paths checked here.
func TestDifferentialWorkloads(t *testing.T) {
	for _, prof := range scatter.Profiles {
		for w := 1; w <= 7; w++ {
			c := makeWorkload(w, 100).call
			if _, ok := optimized.Fast(optimized.New(prof), c); !ok {
				t.Errorf("W%d (scaled) does not take a fast path", w)
			}
			checkCall(t, prof, c)
		}
	}
}

// A float32 mean with include_self into a few outputs, so that every
// count runs into the thousands; then the same call with a bad index at
// the end (in the last worker's chunk).
func TestMeanManyContributions(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, size := range []int{1, 3, 70} {
		n := 200_000
		idx := make([]int64, n)
		for k := range idx {
			idx[k] = r.Int63n(int64(size))
		}
		src := make([]float32, n)
		for k := range src {
			src[k] = float32(r.Intn(9) - 4)
		}
		self := []float32{float32(math.Copysign(0, -1)), 5, 2.5}[:min(size, 3)]
		for len(self) < size {
			self = append(self, float32(len(self)))
		}
		c := scatter.ScatterReduce{Self: scatter.FromSlice(self), Index: scatter.FromSlice(idx),
			Src: scatter.FromSlice(src), Reduce: scatter.ReduceMean}
		for _, prof := range scatter.Profiles {
			checkCall(t, prof, c, append(slices.Clone(variants), two)...)
		}
		bad := slices.Clone(idx)
		bad[n-1] = int64(size)
		c.Index = scatter.FromSlice(bad)
		checkCall(t, scatter.Torch2, c, append(slices.Clone(variants), two)...)
	}
	// an output past directMinBytes: the (sum, count) records by default
	// (meanRecs), on the default backend and on two workers; then a bad
	// index at the end
	n, size := 600_000, 300_000
	idx := make([]int64, n)
	src := make([]float32, n)
	for k := range idx {
		idx[k], src[k] = r.Int63n(int64(size)), float32(r.Intn(9)-4)
	}
	self := make([]float32, size)
	for i := range self {
		self[i] = float32(i % 7)
	}
	c := scatter.ScatterReduce{Self: scatter.FromSlice(self), Index: scatter.FromSlice(idx),
		Src: scatter.FromSlice(src), Reduce: scatter.ReduceMean}
	checkCall(t, scatter.Torch2, c, variants[0], two)
	bad := slices.Clone(idx)
	bad[n-1] = int64(size)
	c.Index = scatter.FromSlice(bad)
	checkCall(t, scatter.Torch2, c, variants[0], two)
}

// two is the private path on two workers (the quick merges of two
// accumulator sets).
var two = variant{"private/2", []optimized.Option{optimized.Workers(2), optimized.ForcePath("private")}, scatter.Conformant}
