package optimized

// hasFinMean: finMeanF32x2 (finmean_amd64.s) needs nothing beyond SSE2.
const hasFinMean = true

// finMeanF32x2 is finishCountF32x2 on n elements, n a multiple of 4.
//
//go:noescape
func finMeanF32x2(o *float32, r0, r1 *rec[float32], n int, self, top int32)
