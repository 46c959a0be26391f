package repro

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
)

// Line returns the call as a protocol request line (id 1), its tensors
// contiguous, or a note that the protocol cannot express it.
func Line(c scatter.Call) string { return LineAs(false, c) }

// LineAs is Line with the call's views written as views (the strides
// extension, protocol.EncodeOptions) when views is set: the line an
// implementation that claims the extension was sent when the gate passed
// it the call's views (protocol.Client.SendsViews), whose replay sees
// what it saw.
func LineAs(views bool, c scatter.Call) string {
	line, err := protocol.EncodeOptions{Strides: views}.EncodeCall(1, c)
	if err != nil {
		return "(not expressible in the protocol: " + err.Error() + ")"
	}
	return string(line)
}

// Program returns a ready-to-run Python program that makes call c with
// PyTorch and prints what comes back (or what is raised). The tensors are
// torch.tensor literals with their dtypes, every value exact (the float64
// that holds it); PyTorch's own operations are called as methods, out of
// place; torch_scatter and the F# Tensor library are called when
// torch_scatter is importable, else (and for F#) through the formula they
// stand for, written in plain PyTorch (SEMANTICS.md §8, §9).
func Program(c scatter.Call) string {
	var b strings.Builder
	b.WriteString("import torch\nnan, inf = float('nan'), float('inf')\n")
	ts := c.Tensors()
	for _, name := range []string{"self", "input", "index", "src", "source", "out"} {
		if t, ok := ts[name]; ok {
			pyName := name
			if name == "out" {
				pyName = "out0"
			}
			fmt.Fprintf(&b, "%s = %s\n", pyName, pyTensorLiteral(t))
		}
	}
	var idx []string
	var indices []scatter.Tensor
	switch c := c.(type) {
	case scatter.TensorScatter:
		indices = c.Indices
	case scatter.TensorGather:
		indices = c.Indices
	}
	for k, t := range indices {
		if t.IsZero() {
			idx = append(idx, "None")
			continue
		}
		fmt.Fprintf(&b, "indices%d = %s\n", k, pyTensorLiteral(t))
		idx = append(idx, fmt.Sprintf("indices%d", k))
	}
	indexList := "[" + strings.Join(idx, ", ") + "]"
	optInt := func(p *int) string {
		if p == nil {
			return "None"
		}
		return strconv.Itoa(*p)
	}
	dimArg := func(p *int) string {
		if p == nil {
			return "-1"
		}
		return strconv.Itoa(*p)
	}
	outArg := func(t scatter.Tensor) string {
		if t.IsZero() {
			return "None"
		}
		return "out0.clone()"
	}
	incl := func(exclude bool) string {
		if exclude {
			return "False"
		}
		return "True"
	}
	var call, comment string
	switch c := c.(type) {
	case scatter.Scatter:
		arg := "src"
		if c.Value != nil {
			arg = pyLiteral(*c.Value)
		}
		if c.Reduce != scatter.ReduceNone {
			call = fmt.Sprintf("self.clone().scatter_(%d, index, %s, reduce=%q)", c.Dim, arg, c.Reduce.Name())
		} else {
			call = fmt.Sprintf("self.clone().scatter_(%d, index, %s)", c.Dim, arg)
		}
	case scatter.ScatterAdd:
		call = fmt.Sprintf("self.clone().scatter_add_(%d, index, src)", c.Dim)
	case scatter.ScatterReduce:
		call = fmt.Sprintf("self.clone().scatter_reduce_(%d, index, src, %q, include_self=%s)", c.Dim, c.Reduce.Name(), incl(c.ExcludeSelf))
	case scatter.IndexReduce:
		call = fmt.Sprintf("self.clone().index_reduce_(%d, index, source, %q, include_self=%s)", c.Dim, c.Reduce.Name(), incl(c.ExcludeSelf))
	case scatter.Gather:
		call = fmt.Sprintf("torch.gather(input, %d, index)", c.Dim)
	case scatter.TorchScatterAdd:
		b.WriteString(pyTS1)
		args := fmt.Sprintf("src, index, dim=%s, out=%s, dim_size=%s, fill_value=%s", dimArg(c.Dim), outArg(c.Out),
			optInt(c.DimSize), pyLiteral(c.FillValue))
		fmt.Fprintf(&b, "def call():\n    try:  # torch_scatter 1.x (<= 1.4.0) has fill_value\n        import torch_scatter\n"+
			"        if torch_scatter.__version__.startswith('1.'):\n            return torch_scatter.scatter_add(%s)\n"+
			"    except ImportError:\n        pass\n    return ts1_scatter_add(%s)\n", args, args)
		call = "call()"
	case scatter.TorchScatter:
		r := c.Reduce.Name()
		if c.Reduce == scatter.ReduceNone {
			r = "sum"
		}
		b.WriteString(pyTS2)
		args := fmt.Sprintf("src, index, dim=%s, out=%s, dim_size=%s, reduce=%q", dimArg(c.Dim), outArg(c.Out), optInt(c.DimSize), r)
		fmt.Fprintf(&b, "def call():\n    try:  # torch_scatter 2.x\n        import torch_scatter\n"+
			"        return torch_scatter.scatter(%s)\n    except ImportError:\n        return ts2_scatter(%s)\n", args, args)
		call = "call()"
	case scatter.TensorScatter:
		b.WriteString(pyFSScatter)
		call = fmt.Sprintf("fs_scatter(%s, %s, src)", indexList, pyShape(c.Shape))
		comment = "  # F#: Tensor.scatter indices " + pyShape(c.Shape) + " src"
	case scatter.TensorGather:
		b.WriteString(pyFSGather)
		call = fmt.Sprintf("fs_gather(%s, src)", indexList)
		comment = "  # F#: Tensor.gather indices src"
	default:
		call = fmt.Sprintf("None  # unknown call %T", c)
	}
	fmt.Fprintf(&b, "try:\n    out = %s%s\n    print(out)\nexcept Exception as e:\n    print(type(e).__name__ + ':', e)\n", call, comment)
	return b.String()
}

