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

import base64
import binascii
import json
import math
import os
import re
import sys
import traceback

# The protocol stream is a duplicate of standard output; descriptor 1 then
# goes to standard error, so that no library can write to the stream.
PROTOCOL_OUT = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import warnings  # noqa: E402

warnings.simplefilter("ignore")

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import paddle  # noqa: E402

paddle.set_device("cpu")

MAX_ELEMS = int(os.environ.get("SCATTER_ADAPTER_MAX_ELEMS", str(1 << 26)))
BAD_INDEX = "index %d is negative (size %d): PyTorch raises; put_along_axis and take_along_axis by design count it from the end"
MEAN_CRASH = ("scatter_reduce mean on %s with a target of 2^bits members (self included): Paddle keeps the count "
              "in the dtype, where it wraps to 0, and its CPU kernel divides by it (SIGFPE ends the process)")
CLAIMED = ["uint8", "int16", "int32", "int64", "float32", "float64"]


def negative_values(idx, size):
    if idx.size and (idx < 0).any():
        fail("unsupported", BAD_INDEX % (int(idx[idx < 0].flat[0]), size))


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
    negative_values(idx, out.shape[dim])
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
    negative_values(idx, out.shape[dim])
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
    negative_values(i, a.shape[dim])
    r = paddle.take_along_axis(pt(a), pt(i), dim, broadcast=False)
    return r.numpy().reshape(index.shape)


def hello_answer(rid):
    return {"id": rid, "protocol": PROTOCOL, "name": "paddle", "version": "%s (cpu)" % paddle.__version__,
            "ops": ["scatter", "scatter_add", "scatter_reduce", "gather"], "dtypes": CLAIMED}


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


# ------------------------------------------------------------ the protocol

PROTOCOL = 1

# name -> numpy dtype of the wire bytes (little-endian)
DTYPES = {
    "bool": np.dtype("|b1"),
    "uint8": np.dtype("|u1"),
    "int8": np.dtype("|i1"),
    "int16": np.dtype("<i2"),
    "int32": np.dtype("<i4"),
    "int64": np.dtype("<i8"),
    "float16": np.dtype("<f2"),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float32": np.dtype("<f4"),
    "float64": np.dtype("<f8"),
}
NAME_OF = {dt.newbyteorder("="): name for name, dt in DTYPES.items()}
NAME_OF.update({dt: name for name, dt in DTYPES.items()})


class AdapterError(Exception):
    """A rejection with its protocol kind ("unsupported" for the
    unsupported answer)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


def fail(kind, message):
    raise AdapterError(kind, message)


def name_of(a):
    return NAME_OF.get(a.dtype.newbyteorder("="), str(a.dtype))


def decode_tensor(obj, name):
    if not isinstance(obj, dict):
        fail("invalid_argument", "%s: a tensor is an object with dtype, shape and data" % name)
    dtn = obj.get("dtype")
    if not isinstance(dtn, str) or dtn not in DTYPES:
        fail("invalid_argument", "%s: unknown dtype %r" % (name, dtn))
    ndt = DTYPES[dtn]
    shape = obj.get("shape")
    if not isinstance(shape, list) or any(type(s) is not int or s < 0 for s in shape) or len(shape) > 64:
        fail("invalid_argument", "%s: shape %r is not a list of non-negative integers" % (name, shape))
    if obj.get("strides") is not None:
        fail("invalid_argument", "%s: strides were not claimed" % name)
    n = math.prod(shape)
    if n > MAX_ELEMS:
        fail("unsupported", "%s: the adapter does not take a tensor of more than %d elements" % (name, MAX_ELEMS))
    data = obj.get("data", "")
    if not isinstance(data, str):
        fail("invalid_argument", "%s: data is not a string" % name)
    want = n * ndt.itemsize
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as e:
        fail("invalid_argument", "%s: malformed base64: %s" % (name, e))
    if len(raw) != want:
        fail("invalid_argument", "%s: %d bytes of data, shape %r of %s needs %d" % (name, len(raw), shape, dtn, want))
    if dtn == "bool":
        u = np.frombuffer(raw, dtype=np.uint8)
        if u.size and u.max() > 1:
            fail("invalid_argument", "%s: a bool byte is not 0 or 1" % name)
    return np.frombuffer(raw, dtype=ndt).astype(ndt.newbyteorder("="), copy=True).reshape(shape)


def encode_result(a):
    a = np.asarray(a)
    name = name_of(a)
    if name not in DTYPES:
        fail("invalid_argument", "result has dtype %s, which the protocol lacks" % a.dtype)
    raw = np.ascontiguousarray(a).astype(DTYPES[name], copy=False).tobytes()
    return {"dtype": name, "shape": list(a.shape), "data": base64.b64encode(raw).decode("ascii")}


def decode_scalar(v, name):
    if isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    fail("invalid_argument", "%s: %r is not a number, \"nan\", \"inf\" or \"-inf\"" % (name, v))


# ---------------------------------- PyTorch's argument rules (not values)


def wrap_dim(dim, ndim):
    """maybe_wrap_dim: a 0-d tensor counts as 1-d."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        fail("dim_out_of_range", "Dimension out of range (expected to be in range of [%d, %d], but got %d)" % (-n, n - 1, dim))
    return dim + n if dim < 0 else dim


