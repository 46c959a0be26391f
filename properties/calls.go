package properties

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/check"
)

// Helpers on calls and results: guarded runs (check.Run) and element
// comparisons (deep copies are scatter.CloneCall).

// mapCall returns c with every tensor replaced by f(name, tensor); absent
// tensors stay absent.
func mapCall(c scatter.Call, f func(name string, t scatter.Tensor) scatter.Tensor) scatter.Call {
	m := func(name string, t scatter.Tensor) scatter.Tensor {
		if t.IsZero() {
			return t
		}
		return f(name, t)
	}
	switch c := c.(type) {
	case scatter.Scatter:
		c.Self, c.Index, c.Src = m("self", c.Self), m("index", c.Index), m("src", c.Src)
		return c
	case scatter.ScatterAdd:
		c.Self, c.Index, c.Src = m("self", c.Self), m("index", c.Index), m("src", c.Src)
		return c
	case scatter.ScatterReduce:
		c.Self, c.Index, c.Src = m("self", c.Self), m("index", c.Index), m("src", c.Src)
		return c
	case scatter.IndexReduce:
		c.Self, c.Index, c.Source = m("self", c.Self), m("index", c.Index), m("source", c.Source)
		return c
	case scatter.Gather:
		c.Input, c.Index = m("input", c.Input), m("index", c.Index)
		return c
	case scatter.TorchScatterAdd:
		c.Src, c.Index, c.Out = m("src", c.Src), m("index", c.Index), m("out", c.Out)
		return c
	case scatter.TorchScatter:
		c.Src, c.Index, c.Out = m("src", c.Src), m("index", c.Index), m("out", c.Out)
		return c
	case scatter.TensorScatter:
		idx := make([]scatter.Tensor, len(c.Indices))
		for k, t := range c.Indices {
			idx[k] = m(fmt.Sprintf("indices[%d]", k), t)
		}
		c.Indices, c.Src = idx, m("src", c.Src)
		return c
	case scatter.TensorGather:
		idx := make([]scatter.Tensor, len(c.Indices))
		for k, t := range c.Indices {
			idx[k] = m(fmt.Sprintf("indices[%d]", k), t)
		}
		c.Indices, c.Src = idx, m("src", c.Src)
		return c
	}
	return c
}

// contiguousCall returns c with every tensor a fresh row-major copy.
func contiguousCall(c scatter.Call) scatter.Call {
	return mapCall(c, func(_ string, t scatter.Tensor) scatter.Tensor { return t.Contiguous() })
}

// isNaNAt reports whether element i is a NaN.
func isNaNAt(data any, i int) bool {
	switch d := data.(type) {
	case []scatter.Float16:
		return d[i].IsNaN()
	case []scatter.BFloat16:
		return d[i].IsNaN()
	case []float32:
		return d[i] != d[i]
	case []float64:
		return d[i] != d[i]
	}
	return false
}

// outcome is what one run of a backend gave.
type outcome struct {
	res      scatter.Result
	err      error
	panicked string // the panic and its stack, if it panicked
	modified error  // how it changed its inputs, if it did
}

// unsupported reports whether the backend declined the call.
func (o outcome) unsupported() bool { return scatter.CodeOf(o.err) == scatter.ErrNotSupported }

// run runs call c on b through check.Run: a panic caught, and c's tensors
// checked unchanged bit for bit afterwards.
func run(b scatter.Backend, c scatter.Call) outcome {
	o := check.Run(b, c)
	return outcome{res: o.Res, err: o.Err, panicked: o.Panicked, modified: o.Modified}
}

// elemsEqual reports whether element i of a equals element j of b as
// values: NaN equals NaN (any payload); with zeroSign false, -0 equals +0;
// everything else bit for bit.
func elemsEqual(a any, i int, b any, j int, zeroSign bool) bool {
	na, nb := isNaNAt(a, i), isNaNAt(b, j)
	if na || nb {
		return na && nb
	}
	if !zeroSign {
		fa, fb := scatter.Float64At(a, i), scatter.Float64At(b, j)
		if fa == 0 && fb == 0 {
			return true
		}
	}
	return scatter.BitsAt(a, i) == scatter.BitsAt(b, j)
}

// compareMode is how two results are compared.
type compareMode uint8

const (
	sameValues compareMode = iota // NaN = NaN, -0 = +0, otherwise bit for bit
	sameSigns                     // NaN = NaN, otherwise bit for bit (zero signs too)
	sameBits                      // bit for bit, NaN payloads too
)

// diffTensors compares two tensors element by element; "" when equal.
func diffTensors(got, want scatter.Tensor, mode compareMode) string {
	if err := got.Validate(); err != nil {
		return "got an invalid tensor: " + err.Error()
	}
	if err := want.Validate(); err != nil {
		return "want an invalid tensor: " + err.Error()
	}
	if got.DType() != want.DType() {
		return fmt.Sprintf("dtype %v, want %v", got.DType(), want.DType())
	}
	if !slices.Equal(got.Shape, want.Shape) {
		return fmt.Sprintf("shape %v, want %v", got.Shape, want.Shape)
	}
	gp, wp := got.Positions(), want.Positions()
	var b strings.Builder
	bad := 0
	for k := range gp {
		var eq bool
		switch mode {
		case sameBits:
			eq = scatter.BitsAt(got.Data, gp[k]) == scatter.BitsAt(want.Data, wp[k])
		default:
			eq = elemsEqual(got.Data, gp[k], want.Data, wp[k], mode == sameSigns)
		}
		if eq {
			continue
		}
		if bad < 10 {
			fmt.Fprintf(&b, "\n    at %v: %s vs %s", unravel(k, got.Shape),
				formatBits(got.Data, gp[k]), formatBits(want.Data, wp[k]))
		}
		bad++
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ:%s", bad, len(gp), b.String())
}

// formatBits writes an element as Python would, with the bits of a float.
func formatBits(data any, i int) string {
	s := scatter.FormatAt(data, i)
	switch d := data.(type) {
	case []scatter.Float16, []scatter.BFloat16:
		s += fmt.Sprintf(" (0x%04x)", scatter.BitsAt(d, i))
	case []float32:
		s += fmt.Sprintf(" (0x%08x)", scatter.BitsAt(d, i))
	case []float64:
		if math.IsNaN(d[i]) || d[i] == 0 {
			s += fmt.Sprintf(" (0x%016x)", scatter.BitsAt(d, i))
		}
	}
	return s
}

// diffResults compares two results (Out, and Arg where either has one).
func diffResults(got, want scatter.Result, mode compareMode) string {
	var ps []string
	if d := diffTensors(got.Out, want.Out, mode); d != "" {
		ps = append(ps, "out: "+d)
	}
	if !got.Arg.IsZero() || !want.Arg.IsZero() {
		if got.Arg.IsZero() || want.Arg.IsZero() {
			ps = append(ps, "arg: present in one result only")
		} else if d := diffTensors(got.Arg, want.Arg, sameBits); d != "" {
			ps = append(ps, "arg: "+d)
		}
	}
	return strings.Join(ps, "\n  ")
}

// unravel returns the multi-index of row-major position p in shape.
func unravel(p int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = p % shape[d]
			p /= shape[d]
		}
	}
	return idx
}

// errName names an error by its code.
func errName(err error) string {
	if err == nil {
		return "no error"
	}
	if c := scatter.CodeOf(err); c != 0 {
		return c.String() + " (" + err.Error() + ")"
	}
	return "an error without a code (" + err.Error() + ")"
}
