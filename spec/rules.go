package spec

import (
	"fmt"

	"github.com/scatterconf/scatter"
)

// The shape, dtype and value rules of SEMANTICS.md §1.3, §4, §6.1, §7, §8
// and §9, each as a pair of entries: a call that keeps the rule (it
// succeeds, with its expected output) and the nearest call that breaks it
// (with the expected code). A pair pins the rule from both sides: a backend
// that rejects too much fails the first, one that checks too little the
// second.
//
// The codes of PyTorch's exceptions: "Dimension out of range" (also the
// src-rank IndexError quirk, and Python's IndexError on a bad dim in
// torch_scatter) is dim_out_of_range; "Expected dtype int64 for index" is
// index_dtype; "Expected self.dtype to be equal to src.dtype" and "must have
// the same scalar type" are dtype_mismatch; rank and size mismatches and the
// "expanded size" errors are shape_mismatch; "index ... is out of bounds" and
// "index out of range in self" are index_out_of_range; "not implemented for
// 'Bool'" is unsupported_dtype; a bad reduce or a negative dim_size is
// invalid_argument; a scalar conversion overflow is value_overflow.

// The kinds of rule, used as labels.
const (
	shapeRule = "shape-rule"
	dtypeRule = "dtype-rule"
	valueRule = "value-rule"
)

// rulePair is one rule as two entries. keep and brk hold the Call, the
// outcome (Want or WantErr) and any Profiles; the rest is filled in.
type rulePair struct {
	op     scatter.Op
	dt     scatter.DType // the dtype under test (the data tensors')
	kind   string        // shapeRule, dtypeRule or valueRule
	rule   string        // a short name: "dim-range", "index-int32", ...
	source string
	keep   Case
	brk    Case
}

// cases returns the pair's two entries, named
// "<op>/<dtype>/<rule>/keeps" and ".../breaks" (with the profile appended
// when the entry is pinned to one), labelled with the operation, the dtype,
// the kind, the rule and "rule-keeps" or "rule-breaks".
func (r rulePair) cases() []Case {
	one := func(c Case, side string) Case {
		c.Name = fmt.Sprintf("%s/%v/%s/%s", r.op, r.dt, r.rule, side)
		for _, p := range c.Profiles {
			c.Name += "/" + p.String()
		}
		c.Labels = []string{string(r.op), r.dt.String(), r.kind, r.rule, "rule-" + side}
		c.Source = r.source
		return c
	}
	return []Case{one(r.keep, "keeps"), one(r.brk, "breaks")}
}

// Short names for the rule tables.
const (
	rF32  = scatter.DTFloat32
	rF64  = scatter.DTFloat64
	rF16  = scatter.DTFloat16
	rBF16 = scatter.DTBFloat16
	rI64  = scatter.DTInt64
	rI32  = scatter.DTInt32
	rI16  = scatter.DTInt16
	rI8   = scatter.DTInt8
	rU8   = scatter.DTUint8
	rBool = scatter.DTBool
)

// The profiles a rule's truth holds for, where versions differ (PROFILES.md).
var (
	from28       = []scatter.Profile{scatter.Torch2, scatter.Torch28}                  // PyTorch ≥ 2.8 (verified: 2.8, 2.11, 2.13, 2.14)
	from214      = []scatter.Profile{scatter.Torch2}                                   // PyTorch ≥ 2.14 (verified: 2.14)
	onlyTorch113 = []scatter.Profile{scatter.Torch113}                                 // PyTorch 1.13
	torch2x      = []scatter.Profile{scatter.Torch2, scatter.Torch28, scatter.Torch26} // PyTorch 2 (verified: 2.6, 2.8, 2.14)
	before28     = []scatter.Profile{scatter.Torch113, scatter.Torch26}
	before214    = []scatter.Profile{scatter.Torch113, scatter.Torch26, scatter.Torch28}
)

// z returns zeros of dtype dt and shape s.
func z(dt scatter.DType, s ...int) scatter.Tensor { return full(dt, 0, s...) }

// fail returns the breaking half of a pair: call c raises code.
func fail(c scatter.Call, code scatter.Code) Case { return Case{Call: c, WantErr: code} }

// ok returns the keeping half of a pair: call c returns want.
func ok(c scatter.Call, want scatter.Tensor) Case { return Case{Call: c, Want: want} }

func rules() []Case {
	var pairs []rulePair
	pairs = append(pairs, dimRules()...)
	pairs = append(pairs, indexDTypeRules()...)
	pairs = append(pairs, dtypeMismatchRules()...)
	pairs = append(pairs, rankAndSizeRules()...)
	pairs = append(pairs, indexValueRules()...)
	pairs = append(pairs, reduceNameRules()...)
	pairs = append(pairs, unsupportedDTypeRules()...)
	pairs = append(pairs, overflowRules()...)
	pairs = append(pairs, indexReduceRules()...)
	pairs = append(pairs, torchScatterRules()...)
	pairs = append(pairs, fsharpRules()...)
	var cs []Case
	for _, p := range pairs {
		cs = append(cs, p.cases()...)
	}
	return cs
}

