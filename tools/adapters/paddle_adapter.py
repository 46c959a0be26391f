#!/usr/bin/env python3
"""The PaddlePaddle adapter: the implementation protocol (PROTOCOL.md,
version 1) answered with PaddlePaddle (the paddlepaddle CPU wheel),
dynamic-graph (eager) calls on the CPU place.

    tools/adapters/install paddle
    go run ./tools/scattercheck -allow-unsupported -xfail tools/adapters/xfail/paddle.txt \\
        -impl "$HOME/.cache/scatter/frameworks/paddle/bin/python tools/adapters/paddle_adapter.py"

It needs paddlepaddle and its dependencies, and ml_dtypes for the wire's
bfloat16 (requirements/paddle.txt). File descriptor 1 is pointed at
standard error before Paddle is imported (the answers go to a duplicate of
the original standard output), so that no log line can reach the protocol
stream.

The argument rules of each PyTorch call (dim range, index dtype, dtype
match, the shape rules, the reduce names, a scalar's conversion) are
checked here, as any implementation must; the rest is one Paddle call per
request, with broadcast=False (PyTorch's rule: the index is not broadcast,
src and self may be larger than it):

| ours | PaddlePaddle |
|---|---|
| scatter (src) | paddle.put_along_axis(self, index, src, dim, 'assign', broadcast=False) |
| scatter (value) | the same, values a tensor of index's shape filled with the value (converted as PyTorch converts it) |
| scatter reduce='add' / 'multiply' | reduce='add' / 'mul', include_self=True |
| scatter_add | reduce='add' |
| scatter_reduce sum / prod / mean / amax / amin | reduce='add' / 'mul' / 'mean' / 'amax' / 'amin', include_self as given |
| gather | paddle.take_along_axis(input, index, dim, broadcast=False) |

An empty index is answered here, as PyTorch does, without a call: self
unchanged (scatter, scatter_add, scatter_reduce) or an empty tensor of the
index's shape (gather); PyTorch skips every check of the index then (its
shape, even its dtype, and the value's conversion), where Paddle checks the
ranks, the sizes and the index dtype.

A 0-d tensor goes as a 1-d tensor of one element (Paddle asserts the axis
is in [-0, 0) for a 0-d tensor; PyTorch counts it as 1-d).

Claimed: scatter, scatter_add, scatter_reduce, gather on uint8, int16,
int32, int64, float32, float64: the dtypes for which Paddle 3.3.1
registers the CPU kernels put_along_axis and take_along_axis (bool, int8,
float16 and bfloat16 are "not registered"). Not claimed: index_reduce,
torch_scatter and the F# operations.
An index past the end goes to Paddle, which raises ("one of element of
indices is out of bounds", "(OutOfRange) ... of gather cpu kernel"):
index_out_of_range. Answered unsupported:
- a negative index value, which both calls count from the end by design
  (PyTorch raises); run the gate with -allow-unsupported;
- scatter_reduce 'mean' on an integer dtype when a target has a multiple
  of 2^bits members (self counted where include_self): Paddle keeps the
  count in the dtype, it wraps to 0 and the CPU kernel divides by it,
  which kills the process with SIGFPE (a Paddle bug; a uint8 target of 256
  members is enough).

Other differences from PyTorch: see xfail/paddle.txt and
docs/conformance/README.md (each with a repro
in docs/conformance/repro/paddle_repro.py).
"""

import os
import re
import sys

# The protocol stream is a duplicate of standard output; descriptor 1 then
# goes to standard error, so that no library can write to the stream.
PROTOCOL_OUT = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import warnings  # noqa: E402

warnings.simplefilter("ignore")

import numpy as np  # noqa: E402

from wire import PROTOCOL, fail, name_of, serve  # noqa: E402
from torchrules import as1d, scalar_to, scatter_checks, gather_checks, negative_values  # noqa: E402

import paddle  # noqa: E402

paddle.set_device("cpu")

BAD_INDEX = "index %d is negative (size %d): PyTorch raises; put_along_axis and take_along_axis by design count it from the end"
MEAN_CRASH = ("scatter_reduce mean on %s with a target of 2^bits members (self included): Paddle keeps the count "
              "in the dtype, where it wraps to 0, and its CPU kernel divides by it (SIGFPE ends the process)")
