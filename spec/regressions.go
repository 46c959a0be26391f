package spec

import "github.com/scatterconf/scatter"

// regressions returns one named entry per disagreement that the live
// differential test (package live) found between the oracle and PyTorch,
// each the minimal call with PyTorch's outcome, run on torch 1.13.1
// through tools/adapters/torch_adapter.py. The reference was fixed to
// match; these entries keep it so.
func regressions() []Case {
	const F32 = scatter.DTFloat32
	reg := func(op scatter.Op, dt scatter.DType, rule string, features ...string) (string, []string) {
		return string(op) + "/" + dt.String() + "/" + rule + "/regression",
			append([]string{string(op), dt.String(), "regression"}, features...)
	}
	const srcLive = "live differential test (package live), torch 1.13.1 CPU"
	const srcTS = srcLive + "; torch_scatter 2.x csrc/cpu/scatter_cpu.cpp as tools/adapters/torch_adapter.py emulates it"
	var cs []Case
	add := func(name string, labels []string, source string, c Case) {
		c.Name, c.Labels, c.Source = name, labels, source
		cs = append(cs, c)
	}

	// index_reduce_ on a multi-dim self takes self.select(dim, 0) and
	// source.select(dim, 0) before its loop: a 0-d source raises
	// "select() cannot be applied to a 0-dim tensor" (the oracle took it
	// as a broadcasting slice).
	name, labels := reg(scatter.OpIndexReduce, F32, "0-d-source-multi-dim-self", "shape-rule")
	add(name, labels, srcLive+`: torch.zeros(2,1,1).index_reduce_(0, t([1]), t(5.), 'prod', include_self=False)`+
		` raises IndexError: select() cannot be applied to a 0-dim tensor.`, Case{
		Call: scatter.IndexReduce{Self: z(F32, 2, 1, 1), Dim: 0, Index: i64(1), Source: shape(f32(5)),
			Reduce: scatter.ReduceProd, ExcludeSelf: true},
		WantErr: scatter.ErrShapeMismatch, Profiles: onlyTorch113,
	})
	name, labels = reg(scatter.OpIndexReduce, scatter.DTBool, "0-d-source-multi-dim-self", "shape-rule")
	add(name, labels, srcLive+" (the shrunk case): the 0-d source fails before bool's dispatch", Case{
		Call: scatter.IndexReduce{Self: shape(bools(false), 1, 1), Dim: 0, Index: i64(0), Source: shape(bools(false)),
			Reduce: scatter.ReduceProd},
		WantErr: scatter.ErrShapeMismatch, Profiles: onlyTorch113,
	})
	// ... and self.select(dim, 0) of an empty dim comes first of all:
	// "select(): index 0 out of range for tensor of size [0, 3] at
	// dimension 0", before the slice broadcast.
	name, labels = reg(scatter.OpIndexReduce, F32, "empty-self-dim-before-broadcast", "shape-rule", "zero-size")
	add(name, labels, srcLive+`: torch.zeros(0,3).index_reduce_(0, t([0]), torch.ones(1,2), 'prod')`+
		` raises IndexError: select(): index 0 out of range for tensor of size [0, 3] at dimension 0`, Case{
		Call:    scatter.IndexReduce{Self: z(F32, 0, 3), Dim: 0, Index: i64(0), Source: full(F32, 1, 1, 2), Reduce: scatter.ReduceProd},
		WantErr: scatter.ErrIndexOutOfRange, Profiles: onlyTorch113,
	})

	// index_reduce_ with include_self=False checks the index values in
	// its index_fill_, which checks as it fills: on a self of no elements
	// (but no empty dim along dim) nothing, and the slices' broadcast
	// (torch 1.13) or the exact shape rule (2.x) comes first; with a
	// source of the right shape, the loop's own check then finds the
	// value. Found by the gate's random part at the strict level on a
	// call broken twice.
	const srcTwice = "the gate's random part at the strict level (a call broken twice), torch 1.13.1 CPU"
	name, labels = reg(scatter.OpIndexReduce, F32, "include_self=false/empty-self/shape-before-index", "shape-rule", "out-of-bounds", "zero-size", "include_self")
	add(name, labels, srcTwice+`: torch.zeros(0,1).index_reduce_(1, t([1,0,0]), torch.zeros(2,3), 'prod', include_self=False)`+
		` raises RuntimeError: The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 0`+
		` (2.6.0 and 2.14.1: source tensor shape must match self tensor shape)`, Case{
		Call: scatter.IndexReduce{Self: z(F32, 0, 1), Dim: 1, Index: i64(1, 0, 0), Source: z(F32, 2, 3),
			Reduce: scatter.ReduceProd, ExcludeSelf: true},
		WantErr: scatter.ErrShapeMismatch,
	})
	name, labels = reg(scatter.OpIndexReduce, F32, "include_self=false/empty-self/index-after-shape", "out-of-bounds", "zero-size", "include_self")
	add(name, labels, srcTwice+` (the same call with source's shape right): torch.zeros(0,1).index_reduce_(1, t([1,0,0]), torch.zeros(0,3), 'prod', include_self=False)`+
		` raises IndexError: index out of range in self (1.13.1, 2.6.0, 2.14.1)`, Case{
		Call: scatter.IndexReduce{Self: z(F32, 0, 1), Dim: 1, Index: i64(1, 0, 0), Source: z(F32, 0, 3),
			Reduce: scatter.ReduceProd, ExcludeSelf: true},
		WantErr: scatter.ErrIndexOutOfRange,
	})

	// torch_scatter's scatter_cpu returns a given out untouched when src is
	// empty, before its dtype dispatch: out's dtype is not checked, nor
	// the index's (except by min/max, whose arg is read as int64 first).
	name, labels = reg(scatter.OpTorchScatter, F32, "max/empty-src-out-of-another-dtype", "torch_scatter", "zero-size")
	add(name, labels, srcTS+": scatter_max(zeros(0), tensor([], dtype=long), out=tensor([7, 8])) -> (tensor([7, 8]), tensor([0, 0]))", Case{
		Call:    scatter.TorchScatter{Src: f32(), Index: i64(), Out: i64(7, 8), Reduce: scatter.ReduceMax},
		Want:    i64(7, 8),
		WantArg: i64(0, 0),
	})
	name, labels = reg(scatter.OpTorchScatter, F32, "mul/empty-src-int32-index", "torch_scatter", "zero-size")
	add(name, labels, srcTS+": scatter_mul(zeros(0), tensor([], dtype=int32), out=ones(2)) -> ones(2)", Case{
		Call: scatter.TorchScatter{Src: f32(), Index: i32(), Out: f32(1, 1), Reduce: scatter.ReduceMul},
		Want: f32(1, 1),
	})
	// ... and checks out.size(i) == src.size(i) for i != dim over out's
	// dimensions: past src's last one, src.size(i) raises "Dimension out
	// of range"; out.size(dim) does the same for an out of fewer
	// dimensions. (An out of fewer dimensions that reaches the kernel
	// would be written past its end; the suite rejects it.)
	name, labels = reg(scatter.OpTorchScatter, F32, "max/out-of-more-dims", "torch_scatter", "shape-rule")
	add(name, labels, srcTS+": scatter_max(tensor([1., 2., 3.]), tensor([0, 1, 0]), out=zeros(2, 2)) raises"+
		" IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)", Case{
		Call:    scatter.TorchScatter{Src: f32(1, 2, 3), Index: i64(0, 1, 0), Out: z(F32, 2, 2), Reduce: scatter.ReduceMax},
		WantErr: scatter.ErrDimOutOfRange,
	})
	name, labels = reg(scatter.OpTorchScatter, F32, "mul/out-of-fewer-dims", "torch_scatter", "shape-rule")
	add(name, labels, srcTS+": scatter_mul(ones(2, 3), tensor([0, 1, 0]), dim=1, out=zeros(2)) raises"+
		" IndexError at out.size(1)", Case{
		Call: scatter.TorchScatter{Src: full(F32, 1, 2, 3), Index: i64(0, 1, 0), Dim: scatter.Ptr(1), Out: z(F32, 2),
			Reduce: scatter.ReduceMul},
		WantErr: scatter.ErrDimOutOfRange,
	})
	name, labels = reg(scatter.OpTorchScatter, F32, "mul/out-of-fewer-dims-written-past", "torch_scatter", "shape-rule")
	add(name, labels, srcTS+": scatter_mul(ones(2, 3), tensor([0, 1]), dim=0, out=zeros(5)) would write past out;"+
		" the adapter and the suite reject it", Case{
		Call: scatter.TorchScatter{Src: full(F32, 1, 2, 3), Index: i64(0, 1), Dim: scatter.Ptr(0), Out: z(F32, 5),
			Reduce: scatter.ReduceMul},
		WantErr: scatter.ErrShapeMismatch,
	})
	return cs
}