// dimRules: dim must lie in [-n, n-1], n = max(self.dim(), 1), checked
// first, even for an empty index (SEMANTICS.md §1.1, §1.3 step 1, §6.1 step
// 2, §7); torch_scatter wraps dim against src with Python's indexing (§8).
func dimRules() []rulePair {
	const src = "SEMANTICS.md §1.1, §1.3 step 1"
	scatterCall := func(dim int) scatter.Scatter {
		return scatter.Scatter{Self: z(rF32, 2, 3), Dim: dim, Index: shape(i64(1, 0, 1), 1, 3), Src: shape(f32(5, 6, 7), 1, 3)}
	}
	scatter0d := func(dim int) scatter.Scatter {
		return scatter.Scatter{Self: shape(f32(5)), Dim: dim, Index: shape(i64(0)), Src: shape(f32(7))}
	}
	addEmpty := func(dim int) scatter.ScatterAdd {
		return scatter.ScatterAdd{Self: f32(1, 2, 3), Dim: dim, Index: z(rI64, 0), Src: f32(9)}
	}
	gather := func(dim int) scatter.Gather {
		return scatter.Gather{Input: shape(i64(1, 2, 3, 4), 2, 2), Dim: dim, Index: shape(i64(0, 0, 1, 0), 2, 2)}
	}
	gatherEmpty := func(dim int) scatter.Gather {
		return scatter.Gather{Input: f32(1, 2, 3), Dim: dim, Index: z(rI64, 0)}
	}
	reduce := func(dim int) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: z(rF32, 2, 2), Dim: dim, Index: shape(i64(1, 1, 0, 0), 2, 2),
			Src: shape(f32(1, 2, 3, 4), 2, 2), Reduce: scatter.ReduceSum}
	}
	indexReduce := func(dim int) scatter.IndexReduce {
		return scatter.IndexReduce{Self: z(rF32, 2, 3), Dim: dim, Index: i64(2, 0),
			Source: shape(f32(1, 2, 3, 4), 2, 2), Reduce: scatter.ReduceAmax}
	}
	ts1 := func(dim int) scatter.TorchScatterAdd {
		return scatter.TorchScatterAdd{Src: f32(1, 2, 3), Index: i64(0, 0, 1), Dim: scatter.Ptr(dim)}
	}
	ts2 := func(dim int) scatter.TorchScatter {
		return scatter.TorchScatter{Src: f32(1, 2, 3), Index: i64(0, 0, 1), Dim: scatter.Ptr(dim), Reduce: scatter.ReduceSum}
	}
	return []rulePair{
		{op: scatter.OpScatter, dt: rF32, kind: shapeRule, rule: "dim-range", source: src + "; §12 #5, #22",
			keep: ok(scatterCall(-2), shape(f32(0, 6, 0, 5, 0, 7), 2, 3)),
			brk:  fail(scatterCall(2), scatter.ErrDimOutOfRange)},
		{op: scatter.OpScatter, dt: rF32, kind: shapeRule, rule: "dim-range-0d-self", source: src + " (0-d is 1-d); §12 #23, #26",
			keep: ok(scatter0d(-1), shape(f32(7))),
			brk:  fail(scatter0d(1), scatter.ErrDimOutOfRange)},
		{op: scatter.OpScatterAdd, dt: rF32, kind: shapeRule, rule: "dim-range-empty-index", source: src + " (before the empty-index skip); §12 #18",
			keep: ok(addEmpty(0), f32(1, 2, 3)),
			brk:  fail(addEmpty(5), scatter.ErrDimOutOfRange)},
		{op: scatter.OpGather, dt: rI64, kind: shapeRule, rule: "dim-range", source: "SEMANTICS.md §7",
			keep: ok(gather(-1), shape(i64(1, 1, 4, 3), 2, 2)),
			brk:  fail(gather(2), scatter.ErrDimOutOfRange)},
		{op: scatter.OpGather, dt: rF32, kind: shapeRule, rule: "dim-range-empty-index", source: "SEMANTICS.md §7 (dim is still wrapped)",
			keep: ok(gatherEmpty(0), z(rF32, 0)),
			brk:  fail(gatherEmpty(1), scatter.ErrDimOutOfRange)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: shapeRule, rule: "dim-range", source: src,
			keep: ok(reduce(1), shape(f32(0, 3, 7, 0), 2, 2)),
			brk:  fail(reduce(-3), scatter.ErrDimOutOfRange)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: shapeRule, rule: "dim-range", source: "SEMANTICS.md §6.1 step 2",
			keep: ok(indexReduce(-1), shape(f32(2, 0, 1, 4, 0, 3), 2, 3)),
			brk:  fail(indexReduce(2), scatter.ErrDimOutOfRange)},
		{op: scatter.OpTorchScatterAdd, dt: rF32, kind: shapeRule, rule: "dim-range", source: "SEMANTICS.md §8.3 step 1 (range(src.dim())[dim])",
			keep: ok(ts1(-1), f32(3, 3)),
			brk:  fail(ts1(1), scatter.ErrDimOutOfRange)},
		{op: scatter.OpTorchScatterAdd, dt: rF32, kind: shapeRule, rule: "dim-range-0d-src", source: "SEMANTICS.md §8.3 step 1 (a 0-d src has no valid dim)",
			keep: ok(scatter.TorchScatterAdd{Src: f32(5), Index: i64(0)}, f32(5)),
			brk:  fail(scatter.TorchScatterAdd{Src: shape(f32(5)), Index: shape(i64(0))}, scatter.ErrDimOutOfRange)},
		{op: scatter.OpTorchScatter, dt: rF32, kind: shapeRule, rule: "dim-range", source: "SEMANTICS.md §8.1 (size[dim] on src's size list: IndexError)",
			keep: ok(ts2(0), f32(3, 3)),
			brk:  fail(ts2(-2), scatter.ErrDimOutOfRange)},
	}
}

// indexDTypeRules: a non-empty scatter/gather index must be int64 under
// torch-1.13 and int32 or int64 under torch-2 and torch-2.8 (≥ 2.8); index_reduce takes
// int32 and int64 in both, even when empty; nothing else anywhere
// (SEMANTICS.md §1.3 step 2, §6.1 step 4, §7, §10).
func indexDTypeRules() []rulePair {
	const src = "SEMANTICS.md §1.3 step 2, §10"
	sc := func(index scatter.Tensor) scatter.Scatter {
		return scatter.Scatter{Self: z(rF32, 3), Index: index, Src: f32(1, 2)}
	}
	sa := func(index scatter.Tensor) scatter.ScatterAdd {
		return scatter.ScatterAdd{Self: z(rF32, 3), Index: index, Src: f32(1, 2, 3)}
	}
	sr := func(index scatter.Tensor) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: f32(1, 1), Index: index, Src: f32(4, 2), Reduce: scatter.ReduceAmax}
	}
	srProd := func(index scatter.Tensor) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: f32(1, 1), Index: index, Src: f32(5, 6), Reduce: scatter.ReduceProd}
	}
	ga := func(index scatter.Tensor) scatter.Gather { return scatter.Gather{Input: i64(1, 2, 3), Index: index} }
	gf := func(index scatter.Tensor) scatter.Gather { return scatter.Gather{Input: f32(1, 2, 3), Index: index} }
	ir := func(index scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: full(rF32, 2, 3), Index: index, Source: f32(5, 1), Reduce: scatter.ReduceAmin, ExcludeSelf: true}
	}
	irEmpty := func(index scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: f32(1, 2, 3), Index: index, Source: z(rF32, 0), Reduce: scatter.ReduceProd}
	}
	int32Pair := func(op scatter.Op, dt scatter.DType, c scatter.Call, want scatter.Tensor) rulePair {
		return rulePair{op: op, dt: dt, kind: dtypeRule, rule: "index-int32", source: src + " (int32 accepted from PyTorch 2.8); §12 #14, #115",
			keep: Case{Call: c, Want: want, Profiles: from28},
			brk:  Case{Call: c, WantErr: scatter.ErrIndexDType, Profiles: before28}}
	}
	return []rulePair{
		{op: scatter.OpScatter, dt: rF32, kind: dtypeRule, rule: "index-int16", source: src,
			keep: ok(sc(i64(2, 0)), f32(2, 0, 1)),
			brk:  fail(sc(i16(2, 0)), scatter.ErrIndexDType)},
		int32Pair(scatter.OpScatter, rF32, sc(i32(2, 0)), f32(2, 0, 1)),
		int32Pair(scatter.OpScatterAdd, rF32, sa(i32(0, 0, 2)), f32(3, 0, 3)),
		int32Pair(scatter.OpScatterReduce, rF32, sr(i32(1, 1)), f32(1, 4)),
		int32Pair(scatter.OpGather, rI64, ga(i32(2, 2, 0)), i64(3, 3, 1)),
		{op: scatter.OpScatterReduce, dt: rF32, kind: dtypeRule, rule: "index-uint8", source: src,
			keep: ok(srProd(i64(1, 0)), f32(6, 5)),
			brk:  fail(srProd(u8(1, 0)), scatter.ErrIndexDType)},
		{op: scatter.OpGather, dt: rF32, kind: dtypeRule, rule: "index-int16", source: "SEMANTICS.md §7",
			keep: ok(gf(i64(1)), f32(2)),
			brk:  fail(gf(i16(1)), scatter.ErrIndexDType)},
		{op: scatter.OpScatter, dt: rF32, kind: dtypeRule, rule: "index-float", source: src + " (only a non-empty index is checked); §12 #15",
			keep: ok(sc(z(rF32, 0)), z(rF32, 3)),
			brk:  fail(sc(f32(0, 1)), scatter.ErrIndexDType)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: dtypeRule, rule: "index-int16", source: "SEMANTICS.md §6.1 step 4; §12 #93, #94",
			keep: ok(ir(i32(2, 2)), f32(2, 2, 1)),
			brk:  fail(ir(i16(2, 2)), scatter.ErrIndexDType)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: dtypeRule, rule: "index-int16-empty", source: "SEMANTICS.md §6.1 step 4 (checked even when empty)",
			keep: ok(irEmpty(z(rI64, 0)), f32(1, 2, 3)),
			brk:  fail(irEmpty(z(rI16, 0)), scatter.ErrIndexDType)},
	}
}

