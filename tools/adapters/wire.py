"""The protocol side of the framework adapters (JAX, ONNX, Paddle,
TensorFlow, tinygrad): PROTOCOL.md version 1 on stdin and stdout, its
tensors as NumPy arrays, its requests decoded into the adapter's
operations and its answers encoded. What the adapters share has its one
home here; each adapter keeps its framework's calls, its hello answer and
how it names the framework's own errors, and runs

    wire.serve(hello_answer, {"scatter": op_scatter, ...}, framework_error)

where hello_answer(id, ops) gets the op names that the functions offer.

It needs numpy and ml_dtypes (the wire's bfloat16), which every
framework's environment has (tools/adapters/requirements). The lines
themselves (fields, answers, the loop) are lines.py's, which the NumPy
and torch adapters share.
"""

import os

import ml_dtypes
import numpy as np

import lines
from arrays import NUMPY_DTYPES, Arrays
from lines import fail

PROTOCOL = 1

# the largest tensor an adapter takes (elements); past it a call is
# answered unsupported
MAX_ELEMS = int(os.environ.get("SCATTER_ADAPTER_MAX_ELEMS", str(1 << 26)))

# name -> numpy dtype of the wire bytes (little-endian)
DTYPES = {name: NUMPY_DTYPES.get(name, np.dtype(ml_dtypes.bfloat16)) for name in lines.ITEMSIZE}  # the protocol's order
ARRAYS = Arrays(DTYPES, strides_ok=False, max_elems=MAX_ELEMS)
decode_tensor, encode_result, name_of = ARRAYS.decode, ARRAYS.encode, ARRAYS.name_of


# ---------------------------------------------------------------- requests


def offered(ops):
    """The protocol's ops from the adapter's functions, by op name:
    "scatter" (which scatter_add calls too), "scatter_reduce", "gather",
    "torch_scatter.scatter_add", "torch_scatter.scatter". The reduce
    names are checked here, as PyTorch checks them (scatter_reduce takes
    PyTorch 2's aliases max and min), so that the adapters' functions see
    only valid ones."""
    table = dict(ops)
    scatter = ops.get("scatter")
    if scatter is not None:
        def checked_scatter(self, dim, index, src, value, reduce):
            if reduce is not None and reduce not in ("add", "multiply"):
                fail("invalid_argument", "reduce argument must be either add or multiply.")
            return scatter(self, dim, index, src, value, reduce)

        table["scatter"] = checked_scatter
        table["scatter_add"] = lambda self, dim, index, src: scatter(self, dim, index, src, None, "add")
    scatter_reduce = ops.get("scatter_reduce")
    if scatter_reduce is not None:
        def checked_scatter_reduce(self, dim, index, src, reduce, include_self):
            reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch 2's aliases
            if reduce not in ("sum", "prod", "mean", "amax", "amin"):
                fail("invalid_argument", "reduce argument must be either sum, prod, mean, amax or amin.")
            return scatter_reduce(self, dim, index, src, reduce, include_self)

        table["scatter_reduce"] = checked_scatter_reduce
    return table


def serve(hello_answer, ops, framework_error, out=None):
    """Answer the request lines of stdin on out (stdout by default), one
    JSON line each, until stdin ends: hello_answer(id, names) for hello,
    where names are the ops offered (in the protocol's order), the
    result of the adapter's function for the request's op otherwise
    (offered(ops), read by lines.operation); an AdapterError is answered
    with its kind, any other exception (the framework's own) with
    framework_error(e), a (kind, message) pair, and logged."""
    table = offered(ops)

    def handle(rid, req):
        op = req.get("op")
        if op == "hello":
            return hello_answer(rid, [name for name in lines.FIELDS if name in table])
        if op == "bench":
            fail("unsupported", "this adapter does not time calls")
        fn, args = lines.operation(req, decode_tensor, table)
        with np.errstate(all="ignore"):
            out = fn(*args)
        return {"id": rid, "out": encode_result(out)}

    lines.serve(handle, framework_error, out)
