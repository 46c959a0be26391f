package cuda

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// Option configures New.
type Option func(*config)

type config struct {
	deterministic bool
	device        int
	pol           policy
}

// Deterministic makes the backend sort every call's contributions by
// output (a stable counting sort on the host) and fold each output's
// contributions in canonical order on the GPU: bit-exact with the
// reference, so the backend claims (and is judged at) the strict level.
// It is slower than the default atomic mode.
func Deterministic() Option { return func(c *config) { c.deterministic = true } }

// Device selects the GPU by its CUDA ordinal (default 0).
func Device(n int) Option { return func(c *config) { c.device = n } }

// policy disables or forces the planner's fast paths, so that the tests
// can run one call through every kernel. The zero policy is the normal
// choice.
type policy struct {
	noRows, noSmem, noWarpAgg, noLinear bool
	forceSmem, forceWarpAgg, forceTable bool
	forceCASAdd                         bool
}

// New returns the CUDA backend under profile p.
//
// The backend loads the CUDA driver (libcuda.so.1) and NVRTC
// (libnvrtc.so.*) at run time, with no cgo, and compiles its kernels
// (kernels/*.cu, embedded) for the exact architecture of the device,
// once per process (and, unless SCATTER_CUDA_CACHE=off, once per machine
// in the user's cache directory). Where that fails (no driver, no GPU,
// no NVRTC), Info().Unavailable says why, the suites skip the backend and
// Run answers scatter.ErrNotSupported.
//
// Every operation and dtype of the reference is claimed:
//
//   - scatter, scatter_add, scatter_reduce, index_reduce and gather run on
//     the GPU. Their cheap checks (dim, dtypes, ranks, sizes, reduce names,
//     scalar conversion) run on the host before anything is launched; index
//     values are checked by the kernels themselves, which skip and flag an
//     out-of-range value instead of writing. Any call that breaks a rule is
//     answered by the reference (reference.New(p).Run), so the error code
//     and its precedence are PyTorch's, exactly; the GPU never sees an
//     invalid call through to a result, never asserts and never hangs.
//   - torch_scatter.scatter_add, torch_scatter.scatter, tensor.scatter and
//     tensor.gather (the exotic operations) are validated and computed by
//     the reference on the host.
//
// In the default (atomic) mode, sums and products are combined in whatever
// order the hardware's atomics take, which the conformant level allows; with
// Deterministic the results are bit-exact with the reference.
func New(p scatter.Profile, opts ...Option) scatter.Backend {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	dev, err := openDevice(cfg.device)
	b := newBackend(dev, p, cfg)
	if err != nil {
		b.unavailable = err.Error()
	}
	return b
}

// newBackend returns a backend on dev (nil: unavailable).
func newBackend(dev device, p scatter.Profile, cfg config) *backend {
	b := &backend{prof: p, cfg: cfg, dev: dev, ref: reference.New(p)}
	if dev == nil {
		b.unavailable = "no device"
	}
	return b
}

type backend struct {
	prof        scatter.Profile
	cfg         config
	ref         scatter.Backend
	dev         device
	unavailable string
	stats       stats
}

// stats count how calls were answered (for the tests' coverage checks).
type stats struct {
	gpu, ref, oob atomic.Int64
}

func (b *backend) Info() scatter.Info {
	mode := "atomic"
	if b.cfg.deterministic {
		mode = "deterministic"
	}
	name := "no device"
	if b.dev != nil {
		name = b.dev.Name()
	}
	return scatter.Info{
		Name:          "cuda",
		Version:       fmt.Sprintf("%s, %s, %v", name, mode, b.prof),
		Deterministic: b.cfg.deterministic,
		Unavailable:   b.unavailable,
	}
}

// Run performs one call: on the GPU for the five PyTorch operations, on the
// host through the reference for the exotic ones and for every call that
// breaks a rule (see New).
func (b *backend) Run(c scatter.Call) (res scatter.Result, err error) {
	if b.unavailable != "" {
		return scatter.Result{}, scatter.Errorf(scatter.ErrNotSupported, "the CUDA backend is unavailable: %s", b.unavailable)
	}
	var prog *program
	switch c := c.(type) {
	case scatter.Scatter:
		prog, err = b.planScatter(c)
	case scatter.ScatterAdd:
		prog, err = b.planScatter(scatter.Scatter{Self: c.Self, Dim: c.Dim, Index: c.Index, Src: c.Src, Reduce: scatter.ReduceAdd})
	case scatter.ScatterReduce:
		prog, err = b.planScatterReduce(c)
	case scatter.IndexReduce:
		prog, err = b.planIndexReduce(c)
	case scatter.Gather:
		prog, err = b.planGather(c)
	default:
		b.stats.ref.Add(1)
		return b.ref.Run(c)
	}
	if err != nil {
		return scatter.Result{}, err
	}
	if prog == nil {
		// a rule is broken (or the call is trivial): the reference answers
		b.stats.ref.Add(1)
		return b.ref.Run(c)
	}
	b.stats.gpu.Add(1)
	out, err := b.execute(prog)
	if err == errIndexOutOfRange {
		b.stats.oob.Add(1)
		return b.ref.Run(c)
	}
	if err != nil {
		return scatter.Result{}, err
	}
	return scatter.Result{Out: out}, nil
}

var lockFor sync.Map // device -> *sync.Mutex

func (b *backend) lock() func() {
	m, _ := lockFor.LoadOrStore(b.dev, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}
