//go:build linux

package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/scatterconf/scatter"
)

// The emulated device: the kernels of kernels/*.cu compiled as C++ by g++
// against emu/cuda_emu.h (the CUDA launch model on a CPU) into a shared
// library, opened with dlopen (purego) and driven by the same host code
// as the real driver through the device interface.

// emuLib is one built emulator library.
type emuLib struct {
	path                                                     string
	init, malloc, free, memcpy, memset, launch, count, kname uintptr
}

// emuBuildDir holds the libraries built by this test binary (removed by
// TestMain).
var emuBuildDir string

// emuSeed seeds the emulator's scheduling (SCATTER_EMU_SEED to repeat one).
var emuSeed = func() uint64 {
	if s, err := strconv.ParseUint(os.Getenv("SCATTER_EMU_SEED"), 10, 64); err == nil {
		return s
	}
	return rand.Uint64()
}()

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "scatter-cuda-emu-")
	if err == nil {
		emuBuildDir = d
	}
	code := m.Run()
	if d != "" {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// gxx returns the C++ compiler, or why there is none.
func gxx() (string, string) {
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	p, err := exec.LookPath(cxx)
	if err != nil {
		return "", fmt.Sprintf("no C++ compiler (%s) to build the emulated device: %v", cxx, err)
	}
	return p, ""
}

// mutation is a deliberate bug: the kernel source with from replaced by
// to (the tests prove that the suites catch it).
type mutation struct{ name, from, to string }

// emuSource is the translation unit of the emulator: the header, the
// kernels exactly as NVRTC sees them (mutated, for a mutant), and the
// runtime.
func emuSource(muts []mutation) (string, error) {
	var b strings.Builder
	hdr, err := filepath.Abs("emu/cuda_emu.h")
	if err != nil {
		return "", err
	}
	rt, err := filepath.Abs("emu/emu_runtime.inc")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "#include %q\n", hdr)
	src := kernelSource()
	for _, m := range muts {
		if strings.Count(src, m.from) == 0 {
			return "", fmt.Errorf("mutation %s: %q is not in the kernel source", m.name, m.from)
		}
		src = strings.ReplaceAll(src, m.from, m.to)
	}
	b.WriteString(src)
	fmt.Fprintf(&b, "#include %q\n", rt)
	return b.String(), nil
}

var (
	emuLibsMu sync.Mutex
	emuLibs   = map[string]*emuBuild{}
)

type emuBuild struct {
	once sync.Once
	lib  *emuLib
	err  error
}

// buildEmu builds (once per mutation set) and opens an emulator library.
func buildEmu(muts ...mutation) (*emuLib, error) {
	var names []string
	for _, m := range muts {
		names = append(names, m.name)
	}
	key := strings.Join(names, " ")
	emuLibsMu.Lock()
	e := emuLibs[key]
	if e == nil {
		e = &emuBuild{}
		emuLibs[key] = e
	}
	emuLibsMu.Unlock()
	e.once.Do(func() { e.lib, e.err = buildEmuLib(muts) })
	return e.lib, e.err
}

func buildEmuLib(muts []mutation) (*emuLib, error) {
	cxx, why := gxx()
	if why != "" {
		return nil, fmt.Errorf("%s", why)
	}
	src, err := emuSource(muts)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256([]byte(src))
	name := "emu-" + hex.EncodeToString(h[:8])
	dir := emuBuildDir
	if dir == "" {
		dir = os.TempDir()
	}
	cpp := filepath.Join(dir, name+".cpp")
	so := filepath.Join(dir, name+".so")
	if err := os.WriteFile(cpp, []byte(src), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(cxx, "-x", "c++", "-std=c++17", "-O1", "-g0", "-shared", "-fPIC", "-pthread",
		"-Wall", "-Wno-unused-function", "-Wno-unused-variable", "-o", so, cpp)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the emulated device failed: %v\n%s", err, out)
	}
	h2, err := purego.Dlopen(so, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("dlopen %s: %v", so, err)
	}
	l := &emuLib{path: so}
	for _, s := range []struct {
		p    *uintptr
		name string
	}{
		{&l.init, "emu_init"}, {&l.malloc, "emu_malloc"}, {&l.free, "emu_free"}, {&l.memcpy, "emu_memcpy"},
		{&l.memset, "emu_memset"}, {&l.launch, "emu_launch"}, {&l.count, "emu_kernel_count"}, {&l.kname, "emu_kernel_name"},
	} {
		if *s.p, err = purego.Dlsym(h2, s.name); err != nil {
			return nil, err
		}
	}
	purego.SyscallN(l.init, 2, uintptr(emuSeed))
	return l, nil
}

// kernels lists the kernels the library registered.
func (l *emuLib) kernels() []string {
	n, _, _ := purego.SyscallN(l.count)
	var ks []string
	for i := 0; i < int(n); i++ {
		p, _, _ := purego.SyscallN(l.kname, uintptr(i))
		ks = append(ks, goString(p))
	}
	sort.Strings(ks)
	return ks
}

// launched records every kernel launched on an emulated device.
var launched sync.Map // name -> *atomic.Int64

