package optimized

import (
	"sync/atomic"

	"github.com/scatterconf/scatter"
)

// Thresholds (see doc.go).
var (
	// serialMax: below this many element operations a call runs serially.
	serialMax = 32 << 10
	// privateElems: an element scatter uses private per-worker
	// accumulators when out.numel()*(workers-1) <= privateElems * the
	// number of contributions; otherwise one owner per output range.
	privateElems = 1.0
	// privateRows: the same ratio for row scatters, whose owner path keeps
	// the output rows in cache and streams the src rows in with prefetch:
	// only small outputs go private (W2: 6.4M output elements against 64M
	// contributions takes the owner path).
	privateRows = 1.0 / 16
	// bucketsPerWorker: fine buckets of the owner path's counting sort,
	// per worker (load balance for skewed indices, cache-sized ranges).
	bucketsPerWorker = 64
	// rowBucketsPerWorker: the same for row scatters.
	rowBucketsPerWorker = 256
	// ownerElemMinWorkers: element scatters that cannot take the private
	// path (plain scatter, float sums, products and means under
	// Deterministic, outputs too large) take the owner path only on this
	// many workers or more, else the serial one. The owner path's passes
	// (count, place a record per contribution, fold the records) cost
	// about three serial folds: on two workers (measured 2026-11, torch-2,
	// minimum of 10 calls) it took 44-74 ms on W1 against 14 ms serially,
	// 44 ms on W4 against 26 ms. The break-even is about three workers.
	ownerElemMinWorkers = 4
)

// batch is the number of contributions generated at a time into the
// (target, value) buffers of the strided walks.
const batch = 2048

// fam bundles the kernels of one element family: T the element type, A
// the accumulator type.
type fam[T, A any] struct {
	direct   bool // A is T: a plain accumulator can be out itself
	plain    func(op opKind, acc []A, t []int32, v []T) bool
	plainIdx func(op opKind, acc []A, idx any, lo, hi int, v []T) bool
	count    func(op opKind, acc []rec[A], t []int32, v []T) bool
	countIdx func(op opKind, acc []rec[A], idx any, lo, hi int, v []T) bool
	row      func(op opKind, acc []A, cnt []int32, trow []int32, srow []int, src []T, n int, pfSrc bool)
	ident    func(op opKind) A
	load     func(dst []A, src []T)
	loadRec  func(dst []rec[A], src []T)
	fillRec  func(dst []rec[A], v A)
	finPlain func(f *fin, out []T, accs [][]A, lo, hi int)
	finCount func(f *fin, out []T, recs [][]rec[A], lo, hi int)
	finRows  func(f *fin, out []T, accs [][]A, cnts [][]int32, n, lo, hi int)
	finSeen  func(f *fin, out []T, accs [][]A, seen [][]uint64, lo, hi int)
	finMean  func(f *fin, out []T, cnts [][]int32, lo, hi int) // nil: no split mean
}

// rjob is one scatter-like call, normalised.
type rjob struct {
	g        geom
	rowsKind bool
	idx      any // the index's data: []int64 or []int32
	op       opKind
	fin      fin
	initSelf bool           // accumulators start from self's values
	zeroSelf bool           // self is zeros of out's shape (torch_scatter): nothing to copy
	self     scatter.Tensor // the view out starts as (unless zeroSelf)
	exact    bool           // partial results merge exactly (integers, amax, amin)
}

// accs is one set of accumulators: plain ones; counting records (element
// scatters that need counts: means); plain ones with a bitmap of the
// elements reached (element scatters that need only that:
// include_self=False); or plain ones with per-row counts (row scatters).
type accs[A any] struct {
	plain   []A
	recs    []rec[A]
	seen    []uint64
	cnt     []int32
	release []func()
}

func (a *accs[A]) free() {
	for _, f := range a.release {
		f()
	}
	a.release = nil
}

type runner[T, A any] struct {
	b        *backend
	f        *fam[T, A]
	j        *rjob
	out      []T
	selfData []T
	src      []T
	aliasOut bool // accumulator 0 is out itself
	units    int  // contributions (elements) or rows
	unitLen  int  // elements per unit
	outUnits int  // out elements or out rows
}

