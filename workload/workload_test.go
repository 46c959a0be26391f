package workload

import (
	"reflect"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// shapes are the shapes of each workload's tensors at full size, by
// parameter name.
var shapes = map[int]map[string][]int{
	1: {"self": {1_000_000}, "index": {10_000_000}, "src": {10_000_000}},
	2: {"self": {100_000, 64}, "index": {1_000_000, 64}, "src": {1_000_000, 64}},
	3: {"self": {1_000_000}, "index": {10_000_000}, "src": {10_000_000}},
	4: {"self": {1_000_000}, "index": {10_000_000}, "src": {10_000_000}},
	5: {"self": {100_000, 64}, "index": {1_000_000}, "source": {1_000_000, 64}},
	6: {"self": {16}, "index": {10_000_000}, "src": {10_000_000}},
	7: {"self": {1_000_000}, "index": {10_000_000}, "src": {10_000_000}},
}

// The bytes moved at full size, from PERFORMANCE.md's shapes: 4-byte
// float32 (2-byte bfloat16 for W7) values and 8-byte indices read, self
// read and written; W2's expanded index counts one id per row.
var fullBytes = map[int]int64{
	1: 10_000_000*(4+8) + 2*1_000_000*4,
	2: 1_000_000*64*4 + 1_000_000*8 + 2*100_000*64*4,
	3: 10_000_000*(4+8) + 2*1_000_000*4,
	4: 10_000_000*(4+8) + 2*1_000_000*4,
	5: 1_000_000*64*4 + 1_000_000*8 + 2*100_000*64*4,
	6: 10_000_000*(4+8) + 2*16*4,
	7: 10_000_000*(2+8) + 2*1_000_000*2,
}

// TestFullSize checks the calls at the standard size: operation, shapes,
// dtypes, W2's expanded index and the bytes moved. It builds every
// workload once (about 1.5 GB at a time, a few seconds); -short skips it.
func TestFullSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the full-size workloads")
	}
	ops := map[int]scatter.Op{1: scatter.OpScatterAdd, 2: scatter.OpScatterAdd, 3: scatter.OpScatterReduce,
		4: scatter.OpScatterReduce, 5: scatter.OpIndexReduce, 6: scatter.OpScatterAdd, 7: scatter.OpScatterAdd}
	for w := 1; w <= Count; w++ {
		wl, err := Get(w, 1)
		if err != nil {
			t.Fatal(err)
		}
		if wl.ID != w || wl.Name != Name(w) || wl.Div != 1 || wl.Description == "" {
			t.Errorf("W%d: %+v", w, wl)
		}
		if wl.Call.Op() != ops[w] {
			t.Errorf("W%d: op %s, want %s", w, wl.Call.Op(), ops[w])
		}
		if wl.Bytes != fullBytes[w] {
			t.Errorf("W%d: %d bytes, want %d", w, wl.Bytes, fullBytes[w])
		}
		ts := wl.Call.Tensors()
		if len(ts) != len(shapes[w]) {
			t.Errorf("W%d: tensors %v", w, ts)
		}
		for name, want := range shapes[w] {
			x := ts[name]
			if !reflect.DeepEqual(x.Shape, want) {
				t.Errorf("W%d %s: shape %v, want %v", w, name, x.Shape, want)
			}
			if err := x.Validate(); err != nil {
				t.Errorf("W%d %s: %v", w, name, err)
			}
			wantDT := scatter.DTFloat32
			switch {
			case name == "index":
				wantDT = scatter.DTInt64
			case w == 7:
				wantDT = scatter.DTBFloat16
			}
			if x.DType() != wantDT {
				t.Errorf("W%d %s: dtype %v, want %v", w, name, x.DType(), wantDT)
			}
		}
		if w == 2 {
			idx := ts["index"]
			if !reflect.DeepEqual(idx.Strides, []int{1, 0}) || scatter.DataLen(idx.Data) != 1_000_000 {
				t.Errorf("W2: index strides %v over %d ids, want [1 0] over 1,000,000", idx.Strides, scatter.DataLen(idx.Data))
			}
		}
	}
}

