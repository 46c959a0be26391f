package properties_test

import (
	"flag"
	"os"
	"testing"

	"github.com/scatterconf/scatter/properties"
)

var soundnessN = flag.Int("soundness.n", 0, "orders the bound-soundness test tries (default: $SCATTER_SOUNDNESS_N, else 100000, 2000 with -short; 1000000 with the long tier)")

// TestBoundSoundness checks through the public API that the judge accepts
// every correct answer: random summation orders and trees with each
// profile's arithmetic (per step in the dtype, or a float32 accumulator of
// 16-bit data rounded once), in every float dtype and every operation with
// float sums, means and products. The default run tries 100,000 orders
// (about 15 s on one core), a tenth of the full size:
// SCATTER_SOUNDNESS_N=1000000, -soundness.n=1000000 or the long tier
// (SCATTER_PROPERTIES=long) runs a million.
func TestBoundSoundness(t *testing.T) {
	n := 100000
	switch {
	case testing.Short():
		n = 2000
	case os.Getenv(properties.EnvTier) == "long":
		n = 1000000
	}
	n = properties.SoundnessN(n)
	if *soundnessN > 0 {
		n = *soundnessN
	}
	rep := properties.CheckBoundSoundness(t, n)
	if rep.Orders < n && !t.Failed() {
		t.Errorf("tried %d orders, want %d", rep.Orders, n)
	}
}