// runJob executes a normalised scatter-like call and returns the output
// data, or false when an index value is out of range (nothing else can go
// wrong past validation).
func runJob[T, A any](b *backend, f *fam[T, A], j *rjob, selfData, src []T) ([]T, bool) {
	g := &j.g
	r := &runner[T, A]{b: b, f: f, j: j, selfData: selfData, src: src}
	if j.zeroSelf {
		r.out = make([]T, g.outN) // out starts as zeros
	} else {
		r.out = uninit[T](g.outN) // every path copies self into all of it
	}
	r.aliasOut = f.direct && !j.fin.counted && j.initSelf
	if j.rowsKind {
		r.units, r.unitLen, r.outUnits = g.O*g.J, g.N, g.outN/g.N
	} else {
		r.units, r.unitLen, r.outUnits = g.count(), 1, g.outN
	}
	work := r.units * r.unitLen
	W := b.workers
	if work < b.serialMax || r.units < 2*W {
		W = 1
	}
	canPrivate := j.op != opAssign && (j.exact || !b.det)
	var ok bool
	switch {
	case W == 1 || b.force == "serial":
		ok = r.serial()
	case canPrivate && (b.force == "private" || b.force == "" && r.privateFits(W)):
		ok = r.private(W)
	case b.force == "" && r.outUnits < 128*W:
		// too few buckets to share: one owner would do it all
		ok = r.serialOn(W)
	case b.force == "" && !j.rowsKind && W < ownerElemMinWorkers:
		// the sort costs more than the workers save
		ok = r.serialOn(W)
	case j.rowsKind:
		ok = r.ownerRows(W)
	default:
		ok = r.owner(W)
	}
	if !ok {
		return nil, false
	}
	return r.out, true
}

func (r *runner[T, A]) privateFits(W int) bool {
	ratio := privateElems
	if r.j.rowsKind {
		ratio = privateRows
	}
	return float64(r.j.g.outN)*float64(W-1) <= ratio*float64(r.units*r.unitLen)
}

// copySelf writes self's elements [lo, hi) into out.
func (r *runner[T, A]) copySelf(lo, hi int) {
	if !r.j.zeroSelf {
		copyView(r.out, r.j.self, r.selfData, lo, hi)
	}
}

// alloc returns accumulator set k (k = 0 may start from self).
func (r *runner[T, A]) alloc(k int) *accs[A] {
	a := &accs[A]{}
	n := r.j.g.outN
	switch {
	case k == 0 && r.aliasOut:
		a.plain = any(r.out).([]A)
	case r.j.fin.counted && r.j.fin.mean && !r.j.rowsKind:
		s, rel := scratch[rec[A]](n)
		a.recs, a.release = s, append(a.release, rel)
	default:
		s, rel := scratch[A](n)
		a.plain, a.release = s, append(a.release, rel)
	}
	if r.j.fin.counted && !r.j.fin.mean && !r.j.rowsKind {
		s, rel := scratch[uint64](n/64 + 1)
		a.seen, a.release = s, append(a.release, rel)
	}
	if r.j.fin.counted && r.j.rowsKind {
		s, rel := scratch[int32](r.outUnits)
		a.cnt, a.release = s, append(a.release, rel)
	}
	return a
}

// init initialises elements [lo, hi) of accumulator set k; out must
// already hold self there.
func (r *runner[T, A]) init(a *accs[A], k, lo, hi int) {
	if lo >= hi {
		return
	}
	f, j := r.f, r.j
	fromSelf := k == 0 && j.initSelf
	switch {
	case a.recs != nil:
		if fromSelf {
			f.loadRec(a.recs[lo:hi], r.out[lo:hi])
		} else {
			f.fillRec(a.recs[lo:hi], f.ident(j.op))
		}
	case k == 0 && r.aliasOut:
	case fromSelf:
		f.load(a.plain[lo:hi], r.out[lo:hi])
	default:
		id := f.ident(j.op)
		p := a.plain[lo:hi]
		for i := range p {
			p[i] = id
		}
	}
	if a.cnt != nil {
		clear(a.cnt[lo/r.unitLen : hi/r.unitLen])
	}
	if a.seen != nil {
		// whole words: owner ranges are multiples of 64 elements (buckets)
		clear(a.seen[lo/64 : (hi+63)/64])
	}
}

// finish writes out[lo:hi] from the accumulator sets.
func (r *runner[T, A]) finish(as []*accs[A], lo, hi int) {
	if lo >= hi || r.j.op == opAssign {
		return
	}
	f, j := r.f, r.j
	if len(as) == 1 && r.aliasOut {
		return
	}
	switch {
	case as[0].seen != nil:
		plains := make([][]A, len(as))
		seen := make([][]uint64, len(as))
		for k, a := range as {
			plains[k], seen[k] = a.plain, a.seen
		}
		f.finSeen(&j.fin, r.out, plains, seen, lo, hi)
	case as[0].recs != nil:
		recs := make([][]rec[A], len(as))
		for k, a := range as {
			recs[k] = a.recs
		}
		f.finCount(&j.fin, r.out, recs, lo, hi)
	case as[0].cnt != nil:
		plains := make([][]A, len(as))
		cnts := make([][]int32, len(as))
		for k, a := range as {
			plains[k], cnts[k] = a.plain, a.cnt
		}
		f.finRows(&j.fin, r.out, plains, cnts, r.unitLen, lo, hi)
	default:
		plains := make([][]A, len(as))
		for k, a := range as {
			plains[k] = a.plain
		}
		f.finPlain(&j.fin, r.out, plains, lo, hi)
	}
}

