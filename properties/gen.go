package properties

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
)

// The generation primitives: unbiased choices that shrink toward the
// simplest option, sizes, dtypes, element values (special values drawn on
// purpose, 16-bit floats as raw bit patterns, exact small integers) and
// strided layouts over guarded backing slices. The call generators
// (gen_calls.go) are built from these.

// genConfig is what a budget tier allows the generators.
type genConfig struct {
	maxElems   int   // elements of one tensor (backing slices not counted)
	boundaries []int // sizes around block boundaries, drawn on purpose
	errorPct   int   // the share of calls corrupted toward an error path
}

// gen draws the parts of one case. Everything it draws comes from rapid's
// bit stream (t), so that rapid can replay and shrink it; large tensors
// draw only a seed and fill from it (shrinking the seed to 0 still
// simplifies them).
type gen struct {
	t    *rapid.T
	cfg  genConfig
	prof scatter.Profile
	info scatter.Info
	// valid: draw no corruption (the metamorphic relations want calls
	// that succeed).
	valid bool
	// want narrows the shapes to what a relation needs.
	want want
}

// want narrows the call generators to the shapes a relation needs.
type want struct {
	// longIndex: an index of rank >= 1, not empty, with at least two
	// positions along dim (index_reduce: a vector of two or more).
	longIndex bool
	// vector: torch_scatter with a 1-d index along dim.
	vector bool
	// fullSource: index_reduce with source slices of self's shape.
	fullSource bool
}

// elemDrawThreshold is the largest tensor whose elements are drawn one by
// one (and so shrink one by one); larger ones are filled from a drawn seed.
const elemDrawThreshold = 48

// src hands out random numbers: from rapid (drawn, shrinkable) or from a
// seeded generator (large tensors).
type src interface {
	intn(lo, hi int) int // in [lo, hi], biased toward the end nearest 0 for rapid
	uniform(n int) int   // in [0, n), uniform
	u64() uint64
	bit() bool
}

type rapidSrc struct{ t *rapid.T }

func (s rapidSrc) intn(lo, hi int) int { return rapid.IntRange(lo, hi).Draw(s.t, "") }
func (s rapidSrc) u64() uint64         { return rapid.Uint64().Draw(s.t, "") }
func (s rapidSrc) bit() bool           { return rapid.Bool().Draw(s.t, "") }

// uniform draws bits.Len(n-1) unbiased bits (rapid's integer draws favour
// small values; its single bits do not) and scales them to [0, n). It
// shrinks to 0.
func (s rapidSrc) uniform(n int) int {
	if n <= 1 {
		return 0
	}
	k := bits.Len(uint(n - 1))
	var v uint64
	for range k {
		v <<= 1
		if rapid.Bool().Draw(s.t, "") {
			v |= 1
		}
	}
	return int(v * uint64(n) >> k)
}

type rngSrc struct{ r *rand.Rand }

func (s rngSrc) intn(lo, hi int) int { return lo + s.r.IntN(hi-lo+1) }
func (s rngSrc) uniform(n int) int {
	if n <= 1 {
		return 0
	}
	return s.r.IntN(n)
}
func (s rngSrc) u64() uint64 { return s.r.Uint64() }
func (s rngSrc) bit() bool   { return s.r.Uint64()&1 == 1 }

// seeded returns a source for n elements: rapid itself for small n, else a
// generator seeded from one draw.
func (g *gen) seeded(n int) src {
	if n <= elemDrawThreshold {
		return rapidSrc{g.t}
	}
	seed := rapid.Uint64().Draw(g.t, "")
	return rngSrc{rand.New(rand.NewPCG(seed, 0x5ca77e4))}
}

// percent draws a uniform value in [0, 128) from seven unbiased bits
// (rapid's integer draws favour small values; its bits do not).
func (g *gen) percent() int {
	v := 0
	for range 7 {
		v <<= 1
		if rapid.Bool().Draw(g.t, "") {
			v |= 1
		}
	}
	return v
}

// chance is true with probability pct/100; it shrinks to false.
func (g *gen) chance(pct int) bool {
	if pct <= 0 {
		return false
	}
	if pct >= 100 {
		return true
	}
	return g.percent() >= 128-pct*128/100
}

// pick returns an index into weights with probability proportional to its
// weight; it shrinks to 0, so the simplest option goes first.
func (g *gen) pick(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	v := g.percent() * total / 128
	for i, w := range weights {
		if v < w {
			return i
		}
		v -= w
	}
	return len(weights) - 1
}

// intn draws from [lo, hi], favouring the end nearest zero.
func (g *gen) intn(lo, hi int) int { return rapid.IntRange(lo, hi).Draw(g.t, "") }

