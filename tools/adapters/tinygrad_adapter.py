#!/usr/bin/env python3
"""The tinygrad adapter: the implementation protocol (PROTOCOL.md, version
1) answered with tinygrad on its CPU device (DEV=CPU, kernels rendered as C
by its default Clang renderer and compiled by clang, which must be on PATH:
Debian's clang 14 here; PARALLEL=0, so kernels are compiled in this
process). Compiled kernels are cached in
${SCATTER_CACHE:-$HOME/.cache/scatter}/frameworks/tinygrad-kernels.db.

    tools/adapters/install tinygrad
    go run ./tools/scattercheck -allow-unsupported -xfail tools/adapters/xfail/tinygrad.txt \\
        -impl "$HOME/.cache/scatter/frameworks/tinygrad/bin/python tools/adapters/tinygrad_adapter.py"

It needs tinygrad, numpy and ml_dtypes for the wire's bfloat16
(requirements/tinygrad.txt). File descriptor 1 is pointed at standard
error before tinygrad is imported (the answers go to a duplicate of the
original standard output), so that nothing else reaches the protocol stream.

The argument rules of each PyTorch call (dim range, index dtype, dtype
match, the shape rules, the reduce names, a scalar's conversion) are
checked here, as any implementation must; the rest is one tinygrad call
per request, realised with .numpy():

| ours | tinygrad |
|---|---|
| scatter (src) | self.scatter(dim, index, src) |
| scatter (value), reduce None / 'add' / 'multiply' | self.scatter(dim, index, value, reduce=None / 'add' / 'multiply') (the value converted as PyTorch converts it) |
| scatter (src) reduce='add' / 'multiply' | self.scatter_reduce(dim, index, src, 'sum' / 'prod', include_self=True) (what Tensor.scatter does with a scalar; it refuses a tensor src with reduce) |
| scatter_add | self.scatter_reduce(dim, index, src, 'sum') |
| scatter_reduce sum / prod / mean / amax / amin | self.scatter_reduce(dim, index, src, reduce, include_self) |
| gather | input.gather(dim, index) |

tinygrad lowers all of them to a one-hot mask (index compared with an
arange of self's size along dim) and a masked reduction. A bfloat16 tensor
crosses as its bits (Tensor(uint16).bitcast(dtypes.bfloat16)). A 0-d tensor
goes as a 1-d tensor of one element. An empty index is answered here, as
PyTorch does, without a call (self unchanged, or an empty gather): PyTorch
skips every check of the index then.

Claimed: scatter, scatter_add, scatter_reduce, gather on all ten dtypes.
Not claimed: index_reduce, torch_scatter and the F# operations.
Answered unsupported:
- any index value outside [0, size): PyTorch raises; tinygrad by design
  does not look at index values (the one-hot mask matches nothing, so a
  scatter drops the update and gather gives 0); run the gate with
  -allow-unsupported;
- scatter_reduce 'mean' on bool or an integer dtype: tinygrad divides the
  sum by the count with true division and returns a float tensor, where
  PyTorch floors into the integer dtype;
- a kernel the C compiler rejects (clang 14 has no __bf16 arithmetic on
  x86-64, which some bfloat16 kernels use): the compiler's first error.

Other differences from PyTorch: see xfail/tinygrad.txt and
docs/conformance/README.md (each with a repro in
docs/conformance/repro/tinygrad_repro.py).
"""

import os
import subprocess
import sys