// fold folds the units [u0, u1) of the walk into accumulator set a.
func (r *runner[T, A]) fold(a *accs[A], u0, u1 int) bool {
	g, f, j := &r.j.g, r.f, r.j
	if u0 >= u1 {
		return true
	}
	if j.rowsKind {
		trow := make([]int32, batch)
		srow := make([]int, batch)
		for u := u0; u < u1; u += batch {
			m := min(batch, u1-u)
			if !genRowsAny(g, j.idx, u, trow[:m], srow[:m]) {
				return false
			}
			f.row(j.op, a.plain, a.cnt, trow[:m], srow[:m], r.src, g.N, false)
		}
		return true
	}
	if g.direct() {
		if a.seen != nil {
			if ok, done := r.extSeen(a, u0, u1); done {
				return ok
			}
			// fold and mark in chunks small enough for the index to
			// stay in cache between the two
			for q := u0; q < u1; q += 4 * batch {
				e := min(q+4*batch, u1)
				v := r.src[g.sOff+q : g.sOff+e]
				if !f.plainIdx(j.op, a.plain[:g.size], j.idx, g.iOff+q, g.iOff+e, v) {
					return false
				}
				markSeenIdx(a.seen, j.idx, g.iOff+q, g.iOff+e)
			}
			return true
		}
		v := r.src[g.sOff+u0 : g.sOff+u1]
		if a.recs != nil {
			return f.countIdx(j.op, a.recs[:g.size], j.idx, g.iOff+u0, g.iOff+u1, v)
		}
		return f.plainIdx(j.op, a.plain[:g.size], j.idx, g.iOff+u0, g.iOff+u1, v)
	}
	tb := make([]int32, batch)
	vb := make([]T, batch)
	for q := u0; q < u1; q += batch {
		m := min(batch, u1-q)
		if !genElemsAny(g, j.idx, r.src, q, tb[:m], vb[:m]) {
			return false
		}
		if !r.foldBatch(a, tb[:m], vb[:m]) {
			return false
		}
	}
	return true
}

// extSeen folds the units [u0, u1) of a direct float32 amax or amin into
// a and marks them in a.seen with one kernel (directExt), when it
// applies (done).
func (r *runner[T, A]) extSeen(a *accs[A], u0, u1 int) (ok, done bool) {
	g, j := &r.j.g, r.j
	if j.op != opAmax && j.op != opAmin {
		return false, false
	}
	acc, okA := any(a.plain[:g.size]).([]float32)
	v, okV := any(r.src[g.sOff+u0 : g.sOff+u1]).([]float32)
	if !okA || !okV {
		return false, false
	}
	var n int
	switch x := j.idx.(type) {
	case []int64:
		n, done = directExt(j.op == opAmax, acc, a.seen, x[g.iOff+u0:g.iOff+u1], v)
	case []int32:
		n, done = directExt(j.op == opAmax, acc, a.seen, x[g.iOff+u0:g.iOff+u1], v)
	}
	return n == u1-u0, done
}

// foldBatch folds a batch of (target, value) pairs into a.
func (r *runner[T, A]) foldBatch(a *accs[A], t []int32, v []T) bool {
	f, j := r.f, r.j
	if a.recs != nil {
		return f.count(j.op, a.recs, t, v)
	}
	if !f.plain(j.op, a.plain, t, v) {
		return false
	}
	if a.seen != nil {
		markSeen(a.seen, t)
	}
	return true
}

// markSeen sets the bits of targets t (known to be in range).
func markSeen[I ix](seen []uint64, t []I) {
	for _, x := range t {
		seen[uint(x)>>6] |= 1 << (uint(x) & 63)
	}
}

func markSeenIdx(seen []uint64, idx any, lo, hi int) {
	switch x := idx.(type) {
	case []int64:
		markSeen(seen, x[lo:hi])
	case []int32:
		markSeen(seen, x[lo:hi])
	}
}

// serial folds everything in canonical order on the calling goroutine.
func (r *runner[T, A]) serial() bool { return r.serialOn(1) }

// serialOn is serial with W workers at hand: the fold stays on the
// calling goroutine, and another worker reads its streams ahead
// (foldAhead).
func (r *runner[T, A]) serialOn(W int) bool {
	n := r.j.g.outN
	r.copySelf(0, n)
	a := r.alloc(0)
	defer a.free()
	r.init(a, 0, 0, n)
	if !r.foldAhead(a, W) {
		return false
	}
	r.finish([]*accs[A]{a}, 0, n)
	return true
}

