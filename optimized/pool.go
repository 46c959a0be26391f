package optimized

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The persistent worker pool: goroutines started once per process that
// run the tasks of parallel. Tasks never wait for one another, so any
// number of concurrent Run calls share the pool without deadlock; the
// goroutine that calls parallel runs task 0 itself.

var pool struct {
	mu    sync.Mutex
	size  int
	tasks chan func()
}

// ensurePool makes sure at least n-1 pool goroutines exist.
func ensurePool(n int) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.tasks == nil {
		pool.tasks = make(chan func(), 64)
	}
	for pool.size < n-1 {
		pool.size++
		go func() {
			for f := range pool.tasks {
				f()
			}
		}()
	}
}

// parallel runs fn(0), ..., fn(n-1), fn(0) on the calling goroutine and
// the rest on the pool, and returns when all have returned.
func parallel(n int, fn func(i int)) {
	if n <= 1 {
		if n == 1 {
			fn(0)
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(n - 1)
	for i := 1; i < n; i++ {
		pool.tasks <- func() {
			defer wg.Done()
			fn(i)
		}
	}
	fn(0)
	wg.Wait()
}

// parallelShare runs fn(0) on the calling goroutine and fn(1), ...,
// fn(n-1) on the pool, for work that the calls share out among
// themselves (chunks taken from a counter, see chunks): a pool task that
// has not started when fn(0) returns is not waited for but cancelled, as
// fn(0) has then taken all the work left. On a loaded machine a helper
// may wait for a core for a scheduler time slice; the caller then does
// its share instead of waiting. It returns when every started task has
// returned.
func parallelShare(n int, fn func(i int)) {
	if n <= 1 {
		if n == 1 {
			fn(0)
		}
		return
	}
	var wg sync.WaitGroup
	started := make([]atomic.Bool, n)
	for i := 1; i < n; i++ {
		wg.Add(1)
		pool.tasks <- func() {
			if started[i].CompareAndSwap(false, true) {
				fn(i)
				wg.Done()
			}
		}
	}
	fn(0)
	for i := 1; i < n; i++ {
		if started[i].CompareAndSwap(false, true) { // cancelled: it will do nothing
			wg.Done()
		}
	}
	wg.Wait()
}

// chunks hands out the chunks 0, 1, ..., n-1 of some work, each once,
// to whichever worker asks first.
type chunks struct {
	next atomic.Int64
	n    int64
}

// take returns the next chunk, or false when none is left.
func (c *chunks) take() (int, bool) {
	k := c.next.Add(1) - 1
	return int(k), k < c.n
}

// split returns the bounds of part i of n equal parts of [0, total).
func split(total, n, i int) (lo, hi int) {
	return total * i / n, total * (i + 1) / n
}

// Scratch memory: the accumulator buffers and sort records live in pooled
// []uint64 slabs by power-of-two size class, so that repeated calls do not
// pay for fresh pages and zeroing. A slab is handed out uninitialised.

var slabs [65 * 4]sync.Pool

// sizeClass rounds words up to a size class (four per power of two, so
// that a slab wastes at most a quarter) and returns the class's index and
// size.
func sizeClass(words int) (class, size int) {
	if words <= 8 {
		return words, words
	}
	e := bits.Len(uint(words - 1)) // words <= 1<<e, e >= 4
	step := 1 << (e - 3)
	k := (words - 1<<(e-1) + step - 1) / step // 1..4
	return e*4 + k, 1<<(e-1) + k*step
}

// scratch returns a slice of n elements of type E from the slab pool, and
// a release function that gives it back. E must hold no pointers.
func scratch[E any](n int) ([]E, func()) {
	if n == 0 {
		return nil, func() {}
	}
	var z E
	words := (n*int(unsafe.Sizeof(z)) + 7) / 8
	class, size := sizeClass(words)
	var slab *[]uint64
	if p := slabs[class].Get(); p != nil {
		slab = p.(*[]uint64)
	} else {
		s := make([]uint64, size)
		slab = &s
		if size >= 1<<20 {
			adviseHuge(unsafe.Pointer(unsafe.SliceData(s)), uintptr(size)*8)
		}
	}
	s := unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(*slab))), n)
	return s, func() { slabs[class].Put(slab) }
}
