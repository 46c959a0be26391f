package main

import (
	"math"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// TestLikelyFor checks the classification on one float16 scatter_add,
// 1 + 3·2^-12 (whose float32 sum rounds up to 1 + 2^-10 in float16 and
// truncates to 1): the truncated answer is half-truncated's outcome; an
// answer further below gets the same verdict; the correct answer, and an
// answer above what is allowed (which no mutant of the zoo gives here),
// look like no mutant.
func TestLikelyFor(t *testing.T) {
	h := func(vs ...float64) scatter.Tensor {
		d := make([]scatter.Float16, len(vs))
		for i, v := range vs {
			d[i] = scatter.Float16FromFloat64(v)
		}
		return scatter.FromSlice(d, len(vs))
	}
	call := scatter.ScatterAdd{Self: h(1, 5), Dim: 0, Index: scatter.FromSlice([]int64{0}, 1), Src: h(3 * math.Ldexp(1, -12))}
	res := func(v float64) scatter.Result { return scatter.Result{Out: h(v, 5)} }
	ref, err := reference.New(scatter.Torch2).Run(scatter.CloneCall(call))
	if err != nil || scatter.Float64At(ref.Out.Data, 0) != 1+math.Ldexp(1, -10) {
		t.Fatalf("the reference: %v, %v", ref.Out, err)
	}
	for _, c := range []struct {
		name   string
		got    float64
		mutant string
		match  string
	}{
		{"truncated", 1, "half-truncated", "same outcome"},
		{"further below", 1 - math.Ldexp(1, -11), "half-truncated", "same verdict"},
		{"correct", 1 + math.Ldexp(1, -10), "", ""},
		{"above", 1 + math.Ldexp(1, -9), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, _ := likelyFor(call, scatter.Torch2, scatter.Conformant, res(c.got), nil)
			switch {
			case c.mutant == "" && l != nil:
				t.Errorf("a correct answer looks like %s (%s)", l.Mutant, l.Match)
			case c.mutant != "" && (l == nil || l.Mutant != c.mutant || l.Match != c.match):
				t.Errorf("got %+v, want mutant %s (%s)", l, c.mutant, c.match)
			}
		})
	}
	// an error where success is due matches no mutant that succeeds here
	if l, _ := likelyFor(call, scatter.Torch2, scatter.Conformant, scatter.Result{},
		scatter.Errorf(scatter.ErrShapeMismatch, "no")); l != nil {
		t.Errorf("a shape_mismatch error looks like %s", l.Mutant)
	}
}
