package reference

import (
	"testing"

	"github.com/scatterconf/scatter"
)

// TestLayoutFree: the calls whose views PyTorch answers as their copies,
// and those it may not (PROFILES.md, "Views"): each tied call next to the
// free one that differs from it in one thing.
func TestLayoutFree(t *testing.T) {
	ten := func(dt scatter.DType, shape []int, strides []int, n int) scatter.Tensor {
		return scatter.Tensor{Shape: shape, Strides: strides, Data: scatter.MakeData(dt, n)}
	}
	f32 := func(shape []int, strides []int, n int) scatter.Tensor {
		return ten(scatter.DTFloat32, shape, strides, n)
	}
	idx := func(shape []int, strides []int, n int) scatter.Tensor { return ten(scatter.DTInt64, shape, strides, n) }
	self := f32([]int{4, 16}, nil, 64)
	wide := f32([]int{4, 17}, nil, 68)
	src := f32([]int{4, 16}, nil, 64)
	bf := ten(scatter.DTBFloat16, []int{4, 16}, nil, 64)
	expanded := idx([]int{4, 16}, []int{1, 0}, 4) // row ids expanded along the rows: the fast path's layout
	expanded32 := ten(scatter.DTInt32, []int{4, 16}, []int{1, 0}, 4)
	short32 := ten(scatter.DTInt32, []int{4, 15}, []int{1, 0}, 4) // 15 elements a row: scatter_add_ takes no fast path
	transposed := idx([]int{4, 16}, []int{1, 4}, 64)              // a transposed index: strides past 1
	broadcastRow := idx([]int{4, 16}, []int{0, 1}, 16)
	for _, c := range []struct {
		name string
		call scatter.Call
		want bool
	}{
		{"scatter_add/contiguous", scatter.ScatterAdd{Self: self, Dim: 0, Index: idx([]int{4, 16}, nil, 64), Src: src}, true},
		{"scatter_add/expanded-index", scatter.ScatterAdd{Self: self, Dim: 0, Index: expanded, Src: src}, true},
		{"scatter_add/expanded-index/int32", scatter.ScatterAdd{Self: self, Dim: 0, Index: expanded32, Src: src}, false},
		{"scatter_add/expanded-index/int32/dim=-2", scatter.ScatterAdd{Self: self, Dim: -2, Index: expanded32, Src: src}, false},
		{"scatter_add/expanded-index/int32/15-a-row", scatter.ScatterAdd{Self: self, Dim: 0, Index: short32, Src: f32([]int{4, 15}, nil, 60)}, true},
		{"scatter_add/expanded-index/int32/int64-self", scatter.ScatterAdd{Self: idx([]int{4, 16}, nil, 64), Dim: 0, Index: expanded32,
			Src: idx([]int{4, 16}, nil, 64)}, true},
		{"scatter_add/expanded-index/self-wider", scatter.ScatterAdd{Self: wide, Dim: 0, Index: expanded, Src: src}, false},
		{"scatter_add/transposed-index", scatter.ScatterAdd{Self: self, Dim: 0, Index: transposed, Src: src}, true},
		{"scatter_add/row-broadcast-index", scatter.ScatterAdd{Self: self, Dim: 0, Index: broadcastRow, Src: src}, true},
		{"scatter_add/expanded-src", scatter.ScatterAdd{Self: self, Dim: 0, Index: idx([]int{4, 16}, nil, 64), Src: f32([]int{4, 16}, []int{0, 1}, 16)}, true},
		{"scatter_reduce/mean/expanded-index", scatter.ScatterReduce{Self: self, Dim: 0, Index: expanded, Src: src, Reduce: scatter.ReduceMean}, true},
		{"scatter_reduce/mean/expanded-index/bfloat16", scatter.ScatterReduce{Self: bf, Dim: 0, Index: expanded, Src: bf, Reduce: scatter.ReduceMean}, false},
		{"scatter_reduce/sum/expanded-index/bfloat16", scatter.ScatterReduce{Self: bf, Dim: 0, Index: expanded, Src: bf, Reduce: scatter.ReduceSum}, true},
		{"scatter_reduce/amax/expanded-index/int32", scatter.ScatterReduce{Self: self, Dim: 0, Index: expanded32, Src: src, Reduce: scatter.ReduceAmax}, false},
		{"scatter_reduce/prod/expanded-index/self-wider", scatter.ScatterReduce{Self: wide, Dim: 0, Index: expanded, Src: src, Reduce: scatter.ReduceProd}, false},
		{"scatter/expanded-index/int32/self-wider", scatter.Scatter{Self: wide, Dim: 0, Index: expanded32, Src: src}, true},
		{"gather/expanded-index", scatter.Gather{Input: self, Dim: 0, Index: expanded}, true},
		{"gather/expanded-index/int32", scatter.Gather{Input: self, Dim: 0, Index: expanded32}, false},
		{"gather/expanded-index/int32/15-a-row", scatter.Gather{Input: self, Dim: 0, Index: short32}, false},
		{"gather/expanded-index/int32/dim=1", scatter.Gather{Input: self, Dim: 1, Index: expanded32}, true},
		{"gather/expanded-index/int32/int64-input", scatter.Gather{Input: idx([]int{4, 16}, nil, 64), Dim: 0, Index: expanded32}, true},
		{"gather/transposed-index", scatter.Gather{Input: self, Dim: 0, Index: transposed}, true},
		{"index_reduce/prod/expanded-source/float16", scatter.IndexReduce{Self: ten(scatter.DTFloat16, []int{4, 2}, nil, 8), Dim: 0,
			Index: idx([]int{3}, nil, 3), Source: ten(scatter.DTFloat16, []int{3, 2}, []int{1, 0}, 3), Reduce: scatter.ReduceProd}, false},
		{"index_reduce/amax/expanded-source/float16", scatter.IndexReduce{Self: ten(scatter.DTFloat16, []int{4, 2}, nil, 8), Dim: 0,
			Index: idx([]int{3}, nil, 3), Source: ten(scatter.DTFloat16, []int{3, 2}, []int{1, 0}, 3), Reduce: scatter.ReduceAmax}, true},
		{"index_reduce/prod/expanded-source/float32", scatter.IndexReduce{Self: f32([]int{4, 2}, nil, 8), Dim: 0, Index: idx([]int{3}, nil, 3),
			Source: f32([]int{3, 2}, []int{1, 0}, 3), Reduce: scatter.ReduceProd}, true},
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
