package spec

import (
	"fmt"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/check"
)

// precedenceCases returns calls that break two rules at once, for each
// neighbouring pair of PyTorch's checks (SEMANTICS.md §1.3 for scatter,
// scatter_add and scatter_reduce, §6.1 for index_reduce, §7 for gather)
// and of the F# library's (§9): the error is the earlier check's. The
// rule pairs break one rule each, so an implementation that checks in
// another order passes them; these pin the order. At the conformant
// level every broken rule's code conforms (the order of checks is not
// part of what a port must copy); at the strict level only PyTorch's
// first does. The int16 index is rejected by every
// PyTorch version, so the cases hold for every profile.
//
// Each case is named "<op>/<dtype>/precedence/<first>-before-<second>" and
// labelled with the operation, the dtype, "precedence" and its rule.
func precedenceCases() []Case {
	const (
		dim        = "dim"
		indexDType = "index-dtype"
		dtypeMis   = "dtype-mismatch"
		rank       = "rank"
		size       = "size"
		reduceName = "reduce-name"
		indexValue = "index-value"
		vector     = "index-vector"
		count      = "index-count"
		// the F# library's rules
		fsShape     = "target-shape"
		fsCount     = "indices-per-dim"
		fsBroadcast = "index-broadcast"
		fsAddition  = "element-addition"
		fsPosition  = "position"
	)
	type entry struct {
		first, second string
		call          scatter.Call
		want          scatter.Code
		source        string
	}
	const s13, s61, s7 = "SEMANTICS.md §1.3", "SEMANTICS.md §6.1", "SEMANTICS.md §7"
	const s9 = "SEMANTICS.md §9, the F# library's order (reference/fsharp.go)"
	none := scatter.Tensor{}
	var (
		dimErr   = scatter.ErrDimOutOfRange
		idxErr   = scatter.ErrIndexDType
		dtErr    = scatter.ErrDTypeMismatch
		shapeErr = scatter.ErrShapeMismatch
		nameErr  = scatter.ErrInvalidArgument
	)
	row := func(v ...int16) scatter.Tensor { return shape(i16(v...), 1, len(v)) }
	entries := []entry{
		// dim (step 1) before the index's dtype (step 2)
		{dim, indexDType, scatter.ScatterAdd{Self: z(rF32, 2, 3), Dim: 2, Index: row(0, 1, 0), Src: full(rF32, 1, 1, 3)}, dimErr, s13 + " steps 1, 2"},
		{dim, indexDType, scatter.Scatter{Self: z(rF32, 2, 3), Dim: -3, Index: row(0, 1, 0), Src: full(rF32, 1, 1, 3)}, dimErr, s13 + " steps 1, 2"},
		{dim, indexDType, scatter.ScatterReduce{Self: z(rF32, 2, 3), Dim: 2, Index: row(0, 1, 0), Src: full(rF32, 1, 1, 3), Reduce: scatter.ReduceSum}, dimErr, s13 + " steps 1, 2"},
		{dim, indexDType, scatter.Gather{Input: f32(1, 2), Dim: 5, Index: i16(0)}, dimErr, s7 + " (dim is wrapped first)"},
		// the index's dtype (step 2) before src's (step 3)
		{indexDType, dtypeMis, scatter.ScatterAdd{Self: z(rF32, 3), Index: i16(0, 1), Src: f64(1, 2)}, idxErr, s13 + " steps 2, 3"},
		{indexDType, dtypeMis, scatter.Scatter{Self: z(rF32, 3), Index: i16(0, 1), Src: f64(1, 2)}, idxErr, s13 + " steps 2, 3"},
		{indexDType, dtypeMis, scatter.ScatterReduce{Self: z(rF32, 3), Index: i16(0, 1), Src: f64(1, 2), Reduce: scatter.ReduceAmax}, idxErr, s13 + " steps 2, 3"},
		// src's dtype (step 3) before the shape check (step 4): the rank, the sizes
		{dtypeMis, rank, scatter.ScatterAdd{Self: z(rF32, 3), Index: shape(i64(0, 1), 1, 2), Src: shape(f64(1, 2), 1, 2)}, dtErr, s13 + " steps 3, 4a"},
		{dtypeMis, rank, scatter.Scatter{Self: z(rF32, 3), Index: shape(i64(0, 1), 1, 2), Src: shape(f64(1, 2), 1, 2)}, dtErr, s13 + " steps 3, 4a"},
		{dtypeMis, rank, scatter.ScatterReduce{Self: z(rF32, 3), Index: shape(i64(0, 1), 1, 2), Src: shape(f64(1, 2), 1, 2), Reduce: scatter.ReduceProd}, dtErr, s13 + " steps 3, 4a"},
		{dtypeMis, size, scatter.ScatterAdd{Self: z(rF32, 2, 2), Index: shape(i64(0, 0, 0), 1, 3), Src: shape(f64(1, 2, 3), 1, 3)}, dtErr, s13 + " steps 3, 4b"},
		{dtypeMis, size, scatter.ScatterReduce{Self: z(rF32, 2, 2), Index: shape(i64(0, 0, 0), 1, 3), Src: shape(f64(1, 2, 3), 1, 3), Reduce: scatter.ReduceMean}, dtErr, s13 + " steps 3, 4b"},
		// the shape check (step 4) before the reduce's name (step 6)
		{rank, reduceName, scatter.ScatterReduce{Self: z(rF32, 3), Index: shape(i64(0), 1, 1), Src: shape(f32(1), 1, 1), Reduce: scatter.ReduceAdd}, shapeErr, s13 + " steps 4a, 6"},
		{size, reduceName, scatter.Scatter{Self: z(rF32, 2, 2), Index: shape(i64(0, 0, 0), 1, 3), Src: full(rF32, 1, 1, 3), Reduce: scatter.ReduceSum}, shapeErr, s13 + " steps 4b, 6"},
		// the reduce's name (step 6, in meta) before the index values (step 7, in the kernel)
		{reduceName, indexValue, scatter.ScatterReduce{Self: z(rF32, 3), Index: i64(5), Src: f32(1), Reduce: scatter.ReduceAdd}, nameErr, s13 + " steps 6, 7"},
		{reduceName, indexValue, scatter.Scatter{Self: z(rF32, 3), Index: i64(-1), Src: f32(1), Reduce: scatter.ReduceSum}, nameErr, s13 + " steps 6, 7"},
		// the shape check (step 4) before the index values (step 7)
		{size, indexValue, scatter.ScatterAdd{Self: z(rF32, 2, 2), Index: shape(i64(7, 0, 0), 1, 3), Src: full(rF32, 1, 1, 3)}, shapeErr, s13 + " steps 4b, 7"},
		{rank, indexValue, scatter.Scatter{Self: z(rF32, 3), Index: shape(i64(3), 1, 1), Value: scatter.Ptr(scatter.Float(2))}, shapeErr, s13 + " steps 4a, 7"},
		// index_reduce: the reduce's name (step 1) before dim (step 2)
		{reduceName, dim, scatter.IndexReduce{Self: z(rF32, 3), Dim: 5, Index: i64(0), Source: f32(1), Reduce: scatter.ReduceSum}, nameErr, s61 + " steps 1, 2"},
		// dim (step 2) before the index's rank (step 3)
		{dim, vector, scatter.IndexReduce{Self: z(rF32, 3), Dim: 5, Index: shape(i64(0), 1, 1), Source: f32(1), Reduce: scatter.ReduceProd}, dimErr, s61 + " steps 2, 3"},
		// the index's rank (step 3) before its dtype (step 4)
		{vector, indexDType, scatter.IndexReduce{Self: z(rF32, 3), Index: row(0), Source: f32(1), Reduce: scatter.ReduceAmax}, shapeErr, s61 + " steps 3, 4"},
		// the index's dtype (step 4) before source's (step 5)
		{indexDType, dtypeMis, scatter.IndexReduce{Self: z(rF32, 3), Index: i16(0, 1), Source: f64(1, 2), Reduce: scatter.ReduceProd}, idxErr, s61 + " steps 4, 5"},
		// source's dtype (step 5) before the count of indices (step 7)
		{dtypeMis, count, scatter.IndexReduce{Self: z(rF32, 3), Index: i64(0, 1), Source: f64(1, 2, 3), Reduce: scatter.ReduceMean}, dtErr, s61 + " steps 5, 7"},
		// the count of indices (step 7) before their values (step 9)
		{count, indexValue, scatter.IndexReduce{Self: z(rF32, 3), Index: i64(9, 1), Source: f32(1, 2, 3), Reduce: scatter.ReduceAmin, ExcludeSelf: true}, shapeErr, s61 + " steps 7, 9"},
		// gather: the index's dtype before the rank, the rank and sizes before the values
		{indexDType, rank, scatter.Gather{Input: f32(1, 2), Index: shape(i16(0), 1, 1)}, idxErr, s7},
		{indexDType, size, scatter.Gather{Input: shape(f32(1, 2), 1, 2), Dim: 1, Index: shape(i16(0, 0), 2, 1)}, idxErr, s7},
		{size, indexValue, scatter.Gather{Input: shape(f32(1, 2), 1, 2), Dim: 1, Index: shape(i64(4, 0), 2, 1)}, shapeErr, s7},
		// the F# library's Tensor.scatter: the target's shape, then one index
		// per target dimension, before the indices' broadcast to src; the
		// broadcast before the element type's addition; that before the
		// positions (reference/fsharp.go gives the order)
		{fsShape, fsBroadcast, scatter.TensorScatter{Indices: []scatter.Tensor{none, i64(2, 1, 0, 0)}, Shape: []int{-1, 3}, Src: shape(f32(1, 2, 3, 4, 5, 6), 2, 3)}, nameErr, s9},
		{fsCount, fsBroadcast, scatter.TensorScatter{Indices: []scatter.Tensor{i64(2, 1, 0, 0)}, Shape: []int{4, 3}, Src: shape(f32(1, 2, 3, 4, 5, 6), 2, 3)}, nameErr, s9},
		{fsBroadcast, fsAddition, scatter.TensorScatter{Indices: []scatter.Tensor{i64(0, 1, 0)}, Shape: []int{2}, Src: bools(true, false)}, shapeErr, s9},
		{fsAddition, fsPosition, scatter.TensorScatter{Indices: []scatter.Tensor{i64(0, 5)}, Shape: []int{2}, Src: bools(true, false)}, scatter.ErrUnsupportedDType, s9},
		// its Tensor.gather: the indices' common broadcast before one index
		// per src dimension
		{fsBroadcast, fsCount, scatter.TensorGather{Indices: []scatter.Tensor{i64(1, 2), i64(3, 1, 0), i64(0)}, Src: shape(f32(1, 2, 3, 4, 5, 6), 2, 3)}, shapeErr, s9},
	}
	cs := make([]Case, 0, len(entries))
	for _, e := range entries {
		rule := e.first + "-before-" + e.second
		c := fail(e.call, e.want)
		dt := check.DataDTypes(e.call)[0]
		c.Name = fmt.Sprintf("%s/%v/precedence/%s", e.call.Op(), dt, rule)
		c.Labels = []string{string(e.call.Op()), dt.String(), "precedence", rule}
		c.Source = e.source + ": the earlier check's error"
		cs = append(cs, c)
	}
	// scatter_'s scalar value is converted as the kernel first writes it,
	// and each index value checked as the kernel reaches it: the first
	// position decides between an out-of-range index and a value past the
	// dtype's range (torch 2.6.0, PyPI's 2.8.0 and 2.14.1)
	for _, v := range []struct {
		index []int64
		want  scatter.Code
		rule  string
	}{{[]int64{0, 5}, scatter.ErrValueOverflow, "value-overflow-before-a-later-index-value"},
		{[]int64{5, 0}, scatter.ErrIndexOutOfRange, "index-value-before-a-later-value-overflow"}} {
		c := fail(scatter.Scatter{Self: z(scatter.DTInt8, 3), Index: i64(v.index...), Value: scatter.Ptr(scatter.Int(300))}, v.want)
		c.Name = "scatter/int8/precedence/" + v.rule
		c.Labels = []string{string(scatter.OpScatter), "int8", "precedence", v.rule, "scalar-value"}
		c.Source = fmt.Sprintf("zeros(3, int8).scatter_(0, %v, 300): the check at the first index position the kernel reaches; run on torch 2.6.0, 2.8.0 and 2.14.1", v.index)
		c.Profiles = torch2x
		cs = append(cs, c)
	}
	// torch 1.13's index_reduce checks source's shape before an index
	// value, with include_self either way (without self, the index_fill_
	// of identities comes after): a 2-d source for a 1-d self, and a
	// source slice that does not broadcast, with the index -1
	for _, v := range []struct {
		name         string
		self, source scatter.Tensor
	}{{"source-rank", f32(0, 0, 0), shape(f32(5), 1, 1)}, {"source-slice", z(rF32, 3, 2), full(rF32, 1, 1, 3)}} {
		for _, exclude := range []bool{false, true} {
			c := fail(scatter.IndexReduce{Self: v.self, Index: i64(-1), Source: v.source, Reduce: scatter.ReduceProd, ExcludeSelf: exclude}, scatter.ErrShapeMismatch)
			c.Name = fmt.Sprintf("index_reduce/float32/precedence/%s-before-index-value/include_self=%v/torch-1.13", v.name, !exclude)
			c.Labels = []string{string(scatter.OpIndexReduce), "float32", "precedence", v.name + "-before-index-value", "include_self"}
			c.Source = "torch 1.13.1: " + map[string]string{"source-rank": "source.dim() (2) must one or zero for given self.dim() (1)",
				"source-slice": "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"}[v.name] + ", before the index -1 is checked"
			c.Profiles = onlyTorch113
			cs = append(cs, c)
		}
	}
	return cs
}
