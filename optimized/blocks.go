package optimized

import (
	"math/bits"
	"unsafe"
)

// pfBlock is the block of contributions whose targets the element kernels
// prefetch at a time, one block ahead of the block they fold.
const pfBlock = 64

// pfMinBytes: accumulators smaller than this stay in the last-level cache
// (32 MiB on the project's machine, shared by the workers' accumulators)
// and are not prefetched: there the out-of-order core overlaps the misses
// by itself, and the prefetch pass over the targets only costs (W1, W4
// and W7 run 5-10% faster without it; measured 2026-11).
const pfMinBytes = 8 << 20

// blocks calls f(lo, hi) on consecutive blocks of the contributions with
// targets t, having first prefetched the accumulator entries of the next
// block (the random accesses that bound an element scatter); it stops at
// the first f that returns false.
func blocks[E any, I ix](acc []E, t []I, f func(lo, hi int) bool) bool {
	n := len(t)
	var z E
	size := unsafe.Sizeof(z)
	if n <= pfBlock || uintptr(len(acc))*size < pfMinBytes || size&(size-1) != 0 {
		return f(0, n)
	}
	base := unsafe.Pointer(unsafe.SliceData(acc))
	shift := uint(bits.TrailingZeros(uint(size)))
	wide := unsafe.Sizeof(t[0]) == 8
	prefetchBlock := func(lo, hi int) {
		if wide {
			prefetchIdx64(base, (*int64)(unsafe.Pointer(&t[lo])), hi-lo, shift)
		} else {
			prefetchIdx32(base, (*int32)(unsafe.Pointer(&t[lo])), hi-lo, shift)
		}
	}
	prefetchBlock(0, pfBlock)
	for lo := 0; lo < n; lo += pfBlock {
		hi := min(lo+pfBlock, n)
		if hi < n {
			prefetchBlock(hi, min(hi+pfBlock, n))
		}
		if !f(lo, hi) {
			return false
		}
	}
	return true
}