// private splits the walk into W chunks, each folded by one worker into
// its own accumulators (worker 0's start from self, the others from the
// identity), then merges them in parallel over output ranges.
func (r *runner[T, A]) private(W int) bool {
	n := r.j.g.outN
	if r.splitMean() && !r.meanRecs() {
		return r.privateMean(W)
	}
	if !r.j.exact {
		return r.privateShared(W)
	}
	as := make([]*accs[A], W)
	oks := make([]bool, W)
	// self into out, split: the first touch of a fresh output is page
	// faults (about 1000 per 4 MB), too slow for worker 0 alone
	parallel(W, func(w int) { r.copySelf(split(n, W, w)) })
	parallel(W, func(w int) {
		as[w] = r.alloc(w)
		r.init(as[w], w, 0, n)
		lo, hi := split(r.units, W, w)
		oks[w] = r.fold(as[w], lo, hi)
	})
	defer func() {
		for _, a := range as {
			a.free()
		}
	}()
	for _, ok := range oks {
		if !ok {
			return false
		}
	}
	parallel(W, func(w int) {
		lo, hi := split(n, W, w)
		r.finish(as, lo, hi)
	})
	return true
}

// privateShared is the private path of the inexact reductions (float
// sums and products), whose partial results may merge in any grouping:
// the work is handed out in chunks to whichever worker asks first
// (parallelShare), so that a worker kept off its core by other processes
// delays nothing, the others doing its share. Worker 0 (the calling
// goroutine) accumulates into out itself, or into an accumulator
// initialised from self; another worker allocates and initialises its
// accumulator on its first chunk, and the merge takes only those.
func (r *runner[T, A]) privateShared(W int) bool {
	n := r.j.g.outN
	nc := int64(16 * W)
	as := make([]*accs[A], W)
	defer func() {
		for _, a := range as {
			if a != nil {
				a.free()
			}
		}
	}()
	// self into out: the first touch of a fresh output is page faults,
	// too slow for worker 0 alone
	cs := &chunks{n: nc}
	parallelShare(W, func(w int) {
		for c, ok := cs.take(); ok; c, ok = cs.take() {
			lo, hi := split(r.outUnits, int(nc), c)
			r.copySelf(lo*r.unitLen, hi*r.unitLen)
		}
	})
	var bad atomic.Bool
	cf := &chunks{n: nc}
	parallelShare(W, func(w int) {
		if w == 0 {
			as[0] = r.alloc(0)
			r.init(as[0], 0, 0, n)
		}
		for c, ok := cf.take(); ok && !bad.Load(); c, ok = cf.take() {
			if as[w] == nil {
				as[w] = r.alloc(w)
				r.init(as[w], w, 0, n)
			}
			if lo, hi := split(r.units, int(nc), c); !r.fold(as[w], lo, hi) {
				bad.Store(true)
			}
		}
	})
	if bad.Load() {
		return false
	}
	used := make([]*accs[A], 0, W)
	for _, a := range as {
		if a != nil {
			used = append(used, a)
		}
	}
	cm := &chunks{n: nc}
	parallelShare(W, func(w int) {
		for c, ok := cm.take(); ok; c, ok = cm.take() {
			lo, hi := split(r.outUnits, int(nc), c)
			r.finish(used, lo*r.unitLen, hi*r.unitLen)
		}
	})
	return true
}

// meanRecs reports whether a direct float32 mean with include_self (W4)
// takes privateShared, whose accumulators are (sum, int32 count) records
// folded by the addRec kernels (direct_amd64.s), rather than
// privateMean: when the records are directMinBytes or more. Each
// contribution then misses once, its sum and count sharing a cache line,
// and the merge reads both record sets once; on two workers W4 took
// 10.0-10.2 ms (fastest of 20 calls) against 12.6-12.9 for the path
// it replaced (privateMean8: worker 0 counting every contribution into
// one-byte counters while worker 1 summed most of them),
// and 20-21 ms of CPU time per call against 24-28, in three alternated
// pairs of runs (BenchmarkPath/W4/default).
func (r *runner[T, A]) meanRecs() bool {
	_, ok := any(r.out).([]float32)
	return ok && hasDirect && uintptr(r.j.g.size)*8 >= directMinBytes
}

// splitMean reports whether a mean takes privateMean: a direct walk
// whose sums accumulate in out itself (include_self, a native type).
func (r *runner[T, A]) splitMean() bool {
	j := r.j
	return j.fin.mean && j.fin.counted && !j.rowsKind && j.initSelf &&
		r.f.direct && r.f.finMean != nil && j.g.direct()
}

