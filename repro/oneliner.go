// Package repro writes a failing call so that anyone can run it again: as
// a protocol request line (Line: feed it to any implementation after the
// hello line, PROTOCOL.md), as a PyTorch shell one-liner (OneLiner) and as
// a full runnable Python program (Program: self-contained, plain PyTorch;
// AdapterProgram: through the repository's PyTorch adapter and its
// emulations, run from the module root), with every value exact. The
// fixtures' reports, the gate and the properties all write through it.
package repro

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// maxLine is the longest reproduction line Block prints in full; longer
// ones are written to a file whose name is printed.
const maxLine = 4000

// Block writes the reproductions of call under a label: the call on one
// line, its protocol request line (its views as views when views is set,
// as LineAs) and its PyTorch one-liner.
func Block(label string, call scatter.Call, views bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s: %s", label, reference.DescribeCall(call))
	if line, err := (protocol.EncodeOptions{Strides: views}).EncodeCall(1, call); err != nil {
		fmt.Fprintf(&b, "\n  protocol: cannot encode the call: %v", err)
	} else {
		fmt.Fprintf(&b, "\n  protocol: %s", clipToFile("protocol", string(line)))
	}
	fmt.Fprintf(&b, "\n  pytorch:  %s", clipToFile("pytorch", OneLiner(call)))
	return b.String()
}

// clipToFile returns s, or, when it is too long to print, where it was
// written.
func clipToFile(kind, s string) string {
	if len(s) <= maxLine {
		return s
	}
	f, err := os.CreateTemp("", "scatter-repro-"+kind+"-*.txt")
	if err != nil {
		return s[:maxLine] + fmt.Sprintf("... (%d bytes more, not saved: %v)", len(s)-maxLine, err)
	}
	defer f.Close()
	_, _ = f.WriteString(s + "\n")
	return fmt.Sprintf("(%d bytes, written to %s)", len(s), filepath.ToSlash(f.Name()))
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// OneLiner returns a shell one-liner that runs call in PyTorch (and
// torch_scatter for its operations; the F# calls as their PyTorch
// equivalent, index_put_ with accumulate and advanced indexing) and prints
// the result:
//
//	python3 -c 'import torch; t = torch.tensor; print(t([1.0, 2.0], dtype=torch.float32).reshape([2]).scatter_add(0, ...))'
//
// Tensors are written contiguously (values exact: floats as float64
// literals, 16-bit floats through their bit patterns).
func OneLiner(call scatter.Call) string {
	pre, e, ok := Expr(call)
	if !ok {
		return e
	}
	return "python3 -c '" + pre + "import torch; t = torch.tensor; print(" + e + ")'"
}

// Expr returns the imports a call needs besides torch and the Python
// expression that computes it (t is torch.tensor), or a comment and false.
func Expr(call scatter.Call) (pre, e string, ok bool) {
	dim := func(d *int) string {
		if d == nil {
			return ""
		}
		return fmt.Sprintf(", dim=%d", *d)
	}
	opt := func(name string, t scatter.Tensor) string {
		if t.IsZero() {
			return ""
		}
		return ", " + name + "=" + pyTensor(t)
	}
	optInt := func(name string, p *int) string {
		if p == nil {
			return ""
		}
		return fmt.Sprintf(", %s=%d", name, *p)
	}
	red := func(r scatter.Reduce) string {
		if r == scatter.ReduceNone {
			return ""
		}
		return fmt.Sprintf(", reduce=%q", r.Name())
	}
	switch c := call.(type) {
	case scatter.Scatter:
		arg := pyTensor(c.Src)
		if c.Value != nil {
			arg = pyScalar(*c.Value)
		}
		e = fmt.Sprintf("%s.scatter(%d, %s, %s%s)", pyTensor(c.Self), c.Dim, pyTensor(c.Index), arg, red(c.Reduce))
	case scatter.ScatterAdd:
		e = fmt.Sprintf("%s.scatter_add(%d, %s, %s)", pyTensor(c.Self), c.Dim, pyTensor(c.Index), pyTensor(c.Src))
	case scatter.ScatterReduce:
		e = fmt.Sprintf("%s.scatter_reduce(%d, %s, %s, %q, include_self=%s)", pyTensor(c.Self), c.Dim, pyTensor(c.Index),
			pyTensor(c.Src), c.Reduce.Name(), pyBool(!c.ExcludeSelf))
	case scatter.IndexReduce:
		e = fmt.Sprintf("%s.index_reduce(%d, %s, %s, %q, include_self=%s)", pyTensor(c.Self), c.Dim, pyTensor(c.Index),
			pyTensor(c.Source), c.Reduce.Name(), pyBool(!c.ExcludeSelf))
	case scatter.Gather:
		e = fmt.Sprintf("torch.gather(%s, %d, %s)", pyTensor(c.Input), c.Dim, pyTensor(c.Index))
	case scatter.TorchScatterAdd:
		pre = "import torch_scatter; "
		e = fmt.Sprintf("torch_scatter.scatter_add(%s, %s%s%s%s, fill_value=%s)", pyTensor(c.Src), pyTensor(c.Index),
			dim(c.Dim), opt("out", c.Out), optInt("dim_size", c.DimSize), pyScalar(c.FillValue))
	case scatter.TorchScatter:
		pre = "import torch_scatter; "
		e = fmt.Sprintf("torch_scatter.scatter(%s, %s%s%s%s%s)", pyTensor(c.Src), pyTensor(c.Index),
			dim(c.Dim), opt("out", c.Out), optInt("dim_size", c.DimSize), red(c.Reduce))
	case scatter.TensorScatter:
		e = fsScatterPy(c)
	case scatter.TensorGather:
		e = fsGatherPy(c)
	default:
		return "", fmt.Sprintf("# no PyTorch form for %T", call), false
	}
	return pre, e, true
}

// fsScatterPy writes the F# Tensor.scatter as index_put_ with accumulate:
// every given index broadcast to src's shape, None as the position.
func fsScatterPy(c scatter.TensorScatter) string {
	S := c.Src.Shape
	if len(c.Indices) == 0 { // a 0-d target: index_put_ takes no empty index tuple
		return fmt.Sprintf("torch.zeros(%s, dtype=%s) + %s", pyShape(c.Shape), pyDType(c.Src.DType()), pyTensor(c.Src))
	}
	parts := make([]string, len(c.Indices))
	for k, ix := range c.Indices {
		switch {
		case !ix.IsZero():
			parts[k] = fmt.Sprintf("%s.broadcast_to(%s)", pyTensor(ix), pyShape(S))
		case k < len(S):
			parts[k] = fmt.Sprintf("torch.arange(%d).reshape(%s).broadcast_to(%s)", S[k], pyShape(unitShape(len(S), k, S[k])), pyShape(S))
		default:
			parts[k] = "None"
		}
	}
	return fmt.Sprintf("torch.zeros(%s, dtype=%s).index_put_((%s), %s, accumulate=True)",
		pyShape(c.Shape), pyDType(c.Src.DType()), strings.Join(parts, ", ")+trailingComma(len(parts)), pyTensor(c.Src))
}

// fsGatherPy writes the F# Tensor.gather as advanced indexing.
func fsGatherPy(c scatter.TensorGather) string {
	var shapes [][]int
	for _, ix := range c.Indices {
		if !ix.IsZero() {
			shapes = append(shapes, ix.Shape)
		}
	}
	T := broadcastShapes(shapes)
	parts := make([]string, len(c.Indices))
	for k, ix := range c.Indices {
		switch {
		case !ix.IsZero():
			parts[k] = pyTensor(ix)
		case k < len(T):
			parts[k] = fmt.Sprintf("torch.arange(%d).reshape(%s)", T[k], pyShape(unitShape(len(T), k, T[k])))
		default:
			parts[k] = "None"
		}
	}
	return fmt.Sprintf("%s[(%s)]", pyTensor(c.Src), strings.Join(parts, ", ")+trailingComma(len(parts)))
}

func trailingComma(n int) string {
	if n == 1 {
		return ","
	}
	return ""
}

// unitShape is n ones with size at position k.
func unitShape(n, k, size int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	s[k] = size
	return s
}

// broadcastShapes is the NumPy broadcast of shapes (nil if they do not
// broadcast).
func broadcastShapes(shapes [][]int) []int {
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := n - len(s)
		for i, x := range s {
			switch {
			case x == 1:
			case out[off+i] == 1:
				out[off+i] = x
			case out[off+i] != x:
				return nil
			}
		}
	}
	return out
}