// dtypeMismatchRules: src/source must have self's dtype exactly, with no
// promotion, checked even for an empty index (SEMANTICS.md §1.3 step 3,
// §4, §6.1 step 5).
func dtypeMismatchRules() []rulePair {
	const src = "SEMANTICS.md §1.3 step 3, §4"
	sc := func(index, s scatter.Tensor) scatter.Scatter {
		return scatter.Scatter{Self: z(rF32, 3), Index: index, Src: s}
	}
	sa := func(s scatter.Tensor) scatter.ScatterAdd {
		return scatter.ScatterAdd{Self: i64(1, 2, 3), Index: i64(0, 0), Src: s}
	}
	sr := func(s scatter.Tensor) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: bf16(1, 2), Index: i64(1, 1), Src: s, Reduce: scatter.ReduceAmax}
	}
	ir := func(s scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: z(rF32, 2), Index: i64(1), Source: s, Reduce: scatter.ReduceAmax}
	}
	return []rulePair{
		{op: scatter.OpScatter, dt: rF32, kind: dtypeRule, rule: "src-dtype", source: src + "; §12 #19",
			keep: ok(sc(i64(0, 1), f32(1, 2)), f32(1, 2, 0)),
			brk:  fail(sc(i64(0, 1), f64(1, 2)), scatter.ErrDTypeMismatch)},
		{op: scatter.OpScatter, dt: rF32, kind: dtypeRule, rule: "src-dtype-empty-index", source: src + " (checked even when empty); §12 #17",
			keep: ok(sc(z(rI64, 0), f32(1, 2)), z(rF32, 3)),
			brk:  fail(sc(z(rI64, 0), f64(1, 2)), scatter.ErrDTypeMismatch)},
		{op: scatter.OpScatterAdd, dt: rI64, kind: dtypeRule, rule: "src-dtype", source: src,
			keep: ok(sa(i64(5, 6)), i64(12, 2, 3)),
			brk:  fail(sa(i32(5, 6)), scatter.ErrDTypeMismatch)},
		{op: scatter.OpScatterReduce, dt: rBF16, kind: dtypeRule, rule: "src-dtype", source: src,
			keep: ok(sr(bf16(3, 0.5)), bf16(1, 3)),
			brk:  fail(sr(f16(3, 0.5)), scatter.ErrDTypeMismatch)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: dtypeRule, rule: "source-dtype", source: "SEMANTICS.md §6.1 step 5",
			keep: ok(ir(f32(3)), f32(0, 3)),
			brk:  fail(ir(f64(3)), scatter.ErrDTypeMismatch)},
	}
}

// rankAndSizeRules: nd(index) == nd(self) (and nd(src)), with the
// IndexError quirk when src has fewer dims; index.size(d) <= self.size(d)
// for d != dim and <= src.size(d) for every d; the whole check skipped for
// an empty index (SEMANTICS.md §1.3 step 4, §7).
func rankAndSizeRules() []rulePair {
	const src = "SEMANTICS.md §1.3 step 4"
	rankSelf := func(index, s scatter.Tensor) scatter.Scatter {
		return scatter.Scatter{Self: z(rF32, 3, 5), Index: index, Src: s}
	}
	rankSrc := func(s scatter.Tensor) scatter.Scatter {
		return scatter.Scatter{Self: z(rF32, 3), Index: i64(0, 1), Src: s}
	}
	rankSrcLess := func(s scatter.Tensor) scatter.ScatterAdd {
		return scatter.ScatterAdd{Self: z(rF32, 4, 1), Index: z(rI64, 3, 1), Src: s}
	}
	gatherRank := func(index scatter.Tensor) scatter.Gather {
		return scatter.Gather{Input: shape(f32(1, 2, 3, 4), 2, 2), Index: index}
	}
	src0d := func(index scatter.Tensor) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: z(rF32, 3), Index: index, Src: shape(f32(5)), Reduce: scatter.ReduceSum}
	}
	sizeSelf := func(index scatter.Tensor) scatter.Scatter {
		return scatter.Scatter{Self: z(rF32, 3, 2), Index: index, Src: full(rF32, 1, 2, 3)}
	}
	sizeSrcDim := func(s scatter.Tensor) scatter.ScatterAdd {
		return scatter.ScatterAdd{Self: z(rF32, 2, 2), Index: shape(i64(0, 1, 0), 3, 1), Src: s}
	}
	sizeSrc := func(s scatter.Tensor) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: z(rF32, 3, 6), Index: shape(i64(0, 1, 2, 0, 1, 2), 1, 6), Src: s, Reduce: scatter.ReduceSum}
	}
	valueSize := func(index scatter.Tensor) scatter.Scatter {
		return scatter.Scatter{Self: z(rF32, 2, 2), Dim: 1, Index: index, Value: scatter.Ptr(scatter.Float(1.5))}
	}
	gatherSize := func(index scatter.Tensor) scatter.Gather {
		return scatter.Gather{Input: shape(i64(1, 2, 3, 4, 5, 6), 2, 3), Dim: 1, Index: index}
	}
	emptyAdd := func(index scatter.Tensor) scatter.ScatterAdd {
		return scatter.ScatterAdd{Self: z(rF32, 3), Index: index, Src: full(rF32, 1, 1)}
	}
	emptyReduce := func(index scatter.Tensor) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: f32(1, 2), Index: index, Src: full(rF32, 1, 1), Reduce: scatter.ReduceAmax}
	}
	emptyGather := func(index scatter.Tensor) scatter.Gather {
		return scatter.Gather{Input: z(rF32, 3), Index: index}
	}
	return []rulePair{
		{op: scatter.OpScatter, dt: rF32, kind: shapeRule, rule: "rank-index-vs-self", source: src + "a; §12 #11",
			keep: ok(rankSelf(shape(i64(0, 1), 1, 2), full(rF32, 1, 1, 2)), shape(f32(1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0), 3, 5)),
			brk:  fail(rankSelf(i64(0, 1), full(rF32, 1, 2)), scatter.ErrShapeMismatch)},
		{op: scatter.OpScatter, dt: rF32, kind: shapeRule, rule: "rank-src-more-dims", source: src + "d; §12 #12",
			keep: ok(rankSrc(full(rF32, 1, 2)), f32(1, 1, 0)),
			brk:  fail(rankSrc(full(rF32, 1, 2, 1)), scatter.ErrShapeMismatch)},
		{op: scatter.OpScatterAdd, dt: rF32, kind: shapeRule, rule: "rank-src-fewer-dims", source: src + "c (the IndexError quirk: src.size(d) read before src's rank is checked); §12 #13",
			keep: ok(rankSrcLess(full(rF32, 1, 3, 1)), shape(f32(3, 0, 0, 0), 4, 1)),
			brk:  fail(rankSrcLess(full(rF32, 1, 3)), scatter.ErrDimOutOfRange)},
		{op: scatter.OpGather, dt: rF32, kind: shapeRule, rule: "rank-index-vs-input", source: "SEMANTICS.md §7",
			keep: ok(gatherRank(shape(i64(1, 0), 1, 2)), shape(f32(3, 2), 1, 2)),
			brk:  fail(gatherRank(i64(1, 0)), scatter.ErrShapeMismatch)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: shapeRule, rule: "size-0d-src", source: src + "c (a 0-d src has size 1); §12 #27",
			keep: ok(src0d(i64(0)), f32(5, 0, 0)),
			brk:  fail(src0d(i64(0, 0)), scatter.ErrShapeMismatch)},
		{op: scatter.OpScatter, dt: rF32, kind: shapeRule, rule: "size-index-vs-self", source: src + "b; §12 #10",
			keep: ok(sizeSelf(z(rI64, 1, 2)), shape(f32(1, 1, 0, 0, 0, 0), 3, 2)),
			brk:  fail(sizeSelf(z(rI64, 1, 3)), scatter.ErrShapeMismatch)},
		{op: scatter.OpScatterAdd, dt: rF32, kind: shapeRule, rule: "size-index-vs-src-along-dim", source: src + "c (index.size(dim) may exceed self's, not src's); §12 #6",
			keep: ok(sizeSrcDim(shape(f32(1, 2, 3), 3, 1)), shape(f32(4, 0, 2, 0), 2, 2)),
			brk:  fail(sizeSrcDim(shape(f32(1, 2), 2, 1)), scatter.ErrShapeMismatch)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: shapeRule, rule: "size-index-vs-src", source: src + "c; §12 #9",
			keep: ok(sizeSrc(exArange(rF32, 1, 2, 6)), shape(f32(1, 0, 0, 4, 0, 0, 0, 2, 0, 0, 5, 0, 0, 0, 3, 0, 0, 6), 3, 6)),
			brk:  fail(sizeSrc(exArange(rF32, 1, 2, 5)), scatter.ErrShapeMismatch)},
		{op: scatter.OpScatter, dt: rF32, kind: shapeRule, rule: "size-value-index-vs-self", source: src + "b, e (value variant: no src clause); §12 #34",
			keep: ok(valueSize(shape(i64(0, 0, 0, 1, 1, 1), 2, 3)), shape(f32(1.5, 0, 0, 1.5), 2, 2)),
			brk:  fail(valueSize(z(rI64, 3, 1)), scatter.ErrShapeMismatch)},
		{op: scatter.OpGather, dt: rI64, kind: shapeRule, rule: "size-index-vs-input", source: "SEMANTICS.md §7 (index.size(dim) is unrestricted); §12 #110, #111",
			keep: ok(gatherSize(shape(i64(1, 0, 2, 2), 1, 4)), shape(i64(2, 1, 3, 3), 1, 4)),
			brk:  fail(gatherSize(shape(i64(1, 1, 1), 3, 1)), scatter.ErrShapeMismatch)},
		{op: scatter.OpScatterAdd, dt: rF32, kind: shapeRule, rule: "empty-index-skips-shape-check", source: src + " (skipped when index.numel() == 0); §12 #16",
			keep: ok(emptyAdd(z(rI64, 0, 2, 2)), z(rF32, 3)),
			brk:  fail(emptyAdd(z(rI64, 1, 2, 2)), scatter.ErrShapeMismatch)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: shapeRule, rule: "empty-index-skips-shape-check", source: src + " (skipped when index.numel() == 0)",
			keep: ok(emptyReduce(z(rI64, 0, 3)), f32(1, 2)),
			brk:  fail(emptyReduce(z(rI64, 1, 3)), scatter.ErrShapeMismatch)},
		{op: scatter.OpGather, dt: rF32, kind: shapeRule, rule: "empty-index-skips-checks", source: "SEMANTICS.md §7 (an empty index of any dtype and rank); §12 #113",
			keep: ok(emptyGather(z(rF32, 0, 4)), z(rF32, 0, 4)),
			brk:  fail(emptyGather(z(rF32, 1, 4)), scatter.ErrIndexDType)},
	}
}

