package reference

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/scatterconf/scatter"
)

// naiveGroups groups contributions with a map of appended slices, sorted
// by output: what groupBy's counting sort must equal.
func naiveGroups(outs, srcs []int) (keys []int, per map[int][]int32) {
	per = map[int][]int32{}
	for i, o := range outs {
		per[o] = append(per[o], int32(srcs[i]))
	}
	for o := range per {
		keys = append(keys, o)
	}
	slices.Sort(keys)
	return keys, per
}

// TestGroupByMatchesNaive checks the counting sort against a map on random
// contributions: n outputs, c contributions, crowded and sparse.
func TestGroupByMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, tc := range []struct{ n, c int }{{1, 0}, {1, 5}, {5, 0}, {16, 1000}, {1000, 16}, {1000, 1000}, {7, 7}} {
		t.Run(fmt.Sprintf("n=%d/c=%d", tc.n, tc.c), func(t *testing.T) {
			outs := make([]int, tc.c)
			srcs := make([]int, tc.c)
			for i := range outs {
				outs[i], srcs[i] = rng.Intn(tc.n), rng.Intn(1<<20)
			}
			calls := 0
			gs := groupBy(tc.n, func(yield func(out, src int)) {
				calls++
				for i := range outs {
					yield(outs[i], srcs[i])
				}
			})
			if calls != 2 {
				t.Errorf("enumerated %d times, want 2", calls)
			}
			keys, per := naiveGroups(outs, srcs)
			if gs.len() != len(keys) {
				t.Fatalf("%d groups, want %d", gs.len(), len(keys))
			}
			for i, g := range gs.all() {
				if g.out != keys[i] || !slices.Equal(g.srcs, per[keys[i]]) {
					t.Errorf("group %d = out %d srcs %v, want out %d srcs %v", i, g.out, g.srcs, keys[i], per[keys[i]])
				}
				if cap(g.srcs) != len(g.srcs) {
					t.Errorf("group %d's srcs reach past it (cap %d, len %d)", i, cap(g.srcs), len(g.srcs))
				}
			}
		})
	}
}

// TestGroupSetAdd checks the appending builder that the gathers use.
func TestGroupSetAdd(t *testing.T) {
	var gs groupSet
	if gs.len() != 0 {
		t.Fatalf("empty set has %d groups", gs.len())
	}
	gs.reserve(3, 4)
	gs.add(0, 5)
	gs.add(2)
	gs.add(7, 1, 2, 3)
	want := []group{{0, []int32{5}}, {2, []int32{}}, {7, []int32{1, 2, 3}}}
	if gs.len() != len(want) {
		t.Fatalf("%d groups, want %d", gs.len(), len(want))
	}
	for i, g := range gs.all() {
		if g.out != want[i].out || !slices.Equal(g.srcs, want[i].srcs) {
			t.Errorf("group %d = %v, want %v", i, g, want[i])
		}
	}
}

// TestWalkIsRowMajor checks walk's multi-indices and numbers against multiIndex.
func TestWalkIsRowMajor(t *testing.T) {
	for _, shape := range [][]int{{}, {1}, {4}, {2, 3}, {2, 0, 3}, {3, 1, 2, 2}} {
		t.Run(fmt.Sprint(shape), func(t *testing.T) {
			n := 0
			walk(shape, func(p int, idx []int) bool {
				if p != n || !slices.Equal(idx, multiIndex(p, shape)) {
					t.Errorf("element %d: p %d idx %v, want %v", n, p, idx, multiIndex(n, shape))
				}
				n++
				return true
			})
			if want := numel(shape); n != want {
				t.Errorf("walked %d elements, want %d", n, want)
			}
			if n > 1 {
				m := 0
				walk(shape, func(int, []int) bool { m++; return m < 2 })
				if m != 2 {
					t.Errorf("walk went on after false: %d calls", m)
				}
			}
		})
	}
}

// TestIndexAtReadsViews checks indexAt and eachIndexValue against
// scatter.Values on contiguous, strided, offset, expanded and 0-d views of
// both index dtypes.
func TestIndexAtReadsViews(t *testing.T) {
	data64 := []int64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}
	data32 := make([]int32, len(data64))
	for i, v := range data64 {
		data32[i] = int32(v)
	}
	views := []struct {
		name           string
		shape, strides []int
		offset         int
	}{
		{"contiguous", []int{3, 4}, nil, 0},
		{"transposed", []int{4, 3}, []int{1, 4}, 0},
		{"offset", []int{2, 2}, []int{4, 1}, 5},
		{"expanded", []int{3, 5}, []int{1, 0}, 2},
		{"0-d", []int{}, nil, 7},
		{"empty", []int{2, 0}, nil, 0},
	}
	for _, v := range views {
		for _, data := range []any{data64, data32} {
			tn := scatter.Tensor{Shape: v.shape, Strides: v.strides, Offset: v.offset, Data: data}
			t.Run(fmt.Sprintf("%s/%v", v.name, tn.DType()), func(t *testing.T) {
				if err := tn.Validate(); err != nil {
					t.Fatal(err)
				}
				want := indexValues(tn)
				at := indexAt(tn)
				var got, each []int64
				walk(tn.Shape, func(_ int, idx []int) bool { got = append(got, at(idx)); return true })
				eachIndexValue(tn, func(x int64) bool { each = append(each, x); return true })
				if !slices.Equal(got, want) || !slices.Equal(each, want) {
					t.Errorf("indexAt read %v, eachIndexValue %v, want %v", got, each, want)
				}
			})
		}
	}
	if indexAt(scatter.FromSlice([]float32{1})) != nil {
		t.Error("indexAt of a float tensor is not nil")
	}
}
