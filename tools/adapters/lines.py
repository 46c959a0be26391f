"""The protocol's lines for every Python adapter (PROTOCOL.md version 1),
in plain Python, so that each environment imports it: the NumPy one
(no ml_dtypes), Debian's and the roots' interpreters under the torch
adapter, and the frameworks' (through wire.py).

- AdapterError and fail: how an adapter rejects a call, with the
  protocol's error kind ("unsupported" for the unsupported answer);
- Fields: a request's fields, each read with its type checked;
- decode_scalar: a JSON scalar as the Python value PyTorch takes;
- answer and serve: one request line to its answer line, and the loop on
  stdin and stdout; the adapter gives the handler of a well-formed
  request and how it names an exception that is not an AdapterError.

The tensors are the adapter's own (NumPy arrays, torch tensors): Fields
decodes them with the function it is given.
"""

import json
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


def decode_scalar(v, name):
    """A JSON scalar as the Python value PyTorch takes: an integer literal
    stays an int (PyTorch's checked conversion depends on it), a literal
    with '.', 'e' or 'E' is a float, "nan"/"inf"/"-inf" are floats, and
    true/false (an extension) are bools."""
    if isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    fail("invalid_argument", "%s: %r is not a number, \"nan\", \"inf\" or \"-inf\"" % (name, v))


class Fields:
    """A request's fields, each read with its type checked (a wrong or
    missing one is invalid_argument); an optional field that is absent
    gives its default. decode_tensor(obj, name) decodes a tensor field."""

    def __init__(self, req, decode_tensor):
        self.req = req
        self.decode_tensor = decode_tensor

    def has(self, key):
        return self.req.get(key) is not None

    def _get(self, key, required):
        v = self.req.get(key)
        if v is None and required:
            fail("invalid_argument", "missing %s" % key)
        return v

    def tensor(self, key, required=True):
        v = self._get(key, required)
        return None if v is None else self.decode_tensor(v, key)

    def int(self, key, required=True, default=None):
        v = self._get(key, required)
        if v is None:
            return default
        if type(v) is not int or not -(1 << 63) <= v < (1 << 63):
            fail("invalid_argument", "%s must be a 64-bit integer, not %r" % (key, v))
        return v

    def str(self, key, required=True, default=None):
        v = self._get(key, required)
        if v is None:
            return default
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

    def scalar(self, key, required=True, default=None):
        v = self._get(key, required)
        return default if v is None else decode_scalar(v, key)

    def indices(self):
        v = self.req.get("indices")
        if not isinstance(v, list):
            fail("invalid_argument", "missing indices (a list of tensors and nulls)")
        return [None if x is None else self.decode_tensor(x, "indices[%d]" % k) for k, x in enumerate(v)]

    def shape(self):
        v = self.req.get("shape")
        if not isinstance(v, list) or any(type(s) is not int for s in v):
            fail("invalid_argument", "shape must be a list of integers")
        return v


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
