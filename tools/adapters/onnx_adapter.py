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

import re
import sys

import numpy as np

from wire import PROTOCOL, DTYPES, fail, name_of, serve
from torchrules import as1d, scalar_to, scatter_checks, gather_checks, negative_values, identity, dim_targets

import onnx
from onnx import TensorProto, helper

REFERENCE = "--reference" in sys.argv[1:]
if REFERENCE:
    from onnx.reference import ReferenceEvaluator
else:
    import onnxruntime as ort

    ort.set_default_logger_severity(4)  # the errors are answered, not logged

BAD_INDEX = "index %d is negative (size %d): PyTorch raises; ONNX by design counts a negative index from the end"
OPSET = 18

ONNX_TYPE = {
    "bool": TensorProto.BOOL, "uint8": TensorProto.UINT8, "int8": TensorProto.INT8, "int16": TensorProto.INT16,
    "int32": TensorProto.INT32, "int64": TensorProto.INT64, "float16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16, "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE,
}


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
    negative_values(idx, out.shape[dim], BAD_INDEX)
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
    negative_values(idx, out.shape[dim], BAD_INDEX)
    if not include_self and (idx < out.shape[dim]).all():
        tgt, _ = dim_targets(dim, idx)
        out[tgt] = identity(reduce, out.dtype)
    upd = as1d(src)[tuple(slice(0, s) for s in idx.shape)]
    red = {"sum": "add", "prod": "mul", "amax": "max", "amin": "min"}[reduce]
    r = run_node("ScatterElements", [("data", out), ("indices", idx), ("updates", np.ascontiguousarray(upd))],
                 {"axis": dim, "reduction": red})
    return r.reshape(self.shape)


# onnx.reference's GatherElements calls np.choose(mode="wrap"), which
# wraps an index past the end by subtracting the size once a step: an
# index of 2^40 into 3 elements takes minutes (over 100 s). Past this many
# steps in all the call is answered unsupported, not left to time out.
# np.choose takes at most CHOOSE_MAX choices (NumPy 2's NPY_MAXARGS); past
# them the reference falls back to a loop that raises IndexError at once.
WRAP_STEPS = 1 << 24
CHOOSE_MAX = 64


def op_gather(inp, dim, index):
    dim = gather_checks(inp, dim, index)
    if index.size == 0:
        return np.zeros(index.shape, dtype=inp.dtype)
    a, i = as1d(inp), as1d(index)
    negative_values(i, a.shape[dim], BAD_INDEX)
    n = a.shape[dim]
    if REFERENCE and 0 < n <= CHOOSE_MAX:
        past = i[i >= n]
        if past.size and float(np.sum(past.astype(np.float64) / n)) > WRAP_STEPS:
            fail("unsupported", "index %d into a dimension of size %d: onnx.reference's np.choose(mode=\"wrap\") would "
                 "wrap it by repeated subtraction, %d steps or more (PyTorch raises)" % (int(past.flat[0]), n, WRAP_STEPS))
    return run_node("GatherElements", [("data", a), ("indices", i)], {"axis": dim}).reshape(index.shape)


def hello_answer(rid, ops):
    if REFERENCE:
        name, version = "onnx.reference", onnx.__version__
    else:
        name, version = "onnxruntime", "%s (onnx %s, CPU)" % (ort.__version__, onnx.__version__)
    # ONNX Runtime's Python binding takes no bfloat16 array from NumPy
    dtypes = [d for d in DTYPES if REFERENCE or d != "bfloat16"]
    return {"id": rid, "protocol": PROTOCOL, "name": name, "version": version,
            "ops": ops, "dtypes": dtypes}


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


OPS = {"scatter": op_scatter,
       "scatter_reduce": op_scatter_reduce,
       "gather": op_gather}

if __name__ == "__main__":
    serve(hello_answer, OPS, framework_error)
