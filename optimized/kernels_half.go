package optimized

import (
	"math"
	"unsafe"
)

// The kernels for float16 and bfloat16. Values are held as their bit
// patterns (uint16); accumulators are float32, which holds every 16-bit
// value exactly.
//
// Rounding (reference/fold.go's rules, bit for bit):
//   - torch-2 scatter family (half.perStep false): sums and products run in
//     float32, and the result rounds once to the 16-bit format;
//   - per-step (torch-1.13, and index_reduce everywhere): every step rounds
//     to the 16-bit format. A sum is computed in float32 and then rounded
//     to the format: the exact sum of two values of a 16-bit format
//     rounds in float32 only in float32's normal range, where 24 >= 2p+2
//     bits make the double rounding innocuous (Figueroa 1995), so this is
//     the correctly rounded sum. A product is computed in float64, where
//     it is exact, then rounded once (bfloat16 products can fall below
//     float32's normal range, where a float32 detour would round twice).

// gridF16 rounds a float32 to the nearest float16 value, ties to even,
// returned as a float32.
func gridF16(x float32) float32 {
	b := math.Float32bits(x)
	a := b & 0x7fffffff
	s := b & 0x80000000
	if a >= 0x47800000 { // |x| >= 65536, inf, NaN
		if a > 0x7f800000 {
			return x
		}
		return math.Float32frombits(s | 0x7f800000)
	}
	if a < 0x38800000 { // below 2^-14: float16's subnormal grid, 2^-24
		r := (math.Float32frombits(a) + 0.5) - 0.5
		return math.Float32frombits(math.Float32bits(r) | s)
	}
	a += 0xfff + (a>>13)&1
	a &^= 0x1fff
	if a >= 0x47800000 {
		a = 0x7f800000
	}
	return math.Float32frombits(a | s)
}

// gridBF16 rounds a float32 to the nearest bfloat16 value, ties to even,
// returned as a float32.
func gridBF16(x float32) float32 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		return x
	}
	b += 0x7fff + (b>>16)&1
	return math.Float32frombits(b & 0xffff0000)
}

// gridSum rounds a float32 sum of two format values to the format.
func (h half) gridSum(x float32) float32 {
	if h.bf {
		return roundSumBF16(x)
	}
	return gridF16(x)
}

// roundSumBF16 is gridBF16 for the float32 sum of two bfloat16 values,
// without the NaN test (see bf16Add).
func roundSumBF16(x float32) float32 {
	s := math.Float32bits(x)
	s += 0x7fff + (s>>16)&1
	return math.Float32frombits(s &^ 0xffff)
}

// step combines acc and v, rounding per the format's rule.
func (h half) step(op opKind, a, v float32) float32 {
	switch op {
	case opSum:
		if h.perStep {
			return h.gridSum(a + v)
		}
		return a + v
	case opProd:
		if h.perStep {
			return h.grid(float64(a) * float64(v))
		}
		return a * v
	case opAmax:
		return amax32(a, v)
	case opAmin:
		return amin32(a, v)
	}
	return v
}

// kHalfPlain is kPlain for the 16-bit formats.
func kHalfPlain[I ix](h half, op opKind, acc []float32, t []I, v []uint16) bool {
	v = v[:len(t)]
	switch {
	case op == opSum && h.bf && h.perStep:
		return blocks(acc, t, func(lo, hi int) bool {
			vv := v[lo:hi]
			for k, x := range t[lo:hi] {
				i := int(x)
				if uint(i) >= uint(len(acc)) {
					return false
				}
				acc[i] = roundSumBF16(acc[i] + math.Float32frombits(uint32(vv[k])<<16))
			}
			return true
		})
	case op == opSum && h.bf:
		if n, ok := directAddBF16(acc, t, v); ok {
			return n == len(t)
		}
		return blocks(acc, t, func(lo, hi int) bool {
			vv := v[lo:hi]
			for k, x := range t[lo:hi] {
				i := int(x)
				if uint(i) >= uint(len(acc)) {
					return false
				}
				acc[i] += math.Float32frombits(uint32(vv[k]) << 16)
			}
			return true
		})
	case op == opSum && !h.perStep:
		return blocks(acc, t, func(lo, hi int) bool {
			vv := v[lo:hi]
			for k, x := range t[lo:hi] {
				i := int(x)
				if uint(i) >= uint(len(acc)) {
					return false
				}
				acc[i] += f16tab[vv[k]]
			}
			return true
		})
	}
	return blocks(acc, t, func(lo, hi int) bool {
		vv := v[lo:hi]
		for k, x := range t[lo:hi] {
			i := int(x)
			if uint(i) >= uint(len(acc)) {
				return false
			}
			acc[i] = h.step(op, acc[i], h.dec(vv[k]))
		}
		return true
	})
}

