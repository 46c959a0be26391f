package properties

import (
	"math"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// mutantNamed returns the zoo's mutant of that name under torch-2.
func mutantNamed(t *testing.T, name string) scatter.Backend {
	t.Helper()
	for _, m := range MutantsFor(scatter.Torch2) {
		if m.Name == name {
			return m.Backend
		}
	}
	t.Fatalf("no mutant %s", name)
	return nil
}

// TestSmallIntSumWidened checks the mutant on hand-made calls: an int8
// sum past 127 and a bool sum come back as int32 with the wide values
// (PyTorch: -128, and true), a uint8 sum as invalid_argument (its uint32
// result has no dtype in the protocol); a float sum and an int8 amax are
// untouched.
func TestSmallIntSumWidened(t *testing.T) {
	mut := mutantNamed(t, "small-int-sum-widened")
	i0 := scatter.FromSlice([]int64{0, 0}, 2)
	one, minusOne := scatter.Int(1), scatter.Int(-1)
	for _, c := range []struct {
		name string
		call scatter.Call
		dt   scatter.DType
		want []int64
	}{
		{"int8 sum", scatter.ScatterAdd{Self: scatter.FromSlice([]int8{127, 5}, 2), Dim: 0, Index: i0, Src: scatter.FromSlice([]int8{1, 1}, 2)}, scatter.DTInt32, []int64{129, 5}},
		{"bool sum", scatter.ScatterReduce{Self: scatter.FromSlice([]bool{true, false}, 2), Dim: 0, Index: i0, Src: scatter.FromSlice([]bool{true, true}, 2), Reduce: scatter.ReduceSum}, scatter.DTInt32, []int64{3, 0}},
		{"uint8 sum", scatter.ScatterAdd{Self: scatter.FromSlice([]uint8{255, 5}, 2), Dim: 0, Index: i0, Src: scatter.FromSlice([]uint8{1, 1}, 2)}, scatter.DTInvalid, nil},
		{"int8 add value", scatter.Scatter{Self: scatter.FromSlice([]int8{127, 5}, 2), Dim: 0, Index: i0, Value: &one, Reduce: scatter.ReduceAdd}, scatter.DTInt32, []int64{129, 5}},
		{"bool add value -1", scatter.Scatter{Self: scatter.FromSlice([]bool{false, true}, 2), Dim: 0, Index: i0, Value: &minusOne, Reduce: scatter.ReduceAdd}, scatter.DTInt32, []int64{2, 1}},
		{"int16 multiply", scatter.Scatter{Self: scatter.FromSlice([]int16{300, 2}, 2), Dim: 0, Index: i0, Src: scatter.FromSlice([]int16{300, 1}, 2), Reduce: scatter.ReduceMultiply}, scatter.DTInt32, []int64{90000, 2}},
		{"int8 amax", scatter.ScatterReduce{Self: scatter.FromSlice([]int8{1, 2}, 2), Dim: 0, Index: i0, Src: scatter.FromSlice([]int8{3, 4}, 2), Reduce: scatter.ReduceAmax}, scatter.DTInt8, []int64{4, 2}},
		{"int64 sum", scatter.ScatterAdd{Self: scatter.FromSlice([]int64{1, 2}, 2), Dim: 0, Index: i0, Src: scatter.FromSlice([]int64{3, 4}, 2)}, scatter.DTInt64, []int64{8, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := mut.Run(c.call)
			if c.dt == scatter.DTInvalid { // uint32, which the protocol lacks
				if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
					t.Fatalf("%v, want invalid_argument", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Out.DType() != c.dt {
				t.Fatalf("dtype %s, want %s", res.Out.DType(), c.dt)
			}
			for i, w := range c.want {
				if got := scatter.IntAt(res.Out.Data, i); got != w {
					t.Errorf("out[%d] = %d, want %d", i, got, w)
				}
			}
		})
	}
}

// TestNegativeZeroLost checks the mutant on hand-made calls: an untouched
// -0.0 and a sum of -0.0 terms become +0.0 in a sum and a mean; amax
// keeps them.
func TestNegativeZeroLost(t *testing.T) {
	mut := mutantNamed(t, "negative-zero-lost")
	nz := math.Copysign(0, -1)
	f32 := floatTensor[float32]
	i0 := scatter.FromSlice([]int64{0}, 1)
	for _, c := range []struct {
		name string
		call scatter.Call
		neg  []bool // the sign bit of each element of the answer
	}{
		{"sum", scatter.ScatterAdd{Self: f32(nz, nz), Dim: 0, Index: i0, Src: f32(nz)}, []bool{false, false}},
		{"mean", scatter.ScatterReduce{Self: f32(1, nz), Dim: 0, Index: i0, Src: f32(2), Reduce: scatter.ReduceMean}, []bool{false, false}},
		{"amax", scatter.ScatterReduce{Self: f32(nz, nz), Dim: 0, Index: i0, Src: f32(nz), Reduce: scatter.ReduceAmax}, []bool{true, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := mut.Run(c.call)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.neg {
				if got := math.Signbit(scatter.Float64At(res.Out.Data, i)); got != w {
					t.Errorf("out[%d] sign bit %v, want %v", i, got, w)
				}
			}
		})
	}
}

// TestSumWithSelfFromZero checks the mutant on hand-made calls (T5 in
// docs/conformance/README.md): a touched -0.0 whose contributions are all
// -0.0 becomes +0.0 in a sum and a mean with self; an untouched -0.0, a
// group with a +0.0 or a nonzero member, a sum without self (+0.0 in
// PyTorch too) and amax are the reference's.
func TestSumWithSelfFromZero(t *testing.T) {
	mut := mutantNamed(t, "sum-with-self-from-zero")
	ref := reference.New(scatter.Torch2)
	nz := math.Copysign(0, -1)
	f32 := floatTensor[float32]
	i0 := scatter.FromSlice([]int64{0, 0}, 2)
	for _, c := range []struct {
		name    string
		call    scatter.Call
		flipped []bool // the elements the mutant turns from -0.0 to +0.0
	}{
		{"sum", scatter.ScatterAdd{Self: f32(nz, nz), Dim: 0, Index: i0, Src: f32(nz, nz)}, []bool{true, false}},
		{"sum-plus-zero-member", scatter.ScatterAdd{Self: f32(nz, nz), Dim: 0, Index: i0, Src: f32(nz, 0)}, []bool{false, false}},
		{"mean", scatter.ScatterReduce{Self: f32(nz, 1), Dim: 0, Index: i0, Src: f32(nz, nz), Reduce: scatter.ReduceMean}, []bool{true, false}},
		{"sum-without-self", scatter.ScatterReduce{Self: f32(nz, nz), Dim: 0, Index: i0, Src: f32(nz, nz), Reduce: scatter.ReduceSum, ExcludeSelf: true}, []bool{false, false}},
		{"amax", scatter.ScatterReduce{Self: f32(nz, nz), Dim: 0, Index: i0, Src: f32(nz, nz), Reduce: scatter.ReduceAmax}, []bool{false, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := ref.Run(c.call)
			if err != nil {
				t.Fatal(err)
			}
			got, err := mut.Run(c.call)
			if err != nil {
				t.Fatal(err)
			}
			for i, flip := range c.flipped {
				w, g := scatter.Float64At(want.Out.Data, i), scatter.Float64At(got.Out.Data, i)
				if flip && !(w == 0 && math.Signbit(w) && g == 0 && !math.Signbit(g)) || !flip && math.Float64bits(g) != math.Float64bits(w) {
					t.Errorf("out[%d] = %v (sign bit %v), reference %v (sign bit %v), flipped %v", i, g, math.Signbit(g), w, math.Signbit(w), flip)
				}
			}
		})
	}
}

// TestHalfRoundedTwice checks the mutant on tinygrad's example (G6 in
// docs/conformance/README.md): float16 self 5 summed with 2048 and
// 1.0009766 gives 2056, the contributions rounded to 2050 first, where
// torch 2 gives 2054; -65504 + 65504 + 65504 gives +Inf, the
// contributions overflowing alone (torch 2: 65504); without self, and for
// float32, it is the reference's answer.
func TestHalfRoundedTwice(t *testing.T) {
	mut := mutantNamed(t, "half-rounded-twice")
	h := floatTensor[scatter.Float16]
	i0 := scatter.FromSlice([]int64{0, 0}, 2)
	src := []float64{2048, 1.0009765625}
	for _, c := range []struct {
		name string
		call scatter.Call
		want float64
	}{
		{"float16 sum with self", scatter.ScatterReduce{Self: h(5), Dim: 0, Index: i0, Src: h(src...), Reduce: scatter.ReduceSum}, 2056},
		{"float16 sum without self", scatter.ScatterReduce{Self: h(5), Dim: 0, Index: i0, Src: h(src...), Reduce: scatter.ReduceSum, ExcludeSelf: true}, 2050},
		{"float16 sum whose contributions overflow", scatter.ScatterReduce{Self: h(-65504), Dim: 0, Index: i0, Src: h(65504, 65504), Reduce: scatter.ReduceSum}, math.Inf(1)},
		{"float32 sum with self", scatter.ScatterReduce{Self: scatter.FromSlice([]float32{5}, 1), Dim: 0, Index: i0, Src: scatter.FromSlice([]float32{2048, 1.0009765625}, 2), Reduce: scatter.ReduceSum}, 2054.0009765625},
		// tinygrad 0.14's mean (differential/crowded found it): the twice
		// rounded sum -162 over 7 is -23.125 in bfloat16, where torch 2's
		// -161 over 7 is -23
		{"bfloat16 mean with self", scatter.ScatterReduce{Self: floatTensor[scatter.BFloat16](0.125), Dim: 0, Index: scatter.FromSlice(make([]int64, 6), 6),
			Src: floatTensor[scatter.BFloat16](1, -128, -0.5, -32, -2, -0.00390625), Reduce: scatter.ReduceMean}, -23.125},
		{"bfloat16 mean without self", scatter.ScatterReduce{Self: floatTensor[scatter.BFloat16](0.125), Dim: 0, Index: scatter.FromSlice(make([]int64, 6), 6),
			Src: floatTensor[scatter.BFloat16](1, -128, -0.5, -32, -2, -0.00390625), Reduce: scatter.ReduceMean, ExcludeSelf: true}, -27},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := mut.Run(c.call)
			if err != nil {
				t.Fatal(err)
			}
			if got := scatter.Float64At(res.Out.Data, 0); got != c.want {
				t.Errorf("out[0] = %v, want %v", got, c.want)
			}
		})
	}
}

// floatTensor is a 1-d float16, bfloat16 or float32 tensor of the
// values, rounded to nearest.
func floatTensor[F scatter.Float16 | scatter.BFloat16 | float32](vs ...float64) scatter.Tensor {
	d := make([]F, len(vs))
	for i, v := range vs {
		switch p := any(&d[i]).(type) {
		case *scatter.Float16:
			*p = scatter.Float16FromFloat64(v)
		case *scatter.BFloat16:
			*p = scatter.BFloat16FromFloat64(v)
		case *float32:
			*p = float32(v)
		}
	}
	return scatter.FromSlice(d, len(vs))
}

// TestNanSelfDropped checks the mutant on tinygrad's examples (G3 in
// docs/conformance/README.md): [nan, 1] amax [7] at 0 gives [7, 1];
// [1, nan] amin [2] at 0 gives [1, +inf]; a NaN among the contributions
// still wins; with include_self=False too the untouched NaN becomes the
// fill, and a touched element is the reference's.
func TestNanSelfDropped(t *testing.T) {
	mut := mutantNamed(t, "nan-self-dropped")
	nan := math.NaN()
	f32 := floatTensor[float32]
	i0 := scatter.FromSlice([]int64{0}, 1)
	i00 := scatter.FromSlice([]int64{0, 0}, 2)
	for _, c := range []struct {
		name string
		call scatter.Call
		want []float64
	}{
		{"amax touched", scatter.ScatterReduce{Self: f32(nan, 1), Dim: 0, Index: i0, Src: f32(7), Reduce: scatter.ReduceAmax}, []float64{7, 1}},
		{"amin untouched", scatter.ScatterReduce{Self: f32(1, nan), Dim: 0, Index: i0, Src: f32(2), Reduce: scatter.ReduceAmin}, []float64{1, math.Inf(1)}},
		{"amax untouched", scatter.ScatterReduce{Self: f32(1, nan), Dim: 0, Index: i0, Src: f32(2), Reduce: scatter.ReduceAmax}, []float64{2, math.Inf(-1)}},
		{"NaN among the contributions", scatter.ScatterReduce{Self: f32(nan, 1), Dim: 0, Index: i00, Src: f32(3, nan), Reduce: scatter.ReduceAmax}, []float64{nan, 1}},
		{"exclude_self", scatter.ScatterReduce{Self: f32(nan, nan), Dim: 0, Index: i0, Src: f32(2), Reduce: scatter.ReduceAmin, ExcludeSelf: true}, []float64{2, math.Inf(1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := mut.Run(c.call)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.want {
				if got := scatter.Float64At(res.Out.Data, i); got != w && !(math.IsNaN(got) && math.IsNaN(w)) {
					t.Errorf("out[%d] = %v, want %v", i, got, w)
				}
			}
		})
	}
}

// TestRefoldPastOverflow: a refold whose accumulator overflows goes on in
// IEEE arithmetic, as the per-step 16-bit fold does. float16 65504 +
// 65504 - 65504 is +Inf rounded at every step (torch 2: 65504), and 300 ·
// 300 · 0 is NaN (torch 2: 0): half-accumulates-in-dtype gives what
// torch 1.13's reference gives, where it used to leave torch 2's answer.
func TestRefoldPastOverflow(t *testing.T) {
	mut := mutantNamed(t, "half-accumulates-in-dtype")
	perStep := reference.New(scatter.Torch113)
	i := scatter.FromSlice([]int64{0, 0}, 2)
	h := floatTensor[scatter.Float16]
	for _, c := range []struct {
		name string
		call scatter.Call
	}{
		{"sum", scatter.ScatterAdd{Self: h(65504), Dim: 0, Index: i, Src: h(65504, -65504)}},
		{"prod", scatter.ScatterReduce{Self: h(300), Dim: 0, Index: i, Src: h(300, 0), Reduce: scatter.ReduceProd}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := mut.Run(scatter.CloneCall(c.call))
			want, werr := perStep.Run(scatter.CloneCall(c.call))
			if err != nil || werr != nil {
				t.Fatal(err, werr)
			}
			g, w := scatter.Float64At(got.Out.Data, 0), scatter.Float64At(want.Out.Data, 0)
			if !math.IsInf(w, 1) && !math.IsNaN(w) {
				t.Fatalf("the per-step reference gives %v: the case does not overflow", w)
			}
			if g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
				t.Errorf("mutant %v, per-step reference %v", g, w)
			}
		})
	}
}
