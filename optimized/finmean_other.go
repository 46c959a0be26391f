//go:build !amd64

package optimized

// Without assembly finishCountF32x2 divides in Go.
const hasFinMean = false

func finMeanF32x2(o *float32, r0, r1 *rec[float32], n int, self, top int32) {}