// indexValueRules: every index value must lie in [0, size(dim)); negative
// values are never wrapped (SEMANTICS.md §1.3 step 7, §6.1 step 9, §7,
// §8.1).
func indexValueRules() []rulePair {
	const src = "SEMANTICS.md §1.3 step 7"
	sc := func(index scatter.Tensor) scatter.Scatter {
		return scatter.Scatter{Self: z(rF32, 3), Index: index, Src: f32(1)}
	}
	sa := func(index scatter.Tensor) scatter.ScatterAdd {
		return scatter.ScatterAdd{Self: z(rF32, 3), Index: index, Src: f32(1)}
	}
	sr := func(index scatter.Tensor) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: z(rF32, 3), Index: index, Src: f32(1), Reduce: scatter.ReduceAmax}
	}
	ga := func(index scatter.Tensor) scatter.Gather { return scatter.Gather{Input: i64(1, 2, 3), Index: index} }
	srExcl := func(index scatter.Tensor) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: full(rF32, 7, 3), Index: index, Src: f32(1, 2), Reduce: scatter.ReduceSum, ExcludeSelf: true}
	}
	val := func(index scatter.Tensor) scatter.Scatter {
		return scatter.Scatter{Self: z(rF32, 2, 3), Dim: 1, Index: index, Value: scatter.Ptr(scatter.Int(4))}
	}
	zeroSize := func(self scatter.Tensor) scatter.ScatterAdd {
		return scatter.ScatterAdd{Self: self, Index: z(rI64, 1, 3), Src: full(rF32, 1, 1, 3)}
	}
	ir := func(index scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: z(rF32, 3), Index: index, Source: f32(1), Reduce: scatter.ReduceAmax}
	}
	irExcl := func(index scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: full(rF32, 7, 3, 2), Index: index, Source: full(rF32, 1, 2, 2), Reduce: scatter.ReduceProd, ExcludeSelf: true}
	}
	ts := func(index scatter.Tensor) scatter.TorchScatter {
		return scatter.TorchScatter{Src: full(rF32, 1, 2), Index: index, Reduce: scatter.ReduceSum}
	}
	tsDimSize := func(n int) scatter.TorchScatter {
		return scatter.TorchScatter{Src: f32(1, 3, 2, 4, 5, 6), Index: i64(0, 1, 0, 1, 1, 3), DimSize: scatter.Ptr(n), Reduce: scatter.ReduceSum}
	}
	ts1DimSize := func(n *int) scatter.TorchScatterAdd {
		return scatter.TorchScatterAdd{Src: f32(1, 2), Index: i64(0, 2), DimSize: n, FillValue: scatter.Float(1.5)}
	}
	oor := scatter.ErrIndexOutOfRange
	return []rulePair{
		{op: scatter.OpScatter, dt: rF32, kind: valueRule, rule: "index-equals-size", source: src + "; §12 #20",
			keep: ok(sc(i64(2)), f32(0, 0, 1)),
			brk:  fail(sc(i64(3)), oor)},
		{op: scatter.OpScatter, dt: rF32, kind: valueRule, rule: "index-negative", source: src + " (never wrapped); §12 #21",
			keep: ok(sc(i64(0)), f32(1, 0, 0)),
			brk:  fail(sc(i64(-1)), oor)},
		{op: scatter.OpScatterAdd, dt: rF32, kind: valueRule, rule: "index-equals-size", source: src,
			keep: ok(sa(i64(2)), f32(0, 0, 1)),
			brk:  fail(sa(i64(3)), oor)},
		{op: scatter.OpScatterAdd, dt: rF32, kind: valueRule, rule: "index-negative", source: src + " (never wrapped)",
			keep: ok(sa(i64(0)), f32(1, 0, 0)),
			brk:  fail(sa(i64(-1)), oor)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: valueRule, rule: "index-equals-size", source: src,
			keep: ok(sr(i64(2)), f32(0, 0, 1)),
			brk:  fail(sr(i64(3)), oor)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: valueRule, rule: "index-negative", source: src + " (never wrapped)",
			keep: ok(sr(i64(0)), f32(1, 0, 0)),
			brk:  fail(sr(i64(-1)), oor)},
		{op: scatter.OpGather, dt: rI64, kind: valueRule, rule: "index-equals-size", source: "SEMANTICS.md §7",
			keep: ok(ga(i64(2, 0)), i64(3, 1)),
			brk:  fail(ga(i64(3, 0)), oor)},
		{op: scatter.OpGather, dt: rI64, kind: valueRule, rule: "index-negative", source: "SEMANTICS.md §7 (never wrapped); §12 #112",
			keep: ok(ga(i64(1, 0)), i64(2, 1)),
			brk:  fail(ga(i64(1, -1)), oor)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: valueRule, rule: "index-range-include_self=false", source: src + "; SEMANTICS.md after §12 (identity pre-fill)",
			keep: ok(srExcl(i64(1, 2)), f32(7, 1, 2)),
			brk:  fail(srExcl(i64(1, 5)), oor)},
		{op: scatter.OpScatter, dt: rF32, kind: valueRule, rule: "value-index-range", source: src,
			keep: ok(val(shape(i64(0, 2), 1, 2)), shape(f32(4, 0, 4, 0, 0, 0), 2, 3)),
			brk:  fail(val(shape(i64(0, 3), 1, 2)), oor)},
		{op: scatter.OpScatterAdd, dt: rF32, kind: valueRule, rule: "index-range-zero-size-dim", source: src + "; §12 #28",
			keep: ok(zeroSize(z(rF32, 1, 3)), full(rF32, 1, 1, 3)),
			brk:  fail(zeroSize(z(rF32, 0, 3)), oor)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: valueRule, rule: "index-equals-size", source: "SEMANTICS.md §6.1 step 9",
			keep: ok(ir(i64(2)), f32(0, 0, 1)),
			brk:  fail(ir(i64(3)), oor)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: valueRule, rule: "index-negative", source: "SEMANTICS.md §6.1 step 9 (never wrapped); §12 #98",
			keep: ok(ir(i64(0)), f32(1, 0, 0)),
			brk:  fail(ir(i64(-1)), oor)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: valueRule, rule: "index-negative-include_self=false", source: "SEMANTICS.md §6.2 (index_fill_ wraps, the reduction does not); §12 #103",
			keep: ok(irExcl(i64(0, 1)), shape(f32(1, 1, 1, 1, 7, 7), 3, 2)),
			brk:  fail(irExcl(i64(0, -1)), oor)},
		{op: scatter.OpTorchScatter, dt: rF32, kind: valueRule, rule: "index-negative", source: "SEMANTICS.md after §12 (scatter_sum(ones(2), [-1,-2]): inferred size 0)",
			keep: ok(ts(i64(1, 0)), f32(1, 1)),
			brk:  fail(ts(i64(-1, -2)), oor)},
		{op: scatter.OpTorchScatter, dt: rF32, kind: valueRule, rule: "dim_size-too-small", source: "SEMANTICS.md §8.1 and after §12 (dim_size=2)",
			keep: ok(tsDimSize(5), f32(3, 12, 0, 6, 0)),
			brk:  fail(tsDimSize(2), oor)},
		{op: scatter.OpTorchScatterAdd, dt: rF32, kind: valueRule, rule: "dim_size-too-small", source: "SEMANTICS.md §8.3 steps 5-6 (fill_value + sum; torch's bound check)",
			keep: ok(ts1DimSize(nil), f32(2.5, 1.5, 3.5)),
			brk:  fail(ts1DimSize(scatter.Ptr(2)), oor)},
	}
}

