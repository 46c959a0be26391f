package optimized

import (
	"math"
	"unsafe"
)

// Branch-free amax and amin for the float types. The comparison PyTorch
// makes (isnan(v) || acc < v) is data-dependent and random on random
// data; a mispredicted branch behind every cache miss costs more than the
// miss. Here the outcome becomes a mask that selects the bits (SETcc, no
// jump). Written per type: Go's generic code would go through memory for
// the bit casts.

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// amax32 is isnan(v) ? v : (a < v ? v : a), without a branch.
func amax32(a, v float32) float32 {
	m := -(b2u(a < v) | b2u(v != v))
	ab, vb := math.Float32bits(a), math.Float32bits(v)
	return math.Float32frombits(ab ^ ((ab ^ vb) & m))
}

// amin32 is isnan(v) ? v : (v < a ? v : a), without a branch.
func amin32(a, v float32) float32 {
	m := -(b2u(v < a) | b2u(v != v))
	ab, vb := math.Float32bits(a), math.Float32bits(v)
	return math.Float32frombits(ab ^ ((ab ^ vb) & m))
}

func amax64(a, v float64) float64 {
	m := -uint64(b2u(a < v) | b2u(v != v))
	ab, vb := math.Float64bits(a), math.Float64bits(v)
	return math.Float64frombits(ab ^ ((ab ^ vb) & m))
}

func amin64(a, v float64) float64 {
	m := -uint64(b2u(v < a) | b2u(v != v))
	ab, vb := math.Float64bits(a), math.Float64bits(v)
	return math.Float64frombits(ab ^ ((ab ^ vb) & m))
}

// extPlain32 is kPlain's amax/amin for float32.
func extPlain32[I ix](isMax bool, acc []float32, t []I, v []float32) bool {
	v = v[:len(t)]
	if n, ok := directExt(isMax, acc, nil, t, v); ok {
		return n == len(t)
	}
	return blocks(acc, t, func(lo, hi int) bool {
		vv := v[lo:hi]
		for k, x := range t[lo:hi] {
			i := int(x)
			if uint(i) >= uint(len(acc)) {
				return false
			}
			if isMax {
				acc[i] = amax32(acc[i], vv[k])
			} else {
				acc[i] = amin32(acc[i], vv[k])
			}
		}
		return true
	})
}

// extCount32 is kCount's amax/amin for float32.
func extCount32[I ix](isMax bool, acc []rec[float32], t []I, v []float32) bool {
	v = v[:len(t)]
	return blocks(acc, t, func(lo, hi int) bool {
		vv := v[lo:hi]
		for k, x := range t[lo:hi] {
			i := int(x)
			if uint(i) >= uint(len(acc)) {
				return false
			}
			r := &acc[i]
			if isMax {
				r.a = amax32(r.a, vv[k])
			} else {
				r.a = amin32(r.a, vv[k])
			}
			r.n++
		}
		return true
	})
}

// extPlain64 is kPlain's amax/amin for float64.
func extPlain64[I ix](isMax bool, acc []float64, t []I, v []float64) bool {
	v = v[:len(t)]
	return blocks(acc, t, func(lo, hi int) bool {
		vv := v[lo:hi]
		for k, x := range t[lo:hi] {
			i := int(x)
			if uint(i) >= uint(len(acc)) {
				return false
			}
			if isMax {
				acc[i] = amax64(acc[i], vv[k])
			} else {
				acc[i] = amin64(acc[i], vv[k])
			}
		}
		return true
	})
}

// extCount64 is kCount's amax/amin for float64.
func extCount64[I ix](isMax bool, acc []rec[float64], t []I, v []float64) bool {
	v = v[:len(t)]
	return blocks(acc, t, func(lo, hi int) bool {
		vv := v[lo:hi]
		for k, x := range t[lo:hi] {
			i := int(x)
			if uint(i) >= uint(len(acc)) {
				return false
			}
			r := &acc[i]
			if isMax {
				r.a = amax64(r.a, vv[k])
			} else {
				r.a = amin64(r.a, vv[k])
			}
			r.n++
		}
		return true
	})
}

// extRows32 is rowKern's amax/amin for float32.
func extRows32(isMax bool, acc []float32, cnt []int32, trow []int32, srow []int, src []float32, n int, pfSrc bool) {
	srow = srow[:len(trow)]
	bytes := uintptr(n) * 4
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
		if isMax {
			for i := range a {
				a[i] = amax32(a[i], b[i])
			}
		} else {
			for i := range a {
				a[i] = amin32(a[i], b[i])
			}
		}
		if cnt != nil {
			cnt[r]++
		}
	}
}

func extRows64(isMax bool, acc []float64, cnt []int32, trow []int32, srow []int, src []float64, n int, pfSrc bool) {
	srow = srow[:len(trow)]
	bytes := uintptr(n) * 8
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
		if isMax {
			for i := range a {
				a[i] = amax64(a[i], b[i])
			}
		} else {
			for i := range a {
				a[i] = amin64(a[i], b[i])
			}
		}
		if cnt != nil {
			cnt[r]++
		}
	}
}
