package reference

import (
	"testing"

	"github.com/scatterconf/scatter"
)

// TestLayoutFree: the calls whose views PyTorch 2 answers as their copies,
// and those it may not (PROFILES.md, "Views").
func TestLayoutFree(t *testing.T) {
	f32 := func(shape []int, strides []int, n int) scatter.Tensor {
		return scatter.Tensor{Shape: shape, Strides: strides, Data: make([]float32, n)}
	}
	idx := func(shape []int, strides []int, n int) scatter.Tensor {
		return scatter.Tensor{Shape: shape, Strides: strides, Data: make([]int64, n)}
	}
	self := f32([]int{4, 16}, nil, 64)
	src := f32([]int{4, 16}, nil, 64)
	expanded := idx([]int{4, 16}, []int{1, 0}, 4)    // row ids expanded along the rows: the fast path's layout
	transposed := idx([]int{4, 16}, []int{1, 4}, 64) // a transposed index: strides past 1
	broadcastRow := idx([]int{4, 16}, []int{0, 1}, 16)
	for _, c := range []struct {
		name string
		call scatter.Call
		want bool
	}{
		{"scatter_add/contiguous", scatter.ScatterAdd{Self: self, Dim: 0, Index: idx([]int{4, 16}, nil, 64), Src: src}, true},
		{"scatter_add/expanded-index", scatter.ScatterAdd{Self: self, Dim: 0, Index: expanded, Src: src}, false},
		{"scatter_add/transposed-index", scatter.ScatterAdd{Self: self, Dim: 0, Index: transposed, Src: src}, true},
		{"scatter_add/row-broadcast-index", scatter.ScatterAdd{Self: self, Dim: 0, Index: broadcastRow, Src: src}, true},
		{"scatter_add/expanded-src", scatter.ScatterAdd{Self: self, Dim: 0, Index: idx([]int{4, 16}, nil, 64), Src: f32([]int{4, 16}, []int{0, 1}, 16)}, true},
		{"scatter_reduce/expanded-index", scatter.ScatterReduce{Self: self, Dim: 0, Index: expanded, Src: src, Reduce: scatter.ReduceMean}, false},
		{"scatter/expanded-index", scatter.Scatter{Self: self, Dim: 0, Index: expanded, Src: src}, false},
		{"gather/expanded-index", scatter.Gather{Input: self, Dim: 0, Index: expanded}, false},
		{"gather/transposed-index", scatter.Gather{Input: self, Dim: 0, Index: transposed}, true},
		{"index_reduce/expanded-source", scatter.IndexReduce{Self: f32([]int{4, 1}, nil, 4), Dim: 0, Index: idx([]int{3}, nil, 3),
			Source: f32([]int{3, 1}, []int{0, 1}, 1), Reduce: scatter.ReduceProd}, false},
		{"index_reduce/transposed-self", scatter.IndexReduce{Self: f32([]int{4, 2}, []int{1, 4}, 8), Dim: 0, Index: idx([]int{3}, nil, 3),
			Source: f32([]int{3, 2}, nil, 6), Reduce: scatter.ReduceProd}, true},
		{"torch_scatter/transposed-src", scatter.TorchScatterAdd{Src: f32([]int{4, 2}, []int{1, 4}, 8), Index: idx([]int{4, 2}, nil, 8)}, false},
		{"torch_scatter/contiguous", scatter.TorchScatterAdd{Src: f32([]int{4, 2}, nil, 8), Index: idx([]int{4, 2}, nil, 8)}, true},
	} {
		if got := LayoutFree(c.call); got != c.want {
			t.Errorf("%s: LayoutFree = %v, want %v", c.name, got, c.want)
		}
	}
}