// reduceNameRules: each operation takes its own reduce names; any other is
// invalid_argument, checked before the empty-index skip (SEMANTICS.md §1.3
// step 6, §6.1 step 1, §8.1).
func reduceNameRules() []rulePair {
	const src = "SEMANTICS.md §1.3 step 6"
	sc := func(r scatter.Reduce) scatter.Scatter {
		return scatter.Scatter{Self: full(rF32, 1, 3), Index: i64(0), Src: full(rF32, 1, 1), Reduce: r}
	}
	scEmpty := func(r scatter.Reduce) scatter.Scatter {
		return scatter.Scatter{Self: full(rF32, 1, 2), Index: z(rI64, 0), Src: z(rF32, 0), Reduce: r}
	}
	sr := func(r scatter.Reduce) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: f32(1, 2), Index: i64(0, 0), Src: f32(3, 4), Reduce: r}
	}
	srEmpty := func(r scatter.Reduce) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: f32(1, 2), Index: z(rI64, 0), Src: z(rF32, 0), Reduce: r}
	}
	ir := func(r scatter.Reduce) scatter.IndexReduce {
		return scatter.IndexReduce{Self: full(rF32, 2, 3), Index: i64(0), Source: f32(3), Reduce: r}
	}
	ts := func(r scatter.Reduce) scatter.TorchScatter {
		return scatter.TorchScatter{Src: f32(1, 2, 3), Index: i64(0, 0, 1), Reduce: r}
	}
	bad := scatter.ErrInvalidArgument
	return []rulePair{
		{op: scatter.OpScatter, dt: rF32, kind: valueRule, rule: "reduce-name", source: src + " (add or multiply); §12 #40",
			keep: ok(sc(scatter.ReduceAdd), f32(2, 1, 1)),
			brk:  fail(sc(scatter.ReduceSum), bad)},
		{op: scatter.OpScatter, dt: rF32, kind: valueRule, rule: "reduce-empty-string", source: src + " (reduce='' is a name, not the default: reduce argument must be either add or multiply)",
			keep: ok(sc(scatter.ReduceNone), f32(1, 1, 1)),
			brk:  fail(sc(scatter.ReduceEmpty), bad)},
		{op: scatter.OpTorchScatter, dt: rF32, kind: valueRule, rule: "reduce-empty-string", source: "SEMANTICS.md §8.1 (reduce='' is not the default 'sum': ValueError)",
			keep: ok(ts(scatter.ReduceNone), f32(3, 3)),
			brk:  fail(ts(scatter.ReduceEmpty), bad)},
		{op: scatter.OpScatter, dt: rF32, kind: valueRule, rule: "reduce-name-empty-index", source: src + " (in meta, so also for an empty index); §12 #41",
			keep: ok(scEmpty(scatter.ReduceMultiply), f32(1, 1)),
			brk:  fail(scEmpty("bogus"), bad)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: valueRule, rule: "reduce-name", source: src + " (sum, prod, mean, amax or amin); §12 #58",
			keep: ok(sr(scatter.ReduceSum), f32(8, 2)),
			brk:  fail(sr(scatter.ReduceAdd), bad)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: valueRule, rule: "reduce-name-empty-index", source: src + " (in meta, so also for an empty index)",
			keep: ok(srEmpty(scatter.ReduceAmax), f32(1, 2)),
			brk:  fail(srEmpty("maximum"), bad)},
		{op: scatter.OpScatterReduce, dt: rF32, kind: valueRule, rule: "reduce-alias-max", source: "PyTorch 2's get_reduction_enum (ATen/native/ReductionType.h) takes max and min for amax and amin; 1.13 rejects them",
			keep: Case{Call: sr(scatter.ReduceMax), Want: f32(4, 2), Profiles: torch2x},
			brk:  Case{Call: sr(scatter.ReduceMax), WantErr: bad, Profiles: onlyTorch113}},
		{op: scatter.OpScatterReduce, dt: rF32, kind: valueRule, rule: "reduce-alias-min", source: "PyTorch 2's get_reduction_enum (ATen/native/ReductionType.h) takes max and min for amax and amin; 1.13 rejects them",
			keep: Case{Call: sr(scatter.ReduceMin), Want: f32(1, 2), Profiles: torch2x},
			brk:  Case{Call: sr(scatter.ReduceMin), WantErr: bad, Profiles: onlyTorch113}},
		{op: scatter.OpIndexReduce, dt: rF32, kind: valueRule, rule: "reduce-name", source: "SEMANTICS.md §6.1 step 1 (prod, mean, amax or amin: no sum); §12 #95",
			keep: ok(ir(scatter.ReduceProd), f32(6, 2, 2)),
			brk:  fail(ir(scatter.ReduceSum), bad)},
		{op: scatter.OpTorchScatter, dt: rF32, kind: valueRule, rule: "reduce-name", source: "SEMANTICS.md §8.1 (sum, add, mul, mean, min or max; else ValueError)",
			keep: ok(ts(scatter.ReduceAdd), f32(3, 3)),
			brk:  fail(ts(scatter.ReduceAmax), bad)},
	}
}

