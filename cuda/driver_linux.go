//go:build linux

package cuda

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The CUDA driver API, loaded with dlopen (purego, no cgo). Only the
// entry points below are used; CUresult 0 is CUDA_SUCCESS.

type driverLib struct {
	cuInit, cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet, cuDeviceGetAttribute, cuDeviceGetName uintptr
	cuDevicePrimaryCtxRetain, cuCtxSetCurrent, cuCtxSynchronize                                      uintptr
	cuModuleLoadData, cuModuleGetFunction, cuLaunchKernel                                            uintptr
	cuMemAlloc, cuMemFree, cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD, cuMemsetD8                      uintptr
	cuEventCreate, cuEventRecord, cuEventSynchronize, cuEventElapsedTime, cuEventDestroy             uintptr
	cuGetErrorName                                                                                   uintptr
}

// libcudaNames are tried in order; SCATTER_CUDA_LIBCUDA names a file first.
var libcudaNames = []string{
	"libcuda.so.1",
	"libcuda.so",
	"/usr/lib/x86_64-linux-gnu/libcuda.so.1",
	"/usr/lib/aarch64-linux-gnu/libcuda.so.1",
	"/usr/lib64/libcuda.so.1",
	"/usr/lib/wsl/lib/libcuda.so.1",
}

var (
	drvOnce sync.Once
	drv     *driverLib
	drvErr  error
)

func loadDriver() (*driverLib, error) {
	drvOnce.Do(func() {
		names := libcudaNames
		if p := os.Getenv("SCATTER_CUDA_LIBCUDA"); p != "" {
			names = append([]string{p}, names...)
		}
		var h uintptr
		var err, first error
		for _, n := range names {
			if h, err = purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
				break
			}
			if first == nil {
				first = err
			}
		}
		if h == 0 {
			drvErr = fmt.Errorf("libcuda.so.1 not found (no NVIDIA driver here): %v", first)
			return
		}
		d := &driverLib{}
		syms := []struct {
			p    *uintptr
			name string
		}{
			{&d.cuInit, "cuInit"}, {&d.cuDriverGetVersion, "cuDriverGetVersion"},
			{&d.cuDeviceGetCount, "cuDeviceGetCount"}, {&d.cuDeviceGet, "cuDeviceGet"},
			{&d.cuDeviceGetAttribute, "cuDeviceGetAttribute"}, {&d.cuDeviceGetName, "cuDeviceGetName"},
			{&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"}, {&d.cuCtxSetCurrent, "cuCtxSetCurrent"},
			{&d.cuCtxSynchronize, "cuCtxSynchronize"}, {&d.cuModuleLoadData, "cuModuleLoadData"},
			{&d.cuModuleGetFunction, "cuModuleGetFunction"}, {&d.cuLaunchKernel, "cuLaunchKernel"},
			{&d.cuMemAlloc, "cuMemAlloc_v2"}, {&d.cuMemFree, "cuMemFree_v2"},
			{&d.cuMemcpyHtoD, "cuMemcpyHtoD_v2"}, {&d.cuMemcpyDtoH, "cuMemcpyDtoH_v2"},
			{&d.cuMemcpyDtoD, "cuMemcpyDtoD_v2"}, {&d.cuMemsetD8, "cuMemsetD8_v2"},
			{&d.cuEventCreate, "cuEventCreate"}, {&d.cuEventRecord, "cuEventRecord"},
			{&d.cuEventSynchronize, "cuEventSynchronize"}, {&d.cuEventElapsedTime, "cuEventElapsedTime"},
			{&d.cuEventDestroy, "cuEventDestroy_v2"}, {&d.cuGetErrorName, "cuGetErrorName"},
		}
		for _, s := range syms {
			if *s.p, err = purego.Dlsym(h, s.name); err != nil {
				drvErr = fmt.Errorf("libcuda.so.1 lacks %s: %v", s.name, err)
				return
			}
		}
		drv = d
	})
	return drv, drvErr
}

// call calls a driver entry point and turns its CUresult into an error.
func (d *driverLib) call(what string, fn uintptr, args ...uintptr) error {
	r, _, _ := purego.SyscallN(fn, args...)
	if int32(r) == 0 {
		return nil
	}
	var name uintptr
	purego.SyscallN(d.cuGetErrorName, r, uintptr(unsafe.Pointer(&name)))
	return &devError{op: what, msg: fmt.Sprintf("%s (CUresult %d)", goString(name), int32(r))}
}

// cudaDevice is a GPU with its primary context and the compiled kernels.
type cudaDevice struct {
	d        *driverLib
	ordinal  int
	ctx      uintptr
	mod      uintptr
	name     string
	major    int
	minor    int
	sms      int
	fns      map[string]uintptr
	arena    *carena
	c        caps
	compiler string // NVRTC version and options, for the record
}

var devices sync.Map // ordinal -> *devResult

type devResult struct {
	once sync.Once
	dev  *cudaDevice
	err  error
}