// privateMean is the private path of a direct mean with include_self, in
// passes that each need one output-sized buffer per worker at most: the
// sums as for a sum (worker 0 into out, counting its chunk, a smaller one,
// into an int32 array as it goes; the others into accumulators, merged
// into out), then the counts of the other chunks, split between all the
// workers (into int32 arrays, taken from the pool after the sums' buffers
// went back), then the division.
func (r *runner[T, A]) privateMean(W int) bool {
	g, j := &r.j.g, r.j
	n := g.outN
	oks := make([]bool, W)
	plains := make([][]A, W)
	rels := make([]func(), W)
	cnts := make([][]int32, W)
	// worker 0 also counts its chunk (into cnts[0]) while it sums: its
	// chunk is the smaller
	c0 := int(float64(r.units) * meanChunk0 / float64(W))
	bound := func(w int) (int, int) {
		if w == 0 {
			return 0, c0
		}
		lo, hi := split(r.units-c0, W-1, w-1)
		return c0 + lo, c0 + hi
	}
	parallel(W, func(w int) {
		lo, hi := bound(w)
		if w == 0 {
			r.copySelf(0, n)
			plains[0] = any(r.out).([]A)
			cnts[0], rels[0] = scratch[int32](n)
			clear(cnts[0])
			// sum, then count, blocks small enough for the index to stay
			// in cache between the two
			oks[0] = true
			for q := lo; q < hi; q += 4 * batch {
				e := min(q+4*batch, hi)
				if !r.f.plainIdx(j.op, plains[0][:g.size], j.idx, g.iOff+q, g.iOff+e, r.src[g.sOff+q:g.sOff+e]) {
					oks[0] = false
					return
				}
				countTargets(cnts[0][:g.size], j.idx, g.iOff+q, g.iOff+e)
			}
			return
		}
		plains[w], rels[w] = scratch[A](n)
		id := r.f.ident(j.op)
		p := plains[w]
		for i := range p {
			p[i] = id
		}
		oks[w] = r.f.plainIdx(j.op, plains[w][:g.size], j.idx, g.iOff+lo, g.iOff+hi, r.src[g.sOff+lo:g.sOff+hi])
	})
	release := func(from int) {
		for w := from; w < W; w++ {
			if f := rels[w]; f != nil {
				f()
				rels[w] = nil
			}
		}
	}
	defer release(0)
	for _, ok := range oks {
		if !ok {
			return false
		}
	}
	if W > 1 {
		parallel(W, func(w int) {
			lo, hi := split(n, W, w)
			r.f.finPlain(&fin{op: j.op}, r.out, plains, lo, hi)
		})
	}
	release(1)
	parallel(W, func(w int) {
		if w > 0 {
			cnts[w], rels[w] = scratch[int32](n)
			clear(cnts[w])
		}
		lo, hi := split(r.units-c0, W, w)
		countTargets(cnts[w][:g.size], j.idx, g.iOff+c0+lo, g.iOff+c0+hi)
	})
	parallel(W, func(w int) {
		lo, hi := split(n, W, w)
		r.f.finMean(&j.fin, r.out, cnts, lo, hi)
	})
	return true
}

// meanChunk0 is worker 0's share of privateMean's sums, relative to an
// equal share: it counts its chunk as well.
var meanChunk0 = 0.8

// countTargets adds one to cnt at each (validated) index value of
// idx[lo:hi].
func countTargets(cnt []int32, idx any, lo, hi int) {
	switch x := idx.(type) {
	case []int64:
		incCounts(cnt, x[lo:hi])
	case []int32:
		incCounts(cnt, x[lo:hi])
	}
}

func incCounts[I ix](cnt []int32, t []I) {
	if _, ok := directCount(cnt, t); ok {
		return
	}
	blocks(cnt, t, func(lo, hi int) bool {
		for _, x := range t[lo:hi] {
			cnt[int(x)]++
		}
		return true
	})
}

// sortPlan is the counting sort of the owner paths: fine buckets of
// output units (1<<shift units each, whole 64-element bitmap words), where
// each worker's chunk of the index places its records (cursor), where each
// bucket's records start, and the buckets each owner takes.
type sortPlan struct {
	shift  uint
	starts []int   // per bucket, and the end
	cursor [][]int // per worker and bucket: the next record slot
	bounds []int   // owner p takes buckets [bounds[p], bounds[p+1])
	// groups: finer ranges of about equal weight, groups[g] to
	// groups[g+1], ownerGroups per worker, handed out to the owners as
	// they ask
	groups []int
}

// ownerGroups is the number of bucket ranges per worker that the owner
// paths hand out: a worker kept off its core by other processes leaves
// its ranges to the others (parallelShare).
const ownerGroups = 16