// unsupportedDTypeRules: the dtype lists of SEMANTICS.md §4 (the suite has
// no complex dtypes, so bool is the only dtype some reductions refuse).
func unsupportedDTypeRules() []rulePair {
	const src = "SEMANTICS.md §4"
	sr := func(r scatter.Reduce) scatter.ScatterReduce {
		return scatter.ScatterReduce{Self: bools(true, false), Index: i64(0, 0), Src: bools(false, true), Reduce: r}
	}
	ir2d := func(self, source scatter.Tensor, r scatter.Reduce, excl bool) scatter.IndexReduce {
		return scatter.IndexReduce{Self: self, Index: i64(1), Source: source, Reduce: r, ExcludeSelf: excl}
	}
	b2 := func(v ...bool) scatter.Tensor { return shape(bools(v...), 2, 2) }
	b12 := func(v ...bool) scatter.Tensor { return shape(bools(v...), 1, 2) }
	const T, F = true, false
	unsup := scatter.ErrUnsupportedDType
	return []rulePair{
		{op: scatter.OpScatterReduce, dt: rBool, kind: dtypeRule, rule: "mean-bool", source: src + " (mean: no bool); §12 #64",
			keep: ok(sr(scatter.ReduceSum), bools(true, false)),
			brk:  fail(sr(scatter.ReduceMean), unsup)},
		{op: scatter.OpIndexReduce, dt: rBool, kind: dtypeRule, rule: "bool-1d-self", source: src + " (the 1-d path dispatches without bool); §12 #101, #102",
			keep: ok(ir2d(b2(F, F, T, F), b12(F, T), scatter.ReduceAmax, false), b2(F, F, T, T)),
			brk:  fail(ir2d(bools(F, F, T, F), bools(F), scatter.ReduceAmax, false), unsup)},
		{op: scatter.OpIndexReduce, dt: rBool, kind: dtypeRule, rule: "bool-include_self=false", source: src + " (the include_self=False init dispatches without bool)",
			keep: ok(ir2d(b2(T, T, T, F), b12(F, T), scatter.ReduceProd, false), b2(T, T, F, F)),
			brk:  fail(ir2d(b2(T, T, T, F), b12(F, T), scatter.ReduceProd, true), unsup)},
		{op: scatter.OpIndexReduce, dt: rBool, kind: dtypeRule, rule: "bool-mean", source: src + " (multi-dim bool mean fails in the floor division)",
			keep: ok(ir2d(b2(T, T, F, T), b12(T, F), scatter.ReduceAmin, false), b2(T, T, F, F)),
			brk:  fail(ir2d(b2(T, T, F, T), b12(T, F), scatter.ReduceMean, false), unsup)},
	}
}

// overflowRules: a scalar is converted to the tensor's dtype with c10's
// checked conversion; one that does not fit is value_overflow (SEMANTICS.md
// §2, §8.3 step 5).
func overflowRules() []rulePair {
	const src = "SEMANTICS.md §2 (Scalar::to<T>() is checked)"
	val := func(self scatter.Tensor, v scatter.Scalar) scatter.Scatter {
		return scatter.Scatter{Self: self, Index: i64(0), Value: scatter.Ptr(v)}
	}
	valAt1 := func(self scatter.Tensor, v scatter.Scalar) scatter.Scatter {
		return scatter.Scatter{Self: self, Index: i64(1), Value: scatter.Ptr(v)}
	}
	addVal := func(v scatter.Scalar) scatter.Scatter {
		return scatter.Scatter{Self: full(rI32, 3, 3), Index: i64(0, 0), Value: scatter.Ptr(v), Reduce: scatter.ReduceAdd}
	}
	fill := func(v scatter.Scalar) scatter.TorchScatterAdd {
		return scatter.TorchScatterAdd{Src: i8(1, 2), Index: i64(0, 0), FillValue: v}
	}
	over := scatter.ErrValueOverflow
	return []rulePair{
		{op: scatter.OpScatter, dt: rU8, kind: valueRule, rule: "value-overflow", source: src + "; §12 #31",
			keep: ok(val(z(rU8, 3), scatter.Int(255)), u8(255, 0, 0)),
			brk:  fail(val(z(rU8, 3), scatter.Int(300)), over)},
		{op: scatter.OpScatter, dt: rU8, kind: valueRule, rule: "value-negative-int-wraps", source: src + " (an unsigned target takes a negative int down to -max, wrapping: -255 is 1; -256 overflows; verified on torch 2.14.1, 2.6.0 and 1.13.1)",
			keep: ok(val(z(rU8, 3), scatter.Int(-255)), u8(1, 0, 0)),
			brk:  fail(val(z(rU8, 3), scatter.Int(-256)), over)},
		{op: scatter.OpScatter, dt: rI8, kind: valueRule, rule: "value-overflow-float", source: src + " (a float truncates toward zero; out of range overflows); §12 #30",
			keep: ok(val(z(rI8, 3), scatter.Float(-2.7)), i8(-2, 0, 0)),
			brk:  fail(val(z(rI8, 3), scatter.Float(300.5)), over)},
		{op: scatter.OpScatter, dt: rF16, kind: valueRule, rule: "value-overflow", source: src + " (a finite value beyond float16's max 65504 overflows; it does not round to inf)",
			keep: ok(valAt1(z(rF16, 2), scatter.Float(65504)), f16(0, 65504)),
			brk:  fail(valAt1(z(rF16, 2), scatter.Float(1e6)), over)},
		{op: scatter.OpScatter, dt: rF16, kind: valueRule, rule: "value-overflow-past-max", source: src + " (c10 checks the double before rounding: 65510 is past 65504, though it would round to it)",
			keep: ok(valAt1(z(rF16, 2), scatter.Float(65504)), f16(0, 65504)),
			brk:  fail(valAt1(z(rF16, 2), scatter.Float(65510)), over)},
		{op: scatter.OpScatter, dt: rF16, kind: valueRule, rule: "value-overflow-int", source: src + " (an int is checked against float16's range too)",
			keep: ok(valAt1(z(rF16, 2), scatter.Int(-65504)), f16(0, -65504)),
			brk:  fail(valAt1(z(rF16, 2), scatter.Int(100000)), over)},
		{op: scatter.OpScatter, dt: rBF16, kind: valueRule, rule: "value-overflow-past-max", source: src + " (3.39e38 is past bfloat16's max 3.3895e38, though it would round to it)",
			keep: ok(valAt1(z(rBF16, 2), scatter.Float(-3.3895313892515355e38)), bf16(0, -3.3895313892515355e38)),
			brk:  fail(valAt1(z(rBF16, 2), scatter.Float(3.39e38)), over)},
		{op: scatter.OpScatter, dt: rF32, kind: valueRule, rule: "value-overflow-past-max", source: src + " (the double 3.4028235e38, float32's max as printed, is past 3.4028234663852886e38)",
			keep: ok(valAt1(z(rF32, 2), scatter.Float(3.4028234663852886e38)), f32(0, 3.4028234663852886e38)),
			brk:  fail(valAt1(z(rF32, 2), scatter.Float(3.4028235e38)), over)},
		{op: scatter.OpScatter, dt: rI8, kind: valueRule, rule: "value-overflow-below-lowest", source: src + " (the range is checked before truncation: -128.5 is below -128)",
			keep: ok(val(z(rI8, 3), scatter.Float(-127.9)), i8(-127, 0, 0)),
			brk:  fail(val(z(rI8, 3), scatter.Float(-128.5)), over)},
		{op: scatter.OpScatter, dt: rU8, kind: valueRule, rule: "value-overflow-below-zero", source: src + " (a float below 0 overflows uint8, -0.5 too, which truncates to 0)",
			keep: ok(val(z(rU8, 3), scatter.Float(0.5)), u8(0, 0, 0)),
			brk:  fail(val(z(rU8, 3), scatter.Float(-0.5)), over)},
		{op: scatter.OpScatter, dt: rI32, kind: valueRule, rule: "value-overflow-reduce", source: src + " (the value is converted before reduce='add'); §12 #39",
			keep: ok(addVal(scatter.Int(-5)), i32(-7, 3, 3)),
			brk:  fail(addVal(scatter.Int(1<<40)), over)},
		{op: scatter.OpScatter, dt: rI64, kind: valueRule, rule: "value-nan", source: src + " (NaN into a dtype without NaN overflows)",
			keep: ok(valAt1(z(rI64, 2), scatter.Float(1e18)), i64(0, 1000000000000000000)),
			brk:  fail(valAt1(z(rI64, 2), scatter.Float(nan)), over)},
		{op: scatter.OpTorchScatterAdd, dt: rI8, kind: valueRule, rule: "fill_value-overflow", source: "SEMANTICS.md §8.3 step 5 (src.new_full(out_size, fill_value) converts checked)",
			keep: ok(fill(scatter.Int(-100)), i8(-97)),
			brk:  fail(fill(scatter.Int(300)), over)},
	}
}

