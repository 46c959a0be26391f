package callgen

import (
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// TestValidIndexReduceShapes: Options.Valid draws index_reduce calls whose
// shapes every profile takes (under 2.x, source has self's exact shape
// but along dim: no broadcasting slice, no 0-d source for a 1-d self, a
// 0-d source for a 0-d self). Before, 16% of them were shape_mismatch
// under 2.x.
func TestValidIndexReduceShapes(t *testing.T) {
	for _, prof := range scatter.Profiles {
		t.Run(prof.String(), func(t *testing.T) {
			gen := Call(scatter.OpIndexReduce, Options{Profile: prof, Claims: reference.New(prof).Info(), Valid: true})
			for i := range 2000 {
				c := gen.Example(i)
				if codes := reference.Expect(scatter.CloneCall(c), prof).Codes(); len(codes) > 0 && codes[0] == scatter.ErrShapeMismatch {
					t.Fatalf("call %d is a shape mismatch: %s", i, reference.DescribeCall(c))
				}
			}
		})
	}
}
