package callgen

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/scatterconf/scatter"
)

// TestCallsWithinMaxElements: every tensor of every call is within
// Options.MaxElements, for every operation and profile, valid or not,
// crowded or not, at the bounds the properties and the gate use and
// smaller ones. Before, a source longer than its index, an out's
// dim_size or a crowded group passed it (up to 3x at 300 elements), and
// so did plain shapes (up to 256 elements) under a bound of 64.
func TestCallsWithinMaxElements(t *testing.T) {
	for _, prof := range scatter.Profiles {
		for _, op := range scatter.Ops {
			for _, me := range []int{16, 64, 256, 300, 0} {
				for _, valid := range []bool{true, false} {
					for _, crowded := range []bool{false, true} {
						t.Run(fmt.Sprintf("%s/%s/max=%d/valid=%v/crowded=%v", prof, op, me, valid, crowded), func(t *testing.T) {
							o := Options{Profile: prof, Valid: valid, MaxElements: me, FaultPercent: 30, Want: Want{Crowded: crowded}}
							bound := o.withDefaults().MaxElements
							gen := Call(op, o)
							for i := range 150 {
								c := gen.Example(i)
								for name, x := range c.Tensors() {
									if x.NumEl() > bound {
										t.Fatalf("call %d: %s has %d elements, more than %d", i, name, x.NumEl(), bound)
									}
								}
							}
						})
					}
				}
			}
		}
	}
}

// TestDrawCallTooSmallABound: a bound no call of an operation fits fails
// DrawCall with an error, not a panic.
func TestDrawCallTooSmallABound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	failed := 0
	for range 50 {
		if _, err := DrawCall(r, scatter.OpIndexReduce, Options{MaxElements: 1}); err != nil {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no index_reduce call of 50 failed to fit one element: the test checks nothing")
	}
}
