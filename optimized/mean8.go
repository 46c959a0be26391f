package optimized

import (
	"math"
	"slices"
	"sort"
)

// privateMean8 is the private path of a direct float32 mean with
// include_self on two workers (W4), in one pass over the index: worker 0
// sums its chunk into out and counts it into c8, one byte per element
// (1 MB for W4's output: it stays in L2, where int32 counts, 4 MB, miss
// to L3 as often as the sums and double the cost of the pass), then
// counts worker 1's chunk into c8 too; worker 1 sums its chunk, the
// larger, into a private accumulator. A count that wraps past 255 appends
// its element to a log, each entry worth 256, so no count is ever lost.
// Then out += worker 1's sums, and the division, both split between the
// workers. Memory: worker 1's accumulator (one output-sized buffer),
// worker 0's c8 (a quarter of one for float32) and the log (at most one
// int32 per 256 contributions). The sums are those of the private path
// (worker 0's chunk, then worker 1's partial sum): conformant, not
// canonical.
func (r *runner[T, A]) privateMean8(W int) bool {
	g, j := &r.j.g, r.j
	n := g.outN
	out := any(r.out).([]float32)
	src := any(r.src).([]float32)
	N := r.units
	c0 := int(float64(N) * mean8Chunk0)
	c8, relC := scratch[uint8](n)
	defer relC()
	clear(c8)
	log, relL := scratch[int32](N/256 + 1)
	defer relL()
	log = log[:0]
	ps := make([][]float32, W)
	rels := make([]func(), W)
	defer func() {
		for _, rel := range rels[1:] {
			if rel != nil {
				rel()
			}
		}
	}()
	oks := make([]bool, W)
	parallel(W, func(w int) {
		if w > 0 {
			p, rel := scratch[float32](n)
			ps[w], rels[w] = p, rel
			negZero := float32(math.Copysign(0, -1)) // the identity of +
			for i := range p {
				p[i] = negZero
			}
			lo, hi := split(N-c0, W-1, w-1)
			oks[w] = r.f.plainIdx(opSum, any(p[:g.size]).([]A), j.idx, g.iOff+c0+lo, g.iOff+c0+hi, r.src[g.sOff+c0+lo:g.sOff+c0+hi])
			return
		}
		r.copySelf(0, n)
		if mean8Fused {
			var k int
			k, log = addCount8Idx(out[:g.size], c8[:g.size], j.idx, g.iOff, g.iOff+c0, src[g.sOff:g.sOff+c0], log)
			if k != c0 {
				return
			}
		} else {
			if !r.f.plainIdx(opSum, any(out[:g.size]).([]A), j.idx, g.iOff, g.iOff+c0, r.src[g.sOff:g.sOff+c0]) {
				return
			}
			_, log = count8Idx(c8[:g.size], j.idx, g.iOff, g.iOff+c0, log)
		}
		// the other chunks are checked by their workers (and counted here
		// only up to a first bad value: the call then fails anyway)
		_, log = count8Idx(c8[:g.size], j.idx, g.iOff+c0, g.iOff+N, log)
		oks[0] = true
	})
	for _, ok := range oks {
		if !ok {
			return false
		}
	}
	slices.Sort(log)
	fo := newFinOne[float32](&j.fin)
	parallel(W, func(w int) {
		lo, hi := split(n, W, w)
		o, c := out[lo:hi], c8[lo:hi]
		c = c[:len(o)]
		at := sort.Search(len(log), func(i int) bool { return int(log[i]) >= lo })
		for t := range o {
			cnt := int64(c[t])
			for at < len(log) && int(log[at]) == lo+t {
				cnt += 256
				at++
			}
			if cnt != 0 {
				a := o[t]
				for _, p := range ps[1:] {
					a += p[lo+t]
				}
				o[t] = fo.do(a, cnt)
			}
		}
	})
	return true
}

// mean8 reports whether privateMean8 applies: float32 out and src (the
// assembly kernels), a walk past the serial threshold.
func (r *runner[T, A]) mean8() bool {
	_, ok := any(r.out).([]float32)
	return ok && hasDirect && (r.b.force == "" || r.b.force == "private")
}

// mean8Chunk0 is worker 0's share of privateMean8's index: worker 0 sums
// and counts its share and counts the rest, worker 1 only sums the rest.
var mean8Chunk0 = 0.3

var mean8Fused = true