// plan is the owner paths' first pass: it validates every index value and
// counts the units per bucket, then lays out the records and balances the
// owners' ranges by count (and, a quarter as much, by range size: the
// copy, init and finish work). It reports false at an index out of range.
func (r *runner[T, A]) plan(W, perWorker int) (*sortPlan, bool) {
	shift, nb := r.buckets(W, perWorker)
	counts := make([][]int, W)
	oks := make([]bool, W)
	parallel(W, func(w int) {
		c := make([]int, nb)
		counts[w] = c
		lo, hi := split(r.units, W, w)
		oks[w] = r.countBuckets(lo, hi, shift, c)
	})
	for _, ok := range oks {
		if !ok {
			return nil, false
		}
	}
	p := &sortPlan{shift: shift, starts: make([]int, nb+1), cursor: make([][]int, W)}
	for w := range p.cursor {
		p.cursor[w] = make([]int, nb)
	}
	weights := make([]float64, nb)
	pos := 0
	for b := 0; b < nb; b++ {
		p.starts[b] = pos
		for w := 0; w < W; w++ {
			p.cursor[w][b] = pos
			pos += counts[w][b]
		}
		span := min((b+1)<<shift, r.outUnits) - b<<shift
		weights[b] = float64((pos-p.starts[b])*r.unitLen) + float64(span*r.unitLen)/4
	}
	p.starts[nb] = pos
	p.bounds = balance(weights, W)
	p.groups = balance(weights, min(ownerGroups*W, nb))
	return p, true
}

// lopsided reports whether one owner of p would fold most of the
// contributions (a skewed index): the sort is then not worth its passes.
func (p *sortPlan) lopsided() bool {
	total := p.starts[len(p.starts)-1]
	for o := 0; o+1 < len(p.bounds); o++ {
		if n := p.starts[p.bounds[o+1]] - p.starts[p.bounds[o]]; n > total*4/5 {
			return true
		}
	}
	return false
}

// ownerRun is the owner paths' last pass: for each group of buckets,
// taken by whichever worker asks first, the worker copies self into the
// group's output range, initialises its accumulators there, folds its
// records (fold(a, s, e) folds records [s, e)) and finishes the range.
func (r *runner[T, A]) ownerRun(W int, p *sortPlan, fold func(a *accs[A], s, e int)) {
	a := r.alloc(0)
	defer a.free()
	cg := &chunks{n: int64(len(p.groups) - 1)}
	parallelShare(W, func(int) {
		for g, ok := cg.take(); ok; g, ok = cg.take() {
			r.ownerRange(a, p, p.groups[g], p.groups[g+1], fold)
		}
	})
}

// ownerRange runs buckets [bLo, bHi) of the owner paths' last pass.
func (r *runner[T, A]) ownerRange(a *accs[A], p *sortPlan, bLo, bHi int, fold func(a *accs[A], s, e int)) {
	if bLo >= bHi {
		return
	}
	lo := min(bLo<<p.shift, r.outUnits) * r.unitLen
	hi := min(bHi<<p.shift, r.outUnits) * r.unitLen
	r.copySelf(lo, hi)
	r.init(a, 0, lo, hi)
	fold(a, p.starts[bLo], p.starts[bHi])
	r.finish([]*accs[A]{a}, lo, hi)
}

// owner is the owner path of element scatters. It sorts the
// contributions by output range (a stable counting sort over fine buckets:
// one validating pass that counts, one that places (target, value)
// records), then gives each worker a contiguous range of buckets, balanced
// by count, to fold in canonical order: every output element has one
// owner, which folds its contributions in index order, so the result is
// the canonical one bit for bit.
func (r *runner[T, A]) owner(W int) bool {
	p, ok := r.plan(W, bucketsPerWorker)
	if !ok {
		return false
	}
	if p.lopsided() && r.b.force == "" {
		return r.serialOn(W)
	}
	rt, relT := scratch[int32](r.units)
	defer relT()
	rv, relV := scratch[T](r.units)
	defer relV()
	parallel(W, func(w int) {
		lo, hi := split(r.units, W, w)
		r.place(lo, hi, p.shift, p.cursor[w], rt, rv)
	})
	r.ownerRun(W, p, func(a *accs[A], s, e int) { r.foldBatch(a, rt[s:e], rv[s:e]) })
	return true
}

