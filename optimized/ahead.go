package optimized

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"
)

// Test modes of the read-ahead (backend.aheadTest): the fold waits for
// the reader to start, so that it runs (and waits for the fold); in the
// second, the reader then waits for the fold to pass two chunks (so
// that it catches up).
const (
	aheadTestReaderFirst = 1
	aheadTestReaderLate  = 2
)

// Read-ahead: a serial fold into a small output (one that stays in L2,
// under directMinBytes) on a machine with a second worker free reads its
// index and value streams on one core, at that core's memory bandwidth,
// well under the machine's: W6 under Deterministic (16 outputs, whose
// float sums the private path would reorder), or any output too small
// to share out. A pool worker reads the streams ahead of the fold, a
// line at a time, staying at most aheadWindow chunks ahead so that what
// it reads is still in cache when the fold gets to it. The fold itself
// is unchanged, on the calling goroutine and in the canonical order: the
// result is the same, bit for bit. Measured on an Intel Xeon host (2
// vCPUs, 2 MB of L2 per core, 300 MB of L3; BenchmarkAhead, 2026-11-26,
// minimum of 10 calls, two runs of three and four): W6 under
// Deterministic 13.3-15.6 ms without, 7.8-8.5 ms with a window of 4
// chunks, 8.2-9.1 with 8 chunks, 8.1-8.8 with 16 or 32, and 8.3-11.8
// with 2. A fold into a large output (W1, W4 and W7 under Deterministic,
// 4-8 MB of accumulators) waits on the accumulator's misses, not on the
// streams: there the same windows changed nothing beyond the noise of
// those runs (W1's minima 21.3-31.1 ms against 23.5-29.0), and it is not read
// ahead, which would only keep the second core busy.

var (
	// aheadMinBytes: streams smaller than this are not read ahead (they
	// may be in cache already, and the helper's start costs more).
	aheadMinBytes = 8 << 20
	// aheadChunk: the fold publishes its progress every this many units.
	aheadChunk = 16 << 10
	// aheadWindow: how many chunks ahead of the fold the reader may be
	// (4 chunks: 768 KB of an int64 index and float32 values).
	aheadWindow = 4
)

// aheadSink keeps the reader's loads from being optimised away.
var aheadSink atomic.Uint64

// For the tests: the folds that took the read-ahead, the readers that
// started, that waited for the fold (the window full), and that caught
// up with it (behind it).
var aheadFolds, aheadReads, aheadWaits, aheadCatchUps atomic.Int64

// foldAhead is fold(a, 0, r.units), with the direct walk's streams read
// ahead by a second worker when there is one (W >= 2), they are large
// and the output small; a reader that has not started when the fold
// ends is cancelled (parallelShare), so a loaded machine waits for
// nothing.
func (r *runner[T, A]) foldAhead(a *accs[A], W int) bool {
	g := &r.j.g
	window, chunk, minBytes := aheadWindow, aheadChunk, aheadMinBytes
	if r.b.ahead != 0 {
		window = r.b.ahead
	}
	if r.b.aheadUnit > 0 {
		chunk, minBytes = r.b.aheadUnit, 0
	}
	var t T
	small := uintptr(g.outN)*unsafe.Sizeof(t) < directMinBytes
	if W < 2 || window < 0 || !small || r.j.rowsKind || !g.direct() || r.streamBytes() < minBytes {
		return r.fold(a, 0, r.units)
	}
	aheadFolds.Add(1)
	var done atomic.Int64 // units folded
	var stop atomic.Bool
	ok := true
	var reading atomic.Bool
	parallelShare(2, func(w int) {
		if w == 1 {
			reading.Store(true)
			r.readAhead(chunk, window, &done, &stop)
			return
		}
		defer stop.Store(true)
		if r.b.aheadTest != 0 { // the tests': the reader runs
			for t0 := time.Now(); !reading.Load() && time.Since(t0) < time.Second; {
				runtime.Gosched()
			}
		}
		for u := 0; u < r.units; u += chunk {
			e := min(u+chunk, r.units)
			if !r.fold(a, u, e) {
				ok = false
				return
			}
			done.Store(int64(e))
		}
	})
	return ok
}

// streamBytes is the size of a direct walk's index and value streams.
func (r *runner[T, A]) streamBytes() int {
	var t T
	isz := 8
	if _, ok := r.j.idx.([]int32); ok {
		isz = 4
	}
	return r.units * (isz + int(unsafe.Sizeof(t)))
}

// readAhead reads the streams chunk units at a time, starting a chunk
// no more than window chunks past the fold's progress (so that it is at
// most window+1 chunks ahead), skipping what the fold has passed, until
// the end or stop.
func (r *runner[T, A]) readAhead(chunk, window int, done *atomic.Int64, stop *atomic.Bool) {
	g := &r.j.g
	var x uint64
	aheadReads.Add(1)
	if r.b.aheadTest == aheadTestReaderLate {
		for done.Load() < int64(2*chunk) && !stop.Load() {
			runtime.Gosched()
		}
	}
	waited, caught := false, false
	for u := 0; u < r.units; u += chunk {
		for {
			if stop.Load() {
				aheadSink.Add(x)
				return
			}
			d := int(done.Load())
			if u < d {
				u = d - d%chunk // behind the fold: catch up
				if !caught {
					caught = true
					aheadCatchUps.Add(1)
				}
			}
			if u-d <= window*chunk {
				break
			}
			if !waited {
				waited = true
				aheadWaits.Add(1)
			}
			runtime.Gosched()
		}
		e := min(u+chunk, r.units)
		switch t := r.j.idx.(type) {
		case []int64:
			x += touchLines(t[g.iOff+u : g.iOff+e])
		case []int32:
			x += touchLines(t[g.iOff+u : g.iOff+e])
		}
		x += touchLines(r.src[g.sOff+u : g.sOff+e])
	}
	aheadSink.Add(x)
}

// touchLines loads one byte of every 64-byte line of s, and its last.
func touchLines[E any](s []E) uint64 {
	if len(s) == 0 {
		return 0
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	nb := uintptr(len(s)) * unsafe.Sizeof(s[0])
	var x uint64
	for off := uintptr(0); off < nb; off += 64 {
		x += uint64(*(*byte)(unsafe.Add(p, off)))
	}
	return x + uint64(*(*byte)(unsafe.Add(p, nb-1)))
}
