package optimized

import (
	"math"
	"unsafe"
)

// The inner loops. Every kernel takes a batch of contributions as targets
// (positions in an accumulator slice) and values, in canonical order, and
// folds them into the accumulator; a target outside the slice stops the
// kernel, which reports false (the bounds check PyTorch's kernel makes,
// fused into the loop that needs it anyway). The operation is chosen once
// per batch, outside the loops.

// num is the set of element types folded natively (the accumulator is the
// element type itself).
type num interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~float32 | ~float64
}

// ix is the set of index element types.
type ix interface{ ~int32 | ~int64 }

// opKind is how contributions combine.
type opKind uint8

const (
	opAssign opKind = iota // the last contribution wins
	opSum                  // + (mean too)
	opProd                 // *
	opAmax                 // NaN if any NaN, else the largest
	opAmin                 // NaN if any NaN, else the smallest
)

// rec is an accumulator with the count of contributions it received, kept
// together so that one cache line serves both.
type rec[A any] struct {
	a A
	n int32
}

// kPlain folds v into acc at targets t.
func kPlain[T num, I ix](op opKind, acc []T, t []I, v []T) bool {
	v = v[:len(t)]
	switch op {
	case opSum:
		if n, ok := directAdd(acc, t, v); ok {
			return n == len(t)
		}
		return blocks(acc, t, func(lo, hi int) bool {
			vv := v[lo:hi]
			for k, x := range t[lo:hi] {
				i := int(x)
				if uint(i) >= uint(len(acc)) {
					return false
				}
				acc[i] += vv[k]
			}
			return true
		})
	case opProd:
		return blocks(acc, t, func(lo, hi int) bool {
			vv := v[lo:hi]
			for k, x := range t[lo:hi] {
				i := int(x)
				if uint(i) >= uint(len(acc)) {
					return false
				}
				acc[i] *= vv[k]
			}
			return true
		})
	case opAmax, opAmin:
		switch a := any(acc).(type) {
		case []float32:
			return extPlain32(op == opAmax, a, t, any(v).([]float32))
		case []float64:
			return extPlain64(op == opAmax, a, t, any(v).([]float64))
		}
		isMax := op == opAmax
		return blocks(acc, t, func(lo, hi int) bool {
			vv := v[lo:hi]
			for k, x := range t[lo:hi] {
				i := int(x)
				if uint(i) >= uint(len(acc)) {
					return false
				}
				if isMax {
					acc[i] = amax(acc[i], vv[k])
				} else {
					acc[i] = amin(acc[i], vv[k])
				}
			}
			return true
		})
	case opAssign:
		return kAssign(acc, t, v)
	}
	return true
}

// kCount is kPlain on accumulators that count their contributions.
func kCount[T num, I ix](op opKind, acc []rec[T], t []I, v []T) bool {
	v = v[:len(t)]
	switch op {
	case opSum:
		if r, ok := any(acc).([]rec[float32]); ok {
			if n, ok := directAddRec(r, t, any(v).([]float32)); ok {
				return n == len(t)
			}
		}
		return blocks(acc, t, func(lo, hi int) bool {
			vv := v[lo:hi]
			for k, x := range t[lo:hi] {
				i := int(x)
				if uint(i) >= uint(len(acc)) {
					return false
				}
				r := &acc[i]
				r.a += vv[k]
				r.n++
			}
			return true
		})
	case opProd:
		return blocks(acc, t, func(lo, hi int) bool {
			vv := v[lo:hi]
			for k, x := range t[lo:hi] {
				i := int(x)
				if uint(i) >= uint(len(acc)) {
					return false
				}
				r := &acc[i]
				r.a *= vv[k]
				r.n++
			}
			return true
		})
	case opAmax, opAmin:
		switch a := any(acc).(type) {
		case []rec[float32]:
			return extCount32(op == opAmax, a, t, any(v).([]float32))
		case []rec[float64]:
			return extCount64(op == opAmax, a, t, any(v).([]float64))
		}
		isMax := op == opAmax
		return blocks(acc, t, func(lo, hi int) bool {
			vv := v[lo:hi]
			for k, x := range t[lo:hi] {
				i := int(x)
				if uint(i) >= uint(len(acc)) {
					return false
				}
				r := &acc[i]
				if isMax {
					r.a = amax(r.a, vv[k])
				} else {
					r.a = amin(r.a, vv[k])
				}
				r.n++
			}
			return true
		})
	}
	return true
}