// ownerRows is the owner path of row scatters: owner with rows for
// elements. The records are an out row and a src row start per row (no
// values: rows are long), the buckets finer (a bucket's output rows stay
// in the L2 cache while its rows are folded), and the row kernels
// prefetch the src rows, which the sort has put out of address order.
//
// Measured alternatives (W2 on two workers, 2026-11, CPU time per call of
// the whole process, side by side in one run; this path took 37-47 ms,
// the serial fold, which reads src in address order, 28-31 ms): each
// worker owning an output range, reading the whole index and folding
// only the src rows of its range, in address order (no sort), took
// 42-55 ms (60 ms without the src prefetch); 16 or 64 buckets per worker
// instead of 256, whose longer runs read src in longer ascending runs,
// 39-52 ms; PREFETCHNTA instead of PREFETCHT1 for the src rows 51-54 ms
// against 41-44 ms. Skipping rows of a sequential stream apparently
// does not save their reads (the hardware prefetchers fetch ahead along
// the stream), so a worker that reads only its rows in address order
// reads most of src.
func (r *runner[T, A]) ownerRows(W int) bool {
	g, j := &r.j.g, r.j
	p, ok := r.plan(W, rowBucketsPerWorker)
	if !ok {
		return false
	}
	if p.lopsided() && r.b.force == "" {
		return r.serial()
	}
	rt, relT := scratch[int32](r.units)
	defer relT()
	rs, relS := scratch[int](r.units)
	defer relS()
	parallel(W, func(w int) {
		lo, hi := split(r.units, W, w)
		cur := p.cursor[w]
		if g.O == 1 {
			switch x := j.idx.(type) {
			case []int64:
				placeRowsFlat(x, g, lo, hi, p.shift, cur, rt, rs)
				return
			case []int32:
				placeRowsFlat(x, g, lo, hi, p.shift, cur, rt, rs)
				return
			}
		}
		trow := make([]int32, batch)
		srow := make([]int, batch)
		for u := lo; u < hi; u += batch {
			m := min(batch, hi-u)
			genRowsAny(g, j.idx, u, trow[:m], srow[:m])
			for k, t := range trow[:m] {
				b := t >> p.shift
				q := cur[b]
				rt[q], rs[q] = t, srow[k]
				cur[b] = q + 1
			}
		}
	})
	r.ownerRun(W, p, func(a *accs[A], s, e int) {
		r.f.row(j.op, a.plain, a.cnt, rt[s:e], rs[s:e], r.src, g.N, true)
	})
	return true
}

// buckets returns the shift and count of the owner paths' fine buckets of
// output units, about perWorker per worker.
func (r *runner[T, A]) buckets(W, perWorker int) (uint, int) {
	nbMax := perWorker * W
	shift := uint(6) // buckets of whole 64-element bitmap words
	for (r.outUnits-1)>>shift >= nbMax {
		shift++
	}
	return shift, (r.outUnits-1)>>shift + 1
}

// countBuckets is the owner path's validating pass over units [lo, hi).
func (r *runner[T, A]) countBuckets(lo, hi int, shift uint, c []int) bool {
	g, j := &r.j.g, r.j
	if j.rowsKind && g.O == 1 {
		switch x := j.idx.(type) {
		case []int64:
			return countRowsFlat(x, g, lo, hi, shift, c)
		case []int32:
			return countRowsFlat(x, g, lo, hi, shift, c)
		}
	}
	if j.rowsKind {
		trow := make([]int32, batch)
		srow := make([]int, batch)
		for u := lo; u < hi; u += batch {
			m := min(batch, hi-u)
			if !genRowsAny(g, j.idx, u, trow[:m], srow[:m]) {
				return false
			}
			for _, t := range trow[:m] {
				c[t>>shift]++
			}
		}
		return true
	}
	if g.direct() {
		switch x := j.idx.(type) {
		case []int64:
			return countIdx(x[g.iOff+lo:g.iOff+hi], g.size, shift, c)
		case []int32:
			return countIdx(x[g.iOff+lo:g.iOff+hi], g.size, shift, c)
		}
		return false
	}
	tb := make([]int32, batch)
	vb := make([]T, batch)
	for q := lo; q < hi; q += batch {
		m := min(batch, hi-q)
		if !genElemsAny(g, j.idx, r.src, q, tb[:m], vb[:m]) {
			return false
		}
		for _, t := range tb[:m] {
			c[t>>shift]++
		}
	}
	return true
}

// place is the owner path's second pass: it writes the records of units
// [lo, hi) at their bucket cursors (stable: index order within a bucket).
func (r *runner[T, A]) place(lo, hi int, shift uint, cur []int, rt []int32, rv []T) {
	g, j := &r.j.g, r.j
	if g.direct() {
		v := r.src[g.sOff+lo : g.sOff+hi]
		switch x := j.idx.(type) {
		case []int64:
			placeIdx(x[g.iOff+lo:g.iOff+hi], v, shift, cur, rt, rv)
		case []int32:
			placeIdx(x[g.iOff+lo:g.iOff+hi], v, shift, cur, rt, rv)
		}
		return
	}
	tb := make([]int32, batch)
	vb := make([]T, batch)
	for q := lo; q < hi; q += batch {
		m := min(batch, hi-q)
		genElemsAny(g, j.idx, r.src, q, tb[:m], vb[:m])
		placeIdx(tb[:m], vb[:m], shift, cur, rt, rv)
	}
}

func countIdx[I ix](t []I, size int, shift uint, c []int) bool {
	for _, x := range t {
		i := int(x)
		if uint(i) >= uint(size) {
			return false
		}
		c[i>>shift]++
	}
	return true
}

