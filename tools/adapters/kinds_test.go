package adapters_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// messages are PyTorch's (and torch_scatter's) error messages as the
// supported versions word them, with the protocol kind the adapter must
// answer for each: one row per wording, observed on Debian's torch 1.13.1,
// 2.6.0 and 2.14.1 and torch_scatter 2.1.2.
var messages = []struct {
	versions, msg, kind string
}{
	{"all", "Dimension out of range (expected to be in range of [-1, 0], but got 1)", "dim_out_of_range"},
	{"all", "Dimension specified as 0 but tensor has no dimensions", "dim_out_of_range"},
	{"1.13", "scatter(): Expected dtype int64 for index", "index_dtype"},
	{"2.14", "scatter(): Expected dtype int32/int64 for index", "index_dtype"},
	{"all", "index_reduce_(): Expected dtype int32/int64 for index but got: Float", "index_dtype"},
	{"all", "gather(): Expected dtype int64 for index", "index_dtype"},
	{"all", "Expected a long tensor for index, but got Float", "index_dtype"},
	{"all", "scatter(): Expected self.dtype to be equal to src.dtype", "dtype_mismatch"},
	{"all", "index_reduce_(): self (Float) and source (Double) must have the same scalar type", "dtype_mismatch"},
	{"all", "Index tensor must have the same number of dimensions as self tensor", "shape_mismatch"},
	{"1.13", "Expected index [2] to be smaller than self [3] apart from dimension 0 and to be smaller size than src [1]", "shape_mismatch"},
	{"2.6 2.14", "Expected index [2] to be no larger than self [3] apart from dimension 0 and to be no larger size than src [1]", "shape_mismatch"},
	{"2.6 2.14", "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [3] source.shape = []", "shape_mismatch"},
	{"all", "Size does not match at dimension 1 expected index [2, 3] to be smaller than self [2, 2] apart from dimension 0", "shape_mismatch"},
	{"all", "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  Target sizes: [3].  Tensor sizes: [2]", "shape_mismatch"},
	{"all", "expand(torch.LongTensor{[1, 1, 3]}, size=[3, 2]): the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (3)", "shape_mismatch"},
	{"all", "index_reduce_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: [1, 1]", "shape_mismatch"},
	{"all", "index_reduce_(): Number of indices (2) should be equal to source.size(dim) (3), for dim: 0", "shape_mismatch"},
	{"all", "index_reduce_(): Indexing dim 1 is out of bounds of the source tensor with dim 1", "shape_mismatch"},
	{"all", "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0", "shape_mismatch"},
	{"all", "output with shape [1] doesn't match the broadcast shape [2]", "shape_mismatch"},
	{"all", "Input mismatch", "shape_mismatch"},
	{"all", "shape '[2, 3]' is invalid for input of size 5", "shape_mismatch"},
	{"1.13", "source.dim() (2) must one or zero for given self.dim() (1)", "shape_mismatch"},
	{"1.13", "select() cannot be applied to a 0-dim tensor.", "shape_mismatch"},
	{"all", "index 5 is out of bounds for dimension 0 with size 3", "index_out_of_range"},
	{"all", "index out of range in self", "index_out_of_range"},
	{"all", "select(): index 0 out of range for tensor of size [0, 2] at dimension 0", "index_out_of_range"},
	{"1.13", "setStorage: sizes [0], strides [1], storage offset 0, and itemsize 4 requiring a storage size of 4 are out of bounds for storage of size 0", "index_out_of_range"},
	{"all", "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'", "unsupported_dtype"},
	{"torch_scatter", "expected scalar type Long but found Float", "index_dtype"},
	{"torch_scatter", "expected scalar type Double but found Float", "dtype_mismatch"},
	{"torch_scatter", "list assignment index out of range", "shape_mismatch"},
	{"1.13", "reduce argument must be either sum, prod, mean, amax or amin.", "invalid_argument"},
	{"2.6 2.14", "reduce argument must be either sum, prod, mean, amax or amin, got max2", "invalid_argument"},
	{"all", "reduce argument must be either add or multiply.", "invalid_argument"},
	{"all", "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum.", "invalid_argument"},
	{"all", "Trying to create tensor with negative dimension -1: [-1]", "invalid_argument"},
	{"all", "value cannot be converted to type uint8_t without overflow", "value_overflow"},
	{"1.13", "Overflow when unpacking long", "value_overflow"},
	{"2.6 2.14", "can't convert negative int to unsigned", "value_overflow"},
}

// TestKindsOfMessages: every message row gets its kind from the adapter's
// table (kind_of), and every needle of that table is exercised by a row.
func TestKindsOfMessages(t *testing.T) {
	py := torchPython(t)
	msgs := make([]string, len(messages))
	for i, m := range messages {
		msgs[i] = m.msg
	}
	in, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	prog := `import json, sys
sys.path.insert(0, "tools/adapters")
import torch_adapter as A
msgs = json.loads(sys.stdin.read())
kinds = [A.kind_of(RuntimeError(m)) for m in msgs]
used = sorted({n for n, _ in A.KINDS if not any(n in m for m in msgs)})
print(json.dumps({"kinds": kinds, "unused": used}))`
	cmd := exec.Command(py, "-c", prog)
	cmd.Dir = "../.."
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got struct {
		Kinds  []*string
		Unused []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for i, m := range messages {
		k := "<none: invalid_argument with a traceback>"
		if got.Kinds[i] != nil {
			k = *got.Kinds[i]
		}
		if k != m.kind {
			t.Errorf("torch %s: %q is %s, want %s", m.versions, m.msg, k, m.kind)
		}
	}
	for _, n := range got.Unused {
		t.Errorf("no row of the table exercises the adapter's needle %q", n)
	}
}
