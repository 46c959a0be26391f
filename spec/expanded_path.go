package spec

import "github.com/scatterconf/scatter"

// expandedPathCases are torch_scatter calls on torch 2's expanded-index
// path (dim 0, a floating dtype, index rows of 16 or more elements) into
// an out wider than src: torch 2.14's kernel lays index row m at out's
// flat offsets m*16 onwards, 2.6 in out's row m (1.13 has no such path).
// Each call is two cases, one per side of that split (PROFILES.md,
// scatter.Profile.ExpandedPathIndexRows); the values are torch_scatter
// 2.1.2's on torch 2.14.1 and 2.6.0.
func expandedPathCases() []Case {
	const (
		opTS, opTSA = scatter.OpTorchScatter, scatter.OpTorchScatterAdd
		F32         = scatter.DTFloat32
	)
	rowByRow := []scatter.Profile{scatter.Torch113, scatter.Torch26} // Debian's 2.6 (no FBGEMM) and 1.13 (no such path)
	// out zeros(2, 17) with vals written from its flat offset at on
	wider := func(at int, vals ...float32) scatter.Tensor {
		v := make([]float32, 34)
		copy(v[at:], vals)
		return shape(f32(v...), 2, 17)
	}
	row := func(n int, v float32) []float32 {
		r := make([]float32, n)
		for i := range r {
			r[i] = v
		}
		return r
	}
	oneTo16 := make([]float32, 16)
	for i := range oneTo16 {
		oneTo16[i] = float32(i + 1)
	}
	src := shape(arange(F32, 1, 16), 1, 16) // one row: 1..16
	out := func() scatter.Tensor { return full(F32, 0, 2, 17) }
	pairs := []struct {
		name, how string
		op        scatter.Op
		call      scatter.Call
		shifted   scatter.Tensor // torch 2.14
		rows      scatter.Tensor // torch 2.6, and 1.13 (no such path)
		features  []string
	}{
		{"torch_scatter.scatter/sum/float32", "scatter_sum(arange(1.,17).view(1,16), [1], dim=0, out=zeros(2,17)): 1..16 at out's flat offsets 16..31 (2.14), in row 1 (2.6)",
			opTS, scatter.TorchScatter{Src: src, Index: i64(1), Dim: scatter.Ptr(0), Out: out(), Reduce: scatter.ReduceSum},
			wider(16, oneTo16...), wider(17, oneTo16...), nil},
		{"torch_scatter.scatter/mean/float32", "scatter_mean(ones(2,16), [1,1], dim=0, out=zeros(2,17)): the sums of 2 land shifted (2.14) or in row 1 (2.6), and the count [1, 2] divides out's own rows",
			opTS, scatter.TorchScatter{Src: full(F32, 1, 2, 16), Index: i64(1, 1), Dim: scatter.Ptr(0), Out: out(), Reduce: scatter.ReduceMean},
			wider(16, append([]float32{2}, row(15, 1)...)...), wider(17, row(16, 1)...), []string{"mean", "count-from-index"}},
		{"torch_scatter.scatter_add/float32", "1.x's scatter_add expands the index the same way: as torch_scatter.scatter's sum",
			opTSA, scatter.TorchScatterAdd{Src: src, Index: i64(1), Dim: scatter.Ptr(0), Out: out()},
			wider(16, oneTo16...), wider(17, oneTo16...), nil},
	}
	var cases []Case
	for _, p := range pairs {
		labels := ecLabels(p.op, F32, append([]string{"torch_scatter", "out", "broadcast", "expanded-path"}, p.features...)...)
		src := "torch 2's expanded-index path steps through out by the index's rows (16), which torch 2.14 takes for out's (17): " + p.how
		cases = append(cases,
			Case{Name: p.name + "/expanded-path-out-wider-than-src/torch-2.14", Labels: labels, Source: src,
				Call: p.call, Want: p.shifted, Profiles: from28},
			Case{Name: p.name + "/expanded-path-out-wider-than-src/row-by-row", Labels: labels, Source: src,
				Call: scatter.CloneCall(p.call), Want: p.rows, Profiles: rowByRow})
	}
	return cases
}
