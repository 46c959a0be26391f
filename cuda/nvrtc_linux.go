//go:build linux

package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// NVRTC, loaded with dlopen. It compiles the embedded kernels for the
// device's exact architecture (sm_XY, a CUBIN), or, when this NVRTC is
// older than the device, for the newest virtual architecture it knows (PTX
// that the driver compiles on load).

type nvrtcLib struct {
	path                                            string
	major, minor                                    int
	create, compile, destroy, logSize, log          uintptr
	cubinSize, cubin, ptxSize, ptx, numArchs, archs uintptr
}

// nvrtcCandidates lists where NVRTC may live: SCATTER_CUDA_NVRTC (a file),
// the toolkit (CUDA_HOME, CUDA_PATH, /usr/local/cuda*), the system's
// library directories, conda, and the pip wheels that PyTorch installs
// (nvidia/cuda_nvrtc, nvidia/cu13).
func nvrtcCandidates() []string {
	var c []string
	if p := os.Getenv("SCATTER_CUDA_NVRTC"); p != "" {
		c = append(c, p)
	}
	names := []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so.11.1", "libnvrtc.so.11.0"}
	c = append(c, names...)
	var dirs []string
	for _, e := range []string{"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CONDA_PREFIX"} {
		if v := os.Getenv(e); v != "" {
			dirs = append(dirs, filepath.Join(v, "lib64"), filepath.Join(v, "lib"))
		}
	}
	dirs = append(dirs, "/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/opt/conda/lib")
	globs := []string{"/usr/local/cuda-*/lib64"}
	home, _ := os.UserHomeDir()
	var sites []string
	for _, base := range []string{"/usr/lib/python3*", "/usr/local/lib/python3*", "/opt/conda/lib/python3*",
		filepath.Join(home, ".local/lib/python3*"), filepath.Join(os.Getenv("VIRTUAL_ENV"), "lib/python3*")} {
		sites = append(sites, filepath.Join(base, "site-packages"), filepath.Join(base, "dist-packages"))
	}
	for _, s := range sites {
		globs = append(globs, filepath.Join(s, "nvidia/cuda_nvrtc/lib"), filepath.Join(s, "nvidia/cu*/lib"))
	}
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		dirs = append(dirs, m...)
	}
	for _, d := range dirs {
		m, _ := filepath.Glob(filepath.Join(d, "libnvrtc.so*"))
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		for _, f := range m {
			if !strings.Contains(filepath.Base(f), "builtins") && !strings.HasSuffix(f, ".alt.so") {
				c = append(c, f)
			}
		}
	}
	return c
}

var (
	nvOnce sync.Once
	nv     *nvrtcLib
	nvErr  error
)

func loadNVRTC() (*nvrtcLib, error) {
	nvOnce.Do(func() {
		var h uintptr
		var path string
		var err error
		for _, p := range nvrtcCandidates() {
			if filepath.IsAbs(p) {
				// NVRTC opens its builtins library by name; load the one
				// beside it first, so that a library outside the loader's
				// path is found.
				bs, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "libnvrtc-builtins.so*"))
				sort.Sort(sort.Reverse(sort.StringSlice(bs)))
				for _, b := range bs {
					if _, e := purego.Dlopen(b, purego.RTLD_NOW|purego.RTLD_GLOBAL); e == nil {
						break
					}
				}
			}
			if h, err = purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
				path = p
				break
			}
		}
		if h == 0 {
			nvErr = fmt.Errorf("libnvrtc.so not found (set SCATTER_CUDA_NVRTC to its path): %v", err)
			return
		}
		l := &nvrtcLib{path: path}
		syms := []struct {
			p    *uintptr
			name string
		}{
			{&l.create, "nvrtcCreateProgram"}, {&l.compile, "nvrtcCompileProgram"},
			{&l.destroy, "nvrtcDestroyProgram"}, {&l.logSize, "nvrtcGetProgramLogSize"},
			{&l.log, "nvrtcGetProgramLog"}, {&l.ptxSize, "nvrtcGetPTXSize"}, {&l.ptx, "nvrtcGetPTX"},
			{&l.numArchs, "nvrtcGetNumSupportedArchs"}, {&l.archs, "nvrtcGetSupportedArchs"},
		}
		for _, s := range syms {
			if *s.p, err = purego.Dlsym(h, s.name); err != nil {
				nvErr = fmt.Errorf("%s lacks %s: %v", path, s.name, err)
				return
			}
		}
		// CUBIN output needs NVRTC 11.1 or later; without it, PTX only
		l.cubinSize, _ = purego.Dlsym(h, "nvrtcGetCUBINSize")
		l.cubin, _ = purego.Dlsym(h, "nvrtcGetCUBIN")
		ver, err := purego.Dlsym(h, "nvrtcVersion")
		if err != nil {
			nvErr = fmt.Errorf("%s lacks nvrtcVersion: %v", path, err)
			return
		}
		var maj, mnr int32
		purego.SyscallN(ver, uintptr(unsafe.Pointer(&maj)), uintptr(unsafe.Pointer(&mnr)))
		l.major, l.minor = int(maj), int(mnr)
		nv = l
	})
	return nv, nvErr
}

// supportedArchs returns the sm numbers this NVRTC compiles for (e.g. 90).
func (l *nvrtcLib) supportedArchs() []int {
	var n int32
	if r, _, _ := purego.SyscallN(l.numArchs, uintptr(unsafe.Pointer(&n))); r != 0 || n <= 0 {
		return nil
	}
	a := make([]int32, n)
	purego.SyscallN(l.archs, uintptr(unsafe.Pointer(&a[0])))
	out := make([]int, n)
	for i, x := range a {
		out[i] = int(x)
	}
	return out
}

