"""The protocol side of the framework adapters (JAX, ONNX, Paddle,
TensorFlow, tinygrad): PROTOCOL.md version 1 on stdin and stdout, its
tensors as NumPy arrays, its requests decoded into the adapter's
operations and its answers encoded. What the adapters share has its one
home here; each adapter keeps its framework's calls, its hello answer and
how it names the framework's own errors, and runs

    wire.serve(hello_answer, {"scatter": op_scatter, ...}, framework_error)

It needs numpy and ml_dtypes (the wire's bfloat16), which every
framework's environment has (tools/adapters/requirements). The lines
themselves (fields, answers, the loop) are lines.py's, which the NumPy
and torch adapters share.
"""

import base64
import binascii
import math
import os

import ml_dtypes
import numpy as np

import lines
from lines import Fields, fail

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


# ---------------------------------------------------------------- requests


def run(req, ops):
    """Decode one operation request and run it with ops, the adapter's
    functions by the protocol's op name: "scatter" (which scatter_add
    calls too), "scatter_reduce", "gather", "torch_scatter.scatter_add",
    "torch_scatter.scatter"; an op it lacks is answered unsupported."""
    op = req.get("op")
    if (op if op != "scatter_add" else "scatter") not in ops:
        fail("unsupported", "op %r is not offered" % (op,))
    f = Fields(req, decode_tensor)
    if op == "scatter":
        self, dim, index = f.tensor("self"), f.int("dim"), f.tensor("index")
        reduce = f.str("reduce", required=False)
        if f.has("src") == f.has("value"):
            fail("invalid_argument", "scatter needs exactly one of src and value")
        src = f.tensor("src") if f.has("src") else None
        value = f.scalar("value") if f.has("value") else None
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
                       f.int("dim_size", False), f.scalar("fill_value", False, 0))
    reduce = f.str("reduce", required=False)  # torch_scatter.scatter
    return ops[op](f.tensor("src"), f.tensor("index"), f.int("dim", False, -1), f.tensor("out", False),
                   f.int("dim_size", False), "sum" if reduce is None else reduce)


def serve(hello_answer, ops, framework_error, out=None):
    """Answer the request lines of stdin on out (stdout by default), one
    JSON line each, until stdin ends: hello_answer(id) for hello, the
    result of run(request, ops) otherwise; an AdapterError is answered
    with its kind, any other exception (the framework's own) with
    framework_error(e), a (kind, message) pair, and logged."""

    def handle(rid, req):
        op = req.get("op")
        if op == "hello":
            return hello_answer(rid)
        if op == "bench":
            fail("unsupported", "this adapter does not time calls")
        with np.errstate(all="ignore"):
            out = run(req, ops)
        return {"id": rid, "out": encode_result(out)}

    lines.serve(handle, framework_error, out)
