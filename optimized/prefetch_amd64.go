package optimized

import "unsafe"

// Go has no prefetch intrinsic, so these are a few lines of assembly. A
// prefetch is a hint: it never faults and changes nothing.

// prefetch brings the n bytes at p (n > 0) into the cache. The row
// kernels call it once per row, a few rows ahead of the one they fold.
//
//go:noescape
func prefetch(p unsafe.Pointer, n uintptr)

// prefetchL2 brings the n bytes at p (n > 0) into L2 only: the row
// kernels' src rows, read once, out of address order.
//
//go:noescape
func prefetchL2(p unsafe.Pointer, n uintptr)

// prefetchIdx64 brings base + idx[k]<<shift into the cache for k < n
// (n > 0). The element kernels call it once per block of contributions,
// for the targets of the next block.
//
//go:noescape
func prefetchIdx64(base unsafe.Pointer, idx *int64, n int, shift uint)

// prefetchIdx32 is prefetchIdx64 for int32 indices.
//
//go:noescape
func prefetchIdx32(base unsafe.Pointer, idx *int32, n int, shift uint)
