package spec

import "github.com/scatterconf/scatter"

// countFromIndexCases are torch_scatter means whose count is not their
// contributions: scatter_mean's count is scatter_sum(ones(index.size()),
// index, ...) over the index as given, not broadcast, then broadcast to
// out (SEMANTICS.md §8.1 and its section "In this repository"). The
// values are torch_scatter 2.1.2's on torch 2.14.1.
func countFromIndexCases() []Case {
	const (
		opTS               = scatter.OpTorchScatter
		F16, F32, I64      = scatter.DTFloat16, scatter.DTFloat32, scatter.DTInt64
		measured           = "torch_scatter 2.1.2 on torch 2.14.1"
		mean               = scatter.ReduceMean
		torch, count, outF = "torch_scatter", "count-from-index", "out"
	)
	cases := []Case{
		{
			Name:   "torch_scatter.scatter/mean/float32/1-element-index-stretched-along-dim",
			Labels: ecLabels(opTS, F32, torch, "mean", "broadcast", count),
			Source: "scatter_mean([1,2,3], [0]) sums 6 over the broadcast index and divides it by the count 1 of the index as given: [6], " + measured,
			Call:   scatter.TorchScatter{Src: f32(1, 2, 3), Index: i64(0), Reduce: mean},
			Want:   f32(6),
		},
		{
			Name:   "torch_scatter.scatter/mean/float32/k-d-index-of-size-1-at-dim",
			Labels: ecLabels(opTS, F32, torch, "mean", "broadcast", count),
			Source: "the count of an index of shape (2,1) along dim 1 is 1 where each row's sum has 3 terms: " +
				"scatter_mean(ones(2,3), [[0],[1]], dim=1) = [[3,0],[0,3]], " + measured,
			Call: scatter.TorchScatter{Src: full(F32, 1, 2, 3), Index: shape(i64(0, 1), 2, 1), Dim: scatter.Ptr(1), Reduce: mean},
			Want: shape(f32(3, 0, 0, 3), 2, 2),
		},
		{
			Name:   "torch_scatter.scatter/mean/float32/k-d-index-of-rank-at-most-dim",
			Labels: ecLabels(opTS, F32, torch, "mean", "broadcast", count),
			Source: "index.dim() <= dim: the count runs along index_dim = index.dim()-1 and is broadcast as if along dim: " +
				"scatter_mean(ones(2,2,3), [[0,1],[1,1]], dim=2) = [[[3,0],[0,3]],[[0,3],[0,1.5]]], " + measured,
			Call: scatter.TorchScatter{Src: full(F32, 1, 2, 2, 3), Index: shape(i64(0, 1, 1, 1), 2, 2), Dim: scatter.Ptr(2), Reduce: mean},
			Want: shape(f32(3, 0, 0, 3, 0, 3, 0, 1.5), 2, 2, 2),
		},
		{
			Name:   "torch_scatter.scatter/mean/float32/index-of-size-1-at-dim-with-out",
			Labels: ecLabels(opTS, F32, torch, "mean", outF, "broadcast", count),
			Source: "out's values summed, the count taken from the (3,1) index: " +
				"scatter_mean(arange(12.).reshape(3,4), [[0],[2],[0]], dim=1, out=ones(3,4)) = [[7,1,1,1],[1,1,23,1],[39,1,1,1]], " + measured,
			Call: scatter.TorchScatter{Src: shape(arange(F32, 0, 12), 3, 4), Index: shape(i64(0, 2, 0), 3, 1), Dim: scatter.Ptr(1),
				Out: full(F32, 1, 3, 4), Reduce: mean},
			Want: shape(f32(7, 1, 1, 1, 1, 1, 23, 1, 39, 1, 1, 1), 3, 4),
		},
	}
	// out larger than src: the count, over out.size(dim), is broadcast to
	// out, so out's row that src does not reach is divided too
	vals := func(dt scatter.DType, v ...float64) scatter.Tensor {
		t := full(dt, 0, len(v))
		for i, x := range v {
			setAt(t, i, x)
		}
		return t
	}
	for _, c := range []struct {
		dt   scatter.DType
		name string
		fill float64
		want []float64
		how  string
	}{
		{F32, "out-larger-than-src", 1, []float64{2, 1, 1, 0.5, 1, 1},
			"scatter_mean([[1,2]], [0,0], dim=1, out=ones(2,3)) = [[(1+1+2)/2,1,1],[1/2,1,1]]"},
		{I64, "out-larger-than-src-floors", -7, []float64{-2, -7, -7, -4, -7, -7},
			"floor division: scatter_mean([[1,2]], [0,0], dim=1, out=full((2,3),-7)) = [[-2,-7,-7],[-4,-7,-7]]"},
		{F16, "out-larger-than-src", 7, []float64{5, 7, 7, 3.5, 7, 7},
			"scatter_mean([[1,2]], [0,0], dim=1, out=full((2,3),7)) = [[5,7,7],[3.5,7,7]]"},
	} {
		features := []string{torch, "mean", outF, count}
		if c.dt == I64 {
			features = append(features, "floor-division")
		}
		cases = append(cases, Case{
			Name:   "torch_scatter.scatter/mean/" + c.dt.String() + "/" + c.name,
			Labels: ecLabels(opTS, c.dt, features...),
			Source: "the count is broadcast to out, whose row 1 src does not reach: " + c.how + ", " + measured,
			Call: scatter.TorchScatter{Src: shape(vals(c.dt, 1, 2), 1, 2), Index: i64(0, 0), Dim: scatter.Ptr(1),
				Out: full(c.dt, c.fill, 2, 3), Reduce: mean},
			Want: shape(vals(c.dt, c.want...), 2, 3),
		})
	}
	return cases
}