// oneOf picks an element of xs uniformly; it shrinks to xs[0].
func oneOf[T any](g *gen, xs ...T) T { return xs[g.pick(slices.Repeat([]int{1}, len(xs))...)] }

// ---- dtypes ----

// dtypeOrder lists the dtypes from the simplest (what a shrunk case shows)
// to the most special.
var dtypeOrder = []scatter.DType{scatter.DTFloat32, scatter.DTInt64, scatter.DTFloat64, scatter.DTInt32,
	scatter.DTInt16, scatter.DTInt8, scatter.DTUint8, scatter.DTFloat16, scatter.DTBFloat16, scatter.DTBool}

// claimed returns the dtypes the backend claims for op, simplest first,
// restricted to keep (nil: all).
func (g *gen) claimed(op scatter.Op, keep func(scatter.DType) bool) []scatter.DType {
	var dts []scatter.DType
	for _, dt := range dtypeOrder {
		if g.info.Claims(op, dt) && (keep == nil || keep(dt)) {
			dts = append(dts, dt)
		}
	}
	return dts
}

// dtype draws a dtype the backend claims for op (and keep allows). It
// rejects the case (rapid counts it invalid) if there is none; the
// properties check that before they start.
func (g *gen) dtype(op scatter.Op, keep func(scatter.DType) bool) scatter.DType {
	dts := g.claimed(op, keep)
	if len(dts) == 0 {
		g.t.Skipf("no claimed dtype for %s", op)
	}
	return oneOf(g, dts...)
}

// otherDType draws a claimed dtype different from dt, or returns dt.
func (g *gen) otherDType(op scatter.Op, dt scatter.DType) scatter.DType {
	dts := g.claimed(op, func(d scatter.DType) bool { return d != dt })
	if len(dts) == 0 {
		return dt
	}
	return oneOf(g, dts...)
}

// indexDType draws the dtype of a valid scatter/gather index: int64, or
// int32 where the profile takes it.
func (g *gen) indexDType(int32OK bool) scatter.DType {
	if int32OK && g.chance(25) {
		return scatter.DTInt32
	}
	return scatter.DTInt64
}

// badIndexDType is an index dtype no scatter/gather takes (int32 under
// torch-1.13 among them).
func (g *gen) badIndexDType() scatter.DType {
	bad := []scatter.DType{scatter.DTInt16, scatter.DTFloat32, scatter.DTUint8, scatter.DTBool, scatter.DTInt8, scatter.DTFloat64}
	if g.prof == scatter.Torch113 {
		bad = append([]scatter.DType{scatter.DTInt32}, bad...)
	}
	return oneOf(g, bad...)
}

// ---- shapes ----

// rank draws a rank in [lo, 4], 1 and 2 most often.
func (g *gen) rank(lo int) int {
	ranks := []int{1, 2, 0, 3, 4}
	weights := []int{30, 30, 8, 20, 12}
	var rs, ws []int
	for i, r := range ranks {
		if r >= lo {
			rs, ws = append(rs, r), append(ws, weights[i])
		}
	}
	return rs[g.pick(ws...)]
}

// size draws one dimension size: 1 to 4 mostly.
func (g *gen) size() int { return g.intn(1, 4) }

// shape draws a shape of the given rank: small sizes, sometimes a zero-size
// dimension, sometimes one dimension at a block boundary (31/32/33,
// 255/256/257, and in the long tier 65535/65536/65537), the others shrunk
// to keep the element count within the budget.
func (g *gen) shape(rank int) []int {
	s := make([]int, rank)
	for i := range s {
		s[i] = g.size()
	}
	if rank == 0 {
		return s
	}
	switch g.pick(90, 4, 6) {
	case 1:
		s[g.intn(0, rank-1)] = 0
	case 2:
		d := g.intn(0, rank-1)
		s[d] = oneOf(g, g.cfg.boundaries...)
		g.fit(s, d)
	}
	return s
}

// fit shrinks the dimensions other than keep until the shape has at most
// cfg.maxElems elements (keep itself as a last resort).
func (g *gen) fit(s []int, keep int) {
	for numel(s) > g.cfg.maxElems {
		changed := false
		for i := range s {
			if i != keep && s[i] > 1 {
				s[i] = max(1, s[i]/2)
				changed = true
				break
			}
		}
		if !changed {
			s[keep] = g.cfg.maxElems
			return
		}
	}
}

// numel is the product of a shape (1 for []).
func numel(s []int) int {
	n := 1
	for _, x := range s {
		n *= x
	}
	return n
}

// ---- values ----

