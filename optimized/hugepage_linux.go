package optimized

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel to back the n bytes at p with transparent huge
// pages (a hint; errors are ignored). The pooled scratch slabs (private
// accumulators, sort records) get it: accumulators larger than the TLB's
// reach are read and written at random. The output, fresh for every call,
// does not: faulting in huge pages costs more than it saves once.
func adviseHuge(p unsafe.Pointer, n uintptr) {
	const huge = 2 << 20
	start := (uintptr(p) + huge - 1) &^ (huge - 1)
	end := (uintptr(p) + n) &^ (huge - 1)
	if end <= start {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
