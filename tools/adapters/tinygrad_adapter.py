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

import base64
import binascii
import json
import math
import os
import re
import subprocess
import sys
import traceback

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

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import tinygrad  # noqa: E402
from tinygrad import Tensor, dtypes  # noqa: E402

MAX_ELEMS = int(os.environ.get("SCATTER_ADAPTER_MAX_ELEMS", str(1 << 26)))
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
    index_values(idx, out.shape[dim])
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
    index_values(idx, out.shape[dim])
    mask_size(idx, out.shape[dim])
    r = tt(out).scatter_reduce(dim, tt(idx), tt(as1d(src)), reduce, include_self=include_self)
    return to_numpy(r).reshape(self.shape)


def op_gather(inp, dim, index):
    dim = gather_checks(inp, dim, index)
    if index.size == 0:
        return np.zeros(index.shape, dtype=inp.dtype)
    a, i = as1d(inp), as1d(index)
    index_values(i, a.shape[dim])
    mask_size(i, a.shape[dim])
    r = tt(a).gather(dim, tt(i))
    return to_numpy(r).reshape(index.shape)


def hello_answer(rid):
    return {"id": rid, "protocol": PROTOCOL, "name": "tinygrad", "version": "%s (CPU, clang)" % tinygrad_version(),
            "ops": ["scatter", "scatter_add", "scatter_reduce", "gather"], "dtypes": list(DTYPES)}


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


def index_values(idx, size):
    """The by-design difference every framework here has: PyTorch raises
    for an index outside [0, size); the framework does not say so in the
    same way. Such calls are answered unsupported (see the docstring)."""
    if idx.size:
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            v = int(idx[bad].flat[0])
            fail("unsupported", BAD_INDEX % (v, size))


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
