//go:build linux

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// The differential test through the emulated device: random calls of the
// five GPU operations, larger than the spec's (up to a few thousand
// contributions, so that several blocks, grid-stride loops and every
// kernel path run), each judged by the reference: at the conformant level
// in the atomic mode, under every planner policy (rows, shared-memory
// privatisation, warp pre-aggregation, table mode, the linear path,
// compare-and-swap sums), and at the strict level in the deterministic
// mode.

var policies = []struct {
	name string
	pol  policy
}{
	{"default", policy{}},
	{"no-fast-paths", policy{noRows: true, noSmem: true, noWarpAgg: true, noLinear: true}},
	{"smem", policy{forceSmem: true}},
	{"warpagg", policy{forceWarpAgg: true, noSmem: true}},
	{"table", policy{forceTable: true}},
	{"cas-add", policy{forceCASAdd: true}},
}

// backendMaker returns the backend random calls run on for a profile and
// a configuration, or skips t.
type backendMaker func(t testing.TB, p scatter.Profile, cfg config) *backend

type backendCache struct {
	mu sync.Mutex
	m  map[string]*backend
	mk backendMaker
}

func (c *backendCache) get(t testing.TB, p scatter.Profile, cfg config, key string) *backend {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := fmt.Sprintf("%v/%v/%s", p, cfg.deterministic, key)
	if b := c.m[k]; b != nil {
		return b
	}
	b := c.mk(t, p, cfg)
	c.m[k] = b
	return b
}

func randSeed(t *testing.T) uint64 {
	if s, err := strconv.ParseUint(os.Getenv("SCATTER_RANDOM_SEED"), 10, 64); err == nil {
		return s
	}
	s := rand.Uint64()
	t.Logf("seed %d (rerun with SCATTER_RANDOM_SEED=%d SCATTER_EMU_SEED=%d)", s, s, emuSeed)
	return s
}

func TestEmuRandomCalls(t *testing.T) {
	if _, why := gxx(); why != "" {
		t.Skip(why)
	}
	// notRun lists the kernels the host may launch that have not run yet.
	notRun := func() []string {
		var ks []string
		for _, k := range kernelNames() {
			if _, ok := launched.Load(k); !ok && k != "probe_atomics" {
				ks = append(ks, k)
			}
		}
		return ks
	}
	n := randomCalls(t, func(t testing.TB, p scatter.Profile, cfg config) *backend {
		b, why := emuBackend(p, cfg)
		if why != "" {
			t.Skip(why)
		}
		return b
	}, func() bool { return len(notRun()) > 0 })
	if n >= coverageCalls && !t.Failed() {
		// every kernel the host launches ran at least once: a kernel
		// the drawn calls cannot reach fails here
		for _, k := range notRun() {
			t.Errorf("kernel %s never ran in %d random calls", k, n)
		}
	}
}

// TestGPURandomCalls is the same test on the real GPU (it skips without one).
func TestGPURandomCalls(t *testing.T) {
	randomCalls(t, func(t testing.TB, p scatter.Profile, cfg config) *backend {
		b := New(p).(*backend)
		if b.unavailable != "" {
			t.Skipf("no GPU: %s", b.unavailable)
		}
		b.cfg = cfg
		return b
	}, nil)
}

// coverageCalls is the number of random calls from which every kernel
// must have run (fewer, as under -short, check no coverage).
const coverageCalls = 700

