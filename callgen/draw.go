package callgen

import (
	"math"
	"slices"

	"github.com/scatterconf/scatter"
)

// The drawing primitives: unbiased choices that shrink toward the simplest
// option, sizes, dtypes, element values (special values drawn on purpose,
// 16-bit floats as raw bit patterns, exact small integers) and strided
// layouts over guarded backing slices. The call builders (calls.go) are
// made of these.

// Drawer draws the parts of one call. Everything it draws comes from its
// Source, so that rapid can replay and shrink it; large tensors draw only
// a seed and fill from it (shrinking the seed to 0 still simplifies them).
type Drawer struct {
	src   source
	o     Options
	zeros bool // the call being drawn is in the signed-zeros mood (bounded)
}

// New returns a Drawer that draws from src with the options o.
func New(src Source, o Options) *Drawer {
	return &Drawer{src: src.s, o: o.withDefaults()}
}

// Profile is the profile the Drawer draws for.
func (g *Drawer) Profile() scatter.Profile { return g.o.Profile }

// elemDrawThreshold is the largest tensor whose elements are drawn one by
// one (and so shrink one by one); larger ones are filled from a drawn seed.
const elemDrawThreshold = 48

// seeded returns a source for n elements: the Drawer's own for small n (or
// when it does not shrink), else a generator seeded from one draw.
func (g *Drawer) seeded(n int) source {
	if n <= elemDrawThreshold {
		return g.src
	}
	return g.src.seeded()
}

// percent draws a uniform value in [0, 128) from seven unbiased bits
// (rapid's integer draws favour small values; its bits do not).
func (g *Drawer) percent() int {
	v := 0
	for range 7 {
		v <<= 1
		if g.src.bit() {
			v |= 1
		}
	}
	return v
}