CLAIMED = ["uint8", "int16", "int32", "int64", "float32", "float64"]


def mean_count_wraps_to_zero(out, dim, idx, include_self):
    """Whether a target of an integer mean gets a number of members
    (include_self counting self) that is a multiple of 2^bits: Paddle's CPU
    kernel cpu_scatter_mean_kernel keeps the count in the tensor's integer
    dtype, and such a count wraps to 0 and is divided by (SIGFPE: the
    process dies)."""
    if not np.issubdtype(out.dtype, np.integer) or idx.size == 0:
        return False
    pos = list(np.indices(idx.shape))
    pos[dim] = idx.astype(np.int64)
    flat = np.ravel_multi_index(tuple(pos), out.shape)
    _, counts = np.unique(flat, return_counts=True)
    counts = counts + (1 if include_self else 0)
    modulus = 1 << (8 * out.dtype.itemsize)
    if int(counts.max()) < modulus:
        return False
    return bool((counts % modulus == 0).any())


def pt(a):
    return paddle.to_tensor(np.ascontiguousarray(a), place=paddle.CPUPlace())


def op_scatter(self, dim, index, src, value, reduce):
    dim = scatter_checks(self, dim, index, src)
    if index.size == 0:
        return self.copy()
    out, idx = as1d(self), as1d(index)
    negative_values(idx, out.shape[dim], BAD_INDEX)
    if src is not None:
        vals = as1d(src)
    else:
        vals = np.full(idx.shape, scalar_to(value, out.dtype), dtype=out.dtype)
    red = {None: "assign", "add": "add", "multiply": "mul"}[reduce]
    r = paddle.put_along_axis(pt(out), pt(idx), pt(vals), dim, red, include_self=True, broadcast=False)
    return r.numpy().reshape(self.shape)


def op_scatter_reduce(self, dim, index, src, reduce, include_self):
    dim = scatter_checks(self, dim, index, src)
    if index.size == 0:
        return self.copy()
    out, idx = as1d(self), as1d(index)
    negative_values(idx, out.shape[dim], BAD_INDEX)
    if reduce == "mean" and idx.max() < out.shape[dim] and mean_count_wraps_to_zero(out, dim, idx, include_self):
        fail("unsupported", MEAN_CRASH % name_of(self))
    red = {"sum": "add", "prod": "mul"}.get(reduce, reduce)
    r = paddle.put_along_axis(pt(out), pt(idx), pt(as1d(src)), dim, red, include_self=include_self, broadcast=False)
    return r.numpy().reshape(self.shape)


def op_gather(inp, dim, index):
    dim = gather_checks(inp, dim, index)
    if index.size == 0:
        return np.zeros(index.shape, dtype=inp.dtype)
    a, i = as1d(inp), as1d(index)
    negative_values(i, a.shape[dim], BAD_INDEX)
    r = paddle.take_along_axis(pt(a), pt(i), dim, broadcast=False)
    return r.numpy().reshape(index.shape)


def hello_answer(rid, ops):
    return {"id": rid, "protocol": PROTOCOL, "name": "paddle", "version": "%s (cpu)" % paddle.__version__,
            "ops": ops, "dtypes": CLAIMED}


def framework_error(e):
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    msg = next((l for l in lines if not l.startswith("[Hint") and not l.startswith("---") and not l.startswith("C++")
                and not l.startswith("Error Message") and not re.match(r"^\d+ ", l)), lines[0] if lines else "")
    text = str(e)
    if "out of bounds" in text or "(OutOfRange)" in text:
        return "index_out_of_range", "Paddle: %s" % msg
    if "is not registered" in text:
        return "unsupported", "Paddle: %s" % msg
    return "invalid_argument", "Paddle: %s: %s" % (type(e).__name__, msg)


OPS = {"scatter": op_scatter,
       "scatter_reduce": op_scatter_reduce,
       "gather": op_gather}

if __name__ == "__main__":
    serve(hello_answer, OPS, framework_error, PROTOCOL_OUT)
