package properties_test

import (
	"flag"
	"os"
	"testing"

	"github.com/scatterconf/scatter/properties"
)

var soundnessN = flag.Int("soundness.n", 0, "orders the bound-soundness test tries (default: $SCATTER_SOUNDNESS_N, else 20000, 2000 with -short)")

// TestBoundSoundness checks through the public API that the judge accepts
// every correct answer: random summation orders and trees, per-step and
// wider accumulation, in every float dtype. SCATTER_SOUNDNESS_N=1000000
// (or -soundness.n) runs a million orders.
func TestBoundSoundness(t *testing.T) {
	n := 20000
	switch {
	case testing.Short():
		n = 2000
	case os.Getenv(properties.EnvTier) == "long":
		n = 200000
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