// kAssign stores v at targets t; the last store to a target wins.
func kAssign[T any, I ix](acc []T, t []I, v []T) bool {
	v = v[:len(t)]
	return blocks(acc, t, func(lo, hi int) bool {
		vv := v[lo:hi]
		for k, x := range t[lo:hi] {
			i := int(x)
			if uint(i) >= uint(len(acc)) {
				return false
			}
			acc[i] = vv[k]
		}
		return true
	})
}

// pfDist is how many rows ahead the row kernels prefetch.
const pfDist = 32

// rowKern folds whole rows: acc row trow[k] (n elements from trow[k]*n)
// op= src[srow[k] : srow[k]+n]; cnt, when not nil, counts the
// contributions per output row. The rows are known to be in range. The
// output row pfDist rows ahead is prefetched (it is a random access), and
// so is the src row, into L2, when pfSrc says the src rows come out of
// order.
func rowKern[T num](op opKind, acc []T, cnt []int32, trow []int32, srow []int, src []T, n int, pfSrc bool) {
	if a, ok := any(acc).([]float32); ok {
		s := any(src).([]float32)
		if rowsF32(op, a, trow, srow, s, n, pfSrc) {
			if from := n &^ 7; from < n {
				for k, r := range trow {
					o := int(r) * n
					foldTail(op, a[o:o+n], s[srow[k]:srow[k]+n], from)
				}
			}
			if cnt != nil {
				for _, r := range trow {
					cnt[r]++
				}
			}
			return
		}
	}
	if op == opAmax || op == opAmin {
		switch a := any(acc).(type) {
		case []float32:
			extRows32(op == opAmax, a, cnt, trow, srow, any(src).([]float32), n, pfSrc)
			return
		case []float64:
			extRows64(op == opAmax, a, cnt, trow, srow, any(src).([]float64), n, pfSrc)
			return
		}
	}
	srow = srow[:len(trow)]
	bytes := uintptr(n) * unsafe.Sizeof(acc[0])
	for k, r := range trow {
		if k+pfDist < len(trow) {
			prefetch(unsafe.Pointer(&acc[int(trow[k+pfDist])*n]), bytes)
			if pfSrc {
				prefetchL2(unsafe.Pointer(&src[srow[k+pfDist]]), bytes)
			}
		}
		o := int(r) * n
		a := acc[o : o+n : o+n]
		s := srow[k]
		b := src[s : s+n : s+n]
		switch op {
		case opSum:
			addRow(a, b)
		case opProd:
			mulRow(a, b)
		case opAmax:
			maxRow(a, b)
		case opAmin:
			minRow(a, b)
		case opAssign:
			copy(a, b)
		}
		if cnt != nil {
			cnt[r]++
		}
	}
}

// rowAssign is rowKern for plain scatter, on any element type.
func rowAssign[T any](acc []T, trow []int32, srow []int, src []T, n int) {
	srow = srow[:len(trow)]
	for k, r := range trow {
		o := int(r) * n
		s := srow[k]
		copy(acc[o:o+n:o+n], src[s:s+n:s+n])
	}
}

func addRow[T num](a, b []T) {
	b = b[:len(a)]
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		x[0] += y[0]
		x[1] += y[1]
		x[2] += y[2]
		x[3] += y[3]
		x[4] += y[4]
		x[5] += y[5]
		x[6] += y[6]
		x[7] += y[7]
	}
	for ; i < len(a); i++ {
		a[i] += b[i]
	}
}

func mulRow[T num](a, b []T) {
	b = b[:len(a)]
	for i := range a {
		a[i] *= b[i]
	}
}

