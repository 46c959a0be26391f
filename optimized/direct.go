package optimized

import "unsafe"

// directAdd folds acc[t[k]] += v[k] for the native float types with the
// assembly kernels of direct_amd64.s (prefetching, see there), and
// reports how many contributions it folded (len(t) unless an index is
// out of range) and whether it could (an amd64 kernel for this element
// and index type). v is at least as long as t.
func directAdd[T num, I ix](acc []T, t []I, v []T) (int, bool) {
	if !hasDirect || len(t) == 0 || len(acc) == 0 || uintptr(len(acc))*unsafe.Sizeof(acc[0]) < directMinBytes {
		return 0, false
	}
	a, p, n := unsafe.Pointer(unsafe.SliceData(acc)), unsafe.Pointer(unsafe.SliceData(t)), len(t)
	vp := unsafe.Pointer(unsafe.SliceData(v))
	wide := unsafe.Sizeof(t[0]) == 8
	switch any(acc).(type) {
	case []float32:
		if wide {
			return addF32I64((*float32)(a), len(acc), (*int64)(p), (*float32)(vp), n), true
		}
		return addF32I32((*float32)(a), len(acc), (*int32)(p), (*float32)(vp), n), true
	case []float64:
		if wide {
			return addF64I64((*float64)(a), len(acc), (*int64)(p), (*float64)(vp), n), true
		}
		return addF64I32((*float64)(a), len(acc), (*int32)(p), (*float64)(vp), n), true
	}
	return 0, false
}

// directAddBF16 is directAdd for bfloat16 values (bit patterns) summed
// in float32 accumulators (the torch-2 rule: one rounding, at the end).
func directAddBF16[I ix](acc []float32, t []I, v []uint16) (int, bool) {
	if !hasDirect || len(t) == 0 || uintptr(len(acc))*4 < directMinBytes {
		return 0, false
	}
	p, n := unsafe.Pointer(unsafe.SliceData(t)), len(t)
	if unsafe.Sizeof(t[0]) == 8 {
		return addBF16I64(&acc[0], len(acc), (*int64)(p), &v[0], n), true
	}
	return addBF16I32(&acc[0], len(acc), (*int32)(p), &v[0], n), true
}

// directAddRec is directAdd into (sum, count) records: r[t[k]].a +=
// v[k] and r[t[k]].n += 1, for float32 (a mean's sums and counts in one
// cache line, so that a contribution misses once).
func directAddRec[I ix](r []rec[float32], t []I, v []float32) (int, bool) {
	if !hasDirect || len(t) == 0 || uintptr(len(r))*8 < directMinBytes || len(v) < len(t) {
		return 0, false
	}
	p, n := unsafe.Pointer(unsafe.SliceData(t)), len(t)
	if unsafe.Sizeof(t[0]) == 8 {
		return addRecF32I64(&r[0], len(r), (*int64)(p), &v[0], n), true
	}
	return addRecF32I32(&r[0], len(r), (*int32)(p), &v[0], n), true
}

// directCount adds one to cnt[t[k]] for every k, and reports how many it
// counted and whether it could.
func directCount[I ix](cnt []int32, t []I) (int, bool) {
	if !hasDirect || len(t) == 0 || uintptr(len(cnt))*4 < directMinBytes {
		return 0, false
	}
	p := unsafe.Pointer(unsafe.SliceData(t))
	if unsafe.Sizeof(t[0]) == 8 {
		return cntI64(&cnt[0], len(cnt), (*int64)(p), len(t)), true
	}
	return cntI32(&cnt[0], len(cnt), (*int32)(p), len(t)), true
}

// directMinBytes is the smallest accumulator the direct kernels take:
// one that fits in L2 is served faster by the Go loop (W6, 16 outputs:
// 3.5 ms against 5.9 ms with the kernels, whose prefetches are then
// wasted work).
var directMinBytes uintptr = 1 << 20

// directExt folds acc[t[k]] = amax(acc[t[k]], v[k]) (amin when !isMax,
// PyTorch's rule: NaN wins, a tie keeps acc) for float32 with the kernels
// of direct_amd64.s, setting bit t[k] of seen too when seen is not nil; it
// reports how many contributions it folded and whether it could.
func directExt[I ix](isMax bool, acc []float32, seen []uint64, t []I, v []float32) (int, bool) {
	if !hasDirect || len(t) == 0 || uintptr(len(acc))*4 < directMinBytes || len(v) < len(t) ||
		seen != nil && len(seen)*64 < len(acc) {
		return 0, false
	}
	p, n := unsafe.Pointer(unsafe.SliceData(t)), len(t)
	a, vp := &acc[0], &v[0]
	wide := unsafe.Sizeof(t[0]) == 8
	switch {
	case seen == nil && isMax && wide:
		return extMaxF32I64(a, len(acc), (*int64)(p), vp, n), true
	case seen == nil && isMax:
		return extMaxF32I32(a, len(acc), (*int32)(p), vp, n), true
	case seen == nil && wide:
		return extMinF32I64(a, len(acc), (*int64)(p), vp, n), true
	case seen == nil:
		return extMinF32I32(a, len(acc), (*int32)(p), vp, n), true
	case isMax && wide:
		return extMaxSeenF32I64(a, &seen[0], len(acc), (*int64)(p), vp, n), true
	case isMax:
		return extMaxSeenF32I32(a, &seen[0], len(acc), (*int32)(p), vp, n), true
	case wide:
		return extMinSeenF32I64(a, &seen[0], len(acc), (*int64)(p), vp, n), true
	}
	return extMinSeenF32I32(a, &seen[0], len(acc), (*int32)(p), vp, n), true
}
