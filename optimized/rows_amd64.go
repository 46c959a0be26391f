package optimized

import "unsafe"

//go:noescape
func rowsAddF32(acc, src *float32, trow *int32, srow *int, nrows, n, pfsrc int)

//go:noescape
func rowsMaxF32(acc, src *float32, trow *int32, srow *int, nrows, n, pfsrc int)

//go:noescape
func rowsMinF32(acc, src *float32, trow *int32, srow *int, nrows, n, pfsrc int)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// hasAVX reports whether the CPU and the OS support AVX (YMM state saved).
var hasAVX = func() bool {
	max, _, _, _ := cpuid(0, 0)
	if max < 1 {
		return false
	}
	_, _, c, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c&osxsave == 0 || c&avx == 0 {
		return false
	}
	xcr0, _ := xgetbv()
	return xcr0&6 == 6
}()

// rowsF32 runs the AVX row kernel of op on the rows' first n &^ 7
// elements; it reports false when it cannot (no AVX, another op), and the
// caller then folds the rows itself.
func rowsF32(op opKind, acc []float32, trow []int32, srow []int, src []float32, n int, pfSrc bool) bool {
	if !hasAVX || n < 8 || len(trow) == 0 {
		return false
	}
	pf := 0
	if pfSrc {
		pf = 1
	}
	a, s := unsafe.SliceData(acc), unsafe.SliceData(src)
	t, r := unsafe.SliceData(trow), unsafe.SliceData(srow)
	switch op {
	case opSum:
		rowsAddF32(a, s, t, r, len(trow), n, pf)
	case opAmax:
		rowsMaxF32(a, s, t, r, len(trow), n, pf)
	case opAmin:
		rowsMinF32(a, s, t, r, len(trow), n, pf)
	default:
		return false
	}
	return true
}