// indexReduceRules: index_reduce's own shape rules: a vector (or 0-d)
// index, as many indices as source.size(dim), dim within source's dims,
// and source slices that broadcast to self's (SEMANTICS.md §6.1).
func indexReduceRules() []rulePair {
	const src = "SEMANTICS.md §6.1"
	vec := func(index scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: z(rF32, 3), Index: index, Source: f32(5), Reduce: scatter.ReduceAmax}
	}
	count := func(source scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: full(rF32, 1, 5, 3), Index: i64(0, 4, 2), Source: source, Reduce: scatter.ReduceProd}
	}
	bcast := func(self, source scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: self, Index: i64(1), Source: source, Reduce: scatter.ReduceAmax}
	}
	larger := func(source scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: z(rF32, 3, 1), Index: i64(0), Source: source, Reduce: scatter.ReduceAmax}
	}
	srcDim := func(source scatter.Tensor) scatter.IndexReduce {
		return scatter.IndexReduce{Self: z(rF32, 3, 2), Dim: 1, Index: i64(0), Source: source, Reduce: scatter.ReduceAmax}
	}
	mis := scatter.ErrShapeMismatch
	return []rulePair{
		{op: scatter.OpIndexReduce, dt: rF32, kind: shapeRule, rule: "index-vector", source: src + " step 3 (a 0-d index is accepted); §12 #96",
			keep: ok(vec(shape(i64(1))), f32(0, 5, 0)),
			brk:  fail(vec(shape(i64(1), 1, 1)), mis)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: shapeRule, rule: "index-count", source: src + " step 7; §12 #97",
			keep: ok(count(full(rF32, 2, 3, 3)), shape(f32(2, 2, 2, 1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2), 5, 3)),
			brk:  fail(count(full(rF32, 1, 4, 3)), mis)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: shapeRule, rule: "source-slice-broadcast", source: src + " step 8 (a source slice that broadcasts is accepted); §12 #100",
			keep: Case{Call: bcast(full(rF32, 1, 2, 3), shape(f32(4), 1, 1)), Want: shape(f32(1, 1, 1, 4, 4, 4), 2, 3), Profiles: onlyTorch113},
			brk:  fail(bcast(full(rF32, 1, 2, 3), shape(f32(4, 5), 1, 2)), mis)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: shapeRule, rule: "source-shape-exact", source: "PyTorch 2's index_func_meta_impl: source tensor shape must match self tensor shape, excluding the specified dimension (no broadcast)",
			keep: ok(bcast(full(rF32, 1, 2, 3), shape(f32(4, 5, 6), 1, 3)), shape(f32(1, 1, 1, 4, 5, 6), 2, 3)),
			brk:  Case{Call: bcast(full(rF32, 1, 2, 3), shape(f32(4), 1, 1)), WantErr: mis, Profiles: torch2x}},
		{op: scatter.OpIndexReduce, dt: rF32, kind: shapeRule, rule: "source-0-d", source: "PyTorch 2's index_func_meta_impl: a 0-d source needs a 0-d self; 1.13 takes it for a 1-d self",
			keep: Case{Call: vec(shape(i64(1))), Want: f32(0, 5, 0), Profiles: torch2x},
			brk:  Case{Call: scatter.IndexReduce{Self: z(rF32, 3), Index: shape(i64(1)), Source: shape(f32(5)), Reduce: scatter.ReduceAmax}, WantErr: mis, Profiles: torch2x}},
		{op: scatter.OpIndexReduce, dt: rF32, kind: shapeRule, rule: "source-slice-larger", source: src + " step 8 (output with shape [1] doesn't match the broadcast shape [2])",
			keep: ok(larger(shape(f32(4), 1, 1)), shape(f32(4, 0, 0), 3, 1)),
			brk:  fail(larger(shape(f32(4, 5), 1, 2)), mis)},
		{op: scatter.OpIndexReduce, dt: rF32, kind: shapeRule, rule: "dim-vs-source-dims", source: src + " step 6 (dim == 0 or dim < source.dim())",
			keep: ok(srcDim(shape(f32(5, 6, 7), 3, 1)), shape(f32(5, 0, 6, 0, 7, 0), 3, 2)),
			brk:  fail(srcDim(f32(5)), mis)},
	}
}

