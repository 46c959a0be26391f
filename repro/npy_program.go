package repro

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/scatterconf/scatter"
)

// NpyProgram returns a Python program that makes call c with PyTorch on
// tensors read from the .npy files beside it, one per tensor of the call
// and named for it (self.npy, index.npy, src.npy, ...; bfloat16 ones hold
// bit patterns, as package npy writes them), prints the result, and
// counts the elements where got_out.npy differs from it: the repro of a
// call too large for Program's literals. It covers scatter_add,
// scatter_reduce and index_reduce (the benchmark's workloads); for
// another operation the program says so and exits.
func NpyProgram(c scatter.Call) string {
	var b strings.Builder
	b.WriteString("# The call in PyTorch, on the tensors of the .npy files beside this program.\n")
	b.WriteString("import numpy as np\nimport torch\n\n")
	b.WriteString("def load(name, bfloat16=False):\n    t = torch.from_numpy(np.load(name))\n    return t.view(torch.bfloat16) if bfloat16 else t\n\n")
	ts := c.Tensors()
	for _, n := range slices.Sorted(maps.Keys(ts)) {
		fmt.Fprintf(&b, "%s = load('%s.npy', %s)\n", n, n, pyBool(ts[n].DType() == scatter.DTBFloat16))
	}
	switch c := c.(type) {
	case scatter.ScatterAdd:
		fmt.Fprintf(&b, "out = self.scatter_add(%d, index, src)\n", c.Dim)
	case scatter.ScatterReduce:
		fmt.Fprintf(&b, "out = self.scatter_reduce(%d, index, src, %q, include_self=%s)\n", c.Dim, c.Reduce.Name(), pyBool(!c.ExcludeSelf))
	case scatter.IndexReduce:
		fmt.Fprintf(&b, "out = self.index_reduce(%d, index, source, %q, include_self=%s)\n", c.Dim, c.Reduce.Name(), pyBool(!c.ExcludeSelf))
	default:
		fmt.Fprintf(&b, "raise SystemExit('no program for %s')\n", c.Op())
		return b.String()
	}
	b.WriteString("print(out)\n")
	b.WriteString("got = load('got_out.npy', out.dtype == torch.bfloat16)\n")
	b.WriteString("print('elements that differ:', int((out != got).sum()), 'of', out.numel())\n")
	return b.String()
}
