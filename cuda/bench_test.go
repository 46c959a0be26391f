package cuda

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/scatterconf/scatter"
)

// The standard workloads of shared/PERFORMANCE.md on the GPU, W1 to W7.
// Each benchmark plans its call once, uploads the data once, and times
// the device work of one call (every init, scatter and finalize pass, the
// copy of self included, as PyTorch's out-of-place op does its clone) with
// CUDA events, b.N times. It reports:
//
//	gpu-ms/op  the device time of one call (CUDA events)
//	GB/s       the bytes a call must move (index, source, output read and
//	           written; an expanded index counts once per row) per device second
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

// workload is one standard workload: its call and its byte count.
type workload struct {
	call  scatter.Call
	bytes float64
}

func uniformF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.Float64()*2 - 1)
	}
	return v
}

func uniformIdx(r *rand.Rand, n, hi int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(r.IntN(hi))
	}
	return v
}

// workloads builds W1..W7 (fixed seeds).
func workloads() map[string]workload {
	const n1, m1 = 10_000_000, 1_000_000
	const rows, cols, outRows = 1_000_000, 64, 100_000
	r := rand.New(rand.NewPCG(2026, 11))
	w := map[string]workload{}
	src1 := scatter.FromSlice(uniformF32(r, n1))
	idx1 := scatter.FromSlice(uniformIdx(r, n1, m1))
	zeros1, _ := scatter.Zeros(scatter.DTFloat32, m1)
	bytes1 := float64(n1*(8+4) + 2*4*m1)
	w["W1"] = workload{scatter.ScatterAdd{Self: zeros1, Dim: 0, Index: idx1, Src: src1}, bytes1}
	w["W3"] = workload{scatter.ScatterReduce{Self: zeros1, Dim: 0, Index: idx1, Src: src1,
		Reduce: scatter.ReduceAmax, ExcludeSelf: true}, bytes1}
	w["W4"] = workload{scatter.ScatterReduce{Self: zeros1, Dim: 0, Index: idx1, Src: src1,
		Reduce: scatter.ReduceMean}, bytes1 + float64(2*4*m1)}

	rowIdx := uniformIdx(r, rows, outRows)
	src2 := scatter.FromSlice(uniformF32(r, rows*cols), rows, cols)
	zeros2, _ := scatter.Zeros(scatter.DTFloat32, outRows, cols)
	expanded := scatter.Tensor{Shape: []int{rows, cols}, Strides: []int{1, 0}, Data: rowIdx}
	bytes2 := float64(rows*8 + rows*cols*4 + 2*4*outRows*cols)
	w["W2"] = workload{scatter.ScatterAdd{Self: zeros2, Dim: 0, Index: expanded, Src: src2}, bytes2}
	self5 := scatter.FromSlice(uniformF32(r, outRows*cols), outRows, cols)
	w["W5"] = workload{scatter.IndexReduce{Self: self5, Dim: 0, Index: scatter.FromSlice(rowIdx), Source: src2,
		Reduce: scatter.ReduceAmax}, bytes2}

	zeros6, _ := scatter.Zeros(scatter.DTFloat32, 16)
	w["W6"] = workload{scatter.ScatterAdd{Self: zeros6, Dim: 0, Index: scatter.FromSlice(uniformIdx(r, n1, 16)),
		Src: src1}, float64(n1*(8+4) + 2*4*16)}

	bf := make([]scatter.BFloat16, n1)
	for i, x := range src1.Data.([]float32) {
		bf[i] = scatter.BFloat16FromFloat32(x)
	}
	zeros7, _ := scatter.Zeros(scatter.DTBFloat16, m1)
	w["W7"] = workload{scatter.ScatterAdd{Self: zeros7, Dim: 0, Index: idx1, Src: scatter.FromSlice(bf)},
		float64(n1*(8+2) + 2*2*m1)}
	return w
}

var (
	benchOnce sync.Once
	benchWL   map[string]workload
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
		benchWL = workloads()
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
	wl := benchWL[name]
	var pr *program
	var err error
	switch c := wl.call.(type) {
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
	gbs := wl.bytes / (ms * 1e-3) / 1e9
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