// countRowsFlat is countBuckets for a row walk with one outer group
// (g.O == 1, PyG's index): unit u's out row is idx[g.iOff+u*g.iJ]. It
// validates every value, as genRows does, without the (out row, src row)
// batches.
func countRowsFlat[I ix](idx []I, g *geom, lo, hi int, shift uint, c []int) bool {
	size := uint(g.size)
	for i, e := g.iOff+lo*g.iJ, hi-lo; e > 0; i, e = i+g.iJ, e-1 {
		x := uint(int(idx[i]))
		if x >= size {
			return false
		}
		c[x>>shift]++
	}
	return true
}

// placeRowsFlat is the placing pass of ownerRows for a row walk with one
// outer group (g.O == 1), whose values countRowsFlat has validated: unit
// u sends src row g.sOff+u*g.sJ to out row idx[g.iOff+u*g.iJ].
func placeRowsFlat[I ix](idx []I, g *geom, lo, hi int, shift uint, cur []int, rt []int32, rs []int) {
	i, sb := g.iOff+lo*g.iJ, g.sOff+lo*g.sJ
	for e := hi - lo; e > 0; e-- {
		t := int32(idx[i])
		b := t >> shift
		q := cur[b]
		rt[q], rs[q] = t, sb
		cur[b] = q + 1
		i += g.iJ
		sb += g.sJ
	}
}

func placeIdx[T any, I ix](t []I, v []T, shift uint, cur []int, rt []int32, rv []T) {
	v = v[:len(t)]
	for k, x := range t {
		b := int(x) >> shift
		p := cur[b]
		rt[p], rv[p] = int32(x), v[k]
		cur[b] = p + 1
	}
}

// balance splits the buckets into W contiguous ranges of about equal
// weight; it returns the W+1 bounds.
func balance(weights []float64, W int) []int {
	total := 0.0
	for _, x := range weights {
		total += x
	}
	bounds := make([]int, W+1)
	bounds[W] = len(weights)
	cum, p := 0.0, 1
	for b, x := range weights {
		cum += x
		for p < W && cum >= total*float64(p)/float64(W) {
			bounds[p] = b + 1
			p++
		}
	}
	for ; p < W; p++ {
		bounds[p] = len(weights)
	}
	return bounds
}

// genElemsAny dispatches genElems on the index type.
func genElemsAny[T any](g *geom, idx any, src []T, q0 int, t []int32, v []T) bool {
	switch x := idx.(type) {
	case []int64:
		return genElems(g, x, src, q0, t, v)
	case []int32:
		return genElems(g, x, src, q0, t, v)
	}
	return false
}

// genElems writes the targets and values of the walk's positions
// [q0, q0+len(t)), validating every index value.
func genElems[T any, I ix](g *geom, idx []I, src []T, q0 int, t []int32, v []T) bool {
	JN := g.J * g.N
	o := q0 / JN
	rest := q0 - o*JN
	j := rest / g.N
	n := rest - j*g.N
	ib := g.iOff + o*g.iO + j*g.iJ
	sb := g.sOff + o*g.sO + j*g.sJ
	ob := o * g.oO
	v = v[:len(t)]
	for k := range t {
		x := int(idx[ib+n*g.iN])
		if uint(x) >= uint(g.size) {
			return false
		}
		t[k] = int32(ob + n*g.oN + x*g.ovs)
		v[k] = src[sb+n*g.sN]
		n++
		if n == g.N {
			n = 0
			j++
			ib += g.iJ
			sb += g.sJ
			if j == g.J {
				j = 0
				o++
				ib = g.iOff + o*g.iO
				sb = g.sOff + o*g.sO
				ob += g.oO
			}
		}
	}
	return true
}

// genRowsAny dispatches genRows on the index type.
func genRowsAny(g *geom, idx any, u0 int, trow []int32, srow []int) bool {
	switch x := idx.(type) {
	case []int64:
		return genRows(g, x, u0, trow, srow)
	case []int32:
		return genRows(g, x, u0, trow, srow)
	}
	return false
}

// genRows writes the out row and src row start of the row walk's units
// [u0, u0+len(trow)), validating every index value.
func genRows[I ix](g *geom, idx []I, u0 int, trow []int32, srow []int) bool {
	o := u0 / g.J
	j := u0 - o*g.J
	ib := g.iOff + o*g.iO + j*g.iJ
	sb := g.sOff + o*g.sO + j*g.sJ
	rO := g.oO / g.N
	rb := o * rO
	srow = srow[:len(trow)]
	for k := range trow {
		x := int(idx[ib])
		if uint(x) >= uint(g.size) {
			return false
		}
		trow[k] = int32(rb + x)
		srow[k] = sb
		j++
		ib += g.iJ
		sb += g.sJ
		if j == g.J {
			j = 0
			o++
			ib = g.iOff + o*g.iO
			sb = g.sOff + o*g.sO
			rb += rO
		}
	}
	return true
}
