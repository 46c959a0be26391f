package callgen

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"pgregory.net/rapid"
)

// Source is where a Drawer's choices come from: rapid's bit stream (Rapid),
// which rapid replays and shrinks, or a seeded math/rand generator (Rand),
// for runs that need no shrinking and must repeat exactly.
type Source struct{ s source }

// Rapid draws from rapid's stream of t.
func Rapid(t *rapid.T) Source { return Source{rapidSrc{t}} }

// Rand draws from r.
func Rand(r *rand.Rand) Source { return Source{rngSrc{r}} }

// source hands out random numbers.
type source interface {
	intn(lo, hi int) int // in [lo, hi], biased toward the end nearest 0 for rapid
	uniform(n int) int   // in [0, n), uniform
	u64() uint64
	bit() bool
	// seeded returns a generator for many values: for rapid, a math/rand
	// one seeded from a single draw (which still shrinks to seed 0).
	seeded() source
	// skip gives up on the current call (rapid counts it invalid).
	skip(format string, args ...any)
}

type rapidSrc struct{ t *rapid.T }

func (s rapidSrc) intn(lo, hi int) int { return rapid.IntRange(lo, hi).Draw(s.t, "") }
func (s rapidSrc) u64() uint64         { return rapid.Uint64().Draw(s.t, "") }
func (s rapidSrc) bit() bool           { return rapid.Bool().Draw(s.t, "") }
func (s rapidSrc) seeded() source {
	return rngSrc{rand.New(rand.NewPCG(s.u64(), 0x5ca77e4))}
}
func (s rapidSrc) skip(format string, args ...any) { s.t.Skipf(format, args...) }

// uniform draws bits.Len(n-1) unbiased bits (rapid's integer draws favour
// small values; its single bits do not) and scales them to [0, n). It
// shrinks to 0.
func (s rapidSrc) uniform(n int) int {
	if n <= 1 {
		return 0
	}
	k := bits.Len(uint(n - 1))
	var v uint64
	for range k {
		v <<= 1
		if s.bit() {
			v |= 1
		}
	}
	return int(v * uint64(n) >> k)
}

type rngSrc struct{ r *rand.Rand }

func (s rngSrc) intn(lo, hi int) int { return lo + s.r.IntN(hi-lo+1) }
func (s rngSrc) uniform(n int) int {
	if n <= 1 {
		return 0
	}
	return s.r.IntN(n)
}
func (s rngSrc) u64() uint64    { return s.r.Uint64() }
func (s rngSrc) bit() bool      { return s.r.Uint64()&1 == 1 }
func (s rngSrc) seeded() source { return s }

// skip is reached only when the options leave nothing to draw: DrawCall
// rules out an operation without dtypes before it starts, and returns
// the others (an element bound too small for the operation) as errors.
func (s rngSrc) skip(format string, args ...any) {
	panic(skipped(fmt.Sprintf("callgen: "+format, args...)))
}

// skipped is the panic of rngSrc.skip.
type skipped string
