package cuda

import (
	"fmt"
	"unsafe"
)

// device is what the host code needs from a GPU: memory, copies and
// launches by kernel name. The real driver (driver_linux.go) and the
// tests' emulated device (a shared library built from the same kernel
// source with g++, emu_device_test.go) both implement it, so one host
// code drives either.
//
// Device pointers are uint64. Every method is called with the backend's
// lock held, from one goroutine at a time.
type device interface {
	// Name describes the device, e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
	Name() string
	Malloc(n int) (uint64, error)
	Free(p uint64)
	CopyHtoD(dst uint64, src unsafe.Pointer, n int) error
	CopyDtoH(dst unsafe.Pointer, src uint64, n int) error
	CopyDtoD(dst, src uint64, n int) error
	Memset(dst uint64, b byte, n int) error
	// Launch runs kernel name over grid blocks of block threads with the
	// parameter block p.
	Launch(name string, grid, block uint32, p *params) error
	// Sync waits until every launch has finished and reports the first
	// asynchronous error.
	Sync() error
	// Config returns the grid and block for a grid-stride kernel over
	// work items (threads wanted). The emulated device varies them on
	// purpose; kernels must be correct for any grid and any block that is
	// a multiple of 32.
	Config(work int64) (grid, block uint32)
	// Caps says what the device offers.
	Caps() caps
}

// caps are the device facts the planner uses.
type caps struct {
	// vecRed: 4-wide float vector reductions (sm_90, PTX ISA 8.1).
	vecRed bool
	// casAdd: float sums must use compare-and-swap because the hardware's
	// float atomics flush subnormals (found by a probe at start-up).
	casAdd bool
}

// devError is an error of the device layer (a failed allocation, copy or
// launch). The backend answers it as a panic-free error with no code.
type devError struct {
	op  string
	msg string
}

func (e *devError) Error() string { return fmt.Sprintf("cuda: %s: %s", e.op, e.msg) }