// randomCalls runs the random calls through the backends mk makes, then,
// when there are coverageCalls of them at least, more while want (when
// given) asks for them, up to 4 times as many (a
// kernel that only a rare draw reaches, such as a shared-memory bfloat16
// kernel under one policy, is missed by some seeds of the first calls), and
// returns how many it ran.
func randomCalls(t *testing.T, mk backendMaker, want func() bool) int {
	cache := &backendCache{m: map[string]*backend{}, mk: mk}
	seed := randSeed(t)
	n := coverageCalls
	if testing.Short() {
		n = 100
	}
	if s, err := strconv.Atoi(os.Getenv("SCATTER_RANDOM_CALLS")); err == nil {
		n = s
	}
	g := &callGen{r: rand.New(rand.NewPCG(seed, 1))}
	fails, ran := 0, 0
	for ; fails < 10 && (ran < n || want != nil && n >= coverageCalls && ran < 5*n && want()); ran++ {
		c := g.call()
		for _, prof := range scatter.Profiles {
			for _, pc := range policies {
				b := cache.get(t, prof, config{pol: pc.pol}, pc.name)
				if err := judgeRun(b, c, prof, scatter.Conformant); err != nil {
					t.Errorf("call %d, atomic mode, policy %s: %v", ran, pc.name, err)
					fails++
				}
			}
			b := cache.get(t, prof, config{deterministic: true}, "deterministic")
			if err := judgeRun(b, c, prof, scatter.Strict); err != nil {
				t.Errorf("call %d, deterministic mode: %v", ran, err)
				fails++
			}
		}
	}
	var gpu, ref, oob int64
	for _, b := range cache.m {
		gpu += b.stats.gpu.Load()
		ref += b.stats.ref.Load()
		oob += b.stats.oob.Load()
	}
	t.Logf("%d calls: %d runs on the device (%d of them found an index out of range), %d answered by the reference", ran, gpu, oob, ref)
	if gpu < ref {
		t.Errorf("most calls never reached the device: the test is too weak")
	}
	return ran
}

// judgeRun runs c on b and judges the outcome.
func judgeRun(b *backend, c scatter.Call, prof scatter.Profile, lvl scatter.Level) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	res, rerr := b.Run(c)
	if rerr != nil && scatter.CodeOf(rerr) == 0 {
		return fmt.Errorf("device error: %v", rerr)
	}
	return reference.Judge(c, prof, lvl, res, rerr)
}

// callGen generates calls of the five GPU operations.
type callGen struct{ r *rand.Rand }

func (g *callGen) pick(n int) int { return g.r.IntN(n) }

func (g *callGen) dtype() scatter.DType {
	w := []scatter.DType{scatter.DTFloat32, scatter.DTFloat32, scatter.DTFloat32, scatter.DTFloat64,
		scatter.DTFloat16, scatter.DTBFloat16, scatter.DTInt64, scatter.DTInt32, scatter.DTInt16,
		scatter.DTInt8, scatter.DTUint8, scatter.DTBool}
	return w[g.pick(len(w))]
}

// values returns n values of dtype dt: small integers (exact sums), or
// spread floats, with NaN, infinities and signed zeros now and then.
func (g *callGen) values(dt scatter.DType, n int) any {
	data := scatter.MakeData(dt, n)
	small := g.pick(2) == 0
	special := g.pick(4) == 0
	for i := 0; i < n; i++ {
		var f float64
		if small {
			f = float64(g.pick(9) - 4)
		} else {
			f = g.r.NormFloat64() * math.Pow(2, float64(g.pick(9)-4))
		}
		if special && g.pick(16) == 0 {
			f = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}[g.pick(5)]
		}
		switch d := data.(type) {
		case []float32:
			d[i] = float32(f)
		case []float64:
			d[i] = f
		case []scatter.Float16:
			d[i] = scatter.Float16FromFloat64(f)
		case []scatter.BFloat16:
			d[i] = scatter.BFloat16FromFloat64(f)
		case []bool:
			d[i] = g.pick(2) == 0
		case []int64:
			d[i] = int64(g.r.Uint64() >> g.pick(64))
			if small {
				d[i] = int64(g.pick(9) - 4)
			}
		case []int32:
			d[i] = int32(g.r.Uint32() >> g.pick(32))
			if small {
				d[i] = int32(g.pick(9) - 4)
			}
		case []int16:
			d[i] = int16(g.r.Uint32())
			if small {
				d[i] = int16(g.pick(9) - 4)
			}
		case []int8:
			d[i] = int8(g.r.Uint32())
			if small {
				d[i] = int8(g.pick(9) - 4)
			}
		case []uint8:
			d[i] = uint8(g.r.Uint32())
			if small {
				d[i] = uint8(g.pick(5))
			}
		}
	}
	return data
}

