package spec

import (
	"fmt"

	"github.com/scatterconf/scatter"
)

// Helpers for the edge-case table (edge_cases.go). Their names start with
// "ec" so that they cannot collide with the other tables' helpers.

// ecRow is the Source of a row of SEMANTICS.md §12.
func ecRow(n int) string { return fmt.Sprintf("SEMANTICS.md §12 #%d", n) }

// ecLabels returns the labels of an edge case: the operation, the dtype,
// "edge-case", then the features.
func ecLabels(op scatter.Op, dt scatter.DType, features ...string) []string {
	return append([]string{string(op), dt.String(), "edge-case"}, features...)
}

// ecExpand returns the one-element tensor t viewed as n elements with stride
// 0, PyTorch's t.expand(n): every element is the same memory location.
func ecExpand(t scatter.Tensor, n int) scatter.Tensor {
	return scatter.Tensor{Shape: []int{n}, Strides: []int{0}, Offset: t.Offset, Data: t.Data}
}

// ecWith stores v, converted to t's dtype, at data position i of t and
// returns t.
func ecWith(t scatter.Tensor, i int, v float64) scatter.Tensor {
	setAt(t, i, v)
	return t
}

// ecDiv32 and ecMul32 are float32 operations done at run time (IEEE, one
// rounding), never as exact constant arithmetic.
func ecDiv32(a, b float32) float32 { return a / b }
func ecMul32(a, b float32) float32 { return a * b }

// ecSum64 adds the values left to right in float64, rounding every step, as
// a sequential loop does.
func ecSum64(v ...float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// ecF16Div is a float16 division as PyTorch's CPU kernel does it: both
// operands (exact in float32) divided in float32, then rounded to float16.
func ecF16Div(a, b float32) float64 { return float64(ecDiv32(a, b)) }
