package cuda

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/workload"
)

// The standard workloads of shared/PERFORMANCE.md on the GPU, W1 to W7
// (package workload: the same calls, seeds and byte counts as the CPU
// benchmarks and `scattercheck bench`). Each benchmark plans its call
// once, uploads the data once, and times
// the device work of one call (every init, scatter and finalize pass, the
// copy of self included, as PyTorch's out-of-place op does its clone) with
// CUDA events, b.N times. It reports:
//
//	gpu-ms/op  the device time of one call (CUDA events)
//	GB/s       the bytes a call must move (Workload.Bytes: index, source,
//	           output read and written; an expanded index counts once per
//	           row) per device second
//	copy-GB/s  a device-to-device copy of 256 MiB, timed the same way in the
//	           same process
//	%copy      GB/s as a percentage of copy-GB/s
//
// bench_torch.py times the same workloads in PyTorch with the same byte
// counts; GPU.md says how to run both and what they must show. Without a
// GPU the benchmarks skip.

// timer is the real device's event timing (driver_linux.go).
type timer interface {
	timed(f func() error) (float32, error)
}

// uniformF32 draws n float32 values uniform in [-1, 1), for the small
// workloads of plan_test.go.
func uniformF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.Float64()*2 - 1)
	}
	return v
}

// uniformIdx draws n indices uniform in [0, hi).
func uniformIdx(r *rand.Rand, n, hi int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(r.IntN(hi))
	}
	return v
}

// benchWorkloads keeps the workloads built (package workload, full
// size), by name: each is built once, when a benchmark first needs it.
var benchWorkloads = struct {
	sync.Mutex
	m map[string]workload.Workload
}{m: map[string]workload.Workload{}}

func getWorkload(b *testing.B, name string) workload.Workload {
	benchWorkloads.Lock()
	defer benchWorkloads.Unlock()
	if wl, ok := benchWorkloads.m[name]; ok {
		return wl
	}
	id, err := workload.Parse(name)
	if err != nil {
		b.Fatal(err)
	}
	wl, err := workload.Get(id, 1)
	if err != nil {
		b.Fatal(err)
	}
	benchWorkloads.m[name] = wl
	return wl
}

var (
	benchOnce sync.Once
	benchBE   *backend
	copyGBs   float64
	benchErr  string
)

// benchSetup opens the GPU and measures the copy bandwidth, once.
func benchSetup(b *testing.B) {
	benchOnce.Do(func() {
		be := New(scatter.Torch2).(*backend)
		if be.unavailable != "" {
			benchErr = be.unavailable
			return
		}
		tm, ok := be.dev.(timer)
		if !ok {
			benchErr = "the device has no event timer"
			return
		}
		benchBE = be
		const size = 256 << 20
		unlock := be.lock()
		defer unlock()
		src, err1 := be.dev.Malloc(size)
		dst, err2 := be.dev.Malloc(size)
		if err1 != nil || err2 != nil {
			benchErr = fmt.Sprint("allocating the copy buffers: ", err1, err2)
			return
		}
		defer be.dev.Free(src)
		defer be.dev.Free(dst)
		best := float32(0)
		for i := 0; i < 10; i++ {
			ms, err := tm.timed(func() error { return be.dev.CopyDtoD(dst, src, size) })
			if err != nil {
				benchErr = err.Error()
				return
			}
			if best == 0 || ms < best {
				best = ms
			}
		}
		// a copy reads and writes every byte
		copyGBs = 2 * size / (float64(best) * 1e-3) / 1e9
	})
	if benchErr != "" {
		b.Skipf("no GPU: %s", benchErr)
	}
}

func benchWorkload(b *testing.B, name string) {
	benchSetup(b)
	be := benchBE
	wl := getWorkload(b, name)
	var pr *program
	var err error
	switch c := wl.Call.(type) {
	case scatter.ScatterAdd:
		pr, err = be.planScatter(scatter.Scatter{Self: c.Self, Dim: c.Dim, Index: c.Index, Src: c.Src, Reduce: scatter.ReduceAdd})
	case scatter.ScatterReduce:
		pr, err = be.planScatterReduce(c)
	case scatter.IndexReduce:
		pr, err = be.planIndexReduce(c)
	}
	if err != nil || pr == nil {
		b.Fatalf("%s: not planned for the GPU (%v)", name, err)
	}
	unlock := be.lock()
	defer unlock()
	l, err := load(be.dev, pr)
	if err != nil {
		b.Fatal(err)
	}
	defer l.free()
	tm := be.dev.(timer)
	// warm up (the kernels' first launch), and check the error flag
	if err := l.run(); err != nil {
		b.Fatal(err)
	}
	if _, err := l.result(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var total float64
	for i := 0; i < b.N; i++ {
		ms, err := tm.timed(l.run)
		if err != nil {
			b.Fatal(err)
		}
		total += float64(ms)
	}
	b.StopTimer()
	ms := total / float64(b.N)
	gbs := float64(wl.Bytes) / (ms * 1e-3) / 1e9
	b.ReportMetric(ms, "gpu-ms/op")
	b.ReportMetric(gbs, "GB/s")
	b.ReportMetric(copyGBs, "copy-GB/s")
	b.ReportMetric(100*gbs/copyGBs, "%copy")
}

func BenchmarkW1(b *testing.B) { benchWorkload(b, "W1") }
func BenchmarkW2(b *testing.B) { benchWorkload(b, "W2") }
func BenchmarkW3(b *testing.B) { benchWorkload(b, "W3") }
func BenchmarkW4(b *testing.B) { benchWorkload(b, "W4") }
func BenchmarkW5(b *testing.B) { benchWorkload(b, "W5") }
func BenchmarkW6(b *testing.B) { benchWorkload(b, "W6") }
func BenchmarkW7(b *testing.B) { benchWorkload(b, "W7") }