// tensor returns a tensor of the shape, sometimes as a strided or offset
// view of a larger buffer (a transposed last pair of dims, or padding).
func (g *callGen) tensor(dt scatter.DType, shape []int) scatter.Tensor {
	n := scatter.Numel(shape)
	switch g.pick(4) {
	case 0: // offset and padded rows
		if len(shape) == 0 {
			break
		}
		pad := 1 + g.pick(3)
		off := g.pick(3)
		st := make([]int, len(shape))
		s := 1
		for d := len(shape) - 1; d >= 0; d-- {
			st[d] = s
			w := shape[d]
			if d == len(shape)-1 {
				w += pad
			}
			s *= max(w, 1)
		}
		return scatter.Tensor{Shape: shape, Strides: st, Offset: off, Data: g.values(dt, off+s)}
	case 1: // transposed: the last two dims swapped in memory
		if len(shape) < 2 {
			break
		}
		k := len(shape)
		mem := append([]int{}, shape...)
		mem[k-1], mem[k-2] = mem[k-2], mem[k-1]
		cst := scatter.ContiguousStrides(mem)
		st := append([]int{}, cst...)
		st[k-1], st[k-2] = cst[k-2], cst[k-1]
		return scatter.Tensor{Shape: shape, Strides: st, Data: g.values(dt, n)}
	}
	return scatter.Tensor{Shape: shape, Data: g.values(dt, n)}
}

// index returns an index tensor of the shape with values in [0, size),
// possibly one value out of range, in int64 or int32.
func (g *callGen) index(shape []int, size int, dt scatter.DType) scatter.Tensor {
	n := scatter.Numel(shape)
	vals := make([]int64, n)
	hot := max(1, g.pick(size+1)) // concentrate on a few targets sometimes
	sorted := g.pick(4) == 0
	for i := range vals {
		if g.pick(3) == 0 {
			vals[i] = int64(g.pick(hot))
		} else {
			vals[i] = int64(g.pick(max(size, 1)))
		}
	}
	if sorted {
		for i := 1; i < n; i++ {
			for j := i; j > 0 && vals[j] < vals[j-1]; j-- {
				vals[j], vals[j-1] = vals[j-1], vals[j]
			}
		}
	}
	if n > 0 && g.pick(12) == 0 {
		vals[g.pick(n)] = []int64{-1, int64(size), int64(size) + 7, math.MinInt32}[g.pick(4)]
	}
	if dt == scatter.DTInt32 {
		v32 := make([]int32, n)
		for i, v := range vals {
			v32[i] = int32(v)
		}
		return scatter.Tensor{Shape: shape, Data: v32}
	}
	return scatter.Tensor{Shape: shape, Data: vals}
}

func (g *callGen) indexDType() scatter.DType {
	if g.pick(4) == 0 {
		return scatter.DTInt32
	}
	return scatter.DTInt64
}

// size returns a dimension size, small mostly, large sometimes.
func (g *callGen) size() int {
	switch g.pick(7) {
	case 6:
		if g.pick(4) == 0 {
			return 0
		}
		return 2
	case 0:
		return 1
	case 1:
		return 16 + g.pick(100)
	}
	return 1 + g.pick(6)
}

func (g *callGen) call() scatter.Call {
	switch g.pick(10) {
	case 0, 1:
		return g.scatter1d()
	case 2, 3:
		return g.rowScatter()
	case 4, 5:
		return g.dimScatter()
	case 6, 7:
		return g.indexReduce()
	}
	return g.gather()
}

// reduceCall wraps self, index, src into one of the scatter operations.
func (g *callGen) reduceCall(self, index, src scatter.Tensor, dim int) scatter.Call {
	switch g.pick(8) {
	case 0:
		return scatter.ScatterAdd{Self: self, Dim: dim, Index: index, Src: src}
	case 1:
		r := []scatter.Reduce{scatter.ReduceNone, scatter.ReduceAdd, scatter.ReduceMultiply}[g.pick(3)]
		if g.pick(3) == 0 {
			v := scatter.Int(int64(g.pick(5) - 2))
			if self.DType().IsFloat() && g.pick(2) == 0 {
				v = scatter.Float(g.r.NormFloat64())
			}
			return scatter.Scatter{Self: self, Dim: dim, Index: index, Value: &v, Reduce: r}
		}
		return scatter.Scatter{Self: self, Dim: dim, Index: index, Src: src, Reduce: r}
	}
	rs := []scatter.Reduce{scatter.ReduceSum, scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin}
	r := rs[g.pick(len(rs))]
	if r == scatter.ReduceMean && self.DType() == scatter.DTBool {
		r = scatter.ReduceAmax
	}
	return scatter.ScatterReduce{Self: self, Dim: dim, Index: index, Src: src, Reduce: r, ExcludeSelf: g.pick(2) == 0}
}

