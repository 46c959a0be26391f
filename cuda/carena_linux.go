//go:build linux

package cuda

import (
	"syscall"
	"unsafe"
)

// carena is memory outside the Go heap for what C code reads through
// pointers stored in memory: kernel parameter blocks (void**), NVRTC's
// option arrays (char**), C strings. It is a bump allocator over one
// mmap'd region, reset before each use; callers hold the device's lock.
type carena struct {
	mem  []byte
	used int
}

func newCArena(size int) (*carena, error) {
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	return &carena{mem: mem}, nil
}

func (a *carena) reset() { a.used = 0 }

// alloc returns n zeroed bytes, 16-byte aligned, and their address.
func (a *carena) alloc(n int) ([]byte, uintptr) {
	off := (a.used + 15) &^ 15
	if off+n > len(a.mem) {
		panic("cuda: C arena exhausted")
	}
	a.used = off + n
	b := a.mem[off : off+n : off+n]
	clear(b)
	return b, uintptr(unsafe.Pointer(&a.mem[off]))
}

// cstr copies s as a NUL-terminated C string.
func (a *carena) cstr(s string) uintptr {
	b, p := a.alloc(len(s) + 1)
	copy(b, s)
	return p
}

// ptrs stores the addresses as a C array of pointers.
func (a *carena) ptrs(addrs ...uintptr) uintptr {
	b, p := a.alloc(8 * max(len(addrs), 1))
	for i, x := range addrs {
		*(*uintptr)(unsafe.Pointer(&b[8*i])) = x
	}
	return p
}

// params stores a kernel parameter block and returns the kernelParams
// array (one pointer, to the block) that cuLaunchKernel and emu_launch take.
func (a *carena) params(p *params) uintptr {
	b, addr := a.alloc(paramsSize)
	*(*params)(unsafe.Pointer(&b[0])) = *p
	return a.ptrs(addr)
}

// goString reads the NUL-terminated C string at addr (C memory).
func goString(addr uintptr) string {
	if addr == 0 {
		return ""
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}
