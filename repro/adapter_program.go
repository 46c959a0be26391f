package repro

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/scatterconf/scatter"
)

// AdapterProgram returns a ready-to-run Python program that makes call c with
// PyTorch and prints what it returns or raises. torch's own operations are
// called directly; torch_scatter and the F# library go through the
// emulations of tools/adapters/torch_adapter.py, so run the program from
// the module root:
//
//	/usr/bin/python3 -c "$(cat snippet.py)"
//
// Tensors are written as torch.tensor literals with their dtypes, every
// value exact (16-bit floats and float32 as the float64 that holds them).
func AdapterProgram(c scatter.Call) string {
	var b strings.Builder
	b.WriteString("import math, torch\nnan, inf = math.nan, math.inf\n")
	ts := c.Tensors()
	for _, name := range []string{"self", "input", "index", "src", "source", "out"} {
		if t, ok := ts[name]; ok {
			fmt.Fprintf(&b, "%s = %s\n", name, adapterTensor(t))
		}
	}
	var indices []scatter.Tensor
	switch c := c.(type) {
	case scatter.TensorScatter:
		indices = c.Indices
	case scatter.TensorGather:
		indices = c.Indices
	}
	var idx []string
	for k, t := range indices {
		if t.IsZero() {
			idx = append(idx, "None")
			continue
		}
		fmt.Fprintf(&b, "indices%d = %s\n", k, adapterTensor(t))
		idx = append(idx, fmt.Sprintf("indices%d", k))
	}
	expr, comment := adapterCall(c, "["+strings.Join(idx, ", ")+"]")
	if comment != "" {
		b.WriteString("import sys; sys.path.insert(0, 'tools/adapters'); import torch_adapter as A  # run from the module root\n")
		b.WriteString("# " + comment + "\n")
	}
	fmt.Fprintf(&b, "try:\n    print(%s)\nexcept Exception as e:\n    print(type(e).__name__, e)\n", expr)
	return b.String()
}

// adapterCall returns the Python expression of the call, and for a call of
// the adapter's emulations, what it emulates.
func adapterCall(c scatter.Call, indices string) (expr, emulated string) {
	optInt := func(p *int, def string) string {
		if p == nil {
			return def
		}
		return strconv.Itoa(*p)
	}
	optTensor := func(t scatter.Tensor, name string) string {
		if t.IsZero() {
			return "None"
		}
		return name
	}
	includeSelf := func(exclude bool) string {
		if exclude {
			return "False"
		}
		return "True"
	}
	switch c := c.(type) {
	case scatter.Scatter:
		arg := "src"
		if c.Value != nil {
			arg = pyLiteral(*c.Value)
		}
		if c.Reduce != scatter.ReduceNone {
			return fmt.Sprintf("self.clone().scatter_(%d, index, %s, reduce=%q)", c.Dim, arg, c.Reduce.Name()), ""
		}
		return fmt.Sprintf("self.clone().scatter_(%d, index, %s)", c.Dim, arg), ""
	case scatter.ScatterAdd:
		return fmt.Sprintf("self.clone().scatter_add_(%d, index, src)", c.Dim), ""
	case scatter.ScatterReduce:
		return fmt.Sprintf("self.clone().scatter_reduce_(%d, index, src, %q, include_self=%s)",
			c.Dim, c.Reduce.Name(), includeSelf(c.ExcludeSelf)), ""
	case scatter.IndexReduce:
		return fmt.Sprintf("self.clone().index_reduce_(%d, index, source, %q, include_self=%s)",
			c.Dim, c.Reduce.Name(), includeSelf(c.ExcludeSelf)), ""
	case scatter.Gather:
		return fmt.Sprintf("torch.gather(input, %d, index)", c.Dim), ""
	case scatter.TorchScatterAdd:
		return fmt.Sprintf("A.ts1_scatter_add(src, index, %s, %s, %s, %s)",
				optInt(c.Dim, "-1"), optTensor(c.Out, "out"), optInt(c.DimSize, "None"), pyLiteral(c.FillValue)),
			"torch_scatter 1.x scatter_add(src, index, dim, out, dim_size, fill_value)"
	case scatter.TorchScatter:
		r := c.Reduce.Name()
		if c.Reduce == scatter.ReduceNone {
			r = "sum"
		}
		return fmt.Sprintf("A.ts2_scatter(src, index, %s, %s, %s, %q)",
				optInt(c.Dim, "-1"), optTensor(c.Out, "out"), optInt(c.DimSize, "None"), r),
			"torch_scatter 2.x scatter(src, index, dim, out, dim_size, reduce)"
	case scatter.TensorScatter:
		return fmt.Sprintf("A.fs_scatter(%s, %s, src)", indices, pyShape(c.Shape)), "the F# library's Tensor.scatter indices shape src"
	case scatter.TensorGather:
		return fmt.Sprintf("A.fs_gather(%s, src)", indices), "the F# library's Tensor.gather indices src"
	}
	return fmt.Sprintf("None  # unknown call %T", c), ""
}

// adapterTensor writes a valid tensor as a flat torch.tensor literal with
// its dtype, reshaped, every value exact.
func adapterTensor(t scatter.Tensor) string {
	dt := "torch." + t.DType().String()
	pos := t.Positions()
	vals := make([]string, len(pos))
	for i, p := range pos {
		vals[i] = pyElem(t.Data, p)
	}
	if t.Dim() == 0 {
		return fmt.Sprintf("torch.tensor(%s, dtype=%s)", vals[0], dt)
	}
	lit := "[" + strings.Join(vals, ", ") + "]"
	if t.Dim() == 1 {
		return fmt.Sprintf("torch.tensor(%s, dtype=%s)", lit, dt)
	}
	return fmt.Sprintf("torch.tensor(%s, dtype=%s).reshape(%s)", lit, dt, pyShape(t.Shape))
}
