package optimized

import "github.com/scatterconf/scatter"

// Test hooks.

// ForcePath makes every call that can take path ("serial", "private" or
// "owner") take it, and parallelises calls of any size.
func ForcePath(path string) Option {
	return func(b *backend) {
		b.force = path
		b.serialMax = 0
	}
}

// Fast runs c on a fast path only; ok is false when c would go to the
// reference.
func Fast(b scatter.Backend, c scatter.Call) (scatter.Result, bool) {
	return b.(*backend).fast(c)
}