def as1d(a):
    return a.reshape(1) if a.ndim == 0 else a


def scalar_to(value, dtype):
    """c10's checked Scalar::to<T>() (PyTorch's conversion of a scalar
    value argument; the framework never sees it)."""
    if dtype == np.bool_:
        return np.bool_(value != 0)
    if isinstance(value, bool):
        return dtype.type(int(value))
    overflow = lambda: fail("value_overflow", "value cannot be converted to type %s without overflow" % dtype)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if isinstance(value, float):
            if math.isnan(value) or math.isinf(value) or value < info.min or value >= info.max + 1:
                overflow()
            return dtype.type(int(value))
        if dtype == np.uint8:
            if value > 255 or value < -255:
                overflow()
            return np.uint8(value & 0xFF)
        if not info.min <= value <= info.max:
            overflow()
        return dtype.type(value)
    f = float(value)
    if math.isfinite(f) and abs(f) > float(ml_dtypes.finfo(dtype).max):
        overflow()
    if dtype.itemsize == 2:
        return dtype.type(np.float32(f))  # a double goes to a 16-bit float through float
    return dtype.type(f)


def scatter_checks(self, dim, index, src):
    """scatter_meta_impl, scatter_gather_dtype_check, scatter_shape_check."""
    dim = wrap_dim(dim, self.ndim)
    if index.size and index.dtype not in (np.int32, np.int64):
        fail("index_dtype", "scatter(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype != self.dtype:
        fail("dtype_mismatch", "scatter(): Expected self.dtype to be equal to src.dtype")
    if index.size == 0:
        return dim
    s, i = as1d(self), as1d(index)
    if s.ndim != i.ndim:
        fail("shape_mismatch", "Index tensor must have the same number of dimensions as self tensor")
    for d in range(s.ndim):
        if d != dim and i.shape[d] > s.shape[d]:
            fail("shape_mismatch", "Expected index %s to be smaller than self %s apart from dimension %d"
                 % (list(index.shape), list(self.shape), dim))
    if src is not None:
        r = as1d(src)
        if r.ndim != i.ndim:
            fail("shape_mismatch", "Index tensor must have the same number of dimensions as src tensor")
        for d in range(i.ndim):
            if i.shape[d] > r.shape[d]:
                fail("shape_mismatch", "Expected index %s to be smaller size than src %s" % (list(index.shape), list(src.shape)))
    return dim


def gather_checks(inp, dim, index):
    dim = wrap_dim(dim, inp.ndim)
    if index.size == 0:
        return dim
    if index.dtype not in (np.int32, np.int64):
        fail("index_dtype", "gather(): Expected dtype int32/int64 for index")
    a, i = as1d(inp), as1d(index)
    if a.ndim != i.ndim:
        fail("shape_mismatch", "Index tensor must have the same number of dimensions as input tensor")
    for d in range(a.ndim):
        if d != dim and i.shape[d] > a.shape[d]:
            fail("shape_mismatch", "Size does not match at dimension %d expected index %s to be smaller than self %s apart from dimension %d"
                 % (d, list(index.shape), list(inp.shape), dim))
    return dim


# ---------------------------------------------------------------- requests


class Fields:
    def __init__(self, req):
        self.req = req

    def has(self, key):
        return self.req.get(key) is not None

    def tensor(self, key):
        v = self.req.get(key)
        if v is None:
            fail("invalid_argument", "missing %s" % key)
        return decode_tensor(v, key)

    def int(self, key):
        v = self.req.get(key)
        if type(v) is not int or not -(1 << 63) <= v < (1 << 63):
            fail("invalid_argument", "%s must be a 64-bit integer, not %r" % (key, v))
        return v

    def str(self, key, required=True):
        v = self.req.get(key)
        if v is None and not required:
            return None
        if not isinstance(v, str):
            fail("invalid_argument", "%s must be a string, not %r" % (key, v))
        return v

    def bool(self, key, default):
        v = self.req.get(key)
        if v is None:
            return default
        if not isinstance(v, bool):
            fail("invalid_argument", "%s must be true or false, not %r" % (key, v))
        return v


def run(req):
    """Decode and run one operation request."""
    op = req.get("op")
    f = Fields(req)
    if op == "scatter":
        self, dim, index = f.tensor("self"), f.int("dim"), f.tensor("index")
        reduce = f.str("reduce", required=False)
        if f.has("src") == f.has("value"):
            fail("invalid_argument", "scatter needs exactly one of src and value")
        src = f.tensor("src") if f.has("src") else None
        value = decode_scalar(req.get("value"), "value") if f.has("value") else None
        if reduce is not None and reduce not in ("add", "multiply"):
            fail("invalid_argument", "reduce argument must be either add or multiply.")
        return op_scatter(self, dim, index, src, value, reduce)
    if op == "scatter_add":
        return op_scatter(f.tensor("self"), f.int("dim"), f.tensor("index"), f.tensor("src"), None, "add")
    if op == "scatter_reduce":
        reduce = f.str("reduce")
        reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch 2's aliases
        if reduce not in ("sum", "prod", "mean", "amax", "amin"):
            fail("invalid_argument", "reduce argument must be either sum, prod, mean, amax or amin.")
        return op_scatter_reduce(f.tensor("self"), f.int("dim"), f.tensor("index"), f.tensor("src"),
                                 reduce, f.bool("include_self", True))
    if op == "gather":
        return op_gather(f.tensor("input"), f.int("dim"), f.tensor("index"))
    fail("unsupported", "op %r is not offered" % (op,))


def error_answer(rid, kind, message):
    if kind == "unsupported":
        return {"id": rid, "unsupported": message}
    return {"id": rid, "error": {"kind": kind, "message": message}}


def parse_constant(c):
    raise ValueError("%s is not JSON" % c)


LEADING_ID = re.compile(rb'^\s*\{\s*"id"\s*:\s*(-?[0-9]{1,19})\s*[,}]')


def answer(line):
    try:
        req = json.loads(line, parse_constant=parse_constant)
    except (ValueError, UnicodeDecodeError) as e:
        m = LEADING_ID.match(line)
        return error_answer(int(m.group(1)) if m else 0, "invalid_argument", "malformed request: %s" % e)
    if not isinstance(req, dict) or type(req.get("id")) is not int:
        return error_answer(0, "invalid_argument", "a request is a JSON object with an integer id")
    rid = req["id"]
    op = req.get("op")
    try:
        if op == "hello":
            return hello_answer(rid)
        if op == "bench":
            fail("unsupported", "this adapter does not time calls")
        with np.errstate(all="ignore"):
            out = run(req)
        return {"id": rid, "out": encode_result(out)}
    except AdapterError as e:
        return error_answer(rid, e.kind, e.message)
    except Exception as e:  # the framework's own error: answered, logged
        traceback.print_exc(file=sys.stderr)
        return error_answer(rid, *framework_error(e))


def main():
    out = PROTOCOL_OUT
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        out.write(json.dumps(answer(line), separators=(",", ":"), allow_nan=False))
        out.write("\n")
        out.flush()


if __name__ == "__main__":
    main()
