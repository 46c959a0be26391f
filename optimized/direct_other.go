//go:build !amd64

package optimized

// Without assembly the direct kernels are unavailable (hasDirect false)
// and the Go loops fold everything.

const hasDirect = false

func addF32I64(acc *float32, nacc int, t *int64, v *float32, n int) int    { return 0 }
func addF32I32(acc *float32, nacc int, t *int32, v *float32, n int) int    { return 0 }
func addF64I64(acc *float64, nacc int, t *int64, v *float64, n int) int    { return 0 }
func addF64I32(acc *float64, nacc int, t *int32, v *float64, n int) int    { return 0 }
func cntI64(cnt *int32, nacc int, t *int64, n int) int                     { return 0 }
func cntI32(cnt *int32, nacc int, t *int32, n int) int                     { return 0 }
func extMaxF32I64(acc *float32, nacc int, t *int64, v *float32, n int) int { return 0 }
func extMaxF32I32(acc *float32, nacc int, t *int32, v *float32, n int) int { return 0 }
func extMinF32I64(acc *float32, nacc int, t *int64, v *float32, n int) int { return 0 }
func extMinF32I32(acc *float32, nacc int, t *int32, v *float32, n int) int { return 0 }
func extMaxSeenF32I64(acc *float32, seen *uint64, nacc int, t *int64, v *float32, n int) int {
	return 0
}
func extMaxSeenF32I32(acc *float32, seen *uint64, nacc int, t *int32, v *float32, n int) int {
	return 0
}
func extMinSeenF32I64(acc *float32, seen *uint64, nacc int, t *int64, v *float32, n int) int {
	return 0
}
func extMinSeenF32I32(acc *float32, seen *uint64, nacc int, t *int32, v *float32, n int) int {
	return 0
}
func addBF16I64(acc *float32, nacc int, t *int64, v *uint16, n int) int       { return 0 }
func addBF16I32(acc *float32, nacc int, t *int32, v *uint16, n int) int       { return 0 }
func addRecF32I64(r *rec[float32], nacc int, t *int64, v *float32, n int) int { return 0 }
func addRecF32I32(r *rec[float32], nacc int, t *int32, v *float32, n int) int { return 0 }