// kHalfCount is kCount for the 16-bit formats.
func kHalfCount[I ix](h half, op opKind, acc []rec[float32], t []I, v []uint16) bool {
	v = v[:len(t)]
	return blocks(acc, t, func(lo, hi int) bool {
		vv := v[lo:hi]
		for k, x := range t[lo:hi] {
			i := int(x)
			if uint(i) >= uint(len(acc)) {
				return false
			}
			r := &acc[i]
			r.a = h.step(op, r.a, h.dec(vv[k]))
			r.n++
		}
		return true
	})
}

// rowHalf is rowKern for the 16-bit formats.
func rowHalf(h half, op opKind, acc []float32, cnt []int32, trow []int32, srow []int, src []uint16, n int, pfSrc bool) {
	srow = srow[:len(trow)]
	for k, r := range trow {
		if k+pfDist < len(trow) {
			prefetch(unsafe.Pointer(&acc[int(trow[k+pfDist])*n]), uintptr(n)*4)
			if pfSrc {
				prefetch(unsafe.Pointer(&src[srow[k+pfDist]]), uintptr(n)*2)
			}
		}
		o := int(r) * n
		a := acc[o : o+n : o+n]
		s := srow[k]
		b := src[s : s+n : s+n]
		switch {
		case op == opSum && !h.perStep && h.bf:
			for i := range a {
				a[i] += math.Float32frombits(uint32(b[i]) << 16)
			}
		case op == opSum && !h.perStep:
			for i := range a {
				a[i] += f16tab[b[i]]
			}
		case op == opAmax && h.bf:
			for i := range a {
				a[i] = amax32(a[i], math.Float32frombits(uint32(b[i])<<16))
			}
		default:
			for i := range a {
				a[i] = h.step(op, a[i], h.dec(b[i]))
			}
		}
		if cnt != nil {
			cnt[r]++
		}
	}
}

// mergeHalf combines two partial results.
func (h half) merge(op opKind, a, b float32) float32 {
	if op == opSum && h.perStep {
		return h.grid(float64(a) + float64(b))
	}
	return h.step(op, a, b)
}

// finishHalfPlain merges float32 accumulators and rounds into out[lo:hi].
func finishHalfPlain(h half, f *fin, out []uint16, accs [][]float32, lo, hi int) {
	if h.bf && !h.perStep && f.op == opSum {
		// W7: the float32 sums, rounded once (bf16FromF32)
		o := out[lo:hi]
		a0 := accs[0][lo:hi]
		a0 = a0[:len(o)]
		switch len(accs) {
		case 1:
			for i := range o {
				o[i] = bf16FromF32(a0[i])
			}
			return
		case 2:
			a1 := accs[1][lo:hi]
			a1 = a1[:len(o)]
			if m := len(o) &^ 3; hasFinBF16 && m > 0 {
				// four at a time (SSE2), the same rounding
				finBF16x2(&o[0], &a0[0], &a1[0], m)
				o, a0, a1 = o[m:], a0[m:], a1[m:]
			}
			for i := range o {
				o[i] = bf16FromF32(a0[i] + a1[i])
			}
			return
		}
	}
	for t := lo; t < hi; t++ {
		a := accs[0][t]
		for _, acc := range accs[1:] {
			a = h.merge(f.op, a, acc[t])
		}
		out[t] = h.enc(float64(a))
	}
}

// finishHalfCount is finishCount for the 16-bit formats.
func finishHalfCount(h half, f *fin, out []uint16, recs [][]rec[float32], lo, hi int) {
	for t := lo; t < hi; t++ {
		r := recs[0][t]
		a, n := r.a, int64(r.n)
		for _, rs := range recs[1:] {
			q := rs[t]
			n += int64(q.n)
			a = h.merge(f.op, a, q.a)
		}
		if n != 0 {
			out[t] = h.finOne(f, a, n)
		}
	}
}

