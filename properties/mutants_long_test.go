package properties

import (
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// TestFloat32CountSaturates is the long-tier case of the mutant
// float32-count-saturates (SCATTER_PROPERTIES=long; a group of 2^24 + 3
// contributions, about 200 MB): a float32 mean of one 1.0 and 2^24 + 1
// zeros into one element with self (0) included. The sum is 1 in every
// order (adding zeros is exact), so the conformant mean is exactly
// fl32(1 / fl32(2^24 + 3)); a count that saturates at 2^24 gives 1/2^24,
// two float32 steps away. The reference must pass and the mutant fail at
// the conformant level.
func TestFloat32CountSaturates(t *testing.T) {
	if resolveTier(TierAuto) != TierLong {
		t.Skip("a long-tier case: SCATTER_PROPERTIES=long")
	}
	n := saturation + 2
	src := make([]float32, n)
	src[n/2] = 1
	call := scatter.ScatterReduce{Self: scatter.FromSlice([]float32{0}, 1), Dim: 0,
		Index: scatter.FromSlice(make([]int64, n), n), Src: scatter.FromSlice(src, n), Reduce: scatter.ReduceMean}
	var m Mutant
	for _, x := range Mutants() {
		if x.Name == "float32-count-saturates" {
			m = x
		}
	}
	if m.Backend == nil {
		t.Fatal("no mutant float32-count-saturates")
	}
	exp := reference.Expect(scatter.CloneCall(call), scatter.Torch2)
	ref, err := reference.New(scatter.Torch2).Run(scatter.CloneCall(call))
	if jerr := exp.Check(scatter.Conformant, ref, err); jerr != nil {
		t.Fatalf("the judge rejects the reference: %v", jerr)
	}
	got, err := m.Backend.Run(scatter.CloneCall(call))
	jerr := exp.Check(scatter.Conformant, got, err)
	if jerr == nil {
		t.Fatalf("the mutant's mean %v passes the conformant level (the reference's: %v)",
			scatter.Float64At(got.Out.Data, 0), scatter.Float64At(ref.Out.Data, 0))
	}
	t.Logf("killed at the conformant level: %v", jerr)
}