// emuDevice implements device on an emulator library.
type emuDevice struct {
	lib   *emuLib
	arena *carena
	rng   *rand.Rand
	c     caps
	live  map[uint64]int // allocations, to catch leaks
}

func newEmuDevice(lib *emuLib, seed uint64) (*emuDevice, error) {
	a, err := newCArena(1 << 16)
	if err != nil {
		return nil, err
	}
	return &emuDevice{lib: lib, arena: a, rng: rand.New(rand.NewPCG(seed, 7)), live: map[uint64]int{}}, nil
}

func (e *emuDevice) Name() string { return "emulated device (" + filepath.Base(e.lib.path) + ")" }
func (e *emuDevice) Caps() caps   { return e.c }

func (e *emuDevice) Malloc(n int) (uint64, error) {
	p, _, _ := purego.SyscallN(e.lib.malloc, uintptr(n))
	if p == 0 {
		return 0, &devError{op: "emu_malloc", msg: "out of memory"}
	}
	// fill new memory with garbage: kernels must not read what they did
	// not write
	purego.SyscallN(e.lib.memset, p, 0xa5, uintptr(n))
	e.live[uint64(p)] = n
	return uint64(p), nil
}

func (e *emuDevice) Free(p uint64) {
	delete(e.live, p)
	purego.SyscallN(e.lib.free, uintptr(p))
}

func (e *emuDevice) CopyHtoD(dst uint64, src unsafe.Pointer, n int) error {
	if err := e.check(dst, n); err != nil {
		return err
	}
	purego.SyscallN(e.lib.memcpy, uintptr(dst), uintptr(src), uintptr(n))
	return nil
}

func (e *emuDevice) CopyDtoH(dst unsafe.Pointer, src uint64, n int) error {
	if err := e.check(src, n); err != nil {
		return err
	}
	purego.SyscallN(e.lib.memcpy, uintptr(dst), uintptr(src), uintptr(n))
	return nil
}

func (e *emuDevice) CopyDtoD(dst, src uint64, n int) error {
	if err := e.check(dst, n); err != nil {
		return err
	}
	if err := e.check(src, n); err != nil {
		return err
	}
	purego.SyscallN(e.lib.memcpy, uintptr(dst), uintptr(src), uintptr(n))
	return nil
}

func (e *emuDevice) Memset(dst uint64, b byte, n int) error {
	if err := e.check(dst, n); err != nil {
		return err
	}
	purego.SyscallN(e.lib.memset, uintptr(dst), uintptr(b), uintptr(n))
	return nil
}

// check catches host code that copies past an allocation.
func (e *emuDevice) check(p uint64, n int) error {
	for base, size := range e.live {
		if p >= base && p+uint64(n) <= base+uint64(size) {
			return nil
		}
	}
	return &devError{op: "emu copy", msg: fmt.Sprintf("%d bytes at %#x are not inside an allocation", n, p)}
}

func (e *emuDevice) Launch(name string, grid, block uint32, p *params) error {
	v, _ := launched.LoadOrStore(name, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	e.arena.reset()
	errBuf, errAddr := e.arena.alloc(512)
	r, _, _ := purego.SyscallN(e.lib.launch, e.arena.cstr(name), uintptr(grid), 1, 1, uintptr(block), 1, 1,
		e.arena.params(p), errAddr, 512)
	if r != 0 {
		return &devError{op: "launch " + name, msg: cString(errBuf) + fmt.Sprintf(" (emulator seed %d)", emuSeed)}
	}
	return nil
}

func (e *emuDevice) Sync() error { return nil }

// Config varies the launch shape on purpose: blocks of 32, 64 or 128
// threads and grids of 1 to 6 blocks, so that grid-stride loops turn over
// and block boundaries fall everywhere.
func (e *emuDevice) Config(work int64) (uint32, uint32) {
	block := int64(32 << e.rng.IntN(3))
	g := min((work+block-1)/block, 1+e.rng.Int64N(6))
	return uint32(max(g, 1)), uint32(block)
}

// emuBackend returns a backend on a fresh emulated device of the library
// built with the mutations, or why it cannot be had (for a skip).
func emuBackend(p scatter.Profile, cfg config, muts ...mutation) (*backend, string) {
	if _, why := gxx(); why != "" {
		return nil, why
	}
	lib, err := buildEmu(muts...)
	if err != nil {
		return newBackend(nil, p, cfg), err.Error()
	}
	dev, err := newEmuDevice(lib, emuSeed^uint64(p)^uint64(len(muts)))
	if err != nil {
		return nil, err.Error()
	}
	dev.c.casAdd = cfg.pol.forceCASAdd
	return newBackend(dev, p, cfg), ""
}

// The emulated device registers exactly the kernels the host may launch:
// a kernel left out of the C++ build, or one the host no longer names,
// shows here before a call needs it.
func TestEmuRegistersEveryKernel(t *testing.T) {
	if _, why := gxx(); why != "" {
		t.Skip(why)
	}
	l, err := buildEmu()
	if err != nil {
		t.Fatal(err)
	}
	got, want := l.kernels(), kernelNames()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the emulation registers %v, the host names %v", got, want)
	}
}
