package cuda

import (
	"slices"
	"testing"

	"github.com/scatterconf/scatter"
)

// TestPackViews checks the host packing of the views a plan uploads: a
// contiguous view is handed over as it lies (no copy), any other is gathered
// in row-major order.
func TestPackViews(t *testing.T) {
	data := []float32{0, 1, 2, 3, 4, 5, 6}
	for _, c := range []struct {
		name string
		v    view
		want []float32
	}{
		{"dense_offset1_2x3", view{data, 1, []int{2, 3}, []int{3, 1}}, []float32{1, 2, 3, 4, 5, 6}},
		{"transposed_3x2", view{data, 0, []int{3, 2}, []int{1, 3}}, []float32{0, 3, 1, 4, 2, 5}},
		{"sliced_step2_offset1", view{data, 1, []int{3}, []int{2}}, []float32{1, 3, 5}},
		{"expanded_2x3_row", view{data, 4, []int{2, 3}, []int{0, 1}}, []float32{4, 5, 6, 4, 5, 6}},
		{"empty_0x3", view{data, 0, []int{0, 3}, []int{3, 1}}, []float32{}},
		{"scalar_as_1", viewOf(scatter.Tensor{Data: data, Offset: 6}), []float32{6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := pack(c.v).([]float32)
			if !slices.Equal(got, c.want) {
				t.Fatalf("pack = %v, want %v", got, c.want)
			}
			if c.v.tensor().IsContiguous() && len(got) > 0 && &got[0] != &data[c.v.off] {
				t.Fatalf("a contiguous view was copied")
			}
		})
	}
}
