package optimized

import (
	"math"
	"slices"
	"sort"
)

// privateMean8 is the private path of a direct float32 mean with
// include_self (W4), in one pass over the index. Worker 0 sums a small
// chunk into out and counts every contribution of the call into c8, one
// byte per element; the other workers sum the rest into private
// accumulators and count nothing. A count that wraps past 255 appends its
// element to a log, each entry worth 256, so no count is lost. Then, split
// between the workers, out[t] = (out[t] + the private sums) / count. With
// two workers (the only case taken unless the path is forced) the sums
// and the counts are balanced by mean8Chunk0. Memory: one accumulator per
// worker but the first, worker 0's c8 (a quarter of the output for
// float32: smaller than int32 counts, and a little faster) and the log
// (at most one int32 per 256 contributions). The sums are those of the
// private path (worker 0's chunk, then the others' partial sums in worker
// order): conformant, not canonical.
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
	parallel(W, func(w int) { r.copySelf(split(n, W, w)) }) // as private does
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
		var k int
		k, log = addCount8Idx(out[:g.size], c8[:g.size], j.idx, g.iOff, g.iOff+c0, src[g.sOff:g.sOff+c0], log)
		if k != c0 {
			return
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
	self := int32(0)
	if j.fin.countSelf {
		self = 1
	}
	parallel(W, func(w int) {
		lo, hi := split(n, W, w)
		at := sort.Search(len(log), func(i int) bool { return int(log[i]) >= lo })
		for lo < hi {
			// [lo, e) has no wrapped count: the quick loop; then e itself
			e := hi
			if at < len(log) && int(log[at]) < hi {
				e = int(log[at])
			}
			if W == 2 {
				finishMean8(out[lo:e], ps[1][lo:e], c8[lo:e], self)
			} else {
				for t := lo; t < e; t++ {
					if c := c8[t]; c != 0 {
						a := out[t]
						for _, p := range ps[1:] {
							a += p[t]
						}
						out[t] = fo.do(a, int64(c))
					}
				}
			}
			if e == hi {
				break
			}
			cnt := int64(c8[e])
			for at < len(log) && int(log[at]) == e {
				cnt += 256
				at++
			}
			a := out[e]
			for _, p := range ps[1:] {
				a += p[e]
			}
			out[e] = fo.do(a, cnt)
			lo = e + 1
		}
	})
	return true
}

// mean8 reports whether privateMean8 applies: float32 out and src (the
// assembly kernels), and an output dimension of directMinBytes or more
// (smaller ones take privateMean, whose Go loops are faster there).
func (r *runner[T, A]) mean8() bool {
	_, ok := any(r.out).([]float32)
	if !ok || !hasDirect {
		return false
	}
	return r.b.force == "private" || r.b.force == "" && uintptr(r.j.g.size)*4 >= directMinBytes
}

// mean8Chunk0 is worker 0's share of privateMean8's sums. On the
// project's machine the direct kernels take, per contribution on one
// core, about 1.4 ns to add and 1 ns to count (BenchmarkDirect*): worker
// 0, which counts them all, balances worker 1 at about a tenth of the sums
// (measured on W4 with shares from 0.02 to 0.3: 0.1 to 0.15 best).
var mean8Chunk0 = 0.1

// finishMean8 is privateMean8's division on two workers where no count
// wrapped: o[t] = (o[t] + p[t]) / (c[t] + self) where c[t] != 0, finOne's
// float mean written out (the count, at most 256, is exact in float32 and
// below every clamp).
func finishMean8(o, p []float32, c []uint8, self int32) {
	p, c = p[:len(o)], c[:len(o)]
	for t, x := range c {
		if x != 0 {
			o[t] = (o[t] + p[t]) / float32(int32(x)+self)
		}
	}
}
