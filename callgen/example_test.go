package callgen_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/reference"
)

// A property of one's own over drawn calls: the reference's outcome of any
// call, valid or broken on purpose, is what the judge accepts at the
// strict level. rapid shrinks a failing call to a minimal one.
func TestOwnProperty(t *testing.T) {
	ref := reference.New(scatter.Torch2)
	calls := callgen.AnyCall(callgen.Options{Profile: scatter.Torch2, MaxElements: 64, FaultPercent: 20})
	rapid.Check(t, func(t *rapid.T) {
		call := calls.Draw(t, "call")
		res, err := ref.Run(scatter.CloneCall(call))
		if jerr := reference.Judge(call, scatter.Torch2, scatter.Strict, res, err); jerr != nil {
			t.Fatalf("the judge rejects the reference: %v", jerr)
		}
	})
}

// Drawing one call of an operation, from a fixed rapid seed.
func ExampleCall() {
	gen := callgen.Call(scatter.OpScatterReduce, callgen.Options{Profile: scatter.Torch2, Layouts: callgen.PlainLayout})
	call := gen.Example(1)
	fmt.Println(call.Op())
	// Output: scatter_reduce
}
