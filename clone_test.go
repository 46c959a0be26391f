package scatter

import "testing"

// TestCloneCallIsDeep: the copy shares no memory with the original, guard
// elements beyond the view included, and the optional arguments too.
func TestCloneCallIsDeep(t *testing.T) {
	self := Tensor{Shape: []int{2}, Strides: []int{2}, Offset: 1, Data: []float32{9, 1, 9, 2, 9}}
	c := Scatter{Self: self, Index: FromSlice([]int64{0}), Value: Ptr(Int(3))}
	d := CloneCall(c).(Scatter)
	d.Self.Data.([]float32)[0] = -1 // a guard element
	d.Self.Shape[0], d.Self.Strides[0] = 7, 7
	d.Index.Data.([]int64)[0] = 5
	*d.Value = Int(4)
	if self.Data.([]float32)[0] != 9 || self.Shape[0] != 2 || self.Strides[0] != 2 ||
		c.Index.Data.([]int64)[0] != 0 || c.Value.Int64() != 3 {
		t.Fatalf("the copy shares memory with the original: %+v", c)
	}
	if z := CloneTensor(Tensor{}); !z.IsZero() {
		t.Errorf("the zero Tensor cloned to %+v", z)
	}
}
