package optimized

import (
	"runtime"
	"slices"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// Option configures New.
type Option func(*backend)

// Workers sets the number of goroutines a call may use (default
// runtime.GOMAXPROCS(0); values below 1 mean 1).
func Workers(n int) Option {
	return func(b *backend) { b.workers = max(n, 1) }
}

// Deterministic routes every float sum, product and mean through the
// paths that fold each output element's contributions in canonical order
// (serial, or one owner per output range after a stable counting sort),
// so that results are bit-exact with the reference; the backend then
// claims Info().Deterministic and is judged at the strict level.
// Without it, float reductions may use private per-worker accumulators
// merged afterwards: faster, conformant, not canonical.
func Deterministic() Option {
	return func(b *backend) { b.det = true }
}

// New returns the optimized CPU backend under profile p: every operation
// and dtype of the suite. The common calls run on the fast paths of this
// package; the rest, and every call that breaks a rule, go to the
// reference (reference.New(p)), which gives PyTorch's error in PyTorch's
// order (doc.go lists which calls take which path).
func New(p scatter.Profile, opts ...Option) scatter.Backend {
	b := &backend{prof: p, workers: runtime.GOMAXPROCS(0), ref: reference.New(p), serialMax: serialMax}
	for _, o := range opts {
		o(b)
	}
	ensurePool(b.workers)
	return b
}

type backend struct {
	prof      scatter.Profile
	workers   int
	det       bool
	ref       scatter.Backend
	serialMax int    // below this many element operations, serial
	force     string // tests: "serial", "private" or "owner" instead of the heuristics
	ahead     int    // tests: the read-ahead window in chunks (0: aheadWindow; < 0: none)
	aheadUnit int    // tests: the read-ahead chunk in units, and any stream size (0: aheadChunk, aheadMinBytes)
	aheadTest int    // tests: aheadTestReaderFirst or aheadTestReaderLate (0: neither)
}

func (b *backend) Info() scatter.Info {
	v := b.prof.String()
	if b.det {
		v += ", deterministic"
	}
	if b.force != "" {
		v += ", forced " + b.force
	}
	return scatter.Info{Name: "optimized", Version: v, Deterministic: b.det}
}

// Run performs the call out of place: on a fast path when the call is
// valid and common, otherwise on the reference.
func (b *backend) Run(c scatter.Call) (scatter.Result, error) {
	if res, ok := b.fast(c); ok {
		return res, nil
	}
	return b.ref.Run(c)
}

// fast runs c on a fast path; ok is false when c is not for a fast path
// (exotic, or invalid: the reference then says why).
func (b *backend) fast(c scatter.Call) (scatter.Result, bool) {
	switch c := c.(type) {
	case scatter.Scatter:
		return b.scatter(c)
	case scatter.ScatterAdd:
		return b.scatter(scatter.Scatter{Self: c.Self, Dim: c.Dim, Index: c.Index, Src: c.Src, Reduce: scatter.ReduceAdd})
	case scatter.ScatterReduce:
		return b.scatterReduce(c)
	case scatter.IndexReduce:
		return b.indexReduce(c)
	case scatter.Gather:
		return b.gather(c)
	case scatter.TorchScatter:
		return b.torchScatter(c)
	}
	return scatter.Result{}, false
}

// exactOp reports whether partial results of op on dt merge exactly.
func exactOp(op opKind, dt scatter.DType) bool {
	return !dt.IsFloat() || op == opAmax || op == opAmin
}

// foldable reports whether the fast paths fold dt arithmetically.
func foldable(dt scatter.DType) bool {
	return dt != scatter.DTBool && dt.Valid()
}

// runTyped runs j on the element type of selfData (src of the same type);
// perStep is the 16-bit rounding rule.
func (b *backend) runTyped(j *rjob, selfData, srcData any, perStep bool) (any, bool) {
	if j.op == opAssign {
		switch d := selfData.(type) {
		case []bool:
			return runAssign(b, j, d, srcData)
		case []uint8:
			return runAssign(b, j, d, srcData)
		case []int8:
			return runAssign(b, j, d, srcData)
		case []int16:
			return runAssign(b, j, d, srcData)
		case []int32:
			return runAssign(b, j, d, srcData)
		case []int64:
			return runAssign(b, j, d, srcData)
		case []scatter.Float16:
			return runAssign(b, j, d, srcData)
		case []scatter.BFloat16:
			return runAssign(b, j, d, srcData)
		case []float32:
			return runAssign(b, j, d, srcData)
		case []float64:
			return runAssign(b, j, d, srcData)
		}
		return nil, false
	}
	switch d := selfData.(type) {
	case []uint8:
		return runNative(b, j, d, srcData)
	case []int8:
		return runNative(b, j, d, srcData)
	case []int16:
		return runNative(b, j, d, srcData)
	case []int32:
		return runNative(b, j, d, srcData)
	case []int64:
		return runNative(b, j, d, srcData)
	case []float32:
		return runNative(b, j, d, srcData)
	case []float64:
		return runNative(b, j, d, srcData)
	case []scatter.Float16:
		out, ok := runJob(b, halfFam(half{perStep: perStep}), j, bits16(d), bits16(srcData.([]scatter.Float16)))
		if !ok {
			return nil, false
		}
		return from16[scatter.Float16](out), true
	case []scatter.BFloat16:
		if perStep && j.op == opSum && !j.rowsKind && !j.fin.mean {
			out, ok := runJob(b, bf16StepFam(), j, bits16(d), bits16(srcData.([]scatter.BFloat16)))
			if !ok {
				return nil, false
			}
			return from16[scatter.BFloat16](out), true
		}
		out, ok := runJob(b, halfFam(half{bf: true, perStep: perStep}), j, bits16(d), bits16(srcData.([]scatter.BFloat16)))
		if !ok {
			return nil, false
		}
		return from16[scatter.BFloat16](out), true
	}
	return nil, false
}

func runNative[T num](b *backend, j *rjob, self []T, src any) (any, bool) {
	out, ok := runJob(b, nativeFam[T](), j, self, src.([]T))
	if !ok {
		return nil, false
	}
	return out, true
}

func runAssign[T any](b *backend, j *rjob, self []T, src any) (any, bool) {
	out, ok := runJob(b, assignFam[T](), j, self, src.([]T))
	if !ok {
		return nil, false
	}
	return out, true
}

// result wraps output data in a tensor of the given shape.
func result(shape []int, data any) scatter.Result {
	return scatter.Result{Out: scatter.Tensor{Shape: slices.Clone(shape), Data: data}}
}
