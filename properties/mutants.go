package properties

import (
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// Mutant is a deliberately broken backend: the reference under its
// profile (reference.New(Profile): torch-2 but where the bug is a departure
// from another profile's rule) with one bug injected, by transforming the
// call before and/or the result after, or by folding the call again with
// a wrong arithmetic (mutants_rounding.go). Every mutant is a bug that real
// scatter implementations could ship, and is wrong only on some inputs. A
// suite that lets one live has a hole.
type Mutant struct {
	Name string // e.g. "negative-index-wrapped"
	Bug  string // what is wrong, in a sentence
	// Profile is the truth the mutant departs from: judge it under it.
	Profile scatter.Profile
	// Backend is the broken backend. Its Info is the reference's
	// (deterministic: the strict level), named "mutant/<Name>".
	Backend scatter.Backend
	// Checks: the bug is in the rules PyTorch checks (which calls fail,
	// and with which error), so an error the mutant returns where PyTorch
	// raises another is what the bug means. The other mutants may change
	// the call they run (tail-dropped narrows the index), and an error
	// they then return is an accident of that.
	Checks bool
}

// Conformant returns the mutant's backend presented as one that does not
// claim determinism, so that a judge takes it at the conformant level
// (any correct order, rigorous sets) rather than at the strict one its
// Info claims: a bug that conformant judging misses is no bug there.
func (m Mutant) Conformant() scatter.Backend { return undetermined{m.Backend} }

// undetermined is a backend whose determinism claim is taken away.
type undetermined struct{ scatter.Backend }

func (u undetermined) Info() scatter.Info {
	i := u.Backend.Info()
	i.Deterministic = false
	return i
}

// mutant is a Mutant's backend.
type mutant struct {
	name string
	base scatter.Backend
	run  runFunc
}

func (m *mutant) Info() scatter.Info {
	i := m.base.Info()
	i.Name = "mutant/" + m.name
	return i
}

func (m *mutant) Run(c scatter.Call) (scatter.Result, error) { return m.run(m.base, c) }

// mutantEntry is one mutant of the zoo: its name, its bug in a sentence,
// and how it runs a call on the base backend; fresh, for a mutant with
// state, builds its run function anew for each Mutants call; build, for
// a mutant whose bug depends on the profile's arithmetic, builds it for a
// profile. profiles, when not nil, are the only profiles whose rules the
// bug departs from (MutantsFor), the first the one Mutants judges it under
// (home).
type mutantEntry struct {
	name, bug string
	run       runFunc
	fresh     func() runFunc
	build     func(p scatter.Profile) runFunc
	profiles  []scatter.Profile
	checks    bool // Mutant.Checks
}

// home is the profile Mutants judges the entry under: the first of its
// profiles, else scatter.Torch2.
func (e mutantEntry) home() scatter.Profile {
	if len(e.profiles) > 0 {
		return e.profiles[0]
	}
	return scatter.Torch2
}

// runFunc runs call c on the base backend b with one bug injected.
type runFunc func(b scatter.Backend, c scatter.Call) (scatter.Result, error)

// zoo is the mutant zoo, in the order Mutants returns it.
var zoo = []mutantEntry{
	{name: "negative-index-wrapped",
		bug: "negative index values in [-size, -1] are wrapped Python-style (index_fill_'s rule) instead of raising index_out_of_range",
		run: negativeIndexWrapped, checks: true},
	{name: "nan-dropped-amax",
		bug: "amax/amin compare with > and < only, so a NaN in src never wins (dropped) instead of propagating",
		run: nanDroppedAmax},
	{name: "nan-dropped-index-reduce",
		bug: "index_reduce amax/amin alone compare with > and <, so a NaN in source never wins (dropped) instead of propagating",
		run: nanDroppedIndexReduce},
	{name: "include-self-ignored",
		bug: "include_self=False is ignored: self always takes part in the reduction",
		run: includeSelfIgnored},
	{name: "untouched-zeroed",
		bug: "scatter_reduce with include_self=False starts from zeros_like(self) instead of self, so untouched elements become 0",
		run: untouchedZeroed},
	{name: "mean-counts-self-wrongly",
		bug: "scatter_reduce mean with include_self=True sums self in but divides by the number of src contributions only",
		run: meanCountsSelfWrongly},
	{name: "int-mean-truncates",
		bug: "integer mean divides with truncation toward zero instead of PyTorch's floor division",
		run: intMeanTruncates},
	{name: "duplicate-scatter-sums-writers",
		bug: "plain scatter (no reduce) with duplicate targets writes the sum of the writers, a value none of them wrote",
		run: duplicateScatterSumsWriters},
	{name: "first-writer-wins",
		bug: "plain scatter (no reduce) with duplicate targets keeps the first writer along dim where PyTorch's CPU kernels keep the last (a reversed loop, or a kernel that skips targets already written)",
		run: firstWriterWins},
	{name: "tail-dropped",
		bug: "the last index position along dim is never read (an off-by-one loop bound)",
		run: tailDropped},
	{name: "large-tail-dropped",
		bug: "a call of more than 65,536 contributions (a gather: output elements) takes a blocked path whose last block ends one short: its last contribution is never applied (a gather leaves its last element 0), while smaller calls are right",
		run: largeTailDropped},
	{name: "int8-amax-identity-zero",
		bug: "scatter_reduce amax with include_self=False on int8 starts each group from 0 instead of -128 (visible when every contribution is negative)",
		run: int8AmaxIdentityZero},
	{name: "scalar-value-rounded",
		bug: "a float scalar value scattered into an integer tensor is rounded to nearest instead of truncated toward zero",
		run: scalarValueRounded},
	{name: "empty-index-shape-checked",
		bug: "the shape rules are checked for an empty index too, where PyTorch skips them",
		run: emptyIndexShapeChecked, checks: true},
	{name: "half-truncated",
		bug:      "float16/bfloat16 sums, means and products are computed in float32 and stored by truncation (round toward zero) instead of rounding to nearest",
		run:      halfTruncated,
		profiles: opmathProfiles},
	{name: "fill-value-ignored",
		bug: "torch_scatter 1.x scatter_add ignores fill_value: the output starts from zeros",
		run: fillValueIgnored},
	{name: "ts-broadcast-wrong",
		bug: "torch_scatter 2.x broadcasts a 1-d index along src's first dimension instead of along dim",
		run: tsBroadcastWrong},
	{name: "fsharp-none-as-zero",
		bug: "an F# index given as None is read as index 0 instead of the position itself",
		run: fsharpNoneAsZero},
	{name: "negative-dim-wrong",
		bug: "a negative dim (and torch_scatter's default dim=-1) is taken as dimension 0 instead of counting from the end",
		run: negativeDimWrong, checks: true},
	{name: "int-sum-saturates",
		bug: "integer sums saturate at the dtype's limits (a saturating SIMD add) instead of wrapping around",
		run: intSumSaturates},
	{name: "stride-ignored",
		bug: "a non-contiguous input is read as if it were contiguous from its offset (a fast path that checks only the offset)",
		run: strideIgnored},
	{name: "flaky-duplicates",
		bug:   "plain scatter with duplicate targets lets the last writer win on one call and the first on the next, while claiming determinism",
		fresh: newFlakyDuplicates},
	{name: "writes-self",
		bug: "the operation runs in place: the result is written into self's memory too",
		run: writesSelf},
	{name: "panics-on-empty-index",
		bug: "an empty index tensor makes the backend read index[0] and panic",
		run: panicsOnEmptyIndex},
	{name: "gather-index-clamped",
		bug: "gather clamps an out-of-range index into [0, size) instead of raising index_out_of_range",
		run: gatherIndexClamped, checks: true},
	{name: "scatter-index-clamped",
		bug: "scatter, scatter_add and scatter_reduce clamp an out-of-range index into [0, size) instead of raising index_out_of_range",
		run: scatterIndexClamped, checks: true},
	{name: "small-int-sum-widened",
		bug: "sums and products of bool, uint8, int8 and int16 are computed in a wider integer and returned as int32 (uint32 for uint8, which the protocol lacks: invalid_argument) instead of in self's dtype (bool or and and, integers wrapping)",
		run: smallIntWidened},
	{name: "nan-self-dropped",
		bug:   "scatter_reduce amax and amin lose a NaN in self: a touched element becomes the extreme of its contributions alone, an untouched one the fill (-inf for amax, +inf for amin), include_self or not",
		build: nanSelfDropped},
	{name: "negative-zero-lost",
		bug: "float sums add the identity +0.0 to every element of the result, touched or not, so that every -0.0 becomes +0.0",
		run: negativeZeroLost},
	{name: "sum-starts-from-first",
		bug:   "a float sum or mean without self (include_self=False, torch_scatter without out, the F# scatter) starts from its first contribution instead of the identity +0.0, so a group of -0.0 terms gives -0.0",
		build: sumStartsFromFirst},
	{name: "sum-with-self-from-zero",
		bug:   "a float sum or mean with self (scatter_add, include_self=True, torch_scatter with out or fill_value) starts from the identity +0.0 with self as one more member, so a touched element whose self and contributions are all -0.0 gives +0.0",
		build: sumWithSelfFromZero},
	{name: "mean-count-wraps",
		bug:   "a float mean keeps its count in 16 bits, so a group of 65,536 operands or more (self included where counted) is divided by the count modulo 2^16 (1 where that is 0)",
		build: meanCountWraps},
	{name: "expanded-path-rows-in-place",
		bug:      "torch_scatter's sums and means into an out wider than src off dim 0 put each index row in out's row, as torch 2.6 does, where torch 2.14's expanded-index path (dim 0, a floating dtype, rows of 16 or more elements) lays row m at out's flat offsets m*K onwards, K the index's row length (a PyTorch 2.14 bug)",
		run:      expandedPathRowsInPlace,
		profiles: []scatter.Profile{scatter.Torch2}},
	{name: "ts-mean-counts-contributions",
		bug:   "torch_scatter's float mean divides each element by the contributions it receives (a segment mean over the broadcast index) instead of by the count torch_scatter takes from the index as given, broadcast to out: an index stretched along dim, or an out larger than src, gives the plain mean",
		build: tsMeanCountsContributions},

	// rounding (mutants_rounding.go)
	{name: "rounds-toward-zero",
		bug:   "float16, bfloat16 and float32 sums, products and means round every step, the store and the division toward zero (truncation) instead of to nearest",
		build: modeMutant(rTowardZero)},
	{name: "rounds-half-away",
		bug:   "float16, bfloat16 and float32 sums, products and means round ties away from zero instead of to even",
		build: modeMutant(rHalfAway)},
	{name: "rounds-to-odd",
		bug:   "float16, bfloat16 and float32 sums, products and means round inexact results to the neighbour with an odd last bit instead of to nearest",
		build: modeMutant(rToOdd)},
	{name: "float64-via-float32",
		bug:   "float64 sums, products and means round every step through float32 (a double rounding that loses 29 bits) where the profile rounds once to float64",
		build: accMutant(fixedAcc(fmtFloat32), func(g reference.Folds) bool { return isF64(g.DType) })},
	{name: "half-accumulates-in-dtype",
		bug:      "float16 and bfloat16 sums, products and means of the scatter family round every step to the dtype where torch 2 accumulates in float32 and rounds once",
		build:    accMutant(dtypeAcc, func(g reference.Folds) bool { return is16(g.DType) && !g.PerStep }),
		profiles: opmathProfiles},
	{name: "half-accumulates-in-float32",
		bug:      "float16 and bfloat16 sums, products and means accumulate in float32 and round once where torch 1.13 rounds every step to the dtype",
		build:    accMutant(fixedAcc(fmtFloat32), func(g reference.Folds) bool { return is16(g.DType) && g.PerStep }),
		profiles: []scatter.Profile{scatter.Torch113}},
	{name: "float32-accumulates-in-float64",
		bug:   "float32 sums, products and means accumulate in float64 and round once where the profile rounds every step to float32",
		build: accMutant(fixedAcc(fmtFloat64), func(g reference.Folds) bool { return isF32(g.DType) })},
	{name: "half-rounded-twice",
		bug:      "float16 and bfloat16 sums, products and means with self fold the contributions in float32, round that to the dtype, then combine it with self and round again (a mean divides that), where torch 2 folds self and the contributions in float32 and rounds once",
		build:    twiceMutant,
		profiles: opmathProfiles},
	{name: "mean-divides-accumulator",
		bug:      "a float16 or bfloat16 mean (scatter_reduce, torch_scatter) divides the float32 accumulator and rounds once, where torch 2 stores the sum in the dtype and divides that",
		run:      meanDividesAccumulator,
		profiles: opmathProfiles},
	{name: "subnormals-flushed",
		bug:   "float sums, products, means, amax and amin read subnormal operands as zeros and store subnormal results (each step's too) as zeros, as a float unit in flush-to-zero and denormals-are-zero mode does, where PyTorch keeps them",
		build: flushMutant},

	// bugs found in the wild (mutants_wild.go)
	{name: "expanded-index-misread",
		bug: "a fast path for indices expanded from a vector along dim (floating scatter_add and scatter_reduce sum/mean) checks only that the index has stride 1 along dim, and reads any other such index as if expanded from its first fiber",
		run: expandedIndexMisread},
	{name: "bool-sum-as-and",
		bug: "a bool sum (scatter_add, scatter_reduce sum, scatter reduce add) is computed as a logical and instead of or",
		run: boolSumAsAnd},
	{name: "ts-max-out-ignored",
		bug: "torch_scatter max/min with out gives the extreme of the contributions alone, as if out did not take part",
		run: tsMaxOutIgnored},
	{name: "ts-default-fill-zero",
		bug: "torch_scatter max/min without out start every group from 0 instead of the lowest/highest value, clamping negative maxima (positive minima) to 0",
		run: tsDefaultFillZero},
	{name: "cas16-neighbour-lost",
		bug: "16-bit atomic adds done by a compare-and-swap of the enclosing 32-bit word write back a stale neighbour: when both halves of a word are updated, the even element keeps its initial value",
		run: cas16NeighbourLost},
	{name: "out-of-range-ignored",
		bug: "out-of-range index values are skipped silently (updates dropped, gather reading 0) instead of raising index_out_of_range",
		run: outOfRangeIgnored, checks: true},
	{name: "gather-index-modulo",
		bug: "gather reads an out-of-range index value v at v mod size (NumPy's choose and take with mode=\"wrap\") instead of raising index_out_of_range",
		run: gatherIndexModulo, checks: true},
	{name: "out-of-range-miscoded",
		bug: "an out-of-range index value raises a generic invalid_argument error (the framework's own failure on it) instead of index_out_of_range",
		run: outOfRangeMiscoded, checks: true},
	{name: "float32-count-saturates",
		bug: "a mean counts its contributions in float32, one 1.0 at a time, so the count stops at 2^24 where torch 2 counts exactly (groups of more than 2^24 contributions)",
		run: float32CountSaturates},
	{name: "gather-index-sized-offsets",
		bug: "gather reads the input as if it had the index's sizes in the dimensions other than dim (its offsets counted over the index's shape), so an index smaller than the input there, which PyTorch allows, reads the wrong elements",
		run: gatherIndexSizedOffsets},
	{name: "gather-smaller-index-rejected",
		bug: "gather raises shape_mismatch for an index smaller than the input in a dimension other than dim, which PyTorch allows (index.size(d) <= input.size(d))",
		run: gatherSmallerIndexRejected, checks: true},
	{name: "nan-lost-to-later",
		bug:   "amax and amin fold self and the contributions in index order with acc = acc > v ? acc : v (acc < v for amin): a NaN wins when it comes, but the next value replaces it, so a NaN is lost unless it comes last",
		build: nanLostToLater},
	{name: "narrow-index-bound",
		bug: "with an int32 index, the in-bounds test compares with the dimension's size wrapped to 8 bits, dropping valid updates along dimensions of 128 or more",
		run: narrowIndexBound},
	{name: "last-rule-reported",
		bug:   "a call that breaks rules of several kinds raises the last kind that PyTorch (or the F# library) would check instead of the first: the checks run in another order",
		build: lastRuleReported, checks: true},
}

// Mutants returns the mutant zoo, fresh (each call builds new backends),
// each mutant under its own profile.
func Mutants() []Mutant {
	ms := make([]Mutant, len(zoo))
	for i, e := range zoo {
		ms[i] = e.mutant(e.home())
	}
	return ms
}

// MutantsFor returns, fresh and in the zoo's order, the mutants whose bug
// is a departure from profile p's rules, each built on reference.New(p)
// (a bug of 16-bit accumulation, say, exists only under the profiles that
// accumulate otherwise).
func MutantsFor(p scatter.Profile) []Mutant {
	var ms []Mutant
	for _, e := range zoo {
		if e.profiles == nil || slices.Contains(e.profiles, p) {
			ms = append(ms, e.mutant(p))
		}
	}
	return ms
}

// mutant builds the entry's mutant under profile p.
func (e mutantEntry) mutant(p scatter.Profile) Mutant {
	run := e.run
	switch {
	case e.fresh != nil:
		run = e.fresh()
	case e.build != nil:
		run = e.build(p)
	}
	return Mutant{Name: e.name, Bug: e.bug, Profile: p, Backend: &mutant{name: e.name, base: reference.New(p), run: run}, Checks: e.checks}
}

// negativeIndexWrapped runs the mutant negative-index-wrapped: PyTorch
// raises for a negative index in scatter and gather, where index_fill_
// and Python wrap it (pytorch/pytorch#131321).
func negativeIndexWrapped(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	c = withDimIndex(c, func(self, index scatter.Tensor, dim int) scatter.Tensor {
		return wrapNegative(index, dimSize(self, dim))
	})
	switch x := c.(type) {
	case scatter.IndexReduce:
		x.Index = wrapNegative(x.Index, dimSize(x.Self, x.Dim))
		c = x
	case scatter.Gather:
		x.Index = wrapNegative(x.Index, dimSize(x.Input, x.Dim))
		c = x
	}
	return b.Run(c)
}

// nanDroppedAmax runs the mutant nan-dropped-amax, for scatter_reduce and
// index_reduce: a max/min that compares with > and < (or an fmax-like
// function) never lets a NaN win (pytorch/pytorch#75651; MPS's
// metal::max, pytorch/pytorch PR 196203).
func nanDroppedAmax(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	switch x := c.(type) {
	case scatter.ScatterReduce:
		x.Src = dropNaN(x.Src, srReduce(x.Reduce))
		c = x
	case scatter.IndexReduce:
		x.Source = dropNaN(x.Source, x.Reduce)
		c = x
	}
	return b.Run(c)
}

// nanDroppedIndexReduce runs the mutant nan-dropped-index-reduce: the
// bug of nan-dropped-amax in index_reduce's own kernel only, so that the
// suite shows it there too.
func nanDroppedIndexReduce(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	if x, ok := c.(scatter.IndexReduce); ok {
		x.Source = dropNaN(x.Source, x.Reduce)
		c = x
	}
	return b.Run(c)
}

// includeSelfIgnored runs the mutant include-self-ignored.
func includeSelfIgnored(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	switch x := c.(type) {
	case scatter.ScatterReduce:
		x.ExcludeSelf = false
		c = x
	case scatter.IndexReduce:
		x.ExcludeSelf = false
		c = x
	}
	return b.Run(c)
}

// untouchedZeroed runs the mutant untouched-zeroed.
func untouchedZeroed(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	if x, ok := c.(scatter.ScatterReduce); ok && x.ExcludeSelf && x.Self.Validate() == nil {
		x.Self = zerosLike(x.Self)
		c = x
	}
	return b.Run(c)
}

// meanCountsSelfWrongly runs the mutant mean-counts-self-wrongly.
func meanCountsSelfWrongly(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	x, ok := c.(scatter.ScatterReduce)
	if !ok || x.Reduce != scatter.ReduceMean || x.ExcludeSelf {
		return b.Run(c)
	}
	return meanFromSum(b, x, func(sum float64, n int) float64 { return sum / float64(n) },
		func(sum int64, n int64) int64 { return floorDiv(sum, n) }, 0)
}

// intMeanTruncates runs the mutant int-mean-truncates: an integer mean
// divided with C's truncating division instead of floor division
// (PaddlePaddle/Paddle PR 75039).
func intMeanTruncates(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	x, ok := c.(scatter.ScatterReduce)
	if !ok || x.Reduce != scatter.ReduceMean || !x.Self.DType().IsInt() {
		return b.Run(c)
	}
	incl := 1
	if x.ExcludeSelf {
		incl = 0
	}
	return meanFromSum(b, x, nil, func(sum int64, n int64) int64 { return sum / n }, incl)
}

// duplicateScatterSumsWriters runs the mutant duplicate-scatter-sums-writers.
func duplicateScatterSumsWriters(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	x, ok := c.(scatter.Scatter)
	if !ok || x.Reduce != scatter.ReduceNone {
		return b.Run(c)
	}
	if _, err := b.Run(c); err != nil {
		return scatter.Result{}, err
	}
	counts := dimScatterCounts(x.Self, x.Dim, x.Index)
	x.Self = fillWhere(x.Self, counts, identity(scatter.ReduceSum, x.Self.DType()))
	x.Reduce = scatter.ReduceAdd
	return b.Run(x)
}

// tailDropped runs the mutant tail-dropped.
func tailDropped(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	drop := func(self, index scatter.Tensor, dim int) scatter.Tensor {
		d, ok := scatter.WrapDim(dim, self.Dim())
		if !ok || index.Validate() != nil || index.Dim() <= d || index.Shape[d] < 2 {
			return index
		}
		return narrow(index, d, 0, index.Shape[d]-1)
	}
	return b.Run(withDimIndex(c, drop))
}

// int8AmaxIdentityZero runs the mutant int8-amax-identity-zero.
func int8AmaxIdentityZero(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	x, ok := c.(scatter.ScatterReduce)
	if !ok || srReduce(x.Reduce) != scatter.ReduceAmax || !x.ExcludeSelf || x.Self.DType() != scatter.DTInt8 {
		return b.Run(c)
	}
	if _, err := b.Run(c); err != nil {
		return scatter.Result{}, err
	}
	counts := dimScatterCounts(x.Self, x.Dim, x.Index)
	x.Self = fillWhere(x.Self, counts, identity(scatter.ReduceSum, scatter.DTInt8))
	x.ExcludeSelf = false
	return b.Run(x)
}

// scalarValueRounded runs the mutant scalar-value-rounded.
func scalarValueRounded(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	if x, ok := c.(scatter.Scatter); ok && x.Value != nil && x.Value.IsFloat() && x.Self.DType().IsInt() {
		v := scatter.Float(math.Round(x.Value.Float64()))
		x.Value = &v
		c = x
	}
	return b.Run(c)
}

// emptyIndexShapeChecked runs the mutant empty-index-shape-checked.
func emptyIndexShapeChecked(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	var self, index scatter.Tensor
	var dim int
	switch x := c.(type) {
	case scatter.Scatter:
		self, index, dim = x.Self, x.Index, x.Dim
	case scatter.ScatterAdd:
		self, index, dim = x.Self, x.Index, x.Dim
	case scatter.ScatterReduce:
		self, index, dim = x.Self, x.Index, x.Dim
	case scatter.Gather:
		self, index, dim = x.Input, x.Index, x.Dim
	default:
		return b.Run(c)
	}
	d, ok := scatter.WrapDim(dim, self.Dim())
	if ok && index.Validate() == nil && index.NumEl() == 0 {
		if max(index.Dim(), 1) != max(self.Dim(), 1) {
			return scatter.Result{}, scatter.Errorf(scatter.ErrShapeMismatch, "Index tensor must have the same number of dimensions as self tensor")
		}
		for k := range index.Shape {
			if k != d && index.Shape[k] > scatter.SizeAt(self.Shape, k) {
				return scatter.Result{}, scatter.Errorf(scatter.ErrShapeMismatch, "Expected index %v to be smaller than self %v apart from dimension %d", index.Shape, self.Shape, d)
			}
		}
	}
	return b.Run(c)
}

// halfTruncated runs the mutant half-truncated.
func halfTruncated(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	var self, src scatter.Tensor
	switch x := c.(type) {
	case scatter.ScatterAdd:
		self, src = x.Self, x.Src
	case scatter.ScatterReduce:
		if r := srReduce(x.Reduce); r == scatter.ReduceAmax || r == scatter.ReduceAmin {
			return b.Run(c)
		}
		self, src = x.Self, x.Src
	case scatter.Scatter:
		if x.Reduce == scatter.ReduceNone || x.Src.IsZero() {
			return b.Run(c)
		}
		self, src = x.Self, x.Src
	default:
		return b.Run(c)
	}
	dt := self.DType()
	if dt != scatter.DTFloat16 && dt != scatter.DTBFloat16 || src.DType() != dt || self.Validate() != nil || src.Validate() != nil {
		return b.Run(c)
	}
	res, err := b.Run(withDimParts(c, toFloat32(self), dimIndex(c), toFloat32(src)))
	if err != nil {
		return res, err
	}
	return scatter.Result{Out: truncateTo(res.Out, dt)}, nil
}

// fillValueIgnored runs the mutant fill-value-ignored.
func fillValueIgnored(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	if x, ok := c.(scatter.TorchScatterAdd); ok && x.Out.IsZero() {
		x.FillValue = scatter.Int(0)
		c = x
	}
	return b.Run(c)
}

// tsBroadcastWrong runs the mutant ts-broadcast-wrong.
func tsBroadcastWrong(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	x, ok := c.(scatter.TorchScatter)
	if !ok || x.Src.Validate() != nil || x.Index.Validate() != nil || x.Index.Dim() != 1 || x.Src.Dim() < 2 {
		return b.Run(c)
	}
	n := x.Src.Dim()
	d, ok := scatter.WrapDim(scatter.DimOr(x.Dim, -1), n)
	if !ok || d == 0 {
		return b.Run(c)
	}
	L := x.Index.Shape[0]
	st := make([]int, n)
	switch {
	case L == x.Src.Shape[0]:
		st[0] = x.Index.StridesOrDefault()[0]
	case L == 1:
	default:
		return scatter.Result{}, scatter.Errorf(scatter.ErrShapeMismatch,
			"The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension 0", x.Src.Shape[0], L)
	}
	x.Index = scatter.Tensor{Shape: slices.Clone(x.Src.Shape), Strides: st, Offset: x.Index.Offset, Data: x.Index.Data}
	return b.Run(x)
}

// fsharpNoneAsZero runs the mutant fsharp-none-as-zero.
func fsharpNoneAsZero(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	zero := func(idx []scatter.Tensor) []scatter.Tensor {
		out := slices.Clone(idx)
		for k, t := range out {
			if t.IsZero() {
				out[k] = scatter.Scalar0D(int64(0))
			}
		}
		return out
	}
	switch x := c.(type) {
	case scatter.TensorScatter:
		x.Indices = zero(x.Indices)
		c = x
	case scatter.TensorGather:
		if slices.ContainsFunc(x.Indices, func(t scatter.Tensor) bool { return !t.IsZero() }) {
			x.Indices = zero(x.Indices)
			c = x
		}
	}
	return b.Run(c)
}

// negativeDimWrong runs the mutant negative-dim-wrong.
func negativeDimWrong(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	fix := func(d int) int {
		if d < 0 {
			return 0
		}
		return d
	}
	switch x := c.(type) {
	case scatter.Scatter:
		x.Dim = fix(x.Dim)
		c = x
	case scatter.ScatterAdd:
		x.Dim = fix(x.Dim)
		c = x
	case scatter.ScatterReduce:
		x.Dim = fix(x.Dim)
		c = x
	case scatter.IndexReduce:
		x.Dim = fix(x.Dim)
		c = x
	case scatter.Gather:
		x.Dim = fix(x.Dim)
		c = x
	case scatter.TorchScatter:
		x.Dim = scatter.Ptr(fix(scatter.DimOr(x.Dim, -1)))
		c = x
	case scatter.TorchScatterAdd:
		x.Dim = scatter.Ptr(fix(scatter.DimOr(x.Dim, -1)))
		c = x
	}
	return b.Run(c)
}

// intSumSaturates runs the mutant int-sum-saturates.
func intSumSaturates(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	switch x := c.(type) {
	case scatter.ScatterAdd:
	case scatter.ScatterReduce:
		if x.Reduce != scatter.ReduceSum {
			return b.Run(c)
		}
	case scatter.Scatter:
		if x.Reduce != scatter.ReduceAdd || x.Src.IsZero() {
			return b.Run(c)
		}
	default:
		return b.Run(c)
	}
	self, _, _, src := dimParts(c)
	dt := self.DType()
	if dt == scatter.DTInt64 || !dt.IsInt() || src.DType() != dt {
		return b.Run(c)
	}
	if _, err := b.Run(c); err != nil {
		return scatter.Result{}, err
	}
	res, err := b.Run(withDimParts(c, toInt64(self), dimIndex(c), toInt64(src)))
	if err != nil {
		return res, err
	}
	return scatter.Result{Out: saturateTo(res.Out, dt)}, nil
}

// strideIgnored runs the mutant stride-ignored.
func strideIgnored(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	c = mapCall(c, func(_ string, t scatter.Tensor) scatter.Tensor {
		if t.Strides == nil || slices.Equal(t.Strides, scatter.ContiguousStrides(t.Shape)) {
			return t
		}
		u := scatter.Tensor{Shape: t.Shape, Offset: t.Offset, Data: t.Data}
		if u.Validate() != nil {
			return t
		}
		return u
	})
	return b.Run(c)
}

// newFlakyDuplicates returns the run function of the mutant
// flaky-duplicates, with its own count of calls.
func newFlakyDuplicates() runFunc {
	var flips atomic.Int64
	return func(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
		x, ok := c.(scatter.Scatter)
		if !ok || x.Reduce != scatter.ReduceNone || x.Src.IsZero() || flips.Add(1)%2 == 0 {
			return b.Run(c)
		}
		if _, err := b.Run(c); err != nil {
			return scatter.Result{}, err
		}
		d, _ := scatter.WrapDim(x.Dim, x.Self.Dim())
		if x.Index.NumEl() == 0 || x.Index.Dim() <= d || x.Src.Dim() <= d {
			return b.Run(c) // an empty index is not checked against src
		}
		n := x.Index.Shape[d]
		rev := make([]int, n)
		for i := range rev {
			rev[i] = n - 1 - i
		}
		x.Index, x.Src = permuteAlong(x.Index, d, rev), permuteAlong(x.Src, d, rev)
		return b.Run(x)
	}
}

// writesSelf runs the mutant writes-self.
func writesSelf(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	if err != nil {
		return res, err
	}
	var self scatter.Tensor
	switch x := c.(type) {
	case scatter.Scatter:
		self = x.Self
	case scatter.ScatterAdd:
		self = x.Self
	case scatter.ScatterReduce:
		self = x.Self
	case scatter.IndexReduce:
		self = x.Self
	default:
		return res, err
	}
	writeInto(self, res.Out)
	return res, err
}

// panicsOnEmptyIndex runs the mutant panics-on-empty-index.
func panicsOnEmptyIndex(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	for name, t := range c.Tensors() {
		if (name == "index" || strings.HasPrefix(name, "indices")) && t.Validate() == nil && t.NumEl() == 0 {
			first := indexInts(t)[0] // runtime error: index out of range [0] with length 0
			_ = first
		}
	}
	return b.Run(c)
}

// gatherIndexClamped runs the mutant gather-index-clamped.
func gatherIndexClamped(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	if x, ok := c.(scatter.Gather); ok {
		if n := dimSize(x.Input, x.Dim); n > 0 {
			x.Index = mapIndex(x.Index, func(v int64) int64 { return max(0, min(int64(n-1), v)) })
			c = x
		}
	}
	return b.Run(c)
}

// scatterIndexClamped runs the mutant scatter-index-clamped.
func scatterIndexClamped(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	clamp := func(self, index scatter.Tensor, dim int) scatter.Tensor {
		if n := dimSize(self, dim); n > 0 {
			return mapIndex(index, func(v int64) int64 { return max(0, min(int64(n-1), v)) })
		}
		return index
	}
	return b.Run(withDimIndex(c, clamp))
}

// firstWriterWins runs the mutant first-writer-wins: a valid plain
// scatter runs with its index (and src) reversed along dim, so that of
// the writers to one target the first along dim comes last, and wins.
func firstWriterWins(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	x, ok := c.(scatter.Scatter)
	if err != nil || !ok || x.Reduce != scatter.ReduceNone || x.Index.Dim() == 0 {
		return res, err
	}
	d, _ := scatter.WrapDim(x.Dim, x.Self.Dim())
	shape := x.Index.Shape
	x.Index = reversedAlong(x.Index, shape, d)
	if !x.Src.IsZero() {
		x.Src = reversedAlong(x.Src, shape, d)
	}
	return b.Run(x)
}

// reversedAlong returns a contiguous tensor of the given shape (at most
// t's in every dimension) whose element at i is t's at i with i[d]
// reversed: shape[d]-1-i[d]. It copies the view of t that starts at
// i[d] = shape[d]-1 and steps back along d (a negative stride, which no
// tensor of the contract has: the view is only walked).
func reversedAlong(t scatter.Tensor, shape []int, d int) scatter.Tensor {
	out := scatter.Tensor{Shape: slices.Clone(shape), Data: scatter.MakeData(t.DType(), scatter.Numel(shape))}
	if scatter.Numel(shape) == 0 {
		return out // (an empty index: src may have another rank)
	}
	st := slices.Clone(t.StridesOrDefault())
	view := scatter.Tensor{Shape: shape, Strides: st, Offset: t.Offset, Data: t.Data}
	view.Offset += (shape[d] - 1) * st[d]
	st[d] = -st[d]
	for i, p := range view.EachPosition() {
		scatter.CopyElem(out.Data, i, t.Data, p)
	}
	return out
}

// ---- helpers of the mutants ----

// withDimIndex returns a scatter, scatter_add or scatter_reduce call with
// its index replaced by f(self, index, dim), and any other call as it is.
func withDimIndex(c scatter.Call, f func(self, index scatter.Tensor, dim int) scatter.Tensor) scatter.Call {
	switch x := c.(type) {
	case scatter.Scatter:
		x.Index = f(x.Self, x.Index, x.Dim)
		return x
	case scatter.ScatterAdd:
		x.Index = f(x.Self, x.Index, x.Dim)
		return x
	case scatter.ScatterReduce:
		x.Index = f(x.Self, x.Index, x.Dim)
		return x
	}
	return c
}

// dimSize returns the size of t along dim, or -1 if dim is out of range.
func dimSize(t scatter.Tensor, dim int) int {
	d, ok := scatter.WrapDim(dim, t.Dim())
	if !ok || t.Validate() != nil {
		return -1
	}
	return scatter.SizeAt(t.Shape, d)
}

// mapIndex returns a contiguous copy of an int32/int64 index with f
// applied to every value (the index unchanged if it is of another dtype).
func mapIndex(t scatter.Tensor, f func(int64) int64) scatter.Tensor {
	if t.Validate() != nil || !t.DType().IsIndex() {
		return t
	}
	c := scatter.CloneTensor(t.Contiguous())
	for i := 0; i < c.NumEl(); i++ {
		scatter.SetInt(c.Data, i, f(scatter.IntAt(c.Data, i)))
	}
	return c
}

// wrapNegative adds size to the index values in [-size, -1].
func wrapNegative(t scatter.Tensor, size int) scatter.Tensor {
	if size <= 0 {
		return t
	}
	return mapIndex(t, func(v int64) int64 {
		if v < 0 && v >= -int64(size) {
			return v + int64(size)
		}
		return v
	})
}

// dropNaN replaces the NaNs of a float tensor by the value that never wins
// the reduction (-inf for amax, +inf for amin).
func dropNaN(t scatter.Tensor, r scatter.Reduce) scatter.Tensor {
	if !t.DType().IsFloat() || t.Validate() != nil || r != scatter.ReduceAmax && r != scatter.ReduceAmin {
		return t
	}
	c := scatter.CloneTensor(t.Contiguous())
	loser := math.Inf(-1)
	if r == scatter.ReduceAmin {
		loser = math.Inf(1)
	}
	for i := 0; i < c.NumEl(); i++ {
		if isNaNAt(c.Data, i) {
			scatter.SetFloat(c.Data, i, loser)
		}
	}
	return c
}

// srReduce is scatter_reduce's reduction r with PyTorch 2's aliases read
// as what they name: "max" is amax, "min" amin (get_reduction_enum; torch
// 1.13 rejects them, and the mutants then run on an error call).
func srReduce(r scatter.Reduce) scatter.Reduce {
	switch r {
	case scatter.ReduceMax:
		return scatter.ReduceAmax
	case scatter.ReduceMin:
		return scatter.ReduceAmin
	}
	return r
}

// meanFromSum computes a scatter_reduce mean from the reference's sum of
// the same call and the count of src contributions plus incl, with the
// given (wrong) divisions; untouched elements keep self.
func meanFromSum(b scatter.Backend, x scatter.ScatterReduce, fdiv func(float64, int) float64, idiv func(int64, int64) int64, incl int) (scatter.Result, error) {
	want, err := b.Run(x)
	if err != nil {
		return want, err
	}
	sum := x
	sum.Reduce = scatter.ReduceSum
	s, err := b.Run(sum)
	if err != nil {
		return s, err
	}
	dt := x.Self.DType()
	sums := s.Out.Contiguous()
	out := scatter.CloneTensor(want.Out.Contiguous())
	for p, n := range dimScatterCounts(x.Self, x.Dim, x.Index) {
		if n == 0 {
			continue
		}
		cnt := dt.WrapInt(int64(n + incl))
		if cnt == 0 {
			cnt = 1
		}
		switch {
		case dt.IsFloat() && fdiv != nil:
			scatter.SetFloat(out.Data, p, fdiv(scatter.Float64At(sums.Data, p), int(cnt)))
		case dt.IsInt() && idiv != nil:
			scatter.SetInt(out.Data, p, dt.WrapInt(idiv(scatter.IntAt(sums.Data, p), cnt)))
		}
	}
	return scatter.Result{Out: out}, nil
}

// dimIndex returns a dim-scatter call's index.
func dimIndex(c scatter.Call) scatter.Tensor {
	_, _, index, _ := dimParts(c)
	return index
}

// toFloat32 converts a tensor to a contiguous float32 one (exactly, from
// a 16-bit float).
func toFloat32(t scatter.Tensor) scatter.Tensor {
	c := t.Contiguous()
	out := scatter.Tensor{Shape: c.Shape, Data: make([]float32, c.NumEl())}
	for i := range out.Data.([]float32) {
		out.Data.([]float32)[i] = float32(scatter.Float64At(c.Data, i))
	}
	return out
}

// truncateTo converts a float32 tensor to a 16-bit float dtype rounding
// toward zero.
func truncateTo(t scatter.Tensor, dt scatter.DType) scatter.Tensor {
	c := t.Contiguous()
	data := scatter.MakeData(dt, c.NumEl())
	for i := 0; i < c.NumEl(); i++ {
		x := scatter.Float64At(c.Data, i)
		switch d := data.(type) {
		case []scatter.Float16:
			h := scatter.Float16FromFloat64(x)
			if !math.IsNaN(x) && math.Abs(h.Float64()) > math.Abs(x) {
				h-- // one step toward zero: the magnitude bits count down
			}
			d[i] = h
		case []scatter.BFloat16:
			h := scatter.BFloat16FromFloat64(x)
			if !math.IsNaN(x) && math.Abs(h.Float64()) > math.Abs(x) {
				h--
			}
			d[i] = h
		}
	}
	return scatter.Tensor{Shape: c.Shape, Data: data}
}

// toInt64 converts an integer tensor to a contiguous int64 one.
func toInt64(t scatter.Tensor) scatter.Tensor {
	c := t.Contiguous()
	out := scatter.Tensor{Shape: c.Shape, Data: make([]int64, c.NumEl())}
	for i := range out.Data.([]int64) {
		out.Data.([]int64)[i] = scatter.IntAt(c.Data, i)
	}
	return out
}

// saturateTo converts an int64 tensor to an integer dtype, clamping.
func saturateTo(t scatter.Tensor, dt scatter.DType) scatter.Tensor {
	c := t.Contiguous()
	lo, hi := dt.IntRange()
	data := scatter.MakeData(dt, c.NumEl())
	for i := 0; i < c.NumEl(); i++ {
		scatter.SetInt(data, i, max(lo, min(hi, scatter.IntAt(c.Data, i))))
	}
	return scatter.Tensor{Shape: c.Shape, Data: data}
}

// writeInto writes src's values into dst's elements (in place), unless
// dst's view repeats an element (an expanded view).
func writeInto(dst, src scatter.Tensor) {
	if dst.Validate() != nil || src.Validate() != nil || dst.DType() != src.DType() || dst.NumEl() != src.NumEl() {
		return
	}
	dp := dst.Positions()
	seen := map[int]bool{}
	for _, p := range dp {
		if seen[p] {
			return
		}
		seen[p] = true
	}
	for i, p := range src.Positions() {
		scatter.CopyElem(dst.Data, dp[i], src.Data, p)
	}
}

// smallIntWidened runs the mutant small-int-sum-widened: sums and
// products of bool, uint8, int8 and int16 (scatter_add, scatter_reduce
// sum and prod, scatter with reduce add or multiply) are computed in a
// wider integer and returned as int32 (uint32 for uint8), never cast
// back to self's dtype (tinygrad's masked .sum() and .prod() widen small
// integers, docs/conformance/README.md G1; PyTorch keeps self's dtype:
// bool ors and ands, integers wrap). The mutant is the reference run on
// int64 copies of self and src, its values as int32: a bool sum counts
// its trues. The protocol has no uint32, so a widened uint8 result
// cannot be sent: the call fails with invalid_argument, as an adapter
// answers a result whose dtype the protocol lacks.
func smallIntWidened(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	if err != nil {
		return res, err
	}
	switch res.Out.DType() {
	case scatter.DTBool, scatter.DTUint8, scatter.DTInt8, scatter.DTInt16:
	default:
		return res, err
	}
	unsigned := res.Out.DType() == scatter.DTUint8
	var wide scatter.Call
	switch x := c.(type) {
	case scatter.ScatterAdd:
		x.Self, x.Src = toInt64(x.Self), toInt64(x.Src)
		wide = x
	case scatter.Scatter:
		if x.Reduce == scatter.ReduceNone {
			return res, err
		}
		if x.Src.IsZero() {
			// the value in self's dtype first (PyTorch's conversion: -1
			// into bool is true), then widened like src
			one := scatter.Tensor{Shape: []int{1}, Data: scatter.MakeData(x.Self.DType(), 1)}
			r, verr := b.Run(scatter.Scatter{Self: one, Dim: 0, Index: scatter.FromSlice([]int64{0}, 1), Value: x.Value})
			if verr != nil {
				return res, err
			}
			vs := make([]int64, x.Index.NumEl())
			for i := range vs {
				vs[i] = scatter.IntAt(r.Out.Data, 0)
			}
			x.Src, x.Value = scatter.Tensor{Shape: slices.Clone(x.Index.Shape), Data: vs}, nil
		}
		x.Self, x.Src = toInt64(x.Self), toInt64(x.Src)
		wide = x
	case scatter.ScatterReduce:
		if x.Reduce != scatter.ReduceSum && x.Reduce != scatter.ReduceProd {
			return res, err
		}
		x.Self, x.Src = toInt64(x.Self), toInt64(x.Src)
		wide = x
	default:
		return res, err
	}
	w, werr := b.Run(wide)
	if werr != nil {
		return res, err
	}
	if unsigned {
		return scatter.Result{}, scatter.Errorf(scatter.ErrInvalidArgument, "result has dtype uint32, which the protocol lacks")
	}
	wc := w.Out.Contiguous()
	out := scatter.Tensor{Shape: wc.Shape, Data: make([]int32, wc.NumEl())}
	for i := range out.Data.([]int32) {
		out.Data.([]int32)[i] = int32(scatter.IntAt(wc.Data, i))
	}
	return scatter.Result{Out: out}, nil
}

// negativeZeroLost runs the mutant negative-zero-lost: a float sum
// (scatter_add, scatter_reduce sum and mean, scatter with reduce add)
// adds the identity +0.0 to every element of the result, touched or not,
// so that every -0.0 becomes +0.0 (tinygrad: [1, -0.].scatter_reduce(0,
// [0], [2], 'sum') gives [3, 0.], docs/conformance/README.md G2); PyTorch leaves untouched elements as
// they are and a sum of -0.0 terms is -0.0.
func negativeZeroLost(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	if err != nil {
		return res, err
	}
	switch x := c.(type) {
	case scatter.ScatterAdd:
	case scatter.Scatter:
		if x.Reduce != scatter.ReduceAdd {
			return res, err
		}
	case scatter.ScatterReduce:
		if x.Reduce != scatter.ReduceSum && x.Reduce != scatter.ReduceMean {
			return res, err
		}
	default:
		return res, err
	}
	if !res.Out.DType().IsFloat() {
		return res, err
	}
	out := scatter.CloneTensor(res.Out.Contiguous())
	for i := 0; i < out.NumEl(); i++ {
		if negZero(scatter.Float64At(out.Data, i)) {
			scatter.SetFloat(out.Data, i, 0)
		}
	}
	return scatter.Result{Out: out, Arg: res.Arg}, nil
}

// sumStartsFromFirst builds the mutant sum-starts-from-first: a float sum
// or mean whose groups have no self starts each group from its first
// contribution, not from the identity +0.0 (a segment reduction seeded
// with its first element), so a group whose every term is -0.0 gives -0.0
// where PyTorch's +0.0 + -0.0 gives +0.0 (SEMANTICS.md §12 #75); every
// other sum is the same in both.
func sumStartsFromFirst(p scatter.Profile) runFunc {
	return groupEdit(p, func(g reference.Folds) bool { return !g.Self && isSumOrMean(g) },
		func(g reference.Folds, grp reference.FoldGroup, out scatter.Tensor) {
			allNeg := true
			for _, s := range grp.Srcs {
				allNeg = allNeg && negZero(scatter.Float64At(g.Src.Data, s))
			}
			if allNeg {
				scatter.SetFloat(out.Data, grp.Out, math.Copysign(0, -1))
			}
		})
}

// groupEdit builds a mutant that runs the reference, then rewrites in a
// copy of its result the elements of the groups of the call's Folds (a
// call without them, or one keep refuses, is the reference's): edit sets
// one group's element of out.
func groupEdit(p scatter.Profile, keep func(reference.Folds) bool,
	edit func(g reference.Folds, grp reference.FoldGroup, out scatter.Tensor)) runFunc {
	return func(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
		res, err := b.Run(c)
		if err != nil {
			return res, err
		}
		g, ok := reference.Expect(c, p).Folds()
		if !ok || !keep(g) || res.Out.DType() != g.DType || res.Out.NumEl() != g.Init.NumEl() {
			return res, err
		}
		out := scatter.CloneTensor(res.Out.Contiguous())
		for _, grp := range g.Groups {
			edit(g, grp, out)
		}
		return scatter.Result{Out: out, Arg: res.Arg}, nil
	}
}

// isSumOrMean reports whether the folds are sums or means.
func isSumOrMean(g reference.Folds) bool {
	return g.Reduce == scatter.ReduceSum || g.Reduce == scatter.ReduceMean
}

// negZero reports whether v is -0.0.
func negZero(v float64) bool { return v == 0 && math.Signbit(v) }

// sumWithSelfFromZero builds the mutant sum-with-self-from-zero: a float
// sum or mean whose groups include self is a segment reduction over self
// and the contributions, seeded with the identity +0.0, so a touched
// element whose self and contributions are all -0.0 gives +0.0 (and its
// mean +0.0), where PyTorch's -0.0 + -0.0 gives -0.0 (TensorFlow's
// unsorted_segment_sum, docs/conformance/README.md T5); untouched elements
// and every other sum are the same in both. It is the mirror of
// sum-starts-from-first, which drops the identity where PyTorch has it.
func sumWithSelfFromZero(p scatter.Profile) runFunc {
	return groupEdit(p, func(g reference.Folds) bool { return g.Self && isSumOrMean(g) },
		func(g reference.Folds, grp reference.FoldGroup, out scatter.Tensor) {
			allNeg := negZero(scatter.Float64At(g.Init.Data, grp.Out))
			for _, s := range grp.Srcs {
				allNeg = allNeg && negZero(scatter.Float64At(g.Src.Data, s))
			}
			if allNeg {
				scatter.SetFloat(out.Data, grp.Out, 0)
			}
		})
}

// meanCountWraps builds the mutant mean-count-wraps: a float mean
// (scatter_reduce, index_reduce, torch_scatter) counts its operands in a
// 16-bit counter (a GPU kernel saving registers), so a group of n >= 2^16
// operands divides its sum, taken here as the right mean times n, by
// n mod 2^16 (1 for 0); smaller groups are right. Only a group past 2^16
// shows it: the spec's one-target means (spec/sizes_large.go), not the
// properties.
func meanCountWraps(p scatter.Profile) runFunc {
	return groupEdit(p, func(g reference.Folds) bool { return g.Reduce == scatter.ReduceMean },
		func(g reference.Folds, grp reference.FoldGroup, out scatter.Tensor) {
			n := g.Count(grp)
			if n >= 1<<16 {
				w := max(n%(1<<16), 1)
				scatter.SetFloat(out.Data, grp.Out, scatter.Float64At(out.Data, grp.Out)*float64(n)/float64(w))
			}
		})
}

// expandedPathRowsInPlace runs torch_scatter's calls whose rows torch
// 2.14's expanded-index path shifts (onShiftedRows) as torch 2.6 does
// (the reference, profile torch-2.6); other calls run as b runs them.
func expandedPathRowsInPlace(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	if !onShiftedRows(c, scatter.Torch2) {
		return b.Run(c)
	}
	return reference.New(scatter.Torch26).Run(c)
}

// tsMeanCountsContributions builds the mutant ts-mean-counts-contributions:
// where torch_scatter's count (Folds.MeanCounts) is not an element's
// number of contributions, the element is divided by that number instead,
// taken here as the right mean times count / contributions; an element of
// out that receives nothing keeps out's value.
func tsMeanCountsContributions(p scatter.Profile) runFunc {
	return groupEdit(p, func(g reference.Folds) bool { return g.Reduce == scatter.ReduceMean && g.MeanCounts != nil },
		func(g reference.Folds, grp reference.FoldGroup, out scatter.Tensor) {
			n, c := int64(len(grp.Srcs)), g.Count(grp)
			switch {
			case n == c:
			case n == 0:
				scatter.SetFloat(out.Data, grp.Out, scatter.Float64At(g.Init.Data, grp.Out))
			default:
				scatter.SetFloat(out.Data, grp.Out, scatter.Float64At(out.Data, grp.Out)*float64(c)/float64(n))
			}
		})
}

// nanSelfDropped builds the mutant nan-self-dropped: scatter_reduce amax
// and amin combine self with the contributions' extreme (filled with the
// reduction's identity where there is none) by a maximum or minimum that
// keeps the other operand when self is NaN, so a NaN in self is lost: a
// touched element becomes the extreme of its contributions alone (a NaN
// among them still wins), an untouched one the fill, -inf for amax and
// +inf for amin, include_self or not (tinygrad, docs/conformance/README.md
// G3: [nan, 1] amax [7] gives [7, 1], [1, nan] amin [2] gives [1, inf]);
// PyTorch propagates the NaN and leaves untouched elements as they are.
func nanSelfDropped(p scatter.Profile) runFunc {
	return func(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
		res, err := b.Run(c)
		x, ok := c.(scatter.ScatterReduce)
		if r := srReduce(x.Reduce); err != nil || !ok || r != scatter.ReduceAmax && r != scatter.ReduceAmin {
			return res, err
		}
		g, ok := reference.Expect(c, p).Folds()
		if !ok {
			return res, err
		}
		isMax := g.Reduce == scatter.ReduceAmax
		out := scatter.CloneTensor(res.Out.Contiguous())
		touched := make([]bool, out.NumEl())
		for _, grp := range g.Groups {
			touched[grp.Out] = true
			if !g.Self || !math.IsNaN(scatter.Float64At(g.Init.Data, grp.Out)) {
				continue
			}
			acc := scatter.Float64At(g.Src.Data, grp.Srcs[0])
			for _, s := range grp.Srcs[1:] {
				v := scatter.Float64At(g.Src.Data, s)
				if !math.IsNaN(acc) && (math.IsNaN(v) || isMax && v > acc || !isMax && v < acc) {
					acc = v
				}
			}
			scatter.SetFloat(out.Data, grp.Out, acc)
		}
		fill := math.Inf(1)
		if isMax {
			fill = math.Inf(-1)
		}
		for i := 0; i < out.NumEl(); i++ {
			if !touched[i] && math.IsNaN(scatter.Float64At(g.Init.Data, i)) {
				scatter.SetFloat(out.Data, i, fill)
			}
		}
		return scatter.Result{Out: out, Arg: res.Arg}, nil
	}
}
