//go:build !amd64

package optimized

// Without assembly finishHalfPlain rounds the bfloat16 sums in Go.
const hasFinBF16 = false

func finBF16x2(o *uint16, a0, a1 *float32, n int) {}