// valueSpec is how the elements of one tensor are drawn.
type valueSpec struct {
	exact   bool  // small integers in [-bound, bound] only
	bound   int64 // for exact
	special int   // percent of special values (general floats)
	sign    int   // 0 mixed, -1 all negative, +1 all non-negative
	raw16   int   // percent of 16-bit floats drawn as raw bit patterns
}

// valueSpec draws a general value spec: mostly mixed, sometimes all
// negative or all positive (a group whose every contribution is negative
// is what a wrong amax identity needs), special values at a drawn
// density, and exact small integers in a share of tensors.
func (g *gen) valueSpec() valueSpec {
	if g.chance(25) {
		return valueSpec{exact: true, bound: 8}
	}
	v := valueSpec{raw16: 20}
	v.special = []int{0, 5, 30}[g.pick(50, 30, 20)]
	v.sign = []int{0, -1, 1}[g.pick(70, 15, 15)]
	return v
}

// exactSpec is a spec of exact small integers whose sums of up to n terms
// stay exact in dt: |x| <= bound with n*bound below 2^p.
func exactSpec(dt scatter.DType, n int) valueSpec {
	b := int64(8)
	if p := significand(dt); p > 0 {
		lim := (int64(1) << p) / int64(n+1)
		b = max(1, min(b, lim))
	}
	return valueSpec{exact: true, bound: b}
}

// significand returns the precision of a float dtype (0 for others).
func significand(dt scatter.DType) int {
	switch dt {
	case scatter.DTFloat16:
		return 11
	case scatter.DTBFloat16:
		return 8
	case scatter.DTFloat32:
		return 24
	case scatter.DTFloat64:
		return 53
	}
	return 0
}

// values draws n elements of dtype dt as a new slice.
func (g *gen) values(dt scatter.DType, n int, spec valueSpec) any {
	s := g.seeded(n)
	data := scatter.MakeData(dt, n)
	for i := 0; i < n; i++ {
		switch d := data.(type) {
		case []bool:
			d[i] = s.bit()
		case []scatter.Float16:
			if !spec.exact && s.intn(0, 99) < spec.raw16 {
				d[i] = scatter.Float16(s.u64())
			} else {
				d[i] = scatter.Float16FromFloat64(floatValue(s, dt, spec))
			}
		case []scatter.BFloat16:
			if !spec.exact && s.intn(0, 99) < spec.raw16 {
				d[i] = scatter.BFloat16(s.u64())
			} else {
				d[i] = scatter.BFloat16FromFloat64(floatValue(s, dt, spec))
			}
		case []float32:
			d[i] = float32(floatValue(s, dt, spec))
		case []float64:
			d[i] = floatValue(s, dt, spec)
		default:
			setInt(data, i, intValue(s, dt, spec))
		}
	}
	return data
}

