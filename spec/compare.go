package spec

import (
	"fmt"
	"math"
	"slices"
	"sort"
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

// diffCall reports how after differs from before, a deep copy taken before
// a backend ran: the tensors by name, bit for bit over their whole data, and
// the other arguments. It returns "" when nothing changed.
func diffCall(before, after scatter.Call) string {
	var out []string
	if a, b := describeArgs(before), describeArgs(after); a != b {
		out = append(out, fmt.Sprintf("arguments: before %s, after %s", a, b))
	}
	bt, at := before.Tensors(), after.Tensors()
	for _, name := range sortedNames(bt, at) {
		if d := diffTensorBits(bt[name], at[name]); d != "" {
			out = append(out, name+": "+d)
		}
	}
	return strings.Join(out, "\n")
}

// sortedNames returns the tensor names of the maps in PyTorch's parameter
// order: self or input, src or source, index, out, then the F# indices.
func sortedNames(ms ...map[string]scatter.Tensor) []string {
	var names []string
	for _, m := range ms {
		for k := range m {
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
	}
	order := []string{"self", "input", "src", "source", "index", "out"}
	rank := func(n string) int {
		if i := slices.Index(order, n); i >= 0 {
			return i
		}
		return len(order)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names
}

// diffTensorBits compares two tensors as stored: shape, strides, offset and
// every element of their data, bit for bit.
func diffTensorBits(before, after scatter.Tensor) string {
	switch {
	case !slices.Equal(before.Shape, after.Shape):
		return fmt.Sprintf("shape changed from %v to %v", before.Shape, after.Shape)
	case !slices.Equal(before.Strides, after.Strides):
		return fmt.Sprintf("strides changed from %v to %v", before.Strides, after.Strides)
	case before.Offset != after.Offset:
		return fmt.Sprintf("offset changed from %d to %d", before.Offset, after.Offset)
	case scatter.DTypeOf(before.Data) != scatter.DTypeOf(after.Data):
		return fmt.Sprintf("data type changed from %T to %T", before.Data, after.Data)
	}
	n, m := scatter.DataLen(before.Data), scatter.DataLen(after.Data)
	if n != m {
		return fmt.Sprintf("data length changed from %d to %d", n, m)
	}
	var changed []string
	count := 0
	for i := 0; i < n; i++ {
		if sameBits(before.Data, after.Data, i) {
			continue
		}
		if count < maxShown {
			changed = append(changed, fmt.Sprintf("data[%d] %s -> %s", i, formatElem(before.Data, i), formatElem(after.Data, i)))
		}
		count++
	}
	if count == 0 {
		return ""
	}
	if count > maxShown {
		changed = append(changed, fmt.Sprintf("... and %d more", count-maxShown))
	}
	return fmt.Sprintf("%d data elements changed: %s", count, strings.Join(changed, ", "))
}

// sameBits reports whether element i of a and b (same Go type) are
// identical bit patterns.
func sameBits(a, b any, i int) bool {
	switch x := a.(type) {
	case []bool:
		return x[i] == b.([]bool)[i]
	case []uint8:
		return x[i] == b.([]uint8)[i]
	case []int8:
		return x[i] == b.([]int8)[i]
	case []int16:
		return x[i] == b.([]int16)[i]
	case []int32:
		return x[i] == b.([]int32)[i]
	case []int64:
		return x[i] == b.([]int64)[i]
	case []scatter.Float16:
		return x[i] == b.([]scatter.Float16)[i]
	case []scatter.BFloat16:
		return x[i] == b.([]scatter.BFloat16)[i]
	case []float32:
		return math.Float32bits(x[i]) == math.Float32bits(b.([]float32)[i])
	case []float64:
		return math.Float64bits(x[i]) == math.Float64bits(b.([]float64)[i])
	}
	return true
}

// describeArgs writes the non-tensor arguments of a call.
func describeArgs(c scatter.Call) string {
	var a []string
	add := func(format string, args ...any) { a = append(a, fmt.Sprintf(format, args...)) }
	optInt := func(name string, p *int) {
		if p != nil {
			add("%s=%d", name, *p)
		}
	}
	reduce := func(r scatter.Reduce) {
		if r != scatter.ReduceNone {
			add("reduce=%q", string(r))
		}
	}
	includeSelf := func(exclude bool) {
		if exclude {
			add("include_self=False")
		}
	}
	switch c := c.(type) {
	case scatter.Scatter:
		add("dim=%d", c.Dim)
		if c.Value != nil {
			add("value=%s", c.Value)
		}
		reduce(c.Reduce)
	case scatter.ScatterAdd:
		add("dim=%d", c.Dim)
	case scatter.ScatterReduce:
		add("dim=%d", c.Dim)
		add("reduce=%q", string(c.Reduce))
		includeSelf(c.ExcludeSelf)
	case scatter.IndexReduce:
		add("dim=%d", c.Dim)
		add("reduce=%q", string(c.Reduce))
		includeSelf(c.ExcludeSelf)
	case scatter.Gather:
		add("dim=%d", c.Dim)
	case scatter.TorchScatterAdd:
		optInt("dim", c.Dim)
		optInt("dim_size", c.DimSize)
		add("fill_value=%s", c.FillValue)
	case scatter.TorchScatter:
		optInt("dim", c.Dim)
		optInt("dim_size", c.DimSize)
		reduce(c.Reduce)
	case scatter.TensorScatter:
		add("shape=%v", c.Shape)
		add("indices=%s", describeIndices(c.Indices))
	case scatter.TensorGather:
		add("indices=%s", describeIndices(c.Indices))
	}
	return strings.Join(a, ", ")
}

// describeIndices writes an F# index list as Some/None by position.
func describeIndices(idx []scatter.Tensor) string {
	s := make([]string, len(idx))
	for k, t := range idx {
		if t.IsZero() {
			s[k] = "None"
		} else {
			s[k] = "Some"
		}
	}
	return "[" + strings.Join(s, "; ") + "]"
}
