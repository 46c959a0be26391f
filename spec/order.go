package spec

import (
	"github.com/scatterconf/scatter"
)

// orderCases returns float32 and float64 sums and means whose canonical
// order, the contributions folded one after another in index order into
// self (into the identity 0 without self), gives a value that the reverse
// order does not: {1, B, -B} with B = 1e8 (float32, spacing 8 there) or
// 1e17 (float64, spacing 16) is 0 in order (1 is absorbed by B, then B - B)
// and 1 reversed (-B + B, then 1). Every order is a correct sum, so the
// conformant level accepts both; the strict level, a deterministic
// backend's promise to follow PyTorch's CPU kernel bit for bit, accepts
// only 0. The two-row scatter_add folds each row in order, the second
// row's contributions reversed ({-B, B, 1}: 1), so that a kernel that
// walks rows or columns backwards shows. (SEMANTICS.md §12 #45 is the same
// check for float16 under torch-1.13, whose 16-bit sums round per step.)
// Run on torch 2.14.1 with torch_scatter 2.1.2 (the F# scatter as its
// PyTorch equivalent, index_put_ with accumulate=True).
func orderCases() []Case {
	const source = "the canonical order (SEMANTICS.md §1.4: a sum rounds every step, in index order on the CPU): " +
		"1 + B - B is 0 in order, 1 reversed; run on torch 2.14.1 with torch_scatter 2.1.2 (the F# scatter as index_put_ with accumulate=True)"
	var cs []Case
	for _, dt := range []scatter.DType{scatter.DTFloat32, scatter.DTFloat64} {
		big := 1e8
		if dt == scatter.DTFloat64 {
			big = 1e17
		}
		vals := func(v ...float64) scatter.Tensor { return floats(dt, []int{len(v)}, v...) }
		src := vals(1, big, -big)
		idx := i64(0, 0, 0)
		zero := vals(0)
		add := func(name string, op scatter.Op, features []string, call scatter.Call, want scatter.Tensor) {
			cs = append(cs, Case{
				Name:     string(op) + "/" + name + "/" + dt.String() + "/order/in-index-order",
				Labels:   ecLabels(op, dt, append([]string{"rounding", "order", "duplicates"}, features...)...),
				Source:   source,
				Call:     call,
				Want:     want,
				Profiles: []scatter.Profile{scatter.Torch2},
			})
		}
		add("1-d", scatter.OpScatterAdd, nil, scatter.ScatterAdd{Self: zero, Index: idx, Src: src}, vals(0))
		two := floats(dt, []int{2, 3}, 1, big, -big, -big, big, 1)
		self2 := floats(dt, []int{2, 1}, 0, 0)
		idx2 := scatter.FromSlice([]int64{0, 0, 0, 0, 0, 0}, 2, 3)
		want2 := floats(dt, []int{2, 1}, 0, 1)
		add("rows", scatter.OpScatterAdd, nil, scatter.ScatterAdd{Self: self2, Index: idx2, Dim: 1, Src: two}, want2)
		add("reduce=add", scatter.OpScatter, nil, scatter.Scatter{Self: zero, Index: idx, Src: src, Reduce: scatter.ReduceAdd}, vals(0))
		add("sum/include_self=false", scatter.OpScatterReduce, []string{"sum", "include_self"},
			scatter.ScatterReduce{Self: vals(5), Index: idx, Src: src, Reduce: scatter.ReduceSum, ExcludeSelf: true}, vals(0))
		add("mean", scatter.OpScatterReduce, []string{"mean"},
			scatter.ScatterReduce{Self: zero, Index: idx, Src: src, Reduce: scatter.ReduceMean}, vals(0))
		add("mean", scatter.OpIndexReduce, []string{"mean"},
			scatter.IndexReduce{Self: zero, Index: idx, Source: src, Reduce: scatter.ReduceMean}, vals(0))
		add("sum", scatter.OpTorchScatter, []string{"sum"},
			scatter.TorchScatter{Src: src, Index: idx, Reduce: scatter.ReduceSum}, vals(0))
		add("mean", scatter.OpTorchScatter, []string{"mean"},
			scatter.TorchScatter{Src: src, Index: idx, Reduce: scatter.ReduceMean}, vals(0))
		add("accumulate", scatter.OpTensorScatter, nil,
			scatter.TensorScatter{Indices: []scatter.Tensor{idx}, Shape: []int{1}, Src: src}, vals(0))
	}
	return cs
}

// floats is a float32 or float64 tensor of shape holding v.
func floats(dt scatter.DType, shape []int, v ...float64) scatter.Tensor {
	if dt == scatter.DTFloat64 {
		return scatter.FromSlice(v, shape...)
	}
	w := make([]float32, len(v))
	for i, x := range v {
		w[i] = float32(x)
	}
	return scatter.FromSlice(w, shape...)
}