// openDevice opens the GPU with the given ordinal, once per process.
func openDevice(ordinal int) (device, error) {
	v, _ := devices.LoadOrStore(ordinal, &devResult{})
	r := v.(*devResult)
	r.once.Do(func() { r.dev, r.err = newCudaDevice(ordinal) })
	if r.err != nil {
		return nil, r.err
	}
	return r.dev, nil
}

const (
	attrMultiprocessorCount = 16
	attrComputeMajor        = 75
	attrComputeMinor        = 76
)

func newCudaDevice(ordinal int) (*cudaDevice, error) {
	d, err := loadDriver()
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := d.call("cuInit", d.cuInit, 0); err != nil {
		return nil, fmt.Errorf("cuInit failed (no usable GPU): %w", err)
	}
	var count int32
	if err := d.call("cuDeviceGetCount", d.cuDeviceGetCount, uintptr(unsafe.Pointer(&count))); err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= int(count) {
		return nil, fmt.Errorf("no CUDA device %d (%d found)", ordinal, count)
	}
	dev := &cudaDevice{d: d, ordinal: ordinal, fns: map[string]uintptr{}}
	var h int32
	if err := d.call("cuDeviceGet", d.cuDeviceGet, uintptr(unsafe.Pointer(&h)), uintptr(ordinal)); err != nil {
		return nil, err
	}
	attr := func(a int) (int, error) {
		var v int32
		err := d.call("cuDeviceGetAttribute", d.cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(a), uintptr(h))
		return int(v), err
	}
	if dev.major, err = attr(attrComputeMajor); err != nil {
		return nil, err
	}
	if dev.minor, err = attr(attrComputeMinor); err != nil {
		return nil, err
	}
	if dev.sms, err = attr(attrMultiprocessorCount); err != nil {
		return nil, err
	}
	var nameBuf [256]byte
	if err := d.call("cuDeviceGetName", d.cuDeviceGetName, uintptr(unsafe.Pointer(&nameBuf[0])), 256, uintptr(h)); err != nil {
		return nil, err
	}
	dev.name = cString(nameBuf[:])
	if err := d.call("cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&dev.ctx)), uintptr(h)); err != nil {
		return nil, err
	}
	if dev.arena, err = newCArena(1 << 20); err != nil {
		return nil, err
	}
	if err := dev.bind(); err != nil {
		return nil, err
	}
	image, info, err := compileKernels(dev.major, dev.minor, dev.arena)
	if err != nil {
		return nil, err
	}
	dev.compiler = info.desc
	dev.c.vecRed = info.vecRed
	if err := d.call("cuModuleLoadData", d.cuModuleLoadData, uintptr(unsafe.Pointer(&dev.mod)), uintptr(unsafe.Pointer(&image[0]))); err != nil {
		return nil, err
	}
	runtime.KeepAlive(image)
	if err := dev.probe(); err != nil {
		return nil, err
	}
	return dev, nil
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// bind makes the device's context current on this OS thread; callers lock
// the thread first.
func (c *cudaDevice) bind() error {
	return c.d.call("cuCtxSetCurrent", c.d.cuCtxSetCurrent, c.ctx)
}

// with runs f with the context current on a locked OS thread.
func (c *cudaDevice) with(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.bind(); err != nil {
		return err
	}
	return f()
}

func (c *cudaDevice) Name() string {
	return fmt.Sprintf("%s (sm_%d%d, %d SMs; %s)", c.name, c.major, c.minor, c.sms, c.compiler)
}

func (c *cudaDevice) Caps() caps { return c.c }

func (c *cudaDevice) Malloc(n int) (uint64, error) {
	var p uint64
	err := c.with(func() error {
		return c.d.call("cuMemAlloc", c.d.cuMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(n))
	})
	return p, err
}

func (c *cudaDevice) Free(p uint64) {
	_ = c.with(func() error { return c.d.call("cuMemFree", c.d.cuMemFree, uintptr(p)) })
}

func (c *cudaDevice) CopyHtoD(dst uint64, src unsafe.Pointer, n int) error {
	if n == 0 {
		return nil
	}
	return c.with(func() error {
		return c.d.call("cuMemcpyHtoD", c.d.cuMemcpyHtoD, uintptr(dst), uintptr(src), uintptr(n))
	})
}

func (c *cudaDevice) CopyDtoH(dst unsafe.Pointer, src uint64, n int) error {
	if n == 0 {
		return nil
	}
	return c.with(func() error {
		return c.d.call("cuMemcpyDtoH", c.d.cuMemcpyDtoH, uintptr(dst), uintptr(src), uintptr(n))
	})
}

func (c *cudaDevice) CopyDtoD(dst, src uint64, n int) error {
	if n == 0 {
		return nil
	}
	return c.with(func() error {
		return c.d.call("cuMemcpyDtoD", c.d.cuMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(n))
	})
}

func (c *cudaDevice) Memset(dst uint64, b byte, n int) error {
	if n == 0 {
		return nil
	}
	return c.with(func() error {
		return c.d.call("cuMemsetD8", c.d.cuMemsetD8, uintptr(dst), uintptr(b), uintptr(n))
	})
}

func (c *cudaDevice) function(name string) (uintptr, error) {
	if f, ok := c.fns[name]; ok {
		return f, nil
	}
	c.arena.reset()
	var f uintptr
	if err := c.d.call("cuModuleGetFunction "+name, c.d.cuModuleGetFunction, uintptr(unsafe.Pointer(&f)), c.mod, c.arena.cstr(name)); err != nil {
		return 0, err
	}
	c.fns[name] = f
	return f, nil
}

func (c *cudaDevice) Launch(name string, grid, block uint32, p *params) error {
	return c.with(func() error {
		f, err := c.function(name)
		if err != nil {
			return err
		}
		c.arena.reset()
		kp := c.arena.params(p)
		return c.d.call("cuLaunchKernel "+name, c.d.cuLaunchKernel, f,
			uintptr(grid), 1, 1, uintptr(block), 1, 1, 0, 0, kp, 0)
	})
}

func (c *cudaDevice) Sync() error {
	return c.with(func() error { return c.d.call("cuCtxSynchronize", c.d.cuCtxSynchronize) })
}

// Config: 256 threads a block, at most 16 blocks per SM (grid-stride
// loops take the rest).
func (c *cudaDevice) Config(work int64) (uint32, uint32) {
	const block = 256
	g := (work + block - 1) / block
	g = min(g, int64(16*c.sms), math.MaxInt32)
	return uint32(max(g, 1)), block
}

// timed runs f between two events and returns the elapsed GPU time in
// milliseconds (the benchmarks).
func (c *cudaDevice) timed(f func() error) (float32, error) {
	var ms float32
	err := c.with(func() error {
		var start, stop uintptr
		if err := c.d.call("cuEventCreate", c.d.cuEventCreate, uintptr(unsafe.Pointer(&start)), 0); err != nil {
			return err
		}
		defer purego.SyscallN(c.d.cuEventDestroy, start)
		if err := c.d.call("cuEventCreate", c.d.cuEventCreate, uintptr(unsafe.Pointer(&stop)), 0); err != nil {
			return err
		}
		defer purego.SyscallN(c.d.cuEventDestroy, stop)
		if err := c.d.call("cuEventRecord", c.d.cuEventRecord, start, 0); err != nil {
			return err
		}
		if err := f(); err != nil {
			return err
		}
		if err := c.bind(); err != nil {
			return err
		}
		if err := c.d.call("cuEventRecord", c.d.cuEventRecord, stop, 0); err != nil {
			return err
		}
		if err := c.d.call("cuEventSynchronize", c.d.cuEventSynchronize, stop); err != nil {
			return err
		}
		return c.d.call("cuEventElapsedTime", c.d.cuEventElapsedTime, uintptr(unsafe.Pointer(&ms)), start, stop)
	})
	return ms, err
}

// probe finds out whether the hardware's float atomics keep subnormals
// (IEEE) or flush them; if they flush, float sums use compare-and-swap
// (F_CASADD) so that results stay inside the judge's bounds.
func (c *cudaDevice) probe() error {
	var host [16]float32
	host[1] = 1.1e-38
	d := (*[2]float64)(unsafe.Pointer(&host[8]))
	d[1] = 2.1e-308
	want := host
	f1, f2 := float32(1.1e-38), float32(-1.0e-38)
	want[0] = 1e-40
	want[1] = f1 + f2 // IEEE float32: a subnormal
	want[4], want[5], want[6], want[7] = 1e-40, 2e-40, 3e-40, 4e-40
	wd := (*[2]float64)(unsafe.Pointer(&want[8]))
	d1, d2 := 2.1e-308, -2.0e-308
	wd[0] = 1e-310
	wd[1] = d1 + d2
	p, err := c.Malloc(64)
	if err != nil {
		return err
	}
	defer c.Free(p)
	if err := c.CopyHtoD(p, unsafe.Pointer(&host[0]), 64); err != nil {
		return err
	}
	var flags int64
	vecBuilt := c.c.vecRed
	if vecBuilt {
		flags = fVecRed
	}
	if err := c.Launch("probe_atomics", 1, 32, &params{Out: p, Flags: flags}); err != nil {
		return err
	}
	if err := c.Sync(); err != nil {
		return err
	}
	var got [16]float32
	if err := c.CopyDtoH(unsafe.Pointer(&got[0]), p, 64); err != nil {
		return err
	}
	for i := range got {
		if math.Float32bits(got[i]) == math.Float32bits(want[i]) {
			continue
		}
		if i >= 4 && i < 8 {
			// only the vector reductions flush: do without them
			c.c.vecRed = false
		} else {
			c.c.casAdd = true
		}
	}
	if c.c.casAdd {
		c.compiler += "; float atomics flush subnormals: compare-and-swap sums"
	}
	if !c.c.vecRed && vecBuilt {
		c.compiler += "; vector reductions flush subnormals: not used"
	}
	return nil
}
