"""Where NumPy's own calls differ from PyTorch's, each one call, run in
NumPy and, where torch imports, in PyTorch beside it. numpy_adapter.py
passes the gate because it checks PyTorch's rules before it calls NumPy;
these are the calls it guards.

    PY=${SCATTER_CACHE:-$HOME/.cache/scatter}/frameworks/numpy/bin/python
    $PY docs/conformance/repro/numpy_repro.py                          # NumPy 2 alone
    tools/torchenv/run sid python3 docs/conformance/repro/numpy_repro.py   # Debian's NumPy beside torch 2.14
"""
import numpy as np

np.seterr(all="ignore")

try:
    import torch
except ImportError:
    torch = None


def show(title, f_np, f_torch=None):
    def run(f):
        try:
            r = f()
            if hasattr(r, "tolist"):
                r = r.tolist()
            return repr(r)
        except Exception as e:
            return "raises %s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:90])
    line = "%-58s numpy: %s" % (title, run(f_np))
    if torch is not None and f_torch is not None:
        line += "   torch: %s" % run(f_torch)
    print(line)


def add_at(a, idx, v):
    a = np.array(a)
    np.add.at(a, idx, v)
    return a


i64 = lambda *v: torch.tensor(v, dtype=torch.int64)

show("add.at(zeros(3), [-1], 1.)  (scatter_add)",
     lambda: add_at(np.zeros(3), [-1], 1.0),
     lambda: torch.zeros(3).scatter_add(0, i64(-1), torch.ones(1)))
show("take_along_axis([1,2,3], [-1])  (gather)",
     lambda: np.take_along_axis(np.array([1, 2, 3]), np.array([-1]), axis=0),
     lambda: torch.gather(torch.tensor([1, 2, 3]), 0, i64(-1)))
show("float16 add.at([2048], [0,0], [1,1])  (scatter_add)",
     lambda: add_at(np.array([2048], np.float16), [0, 0], np.array([1, 1], np.float16)),
     lambda: torch.tensor([2048.0], dtype=torch.float16).scatter_add(0, i64(0, 0), torch.ones(2, dtype=torch.float16)))
show("bfloat16",
     lambda: np.dtype("bfloat16"),
     lambda: torch.zeros(1, dtype=torch.bfloat16))
show("float16 array(1 + 2**-11 + 2**-30)  (a scalar into float16)",
     lambda: np.array(1 + 2.0**-11 + 2.0**-30).astype(np.float16),
     lambda: torch.zeros(1, dtype=torch.float16).fill_(1 + 2.0**-11 + 2.0**-30))
print("versions: numpy", np.__version__, *(["torch", torch.__version__] if torch is not None else []))