// torchScatterRules: torch_scatter's broadcasting of index to src, its
// dim_size, and 1.x's gen (SEMANTICS.md §8.1, §8.3).
func torchScatterRules() []rulePair {
	const src2, src1 = "SEMANTICS.md §8.1 (broadcast(index, src, dim))", "SEMANTICS.md §8.3 (1.x gen)"
	ts := func(s, index scatter.Tensor, dim *int) scatter.TorchScatter {
		return scatter.TorchScatter{Src: s, Index: index, Dim: dim, Reduce: scatter.ReduceSum}
	}
	src23 := func() scatter.Tensor { return shape(f32(1, 2, 3, 4, 5, 6), 2, 3) }
	idx23 := func(s ...int) scatter.Tensor { return shape(i64(0, 1, 0, 1, 1, 0), s...) }
	dimSize := func(n int) scatter.TorchScatter {
		return scatter.TorchScatter{Src: f32(1, 2), Index: i64(0, 1), DimSize: scatter.Ptr(n), Reduce: scatter.ReduceSum}
	}
	ts1 := func(s, index scatter.Tensor) scatter.TorchScatterAdd {
		return scatter.TorchScatterAdd{Src: s, Index: index}
	}
	ts1DimSize := func(n int) scatter.TorchScatterAdd {
		return scatter.TorchScatterAdd{Src: f32(1, 2), Index: i64(0, 1), DimSize: scatter.Ptr(n)}
	}
	mis := scatter.ErrShapeMismatch
	return []rulePair{
		{op: scatter.OpTorchScatter, dt: rF32, kind: shapeRule, rule: "broadcast-1d-index", source: src2 + " (a 1-d index has length src.size(dim))",
			keep: ok(ts(src23(), i64(1, 0, 1), nil), shape(f32(2, 4, 5, 10), 2, 2)),
			brk:  fail(ts(src23(), i64(1, 0), nil), mis)},
		{op: scatter.OpTorchScatter, dt: rF32, kind: shapeRule, rule: "broadcast-1d-index-length-1", source: src2 + " (or length 1, which expands)",
			keep: ok(ts(f32(1, 2, 3), i64(0), nil), f32(6)),
			brk:  fail(ts(f32(1, 2, 3), i64(0, 0), nil), mis)},
		{op: scatter.OpTorchScatter, dt: rF32, kind: shapeRule, rule: "broadcast-leading-dims", source: src2 + " (a k-d index matches src's leading k dims)",
			keep: ok(ts(exArange(rF32, 0, 2, 3, 2), idx23(2, 3), scatter.Ptr(1)), shape(f32(4, 6, 2, 3, 10, 11, 14, 16), 2, 2, 2)),
			brk:  fail(ts(exArange(rF32, 0, 2, 3, 2), idx23(3, 2), scatter.Ptr(1)), mis)},
		{op: scatter.OpTorchScatter, dt: rF32, kind: valueRule, rule: "dim_size-negative", source: "SEMANTICS.md §8.1 (zeros(size) with a negative size)",
			keep: ok(dimSize(3), f32(1, 2, 0)),
			brk:  fail(dimSize(-1), scatter.ErrInvalidArgument)},
		{op: scatter.OpTorchScatterAdd, dt: rF32, kind: shapeRule, rule: "1d-index-length", source: src1 + " step 2 (length src.size(dim) exactly; 1 does not broadcast)",
			keep: ok(ts1(src23(), i64(0, 1, 0)), shape(f32(4, 2, 10, 5), 2, 2)),
			brk:  fail(ts1(src23(), i64(0)), mis)},
		{op: scatter.OpTorchScatterAdd, dt: rF32, kind: shapeRule, rule: "rank-src-vs-index", source: src1 + " step 3 (ValueError: Number of dimensions of src and index tensor do not match)",
			keep: ok(ts1(shape(f32(1, 2, 3), 1, 3), shape(i64(2, 2, 0), 1, 3)), shape(f32(3, 0, 3), 1, 3)),
			brk:  fail(ts1(f32(1, 2, 3), shape(i64(2, 2, 0), 1, 3)), mis)},
		{op: scatter.OpTorchScatterAdd, dt: rF32, kind: shapeRule, rule: "broadcast-size-1", source: src1 + " step 4 (size-1 dims of either broadcast, others must match)",
			keep: ok(ts1(shape(f32(5, 7), 2, 1), shape(i64(0, 1, 1, 2, 2, 0), 2, 3)), shape(f32(5, 10, 0, 7, 0, 14), 2, 3)),
			brk:  fail(ts1(src23(), shape(i64(0, 1, 1, 0), 2, 2)), mis)},
		{op: scatter.OpTorchScatterAdd, dt: rF32, kind: valueRule, rule: "dim_size-negative", source: src1 + " step 5 (new_full with a negative dimension)",
			keep: ok(ts1DimSize(3), f32(1, 2, 0)),
			brk:  fail(ts1DimSize(-1), scatter.ErrInvalidArgument)},
	}
}

// fsharpRules: the F# Tensor library's scatter and gather rules
// (SEMANTICS.md §9): one index (or None) per target (scatter) or source
// (gather) dimension; None only within the other side's dims; at least one
// index for gather; indices broadcast to src (scatter); positions in range,
// never wrapped.
func fsharpRules() []rulePair {
	const src = "SEMANTICS.md §9"
	fsrc := func() scatter.Tensor {
		return shape(f64(0.0, 0.1, 0.2, 0.3, 1.0, 1.1, 1.2, 1.3, 2.0, 2.1, 2.2, 2.3), 3, 4)
	}
	none := scatter.Tensor{}
	sc := func(shp []int, s scatter.Tensor, idx ...scatter.Tensor) scatter.TensorScatter {
		return scatter.TensorScatter{Indices: idx, Shape: shp, Src: s}
	}
	ga := func(idx ...scatter.Tensor) scatter.TensorGather {
		return scatter.TensorGather{Indices: idx, Src: fsrc()}
	}
	rows := func() scatter.Tensor { return shape(i64(1, 0), 2, 1) }
	src22 := func() scatter.Tensor { return shape(f64(1, 2, 3, 4), 2, 2) }
	// rows 0-3 of arange(1, 13).reshape(4, 3), then a zero row
	disperse := append(arange(rF64, 1, 12).Data.([]float64), 0, 0, 0)
	bad := scatter.ErrInvalidArgument
	oor := scatter.ErrIndexOutOfRange
	return []rulePair{
		{op: scatter.OpTensorScatter, dt: rF64, kind: shapeRule, rule: "indices-length", source: src + " FillScatter step 2 (one index per target dimension)",
			keep: ok(sc([]int{2, 2}, src22(), rows(), none), shape(f64(3, 4, 1, 2), 2, 2)),
			brk:  fail(sc([]int{2, 2}, src22(), rows()), bad)},
		{op: scatter.OpTensorScatter, dt: rF64, kind: shapeRule, rule: "none-beyond-src-dims", source: src + " FillScatter step 3",
			keep: ok(sc([]int{4, 4}, f64(1, 2, 3, 4), none, i64(3, 2, 1, 0)),
				shape(f64(0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 0), 4, 4)),
			brk: fail(sc([]int{4, 4}, f64(1, 2, 3, 4), i64(3, 2, 1, 0), none), bad)},
		{op: scatter.OpTensorScatter, dt: rF64, kind: valueRule, rule: "out-of-range", source: src + " step 7; SEMANTICS.md after §12 (Disperse 3)",
			keep: ok(sc([]int{5, 3}, exArange(rF64, 1, 4, 3), none, none), shape(f64(disperse...), 5, 3)),
			brk:  fail(sc([]int{3, 3}, exArange(rF64, 1, 4, 3), none, none), oor)},
		{op: scatter.OpTensorScatter, dt: rF64, kind: valueRule, rule: "index-negative", source: src + " step 7 (never wrapped)",
			keep: ok(sc([]int{2}, f64(5, 6), i64(1, 0)), f64(6, 5)),
			brk:  fail(sc([]int{2}, f64(5, 6), i64(-1, 0)), oor)},
		{op: scatter.OpTensorScatter, dt: rF64, kind: shapeRule, rule: "index-broadcast", source: src + " step 4 (NumPy-style broadcast to src's shape)",
			keep: ok(sc([]int{2, 3}, exArange(rF64, 1, 2, 3), rows(), none), shape(f64(4, 5, 6, 1, 2, 3), 2, 3)),
			brk:  fail(sc([]int{2, 3}, exArange(rF64, 1, 2, 3), shape(i64(1, 0), 1, 2), none), scatter.ErrShapeMismatch)},
		{op: scatter.OpTensorGather, dt: rF64, kind: shapeRule, rule: "at-least-one-index", source: src + " gather (At least one index tensor must not be None.)",
			keep: ok(ga(i64(2, 0), i64(1, 1)), f64(2.1, 0.1)),
			brk:  fail(ga(none, none), bad)},
		{op: scatter.OpTensorGather, dt: rF64, kind: shapeRule, rule: "none-beyond-target-dims", source: src + " gather (for k >= trgt.NDims, indices[k] must be Some)",
			keep: ok(ga(none, i64(0, 1, 2)), f64(0.0, 1.1, 2.2)),
			brk:  fail(ga(i64(2, 0), none), bad)},
		{op: scatter.OpTensorGather, dt: rF64, kind: valueRule, rule: "out-of-range", source: src + " gather",
			keep: ok(ga(i64(2, 0), i64(0, 0)), f64(2.0, 0.0)),
			brk:  fail(ga(i64(3, 0), i64(0, 0)), oor)},
		{op: scatter.OpTensorGather, dt: rF64, kind: shapeRule, rule: "indices-length", source: src + " gather (indices.Length == src.NDims)",
			keep: ok(ga(i64(1), i64(2)), f64(1.2)),
			brk:  fail(ga(i64(1)), bad)},
	}
}
