package spec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/scatterconf/scatter"
)

// Helpers of the checking logic (spec.go): value comparison with a
// readable report, deep copies of calls, and a printable form of a call.

// maxShown is how many offending elements a report lists.
const maxShown = 10

// diffValues compares got with want by value: same dtype, same shape, and
// every element equal, where NaN equals NaN and, unless signedZeros, -0
// equals +0. It returns "" when they are equal, else a report naming at most
// ten offending elements by their multi-index.
func diffValues(got, want scatter.Tensor, signedZeros bool) string {
	if err := got.Validate(); err != nil {
		return fmt.Sprintf("got a malformed tensor: %v", err)
	}
	if got.DType() != want.DType() {
		return fmt.Sprintf("dtype: got %v, want %v", got.DType(), want.DType())
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return fmt.Sprintf("shape: got %v, want %v", got.Shape, want.Shape)
	}
	gp, wp := got.Positions(), want.Positions()
	var b strings.Builder
	bad := 0
	for k := range gp {
		if elemEqual(got.Data, gp[k], want.Data, wp[k], signedZeros) {
			continue
		}
		if bad < maxShown {
			fmt.Fprintf(&b, "\n  at %v: got %s, want %s", unravelIndex(k, got.Shape),
				formatElem(got.Data, gp[k]), formatElem(want.Data, wp[k]))
		}
		bad++
	}
	if bad == 0 {
		return ""
	}
	if bad > maxShown {
		fmt.Fprintf(&b, "\n  ... and %d more", bad-maxShown)
	}
	return fmt.Sprintf("%d of %d elements differ:%s", bad, len(gp), b.String())
}

// elemEqual compares element i of a with element j of b (same Go type).
func elemEqual(a any, i int, b any, j int, signedZeros bool) bool {
	switch x := a.(type) {
	case []bool:
		return x[i] == b.([]bool)[j]
	case []uint8:
		return x[i] == b.([]uint8)[j]
	case []int8:
		return x[i] == b.([]int8)[j]
	case []int16:
		return x[i] == b.([]int16)[j]
	case []int32:
		return x[i] == b.([]int32)[j]
	case []int64:
		return x[i] == b.([]int64)[j]
	case []scatter.Float16:
		return floatEqual(x[i].Float64(), b.([]scatter.Float16)[j].Float64(), signedZeros)
	case []scatter.BFloat16:
		return floatEqual(x[i].Float64(), b.([]scatter.BFloat16)[j].Float64(), signedZeros)
	case []float32:
		return floatEqual(float64(x[i]), float64(b.([]float32)[j]), signedZeros)
	case []float64:
		return floatEqual(x[i], b.([]float64)[j], signedZeros)
	}
	return false
}

// floatEqual is == except that NaN equals NaN and, with signedZeros, -0
// differs from +0.
func floatEqual(x, y float64, signedZeros bool) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	if x != y {
		return false
	}
	return !signedZeros || x != 0 || math.Signbit(x) == math.Signbit(y)
}

// formatElem writes element i as Python would, with the sign of a zero.
func formatElem(data any, i int) string {
	s := scatter.FormatAt(data, i)
	if v := scatter.Float64At(data, i); v == 0 && math.Signbit(v) && !strings.HasPrefix(s, "-") {
		s = "-" + s
	}
	return s
}

// unravelIndex returns the multi-index of row-major position k in shape.
func unravelIndex(k int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = k % shape[d]
			k /= shape[d]
		}
	}
	return idx
}