# The protocol stream is a duplicate of standard output; descriptor 1 then
# goes to standard error, so that no library can write to the stream.
PROTOCOL_OUT = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
os.environ["DEV"] = "CPU"
os.environ["PARALLEL"] = "0"
os.environ.setdefault("CACHEDB", os.path.join(
    os.environ.get("SCATTER_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "scatter"),
    "frameworks", "tinygrad-kernels.db"))

import numpy as np  # noqa: E402

from wire import PROTOCOL, MAX_ELEMS, DTYPES, fail, name_of, serve  # noqa: E402
from torchrules import as1d, scalar_to, scatter_checks, gather_checks, index_values  # noqa: E402

import tinygrad  # noqa: E402
from tinygrad import Tensor, dtypes  # noqa: E402

BAD_INDEX = ("index %d is outside [0, %d): PyTorch raises; tinygrad by design compares the index with an arange "
             "(a one-hot mask), so a scatter drops it and gather gives 0")
INT_MEAN = ("scatter_reduce mean on %s: tinygrad divides with true division into a float tensor; "
            "PyTorch floors into the integer dtype")


def mask_size(idx, size):
    """tinygrad's one-hot mask has index's elements times size elements;
    a mask over the adapter's bound is answered unsupported, not built."""
    n = idx.size * max(size, 1)
    if n > MAX_ELEMS:
        fail("unsupported", "tinygrad's one-hot mask would have %d elements (the adapter takes %d)" % (n, MAX_ELEMS))


def tt(a):
    """The tinygrad tensor of a NumPy array (bfloat16 through its bits)."""
    a = np.ascontiguousarray(a)
    if a.dtype == DTYPES["bfloat16"]:
        return Tensor(a.view(np.uint16)).bitcast(dtypes.bfloat16)
    return Tensor(a)


def to_numpy(t):
    if t.dtype == dtypes.bfloat16:
        return t.bitcast(dtypes.uint16).numpy().view(DTYPES["bfloat16"])
    return t.numpy()


def op_scatter(self, dim, index, src, value, reduce):
    dim = scatter_checks(self, dim, index, src)
    if index.size == 0:
        return self.copy()
    out, idx = as1d(self), as1d(index)
    index_values(idx, out.shape[dim], BAD_INDEX)
    mask_size(idx, out.shape[dim])
    if src is None:
        v = scalar_to(value, out.dtype).item()
        r = tt(out).scatter(dim, tt(idx), v, reduce=reduce)
    elif reduce is None:
        r = tt(out).scatter(dim, tt(idx), tt(as1d(src)))
    else:
        r = tt(out).scatter_reduce(dim, tt(idx), tt(as1d(src)), {"add": "sum", "multiply": "prod"}[reduce], include_self=True)
    return to_numpy(r).reshape(self.shape)


def op_scatter_reduce(self, dim, index, src, reduce, include_self):
    dim = scatter_checks(self, dim, index, src)
    if reduce == "mean" and not np.issubdtype(self.dtype, np.floating) and self.dtype != DTYPES["bfloat16"]:
        fail("unsupported", INT_MEAN % name_of(self))
    if index.size == 0:
        return self.copy()
    out, idx = as1d(self), as1d(index)
    index_values(idx, out.shape[dim], BAD_INDEX)
    mask_size(idx, out.shape[dim])
    r = tt(out).scatter_reduce(dim, tt(idx), tt(as1d(src)), reduce, include_self=include_self)
    return to_numpy(r).reshape(self.shape)


def op_gather(inp, dim, index):
    dim = gather_checks(inp, dim, index)
    if index.size == 0:
        return np.zeros(index.shape, dtype=inp.dtype)
    a, i = as1d(inp), as1d(index)
    index_values(i, a.shape[dim], BAD_INDEX)
    mask_size(i, a.shape[dim])
    r = tt(a).gather(dim, tt(i))
    return to_numpy(r).reshape(index.shape)


def hello_answer(rid, ops):
    return {"id": rid, "protocol": PROTOCOL, "name": "tinygrad", "version": "%s (CPU, clang)" % tinygrad_version(),
            "ops": ops, "dtypes": list(DTYPES)}


def tinygrad_version():
    try:
        from importlib.metadata import version
        return version("tinygrad")
    except Exception:
        return getattr(tinygrad, "__version__", "?")


def framework_error(e):
    if isinstance(e, subprocess.CalledProcessError):
        return "unsupported", "the C compiler rejects tinygrad's kernel: %s" % " ".join(map(str, e.cmd[:1]))
    msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return "invalid_argument", "tinygrad: %s: %s" % (type(e).__name__, msg)


OPS = {"scatter": op_scatter,
       "scatter_reduce": op_scatter_reduce,
       "gather": op_gather}

if __name__ == "__main__":
    serve(hello_answer, OPS, framework_error, PROTOCOL_OUT)