// scatter1d: many contributions into few outputs (contention), or spread.
func (g *callGen) scatter1d() scatter.Call {
	dt := g.dtype()
	m := []int{1, 2, 3, 8, 16, 37, 200, 1000}[g.pick(8)]
	n := 1 + g.pick(3000)
	if g.pick(3) == 0 {
		n = 1 + g.pick(40)
	}
	self := g.tensor(dt, []int{m})
	src := g.tensor(dt, []int{n + g.pick(3)})
	return g.reduceCall(self, g.index([]int{n}, m, g.indexDType()), src, 0)
}

// rowScatter: an index expanded along the inner dims (stride 0), as PyG's
// scatter does: the row kernel.
func (g *callGen) rowScatter() scatter.Call {
	dt := g.dtype()
	B := []int{1, 2, 3, 4, 8, 12, 17, 64, 100}[g.pick(9)]
	M := 1 + g.pick(40)
	n := 1 + g.pick(200)
	idx := g.index([]int{n}, M, g.indexDType())
	if g.pick(3) == 0 {
		// 3-d: self [A, M, B], dim 1
		A := 1 + g.pick(3)
		self := g.tensor(dt, []int{A, M, B})
		i2 := g.index([]int{A, n}, M, g.indexDType())
		ex := scatter.Tensor{Shape: []int{A, n, B}, Strides: []int{n, 1, 0}, Data: i2.Data}
		return g.reduceCall(self, ex, g.tensor(dt, []int{A, n, B}), 1)
	}
	self := g.tensor(dt, []int{M, B + g.pick(2)})
	ex := scatter.Tensor{Shape: []int{n, B}, Strides: []int{1, 0}, Data: idx.Data}
	return g.reduceCall(self, ex, g.tensor(dt, []int{n, B}), 0)
}

// dimScatter: random ranks, dims and sizes, index smaller than self and
// src in some dims (which may force the table mode).
func (g *callGen) dimScatter() scatter.Call {
	dt := g.dtype()
	rank := 1 + g.pick(3)
	S := make([]int, rank)
	for i := range S {
		S[i] = g.size()
	}
	dim := g.pick(rank)
	I := make([]int, rank)
	R := make([]int, rank)
	for i := range I {
		if i == dim {
			I[i] = 1 + g.pick(2*S[i]+3)
		} else {
			I[i] = S[i]
			if g.pick(4) == 0 {
				I[i] = g.pick(S[i] + 1)
			}
		}
		R[i] = I[i] + g.pick(2)
	}
	wrap := dim
	if g.pick(3) == 0 {
		wrap = dim - rank
	}
	return g.reduceCall(g.tensor(dt, S), g.index(I, S[dim], g.indexDType()), g.tensor(dt, R), wrap)
}

func (g *callGen) indexReduce() scatter.Call {
	dt := g.dtype()
	if dt == scatter.DTBool {
		dt = scatter.DTFloat32
	}
	rank := 1 + g.pick(3)
	S := make([]int, rank)
	for i := range S {
		S[i] = g.size()
	}
	dim := g.pick(rank)
	K := 1 + g.pick(3*S[dim]+2)
	src := append([]int{}, S...)
	src[dim] = K
	if rank > 1 && g.pick(4) == 0 {
		// a source slice that broadcasts
		for i := range src {
			if i != dim && g.pick(2) == 0 {
				src[i] = 1
			}
		}
	}
	r := []scatter.Reduce{scatter.ReduceProd, scatter.ReduceMean, scatter.ReduceAmax, scatter.ReduceAmin}[g.pick(4)]
	return scatter.IndexReduce{Self: g.tensor(dt, S), Dim: dim, Index: g.index([]int{K}, S[dim], g.indexDType()),
		Source: g.tensor(dt, src), Reduce: r, ExcludeSelf: g.pick(2) == 0}
}

func (g *callGen) gather() scatter.Call {
	dt := g.dtype()
	rank := 1 + g.pick(3)
	S := make([]int, rank)
	for i := range S {
		S[i] = g.size()
	}
	dim := g.pick(rank)
	I := make([]int, rank)
	for i := range I {
		if i == dim {
			I[i] = 1 + g.pick(2*S[i]+3)
		} else {
			I[i] = S[i]
			if g.pick(4) == 0 {
				I[i] = g.pick(S[i] + 1)
			}
		}
	}
	return scatter.Gather{Input: g.tensor(dt, S), Dim: dim, Index: g.index(I, S[dim], g.indexDType())}
}
