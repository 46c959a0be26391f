package callgen

import (
	"fmt"
	"slices"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// largestGroup returns the most contributions that index sends to one
// output element, where index runs along dim d of out's rank (each
// position goes to its own coordinates with d replaced by its value).
func largestGroup(index scatter.Tensor, d int) int {
	count := map[string]int{}
	most := 0
	shape := index.Shape
	for p, pos := range index.Positions() {
		coord := make([]int, len(shape))
		for k, rest := len(shape)-1, p; k >= 0; k-- {
			coord[k], rest = rest%shape[k], rest/shape[k]
		}
		if len(coord) > 0 {
			coord[d] = int(scatter.IntAt(index.Data, pos))
		}
		key := fmt.Sprint(coord)
		count[key]++
		most = max(most, count[key])
	}
	return most
}

// mostCommon returns how many entries of index share its most common
// value.
func mostCommon(index scatter.Tensor) int {
	count := map[int64]int{}
	most := 0
	for _, pos := range index.Positions() {
		v := scatter.IntAt(index.Data, pos)
		count[v]++
		most = max(most, count[v])
	}
	return most
}

// wrap returns dim wrapped into [0, rank) (rank 0 as 1).
func wrap(dim, rank int) int {
	if dim < 0 {
		return dim + max(rank, 1)
	}
	return dim
}

// crowdedGroup checks that c is one of Want.Crowded's calls (the
// reductions, a float dtype, three or more positions along dim) and
// returns the most contributions it folds into one output element.
func crowdedGroup(t *testing.T, c scatter.Call) int {
	t.Helper()
	bad := func(why string) { t.Fatalf("%s: %s", why, reference.DescribeCall(c)) }
	switch x := c.(type) {
	case scatter.Scatter:
		if x.Reduce != scatter.ReduceAdd && x.Reduce != scatter.ReduceMultiply || x.Value != nil {
			bad("not a reducing scatter with src")
		}
		return dimGroup(t, c, x.Src, x.Index, x.Dim)
	case scatter.ScatterAdd:
		return dimGroup(t, c, x.Src, x.Index, x.Dim)
	case scatter.ScatterReduce:
		if !slices.Contains([]scatter.Reduce{scatter.ReduceSum, scatter.ReduceProd, scatter.ReduceMean}, x.Reduce) {
			bad("not a sum, product or mean")
		}
		return dimGroup(t, c, x.Src, x.Index, x.Dim)
	case scatter.IndexReduce:
		if x.Reduce != scatter.ReduceProd && x.Reduce != scatter.ReduceMean || !x.Source.DType().IsFloat() || x.Index.NumEl() < 3 {
			bad("not a float product or mean of three or more entries")
		}
		// every slice takes one contribution per index entry of its value
		return mostCommon(x.Index)
	case scatter.TorchScatter:
		d := wrap(-1, x.Src.Dim())
		if x.Dim != nil {
			d = wrap(*x.Dim, x.Src.Dim())
		}
		if !slices.Contains([]scatter.Reduce{scatter.ReduceSum, scatter.ReduceMean, scatter.ReduceMul}, x.Reduce) ||
			!x.Src.DType().IsFloat() || x.Src.Dim() == 0 || x.Src.Shape[d] < 3 {
			bad("not a float sum, mean or product of three or more along dim")
		}
		if x.Index.Dim() == 1 {
			// a vector along dim: each fiber takes one contribution per
			// entry of its value
			return mostCommon(x.Index)
		}
		return largestGroup(x.Index, d)
	}
	bad("not a crowded operation")
	return 0
}

// dimGroup checks a dim scatter's src dtype and index length along dim.
func dimGroup(t *testing.T, c scatter.Call, src, index scatter.Tensor, dim int) int {
	t.Helper()
	d := wrap(dim, index.Dim())
	if !src.DType().IsFloat() || index.Dim() == 0 || index.Shape[d] < 3 {
		t.Fatalf("not a float call with three or more along dim: %s", reference.DescribeCall(c))
	}
	return largestGroup(index, d)
}

// TestCrowdedCalls: Want.Crowded draws valid float sums, products and
// means of scatter (with src), scatter_add, scatter_reduce, index_reduce
// and torch_scatter 2.x scatter, at most MaxElements to a tensor, with
// three or more positions along dim; every call sends two or more
// contributions to some output element, and most three or more. Under
// every profile, at the sizes of the properties' short and default tiers.
func TestCrowdedCalls(t *testing.T) {
	for _, prof := range scatter.Profiles {
		info := reference.New(prof).Info()
		info.DTypes = []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16, scatter.DTFloat32, scatter.DTFloat64}
		for _, sizes := range []Options{{MaxElements: 256, Boundaries: []int{31, 32, 33}}, {MaxElements: 4096, Boundaries: []int{31, 32, 33, 255, 256, 257}}} {
			for _, op := range []scatter.Op{scatter.OpScatter, scatter.OpScatterAdd, scatter.OpScatterReduce, scatter.OpIndexReduce, scatter.OpTorchScatter} {
				name := fmt.Sprintf("%v/max=%d/%s", prof, sizes.MaxElements, op)
				t.Run(name, func(t *testing.T) {
					o := sizes
					o.Profile, o.Claims, o.Valid, o.Want = prof, info, true, Want{Crowded: true}
					gen := Call(op, o)
					const n = 500
					three := 0
					for i := range n {
						c := gen.Example(i)
						if codes := reference.Expect(scatter.CloneCall(c), prof).Codes(); codes != nil {
							t.Fatalf("call %d is not valid (%v): %s", i, codes, reference.DescribeCall(c))
						}
						for name, x := range c.Tensors() {
							// (a dim scatter's src may grow past the index by
							// one or two along each dimension, crowded or not)
							_, dimScatter := c.(scatter.ScatterReduce)
							switch c.(type) {
							case scatter.Scatter, scatter.ScatterAdd:
								dimScatter = true
							}
							if x.NumEl() > o.MaxElements && !(dimScatter && name == "src") {
								t.Fatalf("call %d: %s has %d elements, past %d: %s", i, name, x.NumEl(), o.MaxElements, reference.DescribeCall(c))
							}
						}
						g := crowdedGroup(t, c)
						if g < 2 {
							t.Fatalf("call %d: no element takes two contributions: %s", i, reference.DescribeCall(c))
						}
						if g >= 3 {
							three++
						}
					}
					t.Logf("%d of %d calls send three or more contributions to an element", three, n)
					if three < n*3/4 {
						t.Errorf("only %d of %d calls send three or more contributions to an element", three, n)
					}
				})
			}
		}
	}
}
