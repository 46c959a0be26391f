package properties

import (
	"math"
	"slices"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// gatherOut runs a gather on be and returns its output as float64s, or
// the error.
func gatherOut(t *testing.T, be scatter.Backend, g scatter.Gather) ([]float64, []int, error) {
	t.Helper()
	res, err := be.Run(g)
	if err != nil {
		return nil, nil, err
	}
	out := res.Out.Contiguous()
	vs := make([]float64, out.NumEl())
	for i := range vs {
		vs[i] = scatter.Float64At(out.Data, i)
	}
	return vs, out.Shape, nil
}

// TestGatherIndexSizedOffsets checks the mutant on hand-made gathers: an
// index smaller than the input in a dimension after the first, other than
// dim, reads the elements of the contiguous tensor of the index's sizes
// (candle's [0 0] where PyTorch gives [0 1]); one smaller only in the
// outermost dimension, or only along dim, reads the right ones.
func TestGatherIndexSizedOffsets(t *testing.T) {
	mut := mutantNamed(t, "gather-index-sized-offsets")
	ref := reference.New(scatter.Torch2)
	for _, c := range []struct {
		name       string
		g          scatter.Gather
		want, good []float64
	}{
		{"input [2,3,1] dim 2 index [2,1,1]",
			scatter.Gather{Input: scatter.FromSlice([]float32{0, 0, 0, 1, 0, 0}, 2, 3, 1), Dim: 2, Index: scatter.FromSlice([]int64{0, 0}, 2, 1, 1)},
			[]float64{0, 0}, []float64{0, 1}},
		{"input [2,3] dim 0 index [2,2]",
			scatter.Gather{Input: scatter.FromSlice([]float32{0, 1, 2, 3, 4, 5}, 2, 3), Dim: 0, Index: scatter.FromSlice([]int64{1, 0, 1, 1}, 2, 2)},
			[]float64{2, 1, 2, 3}, []float64{3, 1, 3, 4}},
		{"input [3,2] dim 1 index [2,1], outermost smaller",
			scatter.Gather{Input: scatter.FromSlice([]float32{0, 1, 2, 3, 4, 5}, 3, 2), Dim: 1, Index: scatter.FromSlice([]int64{1, 1}, 2, 1)},
			[]float64{1, 3}, []float64{1, 3}},
		{"input [2,3] dim 1 index [2,2], smaller along dim",
			scatter.Gather{Input: scatter.FromSlice([]float32{0, 1, 2, 3, 4, 5}, 2, 3), Dim: 1, Index: scatter.FromSlice([]int64{2, 0, 1, 2}, 2, 2)},
			[]float64{2, 0, 4, 5}, []float64{2, 0, 4, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := gatherOut(t, mut, c.g)
			if err != nil {
				t.Fatal(err)
			}
			good, _, err := gatherOut(t, ref, c.g)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) || !slices.Equal(good, c.good) {
				t.Errorf("mutant %v, reference %v; want %v and %v", got, good, c.want, c.good)
			}
		})
	}
}

// TestGatherSmallerIndexRejected checks the mutant on hand-made gathers:
// an index smaller than the input in a dimension other than dim is
// shape_mismatch, before its values are looked at; one smaller only along
// dim, and an empty one, are answered as PyTorch does.
func TestGatherSmallerIndexRejected(t *testing.T) {
	mut := mutantNamed(t, "gather-smaller-index-rejected")
	in := scatter.FromSlice([]int32{0, 1, 2, 3}, 2, 2)
	for _, c := range []struct {
		name  string
		index scatter.Tensor
		dim   int
		want  scatter.Code
	}{
		{"index [1,1] dim 0", scatter.FromSlice([]int64{1}, 1, 1), 0, scatter.ErrShapeMismatch},
		{"index [2,1] dim 0", scatter.FromSlice([]int64{1, 0}, 2, 1), 0, scatter.ErrShapeMismatch},
		{"index [1,2] dim 0", scatter.FromSlice([]int64{1, 0}, 1, 2), 0, 0},
		{"index [3,2] dim 0", scatter.FromSlice([]int64{1, 0, 0, 1, 1, 1}, 3, 2), 0, 0},
		{"index [0,1] dim 0", scatter.FromSlice([]int64{}, 0, 1), 0, 0},
		{"index [1,1] dim 0, value 5 out of range", scatter.FromSlice([]int64{5}, 1, 1), 0, scatter.ErrShapeMismatch},
		{"index [1,2] dim 0, value 5 out of range", scatter.FromSlice([]int64{5, 0}, 1, 2), 0, scatter.ErrIndexOutOfRange},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := gatherOut(t, mut, scatter.Gather{Input: in, Dim: c.dim, Index: c.index})
			if got := scatter.CodeOf(err); got != c.want {
				t.Errorf("code %v (%v), want %v", got, err, c.want)
			}
		})
	}
}

// TestOutOfRangeIgnoredEmptyInput checks that the mutant gathers zeros of
// the index's shape from an input empty along dim, where PyTorch raises
// index_out_of_range.
func TestOutOfRangeIgnoredEmptyInput(t *testing.T) {
	mut := mutantNamed(t, "out-of-range-ignored")
	for _, g := range []scatter.Gather{
		{Input: scatter.FromSlice([]float32{}, 0), Dim: 0, Index: scatter.FromSlice([]int64{0}, 1)},
		{Input: scatter.FromSlice([]int16{}, 2, 0), Dim: 1, Index: scatter.FromSlice([]int64{3, -1}, 2, 1)},
	} {
		if _, err := reference.New(scatter.Torch2).Run(g); scatter.CodeOf(err) != scatter.ErrIndexOutOfRange {
			t.Fatalf("reference: %v, want index_out_of_range", err)
		}
		got, shape, err := gatherOut(t, mut, g)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(shape, g.Index.Shape) || slices.ContainsFunc(got, func(v float64) bool { return v != 0 }) {
			t.Errorf("%v of shape %v, want zeros of shape %v", got, shape, g.Index.Shape)
		}
	}
}

