package check

import (
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
)

// TestUnchanged: an untouched copy is unchanged; a write to an element of
// the view and one to a guard element beyond it are both reported, each
// named as what it is.
func TestUnchanged(t *testing.T) {
	// a view of every other element of 8: positions 1, 3, 5, 7
	src := scatter.Tensor{Shape: []int{4}, Strides: []int{2}, Offset: 1, Data: []float32{0, 1, 2, 3, 4, 5, 6, 7}}
	call := scatter.ScatterAdd{Self: scatter.FromSlice([]float32{0, 0}), Index: scatter.FromSlice([]int64{0, 1, 0, 1}), Src: src}
	before := scatter.CloneCall(call)
	if err := Unchanged(before, call); err != nil {
		t.Fatalf("an untouched call: %v", err)
	}
	d := call.Src.Data.([]float32)
	d[3], d[4] = -3, -4
	err := Unchanged(before, call)
	if err == nil {
		t.Fatal("two writes to src not reported")
	}
	msg := err.Error()
	for _, want := range []string{"src: 2 backing elements changed", "element at data[3]: 3.0 became -3.0", "guard element at data[4]: 4.0 became -4.0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the report lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "guard element at data[3]") {
		t.Errorf("an element of the view called a guard element:\n%s", msg)
	}
}
