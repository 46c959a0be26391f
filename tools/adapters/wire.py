"""The protocol side of the framework adapters (JAX, ONNX, Paddle,
TensorFlow, tinygrad): PROTOCOL.md version 1 on stdin and stdout, its
tensors as NumPy arrays, its requests decoded into the adapter's
operations and its answers encoded. What the adapters share has its one
home here; each adapter keeps its framework's calls, its hello answer and
how it names the framework's own errors, and runs

    wire.serve(hello_answer, {"scatter": op_scatter, ...}, framework_error)

It needs numpy and ml_dtypes (the wire's bfloat16), which every
framework's environment has (tools/adapters/requirements).
"""

import base64
import binascii
import json
import math
import os
import re
import sys
import traceback

import ml_dtypes
import numpy as np

from failure import AdapterError, fail  # noqa: F401 (the adapters import them from here)

PROTOCOL = 1

# the largest tensor an adapter takes (elements); past it a call is
# answered unsupported
MAX_ELEMS = int(os.environ.get("SCATTER_ADAPTER_MAX_ELEMS", str(1 << 26)))

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


# ---------------------------------------------------------------- requests


class Fields:
    """A request's fields, each read with its type checked (a wrong or
    missing one is invalid_argument); an optional field that is absent
    gives its default."""

    def __init__(self, req):
        self.req = req

    def has(self, key):
        return self.req.get(key) is not None

    def tensor(self, key, required=True):
        v = self.req.get(key)
        if v is None:
            if not required:
                return None
            fail("invalid_argument", "missing %s" % key)
        return decode_tensor(v, key)

    def int(self, key, required=True, default=None):
        v = self.req.get(key)
        if v is None and not required:
            return default
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

    def scalar(self, key, default):
        v = self.req.get(key)
        return default if v is None else decode_scalar(v, key)

    def bool(self, key, default):
        v = self.req.get(key)
        if v is None:
            return default
        if not isinstance(v, bool):
            fail("invalid_argument", "%s must be true or false, not %r" % (key, v))
        return v


def run(req, ops):
    """Decode one operation request and run it with ops, the adapter's
    functions by the protocol's op name: "scatter" (which scatter_add
    calls too), "scatter_reduce", "gather", "torch_scatter.scatter_add",
    "torch_scatter.scatter"; an op it lacks is answered unsupported."""
    op = req.get("op")
    if (op if op != "scatter_add" else "scatter") not in ops:
        fail("unsupported", "op %r is not offered" % (op,))
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
        return ops["scatter"](self, dim, index, src, value, reduce)
    if op == "scatter_add":
        return ops["scatter"](f.tensor("self"), f.int("dim"), f.tensor("index"), f.tensor("src"), None, "add")
    if op == "scatter_reduce":
        reduce = f.str("reduce")
        reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch 2's aliases
        if reduce not in ("sum", "prod", "mean", "amax", "amin"):
            fail("invalid_argument", "reduce argument must be either sum, prod, mean, amax or amin.")
        return ops[op](f.tensor("self"), f.int("dim"), f.tensor("index"), f.tensor("src"),
                       reduce, f.bool("include_self", True))
    if op == "gather":
        return ops[op](f.tensor("input"), f.int("dim"), f.tensor("index"))
    if op == "torch_scatter.scatter_add":
        return ops[op](f.tensor("src"), f.tensor("index"), f.int("dim", False, -1), f.tensor("out", False),
                       f.int("dim_size", False), f.scalar("fill_value", 0))
    reduce = f.str("reduce", required=False)  # torch_scatter.scatter
    return ops[op](f.tensor("src"), f.tensor("index"), f.int("dim", False, -1), f.tensor("out", False),
                   f.int("dim_size", False), "sum" if reduce is None else reduce)


def error_answer(rid, kind, message):
    if kind == "unsupported":
        return {"id": rid, "unsupported": message}
    return {"id": rid, "error": {"kind": kind, "message": message}}


def parse_constant(c):
    raise ValueError("%s is not JSON" % c)


LEADING_ID = re.compile(rb'^\s*\{\s*"id"\s*:\s*(-?[0-9]{1,19})\s*[,}]')


def answer(line, hello_answer, ops, framework_error):
    """The answer to one request line: hello_answer(id) for hello, the
    result of run(request, ops) otherwise; an AdapterError is answered with
    its kind, any other exception (the framework's own) with
    framework_error(e), a (kind, message) pair, and logged."""
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
            out = run(req, ops)
        return {"id": rid, "out": encode_result(out)}
    except AdapterError as e:
        return error_answer(rid, e.kind, e.message)
    except Exception as e:  # the framework's own error: answered, logged
        traceback.print_exc(file=sys.stderr)
        return error_answer(rid, *framework_error(e))


def serve(hello_answer, ops, framework_error, out=None):
    """Answer the request lines of stdin on out (stdout by default), one
    JSON line each, until stdin ends (see answer)."""
    out = out or sys.stdout
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        out.write(json.dumps(answer(line, hello_answer, ops, framework_error), separators=(",", ":"), allow_nan=False))
        out.write("\n")
        out.flush()
