package repro

import (
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
)

// TestNpyProgram: the program loads each tensor of the call from its
// .npy file (bfloat16 ones as bit patterns viewed as bfloat16), makes the
// call in PyTorch with its arguments, and compares got_out.npy; an
// operation it does not cover exits saying so.
func TestNpyProgram(t *testing.T) {
	one := scatter.BFloat16FromFloat64(1)
	add := scatter.ScatterAdd{Self: scatter.FromSlice([]scatter.BFloat16{0, 0}, 2), Dim: 0, Index: scatter.FromSlice([]int64{1}, 1),
		Src: scatter.FromSlice([]scatter.BFloat16{one}, 1)}
	if p := NpyProgram(add); !strings.Contains(p, "self = load('self.npy', True)") || !strings.Contains(p, "src = load('src.npy', True)") ||
		!strings.Contains(p, "index = load('index.npy', False)") || !strings.Contains(p, "out = self.scatter_add(0, index, src)") {
		t.Errorf("bfloat16 scatter_add:\n%s", p)
	}
	reduce := scatter.ScatterReduce{Self: scatter.FromSlice([]float32{0, 0}, 2), Dim: 0, Index: scatter.FromSlice([]int64{1}, 1),
		Src: scatter.FromSlice([]float32{3}, 1), Reduce: scatter.ReduceAmax, ExcludeSelf: true}
	p := NpyProgram(reduce)
	for _, want := range []string{"self = load('self.npy', False)", "index = load('index.npy', False)", "src = load('src.npy', False)",
		`out = self.scatter_reduce(0, index, src, "amax", include_self=False)`, "got = load('got_out.npy'"} {
		if !strings.Contains(p, want) {
			t.Errorf("scatter_reduce: the program lacks %q:\n%s", want, p)
		}
	}
	ir := scatter.IndexReduce{Self: scatter.FromSlice([]float32{0, 0}, 2), Dim: 0, Index: scatter.FromSlice([]int64{1}, 1),
		Source: scatter.FromSlice([]float32{3}, 1), Reduce: scatter.ReduceMean}
	if p := NpyProgram(ir); !strings.Contains(p, `out = self.index_reduce(0, index, source, "mean", include_self=True)`) ||
		!strings.Contains(p, "source = load('source.npy', False)") {
		t.Errorf("index_reduce:\n%s", p)
	}
	g := scatter.Gather{Input: scatter.FromSlice([]float32{1, 2}, 2), Index: scatter.FromSlice([]int64{1}, 1)}
	if p := NpyProgram(g); !strings.Contains(p, "raise SystemExit('no program for gather')") || strings.Contains(p, "out =") {
		t.Errorf("gather:\n%s", p)
	}
}