func pyShape(s []int) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func pyDType(dt scatter.DType) string { return "torch." + dt.String() }

// pyTensor writes a tensor as a torch.tensor literal with its dtype and
// shape.
func pyTensor(t scatter.Tensor) string {
	if t.IsZero() {
		return "None"
	}
	if t.Validate() != nil {
		return "<invalid tensor>"
	}
	c := t.Contiguous()
	n := c.NumEl()
	parts := make([]string, n)
	dt := c.DType()
	for i := 0; i < n; i++ {
		switch dt {
		case scatter.DTFloat16, scatter.DTBFloat16:
			parts[i] = strconv.Itoa(int(int16(scatter.BitsAt(c.Data, i))))
		case scatter.DTFloat32, scatter.DTFloat64:
			parts[i] = pyFloat(scatter.Float64At(c.Data, i))
		default:
			parts[i] = scatter.FormatAt(c.Data, i)
		}
	}
	list := "[" + strings.Join(parts, ", ") + "]"
	if dt == scatter.DTFloat16 || dt == scatter.DTBFloat16 {
		return fmt.Sprintf("t(%s, dtype=torch.int16).view(%s).reshape(%s)", list, pyDType(dt), pyShape(t.Shape))
	}
	return fmt.Sprintf("t(%s, dtype=%s).reshape(%s)", list, pyDType(dt), pyShape(t.Shape))
}

// pyFloat writes a float64 exactly as a Python expression.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return `float("nan")`
	case math.IsInf(f, 1):
		return `float("inf")`
	case math.IsInf(f, -1):
		return `-float("inf")`
	case f == 0 && math.Signbit(f):
		return "-0.0"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".en") {
		s += ".0"
	}
	return s
}

// pyScalar writes a Python scalar.
func pyScalar(s scatter.Scalar) string {
	switch {
	case s.IsBool():
		return pyBool(s.Int64() != 0)
	case s.IsFloat():
		return pyFloat(s.Float64())
	}
	return strconv.FormatInt(s.Int64(), 10)
}
