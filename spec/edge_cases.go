package spec

import (
	"math"

	"github.com/scatterconf/scatter"
)

// OutOfScope is a verified row of SEMANTICS.md §12 (or of the torch_scatter
// and F# lists after the table) that the suite cannot or does not express as
// a Case, with the reason. Row 0 stands for a row of the lists after the
// table, which have no number; the Reason names it.
type OutOfScope struct {
	Row    int
	Reason string
}

// OutOfScopeRows lists the rows that the edge-case table leaves out;
// DescribeBackend reports each as a skipped entry with its reason.
func OutOfScopeRows() []OutOfScope {
	const complexDT = "complex dtypes are not in the suite's dtype list"
	const relative = "not an operation of the suite (a relative of index_reduce, SEMANTICS.md §6.3)"
	const autograd = "autograd: the suite checks forward results only"
	return []OutOfScope{
		{32, "complex scalar value 1+2j into float32: " + complexDT +
			"; the nearest in-scope variant (1e300 into float32, the same value_overflow) is a Case"},
		{47, "complex32 (ComplexHalf) tensors: " + complexDT},
		{63, "complex64 scatter_reduce mean: " + complexDT},
		{79, "complex64 scatter_reduce amax (unsupported there): " + complexDT},
		{83, "complex scatter_reduce prod: " + complexDT},
		{104, "index_add_ with alpha: " + relative},
		{105, "index_copy_ duplicates: " + relative},
		{106, "index_copy_ int32 index: " + relative},
		{107, "index_fill_ negative index wraps: " + relative},
		{108, "index_fill_ out of bounds: " + relative},
		{116, "scatter src gradient with duplicates: " + autograd},
		{117, "scatter backward with index smaller than src: " + autograd},
		{118, "scatter with reduce= has no derivative: " + autograd},
		{119, "scatter_reduce amax gradient split among ties: " + autograd},
		{0, "F# Tensor: an index value of 2^32 aliases to 0 (unchecked int cast in the host code; " +
			"undefined in the library's CUDA path): an implementation quirk the suite does not require"},
	}
}

