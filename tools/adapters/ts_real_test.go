package adapters_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tsCheck compares, on random calls, the adapter's emulations with the
// real torch_scatter 2.x where their semantics coincide: 1.x scatter_add
// with fill_value 0 and an index of src's shape is 2.x scatter with
// reduce='sum'; the emulated 2.x scatter (every reduction, arg included)
// is the real one. Every result must be equal bit for bit (NaN where NaN).
const tsCheck = `
import sys, random, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, "tools/adapters")
import torch, torch_scatter
import torch_adapter as A
rng = random.Random(7)
bad, n = [], 0
def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a.dtype == b.dtype and a.shape == b.shape and bool(((a == b) | (a != a) & (b != b)).all())
for i in range(1500):
    dt = rng.choice([torch.float32, torch.float64, torch.int64, torch.int32, torch.float16, torch.bfloat16])
    rank = rng.randint(1, 3)
    shape = [rng.randint(1, 4) for _ in range(rank)]
    dim = rng.randrange(-rank, rank)
    d = dim % rank
    size = rng.randint(1, 4)
    src = (torch.randn(shape) * 4).round().to(dt) if dt.is_floating_point else torch.randint(-5, 6, shape, dtype=dt)
    index = torch.randint(0, size, shape)
    dim_size = rng.choice([None, size, size + 1])
    n += 1
    e = A.ts1_scatter_add(src, index, dim, None, dim_size, 0)
    r = torch_scatter.scatter(src, index, dim, None, dim_size, "sum")
    if not same(e, r):
        bad.append("1.x scatter_add vs 2.x sum: %s %s dim=%d dim_size=%s" % (dt, shape, dim, dim_size))
    for red in ("sum", "mean", "mul", "min", "max"):
        n += 1
        eo, ea = A.ts2_emulated(src, index, dim, None, dim_size, red)
        if red in ("min", "max"):
            ro, ra = getattr(torch_scatter, "scatter_" + red)(src, index, dim, None, dim_size)
        else:
            ro, ra = torch_scatter.scatter(src, index, dim, None, dim_size, red), None
        if not same(eo, ro) or not same(ea, ra):
            bad.append("2.x %s emulated vs real: %s %s dim=%d dim_size=%s" % (red, dt, shape, dim, dim_size))
# a float index whose maximum cannot size the output fails, on the real
# library as in the emulation, for the float index: index_dtype
for v in (float("inf"), float("nan"), 2.0**63):
    for red in ("sum", "mean"):
        n += 1
        try:
            A.ts2_scatter(torch.tensor([1., 2.]), torch.tensor([0., v]), 0, None, None, red)
            bad.append("float index max %r, %s: answered" % (v, red))
        except A.AdapterError as e:
            if e.kind != "index_dtype":
                bad.append("float index max %r, %s: %s, want index_dtype" % (v, red, e.kind))
# an index value that would size a huge new output is past the adapter's
# limit, checked before the library allocates it
for red in ("sum", "mean"):
    n += 1
    try:
        A.ts2_scatter(torch.tensor([1., 2.]), torch.tensor([0, 2**40]), 0, None, None, red)
        bad.append("index value 2^40, %s: answered" % red)
    except A.AdapterError as e:
        if e.kind != "unsupported":
            bad.append("index value 2^40, %s: %s, want unsupported" % (red, e.kind))
# the limit is on the broadcast index: an empty one sizes an empty output,
# and one that does not broadcast fails in the library for its shape (the
# adapter answers that RuntimeError shape_mismatch)
n += 2
try:
    o, _ = A.ts2_scatter(torch.zeros(0), torch.tensor([2**40]), 0, None, None, "sum")
    if o.numel() != 0:
        bad.append("empty src, index 2^40: %s" % list(o.shape))
except A.AdapterError as e:
    bad.append("empty src, index 2^40: %s" % e.kind)
try:
    A.ts2_scatter(torch.ones(2), torch.tensor([0, 2**40, 0]), 0, None, None, "sum")
    bad.append("an index that does not broadcast: answered")
except A.AdapterError as e:
    bad.append("an index that does not broadcast: %s, want the library's error for its shape" % e.kind)
except RuntimeError as e:
    if "expanded size" not in str(e):
        bad.append("an index that does not broadcast: %s" % e)
print("%d comparisons, %d differ" % (n, len(bad)))
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
`

// TestTorchScatterEmulationMatchesTheLibrary runs tsCheck where the real
// torch_scatter imports: SCATTER_TORCH_PYTHON, else Debian unstable's
// through tools/torchenv/run when its root is built.
func TestTorchScatterEmulationMatchesTheLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts torch")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	py := []string{os.Getenv("SCATTER_TORCH_PYTHON")}
	if py[0] == "" {
		run := filepath.Join(root, "tools", "torchenv", "run")
		if out, err := exec.Command(run, "sid", "--ready").CombinedOutput(); err != nil {
			t.Skipf("no torch_scatter here: %s", strings.TrimSpace(string(out)))
		}
		py = []string{run, "sid", "python3"}
	}
	if err := exec.Command(py[0], append(py[1:], "-c", "import torch_scatter")...).Run(); err != nil {
		t.Skipf("%s does not import torch_scatter: %v", py[0], err)
	}
	cmd := exec.Command(py[0], append(py[1:], "-c", tsCheck)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	t.Logf("%s", strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("the emulations differ from torch_scatter: %v", err)
	}
}
