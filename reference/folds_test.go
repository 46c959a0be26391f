package reference

import (
	"reflect"
	"testing"

	"github.com/scatterconf/scatter"
)

// TestFolds: the sums, products, means and minima of a call as data, with
// who is counted in a mean (self under include_self, never torch_scatter's
// out), and nothing for calls that are no float sum, product, mean, amax
// or amin (torch_scatter max, plain scatter, int64, a failing call); the
// data are copies (TestRefoldNearestIsReference, in package properties, folds
// them back into the reference's results bit for bit).
func TestFolds(t *testing.T) {
	f32 := func(vs ...float32) scatter.Tensor { return scatter.FromSlice(vs, len(vs)) }
	idx := scatter.FromSlice([]int64{1, 0, 1}, 3)
	for _, c := range []struct {
		name string
		call scatter.Call
		want *Folds
	}{
		{"scatter_reduce mean include_self", scatter.ScatterReduce{Self: f32(1, 2), Dim: 0, Index: idx, Src: f32(3, 4, 5), Reduce: scatter.ReduceMean},
			&Folds{DType: scatter.DTFloat32, Reduce: scatter.ReduceMean, Self: true, MeanCountsSelf: true, Init: f32(1, 2), Src: f32(3, 4, 5),
				Groups: []FoldGroup{{Out: 0, Srcs: []int{1}}, {Out: 1, Srcs: []int{0, 2}}}}},
		{"torch_scatter mean into out", scatter.TorchScatter{Src: f32(3, 4, 5), Index: idx, Out: f32(1, 2), Reduce: scatter.ReduceMean},
			&Folds{DType: scatter.DTFloat32, Reduce: scatter.ReduceMean, Self: true, Init: f32(1, 2), Src: f32(3, 4, 5),
				Groups: []FoldGroup{{Out: 0, Srcs: []int{1}}, {Out: 1, Srcs: []int{0, 2}}}}},
		{"scatter multiply", scatter.Scatter{Self: f32(1, 2), Dim: 0, Index: idx, Src: f32(3, 4, 5), Reduce: scatter.ReduceMultiply},
			&Folds{DType: scatter.DTFloat32, Reduce: scatter.ReduceProd, Self: true, Init: f32(1, 2), Src: f32(3, 4, 5),
				Groups: []FoldGroup{{Out: 0, Srcs: []int{1}}, {Out: 1, Srcs: []int{0, 2}}}}},
		{"amin exclude_self", scatter.ScatterReduce{Self: f32(1, 2), Dim: 0, Index: idx, Src: f32(3, 4, 5), Reduce: scatter.ReduceAmin, ExcludeSelf: true},
			&Folds{DType: scatter.DTFloat32, Reduce: scatter.ReduceAmin, Init: f32(1, 2), Src: f32(3, 4, 5),
				Groups: []FoldGroup{{Out: 0, Srcs: []int{1}}, {Out: 1, Srcs: []int{0, 2}}}}},
		{"torch_scatter max", scatter.TorchScatter{Src: f32(3, 4, 5), Index: idx, Reduce: scatter.ReduceMax}, nil},
		{"plain scatter", scatter.Scatter{Self: f32(1, 2), Dim: 0, Index: idx, Src: f32(3, 4, 5)}, nil},
		{"int64 sum", scatter.ScatterAdd{Self: scatter.FromSlice([]int64{1, 2}, 2), Dim: 0, Index: idx, Src: scatter.FromSlice([]int64{3, 4, 5}, 3)}, nil},
		{"failing", scatter.ScatterAdd{Self: f32(1, 2), Dim: 0, Index: scatter.FromSlice([]int64{2}, 1), Src: f32(3)}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := Expect(c.call, scatter.Torch2)
			got, ok := e.Folds()
			if c.want == nil {
				if ok {
					t.Fatalf("folds %+v, want none", got)
				}
				return
			}
			mine, _ := e.Folds()
			mine.Groups[0].Srcs[0] = 99
			scatter.SetFloat(mine.Init.Data, 0, 99)
			scatter.SetFloat(mine.Src.Data, 0, 99)
			got.Init, got.Src = got.Init.Contiguous(), got.Src.Contiguous()
			if !ok || !reflect.DeepEqual(got, *c.want) {
				t.Fatalf("folds %+v, %v\nwant %+v (Folds hands out the Expectation's own data?)", got, ok, *c.want)
			}
		})
	}
}
