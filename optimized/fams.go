package optimized

import (
	"unsafe"

	"github.com/scatterconf/scatter"
)

// nativeFam returns the kernels of a type folded in itself.
func nativeFam[T num]() *fam[T, T] {
	return &fam[T, T]{
		direct: true,
		plain:  kPlain[T, int32],
		plainIdx: func(op opKind, acc []T, idx any, lo, hi int, v []T) bool {
			switch x := idx.(type) {
			case []int64:
				return kPlain(op, acc, x[lo:hi], v)
			case []int32:
				return kPlain(op, acc, x[lo:hi], v)
			}
			return false
		},
		count: kCount[T, int32],
		countIdx: func(op opKind, acc []rec[T], idx any, lo, hi int, v []T) bool {
			switch x := idx.(type) {
			case []int64:
				return kCount(op, acc, x[lo:hi], v)
			case []int32:
				return kCount(op, acc, x[lo:hi], v)
			}
			return false
		},
		row:   rowKern[T],
		ident: identity[T],
		load:  func(dst, src []T) { copy(dst, src) },
		loadRec: func(dst []rec[T], src []T) {
			src = src[:len(dst)]
			for i := range dst {
				dst[i] = rec[T]{a: src[i]}
			}
		},
		fillRec: func(dst []rec[T], v T) {
			for i := range dst {
				dst[i] = rec[T]{a: v}
			}
		},
		finPlain: finishPlain[T],
		finCount: finishCount[T],
		finRows:  finishRows[T],
		finSeen:  finishSeen[T],
		finMean:  finishMean[T],
	}
}

// halfFam returns the kernels of a 16-bit float format: bit patterns
// folded in float32 accumulators.
func halfFam(h half) *fam[uint16, float32] {
	initF16tab()
	return &fam[uint16, float32]{
		plain: func(op opKind, acc []float32, t []int32, v []uint16) bool {
			return kHalfPlain(h, op, acc, t, v)
		},
		plainIdx: func(op opKind, acc []float32, idx any, lo, hi int, v []uint16) bool {
			switch x := idx.(type) {
			case []int64:
				return kHalfPlain(h, op, acc, x[lo:hi], v)
			case []int32:
				return kHalfPlain(h, op, acc, x[lo:hi], v)
			}
			return false
		},
		count: func(op opKind, acc []rec[float32], t []int32, v []uint16) bool {
			return kHalfCount(h, op, acc, t, v)
		},
		countIdx: func(op opKind, acc []rec[float32], idx any, lo, hi int, v []uint16) bool {
			switch x := idx.(type) {
			case []int64:
				return kHalfCount(h, op, acc, x[lo:hi], v)
			case []int32:
				return kHalfCount(h, op, acc, x[lo:hi], v)
			}
			return false
		},
		row: func(op opKind, acc []float32, cnt []int32, trow []int32, srow []int, src []uint16, n int, pfSrc bool) {
			rowHalf(h, op, acc, cnt, trow, srow, src, n, pfSrc)
		},
		ident: identity[float32],
		load: func(dst []float32, src []uint16) {
			src = src[:len(dst)]
			for i := range dst {
				dst[i] = h.dec(src[i])
			}
		},
		loadRec: func(dst []rec[float32], src []uint16) {
			src = src[:len(dst)]
			for i := range dst {
				dst[i] = rec[float32]{a: h.dec(src[i])}
			}
		},
		fillRec: func(dst []rec[float32], v float32) {
			for i := range dst {
				dst[i] = rec[float32]{a: v}
			}
		},
		finPlain: func(f *fin, out []uint16, accs [][]float32, lo, hi int) {
			finishHalfPlain(h, f, out, accs, lo, hi)
		},
		finCount: func(f *fin, out []uint16, recs [][]rec[float32], lo, hi int) {
			finishHalfCount(h, f, out, recs, lo, hi)
		},
		finRows: func(f *fin, out []uint16, accs [][]float32, cnts [][]int32, n, lo, hi int) {
			finishHalfRows(h, f, out, accs, cnts, n, lo, hi)
		},
		finSeen: func(f *fin, out []uint16, accs [][]float32, seen [][]uint64, lo, hi int) {
			finishHalfSeen(h, f, out, accs, seen, lo, hi)
		},
	}
}

// assignFam returns the kernels of plain scatter, for any element type:
// stores only, straight into out.
func assignFam[T any]() *fam[T, T] {
	return &fam[T, T]{
		direct: true,
		plain: func(_ opKind, acc []T, t []int32, v []T) bool {
			return kAssign(acc, t, v)
		},
		plainIdx: func(_ opKind, acc []T, idx any, lo, hi int, v []T) bool {
			switch x := idx.(type) {
			case []int64:
				return kAssign(acc, x[lo:hi], v)
			case []int32:
				return kAssign(acc, x[lo:hi], v)
			}
			return false
		},
		row: func(_ opKind, acc []T, _ []int32, trow []int32, srow []int, src []T, n int, _ bool) {
			rowAssign(acc, trow, srow, src, n)
		},
	}
}

// bits16 views a 16-bit float slice as its bit patterns.
func bits16[T scatter.Float16 | scatter.BFloat16](s []T) []uint16 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// from16 views bit patterns as a 16-bit float slice.
func from16[T scatter.Float16 | scatter.BFloat16](s []uint16) []T {
	if len(s) == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
