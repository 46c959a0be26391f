"""The protocol's lines for every Python adapter (PROTOCOL.md version 1),
in plain Python, so that each environment imports it: the NumPy one
(no ml_dtypes), Debian's and the roots' interpreters under the torch
adapter, and the frameworks' (through wire.py).

- AdapterError and fail: how an adapter rejects a call, with the
  protocol's error kind ("unsupported" for the unsupported answer);
- Fields: a request's fields, each read with its type checked;
- tensor_data and tensor_object: a tensor field's dtype, shape, strides
  and bytes, checked, and a tensor as the protocol writes it;
- decode_scalar: a JSON scalar as the Python value PyTorch takes;
- FIELDS and operation: each operation's fields, read from a request in
  the order the adapters' functions take them, and the adapter's function
  for the request's op;
- answer and serve: one request line to its answer line, and the loop on
  stdin and stdout; the adapter gives the handler of a well-formed
  request and how it names an exception that is not an AdapterError.

The tensors are the adapter's own (NumPy arrays, torch tensors): each
adapter builds them from tensor_data's bytes, and Fields decodes them with
the function it is given.
"""

import base64
import binascii
import json
import math
import re
import sys
import traceback


class AdapterError(Exception):
    """A rejection with its protocol kind ("unsupported" for the
    unsupported answer)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


def fail(kind, message):
    raise AdapterError(kind, message)


# the protocol's dtypes and the bytes of an element of each
ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
            "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


def tensor_data(obj, name, dtypes, strides_ok=True, max_elems=None, max_view_elems=None):
    """A tensor field's parts, checked: (dtype, shape, strides, raw).

    dtype is its name, one of dtypes (the adapter's; a dtype that the
    adapter lacks is unsupported, a name the protocol lacks is
    invalid_argument); shape a list of at most 64 non-negative ints;
    strides None, or with strides_ok (the strides extension, claimed in
    the hello) one non-negative element stride per dimension; raw the
    data's bytes, exactly the storage's (1 + sum((size-1)*stride) elements
    for a view with elements, else the shape's), a bool's each 0 or 1. A
    tensor of more than max_elems elements, or a view of more than
    max_view_elems, is unsupported (None: no limit)."""
    if not isinstance(obj, dict):
        fail("invalid_argument", "%s: a tensor is an object with dtype, shape and data" % name)
    dtn = obj.get("dtype")
    if isinstance(dtn, str) and dtn in ITEMSIZE and dtn not in dtypes:
        fail("unsupported", "%s: the adapter takes no %s" % (name, dtn))
    if not isinstance(dtn, str) or dtn not in dtypes:
        fail("invalid_argument", "%s: unknown dtype %r" % (name, dtn))
    shape = obj.get("shape")
    if not isinstance(shape, list) or any(type(s) is not int or s < 0 for s in shape):
        fail("invalid_argument", "%s: shape %r is not a list of non-negative integers" % (name, shape))
    if len(shape) > 64:
        fail("invalid_argument", "%s: %d dimensions" % (name, len(shape)))
    n = math.prod(shape)
    stored = n
    strides = obj.get("strides")
    if strides is not None:
        if not strides_ok:
            fail("invalid_argument", "%s: strides were not claimed" % name)
        if not isinstance(strides, list) or len(strides) != len(shape) or any(
                type(s) is not int or s < 0 for s in strides):
            fail("invalid_argument", "%s: strides %r are not one non-negative integer per dimension of %r"
                 % (name, strides, shape))
        if max_view_elems is not None and n > max_view_elems:
            fail("unsupported", "%s: the adapter does not take a view of more than %d elements" % (name, max_view_elems))
        stored = 0 if n == 0 else 1 + sum((size - 1) * st for size, st in zip(shape, strides))
    if max_elems is not None and n > max_elems:
        fail("unsupported", "%s: the adapter does not take a tensor of more than %d elements" % (name, max_elems))
    data = obj.get("data", "")
    if not isinstance(data, str):
        fail("invalid_argument", "%s: data is not a string" % name)
    want = stored * ITEMSIZE[dtn]
    if len(data) != 4 * ((want + 2) // 3):
        fail("invalid_argument", "%s: %d base64 characters for %d bytes" % (name, len(data), want))
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as e:
        fail("invalid_argument", "%s: malformed base64: %s" % (name, e))
    if len(raw) != want:
        fail("invalid_argument", "%s: %d bytes of data, shape %r of %s needs %d" % (name, len(raw), shape, dtn, want))
    if dtn == "bool" and raw.translate(None, b"\x00\x01"):
        fail("invalid_argument", "%s: a bool byte is not 0 or 1" % name)
    return dtn, shape, strides, raw


def tensor_object(dtype, shape, raw):
    """A tensor as the protocol writes it: its dtype's name, its shape and
    its bytes (little-endian, row-major) in base64."""
    return {"dtype": dtype, "shape": list(shape), "data": base64.b64encode(raw).decode("ascii")}


def decode_scalar(v, name):
    """A JSON scalar as the Python value PyTorch takes: an integer literal
    stays an int (PyTorch's checked conversion depends on it), a literal
    with '.', 'e' or 'E' is a float, "nan"/"inf"/"-inf" are floats, and
    true/false are bools."""
    if isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    fail("invalid_argument", "%s: %r is not a number, \"nan\", \"inf\" or \"-inf\"" % (name, v))


REQUIRED = object()


class Fields:
    """A request's fields, each read with its type checked: a wrong one,
    or a missing one without a default, is invalid_argument; an absent
    optional field gives its default. decode_tensor(obj, name) decodes a
    tensor field."""

    def __init__(self, req, decode_tensor):
        self.req = req
        self.decode_tensor = decode_tensor

    def has(self, key):
        return self.req.get(key) is not None

    def _get(self, key, default):
        v = self.req.get(key)
        if v is None and default is REQUIRED:
            fail("invalid_argument", "missing %s" % key)
        return v

    def tensor(self, key, default=REQUIRED):
        v = self._get(key, default)
        return default if v is None else self.decode_tensor(v, key)

    def int(self, key, default=REQUIRED):
        v = self._get(key, default)
        if v is None:
            return default
        if type(v) is not int or not -(1 << 63) <= v < (1 << 63):
            fail("invalid_argument", "%s must be a 64-bit integer, not %r" % (key, v))
        return v

    def str(self, key, default=REQUIRED):
        v = self._get(key, default)
        if v is None:
            return default
        if not isinstance(v, str):
            fail("invalid_argument", "%s must be a string, not %r" % (key, v))
        return v

    def bool(self, key, default=REQUIRED):
        v = self._get(key, default)
        if v is None:
            return default
        if not isinstance(v, bool):
            fail("invalid_argument", "%s must be true or false, not %r" % (key, v))
        return v

    def scalar(self, key, default=REQUIRED):
        v = self._get(key, default)
        return default if v is None else decode_scalar(v, key)

    def indices(self, key):
        v = self.req.get(key)
        if not isinstance(v, list):
            fail("invalid_argument", "missing %s (a list of tensors and nulls)" % key)
        return [None if x is None else self.decode_tensor(x, "%s[%d]" % (key, k)) for k, x in enumerate(v)]

    def shape(self, key):
        v = self.req.get(key)
        if not isinstance(v, list) or any(type(s) is not int for s in v):
            fail("invalid_argument", "%s must be a list of integers" % key)
        return v


# The operations' fields by the protocol's op name (PROTOCOL.md), in the
# order the adapters' functions take them: (field, kind) for a required
# field, (field, kind, default) for an optional one, where kind names the
# Fields method that reads it.
_SELF_DIM_INDEX = (("self", "tensor"), ("dim", "int"), ("index", "tensor"))
FIELDS = {
    # scatter_(dim, index, src | value, reduce=None): exactly one of src
    # and value (operation checks it first)
    "scatter": _SELF_DIM_INDEX + (("src", "tensor", None), ("value", "scalar", None), ("reduce", "str", None)),
    "scatter_add": _SELF_DIM_INDEX + (("src", "tensor"),),
    "scatter_reduce": _SELF_DIM_INDEX + (("src", "tensor"), ("reduce", "str"), ("include_self", "bool", True)),
    "index_reduce": _SELF_DIM_INDEX + (("source", "tensor"), ("reduce", "str"), ("include_self", "bool", True)),
    "gather": (("input", "tensor"), ("dim", "int"), ("index", "tensor")),
    "torch_scatter.scatter_add": (("src", "tensor"), ("index", "tensor"), ("dim", "int", -1), ("out", "tensor", None),
                                  ("dim_size", "int", None), ("fill_value", "scalar", 0)),
    "torch_scatter.scatter": (("src", "tensor"), ("index", "tensor"), ("dim", "int", -1), ("out", "tensor", None),
                              ("dim_size", "int", None), ("reduce", "str", "sum")),
    "tensor.scatter": (("indices", "indices"), ("shape", "shape"), ("src", "tensor")),
    "tensor.gather": (("indices", "indices"), ("src", "tensor")),
}


def operation(req, decode_tensor, ops):
    """(fn, args) for an operation request: fn is ops[op], the adapter's
    function for the request's op, and args its fields in FIELDS' order,
    each read with its type checked (Fields). An op that ops lacks is
    answered unsupported."""
    op = req.get("op")
    if not isinstance(op, str) or op not in ops or op not in FIELDS:
        fail("unsupported", "op %r is not offered" % (op,))
    f = Fields(req, decode_tensor)
    if op == "scatter" and f.has("src") == f.has("value"):
        fail("invalid_argument", "scatter needs exactly one of src and value")
    return ops[op], [getattr(f, kind)(key, *default) for key, kind, *default in FIELDS[op]]


def error_answer(rid, kind, message):
    if kind == "unsupported":
        return {"id": rid, "unsupported": message}
    return {"id": rid, "error": {"kind": kind, "message": message}}


def adapter_bug(e):
    """How an exception of the adapter's own is answered by default."""
    return "invalid_argument", "adapter error: %s: %s" % (type(e).__name__, e)


def _parse_constant(c):
    raise ValueError("%s is not JSON" % c)


_LEADING_ID = re.compile(rb'^\s*\{\s*"id"\s*:\s*(-?[0-9]{1,19})\s*[,}]')


def answer(line, handle, other_error=adapter_bug):
    """The answer to one request line: handle(rid, req) for a request that
    is a JSON object with an integer id (hello included); a malformed line
    is answered invalid_argument under the id it seems to carry (0 when
    none). An AdapterError raised is answered with its kind, any other
    exception with other_error(e), a (kind, message) pair, and logged."""
    try:
        req = json.loads(line, parse_constant=_parse_constant)
    except (ValueError, UnicodeDecodeError) as e:
        m = _LEADING_ID.match(line)
        return error_answer(int(m.group(1)) if m else 0, "invalid_argument", "malformed request: %s" % e)
    if not isinstance(req, dict) or type(req.get("id")) is not int:
        return error_answer(0, "invalid_argument", "a request is a JSON object with an integer id")
    rid = req["id"]
    try:
        return handle(rid, req)
    except AdapterError as e:
        return error_answer(rid, e.kind, e.message)
    except Exception as e:  # not a rejection: answered, logged, and the loop goes on
        traceback.print_exc(file=sys.stderr)
        return error_answer(rid, *other_error(e))


def serve(handle, other_error=adapter_bug, out=None):
    """Answer the request lines of stdin on out (stdout by default), one
    JSON line each, until stdin ends (see answer)."""
    out = out or sys.stdout
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        out.write(json.dumps(answer(line, handle, other_error), separators=(",", ":"), allow_nan=False))
        out.write("\n")
        out.flush()
