package scatter_test

import (
	"fmt"
	"testing"

	"github.com/scatterconf/scatter"
)

// TestSameShapeExceptDim: PyTorch 2's index_reduce_ rule, source of self's
// shape but along dim, and whole shapes when either is 0-d (checked on
// torch 2.14: self [] with source [] is taken, [] with [1] and [3] with []
// raise).
func TestSameShapeExceptDim(t *testing.T) {
	for _, c := range []struct {
		self, source []int
		dim          int
		want         bool
	}{
		{[]int{3, 4}, []int{5, 4}, 0, true},
		{[]int{3, 4}, []int{3, 7}, 1, true},
		{[]int{3, 4}, []int{5, 4}, 1, false},
		{[]int{3, 4}, []int{3, 4, 1}, 0, false},
		{[]int{3}, []int{0}, 0, true},
		{[]int{}, []int{}, 0, true},
		{[]int{}, []int{1}, 0, false},
		{[]int{3}, []int{}, 0, false},
	} {
		t.Run(fmt.Sprintf("%v_%v_dim%d", c.self, c.source, c.dim), func(t *testing.T) {
			if got := scatter.SameShapeExceptDim(c.self, c.source, c.dim); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
