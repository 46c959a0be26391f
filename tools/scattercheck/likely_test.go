package main

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/reference"
)

// TestLikelyFor checks the classification on one float16 scatter_add,
// 1 + 3·2^-12 (whose float32 sum rounds up to 1 + 2^-10 in float16 and
// truncates to 1): the truncated answer is half-truncated's outcome; an
// answer further below gets the same verdict; the correct answer, and an
// answer above what is allowed (which no mutant of the zoo gives here),
// look like no mutant.
func TestLikelyFor(t *testing.T) {
	h := f16
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
			l, _ := likelyFor(call, scatter.Torch2, scatter.Conformant, res(c.got), nil, maxLikelyElements, 0)
			switch {
			case c.mutant == "" && l != nil:
				t.Errorf("a correct answer looks like %s (%s)", l.Mutant, l.Match)
			case c.mutant != "" && (l == nil || l.Mutant != c.mutant || l.Match != c.match):
				t.Errorf("got %+v, want mutant %s (%s)", l, c.mutant, c.match)
			}
		})
	}
	// past the bounds on the output or on the call's tensors, nothing is compared
	if l, why := likelyFor(call, scatter.Torch2, scatter.Conformant, res(1), nil, 1, 0); l != nil || !strings.Contains(why, "its output has 2 elements, past the 1") {
		t.Errorf("an output past the bound: %v, %q", l, why)
	}
	if l, why := likelyFor(call, scatter.Torch2, scatter.Conformant, res(1), nil, maxLikelyElements, 3); l != nil || !strings.Contains(why, "its tensors have 4 elements, past the 3") {
		t.Errorf("tensors past the bound: %v, %q", l, why)
	}
	// an error where success is due matches no mutant that succeeds here
	if l, _ := likelyFor(call, scatter.Torch2, scatter.Conformant, scatter.Result{},
		scatter.Errorf(scatter.ErrShapeMismatch, "no"), maxLikelyElements, 0); l != nil {
		t.Errorf("a shape_mismatch error looks like %s", l.Mutant)
	}
}

// TestRerunKept: a property's failure keeps its calls, not the answers;
// the gate asks again and keeps the first call answered as the judge
// rejects, with that answer (then classified), or, every answer allowed,
// says why the failure stays unclassified. A call answered unsupported is
// passed over; a run cut short asks nothing.
func TestRerunKept(t *testing.T) {
	h := f16
	idx := scatter.FromSlice([]int64{0}, 1)
	exact := scatter.ScatterAdd{Self: h(1, 5), Dim: 0, Index: idx, Src: h(2)}
	// 1 + 3*2^-12: float16 truncation gives 1, nearest 1+2^-10
	inexact := scatter.ScatterAdd{Self: h(1, 5), Dim: 0, Index: idx, Src: h(3 * math.Ldexp(1, -12))}
	var mut scatter.Backend
	for _, m := range properties.MutantsFor(scatter.Torch2) {
		if m.Name == "half-truncated" {
			mut = m.Backend
		}
	}
	if mut == nil {
		t.Fatal("no mutant half-truncated under torch-2")
	}
	for _, c := range []struct {
		name    string
		impl    scatter.Backend
		calls   []scatter.Call
		call    int // the call kept: its index in calls, -1 for none
		likely  string
		because string
	}{
		{"wrong on the second", mut, []scatter.Call{exact, inexact}, 1, "half-truncated", ""},
		{"wrong on the first", mut, []scatter.Call{inexact, exact}, 0, "half-truncated", ""},
		{"right on both", reference.New(scatter.Torch2), []scatter.Call{exact, inexact}, -1, "", "answered the 2 call(s) it printed as allowed"},
		{"unsupported", declines{}, []scatter.Call{inexact}, -1, "", "answered the 1 call(s) it printed as allowed (1 of them unsupported)"},
		{"cut short", mut, []scatter.Call{inexact}, -1, "", "the run was cut short before the implementation was asked again for its call 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &failure{Kind: "mismatch", profile: scatter.Torch2, level: scatter.Conformant, call: c.calls[0]}
			g := &guarded{inner: c.impl}
			if c.name == "cut short" {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				g.sess = &session{ctx: ctx}
			}
			f.rerunKept(c.calls, g)
			f.classify()
			if c.call >= 0 {
				if f.call == nil || f.call.Op() != c.calls[c.call].Op() || f.res.Out.IsZero() {
					t.Fatalf("kept call %v, outcome %v; want call %d with its outcome", f.call, f.res.Out, c.call)
				}
				if !reflect.DeepEqual(f.call, c.calls[c.call]) {
					t.Errorf("kept %s, want call %d", reference.DescribeCall(f.call), c.call)
				}
			}
			switch {
			case c.likely != "" && (f.Likely == nil || f.Likely.Mutant != c.likely):
				t.Errorf("likely %+v, want %s", f.Likely, c.likely)
			case c.likely == "" && f.Likely != nil:
				t.Errorf("likely %+v, want none", f.Likely)
			case !strings.Contains(f.unclassified(), c.because) || c.because == "" && f.unclassified() != "":
				t.Errorf("unclassified %q, want %q", f.unclassified(), c.because)
			}
		})
	}
}

// declines answers every call unsupported.
type declines struct{}

func (declines) Info() scatter.Info { return scatter.Info{Name: "declines"} }
func (declines) Run(scatter.Call) (scatter.Result, error) {
	return scatter.Result{}, scatter.Errorf(scatter.ErrNotSupported, "no")
}

// f16 is a 1-d float16 tensor of the values (rounded to nearest).
func f16(vs ...float64) scatter.Tensor {
	d := make([]scatter.Float16, len(vs))
	for i, v := range vs {
		d[i] = scatter.Float16FromFloat64(v)
	}
	return scatter.FromSlice(d, len(vs))
}

// TestLikelyForReduceAliases: scatter_reduce's "max" and "min", PyTorch 2's
// aliases of amax and amin, are classified as those are: a NaN dropped by
// "max" looks like nan-dropped-amax.
func TestLikelyForReduceAliases(t *testing.T) {
	f32 := func(v ...float32) scatter.Tensor { return scatter.FromSlice(v) }
	for _, r := range []scatter.Reduce{scatter.ReduceAmax, scatter.ReduceMax, scatter.ReduceAmin, scatter.ReduceMin} {
		call := scatter.ScatterReduce{Self: f32(0), Dim: 0, Index: scatter.FromSlice([]int64{0}), Src: f32(float32(math.NaN())), Reduce: r}
		l, why := likelyFor(call, scatter.Torch2, scatter.Conformant, scatter.Result{Out: f32(0)}, nil, maxLikelyElements, 0)
		if l == nil || l.Mutant != "nan-dropped-amax" {
			t.Errorf("reduce %q, the NaN dropped: looks like %+v (%s), want nan-dropped-amax", r, l, why)
		}
	}
}