// The formulas the torch_scatter and F# operations stand for, in plain
// PyTorch, as SEMANTICS.md §8 and §9 give them.
const pyTS1 = `# torch_scatter 1.x scatter_add (tag 1.4.0, utils/gen.py), in plain PyTorch:
def ts1_scatter_add(src, index, dim=-1, out=None, dim_size=None, fill_value=0):
    dim = range(src.dim())[dim]  # a 0-d src has no dim
    if index.dim() == 1:  # a 1-d index lies along dim
        size = [1] * src.dim(); size[dim] = src.size(dim)
        index = index.view(size).expand_as(src)
    if src.dim() != index.dim():
        raise ValueError('Number of dimensions of src and index tensor do not match')
    expand = [-1 if s == i and s != 1 and i != 1 else max(i, s) for s, i in zip(src.size(), index.size())]
    src = src.expand(expand); index = index.expand_as(src)
    if out is None:
        size = list(src.size())
        size[dim] = dim_size if dim_size is not None else (0 if index.numel() == 0 else int(index.max()) + 1)
        out = src.new_full(size, fill_value)
    return out.scatter_add_(dim, index, src)
`

const pyTS2 = `# torch_scatter 2.x scatter, in plain PyTorch (utils.py broadcast; scatter_sum/scatter_mean are
# its Python; mul/min/max follow its CPU kernel, csrc/cpu/scatter_cpu.cpp, in the kernel's order):
import itertools
def broadcast(t, other, dim):
    if dim < 0: dim = other.dim() + dim
    if t.dim() == 1:
        for _ in range(0, dim): t = t.unsqueeze(0)
    for _ in range(t.dim(), other.dim()): t = t.unsqueeze(-1)
    return t.expand(other.size())
def out_size(src, index, dim, dim_size):
    size = list(src.size())
    size[dim] = dim_size if dim_size is not None else (0 if index.numel() == 0 else int(index.max()) + 1)
    return size
def scatter_sum(src, index, dim, out=None, dim_size=None):
    index = broadcast(index, src, dim)
    if out is None: out = torch.zeros(out_size(src, index, dim, dim_size), dtype=src.dtype)
    return out.scatter_add_(dim, index, src)
def ts2_scatter(src, index, dim=-1, out=None, dim_size=None, reduce='sum'):
    if dim < 0: dim += src.dim()
    if reduce in ('sum', 'add'):
        return scatter_sum(src, index, dim, out, dim_size)
    if reduce == 'mean':  # out's own values are summed but not counted
        out = scatter_sum(src, index, dim, out, dim_size)
        index_dim = dim if index.dim() > dim else index.dim() - 1
        count = scatter_sum(torch.ones(index.size(), dtype=src.dtype), index, index_dim, None, out.size(dim))
        count[count < 1] = 1
        count = broadcast(count, out, dim)
        return out.true_divide_(count) if out.is_floating_point() else out.div_(count, rounding_mode='floor')
    index = broadcast(index, src, dim)
    given = out is not None
    if given:
        out = out.clone()
    else:
        info = torch.finfo(src.dtype) if src.dtype.is_floating_point else torch.iinfo(src.dtype)
        init = {'mul': 1, 'min': info.max, 'max': info.min}[reduce]
        out = torch.full(out_size(src, index, dim, dim_size), init, dtype=src.dtype)
    arg = torch.full(out.shape, src.size(dim), dtype=torch.int64)
    for p in itertools.product(*[range(s) for s in src.shape]):  # per target, increasing position along dim
        t = list(p); t[dim] = int(index[p]); t = tuple(t)
        v = src[p]
        if reduce == 'mul':
            out[t] = out[t] * v
        elif (v < out[t]) if reduce == 'min' else (v > out[t]):  # strict: the first extreme wins, NaN never does
            out[t] = v; arg[t] = p[dim]
    if reduce == 'mul': return out
    if not given: out.masked_fill_(out == init, 0)  # empty groups (and groups at the init value) become 0
    return out, arg
`