// Chance is true with probability pct/100; it shrinks to false.
func (g *Drawer) Chance(pct int) bool {
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
func (g *Drawer) pick(weights ...int) int {
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

// IntRange draws from [lo, hi], favouring the end nearest zero.
func (g *Drawer) IntRange(lo, hi int) int { return g.src.intn(lo, hi) }

// OneOf picks an element of xs uniformly; it shrinks to xs[0].
func OneOf[T any](g *Drawer, xs ...T) T { return xs[g.pick(slices.Repeat([]int{1}, len(xs))...)] }

// ---- dtypes ----

// DTypeOrder lists the dtypes from the simplest (what a shrunk case shows)
// to the most special.
var DTypeOrder = []scatter.DType{scatter.DTFloat32, scatter.DTInt64, scatter.DTFloat64, scatter.DTInt32,
	scatter.DTInt16, scatter.DTInt8, scatter.DTUint8, scatter.DTFloat16, scatter.DTBFloat16, scatter.DTBool}

// claimed returns the dtypes the backend claims for op, simplest first,
// restricted to keep (nil: all).
func (g *Drawer) claimed(op scatter.Op, keep func(scatter.DType) bool) []scatter.DType {
	var dts []scatter.DType
	for _, dt := range DTypeOrder {
		if g.o.Claims.Claims(op, dt) && (keep == nil || keep(dt)) {
			dts = append(dts, dt)
		}
	}
	return dts
}

// dtype draws a dtype the backend claims for op (and keep allows). It
// rejects the case (rapid counts it invalid) if there is none; the
// properties check that before they start.
func (g *Drawer) DType(op scatter.Op, keep func(scatter.DType) bool) scatter.DType {
	dts := g.claimed(op, func(dt scatter.DType) bool { return g.keepDTypes(dt) && (keep == nil || keep(dt)) })
	if len(dts) == 0 {
		g.src.skip("no claimed dtype for %s", op)
	}
	return OneOf(g, dts...)
}

// otherDType draws a claimed dtype different from dt, or returns dt.
func (g *Drawer) otherDType(op scatter.Op, dt scatter.DType) scatter.DType {
	dts := g.claimed(op, func(d scatter.DType) bool { return d != dt })
	if len(dts) == 0 {
		return dt
	}
	return OneOf(g, dts...)
}

// indexDType draws the dtype of a valid scatter/gather index: int64, or
// int32 where the profile takes it.
func (g *Drawer) IndexDType(int32OK bool) scatter.DType {
	if int32OK && g.Chance(25) {
		return scatter.DTInt32
	}
	return scatter.DTInt64
}

// badIndexDType is an index dtype no scatter/gather takes (int32 under
// torch-1.13 among them).
func (g *Drawer) badIndexDType() scatter.DType {
	bad := []scatter.DType{scatter.DTInt16, scatter.DTFloat32, scatter.DTUint8, scatter.DTBool, scatter.DTInt8, scatter.DTFloat64}
	if !g.o.Profile.Int32Index() {
		bad = append([]scatter.DType{scatter.DTInt32}, bad...)
	}
	return OneOf(g, bad...)
}

// ---- shapes ----

// rank draws a rank in [lo, 6], 1 and 2 most often, 5 and 6 rarely (past
// the 4 dimensions a kernel may special-case).
func (g *Drawer) Rank(lo int) int {
	ranks := []int{1, 2, 0, 3, 4, 5, 6}
	weights := []int{30, 30, 8, 20, 12, 3, 2}
	var rs, ws []int
	for i, r := range ranks {
		if r >= lo {
			rs, ws = append(rs, r), append(ws, weights[i])
		}
	}
	return rs[g.pick(ws...)]
}

// size draws one dimension size: 1 to 4 mostly.
func (g *Drawer) size() int { return g.IntRange(1, 4) }

// shape draws a shape of the given rank: small sizes, sometimes a zero-size
// dimension, sometimes one dimension at a block boundary (31/32/33,
// 255/256/257, and in the long tier 65535/65536/65537), the others shrunk
// to keep the element count within the budget.
func (g *Drawer) Shape(rank int) []int {
	s := make([]int, rank)
	for i := range s {
		s[i] = g.size()
	}
	if rank == 0 {
		return s
	}
	switch g.pick(90, 4, 6) {
	case 1:
		s[g.IntRange(0, rank-1)] = 0
	case 2:
		if len(g.o.Boundaries) == 0 {
			break
		}
		d := g.IntRange(0, rank-1)
		s[d] = OneOf(g, g.o.Boundaries...)
		g.fit(s, d)
	}
	return s
}

// fit shrinks the dimensions other than keep until the shape has at most
// cfg.maxElems elements (keep itself as a last resort).
func (g *Drawer) fit(s []int, keep int) {
	for scatter.Numel(s) > g.o.MaxElements {
		changed := false
		for i := range s {
			if i != keep && s[i] > 1 {
				s[i] = max(1, s[i]/2)
				changed = true
				break
			}
		}
		if !changed {
			s[keep] = g.o.MaxElements
			return
		}
	}
}

// ---- values ----

// Values is how the elements of one tensor are drawn.
type Values struct {
	exact   bool  // small integers in [-bound, bound] only
	bound   int64 // for exact
	special int   // percent of special values (general floats)
	sign    int   // 0 mixed, -1 all negative, +1 all non-negative
	raw16   int   // percent of 16-bit floats drawn as raw bit patterns
	full    bool  // floats of full significands only, of magnitude in [2^-8, 2^9): their sums round
	zeros   bool  // signed zeros: mostly -0.0, some +0.0 and small integers (float dtypes)
}

// Values draws a general value spec: mostly mixed, sometimes all
// negative or all positive (a group whose every contribution is negative
// is what a wrong amax identity needs), special values at a drawn
// density, and exact small integers in a share of tensors. In a call drawn
// in the signed-zeros mood (bounded), every tensor of general values is
// mostly -0.0, so that whole groups, self included, are -0.0.
func (g *Drawer) Values() Values {
	if g.zeros {
		return Values{zeros: true}
	}
	if g.Chance(25) {
		return Values{exact: true, bound: 8}
	}
	v := Values{raw16: 20}
	v.special = []int{0, 5, 30}[g.pick(50, 30, 20)]
	v.sign = []int{0, -1, 1}[g.pick(70, 15, 15)]
	return v
}

// SignedValues is a spec of values of one sign (sign < 0: all negative,
// else all non-negative), no raw 16-bit patterns.
func SignedValues(sign int) Values {
	if sign < 0 {
		return Values{sign: -1}
	}
	return Values{sign: 1}
}

// RoundingValues is a spec of floats whose every significand bit is drawn,
// of magnitude in [2^-8, 2^9), mixed signs: sums and products of them
// round in every float dtype, and no special value comes.
func RoundingValues() Values { return Values{full: true} }

// ExactValues is a spec of exact small integers whose sums of up to n terms
// stay exact in dt: |x| <= bound with n*bound below 2^p.
func ExactValues(dt scatter.DType, n int) Values {
	b := int64(8)
	if p := Significand(dt); p > 0 {
		lim := (int64(1) << p) / int64(n+1)
		b = max(1, min(b, lim))
	}
	return Values{exact: true, bound: b}
}

// Significand returns the precision of a float dtype (0 for others).
func Significand(dt scatter.DType) int {
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
func (g *Drawer) values(dt scatter.DType, n int, spec Values) any {
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
			scatter.SetInt(data, i, intValue(s, dt, spec))
		}
	}
	return data
}

// intValue draws one integer of dtype dt.
func intValue(s source, dt scatter.DType, spec Values) int64 {
	lo, hi := dt.IntRange()
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
	v = dt.WrapInt(v)
	switch {
	case spec.sign < 0 && v >= 0 && lo < 0:
		v = -v - 1
	case spec.sign > 0 && v < 0:
		v = -(v + 1)
	}
	return max(lo, min(hi, v))
}

// signedZero is a value of the signed-zeros mood for a draw k in [0, 8):
// -0.0 mostly, +0.0 for 0, a small integer (drawn then) for 1. The sign
// of a sum, a mean or an extreme of zeros depends on where the fold
// starts: the identity +0.0, self, the first term.
func signedZero(k int, small func() float64) float64 {
	switch k {
	case 0:
		return 0
	case 1:
		return small()
	}
	return math.Copysign(0, -1)
}

// floatValue draws one value for a float dtype (rounded to it by the
// caller): small integers, ordinary values, values across the whole
// exponent range, and special values on purpose (NaN, ±Inf, ±0,
// subnormals, the largest finite values) at the spec's density.
func floatValue(s source, dt scatter.DType, spec Values) float64 {
	var v float64
	switch {
	case spec.zeros:
		v = signedZero(s.intn(0, 7), func() float64 { return float64(s.intn(-3, 3)) })
	case spec.exact:
		v = float64(s.intn(-int(spec.bound), int(spec.bound)))
	default:
		f := scatter.FactsOf(dt)
		switch k := s.intn(0, 99); {
		case spec.full:
			frac := float64(s.u64()>>11) * 0x1p-53
			v = math.Ldexp(1+frac, s.intn(-8, 8))
			if s.bit() {
				v = -v
			}
		case k < spec.special:
			sp := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
				f.MinSub, -f.MinSub, f.MaxSub, f.MinNorm, f.Max, -f.Max, f.Max / 2, -f.Max / 3,
				1 + math.Ldexp(1, 1-f.Prec), math.Ldexp(1, f.Prec), math.Ldexp(1, f.Prec) + 1}
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
			v = math.Ldexp(frac, f.EMin-f.Prec+1+s.uniform(f.EMax-f.EMin+f.Prec+1))
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

// LayoutMode says which layouts to draw.
type LayoutMode uint8

const (
	AnyLayout     LayoutMode = iota // plain about half the time
	StridedLayout                   // never plain
	PlainLayout                     // always plain
)

// layout draws a layout for shape: an offset into a bigger backing
// slice, guard elements after, transposed dimension orders, gaps between
// elements and rows, and expanded (stride-0) dimensions.
func (g *Drawer) layout(shape []int, mode LayoutMode) layout {
	if mode == AnyLayout {
		mode = g.o.Layouts
	}
	r := len(shape)
	l := layout{expand: make([]bool, r), perm: make([]int, r), gap: make([]int, r)}
	for i := range l.perm {
		l.perm[i] = i
		l.gap[i] = 1
	}
	if mode == PlainLayout || mode == AnyLayout && !g.Chance(45) {
		l.plain = true
		return l
	}
	l.offset = g.IntRange(0, 3)
	l.tail = g.IntRange(0, 2)
	if r >= 2 && g.Chance(40) {
		// a random order of the dimensions in memory
		for i := r - 1; i > 0; i-- {
			j := g.IntRange(0, i)
			l.perm[i], l.perm[j] = l.perm[j], l.perm[i]
		}
	}
	if r >= 1 && g.Chance(35) {
		l.gap[g.IntRange(0, r-1)] = g.IntRange(2, 3)
	}
	if r >= 1 && g.Chance(30) {
		d := g.IntRange(0, r-1)
		if shape[d] > 1 {
			l.expand[d] = true
		}
	}
	if mode == StridedLayout && l.offset == 0 && l.tail == 0 && slices.IsSorted(l.perm) &&
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

// Guard returns the element that fills a dtype's unused backing slots:
// NaNs with a payload for floats and values that are wrong as data and
// negative (out of range) as indices for integers, so that a backend that
// reads outside the view is caught.
func Guard(dt scatter.DType) any {
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
	if scatter.Numel(bs) > 0 {
		span = 1
		for d := range bs {
			span += (bs[d] - 1) * strides[d]
		}
	}
	data := make([]T, l.offset+span+l.tail)
	gv := Guard(scatter.DTypeOf([]T(nil))).(T)
	for i := range data {
		data[i] = gv
	}
	for k, p := range (scatter.Tensor{Shape: bs, Strides: strides, Offset: l.offset, Data: data}).EachPosition() {
		data[p] = base[k]
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
func (g *Drawer) Tensor(dt scatter.DType, shape []int, spec Values, mode LayoutMode) scatter.Tensor {
	l := g.layout(shape, mode)
	return materialize(g.values(dt, scatter.Numel(l.baseShape(shape)), spec), shape, l)
}

// Restride lays t's values out again in a strided layout (never plain).
func (g *Drawer) Restride(t scatter.Tensor) scatter.Tensor {
	c := t.Contiguous()
	l := g.layout(t.Shape, StridedLayout)
	for d, e := range l.expand {
		if e && !constantAlong(c, d) {
			l.expand[d] = false
		}
	}
	return materialize(sub(c, l.baseShape(t.Shape)), t.Shape, l)
}

// constantAlong reports whether a contiguous tensor's values repeat along
// dimension d (bit for bit), so that a stride-0 view can hold it.
func constantAlong(t scatter.Tensor, d int) bool {
	inner := scatter.Numel(t.Shape[d+1:])
	size := t.Shape[d]
	for p := 0; p < t.NumEl(); p++ {
		if (p/inner)%size != 0 && scatter.BitsAt(t.Data, p) != scatter.BitsAt(t.Data, p-((p/inner)%size)*inner) {
			return false
		}
	}
	return true
}

// sub returns the row-major values of the leading block of shape bs of a
// contiguous tensor.
func sub(t scatter.Tensor, bs []int) any {
	v := scatter.Tensor{Shape: bs, Strides: scatter.ContiguousStrides(t.Shape), Data: t.Data}
	if len(t.Shape) == 0 {
		v.Strides = []int{}
	}
	return v.Contiguous().Data
}