func maxRow[T num](a, b []T) {
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x := a[i : i+4 : i+4]
		y := b[i : i+4 : i+4]
		x[0] = amax(x[0], y[0])
		x[1] = amax(x[1], y[1])
		x[2] = amax(x[2], y[2])
		x[3] = amax(x[3], y[3])
	}
	for ; i < len(a); i++ {
		a[i] = amax(a[i], b[i])
	}
}

func minRow[T num](a, b []T) {
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x := a[i : i+4 : i+4]
		y := b[i : i+4 : i+4]
		x[0] = amin(x[0], y[0])
		x[1] = amin(x[1], y[1])
		x[2] = amin(x[2], y[2])
		x[3] = amin(x[3], y[3])
	}
	for ; i < len(a); i++ {
		a[i] = amin(a[i], b[i])
	}
}

// merge combines two partial results of op (private accumulators).
func merge[T num](op opKind, a, b T) T {
	switch op {
	case opSum:
		return a + b
	case opProd:
		return a * b
	case opAmax:
		return amax(a, b)
	case opAmin:
		return amin(a, b)
	}
	return b
}

// amax is PyTorch's ReduceMaximum: isnan(v) ? v : std::max(acc, v), where
// std::max(a, b) = a < b ? b : a. NaN propagates both ways (a NaN
// accumulator is never replaced) and a tie keeps the accumulator, as in
// PyTorch's scalar kernels (-0 against +0 keeps the earlier).
func amax[T num](a, v T) T {
	if a < v || v != v {
		return v
	}
	return a
}

// amin is PyTorch's ReduceMinimum: isnan(v) ? v : std::min(acc, v).
func amin[T num](a, v T) T {
	if v < a || v != v {
		return v
	}
	return a
}

// isFloat reports whether T is a float type.
func isFloat[T num]() bool {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return true
	}
	return false
}