// TestOutOfRangeMiscoded checks that the mutant answers invalid_argument
// where PyTorch raises index_out_of_range, and leaves other outcomes.
func TestOutOfRangeMiscoded(t *testing.T) {
	mut := mutantNamed(t, "out-of-range-miscoded")
	in := scatter.FromSlice([]float32{1, 2}, 2)
	for _, c := range []struct {
		name string
		call scatter.Call
		want scatter.Code
	}{
		{"gather index 2 of 2", scatter.Gather{Input: in, Dim: 0, Index: scatter.FromSlice([]int64{2}, 1)}, scatter.ErrInvalidArgument},
		{"scatter_add index -1", scatter.ScatterAdd{Self: in, Dim: 0, Index: scatter.FromSlice([]int64{-1}, 1), Src: in}, scatter.ErrInvalidArgument},
		{"gather dim 1 of 1-d", scatter.Gather{Input: in, Dim: 1, Index: scatter.FromSlice([]int64{0}, 1)}, scatter.ErrDimOutOfRange},
		{"gather index 1 of 2", scatter.Gather{Input: in, Dim: 0, Index: scatter.FromSlice([]int64{1}, 1)}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := mut.Run(c.call); scatter.CodeOf(err) != c.want {
				t.Errorf("code %v (%v), want %v", scatter.CodeOf(err), err, c.want)
			}
		})
	}
}

// TestGatherIndexModulo checks the mutant on hand-made gathers:
// onnx.reference's [1 2 3] at [3 0] is [1 1], values past the end and
// negative ones wrap modulo the size, an in-range gather is PyTorch's,
// and an input empty along dim still raises index_out_of_range.
func TestGatherIndexModulo(t *testing.T) {
	mut := mutantNamed(t, "gather-index-modulo")
	in := scatter.FromSlice([]float32{1, 2, 3}, 3)
	for _, c := range []struct {
		index []int64
		want  []float64
	}{
		{[]int64{3, 0}, []float64{1, 1}},
		{[]int64{7, -1, -4}, []float64{2, 3, 3}},
		{[]int64{2, 1}, []float64{3, 2}},
	} {
		got, _, err := gatherOut(t, mut, scatter.Gather{Input: in, Dim: 0, Index: scatter.FromSlice(c.index, len(c.index))})
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("index %v: %v (%v), want %v", c.index, got, err, c.want)
		}
	}
	_, _, err := gatherOut(t, mut, scatter.Gather{Input: scatter.FromSlice([]float32{}, 0), Dim: 0, Index: scatter.FromSlice([]int64{0}, 1)})
	if scatter.CodeOf(err) != scatter.ErrIndexOutOfRange {
		t.Errorf("empty input: %v, want index_out_of_range", err)
	}
}

// TestNanLostToLater checks the mutant nan-lost-to-later on ONNX
// Runtime's examples (float32 amax along dim 0, self then the
// contributions in index order): self -8 with NaN then -4 gives -4, self
// -4 with a NaN alone gives NaN, a NaN self followed by 2 gives 2; amin
// alike; a tie after the NaN takes the later value (-0 after +0); a group
// without NaN and include_self=False keep PyTorch's value.
func TestNanLostToLater(t *testing.T) {
	mut := mutantNamed(t, "nan-lost-to-later")
	nan := math.NaN()
	f32 := func(vs ...float64) scatter.Tensor {
		d := make([]float32, len(vs))
		for i, v := range vs {
			d[i] = float32(v)
		}
		return scatter.FromSlice(d, len(d))
	}
	for _, c := range []struct {
		name        string
		self, src   []float64
		index       []int64
		reduce      scatter.Reduce
		excludeSelf bool
		want        []float64
	}{
		{"NaN then -4", []float64{-8, 0}, []float64{nan, -4}, []int64{0, 0}, scatter.ReduceAmax, false, []float64{-4, 0}},
		{"NaN last", []float64{-4, 0}, []float64{nan}, []int64{0}, scatter.ReduceAmax, false, []float64{nan, 0}},
		{"NaN self then 2", []float64{nan, 0}, []float64{2, 1}, []int64{0, 0}, scatter.ReduceAmax, false, []float64{2, 0}},
		{"amin NaN then 5 and 3", []float64{1, 0}, []float64{nan, 5, 3}, []int64{0, 0, 0}, scatter.ReduceAmin, false, []float64{3, 0}},
		{"no NaN", []float64{1, 0}, []float64{5, 3}, []int64{0, 1}, scatter.ReduceAmax, false, []float64{5, 3}},
		{"exclude self, NaN then 1", []float64{7, 0}, []float64{nan, 1}, []int64{0, 0}, scatter.ReduceAmax, true, []float64{1, 0}},
		{"a tie after the NaN takes the later value", []float64{nan, 0}, []float64{0, math.Copysign(0, -1)}, []int64{0, 0}, scatter.ReduceAmax, false,
			[]float64{math.Copysign(0, -1), 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			call := scatter.ScatterReduce{Self: f32(c.self...), Dim: 0, Index: scatter.FromSlice(c.index, len(c.index)),
				Src: f32(c.src...), Reduce: c.reduce, ExcludeSelf: c.excludeSelf}
			res, err := mut.Run(call)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.want {
				got := scatter.Float64At(res.Out.Data, i)
				if got != w && !(math.IsNaN(got) && math.IsNaN(w)) || math.Signbit(got) != math.Signbit(w) {
					t.Errorf("out[%d] = %v, want %v", i, got, w)
				}
			}
		})
	}
}