// compileSource compiles src with the options; cubin asks for the CUBIN
// (a real architecture), else the PTX. It returns the image (a PTX image
// ends with its NUL) or the compiler's log in the error.
func (l *nvrtcLib) compileSource(src string, opts []string, cubin bool, arena *carena) ([]byte, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	arena.reset()
	csrc := append([]byte(src), 0)
	name := []byte("scatter_kernels.cu\x00")
	var prog uintptr
	if r, _, _ := purego.SyscallN(l.create, uintptr(unsafe.Pointer(&prog)), uintptr(unsafe.Pointer(&csrc[0])),
		uintptr(unsafe.Pointer(&name[0])), 0, 0, 0); r != 0 {
		return nil, fmt.Errorf("nvrtcCreateProgram: error %d", r)
	}
	defer purego.SyscallN(l.destroy, uintptr(unsafe.Pointer(&prog)))
	addrs := make([]uintptr, len(opts))
	for i, o := range opts {
		addrs[i] = arena.cstr(o)
	}
	optv := arena.ptrs(addrs...)
	r, _, _ := purego.SyscallN(l.compile, prog, uintptr(len(opts)), optv)
	var logN uintptr
	purego.SyscallN(l.logSize, prog, uintptr(unsafe.Pointer(&logN)))
	logB := make([]byte, logN+1)
	purego.SyscallN(l.log, prog, uintptr(unsafe.Pointer(&logB[0])))
	if r != 0 {
		return nil, fmt.Errorf("NVRTC %d.%d (%s) failed to compile the kernels with %v (nvrtcResult %d):\n%s",
			l.major, l.minor, l.path, opts, r, cString(logB))
	}
	sizeFn, getFn := l.ptxSize, l.ptx
	if cubin {
		sizeFn, getFn = l.cubinSize, l.cubin
	}
	var n uintptr
	if r, _, _ := purego.SyscallN(sizeFn, prog, uintptr(unsafe.Pointer(&n))); r != 0 || n == 0 {
		return nil, fmt.Errorf("NVRTC: no image (nvrtcResult %d)", r)
	}
	img := make([]byte, n)
	if r, _, _ := purego.SyscallN(getFn, prog, uintptr(unsafe.Pointer(&img[0]))); r != 0 {
		return nil, fmt.Errorf("NVRTC: reading the image failed (nvrtcResult %d)", r)
	}
	return img, nil
}

type compileInfo struct {
	desc   string
	vecRed bool
}

// kernelOptions returns NVRTC's options for architecture arch ("sm_90" or
// "compute_90"): IEEE arithmetic (no contraction into FMA, no
// flush-to-zero, exact division), C++17, and the vector reductions where
// both the architecture (sm_90) and the PTX ISA (8.1, NVRTC 12.1) have them.
func (l *nvrtcLib) kernelOptions(archNum int, arch string) ([]string, bool) {
	opts := []string{"--gpu-architecture=" + arch, "--std=c++17", "--fmad=false", "--ftz=false",
		"--prec-div=true", "--prec-sqrt=true"}
	vec := archNum >= 90 && (l.major > 12 || (l.major == 12 && l.minor >= 1))
	if vec {
		opts = append(opts, "-DSCATTER_VECRED")
	}
	return opts, vec
}

// compileKernels compiles the embedded kernels for compute capability
// major.minor, through the disk cache.
func compileKernels(major, minor int, arena *carena) ([]byte, compileInfo, error) {
	l, err := loadNVRTC()
	if err != nil {
		return nil, compileInfo{}, err
	}
	archNum := major*10 + minor
	archs := l.supportedArchs()
	real := l.cubin != 0
	if len(archs) > 0 && !containsInt(archs, archNum) {
		real = false
	}
	arch := fmt.Sprintf("sm_%d", archNum)
	if !real {
		// the newest virtual architecture not above the device's
		best := 0
		for _, a := range archs {
			if a <= archNum && a > best {
				best = a
			}
		}
		if best == 0 {
			best = archNum
		}
		archNum = best
		arch = fmt.Sprintf("compute_%d", best)
	}
	opts, vec := l.kernelOptions(archNum, arch)
	src := kernelSource()
	info := compileInfo{desc: fmt.Sprintf("NVRTC %d.%d %s", l.major, l.minor, arch), vecRed: vec}
	h := sha256.New()
	fmt.Fprintf(h, "%d.%d\x00%s\x00%s", l.major, l.minor, strings.Join(opts, "\x00"), src)
	key := hex.EncodeToString(h.Sum(nil))
	if img := cacheGet(key); img != nil {
		return img, info, nil
	}
	img, err := l.compileSource(src, opts, real, arena)
	if err != nil {
		return nil, info, err
	}
	cachePut(key, img)
	return img, info, nil
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// The disk cache of compiled kernels: $XDG_CACHE_HOME/scatter-cuda (or
// SCATTER_CUDA_CACHE, a directory), off with SCATTER_CUDA_CACHE=off. Files
// are named by a hash of the NVRTC version, the options and the source.
func cacheDir() string {
	v := os.Getenv("SCATTER_CUDA_CACHE")
	if v == "off" {
		return ""
	}
	if v != "" {
		return v
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "scatter-cuda")
}

func cacheGet(key string) []byte {
	d := cacheDir()
	if d == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(d, key+".bin"))
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}

func cachePut(key string, img []byte) {
	d := cacheDir()
	if d == "" || os.MkdirAll(d, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(d, key+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(img)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	os.Rename(tmp.Name(), filepath.Join(d, key+".bin"))
}
