// Package workload holds the standard workloads of the project's
// benchmarks (shared/PERFORMANCE.md), so that every benchmark — the Go
// benchmarks of optimized/ and cuda/, and `scattercheck bench` on any
// target — times the same calls on the same data:
//
//	W1  scatter_add 1-D                   src 10,000,000 into self 1,000,000 (zeros)
//	W2  scatter_add rows (PyG-style        src 1,000,000 x 64, index = one row id per src row
//	    expanded index, dim 0)             expanded to 64 columns, self 100,000 x 64
//	W3  scatter_reduce amax 1-D,           as W1
//	    include_self=False
//	W4  scatter_reduce mean 1-D,           as W1
//	    include_self=True
//	W5  index_reduce amax rows             self 100,000 x 64, index 1,000,000 (int64),
//	                                       source 1,000,000 x 64
//	W6  scatter_add 1-D, heavy contention  src 10,000,000 into 16 outputs
//	W7  scatter_add 1-D, bfloat16          as W1 (the float32 values rounded to bfloat16)
//
// float32 values are uniform in [-1, 1) and int64 indices uniform, drawn
// from math/rand with the fixed seed w for workload Ww, so that figures
// stay comparable across backends, runs and peers. self is zeros, except
// W5's, which is uniform like the source. W2's index is an expanded view
// (shape [rows, 64], strides [1, 0]) over one row id per source row, as
// PyG builds it; W5's index is the 1-d row ids.
//
// Bytes counts the bytes a call must move: the source and the index
// values read (an expanded index counts once per row), and the output
// read (self) and written. GB/s figures divide it by the time of a call.
//
// Get(w, div) scales a workload down by div (every size divided by div,
// the 64 columns and W6's 16 outputs kept), for slow targets and for
// tests; div 1 is the standard size.
package workload

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"

	"github.com/scatterconf/scatter"
)

// The workloads are numbered 1 to Count.
const Count = 7

// MaxDiv is the largest scale-down: every workload keeps at least one
// output row at it.
const MaxDiv = 100_000

// Workload is one standard workload at one scale.
type Workload struct {
	ID          int    // 1 to Count
	Name        string // "W1" to "W7"
	Description string // the operation and its shapes at this scale
	Div         int    // the scale-down: 1 is the standard size
	Call        scatter.Call
	// Bytes is what a call must move: the source and index values read,
	// the output read and written.
	Bytes int64
}

// Name returns the name of workload w: "W1" to "W7".
func Name(w int) string { return "W" + strconv.Itoa(w) }

// Parse returns the number of the workload named s: "W3", "w3" or "3".
// Anything else is an *scatter.Error with code ErrInvalidArgument.
func Parse(s string) (int, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "W") || strings.HasPrefix(t, "w") {
		t = t[1:]
	}
	w, err := strconv.Atoi(t)
	if err != nil || w < 1 || w > Count || t != strconv.Itoa(w) {
		return 0, scatter.Errorf(scatter.ErrInvalidArgument, "unknown workload %q (want W1 to W%d)", s, Count)
	}
	return w, nil
}

// Get builds workload w (1 to Count) scaled down by div (1 to MaxDiv).
// It generates the data afresh (hundreds of megabytes at div 1, about a
// second); callers that time it several times keep it. An unknown
// workload or a div out of range is an *scatter.Error with code
// ErrInvalidArgument.
func Get(w, div int) (Workload, error) {
	if w < 1 || w > Count {
		return Workload{}, scatter.Errorf(scatter.ErrInvalidArgument, "unknown workload %d (want 1 to %d)", w, Count)
	}
	if div < 1 || div > MaxDiv {
		return Workload{}, scatter.Errorf(scatter.ErrInvalidArgument, "scale-down %d outside [1, %d]", div, MaxDiv)
	}
	call, bytes, desc := build(w, div)
	return Workload{ID: w, Name: Name(w), Description: desc, Div: div, Call: call, Bytes: bytes}, nil
}

// Op returns workload w's operation without building its data (the
// gate's -ops filter asks it first), or "" for an unknown workload.
func Op(w int) scatter.Op {
	switch w {
	case 1, 2, 6, 7:
		return scatter.OpScatterAdd
	case 3, 4:
		return scatter.OpScatterReduce
	case 5:
		return scatter.OpIndexReduce
	}
	return ""
}

