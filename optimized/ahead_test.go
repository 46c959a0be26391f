package optimized_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/optimized"
	"github.com/scatterconf/scatter/reference"
)

// directCall draws a 1-d scatter_add or scatter_reduce over a contiguous
// index and source (the direct walk) into a small output: the calls
// whose serial fold reads its streams ahead.
func directCall(t *rapid.T, prof scatter.Profile) scatter.Call {
	dt := rapid.SampledFrom([]scatter.DType{scatter.DTFloat32, scatter.DTFloat64, scatter.DTFloat16,
		scatter.DTBFloat16, scatter.DTInt64, scatter.DTInt32}).Draw(t, "dtype")
	n := rapid.IntRange(1, 300).Draw(t, "out")
	m := rapid.IntRange(1, 3000).Draw(t, "contributions")
	idx := make([]int64, m)
	for k := range idx {
		idx[k] = int64(rapid.IntRange(0, n-1).Draw(t, "target"))
	}
	vals := func(name string, k int) scatter.Tensor {
		v := make([]float64, k)
		for i := range v {
			v[i] = rapid.Float64Range(-1000, 1000).Draw(t, name)
		}
		return fromFloat64s(v, dt)
	}
	self, src, index := vals("self", n), vals("src", m), scatter.FromSlice(idx)
	if rapid.Bool().Draw(t, "scatter_add") {
		return scatter.ScatterAdd{Self: self, Dim: 0, Index: index, Src: src}
	}
	red := rapid.SampledFrom([]scatter.Reduce{scatter.ReduceSum, scatter.ReduceProd, scatter.ReduceMean,
		scatter.ReduceAmax, scatter.ReduceAmin}).Draw(t, "reduce")
	return scatter.ScatterReduce{Self: self, Dim: 0, Index: index, Src: src, Reduce: red, ExcludeSelf: rapid.Bool().Draw(t, "exclude")}
}

// fromFloat64s is v in dtype dt (integers truncated).
func fromFloat64s(v []float64, dt scatter.DType) scatter.Tensor {
	switch dt {
	case scatter.DTFloat32:
		return scatter.FromSlice(mapSlice(v, func(x float64) float32 { return float32(x) }))
	case scatter.DTFloat16:
		return scatter.FromSlice(mapSlice(v, scatter.Float16FromFloat64))
	case scatter.DTBFloat16:
		return scatter.FromSlice(mapSlice(v, scatter.BFloat16FromFloat64))
	case scatter.DTInt64:
		return scatter.FromSlice(mapSlice(v, func(x float64) int64 { return int64(x) }))
	case scatter.DTInt32:
		return scatter.FromSlice(mapSlice(v, func(x float64) int32 { return int32(x) }))
	}
	return scatter.FromSlice(v)
}

func mapSlice[E any](v []float64, f func(float64) E) []E {
	out := make([]E, len(v))
	for i, x := range v {
		out[i] = f(x)
	}
	return out
}

// TestReadAheadIsCanonical: serial folds whose streams a second worker
// reads ahead (AheadSmall: every size, chunks of a few units) give the
// reference's result bit for bit under Deterministic, and conform
// otherwise; the readers run, wait for the fold (started first) and
// catch up with it (started late), as the counts show.
func TestReadAheadIsCanonical(t *testing.T) {
	for _, late := range []bool{false, true} {
		before := optimized.AheadCounted()
		for _, prof := range scatter.Profiles {
			for _, det := range []bool{true, false} {
				for _, win := range [][2]int{{1, 1}, {2, 3}, {4, 64}} {
					opts := []optimized.Option{optimized.Workers(2), optimized.AheadSmall(win[0], win[1], late)}
					lvl := scatter.Conformant
					if det {
						opts, lvl = append(opts, optimized.Deterministic()), scatter.Strict
					}
					be := optimized.New(prof, opts...)
					t.Run(fmt.Sprintf("late=%v/%s/deterministic=%v/window=%d/chunk=%d", late, prof, det, win[0], win[1]), func(t *testing.T) {
						rapid.Check(t, func(t *rapid.T) {
							c := directCall(t, prof)
							got, err := be.Run(scatter.CloneCall(c))
							if m := reference.Expect(c, prof).Check(lvl, got, err); m != nil {
								t.Fatal(m)
							}
						})
					})
				}
			}
		}
		after := optimized.AheadCounted()
		n := optimized.AheadCounts{Folds: after.Folds - before.Folds, Reads: after.Reads - before.Reads,
			Waits: after.Waits - before.Waits, CatchUps: after.CatchUps - before.CatchUps}
		t.Logf("late=%v: %+v", late, n)
		switch {
		case n.Folds < 100 || n.Reads < n.Folds/2:
			t.Errorf("late=%v: %d folds read ahead, %d readers ran: the test checks too few", late, n.Folds, n.Reads)
		case !late && n.Waits == 0:
			t.Error("no reader waited for the fold: the window was never full")
		case late && n.CatchUps == 0:
			t.Error("no reader caught up with the fold")
		}
	}
}
