package callgen

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// features names what a call exercises, for the coverage test.
func features(c scatter.Call, prof scatter.Profile) []string {
	fs := []string{"op:" + string(c.Op())}
	add := func(f string) { fs = append(fs, f) }
	exp := reference.Expect(scatter.CloneCall(c), prof)
	if codes := exp.Codes(); codes != nil {
		add("error")
		add("error:" + codes[0].String())
	}
	for name, t := range c.Tensors() {
		if t.Validate() != nil {
			continue
		}
		index := name == "index" || strings.HasPrefix(name, "indices")
		if !index {
			add("dtype:" + t.DType().String())
		}
		add(fmt.Sprintf("rank:%d", t.Dim()))
		for _, s := range t.Shape {
			switch {
			case s == 0:
				add("zero-size")
			case s >= 31 && s <= 33:
				add("boundary:32")
			case s >= 255 && s <= 257:
				add("boundary:256")
			}
		}
		if t.Offset > 0 {
			add("layout:offset")
		}
		if t.Strides != nil {
			st := t.Strides
			for d, x := range st {
				if x == 0 && t.Shape[d] > 1 {
					add("layout:expanded")
				}
			}
			var nz []int
			for d, x := range st {
				if x != 0 && t.Shape[d] > 1 {
					nz = append(nz, x)
				}
			}
			if !slices.IsSortedFunc(nz, func(a, b int) int { return b - a }) {
				add("layout:transposed")
			}
			if scatter.DataLen(t.Data) > t.Offset+t.NumEl() && t.NumEl() > 1 {
				add("layout:gaps-or-guards")
			}
		}
		pos := t.Positions()
		if index {
			if t.DType() == scatter.DTInt32 {
				add("index:int32")
			}
			vals := make([]int64, 0, len(pos))
			for _, p := range pos {
				vals = append(vals, scatter.IntAt(t.Data, p))
			}
			if slices.ContainsFunc(vals, func(v int64) bool { return v < 0 }) {
				add("index:negative")
			}
			if len(vals) >= 3 && slices.Min(vals) == slices.Max(vals) {
				add("dups:all-same")
			}
			if len(vals) >= 3 {
				s := slices.Clone(vals)
				slices.Sort(s)
				if len(slices.Compact(s)) == len(vals) {
					add("dups:distinct")
				}
			}
			continue
		}
		for _, p := range pos {
			if !t.DType().IsFloat() {
				continue
			}
			v := scatter.Float64At(t.Data, p)
			f := scatter.FactsOf(t.DType())
			switch {
			case math.IsNaN(v):
				add("special:nan")
				if h, ok := t.Data.([]scatter.Float16); ok && h[p]&0x7fff != 0x7e00 {
					add("special:nan-payload16")
				}
			case math.IsInf(v, 1):
				add("special:+inf")
			case math.IsInf(v, -1):
				add("special:-inf")
			case v == 0 && math.Signbit(v):
				add("special:-0")
			case v != 0 && math.Abs(v) < f.MinNorm:
				add("special:subnormal")
			case math.Abs(v) >= f.Max/4:
				add("special:huge")
			}
		}
	}
	return fs
}

// TestGeneratorCoverage draws calls of every operation from the default
// tier's generators and checks that they reach what the suite promises:
// every dtype and rank, zero sizes, block boundaries, every kind of view,
// both index dtypes, negative indices, duplicate densities, special
// values, and an error share near the configured 15%.
func TestGeneratorCoverage(t *testing.T) {
	for _, prof := range scatter.Profiles {
		t.Run(prof.String(), func(t *testing.T) {
			count := map[string]int{}
			perOp := 1500
			if testing.Short() {
				perOp = 800
			}
			info := reference.New(prof).Info()
			for _, op := range scatter.Ops {
				calls := 0
				gen := Call(op, Options{Profile: prof, Claims: info, MaxElements: 4096,
					Boundaries: []int{31, 32, 33, 255, 256, 257}, FaultPercent: 15})
				for i := range perOp {
					c := gen.Example(i)
					calls++
					for _, f := range slices.Compact(sortedCopy(features(c, prof))) {
						count[f]++
						count[string(op)+"/"+f]++
					}
				}
				errs := count[string(op)+"/error"]
				share := float64(errs) / float64(calls)
				t.Logf("%s: %d calls, %.0f%% must fail", op, calls, 100*share)
				if share < 0.05 || share > 0.45 {
					t.Errorf("%s: %.0f%% of the calls must fail, want roughly 10%% to 35%%", op, 100*share)
				}
			}
			want := []string{"zero-size", "boundary:32", "boundary:256", "layout:offset", "layout:expanded",
				"layout:transposed", "layout:gaps-or-guards", "index:negative", "dups:all-same", "dups:distinct",
				"special:nan", "special:+inf", "special:-inf", "special:-0", "special:subnormal", "special:huge",
				"special:nan-payload16", "error:index_out_of_range", "error:dim_out_of_range", "error:shape_mismatch",
				"error:index_dtype", "error:dtype_mismatch", "error:invalid_argument", "error:value_overflow"}
			if prof == scatter.Torch2 {
				want = append(want, "index:int32")
			}
			for r := 0; r <= 4; r++ {
				want = append(want, fmt.Sprintf("rank:%d", r))
			}
			for _, dt := range scatter.DTypes {
				want = append(want, "dtype:"+dt.String())
			}
			for _, f := range want {
				if count[f] < 3 {
					t.Errorf("feature %s drawn %d times", f, count[f])
				}
			}
			var keys []string
			for k := range count {
				if !strings.Contains(k, "/") {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			var b strings.Builder
			for _, k := range keys {
				fmt.Fprintf(&b, " %s=%d", k, count[k])
			}
			t.Logf("features:%s", b.String())
		})
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