// MustGet is Get for arguments known to be valid; it panics otherwise.
func MustGet(w, div int) Workload {
	wl, err := Get(w, div)
	if err != nil {
		panic(err)
	}
	return wl
}

func uniformF32(r *rand.Rand, n int) []float32 {
	d := make([]float32, n)
	for i := range d {
		d[i] = r.Float32()*2 - 1
	}
	return d
}

func uniformIdx(r *rand.Rand, n, size int) []int64 {
	d := make([]int64, n)
	for i := range d {
		d[i] = r.Int63n(int64(size))
	}
	return d
}

// count writes n with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// build returns workload w scaled down by div, its bytes moved and its
// description. The order of the draws is part of the definition: it is
// what the seeds mean.
func build(w, div int) (scatter.Call, int64, string) {
	r := rand.New(rand.NewSource(int64(w)))
	nSrc, nOut := 10_000_000/div, 1_000_000/div
	switch w {
	case 1, 3, 4, 6, 7:
		if w == 6 {
			nOut = 16
		}
		src := uniformF32(r, nSrc)
		idx := scatter.FromSlice(uniformIdx(r, nSrc, nOut))
		self := scatter.FromSlice(make([]float32, nOut))
		bytes := int64(nSrc*4 + nSrc*8 + 2*nOut*4)
		shapes := fmt.Sprintf("src %s into %s", count(nSrc), count(nOut))
		switch w {
		case 3:
			return scatter.ScatterReduce{Self: self, Index: idx, Src: scatter.FromSlice(src),
				Reduce: scatter.ReduceAmax, ExcludeSelf: true}, bytes, "scatter_reduce amax 1-D, include_self=False, " + shapes
		case 4:
			return scatter.ScatterReduce{Self: self, Index: idx, Src: scatter.FromSlice(src),
				Reduce: scatter.ReduceMean}, bytes, "scatter_reduce mean 1-D, " + shapes
		case 6:
			return scatter.ScatterAdd{Self: self, Index: idx, Src: scatter.FromSlice(src)}, bytes,
				"scatter_add 1-D, heavy contention, " + shapes
		case 7:
			h := make([]scatter.BFloat16, nSrc)
			for i, x := range src {
				h[i] = scatter.BFloat16FromFloat32(x)
			}
			bself := scatter.FromSlice(make([]scatter.BFloat16, nOut))
			return scatter.ScatterAdd{Self: bself, Index: idx, Src: scatter.FromSlice(h)},
				int64(nSrc*2 + nSrc*8 + 2*nOut*2), "scatter_add 1-D bfloat16, " + shapes
		}
		return scatter.ScatterAdd{Self: self, Index: idx, Src: scatter.FromSlice(src)}, bytes, "scatter_add 1-D, " + shapes
	case 2:
		rows, outRows, C := 1_000_000/div, 100_000/div, 64
		src := scatter.FromSlice(uniformF32(r, rows*C), rows, C)
		base := uniformIdx(r, rows, outRows)
		idx := scatter.Tensor{Shape: []int{rows, C}, Strides: []int{1, 0}, Data: base}
		self := scatter.FromSlice(make([]float32, outRows*C), outRows, C)
		return scatter.ScatterAdd{Self: self, Index: idx, Src: src}, int64(rows*C*4 + rows*8 + 2*outRows*C*4),
			fmt.Sprintf("scatter_add rows, expanded index, src %s x %d into %s x %d", count(rows), C, count(outRows), C)
	case 5:
		rows, outRows, C := 1_000_000/div, 100_000/div, 64
		self := scatter.FromSlice(uniformF32(r, outRows*C), outRows, C)
		idx := scatter.FromSlice(uniformIdx(r, rows, outRows))
		src := scatter.FromSlice(uniformF32(r, rows*C), rows, C)
		return scatter.IndexReduce{Self: self, Index: idx, Source: src, Reduce: scatter.ReduceAmax},
			int64(rows*C*4 + rows*8 + 2*outRows*C*4),
			fmt.Sprintf("index_reduce amax rows, source %s x %d into %s x %d", count(rows), C, count(outRows), C)
	}
	panic(w) // Get checked w
}
