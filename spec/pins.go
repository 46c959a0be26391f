package spec

import "github.com/scatterconf/scatter"

// pinCases returns calls that each show one bug the random parts of the
// gate meet only by chance, found by a teeth hunt (plausible bugs run
// through the whole gate, 2026-11-29; those the default run let pass, or
// killed on some seeds only): an int64 mean past 2^53 (taken through
// float64), an index of 2^32 + 1 (truncated to 32 bits it is 1, in
// range), ranks 5 and 6 (dimensions past 4 dropped), and a scalar between
// two float16 values (truncated instead of rounded). Each outcome is
// arithmetic on the values, checked on torch 1.13.1, 2.6.0 and 2.14.1.
func pinCases() []Case {
	const (
		F32 = scatter.DTFloat32
		F16 = scatter.DTFloat16
		I64 = scatter.DTInt64
	)
	const big = 1<<53 + 1 // not a float64: through float64 it is 2^53
	const past32 = 1<<32 + 1
	var cs []Case
	add := func(name string, op scatter.Op, dt scatter.DType, source string, c Case, features ...string) {
		c.Name, c.Source = name, source
		c.Labels = append([]string{string(op), dt.String(), "pin"}, features...)
		cs = append(cs, c)
	}

	const mean = "arithmetic: the mean of 2^53 + 1 and itself is 2^53 + 1, whose float64 is 2^53 (an integer mean taken through float64 gives 2^53)"
	add("scatter_reduce/mean/int64/include_self=true/past-2^53", scatter.OpScatterReduce, I64, mean, Case{
		Call: scatter.ScatterReduce{Self: i64(big, 5), Index: i64(0), Src: i64(big), Reduce: scatter.ReduceMean},
		Want: i64(big, 5)}, "mean", "include_self")
	add("index_reduce/mean/int64/include_self=true/past-2^53", scatter.OpIndexReduce, I64, mean, Case{
		Call: scatter.IndexReduce{Self: i64(big, 5), Index: i64(0), Source: i64(big), Reduce: scatter.ReduceMean},
		Want: i64(big, 5)}, "mean", "include_self")
	add("torch_scatter.scatter/mean/int64/past-2^53", scatter.OpTorchScatter, I64, mean, Case{
		Call: scatter.TorchScatter{Src: i64(big, big), Index: i64(0, 0), Reduce: scatter.ReduceMean},
		Want: i64(big)}, "torch_scatter", "mean")

	const oob = "SEMANTICS.md §1.3 step 7 (an index value outside [0, size) fails): 2^32 + 1 is outside, though its low 32 bits, 1, are inside"
	add("scatter_add/float32/index-2^32+1/breaks", scatter.OpScatterAdd, F32, oob, Case{
		Call:    scatter.ScatterAdd{Self: z(F32, 3), Index: i64(past32), Src: f32(1)},
		WantErr: scatter.ErrIndexOutOfRange}, "index-value")
	add("gather/float32/index-2^32+1/breaks", scatter.OpGather, F32, oob, Case{
		Call:    scatter.Gather{Input: f32(1, 2, 3), Index: i64(past32)},
		WantErr: scatter.ErrIndexOutOfRange}, "index-value")
	add("index_reduce/amax/float32/index-2^32+1/breaks", scatter.OpIndexReduce, F32, oob, Case{
		Call:    scatter.IndexReduce{Self: z(F32, 3), Index: i64(past32), Source: f32(1), Reduce: scatter.ReduceAmax},
		WantErr: scatter.ErrIndexOutOfRange}, "index-value")

	// rank 5: along the last dimension, rows [1, 0] and [0, 1] of src
	// [1, 2] and [3, 4]
	add("scatter_add/float32/rank-5/dim=4", scatter.OpScatterAdd, F32,
		"arithmetic: out[..., r, index[..., r, k]] += src[..., r, k] over a [1,1,1,2,2] self", Case{
			Call: scatter.ScatterAdd{Self: z(F32, 1, 1, 1, 2, 2), Dim: 4,
				Index: shape(i64(1, 0, 0, 1), 1, 1, 1, 2, 2), Src: shape(f32(1, 2, 3, 4), 1, 1, 1, 2, 2)},
			Want: shape(f32(2, 1, 3, 4), 1, 1, 1, 2, 2)}, "rank")
	// rank 6: every pair along the last dimension swapped
	swap := make([]int64, 64)
	want := make([]float32, 64)
	for i := range swap {
		swap[i] = int64(1 - i%2)
		want[i] = float32(i ^ 1)
	}
	add("gather/float32/rank-6/dim=5", scatter.OpGather, F32,
		"arithmetic: out[..., k] = input[..., index[..., k]] over a [2,2,2,2,2,2] input of 0..63", Case{
			Call: scatter.Gather{Input: shape(arange(F32, 0, 64), 2, 2, 2, 2, 2, 2), Dim: 5,
				Index: shape(scatter.FromSlice(swap), 2, 2, 2, 2, 2, 2)},
			Want: shape(scatter.FromSlice(want), 2, 2, 2, 2, 2, 2)}, "rank")

	add("scatter/scalar-value/float16/2049.5-rounds-to-nearest", scatter.OpScatter, F16,
		"Scalar::to<Half>() rounds to nearest: 2049.5 lies between the float16 values 2048 and 2050, nearer 2050 (truncation gives 2048)", Case{
			Call: scatter.Scatter{Self: z(F16, 2), Index: i64(0), Value: scatter.Ptr(scatter.Float(2049.5))},
			Want: f16(2050, 0)}, "scalar-value", "rounding")
	return cs
}
