//go:build linux

package cuda

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestNVRTCCompilesKernels compiles the embedded kernels with NVRTC, as
// the backend does on a GPU: it needs NVRTC (not a GPU) and skips without
// it. Set SCATTER_CUDA_NVRTC to a libnvrtc.so to run it on a machine
// without the toolkit (Debian's libnvrtc11.2, from non-free, works). It
// compiles for sm_90 (or the newest architecture this NVRTC knows below
// it); SCATTER_CUDA_NVRTC_ARCHS=all compiles for sm_70 to sm_100 as well
// (about 20 seconds each).
func TestNVRTCCompilesKernels(t *testing.T) {
	l, err := loadNVRTC()
	if err != nil {
		t.Skipf("NVRTC is not available here: %v", err)
	}
	arena, err := newCArena(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	archs := l.supportedArchs()
	t.Logf("NVRTC %d.%d at %s; architectures %v", l.major, l.minor, l.path, archs)
	want := []int{90}
	if os.Getenv("SCATTER_CUDA_NVRTC_ARCHS") == "all" {
		want = []int{70, 75, 80, 86, 89, 90, 100, 120}
	} else if len(archs) > 0 && !containsInt(archs, 90) {
		best := 0
		for _, a := range archs {
			if a < 90 && a > best {
				best = a
			}
		}
		want = []int{best}
	}
	src := kernelSource()
	for _, a := range want {
		if len(archs) > 0 && !containsInt(archs, a) {
			continue
		}
		t.Run(fmt.Sprintf("sm_%d", a), func(t *testing.T) {
			cubin := l.cubin != 0
			arch := fmt.Sprintf("sm_%d", a)
			if !cubin {
				arch = fmt.Sprintf("compute_%d", a)
			}
			opts, vec := l.kernelOptions(a, arch)
			img, err := l.compileSource(src, opts, cubin, arena)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d bytes (vector reductions: %v)", arch, len(img), vec)
			// every kernel the host launches is in the image (the names
			// are in the CUBIN's symbol table, and in the PTX's .entry lines)
			for _, k := range kernelNames() {
				if !strings.Contains(string(img), k+"\x00") && !strings.Contains(string(img), ".entry "+k+"(") {
					t.Errorf("kernel %s is missing from the image", k)
				}
			}
		})
	}
}
