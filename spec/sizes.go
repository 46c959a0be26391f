package spec

import (
	"fmt"
	"math"

	"github.com/scatterconf/scatter"
)

// largeN is the length of the sizes cases' 1-d tensors: past two chunks of
// 4096 and one of 8192 with a tail, where a blocked loop that drops its last
// partial block, or runs one too many, shows.
const largeN = 10007

// wideDim is a dimension past 2^15, where an index bound or an offset kept
// in 16 bits goes wrong.
const wideDim = 40000

// sizesCases returns the cases of sizes that the rule pairs and the
// random calls, small by design (256 elements, 4096 in the properties),
// never reach: a 1-d call of largeN contributions, one per output (a
// reversed arange: every output is the one src value sent to it, exact in
// every dtype), for scatter_add and scatter_reduce sum and amax in every
// dtype they take, and for gather; and index values past 2^15 (int32 and
// int64) along a dimension of wideDim; and a sorted index of long
// segments with NaNs for amax and amin; and the cases past 2^16 elements
// of every operation (largeCases, sizes_large.go). The truth is
// arithmetic: 0 + x and max(lowest, x) are x.
func sizesCases() []Case {
	var cs []Case
	add := func(name, source string, labels []string, c Case) {
		c.Name, c.Labels, c.Source = name, append([]string{"sizes"}, labels...), source
		cs = append(cs, c)
	}
	const permSource = "arithmetic: a reversed arange sends each src element to its own output, and 0 + x, max(self, x) for self the dtype's lowest, is x"
	rev := func(n int) scatter.Tensor {
		t := full(scatter.DTInt64, 0, n)
		for i := range n {
			setAt(t, i, float64(n-1-i))
		}
		return t
	}
	vals := func(dt scatter.DType, n int, reversed bool) scatter.Tensor {
		t := full(dt, 0, n)
		for i := range n {
			j := i
			if reversed {
				j = n - 1 - i
			}
			v := float64(j%7 - 3) // -3..3: exact in every dtype, 0/1 for bool
			if dt == scatter.DTBool || dt == scatter.DTUint8 {
				v = float64(j % 2)
			}
			setAt(t, i, v)
		}
		return t
	}
	for _, dt := range scatter.DTypes {
		op := string(scatter.OpScatterAdd)
		add(fmt.Sprintf("%s/%v/sizes/n=%d/reversed", op, dt, largeN), permSource, []string{op, dt.String()}, Case{
			Call: scatter.ScatterAdd{Self: full(dt, 0, largeN), Index: rev(largeN), Src: vals(dt, largeN, false)},
			Want: vals(dt, largeN, true),
		})
		op = string(scatter.OpGather)
		add(fmt.Sprintf("%s/%v/sizes/n=%d/reversed", op, dt, largeN), "arithmetic: gather by a reversed arange reverses", []string{op, dt.String()}, Case{
			Call: scatter.Gather{Input: vals(dt, largeN, false), Index: rev(largeN)},
			Want: vals(dt, largeN, true),
		})
		if dt == scatter.DTBool {
			continue // scatter_reduce takes no bool sum or amax
		}
		op = string(scatter.OpScatterReduce)
		add(fmt.Sprintf("%s/sum/%v/sizes/n=%d/reversed", op, dt, largeN), permSource, []string{op, dt.String(), "sum"}, Case{
			Call: scatter.ScatterReduce{Self: full(dt, 0, largeN), Index: rev(largeN), Src: vals(dt, largeN, false), Reduce: scatter.ReduceSum},
			Want: vals(dt, largeN, true),
		})
		lo := scatter.FactsOf(dt).Max * -1 // a float's lowest
		if !dt.IsFloat() {
			l, _ := dt.IntRange()
			lo = float64(l)
		}
		add(fmt.Sprintf("%s/amax/%v/sizes/n=%d/reversed", op, dt, largeN), permSource, []string{op, dt.String(), "amax"}, Case{
			Call: scatter.ScatterReduce{Self: full(dt, lo, largeN), Index: rev(largeN), Src: vals(dt, largeN, false), Reduce: scatter.ReduceAmax},
			Want: vals(dt, largeN, true),
		})
	}

	// A sorted index of long segments (as a CSR or PyG index is), where a
	// kernel may fold each segment in one run: amax and amin of segments
	// of 100 values -3..3 (and self 0), every even segment with a NaN at
	// its first, last or an inner position, which propagates.
	const segs, segLen = 100, 100
	nanAt := []int{0, segLen - 1, segLen / 2, 1, segLen - 2, 63}
	for _, r := range []scatter.Reduce{scatter.ReduceAmax, scatter.ReduceAmin} {
		index := full(scatter.DTInt64, 0, segs*segLen)
		src := vals(scatter.DTFloat32, segs*segLen, false)
		want := full(scatter.DTFloat32, 3, segs)
		if r == scatter.ReduceAmin {
			want = full(scatter.DTFloat32, -3, segs)
		}
		for k := range segs {
			for j := range segLen {
				setAt(index, k*segLen+j, float64(k))
			}
			if k%2 == 0 {
				setAt(src, k*segLen+nanAt[k/2%len(nanAt)], math.NaN())
				setAt(want, k, math.NaN())
			}
		}
		op := string(scatter.OpScatterReduce)
		add(fmt.Sprintf("%s/%s/float32/sizes/sorted-index/segments=%dx%d/nan", op, r, segs, segLen),
			"arithmetic, and SEMANTICS.md's amax/amin: a NaN contribution propagates", []string{op, "float32", string(r), "nan"}, Case{
				Call: scatter.ScatterReduce{Self: full(scatter.DTFloat32, 0, segs), Index: index, Src: src, Reduce: r},
				Want: want,
			})
	}

	// Index values past 2^15 along a dimension of wideDim: 1 lands at
	// 0, 32767, 32768 and wideDim-1 (index_reduce takes an int32 index in
	// every profile, scatter_add from torch 2.x on).
	const wideSource = "arithmetic: four contributions of 1 to distinct outputs of a zero self"
	at := []int{0, 32767, 32768, wideDim - 1}
	want := full(scatter.DTFloat32, 0, wideDim)
	for _, p := range at {
		setAt(want, p, 1)
	}
	for _, idt := range []scatter.DType{scatter.DTInt32, scatter.DTInt64} {
		index := full(idt, 0, len(at))
		for i, p := range at {
			setAt(index, i, float64(p))
		}
		profiles := []scatter.Profile(nil)
		if idt == scatter.DTInt32 {
			profiles = from28
		}
		op := string(scatter.OpScatterAdd)
		add(fmt.Sprintf("%s/float32/sizes/dim=%d/index=%v", op, wideDim, idt), wideSource, []string{op, "float32", "index-dtype"}, Case{
			Call:     scatter.ScatterAdd{Self: full(scatter.DTFloat32, 0, wideDim), Index: index, Src: full(scatter.DTFloat32, 1, len(at))},
			Want:     want,
			Profiles: profiles,
		})
		op = string(scatter.OpIndexReduce)
		add(fmt.Sprintf("%s/amax/float32/sizes/dim=%d/index=%v", op, wideDim, idt), wideSource+" (amax of 0 and 1)", []string{op, "float32", "amax", "index-dtype"}, Case{
			Call: scatter.IndexReduce{Self: full(scatter.DTFloat32, 0, wideDim), Index: index, Source: full(scatter.DTFloat32, 1, len(at)),
				Reduce: scatter.ReduceAmax},
			Want: want,
		})
	}
	return append(cs, largeCases()...)
}