const pyFSScatter = `# F# Tensor library Tensor.scatter (DeepNet Tensor.fs FillScatter), in plain PyTorch:
# trgt = zeros(shape); trgt[j(p)] += src[p] for every position p of src, in row-major order,
# j(p)[k] = indices[k][p] (broadcast to src's shape), or p[k] where indices[k] is None.
# (index_put_ wraps negative indices; the F# library raises IndexOutOfRange for them.)
def fs_scatter(indices, shape, src):
    S = list(src.shape)
    j = [t.expand(S) if t is not None else
         torch.arange(S[k]).view([S[k] if d == k else 1 for d in range(len(S))]).expand(S)
         for k, t in enumerate(indices)]
    return torch.zeros(shape, dtype=src.dtype).index_put_(tuple(j), src, accumulate=True)
`

const pyFSGather = `# F# Tensor library Tensor.gather (DeepNet Tensor.fs FillGather), in plain PyTorch:
# trgt[i] = src[j(i)], j(i)[k] = indices[k][i] (broadcast to the common shape of the given
# indices), or i[k] where indices[k] is None.
def fs_gather(indices, src):
    T = list(torch.broadcast_shapes(*[t.shape for t in indices if t is not None]))
    j = [t.expand(T) if t is not None else
         torch.arange(T[k]).view([T[k] if d == k else 1 for d in range(len(T))]).expand(T)
         for k, t in enumerate(indices)]
    return src[tuple(j)]
`

// pyLiteral writes a scalar as a Python literal (nan and inf are names the
// program defines).
func pyLiteral(s scatter.Scalar) string { return s.String() }

// pyTensorLiteral writes a valid tensor as a torch.tensor literal with its dtype:
// nested lists, or a flat list and reshape when a dimension is 0.
func pyTensorLiteral(t scatter.Tensor) string {
	if err := t.Validate(); err != nil {
		return "None  # invalid tensor: " + err.Error()
	}
	dt := "torch." + t.DType().String()
	pos := t.Positions()
	vals := make([]string, len(pos))
	for i, p := range pos {
		vals[i] = pyElem(t.Data, p)
	}
	if t.Dim() == 0 {
		return fmt.Sprintf("torch.tensor(%s, dtype=%s)", vals[0], dt)
	}
	if len(pos) == 0 {
		return fmt.Sprintf("torch.tensor([], dtype=%s).reshape(%s)", dt, pyShape(t.Shape))
	}
	var nest func(d int, vs []string) string
	nest = func(d int, vs []string) string {
		if d == t.Dim()-1 {
			return "[" + strings.Join(vs, ", ") + "]"
		}
		step := len(vs) / t.Shape[d]
		parts := make([]string, t.Shape[d])
		for i := range parts {
			parts[i] = nest(d+1, vs[i*step:(i+1)*step])
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("torch.tensor(%s, dtype=%s)", nest(0, vals), dt)
}

// pyElem writes element p of data as an exact Python literal.
func pyElem(data any, p int) string {
	switch d := data.(type) {
	case []bool:
		return pyBool(d[p])
	case []int64:
		return strconv.FormatInt(d[p], 10)
	case []uint8, []int8, []int16, []int32:
		return strconv.FormatInt(scatter.IntAt(data, p), 10)
	}
	f := scatter.Float64At(data, p)
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	// Python's repr of the float64 holding the value: exact, and read back
	// as the same float64, which converts exactly to the narrower dtype.
	return scatter.Float(f).String()
}