// TestSeeds pins values drawn from the fixed seeds: a change of the
// generator or of the order of the draws would make figures incomparable
// with the ones already published. The source values come first and do
// not depend on the scale.
func TestSeeds(t *testing.T) {
	pins := []struct {
		w     int
		name  string
		first float64
		last  float64 // at div 1000
	}{
		{1, "src", 0.2093205451965332, 0.8335438966751099},
		{1, "index", 643, 340},
		{2, "src", -0.6654067039489746, -0.20782816410064697},
		{2, "index", 31, 69},
		{3, "src", 0.4399653673171997, -0.5231509208679199},
		{4, "index", 148, 723},
		{5, "self", 0.607689619064331, -0.7126349806785583},
		{5, "index", 20, 95},
		{5, "source", 0.36653363704681396, -0.6982681751251221},
		{6, "index", 11, 9},
		{7, "src", 0.8359375, 0.578125},
	}
	for _, p := range pins {
		x := MustGet(p.w, 1000).Call.Tensors()[p.name]
		n := scatter.DataLen(x.Data)
		if first, last := scatter.Float64At(x.Data, 0), scatter.Float64At(x.Data, n-1); first != p.first || last != p.last {
			t.Errorf("W%d %s: first %v last %v, want %v and %v", p.w, p.name, first, last, p.first, p.last)
		}
	}
	// The same arguments give the same data.
	for w := 1; w <= Count; w++ {
		a, b := MustGet(w, 500), MustGet(w, 500)
		if !reflect.DeepEqual(a.Call, b.Call) || a.Bytes != b.Bytes || a.Description != b.Description {
			t.Errorf("W%d: two builds differ", w)
		}
	}
}

// TestScaledRunsOnReference checks that the scaled-down calls are valid
// calls that the reference runs, with the scaled shapes and byte counts.
func TestScaledRunsOnReference(t *testing.T) {
	const div = 1000
	for w := 1; w <= Count; w++ {
		wl := MustGet(w, div)
		for name, full := range shapes[w] {
			want := append([]int{}, full...)
			if !(w == 6 && name == "self") {
				want[0] /= div
			}
			if got := wl.Call.Tensors()[name].Shape; !reflect.DeepEqual(got, want) {
				t.Errorf("W%d/%d %s: shape %v, want %v", w, div, name, got, want)
			}
		}
		if w != 6 && wl.Bytes != fullBytes[w]/div {
			t.Errorf("W%d/%d: %d bytes, want %d", w, div, wl.Bytes, fullBytes[w]/div)
		}
		for _, p := range scatter.Profiles {
			res, err := reference.New(p).Run(wl.Call)
			if err != nil {
				t.Fatalf("W%d/%d under %v: %v", w, div, p, err)
			}
			if self := wl.Call.Tensors()["self"]; !reflect.DeepEqual(res.Out.Shape, self.Shape) || res.Out.DType() != self.DType() {
				t.Errorf("W%d/%d: result %v%v, want %v%v", w, div, res.Out.DType(), res.Out.Shape, self.DType(), self.Shape)
			}
		}
	}
}

func TestArguments(t *testing.T) {
	for _, c := range [][2]int{{0, 1}, {8, 1}, {-1, 1}, {1, 0}, {1, -5}, {2, MaxDiv + 1}} {
		if _, err := Get(c[0], c[1]); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
			t.Errorf("Get(%d, %d): err %v, want invalid_argument", c[0], c[1], err)
		}
	}
	for w := 1; w <= Count; w++ {
		if _, err := Get(w, MaxDiv); err != nil {
			t.Errorf("Get(%d, MaxDiv): %v", w, err)
		}
	}
	for s, want := range map[string]int{"W1": 1, "w7": 7, "3": 3, " W2 ": 2} {
		if got, err := Parse(s); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "W", "W0", "W8", "W01", "x1", "W1x", "WW1", "Ww1", "-1", "+1"} {
		if _, err := Parse(s); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
			t.Errorf("Parse(%q): err %v, want invalid_argument", s, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MustGet(0, 1) did not panic")
		}
	}()
	MustGet(0, 1)
}

// TestOp checks that Op names each workload's operation as its call does,
// and nothing for numbers outside 1 to Count.
func TestOp(t *testing.T) {
	for w := 1; w <= Count; w++ {
		if got, want := Op(w), MustGet(w, MaxDiv).Call.Op(); got != want {
			t.Errorf("Op(%d) = %q, the call's is %q", w, got, want)
		}
	}
	for _, w := range []int{0, -1, Count + 1} {
		if got := Op(w); got != "" {
			t.Errorf("Op(%d) = %q, want \"\"", w, got)
		}
	}
}
