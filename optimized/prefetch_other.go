//go:build !amd64

package optimized

import "unsafe"

// Without assembly the prefetches are no-ops.

func prefetch(p unsafe.Pointer, n uintptr)                             {}
func prefetchL2(p unsafe.Pointer, n uintptr)                           {}
func prefetchIdx64(base unsafe.Pointer, idx *int64, n int, shift uint) {}
func prefetchIdx32(base unsafe.Pointer, idx *int32, n int, shift uint) {}
