//go:build !amd64

package optimized

// rowsF32 has no vector kernels here.
func rowsF32(op opKind, acc []float32, trow []int32, srow []int, src []float32, n int, pfSrc bool) bool {
	return false
}
