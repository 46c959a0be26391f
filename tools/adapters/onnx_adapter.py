#!/usr/bin/env python3
"""The ONNX adapter: the implementation protocol (PROTOCOL.md, version 1)
answered by one-node ONNX models, run by ONNX Runtime on the CPU or, with
--reference, by ONNX's own reference evaluator (onnx.reference).

    tools/adapters/install onnx
    PY=$HOME/.cache/scatter/frameworks/onnx/bin/python
    go run ./tools/scattercheck -allow-unsupported -xfail tools/adapters/xfail/onnxruntime.txt \\
        -impl "$PY tools/adapters/onnx_adapter.py"
    go run ./tools/scattercheck -allow-unsupported -xfail tools/adapters/xfail/onnx-reference.txt \\
        -impl "$PY tools/adapters/onnx_adapter.py --reference"

It needs onnx, onnxruntime, numpy and ml_dtypes (requirements/onnx.txt).
The argument rules of each PyTorch call (dim range, index dtype, dtype
match, the shape rules, the reduce names, a scalar's conversion) are
checked here, as any implementation must; each call is then one model of
one node (opset 18), built with onnx.helper and run once:

| ours | ONNX (opset 18) |
|---|---|
| scatter (src or value) | ScatterElements(data=self, indices=index, updates=src[:index.shape], axis=dim) |
| scatter reduce='add' / 'multiply' | ScatterElements reduction='add' / 'mul' |
| scatter_add | ScatterElements reduction='add' |
| scatter_reduce sum / prod / amax / amin | ScatterElements reduction='add' / 'mul' / 'max' / 'min' |
| scatter_reduce include_self=False | the targets set to the reduction's identity (a NumPy assignment), then the reduction |
| gather | GatherElements(data=input, indices=index, axis=dim) |

A 0-d tensor goes as a 1-d tensor of one element (ONNX's ScatterElements
and GatherElements need rank 1 or more).

Claimed: scatter, scatter_add, scatter_reduce, gather on all ten dtypes
(ONNX Runtime: all but bfloat16, which its Python binding does not take
from NumPy; the operators themselves define it). Not claimed: index_reduce, torch_scatter and the F# operations (no ONNX
operator). Answered unsupported:
- scatter_reduce 'mean': ONNX has no mean reduction;
- a dtype the runtime has no kernel for (ONNX Runtime's NOT_IMPLEMENTED,
  e.g. a reduction on bool or bfloat16): the runtime's message;
- a negative index value: ONNX defines it by design as counting from the
  end (PyTorch raises); run the gate with -allow-unsupported.
  docs/conformance/README.md shows what the runtimes return.
An index past the end goes to the runtime, which must raise
(index_out_of_range).
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

import onnx
from onnx import TensorProto, helper

REFERENCE = "--reference" in sys.argv[1:]
if REFERENCE:
    from onnx.reference import ReferenceEvaluator
else:
    import onnxruntime as ort

    ort.set_default_logger_severity(4)  # the errors are answered, not logged

MAX_ELEMS = int(os.environ.get("SCATTER_ADAPTER_MAX_ELEMS", str(1 << 26)))
BAD_INDEX = "index %d is negative (size %d): PyTorch raises; ONNX by design counts a negative index from the end"
OPSET = 18

ONNX_TYPE = {
    "bool": TensorProto.BOOL, "uint8": TensorProto.UINT8, "int8": TensorProto.INT8, "int16": TensorProto.INT16,
    "int32": TensorProto.INT32, "int64": TensorProto.INT64, "float16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16, "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE,
}


def negative_values(idx, size):
    if idx.size and (idx < 0).any():
        fail("unsupported", BAD_INDEX % (int(idx[idx < 0].flat[0]), size))


def run_node(op_type, inputs, attrs):
    """One model of one node: inputs is [(name, array)], the output y."""
    vis = [helper.make_tensor_value_info(n, ONNX_TYPE[name_of(a)], list(a.shape)) for n, a in inputs]
    out_dtype = inputs[0][1]
    node = helper.make_node(op_type, [n for n, _ in inputs], ["y"], **attrs)
    graph = helper.make_graph([node], "scatter", vis, [helper.make_tensor_value_info("y", ONNX_TYPE[name_of(out_dtype)], None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 9
    feeds = {n: a for n, a in inputs}
    if REFERENCE:
        return np.asarray(ReferenceEvaluator(model).run(None, feeds)[0])
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return np.asarray(sess.run(None, feeds)[0])


def op_scatter(self, dim, index, src, value, reduce):
    dim = scatter_checks(self, dim, index, src)
    out = as1d(self)
    if index.size == 0:
        return self.copy()
    idx = as1d(index)
    negative_values(idx, out.shape[dim])
    if src is not None:
        upd = as1d(src)[tuple(slice(0, s) for s in idx.shape)]
    else:
        upd = np.full(idx.shape, scalar_to(value, out.dtype), dtype=out.dtype)
    red = {None: "none", "add": "add", "multiply": "mul"}[reduce]
    r = run_node("ScatterElements", [("data", out), ("indices", idx), ("updates", np.ascontiguousarray(upd))],
                 {"axis": dim, "reduction": red})
    return r.reshape(self.shape)


def op_scatter_reduce(self, dim, index, src, reduce, include_self):
    dim = scatter_checks(self, dim, index, src)
    if reduce == "mean":
        fail("unsupported", "ONNX ScatterElements has no mean reduction")
    out = as1d(self).copy()
    if index.size == 0:
        return self.copy()
    idx = as1d(index)
    negative_values(idx, out.shape[dim])
    if not include_self and (idx < out.shape[dim]).all():
        tgt, _ = dim_targets(dim, idx)
        out[tgt] = identity(reduce, out.dtype)
    upd = as1d(src)[tuple(slice(0, s) for s in idx.shape)]
    red = {"sum": "add", "prod": "mul", "amax": "max", "amin": "min"}[reduce]
    r = run_node("ScatterElements", [("data", out), ("indices", idx), ("updates", np.ascontiguousarray(upd))],
                 {"axis": dim, "reduction": red})
    return r.reshape(self.shape)


def op_gather(inp, dim, index):
    dim = gather_checks(inp, dim, index)
    if index.size == 0:
        return np.zeros(index.shape, dtype=inp.dtype)
    a, i = as1d(inp), as1d(index)
    negative_values(i, a.shape[dim])
    return run_node("GatherElements", [("data", a), ("indices", i)], {"axis": dim}).reshape(index.shape)


def hello_answer(rid):
    if REFERENCE:
        name, version = "onnx.reference", onnx.__version__
    else:
        name, version = "onnxruntime", "%s (onnx %s, CPU)" % (ort.__version__, onnx.__version__)
    # ONNX Runtime's Python binding takes no bfloat16 array from NumPy
    dtypes = [d for d in DTYPES if REFERENCE or d != "bfloat16"]
    return {"id": rid, "protocol": PROTOCOL, "name": name, "version": version,
            "ops": ["scatter", "scatter_add", "scatter_reduce", "gather"], "dtypes": dtypes}


def framework_error(e):
    msg = str(e).strip().splitlines()
    msg = msg[0] if msg else ""
    text = "%s: %s" % (type(e).__name__, msg)
    if "NOT_IMPLEMENTED" in text or "Could not find an implementation" in text or "not supported" in text:
        return "unsupported", text
    if re.search(r"out of (data )?bounds|out of range", text, re.I):
        return "index_out_of_range", text
    if re.search(r"should be the same size|shape mismatch|incompatible (dimensions|shapes)", text, re.I):
        # a size rule between the tensors (the reference's GatherElements
        # wants the index's sizes equal to the data's off the axis)
        return "shape_mismatch", text
    return "invalid_argument", text


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


def identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return dtype.type(0)
    if reduce == "prod":
        return dtype.type(1)
    if dtype == np.bool_:
        return np.bool_(reduce == "amin")
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return dtype.type(info.min if reduce == "amax" else info.max)
    return dtype.type(-np.inf if reduce == "amax" else np.inf)


def dim_targets(dim, index):
    """For every position p of index, the target p with p[dim] = index[p]:
    the index tuple into self, and the positions p (into src)."""
    pos = np.indices(index.shape, sparse=False)
    tgt = [pos[d] for d in range(index.ndim)]
    tgt[dim] = index.astype(np.int64)
    return tuple(tgt), tuple(pos[d] for d in range(index.ndim))


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
    out = sys.stdout
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        out.write(json.dumps(answer(line), separators=(",", ":"), allow_nan=False))
        out.write("\n")
        out.flush()


if __name__ == "__main__":
    main()