// finishHalfSeen is finishSeen for the 16-bit formats.
func finishHalfSeen(h half, f *fin, out []uint16, accs [][]float32, seen [][]uint64, lo, hi int) {
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
				a = h.merge(f.op, a, acc[t])
			}
		}
		out[t] = h.finOne(f, a, 1)
	}
}

// finishHalfRows is finishRows for the 16-bit formats.
func finishHalfRows(h half, f *fin, out []uint16, accs [][]float32, cnts [][]int32, n, lo, hi int) {
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
				a = h.merge(f.op, a, acc[t])
			}
			out[t] = h.finOne(f, a, c)
		}
		if k++; k == n {
			k, row = 0, row+1
		}
	}
}

// finOne finishes one reached element: the mean divides the sum rounded
// to the format by the count rounded to the format, in one rounding
// (reference/fold.go).
func (h half) finOne(f *fin, a float32, n int64) uint16 {
	if f.excl && f.op == opSum {
		a = 0 + a
	}
	if !f.mean {
		return h.enc(float64(a))
	}
	if f.countSelf {
		n++
	}
	if f.cntPerStep {
		n = min(n, int64(1)<<h.sigBits())
	}
	c := float64(h.grid(float64(n)))
	s := float64(h.grid(float64(a)))
	return h.enc(s / c)
}

// bf16StepFam is the family of bfloat16 sums that round after every step
// (torch-1.13's scatter_add and scatter_reduce sum): every partial sum is
// a bfloat16 value, so the accumulators can be bfloat16 themselves — half
// the bytes of float32 accumulators in the random accesses, and worker
// 0's accumulator is the output. Element scatters without counts only
// (rows and counting paths keep float32 accumulators).
func bf16StepFam() *fam[uint16, uint16] {
	h := half{bf: true, perStep: true}
	ident := func(op opKind) uint16 {
		if op == opSum {
			return 0x8000 // -0
		}
		return h.enc(float64(identity[float32](op)))
	}
	return &fam[uint16, uint16]{
		direct: true,
		plain:  kBF16Sum[int32],
		plainIdx: func(_ opKind, acc []uint16, idx any, lo, hi int, v []uint16) bool {
			switch x := idx.(type) {
			case []int64:
				return kBF16Sum(0, acc, x[lo:hi], v)
			case []int32:
				return kBF16Sum(0, acc, x[lo:hi], v)
			}
			return false
		},
		ident: ident,
		load:  func(dst, src []uint16) { copy(dst, src) },
		finPlain: func(f *fin, out []uint16, accs [][]uint16, lo, hi int) {
			for t := lo; t < hi; t++ {
				a := accs[0][t]
				for _, acc := range accs[1:] {
					a = bf16Add(a, acc[t])
				}
				out[t] = a
			}
		},
		finSeen: func(f *fin, out []uint16, accs [][]uint16, seen [][]uint64, lo, hi int) {
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
				for _, acc := range accs[1:] {
					a = bf16Add(a, acc[t])
				}
				out[t] = bf16Add(0, a) // the excluded self's identity is +0
			}
		},
	}
}

// bf16Add is the bfloat16 sum of two bfloat16 values, correctly rounded.
//
// The float32 sum is rounded to nearest even at bit 16 without gridBF16's
// NaN test: a NaN the addition returns is one of the operands (quieted)
// or the default NaN, whose low 16 bits are zero, so adding at most
// 0x8000 leaves it the same NaN.
func bf16Add(a, b uint16) uint16 {
	s := math.Float32bits(math.Float32frombits(uint32(a)<<16) + math.Float32frombits(uint32(b)<<16))
	s += 0x7fff + (s>>16)&1
	return uint16(s >> 16)
}

// kBF16Sum folds bfloat16 values into bfloat16 accumulators, rounding
// every step.
func kBF16Sum[I ix](_ opKind, acc []uint16, t []I, v []uint16) bool {
	v = v[:len(t)]
	return blocks(acc, t, func(lo, hi int) bool {
		vv := v[lo:hi]
		for k, x := range t[lo:hi] {
			i := int(x)
			if uint(i) >= uint(len(acc)) {
				return false
			}
			acc[i] = bf16Add(acc[i], vv[k])
		}
		return true
	})
}