// identity returns the value an accumulator of op starts from when self
// does not take part: -0 for sums (the true identity of +, so that merging
// an untouched private accumulator never changes a -0), 1, and the
// extremes (-inf/+inf, or the integer type's limits).
func identity[T num](op opKind) T {
	var z T
	p := any(&z)
	switch op {
	case opSum:
		switch q := p.(type) {
		case *float32:
			*q = float32(math.Copysign(0, -1))
		case *float64:
			*q = math.Copysign(0, -1)
		}
	case opProd:
		z = 1
	case opAmax, opAmin:
		lo := op == opAmax
		switch q := p.(type) {
		case *float32:
			*q = float32(math.Inf(pick(lo, -1, 1)))
		case *float64:
			*q = math.Inf(pick(lo, -1, 1))
		case *int8:
			*q = pick(lo, int8(math.MinInt8), math.MaxInt8)
		case *int16:
			*q = pick(lo, int16(math.MinInt16), math.MaxInt16)
		case *int32:
			*q = pick(lo, int32(math.MinInt32), math.MaxInt32)
		case *int64:
			*q = pick(lo, int64(math.MinInt64), math.MaxInt64)
		case *uint8:
			*q = pick(lo, uint8(0), math.MaxUint8)
		}
	}
	return z
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// floorDiv is ATen's div_floor_integer (truncating division, minus one
// when the signs differ and the remainder is not zero).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// fin says how accumulators become output values.
type fin struct {
	op         opKind
	counted    bool // reach information is needed: counts (mean) or a reached bitmap (include_self=False)
	mean       bool // divide by the count
	countSelf  bool // the mean's count includes self (include_self)
	clampBelow bool // a count below 1 becomes 1 (torch_scatter), else only 0 does
	excl       bool // self was excluded: sums start from +0 (PyTorch's identity)
	cntPerStep bool // float counts stop growing at 2^p (PyTorch 1.13's count in the dtype)
}

// finishPlain merges the private accumulators into out[lo:hi], in worker
// order. accs[0] may be out itself.
func finishPlain[T num](f *fin, out []T, accs [][]T, lo, hi int) {
	if lo >= hi {
		return
	}
	o := out[lo:hi:hi]
	if a0 := accs[0][lo:hi]; &a0[0] != &o[0] {
		copy(o, a0)
	}
	for _, acc := range accs[1:] {
		a := acc[lo:hi]
		a = a[:len(o)]
		if of, ok := any(o).([]float32); ok && vecMergeF32(f.op, of, any(a).([]float32)) {
			continue
		}
		switch f.op {
		case opSum:
			for i := range o {
				o[i] += a[i]
			}
		case opProd:
			for i := range o {
				o[i] *= a[i]
			}
		case opAmax:
			for i := range o {
				o[i] = amax(o[i], a[i])
			}
		case opAmin:
			for i := range o {
				o[i] = amin(o[i], a[i])
			}
		}
	}
}

// vecMergeF32 is dst[i] = dst[i] op src[i] with the vector row kernels, as
// one row; false when they do not apply.
func vecMergeF32(op opKind, dst, src []float32) bool {
	n := len(dst)
	if !rowsF32(op, dst, []int32{0}, []int{0}, src, n, false) {
		return false
	}
	foldTail(op, dst, src[:n], n&^7)
	return true
}

// foldTail folds elements [from, len(a)) of one row: a op= b.
func foldTail[T num](op opKind, a, b []T, from int) {
	b = b[:len(a)]
	for i := from; i < len(a); i++ {
		switch op {
		case opSum:
			a[i] += b[i]
		case opAmax:
			a[i] = amax(a[i], b[i])
		case opAmin:
			a[i] = amin(a[i], b[i])
		}
	}
}

// finishCount merges counting accumulators into out[lo:hi]: an element
// no contribution reached keeps out's value (self); the others get the
// merged accumulator, +0 added for an excluded self's sum, divided for a
// mean.
func finishCount[T num](f *fin, out []T, recs [][]rec[T], lo, hi int) {
	if o, ok := any(out).([]float32); ok && len(recs) == 2 && f.mean && f.op == opSum && !f.excl {
		r := any(recs).([][]rec[float32])
		finishCountF32x2(f, o[lo:hi], r[0][lo:hi], r[1][lo:hi])
		return
	}
	fo := newFinOne[T](f)
	for t := lo; t < hi; t++ {
		r := recs[0][t]
		a, n := r.a, int64(r.n)
		for _, rs := range recs[1:] {
			q := rs[t]
			n += int64(q.n)
			a = merge(f.op, a, q.a)
		}
		if n != 0 {
			out[t] = fo.do(a, n)
		}
	}
}

// finishCountF32x2 is finishCount of a float32 mean sum over two record
// sets, finOne's float mean written out: where n = r0[t].n + r1[t].n is
// not 0, o[t] = (r0[t].a + r1[t].a) / float32(n + self), the count taken
// at most 2^24 when the profile keeps it in the dtype step by step
// (float32 counts stick at 2^24). Every count below 2^24 is exact in
// float32, so the quotient is finOne's.
func finishCountF32x2(f *fin, o []float32, r0, r1 []rec[float32]) {
	self, top := int32(0), int32(1)<<30
	if f.countSelf {
		self = 1
	}
	if f.cntPerStep {
		top = 1 << 24
	}
	r0, r1 = r0[:len(o)], r1[:len(o)]
	if m := len(o) &^ 3; hasFinMean && m > 0 {
		// four at a time (SSE2), the same arithmetic
		finMeanF32x2(&o[0], &r0[0], &r1[0], m, self, top)
		o, r0, r1 = o[m:], r0[m:], r1[m:]
	}
	for t := range o {
		if n := r0[t].n + r1[t].n; n != 0 {
			o[t] = (r0[t].a + r1[t].a) / float32(min(n+self, top))
		}
	}
}

// finishMean divides out[lo:hi], which holds the merged sums, by the
// counts (summed over the workers' count arrays) where they are not zero.
func finishMean[T num](f *fin, out []T, cnts [][]int32, lo, hi int) {
	fo := newFinOne[T](f)
	if len(cnts) == 2 {
		o := out[lo:hi]
		c0, c1 := cnts[0][lo:hi], cnts[1][lo:hi]
		c0, c1 = c0[:len(o)], c1[:len(o)]
		for t := range o {
			if n := int64(c0[t]) + int64(c1[t]); n != 0 {
				o[t] = fo.do(o[t], n)
			}
		}
		return
	}
	for t := lo; t < hi; t++ {
		n := int64(0)
		for _, c := range cnts {
			n += int64(c[t])
		}
		if n != 0 {
			out[t] = fo.do(out[t], n)
		}
	}
}

// finishSeen is finishCount for accumulators whose reached elements are
// marked in bitmaps (no counts: include_self=False without mean).
func finishSeen[T num](f *fin, out []T, accs [][]T, seen [][]uint64, lo, hi int) {
	if finishSeenExt2(f, out, accs, seen, lo, hi) {
		return
	}
	fo := newFinOne[T](f)
	for t := lo; t < hi; t++ {
		w, bit := t>>6, uint64(1)<<(t&63)
		var any uint64
		for _, s := range seen {
			any |= s[w]
		}
		if any&bit == 0 {
			continue
		}
		a := accs[0][t]
		for k, acc := range accs[1:] {
			if seen[k+1][w]&bit != 0 {
				a = merge(f.op, a, acc[t])
			}
		}
		out[t] = fo.do(a, 1)
	}
}

// finishSeenExt2 is finishSeen for float32 amax or amin on two workers
// (W3's private path), with the branch-free functors and no generic
// dispatch per element; false when it does not apply.
func finishSeenExt2[T num](f *fin, out []T, accs [][]T, seen [][]uint64, lo, hi int) bool {
	o, ok := any(out).([]float32)
	if !ok || len(accs) != 2 || f.mean || f.op != opAmax && f.op != opAmin || lo >= hi {
		return false
	}
	a0, a1 := any(accs[0]).([]float32), any(accs[1]).([]float32)
	s0, s1 := seen[0], seen[1]
	isMax := f.op == opAmax
	for t := lo; t < hi; t++ {
		w, sh := t>>6, uint(t)&63
		if (s0[w]|s1[w])>>sh&1 == 0 {
			continue // not reached: out keeps self
		}
		x := a0[t]
		if s1[w]>>sh&1 != 0 {
			if isMax {
				x = amax32(x, a1[t])
			} else {
				x = amin32(x, a1[t])
			}
		}
		o[t] = x
	}
	return true
}

// finishRows is finishCount for row scatters: plain accumulators and
// counts per row of n elements.
func finishRows[T num](f *fin, out []T, accs [][]T, cnts [][]int32, n, lo, hi int) {
	fo := newFinOne[T](f)
	row := lo / n
	k := lo - row*n
	for t := lo; t < hi; t++ {
		c := int64(0)
		for _, cs := range cnts {
			c += int64(cs[row])
		}
		if c != 0 {
			a := accs[0][t]
			for _, acc := range accs[1:] {
				a = merge(f.op, a, acc[t])
			}
			out[t] = fo.do(a, c)
		}
		if k++; k == n {
			k, row = 0, row+1
		}
	}
}

// finOne finishes one reached element of a native type.
type finOne[T num] struct {
	f   *fin
	isF bool
	sig int
}

func newFinOne[T num](f *fin) finOne[T] {
	var z T
	sig := 53
	if _, ok := any(z).(float32); ok {
		sig = 24
	}
	return finOne[T]{f: f, isF: isFloat[T](), sig: sig}
}

// do returns the output value of accumulator a with n contributions.
func (fo finOne[T]) do(a T, n int64) T {
	f := fo.f
	if f.excl && f.op == opSum {
		var zero T
		a = zero + a
	}
	if !f.mean {
		return a
	}
	if f.countSelf {
		n++
	}
	if fo.isF {
		if f.cntPerStep {
			n = min(n, int64(1)<<fo.sig)
		}
		return a / T(float64(n))
	}
	c := int64(T(n))
	if c == 0 || (f.clampBelow && c < 1) {
		c = 1
	}
	return T(floorDiv(int64(a), c))
}
