package optimized

// hasFinBF16: finBF16x2 (finbf16_amd64.s) needs nothing beyond SSE2.
const hasFinBF16 = true

// finBF16x2 sets o[i] = bf16FromF32(a0[i] + a1[i]) for i < n, n a
// multiple of 4.
//
//go:noescape
func finBF16x2(o *uint16, a0, a1 *float32, n int)
