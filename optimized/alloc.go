package optimized

import (
	"unsafe"
	_ "unsafe" // go:linkname
)

// The outputs of the fast paths are written whole (self copied in, then
// folded into) before they are returned, so the zeroing that make does
// is wasted: a recycled large block is cleared by the allocating
// goroutine alone, before any parallel part starts (W2: 25.6 MB, about
// a tenth of the call's CPU time in a profile). PyTorch's clone does not
// clear either. The runtime's allocator is asked for the block without
// clearing, as the runtime's own string and byte-slice helpers do (a nil
// type is pointer-free memory, which the collector does not scan);
// mallocgc is one of the runtime functions the Go project keeps
// reachable by go:linkname for the packages that use it.

//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// uninit returns a slice of n elements whose contents are undefined; E
// must hold no pointers. The caller writes every element before anyone
// reads one.
func uninit[E any](n int) []E {
	var z E
	size := unsafe.Sizeof(z)
	if n == 0 || size == 0 || uintptr(n) > ^uintptr(0)/size {
		return make([]E, n)
	}
	return unsafe.Slice((*E)(mallocgc(uintptr(n)*size, nil, false)), n)
}
