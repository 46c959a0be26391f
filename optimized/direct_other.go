//go:build !amd64

package optimized

// Without assembly the direct kernels are unavailable (hasDirect false)
// and the Go loops fold everything.

const hasDirect = false

func addF32I64(acc *float32, nacc int, t *int64, v *float32, n int) int                { return 0 }
func addF32I32(acc *float32, nacc int, t *int32, v *float32, n int) int                { return 0 }
func addF64I64(acc *float64, nacc int, t *int64, v *float64, n int) int                { return 0 }
func addF64I32(acc *float64, nacc int, t *int32, v *float64, n int) int                { return 0 }
func addCntF32I64(acc *float32, cnt *int32, nacc int, t *int64, v *float32, n int) int { return 0 }
func addCntF32I32(acc *float32, cnt *int32, nacc int, t *int32, v *float32, n int) int { return 0 }
func cntI64(cnt *int32, nacc int, t *int64, n int) int                                 { return 0 }
func cntI32(cnt *int32, nacc int, t *int32, n int) int                                 { return 0 }
