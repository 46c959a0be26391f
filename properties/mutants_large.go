package properties

import (
	"github.com/scatterconf/scatter"
)

// largeCall is the number of contributions past which the mutant
// large-tail-dropped loses the last one: 2^16, where implementations
// commonly leave their serial loop for a parallel or blocked one.
const largeCall = 1 << 16

// largeTailDropped runs the mutant large-tail-dropped: a call of more
// than 2^16 contributions (or, for a gather, output elements) goes
// through a blocked path whose last block ends one short, so the last
// contribution in row-major order is never applied (a gather leaves the
// last output element at zero); smaller calls are right. Errors are the
// base's: the full call is validated first, as the real path would be.
//
// The lost contribution is sent to an extra slice appended to the output
// along dim, which is cut off the result (toExtra, as dropUpdates does),
// so the rest of the call (the output's size, what is untouched,
// torch_scatter's inferred size) is as the full call has it. The spec's
// large cases kill it (spec's TestSpecKillsMutants); the properties'
// default tier stays under 4096 elements.
func largeTailDropped(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	if err != nil {
		return res, err
	}
	switch x := c.(type) {
	case scatter.Scatter, scatter.ScatterAdd, scatter.ScatterReduce:
		self, dim, index, src := dimParts(c)
		if index.NumEl() <= largeCall {
			return res, nil
		}
		d, _ := scatter.WrapDim(dim, self.Dim())
		return lastToExtra(b, res, d, func(idx scatter.Tensor) scatter.Call {
			return withDimParts(c, extendAlong(self, d), idx, src)
		}, index, self.Shape[d]), nil
	case scatter.IndexReduce:
		if x.Source.NumEl() <= largeCall {
			return res, nil
		}
		d, _ := scatter.WrapDim(x.Dim, x.Self.Dim())
		size, self := x.Self.Shape[d], x.Self
		return lastToExtra(b, res, d, func(idx scatter.Tensor) scatter.Call {
			x.Self, x.Index = extendAlong(self, d), idx
			return x
		}, x.Index, size), nil
	case scatter.TorchScatter:
		return tsTailDropped(b, res, x.Src, x.Index, x.Dim, x.Out, func(idx, out scatter.Tensor, dimSize *int) scatter.Call {
			x.Index, x.Out, x.DimSize = idx, out, dimSize
			return x
		})
	case scatter.TorchScatterAdd:
		return tsTailDropped(b, res, x.Src, x.Index, x.Dim, x.Out, func(idx, out scatter.Tensor, dimSize *int) scatter.Call {
			x.Index, x.Out, x.DimSize = idx, out, dimSize
			return x
		})
	case scatter.TensorScatter:
		// the F# scatter's first target dimension, where its index is
		// given in src's shape
		if x.Src.NumEl() <= largeCall || len(x.Indices) == 0 || x.Indices[0].Data == nil || x.Indices[0].NumEl() != x.Src.NumEl() {
			return res, nil
		}
		size := x.Shape[0]
		indices, shape := x.Indices, x.Shape
		return lastToExtra(b, res, 0, func(idx scatter.Tensor) scatter.Call {
			x.Indices = append([]scatter.Tensor{idx}, indices[1:]...)
			x.Shape = append([]int{size + 1}, shape[1:]...)
			return x
		}, x.Indices[0], size), nil
	case scatter.Gather, scatter.TensorGather:
		if res.Out.NumEl() <= largeCall {
			return res, nil
		}
		out := scatter.CloneTensor(res.Out.Contiguous())
		zero, _ := scatter.Zeros(out.DType(), 1)
		scatter.CopyElem(out.Data, out.NumEl()-1, zero.Data, 0)
		return scatter.Result{Out: out}, nil
	}
	return res, nil
}

// tsTailDropped is largeTailDropped for torch_scatter's two calls, whose
// output, out or dim_size, takes the extra slice. Its index is 1-d
// (broadcast along dim: its last element stands for a fiber of src) or
// src's rank; with another, the mutant leaves the call alone.
func tsTailDropped(b scatter.Backend, res scatter.Result, src, index scatter.Tensor, dim *int, out scatter.Tensor,
	with func(idx, out scatter.Tensor, dimSize *int) scatter.Call) (scatter.Result, error) {
	if src.NumEl() <= largeCall || index.Dim() != 1 && index.Dim() != src.Dim() {
		return res, nil
	}
	dd := -1
	if dim != nil {
		dd = *dim
	}
	d, _ := scatter.WrapDim(dd, res.Out.Dim())
	size := res.Out.Shape[d]
	return lastToExtra(b, res, d, func(idx scatter.Tensor) scatter.Call {
		if out.Data != nil {
			return with(idx, extendAlong(out, d), nil)
		}
		return with(idx, out, scatter.Ptr(size+1))
	}, index, size), nil
}

// lastToExtra runs the call that with(idx) builds without index's last
// element (row-major), sent to the extra slice along d (toExtra), or
// returns full, the full call's result, where that call fails.
func lastToExtra(b scatter.Backend, full scatter.Result, d int, with func(idx scatter.Tensor) scatter.Call, index scatter.Tensor, size int) scatter.Result {
	last := index.NumEl() - 1
	if r, ok := toExtra(b, index, d, size, func(q int, _ int64) bool { return q == last }, with); ok {
		return r
	}
	return full
}