// edgeCases returns one Case per verified edge case of SEMANTICS.md §12
// (rows #1–#119 that are in scope, then the extra rows, the torch_scatter
// rows and the F# rows after the table). The §12 rows are PyTorch 1.13
// truth; where torch-2 differs, the 1.13 Case is pinned to Torch113 and a
// second Case carries the torch-2 outcome.
func edgeCases() []Case {
	const (
		F32  = scatter.DTFloat32
		F64  = scatter.DTFloat64
		I64  = scatter.DTInt64
		I32  = scatter.DTInt32
		I8   = scatter.DTInt8
		U8   = scatter.DTUint8
		F16  = scatter.DTFloat16
		BF16 = scatter.DTBFloat16
		B    = scatter.DTBool
	)
	const (
		opS   = scatter.OpScatter
		opSA  = scatter.OpScatterAdd
		opSR  = scatter.OpScatterReduce
		opIR  = scatter.OpIndexReduce
		opG   = scatter.OpGather
		opTS  = scatter.OpTorchScatter
		opTSA = scatter.OpTorchScatterAdd
		opFS  = scatter.OpTensorScatter
		opFG  = scatter.OpTensorGather
		torch = "torch_scatter"
	)
	fillChecked := []scatter.Profile{scatter.Torch113, scatter.Torch26} // before 2.8: a one-element 16-bit fill is checked
	fval := func(v float64) *scatter.Scalar { return scatter.Ptr(scatter.Float(v)) }
	ival := func(v int64) *scatter.Scalar { return scatter.Ptr(scatter.Int(v)) }

	// The docs data of rows #48–#58.
	docsSelf := func() scatter.Tensor { return f32(1, 2, 3, 4) }
	docsIndex := func() scatter.Tensor { return i64(0, 1, 0, 1, 2, 1) }
	docsSrc := func() scatter.Tensor { return f32(1, 2, 3, 4, 5, 6) }
	docs := func(r scatter.Reduce, excl bool) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: docsSelf(), Dim: 0, Index: docsIndex(), Src: docsSrc(), Reduce: r, ExcludeSelf: excl}
	}
	// The index_reduce docs data of rows #90–#92.
	irSource := func() scatter.Tensor { return shape(f32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), 4, 3) }

	// Rows #88 and #89: views that share memory.
	expandedSelf := ecExpand(f32(0), 3)
	aliased := f32(0, 0, 0)
	aliased2 := f32(1, 2, 3)

	// The F# example source (Tensor.fs docstring, Tensor.Sample/Program.fs).
	fsSrc := func() scatter.Tensor {
		return shape(f64(0.0, 0.1, 0.2, 0.3, 1.0, 1.1, 1.2, 1.3, 2.0, 2.1, 2.2, 2.3), 3, 4)
	}

	return append([]Case{
		// ---------------------------------------------------------------
		// scatter_ / scatter_add_ (rows #1–#47)
		{
			Name:   "scatter/src/int64/dim=0/docs-example",
			Labels: ecLabels(opS, I64, "docs"),
			Source: ecRow(1),
			Call: scatter.Scatter{Self: full(I64, 0, 3, 5), Dim: 0,
				Index: shape(i64(0, 1, 2, 0), 1, 4), Src: shape(arange(I64, 1, 10), 2, 5)},
			Want: shape(i64(1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0), 3, 5),
		},
		{
			Name:   "scatter/src/int64/dim=1/index-narrower-than-src",
			Labels: ecLabels(opS, I64, "src-larger-than-index"),
			Source: ecRow(2),
			Call: scatter.Scatter{Self: full(I64, 0, 3, 5), Dim: 1,
				Index: shape(i64(0, 1, 2, 0, 1, 4), 2, 3), Src: shape(arange(I64, 1, 10), 2, 5)},
			Want: shape(i64(1, 2, 3, 0, 0, 6, 7, 0, 0, 8, 0, 0, 0, 0, 0), 3, 5),
		},
		{
			Name:   "scatter/duplicates/float32/one-target/last-wins",
			Labels: ecLabels(opS, F32, "duplicates"),
			Source: ecRow(3) + " (CPU: the last along dim wins; any duplicate's value conforms)",
			Call:   scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(1, 1, 1, 1), Src: f32(1, 2, 3, 4)},
			Want:   f32(0, 4, 0),
			OneOf:  true,
		},
		{
			Name:   "scatter/duplicates/float32/two-targets/last-wins",
			Labels: ecLabels(opS, F32, "duplicates"),
			Source: ecRow(4) + " (CPU: the last along dim wins; any duplicate's value conforms)",
			Call:   scatter.Scatter{Self: full(F32, 0, 2), Dim: 0, Index: i64(0, 1, 1, 0), Src: f32(1, 2, 3, 4)},
			Want:   f32(4, 3),
			OneOf:  true,
		},
		{
			Name:   "scatter/negative-dim/float32/dim=-1",
			Labels: ecLabels(opS, F32, "negative-dim"),
			Source: ecRow(5),
			Call: scatter.Scatter{Self: full(F32, 0, 2, 3), Dim: -1,
				Index: shape(i64(2, 0), 1, 2), Src: shape(f32(5, 6), 1, 2)},
			Want: shape(f32(6, 0, 5, 0, 0, 0), 2, 3),
		},
		{
			Name:   "scatter/index-larger-than-self-along-dim/float32",
			Labels: ecLabels(opS, F32, "shape-rule", "duplicates"),
			Source: ecRow(6) + " (index 0 is written twice: CPU's last writer; any duplicate's value conforms)",
			Call: scatter.Scatter{Self: full(F32, 0, 2, 2), Dim: 0,
				Index: shape(i64(0, 1, 0), 3, 1), Src: shape(f32(1, 2, 3), 3, 1)},
			Want:  shape(f32(3, 0, 2, 0), 2, 2),
			OneOf: true,
		},
		{
			Name:   "scatter/src-larger-than-index/float32/extra-src-ignored",
			Labels: ecLabels(opS, F32, "src-larger-than-index"),
			Source: ecRow(7),
			Call:   scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(2, 0), Src: f32(1, 2, 3, 4)},
			Want:   f32(2, 0, 1),
		},
		{
			Name:   "scatter_add/no-broadcast/float32/index-smaller-than-src-in-non-dim",
			Labels: ecLabels(opSA, F32, "no-broadcast", "src-larger-than-index"),
			Source: ecRow(8),
			Call: scatter.ScatterAdd{Self: full(F32, 0, 2, 3), Dim: 1,
				Index: shape(i64(0, 2), 2, 1), Src: shape(f32(1, 9, 2, 9, 7, 7), 3, 2)},
			Want: shape(f32(1, 0, 0, 0, 0, 2), 2, 3),
		},
		{
			Name:   "scatter/shape-rule/float32/index-larger-than-src",
			Labels: ecLabels(opS, F32, "shape-rule"),
			Source: ecRow(9),
			Call: scatter.Scatter{Self: full(F32, 0, 3, 5), Dim: 0,
				Index: shape(i64(0, 1, 2, 0, 1, 2), 1, 6), Src: shape(arange(F32, 1, 10), 2, 5)},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:   "scatter/shape-rule/float32/index-larger-than-self-in-non-dim",
			Labels: ecLabels(opS, F32, "shape-rule"),
			Source: ecRow(10),
			Call: scatter.Scatter{Self: full(F32, 0, 3, 2), Dim: 0,
				Index: full(I64, 0, 1, 3), Src: full(F32, 1, 2, 3)},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:    "scatter/shape-rule/float32/index-rank-differs-from-self",
			Labels:  ecLabels(opS, F32, "shape-rule"),
			Source:  ecRow(11),
			Call:    scatter.Scatter{Self: full(F32, 0, 3, 5), Dim: 0, Index: i64(0, 1), Src: full(F32, 1, 2)},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:    "scatter/shape-rule/float32/src-rank-greater-than-index",
			Labels:  ecLabels(opS, F32, "shape-rule"),
			Source:  ecRow(12),
			Call:    scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(0, 1), Src: full(F32, 1, 2, 1)},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:   "scatter/shape-rule/float32/src-rank-less-than-index/dim-error-quirk",
			Labels: ecLabels(opS, F32, "shape-rule", "dim-range"),
			Source: ecRow(13) + " (IndexError: Dimension out of range, raised by reading src.size(1) before src's rank is checked)",
			Call: scatter.Scatter{Self: full(F32, 0, 4, 1), Dim: 0,
				Index: full(I64, 0, 3, 1), Src: full(F32, 1, 3)},
			WantErr: scatter.ErrDimOutOfRange,
		},
		{
			Name:     "scatter/index-dtype/float32/int32-rejected",
			Labels:   ecLabels(opS, F32, "index-dtype", "int32-index"),
			Source:   ecRow(14),
			Call:     scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i32(0, 1), Src: full(F32, 1, 2)},
			WantErr:  scatter.ErrIndexDType,
			Profiles: before28,
		},
		{
			Name:     "scatter/index-dtype/float32/int32-accepted",
			Labels:   ecLabels(opS, F32, "index-dtype", "int32-index"),
			Source:   ecRow(14) + " under torch ≥ 2.8 (int32 indices accepted, SEMANTICS.md §1.3 step 2)",
			Call:     scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i32(0, 1), Src: full(F32, 1, 2)},
			Want:     f32(1, 1, 0),
			Profiles: from28,
		},
		{
			Name:   "scatter/empty-index/float32/float-index-no-checks",
			Labels: ecLabels(opS, F32, "empty-index", "index-dtype"),
			Source: ecRow(15),
			Call:   scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: f32(), Src: full(F32, 1, 2)},
			Want:   f32(0, 0, 0),
		},
		{
			Name:   "scatter_add/empty-index/float32/bogus-shape-no-op",
			Labels: ecLabels(opSA, F32, "empty-index", "shape-rule"),
			Source: ecRow(16),
			Call:   scatter.ScatterAdd{Self: full(F32, 0, 3), Dim: 0, Index: full(I64, 0, 0, 2, 2), Src: full(F32, 1, 1)},
			Want:   f32(0, 0, 0),
		},
		{
			Name:    "scatter/empty-index/float32/src-dtype-still-checked",
			Labels:  ecLabels(opS, F32, "empty-index", "dtype-mismatch"),
			Source:  ecRow(17),
			Call:    scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(), Src: full(F64, 1, 2)},
			WantErr: scatter.ErrDTypeMismatch,
		},
		{
			Name:    "scatter/empty-index/float32/dim-still-checked",
			Labels:  ecLabels(opS, F32, "empty-index", "dim-range"),
			Source:  ecRow(18),
			Call:    scatter.Scatter{Self: full(F32, 0, 3), Dim: 5, Index: i64(), Src: full(F32, 1, 1)},
			WantErr: scatter.ErrDimOutOfRange,
		},
		{
			Name:    "scatter/dtype-mismatch/float32/src-float64-no-promotion",
			Labels:  ecLabels(opS, F32, "dtype-mismatch"),
			Source:  ecRow(19),
			Call:    scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(0, 1), Src: full(F64, 1, 2)},
			WantErr: scatter.ErrDTypeMismatch,
		},
		{
			Name:    "scatter/out-of-bounds/float32/index-equals-size",
			Labels:  ecLabels(opS, F32, "out-of-bounds"),
			Source:  ecRow(20),
			Call:    scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(3), Src: full(F32, 1, 1)},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:    "scatter/out-of-bounds/float32/negative-index-not-wrapped",
			Labels:  ecLabels(opS, F32, "out-of-bounds", "negative-index"),
			Source:  ecRow(21),
			Call:    scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(-1), Src: full(F32, 1, 1)},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:   "scatter/dim-range/float32/dim=2-of-2d",
			Labels: ecLabels(opS, F32, "dim-range"),
			Source: ecRow(22),
			Call: scatter.Scatter{Self: full(F32, 0, 2, 3), Dim: 2,
				Index: shape(i64(2, 0), 1, 2), Src: shape(f32(5, 6), 1, 2)},
			WantErr: scatter.ErrDimOutOfRange,
		},
		{
			Name:   "scatter/0-d/float32/all-0-d",
			Labels: ecLabels(opS, F32, "0-d"),
			Source: ecRow(23),
			Call:   scatter.Scatter{Self: shape(f32(5)), Dim: 0, Index: shape(i64(0)), Src: shape(f32(7))},
			Want:   shape(f32(7)),
		},
		{
			Name:   "scatter/0-d/float32/0-d-self-1-d-index-and-src",
			Labels: ecLabels(opS, F32, "0-d"),
			Source: ecRow(24),
			Call:   scatter.Scatter{Self: shape(f32(5)), Dim: 0, Index: i64(0), Src: f32(7)},
			Want:   shape(f32(7)),
		},
		{
			Name:   "scatter_add/0-d/float32/0-d-self-two-contributions",
			Labels: ecLabels(opSA, F32, "0-d", "duplicates"),
			Source: ecRow(25),
			Call:   scatter.ScatterAdd{Self: shape(f32(2)), Dim: 0, Index: i64(0, 0), Src: f32(5, 6)},
			Want:   shape(f32(13)),
		},
		{
			Name:    "scatter/0-d/float32/dim=1-out-of-range",
			Labels:  ecLabels(opS, F32, "0-d", "dim-range"),
			Source:  ecRow(26),
			Call:    scatter.Scatter{Self: shape(f32(5)), Dim: 1, Index: shape(i64(0)), Src: shape(f32(7))},
			WantErr: scatter.ErrDimOutOfRange,
		},
		{
			Name:    "scatter_add/0-d/float32/0-d-src-two-element-index",
			Labels:  ecLabels(opSA, F32, "0-d", "shape-rule"),
			Source:  ecRow(27),
			Call:    scatter.ScatterAdd{Self: full(F32, 0, 3), Dim: 0, Index: i64(0, 0), Src: shape(f32(5))},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:   "scatter_add/out-of-bounds/float32/zero-size-self-dim",
			Labels: ecLabels(opSA, F32, "out-of-bounds", "zero-size"),
			Source: ecRow(28),
			Call: scatter.ScatterAdd{Self: full(F32, 0, 0, 3), Dim: 0,
				Index: full(I64, 0, 1, 3), Src: full(F32, 1, 1, 3)},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:   "scatter/scalar-value/float32/1.23",
			Labels: ecLabels(opS, F32, "scalar-value", "docs"),
			Source: ecRow(29),
			Call: scatter.Scatter{Self: full(F32, 0, 2, 4), Dim: 1,
				Index: shape(i64(1, 2, 0, 3), 2, 2), Value: fval(1.23)},
			Want: shape(f32(0, 1.23, 1.23, 0, 1.23, 0, 0, 1.23), 2, 4),
		},
		{
			Name:   "scatter/scalar-value/float32/minus-zero-keeps-its-sign",
			Labels: ecLabels(opS, F32, "scalar-value"),
			Source: "Scalar::to<float>() keeps the sign of -0.0; torch 2.14.1: torch.zeros(2).scatter_(0, tensor([1]), -0.0) is [0.0, -0.0]",
			Call:   scatter.Scatter{Self: f32(0, 0), Index: i64(1), Value: fval(negz)},
			Want:   f32(0, float32(negz)),
		},
		{
			Name:   "scatter/scalar-value/float32/reduce=add/minus-zero-onto-minus-zero",
			Labels: ecLabels(opS, F32, "scalar-value", "deprecated-reduce"),
			Source: "-0.0 + -0.0 is -0.0; torch 2.14.1: tensor([-0.0, 5.]).scatter_(0, tensor([0]), -0.0, reduce='add') is [-0.0, 5.0]",
			Call:   scatter.Scatter{Self: f32(float32(negz), 5), Index: i64(0), Value: fval(negz), Reduce: scatter.ReduceAdd},
			Want:   f32(float32(negz), 5),
		},
		{
			Name:   "scatter/scalar-value/int32/float-truncates-toward-zero",
			Labels: ecLabels(opS, I32, "scalar-value"),
			Source: ecRow(30),
			Call:   scatter.Scatter{Self: full(I32, 0, 3), Dim: 0, Index: i64(0), Value: fval(-2.7)},
			Want:   i32(-2, 0, 0),
		},
		{
			Name:    "scatter/scalar-value/uint8/300-overflows",
			Labels:  ecLabels(opS, U8, "scalar-value", "overflow"),
			Source:  ecRow(31),
			Call:    scatter.Scatter{Self: full(U8, 0, 3), Dim: 0, Index: i64(0), Value: ival(300)},
			WantErr: scatter.ErrValueOverflow,
		},
		{
			Name:   "scatter/scalar-value/float32/1e300-overflows",
			Labels: ecLabels(opS, F32, "scalar-value", "overflow"),
			Source: ecRow(32) + ", nearest in-scope variant: the complex value 1+2j is out of scope; " +
				"a finite float beyond float32's range gives the same error (value cannot be converted to type float without overflow), checked on torch 1.13",
			Call:    scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(0), Value: fval(1e300)},
			WantErr: scatter.ErrValueOverflow,
		},
		{
			Name:     "scatter/scalar-value/uint8/255.5-overflows",
			Labels:   ecLabels(opS, U8, "scalar-value", "overflow"),
			Source:   "c10's checked conversion of a float into uint8 takes lowest <= v <= max (torch 1.13 and 2.6: 255.5 raises)",
			Call:     scatter.Scatter{Self: full(U8, 0, 2), Dim: 0, Index: i64(1), Value: fval(255.5)},
			WantErr:  scatter.ErrValueOverflow,
			Profiles: before214,
		},
		{
			Name:     "scatter/scalar-value/uint8/255.5-truncates",
			Labels:   ecLabels(opS, U8, "scalar-value", "overflow"),
			Source:   "torch 2.14 takes lowest <= v < max+1 and truncates: uint8 255.5 gives 255 (256.0 and -0.5 still raise)",
			Call:     scatter.Scatter{Self: full(U8, 0, 2), Dim: 0, Index: i64(1), Value: fval(255.5)},
			Want:     u8(0, 255),
			Profiles: from214,
		},
		{
			Name:     "scatter/scalar-value/int64/2^63-wraps",
			Labels:   ecLabels(opS, I64, "scalar-value", "overflow"),
			Source:   "torch 1.13 and 2.6: the float 2^63 equals int64's max as a double, passes the check and converts to -2^63",
			Call:     scatter.Scatter{Self: full(I64, 0, 2), Dim: 0, Index: i64(1), Value: fval(9223372036854775808.0)},
			Want:     i64(0, -9223372036854775808),
			Profiles: before214,
		},
		{
			Name:     "scatter/scalar-value/int64/2^63-overflows",
			Labels:   ecLabels(opS, I64, "scalar-value", "overflow"),
			Source:   "torch 2.14: the float 2^63 is not below int64's max+1: value cannot be converted to type int64_t without overflow",
			Call:     scatter.Scatter{Self: full(I64, 0, 2), Dim: 0, Index: i64(1), Value: fval(9223372036854775808.0)},
			WantErr:  scatter.ErrValueOverflow,
			Profiles: from214,
		},
		{
			Name:   "index_reduce/mean/bfloat16/middle-dim-count-per-step",
			Labels: ecLabels(opIR, BF16, "mean", "include_self", "duplicates", "rounding"),
			Source: "the count of index_reduce's mean along a middle dimension is kept in bfloat16 and sticks at 256 " +
				"(1 + 299 contributions: 1000/256 = 3.90625) in every version (checked on torch 1.13, 2.6 and 2.14)",
			Call: scatter.IndexReduce{Self: full(BF16, 0, 1, 1, 1), Dim: 1, Index: full(I64, 0, 299),
				Source: bf16Source(1000, 1, 299, 1), Reduce: scatter.ReduceMean},
			Want: shape(bf16(3.90625), 1, 1, 1),
		},
		{
			Name:   "index_reduce/mean/bfloat16/first-dim-count-exact",
			Labels: ecLabels(opIR, BF16, "mean", "include_self", "duplicates", "rounding"),
			Source: "torch 2.6 and 2.14 count index_reduce's mean exactly, with an int64 index, along the first dimension of a multi-dimensional self: 1000/300 rounds to 3.328125",
			Call: scatter.IndexReduce{Self: full(BF16, 0, 1, 1), Dim: 0, Index: full(I64, 0, 299),
				Source: bf16Source(1000, 299, 1), Reduce: scatter.ReduceMean},
			Want:     shape(bf16(3.328125), 1, 1),
			Profiles: torch2x,
		},
		{
			Name:   "index_reduce/mean/bfloat16/int32-index-count-per-step",
			Labels: ecLabels(opIR, BF16, "mean", "include_self", "duplicates", "rounding", "int32-index"),
			Source: "with an int32 index index_reduce's mean counts in bfloat16 along every dimension, in every version: the count sticks at 256, 1000/256 = 3.90625",
			Call: scatter.IndexReduce{Self: full(BF16, 0, 1, 1), Dim: 0, Index: full(I32, 0, 299),
				Source: bf16Source(1000, 299, 1), Reduce: scatter.ReduceMean},
			Want: shape(bf16(3.90625), 1, 1),
		},
		{
			Name:     "index_reduce/mean/bfloat16/first-dim-count-per-step",
			Labels:   ecLabels(opIR, BF16, "mean", "include_self", "duplicates", "rounding"),
			Source:   "torch 1.13 counts index_reduce's mean in bfloat16 along every dimension: the count sticks at 256, 1000/256 = 3.90625",
			Call:     scatter.IndexReduce{Self: full(BF16, 0, 1, 1), Dim: 0, Index: full(I64, 0, 299), Source: bf16Source(1000, 299, 1), Reduce: scatter.ReduceMean},
			Want:     shape(bf16(3.90625), 1, 1),
			Profiles: onlyTorch113,
		},
		{
			Name:   "scatter/scalar-value/bfloat16/rounds-through-float32",
			Labels: ecLabels(opS, BF16, "scalar-value", "rounding"),
			Source: "c10::BFloat16 is built from a float: the double 1 + 2^-8 + 2^-30 rounds to the float 1 + 2^-8, a tie, then to even, 1.0 " +
				"(rounding the double once would give 1.0078125); checked on torch 1.13, 2.6 and 2.14",
			Call: scatter.Scatter{Self: full(BF16, 0, 2), Dim: 0, Index: i64(1), Value: fval(1 + 1.0/256 + 1.0/(1<<30))},
			Want: bf16(0, 1),
		},
		{
			Name:   "scatter/scalar-value/float16/rounds-through-float32",
			Labels: ecLabels(opS, F16, "scalar-value", "rounding"),
			Source: "c10::Half is built from a float: the double 1 + 2^-11 + 2^-30 rounds to the float 1 + 2^-11, a tie, then to even, 1.0; checked on torch 1.13, 2.6 and 2.14",
			Call:   scatter.Scatter{Self: full(F16, 0, 2), Dim: 0, Index: i64(1), Value: fval(1 + 1.0/2048 + 1.0/(1<<30))},
			Want:   f16(0, 1),
		},
		{
			Name:     "torch_scatter.scatter_add/fill-value/float16/65520-overflows",
			Labels:   ecLabels(opTSA, F16, "fill-value", "overflow"),
			Source:   "new_full() checks the fill value against float16's range: value cannot be converted to type at::Half without overflow (torch 1.13 and 2.6; 2.14 for outputs of 0 or 2 and more elements)",
			Call:     scatter.TorchScatterAdd{Src: f16(1, 2), Index: i64(0, 0), FillValue: scatter.Float(65520)},
			WantErr:  scatter.ErrValueOverflow,
			Profiles: fillChecked,
		},
		{
			Name:     "torch_scatter.scatter_add/fill-value/float16/65520-rounds-to-inf",
			Labels:   ecLabels(opTSA, F16, "fill-value", "overflow"),
			Source:   "torch 2.14's new_full() of one float16 element converts the fill value unchecked: 65520 rounds to inf (65519 to 65504); with two elements it raises",
			Call:     scatter.TorchScatterAdd{Src: f16(1, 2), Index: i64(0, 0), FillValue: scatter.Float(65520)},
			Want:     f16(math.Inf(1)),
			Profiles: from28,
		},
		{
			Name:     "torch_scatter.scatter_add/fill-value/float16/65520-two-elements-overflows",
			Labels:   ecLabels(opTSA, F16, "fill-value", "overflow"),
			Source:   "torch 2.14's new_full() of two float16 elements checks the fill value: value cannot be converted to type c10::Half without overflow",
			Call:     scatter.TorchScatterAdd{Src: f16(1, 2), Index: i64(0, 1), FillValue: scatter.Float(65520)},
			WantErr:  scatter.ErrValueOverflow,
			Profiles: from28,
		},
		{
			Name:   "torch_scatter.scatter_add/fill-value/int64/float-truncates-toward-zero",
			Labels: ecLabels(opTSA, I64, "fill-value", "scalar-conversion"),
			Source: "new_full() converts a float fill value into an integer output by truncation toward zero: -1.7 fills -1 (checked on torch 1.13, 2.6 and 2.14)",
			Call:   scatter.TorchScatterAdd{Src: i64(1, 2), Index: i64(0, 2), FillValue: scatter.Float(-1.7)},
			Want:   i64(0, -1, 1),
		},
		{
			Name:   "torch_scatter.scatter_add/fill-value/uint8/float-truncates",
			Labels: ecLabels(opTSA, U8, "fill-value", "scalar-conversion"),
			Source: "new_full() converts a float fill value into an integer output by truncation: 2.9 fills 2 (checked on torch 1.13, 2.6 and 2.14)",
			Call:   scatter.TorchScatterAdd{Src: u8(1, 2), Index: i64(0, 2), FillValue: scatter.Float(2.9)},
			Want:   u8(3, 2, 4),
		},
		{
			Name:   "scatter/scalar-value/bool/0.5-is-true",
			Labels: ecLabels(opS, B, "scalar-value", "scalar-conversion"),
			Source: "a scalar value converts to bool as value != 0: 0.5 is True (checked on torch 1.13, 2.6 and 2.14)",
			Call:   scatter.Scatter{Self: full(B, 0, 3), Dim: 0, Index: i64(1), Value: fval(0.5)},
			Want:   bools(false, true, false),
		},
		{
			Name:   "scatter/scalar-value/bool/-0.25-is-true",
			Labels: ecLabels(opS, B, "scalar-value", "scalar-conversion"),
			Source: "a scalar value converts to bool as value != 0: -0.25 is True (checked on torch 1.13, 2.6 and 2.14)",
			Call:   scatter.Scatter{Self: full(B, 0, 3), Dim: 0, Index: i64(2), Value: fval(-0.25)},
			Want:   bools(false, false, true),
		},
		{
			Name:    "scatter/dtype-mismatch/float32/0-d-float64-tensor-value-is-src",
			Labels:  ecLabels(opS, F32, "dtype-mismatch", "0-d"),
			Source:  ecRow(33) + " (a 0-d tensor binds to the src overload)",
			Call:    scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(0), Src: shape(f64(5))},
			WantErr: scatter.ErrDTypeMismatch,
		},
		{
			Name:   "scatter/scalar-value/int64/index-longer-than-self",
			Labels: ecLabels(opS, I64, "scalar-value", "shape-rule", "duplicates"),
			Source: ecRow(34),
			Call: scatter.Scatter{Self: arange(I64, 0, 10), Dim: 0,
				Index: i64(4, 2, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), Value: ival(0)},
			Want: i64(0, 0, 0, 3, 0, 5, 6, 7, 0, 9),
		},
		{
			Name:   "scatter/reduce=add/float32/tensor-src",
			Labels: ecLabels(opS, F32, "deprecated-reduce"),
			Source: ecRow(35),
			Call: scatter.Scatter{Self: full(F32, 1, 2, 4), Dim: 1,
				Index: shape(i64(2, 3), 2, 1), Src: full(F32, 2, 2, 1), Reduce: scatter.ReduceAdd},
			Want: shape(f32(1, 1, 3, 1, 1, 1, 1, 3), 2, 4),
		},
		{
			Name:   "scatter/reduce=multiply/float32/tensor-src",
			Labels: ecLabels(opS, F32, "deprecated-reduce"),
			Source: ecRow(36),
			Call: scatter.Scatter{Self: full(F32, 2, 2, 4), Dim: 1,
				Index: shape(i64(2, 3), 2, 1), Src: full(F32, 1.23, 2, 1), Reduce: scatter.ReduceMultiply},
			Want: shape(f32(2, 2, ecMul32(2, 1.23), 2, 2, 2, 2, ecMul32(2, 1.23)), 2, 4),
		},
		{
			Name:   "scatter/reduce=add/float32/scalar-value-duplicates-accumulate",
			Labels: ecLabels(opS, F32, "deprecated-reduce", "scalar-value", "duplicates"),
			Source: ecRow(37),
			Call: scatter.Scatter{Self: full(F32, 1, 2, 4), Dim: 1,
				Index: shape(i64(2, 2, 3, 3), 2, 2), Value: fval(1.5), Reduce: scatter.ReduceAdd},
			Want: shape(f32(1, 1, 4, 1, 1, 1, 1, 4), 2, 4),
		},
		{
			Name:   "scatter/reduce=multiply/int64/scalar-2.5-cast-to-2-first",
			Labels: ecLabels(opS, I64, "deprecated-reduce", "scalar-value", "duplicates"),
			Source: ecRow(38),
			Call: scatter.Scatter{Self: full(I64, 3, 3), Dim: 0,
				Index: i64(0, 0), Value: fval(2.5), Reduce: scatter.ReduceMultiply},
			Want: i64(12, 3, 3),
		},
		{
			Name:   "scatter/reduce=add/int64/scalar-2.5-cast-to-2-first",
			Labels: ecLabels(opS, I64, "deprecated-reduce", "scalar-value", "duplicates"),
			Source: ecRow(39),
			Call: scatter.Scatter{Self: full(I64, 3, 3), Dim: 0,
				Index: i64(0, 0), Value: fval(2.5), Reduce: scatter.ReduceAdd},
			Want: i64(7, 3, 3),
		},
		{
			Name:   "scatter/invalid-reduce/float32/sum-rejected",
			Labels: ecLabels(opS, F32, "deprecated-reduce", "invalid-reduce"),
			Source: ecRow(40),
			Call: scatter.Scatter{Self: full(F32, 1, 3), Dim: 0,
				Index: i64(0), Src: full(F32, 1, 1), Reduce: scatter.ReduceSum},
			WantErr: scatter.ErrInvalidArgument,
		},
		{
			Name:   "scatter/invalid-reduce/float32/bogus-with-empty-index",
			Labels: ecLabels(opS, F32, "deprecated-reduce", "invalid-reduce", "empty-index"),
			Source: ecRow(41),
			Call: scatter.Scatter{Self: full(F32, 1, 2), Dim: 0,
				Index: i64(), Src: f32(), Reduce: scatter.Reduce("bogus")},
			WantErr: scatter.ErrInvalidArgument,
		},
		{
			Name:   "scatter_add/docs-example/float32",
			Labels: ecLabels(opSA, F32, "docs", "duplicates"),
			Source: ecRow(42),
			Call: scatter.ScatterAdd{Self: full(F32, 0, 3, 5), Dim: 0,
				Index: shape(i64(0, 1, 2, 0, 0, 0, 1, 2, 2, 2), 2, 5), Src: full(F32, 1, 2, 5)},
			Want: shape(f32(2, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 1), 3, 5),
		},
		{
			Name:   "scatter_add/logical-or/bool/duplicates",
			Labels: ecLabels(opSA, B, "bool", "duplicates"),
			Source: ecRow(43),
			Call:   scatter.ScatterAdd{Self: bools(false, true), Dim: 0, Index: i64(0, 0), Src: bools(true, true)},
			Want:   bools(true, true),
		},
		{
			Name:   "scatter_add/overflow/int8/wraps",
			Labels: ecLabels(opSA, I8, "overflow", "duplicates"),
			Source: ecRow(44),
			Call:   scatter.ScatterAdd{Self: i8(120), Dim: 0, Index: i64(0, 0), Src: i8(5, 5)},
			Want:   i8(-126),
		},
		{
			Name:   "scatter_add/16-bit/float16/per-step-rounding",
			Labels: ecLabels(opSA, F16, "16-bit", "rounding", "duplicates"),
			Source: ecRow(45) + " (1.13: every += rounds to float16, 2048+1 = 2048)",
			Call: scatter.ScatterAdd{Self: f16(2048), Dim: 0,
				Index: full(I64, 0, 10), Src: full(F16, 1, 10)},
			Want:     f16(2048),
			Profiles: onlyTorch113,
		},
		{
			Name:   "scatter_add/16-bit/float16/float32-accumulation",
			Labels: ecLabels(opSA, F16, "16-bit", "rounding", "duplicates"),
			Source: ecRow(45) + " under torch ≥ 2.1 (float32 accumulation buffer, one rounding: 2058, SEMANTICS.md §5.1)",
			Call: scatter.ScatterAdd{Self: f16(2048), Dim: 0,
				Index: full(I64, 0, 10), Src: full(F16, 1, 10)},
			Want:     f16(2048 + 10),
			Profiles: torch2x,
		},
		{
			Name:   "scatter_add/16-bit/bfloat16/per-step-rounding",
			Labels: ecLabels(opSA, BF16, "16-bit", "rounding", "duplicates"),
			Source: ecRow(46) + " (1.13: every += rounds to bfloat16, 256+1 = 256)",
			Call: scatter.ScatterAdd{Self: bf16(256), Dim: 0,
				Index: full(I64, 0, 10), Src: full(BF16, 1, 10)},
			Want:     bf16(256),
			Profiles: onlyTorch113,
		},
		{
			Name:   "scatter_add/16-bit/bfloat16/float32-accumulation",
			Labels: ecLabels(opSA, BF16, "16-bit", "rounding", "duplicates"),
			Source: ecRow(46) + " under torch ≥ 2.1 (float32 accumulation buffer, one rounding: 266 is a bfloat16, SEMANTICS.md §5.1)",
			Call: scatter.ScatterAdd{Self: bf16(256), Dim: 0,
				Index: full(I64, 0, 10), Src: full(BF16, 1, 10)},
			Want:     bf16(256 + 10),
			Profiles: torch2x,
		},

		// ---------------------------------------------------------------
		// scatter_reduce (rows #48–#86)
		{
			Name:   "scatter_reduce/sum/float32/include_self=true/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(48),
			Call:   docs(scatter.ReduceSum, false),
			Want:   f32(5, 14, 8, 4),
		},
		{
			Name:   "scatter_reduce/sum/float32/include_self=false/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(49),
			Call:   docs(scatter.ReduceSum, true),
			Want:   f32(4, 12, 5, 4),
		},
		{
			Name:   "scatter_reduce/prod/float32/include_self=true/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(50),
			Call:   docs(scatter.ReduceProd, false),
			Want:   f32(3, 96, 15, 4),
		},
		{
			Name:   "scatter_reduce/prod/float32/include_self=false/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(51),
			Call:   docs(scatter.ReduceProd, true),
			Want:   f32(3, 48, 5, 4),
		},
		{
			Name:   "scatter_reduce/mean/float32/include_self=true/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates", "mean"),
			Source: ecRow(52),
			Call:   docs(scatter.ReduceMean, false),
			Want:   f32(ecDiv32(5, 3), ecDiv32(14, 4), ecDiv32(8, 2), 4),
		},
		{
			Name:   "scatter_reduce/mean/float32/include_self=false/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates", "mean"),
			Source: ecRow(53),
			Call:   docs(scatter.ReduceMean, true),
			Want:   f32(ecDiv32(4, 2), ecDiv32(12, 3), 5, 4),
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=true/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(54),
			Call:   docs(scatter.ReduceAmax, false),
			Want:   f32(3, 6, 5, 4),
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=false/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(55),
			Call:   docs(scatter.ReduceAmax, true),
			Want:   f32(3, 6, 5, 4),
		},
		{
			Name:   "scatter_reduce/amin/float32/include_self=true/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(56),
			Call:   docs(scatter.ReduceAmin, false),
			Want:   f32(1, 2, 3, 4),
		},
		{
			Name:   "scatter_reduce/amin/float32/include_self=false/docs-data",
			Labels: ecLabels(opSR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(57),
			Call:   docs(scatter.ReduceAmin, true),
			Want:   f32(1, 2, 5, 4),
		},
		{
			Name:    "scatter_reduce/invalid-reduce/float32/add-rejected",
			Labels:  ecLabels(opSR, F32, "invalid-reduce"),
			Source:  ecRow(58),
			Call:    docs(scatter.ReduceAdd, false),
			WantErr: scatter.ErrInvalidArgument,
		},
		{
			Name:   "scatter_reduce/mean/float32/include_self=true/self-counted-once",
			Labels: ecLabels(opSR, F32, "mean", "include_self", "duplicates"),
			Source: ecRow(59),
			Call:   scatter.ScatterReduce{Self: f32(10), Dim: 0, Index: i64(0, 0), Src: f32(1, 2), Reduce: scatter.ReduceMean},
			Want:   f32(ecDiv32(13, 3)),
		},
		{
			Name:   "scatter_reduce/mean/int64/floor-not-trunc",
			Labels: ecLabels(opSR, I64, "mean", "floor-division", "include_self"),
			Source: ecRow(60),
			Call:   scatter.ScatterReduce{Self: i64(-10), Dim: 0, Index: i64(0, 0), Src: i64(1, 2), Reduce: scatter.ReduceMean},
			Want:   i64(-3),
		},
		{
			Name:   "scatter_reduce/mean/int64/include_self=false/floor-of-minus-3.5",
			Labels: ecLabels(opSR, I64, "mean", "floor-division", "include_self"),
			Source: ecRow(61),
			Call: scatter.ScatterReduce{Self: i64(0, 0), Dim: 0, Index: i64(0, 0, 1, 1),
				Src: i64(-3, -4, 3, 4), Reduce: scatter.ReduceMean, ExcludeSelf: true},
			Want: i64(-4, 3),
		},
		{
			Name:   "scatter_reduce/mean/float32/include_self=false/untouched-unchanged",
			Labels: ecLabels(opSR, F32, "mean", "include_self", "untouched"),
			Source: ecRow(62),
			Call: scatter.ScatterReduce{Self: full(F32, 0, 2, 3), Dim: 1,
				Index: shape(i64(0, 0, 2, 1, 1, 1), 2, 3), Src: shape(f32(1, 2, 3, 4, 5, 6), 2, 3),
				Reduce: scatter.ReduceMean, ExcludeSelf: true},
			Want: shape(f32(1.5, 0, 3, 0, 5, 0), 2, 3),
		},
		{
			Name:   "scatter_reduce/mean/bool/empty-index-still-unsupported",
			Labels: ecLabels(opSR, B, "mean", "bool", "empty-index", "unsupported-dtype"),
			Source: ecRow(64) + " (the mean post-pass's floor division runs even for an empty index)",
			Call: scatter.ScatterReduce{Self: bools(true), Dim: 0, Index: i64(), Src: bools(),
				Reduce: scatter.ReduceMean},
			WantErr: scatter.ErrUnsupportedDType,
		},
		{
			Name:   "scatter_reduce/mean/uint8/sum-wraps-mod-256",
			Labels: ecLabels(opSR, U8, "mean", "overflow", "floor-division"),
			Source: ecRow(65) + " ((250+250+250) mod 256 = 238, 238//3 = 79)",
			Call: scatter.ScatterReduce{Self: u8(250), Dim: 0, Index: full(I64, 0, 2),
				Src: u8(250, 250), Reduce: scatter.ReduceMean},
			Want: u8(79),
		},
		{
			Name:   "scatter_reduce/mean/uint8/include_self=false/256-contributions",
			Labels: ecLabels(opSR, U8, "mean", "overflow", "count-dtype"),
			Source: ecRow(66) + " (the sum of 256 ones wraps to 0; 1.13's uint8 count wraps 256 -> 0 -> 1; an exact count gives 0 as well)",
			Call: scatter.ScatterReduce{Self: full(U8, 0, 1), Dim: 0, Index: full(I64, 0, 256),
				Src: full(U8, 1, 256), Reduce: scatter.ReduceMean, ExcludeSelf: true},
			Want: u8(0),
		},
		{
			Name:   "scatter_reduce/mean/int8/include_self=false/count-129-wraps",
			Labels: ecLabels(opSR, I8, "mean", "overflow", "count-dtype", "floor-division"),
			Source: ecRow(67) + " (the count is kept in int8: 129 wraps to -127, 127 // -127 = -1; current PyTorch still builds the count with ones_like/zeros_like(out), and integers never take the expanded-index path)",
			Call: scatter.ScatterReduce{Self: full(I8, 0, 1), Dim: 0, Index: full(I64, 0, 129),
				Src: ecWith(full(I8, 0, 129), 0, 127), Reduce: scatter.ReduceMean, ExcludeSelf: true},
			Want: i8(-1),
		},
		{
			Name:   "scatter_reduce/mean/float16/per-step-rounding",
			Labels: ecLabels(opSR, F16, "mean", "16-bit", "rounding", "duplicates"),
			Source: ecRow(68) + " (1.13: the sum stays 2048, then 2048/11 rounded to float16)",
			Call: scatter.ScatterReduce{Self: f16(2048), Dim: 0, Index: full(I64, 0, 10),
				Src: full(F16, 1, 10), Reduce: scatter.ReduceMean},
			Want:     f16(ecF16Div(2048, 11)),
			Profiles: onlyTorch113,
		},
		{
			Name:   "scatter_reduce/mean/float16/float32-accumulation",
			Labels: ecLabels(opSR, F16, "mean", "16-bit", "rounding", "duplicates"),
			Source: ecRow(68) + " under torch ≥ 2.1 (the sum 2058 rounded once, a float16; 2058/11 rounded to float16, SEMANTICS.md §5.1)",
			Call: scatter.ScatterReduce{Self: f16(2048), Dim: 0, Index: full(I64, 0, 10),
				Src: full(F16, 1, 10), Reduce: scatter.ReduceMean},
			Want:     f16(ecF16Div(2058, 11)),
			Profiles: torch2x,
		},
		{
			Name:   "scatter_reduce/amax/float32/nan-in-src-propagates",
			Labels: ecLabels(opSR, F32, "nan", "include_self"),
			Source: ecRow(69),
			Call: scatter.ScatterReduce{Self: f32(1, 1), Dim: 0, Index: i64(0, 0, 1),
				Src: f32(float32(nan), 5, 2), Reduce: scatter.ReduceAmax},
			Want: f32(float32(nan), 2),
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=true/nan-in-self-propagates",
			Labels: ecLabels(opSR, F32, "nan", "include_self"),
			Source: ecRow(70),
			Call: scatter.ScatterReduce{Self: f32(float32(nan), 1), Dim: 0, Index: i64(0, 0, 1),
				Src: f32(5, 7, 2), Reduce: scatter.ReduceAmax},
			Want: f32(float32(nan), 2),
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=false/nan-in-self-discarded",
			Labels: ecLabels(opSR, F32, "nan", "include_self"),
			Source: ecRow(71),
			Call: scatter.ScatterReduce{Self: f32(float32(nan), 1), Dim: 0, Index: i64(0, 0, 1),
				Src: f32(5, 7, 2), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			Want: f32(7, 2),
		},
		{
			Name:   "scatter_reduce/amin/float32/nan-in-src-propagates",
			Labels: ecLabels(opSR, F32, "nan", "include_self"),
			Source: ecRow(72),
			Call: scatter.ScatterReduce{Self: f32(1, 1), Dim: 0, Index: i64(0, 0),
				Src: f32(float32(nan), -5), Reduce: scatter.ReduceAmin},
			Want: f32(float32(nan), 1),
		},
		{
			Name:   "scatter_reduce/amax/float32/tie-keeps-self-minus-zero",
			Labels: ecLabels(opSR, F32, "signed-zero", "include_self"),
			Source: ecRow(73) + " (a tie keeps the earlier value: self -0 against src +0 gives -0)",
			Call: scatter.ScatterReduce{Self: f32(float32(negz)), Dim: 0, Index: i64(0),
				Src: f32(0), Reduce: scatter.ReduceAmax},
			Want:        f32(float32(negz)),
			SignedZeros: true,
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=false/tie-first-src-wins",
			Labels: ecLabels(opSR, F32, "signed-zero", "include_self", "duplicates"),
			Source: ecRow(74) + " (src [-0, +0]: the first along dim wins, -0)",
			Call: scatter.ScatterReduce{Self: f32(5), Dim: 0, Index: i64(0, 0),
				Src: f32(float32(negz), 0), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			Want:        f32(float32(negz)),
			SignedZeros: true,
		},
		{
			Name:   "scatter_reduce/sum/float32/include_self=false/identity-is-plus-zero",
			Labels: ecLabels(opSR, F32, "signed-zero", "include_self"),
			Source: ecRow(75) + " (+0 + -0 = +0)",
			Call: scatter.ScatterReduce{Self: f32(5), Dim: 0, Index: i64(0),
				Src: f32(float32(negz)), Reduce: scatter.ReduceSum, ExcludeSelf: true},
			Want:        f32(0),
			SignedZeros: true,
		},
		{
			Name:   "scatter_reduce/amax/int8/include_self=false/identity-not-visible",
			Labels: ecLabels(opSR, I8, "include_self", "duplicates"),
			Source: ecRow(76),
			Call: scatter.ScatterReduce{Self: i8(5, 5, 5), Dim: 0, Index: i64(0, 0),
				Src: i8(1, 2), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			Want: i8(2, 5, 5),
		},
		{
			Name:   "scatter_reduce/amax/float32/include_self=false/only-minus-inf",
			Labels: ecLabels(opSR, F32, "inf", "include_self"),
			Source: ecRow(77),
			Call: scatter.ScatterReduce{Self: f32(5), Dim: 0, Index: i64(0),
				Src: f32(float32(ninf)), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			Want: f32(float32(ninf)),
		},
		{
			Name:   "scatter_reduce/amax/bool/include_self=false",
			Labels: ecLabels(opSR, B, "bool", "include_self", "duplicates"),
			Source: ecRow(78),
			Call: scatter.ScatterReduce{Self: bools(true, true), Dim: 0, Index: i64(0, 0),
				Src: bools(false, false), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			Want: bools(false, true),
		},
		{
			Name:   "scatter_reduce/prod/int8/overflow-wraps",
			Labels: ecLabels(opSR, I8, "overflow", "duplicates"),
			Source: ecRow(80) + " (1*16*16*2 = 512 = 0 mod 256)",
			Call: scatter.ScatterReduce{Self: i8(1), Dim: 0, Index: full(I64, 0, 3),
				Src: i8(16, 16, 2), Reduce: scatter.ReduceProd},
			Want: i8(0),
		},
		{
			Name:   "scatter_reduce/prod/float32/zero-times-inf-is-nan",
			Labels: ecLabels(opSR, F32, "nan", "inf"),
			Source: ecRow(81),
			Call: scatter.ScatterReduce{Self: f32(0), Dim: 0, Index: full(I64, 0, 1),
				Src: f32(float32(inf)), Reduce: scatter.ReduceProd},
			Want: f32(float32(nan)),
		},
		{
			Name:   "scatter_reduce/prod/bool/logical-and",
			Labels: ecLabels(opSR, B, "bool"),
			Source: ecRow(82),
			Call: scatter.ScatterReduce{Self: bools(true, true), Dim: 0, Index: i64(0, 1),
				Src: bools(false, true), Reduce: scatter.ReduceProd},
			Want: bools(false, true),
		},
		{
			Name:   "scatter_reduce/amax/float32/0-d/include_self=false",
			Labels: ecLabels(opSR, F32, "0-d", "include_self"),
			Source: ecRow(84),
			Call: scatter.ScatterReduce{Self: shape(f32(2)), Dim: 0, Index: shape(i64(0)),
				Src: shape(f32(5)), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			Want: shape(f32(5)),
		},
		{
			Name:   "scatter_reduce/mean/float32/include_self=false/empty-index-no-op",
			Labels: ecLabels(opSR, F32, "mean", "empty-index", "include_self"),
			Source: ecRow(85),
			Call: scatter.ScatterReduce{Self: f32(1, 2), Dim: 0, Index: i64(), Src: f32(),
				Reduce: scatter.ReduceMean, ExcludeSelf: true},
			Want: f32(1, 2),
		},
		{
			Name:   "scatter_reduce/sum/float32/include_self=false/3-d-dim=1",
			Labels: ecLabels(opSR, F32, "include_self", "3-d", "duplicates", "src-larger-than-index"),
			Source: ecRow(86),
			Call: scatter.ScatterReduce{Self: full(F32, 0, 2, 3, 4), Dim: 1,
				Index: shape(i64(0, 1, 0, 1, 1, 1, 0, 0, 2, 2, 2, 0, 0, 1, 2, 1), 2, 2, 4),
				Src:   shape(arange(F32, 0, 24), 2, 3, 4), Reduce: scatter.ReduceSum, ExcludeSelf: true},
			Want: shape(f32(
				0, 0, 8, 7,
				4, 6, 0, 3,
				0, 0, 0, 0,

				16, 0, 0, 15,
				0, 17, 0, 19,
				12, 13, 32, 0), 2, 3, 4),
		},

		// ---------------------------------------------------------------
		// In-place behaviour, out of place (rows #87–#89)
		{
			Name:    "scatter/out-of-bounds/float32/after-partial-write",
			Labels:  ecLabels(opS, F32, "out-of-bounds", "in-place"),
			Source:  ecRow(87) + " (in place, self keeps the partial write [1,0,0]; the suite is out of place and treats self as unspecified after an error: only the error is checked)",
			Call:    scatter.Scatter{Self: full(F32, 0, 3), Dim: 0, Index: i64(0, 5), Src: f32(1, 2)},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:   "scatter/expanded-self/float32/out-of-place-copies-first",
			Labels: ecLabels(opS, F32, "in-place", "aliasing", "strided"),
			Source: ecRow(88) + ", out-of-place form: torch.scatter(torch.zeros(1).expand(3), 0, t([1]), t([2.])) copies self first, so the in-place overlap error does not arise",
			Call:   scatter.Scatter{Self: expandedSelf, Dim: 0, Index: i64(1), Src: f32(2)},
			Want:   f32(0, 2, 0),
		},
		{
			Name:   "scatter/src-aliases-self/float32/out-of-place",
			Labels: ecLabels(opS, F32, "in-place", "aliasing"),
			Source: ecRow(89) + ", out-of-place form: (lambda x: torch.scatter(x, 0, t([0]), x))(torch.zeros(3)) copies self first, so the in-place overlap error does not arise",
			Call:   scatter.Scatter{Self: aliased, Dim: 0, Index: i64(0), Src: aliased},
			Want:   f32(0, 0, 0),
		},
		{
			Name:   "scatter/src-aliases-self/float32/out-of-place/distinct-values",
			Labels: ecLabels(opS, F32, "in-place", "aliasing"),
			Source: ecRow(89) + ", out-of-place form with distinct values: (lambda x: torch.scatter(x, 0, t([2,0]), x))(t([1.,2.,3.])); src is read from the original, not from the output being written",
			Call:   scatter.Scatter{Self: aliased2, Dim: 0, Index: i64(2, 0), Src: aliased2},
			Want:   f32(2, 2, 1),
		},

		// ---------------------------------------------------------------
		// index_reduce (rows #90–#103)
		{
			Name:   "index_reduce/prod/float32/include_self=true/docs-data",
			Labels: ecLabels(opIR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(90),
			Call: scatter.IndexReduce{Self: full(F32, 2, 5, 3), Dim: 0, Index: i64(0, 4, 2, 0),
				Source: irSource(), Reduce: scatter.ReduceProd},
			Want: shape(f32(20, 44, 72, 2, 2, 2, 14, 16, 18, 2, 2, 2, 8, 10, 12), 5, 3),
		},
		{
			Name:   "index_reduce/prod/float32/include_self=false/docs-data",
			Labels: ecLabels(opIR, F32, "docs", "include_self", "duplicates"),
			Source: ecRow(91),
			Call: scatter.IndexReduce{Self: full(F32, 2, 5, 3), Dim: 0, Index: i64(0, 4, 2, 0),
				Source: irSource(), Reduce: scatter.ReduceProd, ExcludeSelf: true},
			Want: shape(f32(10, 22, 36, 2, 2, 2, 7, 8, 9, 2, 2, 2, 4, 5, 6), 5, 3),
		},
		{
			Name:   "index_reduce/mean/float32/include_self=true",
			Labels: ecLabels(opIR, F32, "mean", "include_self", "duplicates"),
			Source: ecRow(92),
			Call: scatter.IndexReduce{Self: full(F32, 2, 5, 3), Dim: 0, Index: i64(0, 4, 2, 0),
				Source: irSource(), Reduce: scatter.ReduceMean},
			Want: shape(f32(
				ecDiv32(13, 3), ecDiv32(15, 3), ecDiv32(17, 3),
				2, 2, 2,
				ecDiv32(9, 2), ecDiv32(10, 2), ecDiv32(11, 2),
				2, 2, 2,
				ecDiv32(6, 2), ecDiv32(7, 2), ecDiv32(8, 2)), 5, 3),
		},
		{
			Name:   "index_reduce/amax/float32/include_self=false/int32-index",
			Labels: ecLabels(opIR, F32, "index-dtype", "int32-index", "include_self", "duplicates"),
			Source: ecRow(93),
			Call: scatter.IndexReduce{Self: full(F32, 2, 3), Dim: 0, Index: i32(0, 0),
				Source: f32(3, 4), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			Want: f32(4, 2, 2),
		},
		{
			Name:   "index_reduce/index-dtype/float32/int16-rejected",
			Labels: ecLabels(opIR, F32, "index-dtype"),
			Source: ecRow(94),
			Call: scatter.IndexReduce{Self: full(F32, 2, 3), Dim: 0, Index: i16(0),
				Source: f32(3), Reduce: scatter.ReduceProd},
			WantErr: scatter.ErrIndexDType,
		},
		{
			Name:   "index_reduce/invalid-reduce/float32/sum-rejected",
			Labels: ecLabels(opIR, F32, "invalid-reduce"),
			Source: ecRow(95),
			Call: scatter.IndexReduce{Self: full(F32, 2, 3), Dim: 0, Index: i64(0),
				Source: f32(3), Reduce: scatter.ReduceSum},
			WantErr: scatter.ErrInvalidArgument,
		},
		{
			Name:   "index_reduce/shape-rule/float32/2-d-index-rejected",
			Labels: ecLabels(opIR, F32, "shape-rule"),
			Source: ecRow(96) + " (Index is supposed to be a vector)",
			Call: scatter.IndexReduce{Self: full(F32, 2, 3), Dim: 0, Index: shape(i64(0), 1, 1),
				Source: f32(3), Reduce: scatter.ReduceProd},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:   "index_reduce/shape-rule/float32/index-count-mismatch",
			Labels: ecLabels(opIR, F32, "shape-rule"),
			Source: ecRow(97),
			Call: scatter.IndexReduce{Self: full(F32, 1, 5, 3), Dim: 0, Index: i64(0, 4, 2),
				Source: full(F32, 1, 4, 3), Reduce: scatter.ReduceProd},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:   "index_reduce/out-of-bounds/float32/negative-index-not-wrapped",
			Labels: ecLabels(opIR, F32, "out-of-bounds", "negative-index"),
			Source: ecRow(98),
			Call: scatter.IndexReduce{Self: full(F32, 0, 3), Dim: 0, Index: i64(-1),
				Source: f32(1), Reduce: scatter.ReduceAmax},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:   "index_reduce/mean/int64/floor-division",
			Labels: ecLabels(opIR, I64, "mean", "floor-division", "include_self", "duplicates"),
			Source: ecRow(99) + " ((1+5+6)//3 = 4, (3-8)//2 = -3)",
			Call: scatter.IndexReduce{Self: i64(1, 2, 3), Dim: 0, Index: i64(0, 0, 2),
				Source: i64(5, 6, -8), Reduce: scatter.ReduceMean},
			Want: i64(4, 2, -3),
		},
		{
			Name:   "index_reduce/prod/float32/source-slice-broadcasts",
			Labels: ecLabels(opIR, F32, "broadcast"),
			Source: ecRow(100) + " (quirk: a source slice of shape [1] broadcasts to self's slice [2])",
			Call: scatter.IndexReduce{Self: full(F32, 1, 3, 2), Dim: 0, Index: i64(0, 2),
				Source: shape(f32(5, 7), 2, 1), Reduce: scatter.ReduceProd},
			Want:     shape(f32(5, 5, 1, 1, 7, 7), 3, 2),
			Profiles: onlyTorch113,
		},
		{
			Name:   "index_reduce/prod/float32/source-slice-no-broadcast",
			Labels: ecLabels(opIR, F32, "broadcast", "shape-rule"),
			Source: ecRow(100) + " under PyTorch 2 (index_func_meta_impl: source tensor shape must match self tensor shape, excluding the specified dimension)",
			Call: scatter.IndexReduce{Self: full(F32, 1, 3, 2), Dim: 0, Index: i64(0, 2),
				Source: shape(f32(5, 7), 2, 1), Reduce: scatter.ReduceProd},
			WantErr:  scatter.ErrShapeMismatch,
			Profiles: torch2x,
		},
		{
			Name:   "index_reduce/amax/int32/include_self=false/fill-before-source-rank",
			Labels: ecLabels(opIR, I32, "include_self", "precedence"),
			Source: "torch 1.13.1, found by a differential against it: with include_self=False the index_fill_ of the initialisation runs before the 1-d path checks source's rank " +
				"(IndexError: index 5 is out of bounds for dimension 0 with size 2)",
			Call: scatter.IndexReduce{Self: i32(1, 1), Dim: 0, Index: i64(5),
				Source: shape(i32(2), 1, 1), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			WantErr:  scatter.ErrIndexOutOfRange,
			Profiles: onlyTorch113,
		},
		{
			Name:   "index_reduce/amax/int32/include_self=false/source-shape-before-fill",
			Labels: ecLabels(opIR, I32, "include_self", "precedence", "shape-rule"),
			Source: "PyTorch 2's index_func_meta_impl checks source's shape before anything runs (source tensor shape must match self tensor shape); verified on 2.6.0 and 2.14.1",
			Call: scatter.IndexReduce{Self: i32(1, 1), Dim: 0, Index: i64(5),
				Source: shape(i32(2), 1, 1), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
			WantErr:  scatter.ErrShapeMismatch,
			Profiles: torch2x,
		},
		{
			Name:   "index_reduce/amax/bool/1-d-unsupported",
			Labels: ecLabels(opIR, B, "bool", "unsupported-dtype"),
			Source: ecRow(101),
			Call: scatter.IndexReduce{Self: bools(true), Dim: 0, Index: i64(0),
				Source: bools(false), Reduce: scatter.ReduceAmax},
			WantErr: scatter.ErrUnsupportedDType,
		},
		{
			Name:   "index_reduce/amax/bool/2-d-include_self=true-works",
			Labels: ecLabels(opIR, B, "bool", "include_self"),
			Source: ecRow(102),
			Call: scatter.IndexReduce{Self: shape(bools(true, false), 1, 2), Dim: 0, Index: i64(0),
				Source: shape(bools(false, true), 1, 2), Reduce: scatter.ReduceAmax},
			Want: shape(bools(true, true), 1, 2),
		},
		{
			Name:   "index_reduce/out-of-bounds/float32/include_self=false/negative-index",
			Labels: ecLabels(opIR, F32, "out-of-bounds", "negative-index", "include_self", "in-place"),
			Source: ecRow(103) + " (in place, index_fill_ wraps -1 and writes first; the suite is out of place and treats self as unspecified after an error: only the error is checked)",
			Call: scatter.IndexReduce{Self: full(F32, 7, 3, 2), Dim: 0, Index: i64(0, -1),
				Source: full(F32, 1, 2, 2), Reduce: scatter.ReduceProd, ExcludeSelf: true},
			WantErr: scatter.ErrIndexOutOfRange,
		},

		// ---------------------------------------------------------------
		// gather (rows #109–#115)
		{
			Name:   "gather/basic/int64/dim=1",
			Labels: ecLabels(opG, I64, "docs"),
			Source: ecRow(109),
			Call: scatter.Gather{Input: shape(i64(1, 2, 3, 4), 2, 2), Dim: 1,
				Index: shape(i64(0, 0, 1, 0), 2, 2)},
			Want: shape(i64(1, 1, 4, 3), 2, 2),
		},
		{
			Name:   "gather/index-larger-than-input-along-dim/int64",
			Labels: ecLabels(opG, I64, "shape-rule"),
			Source: ecRow(110),
			Call: scatter.Gather{Input: shape(i64(1, 2, 3, 4, 5, 6), 2, 3), Dim: 1,
				Index: shape(i64(2, 2, 2, 2, 0), 1, 5)},
			Want: shape(i64(3, 3, 3, 3, 1), 1, 5),
		},
		{
			Name:   "gather/shape-rule/int64/index-larger-in-non-dim",
			Labels: ecLabels(opG, I64, "shape-rule"),
			Source: ecRow(111),
			Call: scatter.Gather{Input: shape(i64(1, 2, 3, 4, 5, 6), 2, 3), Dim: 1,
				Index: shape(i64(2, 0, 1), 3, 1)},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:    "gather/out-of-bounds/int64/negative-index-not-wrapped",
			Labels:  ecLabels(opG, I64, "out-of-bounds", "negative-index"),
			Source:  ecRow(112),
			Call:    scatter.Gather{Input: i64(1, 2, 3), Dim: 0, Index: i64(-1)},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:   "gather/empty-index/float32/float-index-gives-index-shape",
			Labels: ecLabels(opG, F32, "empty-index", "index-dtype", "shape-rule"),
			Source: ecRow(113),
			Call:   scatter.Gather{Input: full(F32, 0, 3), Dim: 0, Index: full(F32, 0, 0, 4)},
			Want:   full(F32, 0, 0, 4),
		},
		{
			Name:   "gather/0-d/int64/0-d-input-1-d-index",
			Labels: ecLabels(opG, I64, "0-d"),
			Source: ecRow(114),
			Call:   scatter.Gather{Input: shape(i64(5)), Dim: 0, Index: i64(0, 0)},
			Want:   i64(5, 5),
		},
		{
			Name:     "gather/index-dtype/int64/int32-rejected",
			Labels:   ecLabels(opG, I64, "index-dtype", "int32-index"),
			Source:   ecRow(115),
			Call:     scatter.Gather{Input: i64(1, 2, 3), Dim: 0, Index: i32(0)},
			WantErr:  scatter.ErrIndexDType,
			Profiles: before28,
		},
		{
			Name:     "gather/index-dtype/int64/int32-accepted",
			Labels:   ecLabels(opG, I64, "index-dtype", "int32-index"),
			Source:   ecRow(115) + " under torch ≥ 2.8 (int32 indices accepted, SEMANTICS.md §7)",
			Call:     scatter.Gather{Input: i64(1, 2, 3), Dim: 0, Index: i32(0)},
			Want:     i64(1),
			Profiles: from28,
		},

		// ---------------------------------------------------------------
		// Extra verified rows after the table
		{
			Name:   "scatter_reduce/out-of-bounds/float32/include_self=false/after-identity-prefill",
			Labels: ecLabels(opSR, F32, "out-of-bounds", "include_self", "in-place"),
			Source: "SEMANTICS.md §12, extra row (y = full((3,),7.); y.scatter_reduce_(0,[1,5],[1.,2.],'sum',include_self=False); in place y is left [7,0,7]; out of place only the error is checked)",
			Call: scatter.ScatterReduce{Self: full(F32, 7, 3), Dim: 0, Index: i64(1, 5),
				Src: f32(1, 2), Reduce: scatter.ReduceSum, ExcludeSelf: true},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:   "index_reduce/index-dtype/float32/empty-int16-rejected",
			Labels: ecLabels(opIR, F32, "index-dtype", "empty-index"),
			Source: "SEMANTICS.md §12, extra row (zeros(3).index_reduce_(0, tensor([], dtype=int16), zeros(0), 'prod'): the dtype check does not depend on numel)",
			Call: scatter.IndexReduce{Self: full(F32, 0, 3), Dim: 0, Index: i16(),
				Source: f32(), Reduce: scatter.ReduceProd},
			WantErr: scatter.ErrIndexDType,
		},
		{
			Name:   "index_reduce/amax/float32/0-d-index-and-source",
			Labels: ecLabels(opIR, F32, "0-d"),
			Source: "SEMANTICS.md §12, extra row (zeros(3).index_reduce_(0, tensor(1), tensor(5.), 'amax'))",
			Call: scatter.IndexReduce{Self: full(F32, 0, 3), Dim: 0, Index: shape(i64(1)),
				Source: shape(f32(5)), Reduce: scatter.ReduceAmax},
			Want:     f32(0, 5, 0),
			Profiles: onlyTorch113,
		},
		{
			Name:   "index_reduce/amax/float32/0-d-source-1-d-self-rejected",
			Labels: ecLabels(opIR, F32, "0-d", "shape-rule"),
			Source: "zeros(3).index_reduce_(0, tensor(1), tensor(5.), 'amax') under PyTorch 2: source tensor shape must match self tensor shape (self [3], source [])",
			Call: scatter.IndexReduce{Self: full(F32, 0, 3), Dim: 0, Index: shape(i64(1)),
				Source: shape(f32(5)), Reduce: scatter.ReduceAmax},
			WantErr:  scatter.ErrShapeMismatch,
			Profiles: torch2x,
		},
		{
			Name:   "index_reduce/shape-rule/float32/dim-out-of-bounds-of-source",
			Labels: ecLabels(opIR, F32, "shape-rule"),
			Source: "SEMANTICS.md §12, extra row (zeros(3,2).index_reduce_(1, [0], tensor([5.]), 'amax'): Indexing dim 1 is out of bounds of the source tensor with dim 1)",
			Call: scatter.IndexReduce{Self: full(F32, 0, 3, 2), Dim: 1, Index: i64(0),
				Source: f32(5), Reduce: scatter.ReduceAmax},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:   "index_reduce/amax/float32/signed-zero-tie/64-columns",
			Labels: ecLabels(opIR, F32, "signed-zero", "include_self"),
			Source: "SEMANTICS.md §12, extra row (multi-dim index_reduce_ amax, self -0, source +0, 64 columns: torch 1.13's vectorised maximum gives +0; " +
				"the sign of a tie's zero is unspecified (§5.3), so Want holds the canonical fold's -0 (a tie keeps self) and signs are not compared)",
			Call: scatter.IndexReduce{Self: full(F32, negz, 1, 64), Dim: 0, Index: i64(0),
				Source: full(F32, 0, 1, 64), Reduce: scatter.ReduceAmax},
			Want: full(F32, negz, 1, 64),
		},
		{
			Name:   "index_reduce/amax/float32/signed-zero-tie/1-column",
			Labels: ecLabels(opIR, F32, "signed-zero", "include_self"),
			Source: "SEMANTICS.md §12, extra row (multi-dim index_reduce_ amax, self -0, source +0, 1 column: torch 1.13 gives -0; the sign of a tie's zero is unspecified, §5.3)",
			Call: scatter.IndexReduce{Self: full(F32, negz, 1, 1), Dim: 0, Index: i64(0),
				Source: full(F32, 0, 1, 1), Reduce: scatter.ReduceAmax},
			Want: full(F32, negz, 1, 1),
		},
		{
			Name:   "scatter_reduce/mean/bfloat16/include_self=false/300-halves",
			Labels: ecLabels(opSR, BF16, "mean", "16-bit", "rounding", "count-dtype", "include_self", "duplicates"),
			Source: "SEMANTICS.md §12, extra row (bf16 zeros(1).scatter_reduce(0, zeros(300), full(300, 0.5), 'mean', include_self=False) = 0.5; " +
				"1.13: the sum stops at 128 and the count at 256; torch ≥ 2.1: 150/300; both 0.5)",
			Call: scatter.ScatterReduce{Self: full(BF16, 0, 1), Dim: 0, Index: full(I64, 0, 300),
				Src: full(BF16, 0.5, 300), Reduce: scatter.ReduceMean, ExcludeSelf: true},
			Want: bf16(0.5),
		},

		// ---------------------------------------------------------------
		// torch_scatter 2.x rows after the table
		{
			Name:   "torch_scatter.scatter/sum/float32/inferred-size",
			Labels: ecLabels(opTS, F32, torch, "duplicates", "untouched"),
			Source: "SEMANTICS.md §12, torch_scatter row (scatter_sum([1,3,2,4,5,6], [0,1,0,1,1,3]))",
			Call:   scatter.TorchScatter{Src: f32(1, 3, 2, 4, 5, 6), Index: i64(0, 1, 0, 1, 1, 3), Reduce: scatter.ReduceSum},
			Want:   f32(3, 12, 0, 6),
		},
		{
			Name:   "torch_scatter.scatter/mean/float32/inferred-size",
			Labels: ecLabels(opTS, F32, torch, "mean", "duplicates", "untouched"),
			Source: "SEMANTICS.md §12, torch_scatter row (scatter_mean([1,3,2,4,5,6], [0,1,0,1,1,3]))",
			Call:   scatter.TorchScatter{Src: f32(1, 3, 2, 4, 5, 6), Index: i64(0, 1, 0, 1, 1, 3), Reduce: scatter.ReduceMean},
			Want:   f32(ecDiv32(3, 2), ecDiv32(12, 3), 0, 6),
		},
		{
			Name:   "torch_scatter.scatter/sum/float32/dim_size=6",
			Labels: ecLabels(opTS, F32, torch, "dim_size", "untouched"),
			Source: "SEMANTICS.md §12, torch_scatter row (scatter_sum(..., dim_size=6))",
			Call: scatter.TorchScatter{Src: f32(1, 3, 2, 4, 5, 6), Index: i64(0, 1, 0, 1, 1, 3),
				DimSize: scatter.Ptr(6), Reduce: scatter.ReduceSum},
			Want: f32(3, 12, 0, 6, 0, 0),
		},
		{
			Name:   "torch_scatter.scatter/sum/float32/dim_size=2-too-small",
			Labels: ecLabels(opTS, F32, torch, "dim_size", "out-of-bounds"),
			Source: "SEMANTICS.md §12, torch_scatter row (scatter_sum(..., dim_size=2): index 3 is out of bounds for dimension 0 with size 2)",
			Call: scatter.TorchScatter{Src: f32(1, 3, 2, 4, 5, 6), Index: i64(0, 1, 0, 1, 1, 3),
				DimSize: scatter.Ptr(2), Reduce: scatter.ReduceSum},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:   "torch_scatter.scatter/sum/float32/1-d-index-broadcasts-over-trailing-dim",
			Labels: ecLabels(opTS, F32, torch, "broadcast", "duplicates"),
			Source: "SEMANTICS.md §12, torch_scatter row (src (6,2) = arange(12).reshape(6,2), index [0,1,0,1,1,3], dim=0)",
			Call: scatter.TorchScatter{Src: shape(arange(F32, 0, 12), 6, 2), Index: i64(0, 1, 0, 1, 1, 3),
				Dim: scatter.Ptr(0), Reduce: scatter.ReduceSum},
			Want: shape(f32(4, 6, 16, 19, 0, 0, 10, 11), 4, 2),
		},
		{
			Name:   "torch_scatter.scatter/sum/float32/index-(6,3)-does-not-broadcast-to-(2,6,3)",
			Labels: ecLabels(opTS, F32, torch, "broadcast", "shape-rule"),
			Source: "SEMANTICS.md §12, torch_scatter row (broadcast(index(6,3), src(2,6,3), dim=1): The expanded size of the tensor (6) must match the existing size (3))",
			Call: scatter.TorchScatter{Src: full(F32, 1, 2, 6, 3), Index: full(I64, 0, 6, 3),
				Dim: scatter.Ptr(1), Reduce: scatter.ReduceSum},
			WantErr: scatter.ErrShapeMismatch,
		},
		{
			Name:   "torch_scatter.scatter/sum/float32/index-(2,1)-matches-leading-dims-of-(2,2,1)",
			Labels: ecLabels(opTS, F32, torch, "broadcast"),
			Source: "SEMANTICS.md §8.1 (broadcast(index, src, dim) unsqueezes a k-d index at the end: it lines up with src's leading dims); " +
				"here the index's shape is src's trailing dims too, where NumPy's broadcasting would line it up (giving [4, 0, 0, 6]); torch_scatter 2.1.2 on torch 2.14.1 gives [1, 2, 3, 4]",
			Call: scatter.TorchScatter{Src: shape(f32(1, 2, 3, 4), 2, 2, 1), Index: shape(i64(0, 1), 2, 1),
				Dim: scatter.Ptr(0), Reduce: scatter.ReduceSum},
			Want: shape(f32(1, 2, 3, 4), 2, 2, 1),
		},
		{
			Name:   "torch_scatter.scatter/mean/int64/floor-division",
			Labels: ecLabels(opTS, I64, torch, "mean", "floor-division"),
			Source: "SEMANTICS.md §12, torch_scatter row (scatter_mean([-3,-4,3], [0,0,1]) = [-4, 3])",
			Call:   scatter.TorchScatter{Src: i64(-3, -4, 3), Index: i64(0, 0, 1), Reduce: scatter.ReduceMean},
			Want:   i64(-4, 3),
		},
		{
			Name:   "torch_scatter.scatter/mean/float32/out-summed-not-counted",
			Labels: ecLabels(opTS, F32, torch, "mean", "out"),
			Source: "SEMANTICS.md §12, torch_scatter row (scatter_mean([2.,4.], [0,0], out=[6.,10.]) = [(6+2+4)/2, 10])",
			Call: scatter.TorchScatter{Src: f32(2, 4), Index: i64(0, 0), Out: f32(6, 10),
				Reduce: scatter.ReduceMean},
			Want: f32(6, 10),
		},
		{
			Name:   "torch_scatter.scatter/mean/int8/count-overflow",
			Labels: ecLabels(opTS, I8, torch, "mean", "overflow", "count-dtype"),
			Source: "SEMANTICS.md §12, torch_scatter row (scatter_mean(ones(130, int8), zeros(130)) = [-126]: the sum wraps to -126, the int8 count -126 < 1 becomes 1)",
			Call:   scatter.TorchScatter{Src: full(I8, 1, 130), Index: full(I64, 0, 130), Reduce: scatter.ReduceMean},
			Want:   i8(-126),
		},
		{
			Name:    "torch_scatter.scatter/sum/float32/all-negative-index",
			Labels:  ecLabels(opTS, F32, torch, "out-of-bounds", "negative-index"),
			Source:  "SEMANTICS.md §12, torch_scatter row (scatter_sum(ones(2), [-1,-2]): the inferred size is 0, index -1 is out of bounds for dimension 0 with size 0)",
			Call:    scatter.TorchScatter{Src: full(F32, 1, 2), Index: i64(-1, -2), Reduce: scatter.ReduceSum},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:    "torch_scatter.scatter/max/float32/test-data",
			Labels:  ecLabels(opTS, F32, torch, "argmax", "untouched"),
			Source:  "SEMANTICS.md §12, torch_scatter row [S] (scatter_max, rusty1s/pytorch_scatter test/test_scatter.py: out [2,5,0,6], arg [2,4,6,5])",
			Call:    scatter.TorchScatter{Src: f32(1, 3, 2, 4, 5, 6), Index: i64(0, 1, 0, 1, 1, 3), Reduce: scatter.ReduceMax},
			Want:    f32(2, 5, 0, 6),
			WantArg: i64(2, 4, 6, 5),
		},
		{
			Name:    "torch_scatter.scatter/min/float32/test-data",
			Labels:  ecLabels(opTS, F32, torch, "argmax", "untouched"),
			Source:  "SEMANTICS.md §12, torch_scatter row [S] (scatter_min, rusty1s/pytorch_scatter test/test_scatter.py: out [1,3,0,6], arg [0,1,6,5])",
			Call:    scatter.TorchScatter{Src: f32(1, 3, 2, 4, 5, 6), Index: i64(0, 1, 0, 1, 1, 3), Reduce: scatter.ReduceMin},
			Want:    f32(1, 3, 0, 6),
			WantArg: i64(0, 1, 6, 5),
		},
		{
			Name:   "torch_scatter.scatter/mul/float32/test-data",
			Labels: ecLabels(opTS, F32, torch, "untouched"),
			Source: "SEMANTICS.md §12, torch_scatter row [S] (scatter_mul, rusty1s/pytorch_scatter test/test_scatter.py: [2,60,1,6]; empty groups give 1)",
			Call:   scatter.TorchScatter{Src: f32(1, 3, 2, 4, 5, 6), Index: i64(0, 1, 0, 1, 1, 3), Reduce: scatter.ReduceMul},
			Want:   f32(2, 60, 1, 6),
		},
		{
			Name:   "torch_scatter.scatter/max/float32/nan-and-minus-inf-groups-give-0",
			Labels: ecLabels(opTS, F32, torch, "argmax", "nan", "inf"),
			Source: "SEMANTICS.md §12, torch_scatter row [S] (scatter_max: a group of only NaN or -inf gives 0 with arg src.size(dim); NaN is never chosen; §8.1)",
			Call: scatter.TorchScatter{Src: f32(float32(nan), 1, float32(ninf), float32(nan), 2),
				Index: i64(0, 1, 2, 3, 3), Reduce: scatter.ReduceMax},
			Want:    f32(0, 1, 0, 2),
			WantArg: i64(5, 1, 5, 4),
		},
		{
			Name:   "torch_scatter.scatter/min/float32/nan-and-plus-inf-groups-give-0",
			Labels: ecLabels(opTS, F32, torch, "argmax", "nan", "inf"),
			Source: "SEMANTICS.md §12, torch_scatter row [S] (the scatter_min mirror of the scatter_max NaN/-inf row: init FLT_MAX, strict <, masked to 0; §8.1)",
			Call: scatter.TorchScatter{Src: f32(float32(nan), 1, float32(inf), float32(nan), -2),
				Index: i64(0, 1, 2, 3, 3), Reduce: scatter.ReduceMin},
			Want:    f32(0, 1, 0, -2),
			WantArg: i64(5, 1, 5, 4),
		},

		// ---------------------------------------------------------------
		// F# Tensor rows after the table
		{
			Name:   "tensor.scatter/docs-example/float64/sum-and-swap",
			Labels: ecLabels(opFS, F64, "docs", "duplicates", "untouched"),
			Source: "SEMANTICS.md §12, F# row [S] (Tensor.scatter [Some i0; Some i1] [4L;4L] src, the Tensor.fs docstring example, §9)",
			Call: scatter.TensorScatter{
				Indices: []scatter.Tensor{
					shape(i64(0, 0, 0, 0, 2, 2, 2, 2, 1, 1, 1, 1), 3, 4),
					shape(i64(3, 3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3), 3, 4),
				},
				Shape: []int{4, 4},
				Src:   fsSrc(),
			},
			Want: shape(f64(
				0, 0, 0, ecSum64(0, 0.0, 0.1, 0.2, 0.3),
				2.0, 2.1, 2.2, 2.3,
				1.0, 1.1, 1.2, 1.3,
				0, 0, 0, 0), 4, 4),
		},
		{
			Name:   "tensor.scatter/no-indices/float64/larger-target-zero-filled",
			Labels: ecLabels(opFS, F64, "untouched"),
			Source: "SEMANTICS.md §12, F# row [S] (Tensor.scatter [None; None] [5L;3L] a(4x3), test \"Disperse 3\" in Tensor/Tensor.Test/BaseTests.fs, a = 0..11)",
			Call: scatter.TensorScatter{Indices: []scatter.Tensor{{}, {}}, Shape: []int{5, 3},
				Src: shape(arange(F64, 0, 12), 4, 3)},
			Want: shape(ecWith(ecWith(ecWith(arange(F64, 0, 15), 12, 0), 13, 0), 14, 0), 5, 3),
		},
		{
			Name:   "tensor.scatter/out-of-bounds/float64/no-indices-smaller-target",
			Labels: ecLabels(opFS, F64, "out-of-bounds"),
			Source: "SEMANTICS.md §12, F# row [S] (Tensor.scatter [None; None] [3L;3L] a(4x3): IndexOutOfRangeException)",
			Call: scatter.TensorScatter{Indices: []scatter.Tensor{{}, {}}, Shape: []int{3, 3},
				Src: shape(arange(F64, 0, 12), 4, 3)},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:   "tensor.gather/docs-example/float64/none-is-positional",
			Labels: ecLabels(opFG, F64, "docs"),
			Source: "SEMANTICS.md §12, F# row [S] (Tensor.gather [None; Some [3;1;0]] src(3x4) = [0.3; 1.1; 2.0])",
			Call:   scatter.TensorGather{Indices: []scatter.Tensor{{}, i64(3, 1, 0)}, Src: fsSrc()},
			Want:   f64(0.3, 1.1, 2.0),
		},
		{
			Name:   "tensor.gather/docs-example/float64/two-indices",
			Labels: ecLabels(opFG, F64, "docs"),
			Source: "SEMANTICS.md §9 [S] (Tensor.gather [Some [1;2;0;0]; Some [3;1;0;3]] src = [1.3; 2.1; 0.0; 0.3], Tensor.fs docstring)",
			Call:   scatter.TensorGather{Indices: []scatter.Tensor{i64(1, 2, 0, 0), i64(3, 1, 0, 3)}, Src: fsSrc()},
			Want:   f64(1.3, 2.1, 0.0, 0.3),
		},
		{
			Name:    "tensor.scatter/out-of-bounds/float64/index-minus-1",
			Labels:  ecLabels(opFS, F64, "out-of-bounds", "negative-index"),
			Source:  "SEMANTICS.md §12, F# row [S] (an index value of -1 raises IndexOutOfRange)",
			Call:    scatter.TensorScatter{Indices: []scatter.Tensor{i64(0, -1)}, Shape: []int{3}, Src: f64(1, 2)},
			WantErr: scatter.ErrIndexOutOfRange,
		},
		{
			Name:    "tensor.gather/out-of-bounds/float64/index-minus-1",
			Labels:  ecLabels(opFG, F64, "out-of-bounds", "negative-index"),
			Source:  "SEMANTICS.md §12, F# row [S] (an index value of -1 raises IndexOutOfRange)",
			Call:    scatter.TensorGather{Indices: []scatter.Tensor{i64(0, -1)}, Src: f64(1, 2, 3)},
			WantErr: scatter.ErrIndexOutOfRange,
		},
	}, append(countFromIndexCases(), expandedPathCases()...)...)
}

// bf16Source is a bfloat16 tensor of the given shape whose first element
// is first and the others zero.
func bf16Source(first float64, shape ...int) scatter.Tensor {
	t, _ := scatter.Zeros(scatter.DTBFloat16, shape...)
	t.Data.([]scatter.BFloat16)[0] = scatter.BFloat16FromFloat64(first)
	return t
}