// intRange is the range of an integer dtype (bool: 0 and 1).
func intRange(dt scatter.DType) (lo, hi int64) {
	switch dt {
	case scatter.DTBool:
		return 0, 1
	case scatter.DTUint8:
		return 0, math.MaxUint8
	case scatter.DTInt8:
		return math.MinInt8, math.MaxInt8
	case scatter.DTInt16:
		return math.MinInt16, math.MaxInt16
	case scatter.DTInt32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// intValue draws one integer of dtype dt.
func intValue(s src, dt scatter.DType, spec valueSpec) int64 {
	lo, hi := intRange(dt)
	var v int64
	switch {
	case spec.exact:
		v = int64(s.intn(-int(spec.bound), int(spec.bound)))
	default:
		switch k := s.intn(0, 99); {
		case k < 60:
			v = int64(s.intn(-8, 8))
		case k < 80:
			v = []int64{lo, hi, lo + 1, hi - 1, 0, -1, 1}[s.uniform(7)]
		default:
			v = int64(s.u64())
		}
	}
	v = wrapInt(dt, v)
	switch {
	case spec.sign < 0 && v >= 0 && lo < 0:
		v = -v - 1
	case spec.sign > 0 && v < 0:
		v = -(v + 1)
	}
	return max(lo, min(hi, v))
}

// wrapInt reduces v to an integer dtype's width, two's complement.
func wrapInt(dt scatter.DType, v int64) int64 {
	switch dt {
	case scatter.DTUint8:
		return int64(uint8(v))
	case scatter.DTInt8:
		return int64(int8(v))
	case scatter.DTInt16:
		return int64(int16(v))
	case scatter.DTInt32:
		return int64(int32(v))
	case scatter.DTBool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}

// floatFacts are the landmarks of a float dtype.
type floatFacts struct {
	minSub, maxSub, minNorm, max float64
	emin, emax, prec             int
}

func factsOf(dt scatter.DType) floatFacts {
	switch dt {
	case scatter.DTFloat16:
		return floatFacts{minSub: 0x1p-24, maxSub: 0x3ffp-24, minNorm: 0x1p-14, max: 65504, emin: -14, emax: 15, prec: 11}
	case scatter.DTBFloat16:
		return floatFacts{minSub: 0x1p-133, maxSub: 0x7fp-133, minNorm: 0x1p-126, max: scatter.BFloat16(0x7f7f).Float64(), emin: -126, emax: 127, prec: 8}
	case scatter.DTFloat32:
		return floatFacts{minSub: 0x1p-149, maxSub: 0x7fffffp-149, minNorm: 0x1p-126, max: math.MaxFloat32, emin: -126, emax: 127, prec: 24}
	}
	return floatFacts{minSub: 0x1p-1074, maxSub: 0xfffffffffffffp-1074, minNorm: 0x1p-1022, max: math.MaxFloat64, emin: -1022, emax: 1023, prec: 53}
}

// floatValue draws one value for a float dtype (rounded to it by the
// caller): small integers, ordinary values, values across the whole
// exponent range, and special values on purpose (NaN, ±Inf, ±0,
// subnormals, the largest finite values) at the spec's density.
func floatValue(s src, dt scatter.DType, spec valueSpec) float64 {
	var v float64
	if spec.exact {
		v = float64(s.intn(-int(spec.bound), int(spec.bound)))
	} else {
		f := factsOf(dt)
		switch k := s.intn(0, 99); {
		case k < spec.special:
			sp := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
				f.minSub, -f.minSub, f.maxSub, f.minNorm, f.max, -f.max, f.max / 2, -f.max / 3,
				1 + math.Ldexp(1, 1-f.prec), math.Ldexp(1, f.prec), math.Ldexp(1, f.prec) + 1}
			v = sp[s.uniform(len(sp))]
		case k < spec.special+(100-spec.special)*40/100:
			v = float64(s.intn(-8, 8))
		case k < spec.special+(100-spec.special)*85/100:
			frac := float64(s.u64()>>11) * 0x1p-53
			v = math.Ldexp(1+frac, s.intn(-8, 8))
			if s.bit() {
				v = -v
			}
		default:
			frac := float64(s.u64()>>11) * 0x1p-53
			v = math.Ldexp(frac, f.emin-f.prec+1+s.uniform(f.emax-f.emin+f.prec+1))
			if s.bit() {
				v = -v
			}
		}
	}
	switch {
	case spec.sign < 0 && !math.Signbit(v):
		v = -v
	case spec.sign > 0 && math.Signbit(v):
		v = -v
	}
	return v
}

// setInt stores an integer into an integer or bool slice.
func setInt(data any, i int, v int64) {
	switch d := data.(type) {
	case []bool:
		d[i] = v != 0
	case []uint8:
		d[i] = uint8(v)
	case []int8:
		d[i] = int8(v)
	case []int16:
		d[i] = int16(v)
	case []int32:
		d[i] = int32(v)
	case []int64:
		d[i] = v
	case []float32:
		d[i] = float32(v)
	case []float64:
		d[i] = float64(v)
	case []scatter.Float16:
		d[i] = scatter.Float16FromFloat64(float64(v))
	case []scatter.BFloat16:
		d[i] = scatter.BFloat16FromFloat64(float64(v))
	}
}

// ---- layouts ----

// layout is how a tensor's elements lie in its backing slice.
type layout struct {
	plain  bool   // contiguous, nil strides, no offset, no guards
	expand []bool // stride 0 (the values repeat along the dimension)
	perm   []int  // the dimensions from outermost to innermost in memory
	gap    []int  // a stride multiplier (> 1: unused guard elements between)
	offset int    // guard elements before the view
	tail   int    // guard elements after it
}

// layoutMode says which layouts to draw.
type layoutMode uint8

const (
	anyLayout     layoutMode = iota // plain about half the time
	stridedLayout                   // never plain
	plainLayout                     // always plain
)

// layout draws a layout for shape: an offset into a bigger backing
// slice, guard elements after, transposed dimension orders, gaps between
// elements and rows, and expanded (stride-0) dimensions.
func (g *gen) layout(shape []int, mode layoutMode) layout {
	r := len(shape)
	l := layout{expand: make([]bool, r), perm: make([]int, r), gap: make([]int, r)}
	for i := range l.perm {
		l.perm[i] = i
		l.gap[i] = 1
	}
	if mode == plainLayout || mode == anyLayout && !g.chance(45) {
		l.plain = true
		return l
	}
	l.offset = g.intn(0, 3)
	l.tail = g.intn(0, 2)
	if r >= 2 && g.chance(40) {
		// a random order of the dimensions in memory
		for i := r - 1; i > 0; i-- {
			j := g.intn(0, i)
			l.perm[i], l.perm[j] = l.perm[j], l.perm[i]
		}
	}
	if r >= 1 && g.chance(35) {
		l.gap[g.intn(0, r-1)] = g.intn(2, 3)
	}
	if r >= 1 && g.chance(30) {
		d := g.intn(0, r-1)
		if shape[d] > 1 {
			l.expand[d] = true
		}
	}
	if mode == stridedLayout && l.offset == 0 && l.tail == 0 && slices.IsSorted(l.perm) &&
		!slices.ContainsFunc(l.gap, func(x int) bool { return x > 1 }) && !slices.Contains(l.expand, true) {
		l.offset = 1
	}
	return l
}

// baseShape is the shape whose values a layout stores: 1 along expanded
// dimensions.
func (l layout) baseShape(shape []int) []int {
	b := slices.Clone(shape)
	for d, e := range l.expand {
		if e {
			b[d] = 1
		}
	}
	return b
}

// guard returns the element that fills a dtype's unused backing slots:
// NaNs with a payload for floats and values that are wrong as data and
// negative (out of range) as indices for integers, so that a backend that
// reads outside the view is caught.
func guard(dt scatter.DType) any {
	switch dt {
	case scatter.DTBool:
		return true
	case scatter.DTUint8:
		return uint8(0xa5)
	case scatter.DTInt8:
		return int8(-0x5a)
	case scatter.DTInt16:
		return int16(-0x5a5a)
	case scatter.DTInt32:
		return int32(-0x5a5a5a5a)
	case scatter.DTInt64:
		return int64(-0x5a5a5a5a5a5a5a5a)
	case scatter.DTFloat16:
		return scatter.Float16(0x7e5a)
	case scatter.DTBFloat16:
		return scatter.BFloat16(0x7fda)
	case scatter.DTFloat32:
		return math.Float32frombits(0x7fc05a5a)
	}
	return math.Float64frombits(0x7ff80000005a5a5a)
}

// materialize lays base (the row-major values of l.baseShape(shape)) out
// as a tensor of the given shape.
func materialize(base any, shape []int, l layout) scatter.Tensor {
	switch b := base.(type) {
	case []bool:
		return place(b, shape, l)
	case []uint8:
		return place(b, shape, l)
	case []int8:
		return place(b, shape, l)
	case []int16:
		return place(b, shape, l)
	case []int32:
		return place(b, shape, l)
	case []int64:
		return place(b, shape, l)
	case []scatter.Float16:
		return place(b, shape, l)
	case []scatter.BFloat16:
		return place(b, shape, l)
	case []float32:
		return place(b, shape, l)
	case []float64:
		return place(b, shape, l)
	}
	panic("materialize: not an element slice")
}

func place[T scatter.Elem](base []T, shape []int, l layout) scatter.Tensor {
	shape = slices.Clone(shape)
	if l.plain {
		return scatter.Tensor{Shape: shape, Data: slices.Clone(base)}
	}
	bs := l.baseShape(shape)
	r := len(shape)
	strides := make([]int, r)
	step := 1
	for i := r - 1; i >= 0; i-- {
		d := l.perm[i]
		strides[d] = step * l.gap[d]
		step = strides[d] * max(bs[d], 1)
	}
	span := 0
	if numel(bs) > 0 {
		span = 1
		for d := range bs {
			span += (bs[d] - 1) * strides[d]
		}
	}
	data := make([]T, l.offset+span+l.tail)
	gv := guard(scatter.DTypeOf([]T(nil))).(T)
	for i := range data {
		data[i] = gv
	}
	idx := make([]int, r)
	for k := range base {
		p := l.offset
		for d := range idx {
			p += idx[d] * strides[d]
		}
		data[p] = base[k]
		for d := r - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < bs[d] {
				break
			}
			idx[d] = 0
		}
	}
	for d, e := range l.expand {
		if e {
			strides[d] = 0
		}
	}
	return scatter.Tensor{Shape: shape, Strides: strides, Offset: l.offset, Data: data}
}

// tensor draws a tensor of dtype dt and shape: a layout (by mode), then
// values for its base shape.
func (g *gen) tensor(dt scatter.DType, shape []int, spec valueSpec, mode layoutMode) scatter.Tensor {
	l := g.layout(shape, mode)
	return materialize(g.values(dt, numel(l.baseShape(shape)), spec), shape, l)
}
