#!/usr/bin/env python3
"""The TensorFlow adapter: the implementation protocol (PROTOCOL.md,
version 1) answered with TensorFlow (tensorflow-cpu) on the CPU, eagerly.

    tools/adapters/install tensorflow
    go run ./tools/scattercheck -allow-unsupported -xfail tools/adapters/xfail/tensorflow.txt \\
        -impl "$HOME/.cache/scatter/frameworks/tensorflow/bin/python tools/adapters/tensorflow_adapter.py"

It needs tensorflow-cpu and its dependencies (requirements/tensorflow.txt).
CUDA_VISIBLE_DEVICES is emptied and TF_CPP_MIN_LOG_LEVEL set to 3 before
TensorFlow is imported, and file descriptor 1 is pointed at standard error
(the answers go to a duplicate of the original standard output), so that no
log line of TensorFlow or its libraries can reach the protocol stream.

The argument rules of each PyTorch call (dim range, index dtype, dtype
match, the shape rules, the reduce names, a scalar's conversion) are
checked here, as any implementation must; the index values and the
arithmetic are TensorFlow's, one eager call (or the composition below) per
request. Every target is written as TensorFlow's n-d index: for each
position p of index, p with p[dim] = index[p] (a [N, ndim] int64 tensor t,
the updates v = src[p] in the same order):

| ours | TensorFlow |
|---|---|
| scatter (src or value) | tf.tensor_scatter_nd_update(self, t, v) |
| scatter reduce='add', scatter_add | tf.tensor_scatter_nd_add(self, t, v) |
| scatter reduce='multiply' | segment prod, below (TensorFlow has no tensor_scatter_nd_mul) |
| scatter_reduce sum / amax / amin | tf.tensor_scatter_nd_add / _max / _min(self, t, v) |
| scatter_reduce include_self=False (sum, amax, amin) | tf.tensor_scatter_nd_update(self, t, identity), then the reduction |
| scatter_reduce prod / mean | segment prod / mean, below |
| gather | tf.gather_nd(input block, t) (the take_along_axis of the index block) |
| torch_scatter.scatter_add (1.x, fill_value) | segment sum, below, into out or a new tensor of fill_value |
| torch_scatter.scatter sum / add | segment sum into out or zeros |
| torch_scatter.scatter mul | segment prod into out or ones |
| torch_scatter.scatter mean (no out; a floating dtype) | segment mean, self not a member (0 where no member) |

The segment composition (sum, prod, mean): touched =
tf.tensor_scatter_nd_update (zeros of self's shape, t, True), which also
makes TensorFlow check every target; the targets flattened to segment ids;
r = tf.math.unsorted_segment_sum / _prod / _mean over [self's
elements, v] with ids [0..n), ids (include_self: self is the first member
of its segment, as in PyTorch's order) or over v alone (include_self=False);
the result is tf.where(touched, r, self), so an untouched element is
self's own.

Index values are TensorFlow's to check: tensor_scatter_nd_* and gather_nd
raise InvalidArgumentError on the CPU for a target outside the shape
(negative included: "indices[0] = [-1] does not index into shape [3]"),
answered index_out_of_range, as PyTorch does; so are its messages for a
target in an empty tensor ("Indices and updates specified for empty output
shape", "Requested more than 0 entries, but params is empty"). An empty
index still goes to TensorFlow (zero targets), so that a dtype it has no
kernel for is refused there too.

torch_scatter's argument rules (its index broadcasting, dim_size, the
new out, the C++ kernel's checks for mul) are those of numpy_adapter.py.

Claimed: scatter, scatter_add, scatter_reduce, gather, torch_scatter.scatter_add
and torch_scatter.scatter on all ten dtypes.
Not claimed: index_reduce and the F# operations.
Answered unsupported:
- torch_scatter.scatter min / max: they return the position of each
  extreme (arg), which no segment reduction of TensorFlow gives;
- torch_scatter.scatter mean with out: it divides a sum that includes out
  by a count that does not, which tf.math.unsorted_segment_mean cannot
  express; and on an integer dtype or bool (the float64 true division
  below);
- torch_scatter.scatter mean whose count, taken from the index as given,
  is not an element's number of members: an index stretched along dim (a
  1-d index of one element, a k-d index of size 1 at dim or of rank at
  most dim), where torch_scatter divides [1,2,3] by 1 for index [0] and
  unsorted_segment_mean by 3;
- add, multiply, sum, prod, mean, amax, amin on bool: TensorFlow has no
  bool kernel for TensorScatterAdd/Max/Min (NotFoundError "Could not find
  device for node") nor for the segment reductions (PyTorch ORs and ANDs);
- scatter_reduce 'mean' on bool or an integer dtype: tf.math.unsorted_segment_mean
  divides with true division and returns a float64 tensor, where PyTorch
  floors into the integer dtype; casting it back would be this adapter's
  rounding, not TensorFlow's.

By-design and other differences from PyTorch: see xfail/tensorflow.txt and
docs/conformance/README.md (each with a repro in
docs/conformance/repro/tensorflow_repro.py). A plain scatter with
duplicate targets keeps whichever update TensorFlow applies last (the
conformant level allows any of them).
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
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"

import numpy as np  # noqa: E402

from wire import PROTOCOL, MAX_ELEMS, DTYPES, fail, name_of, serve  # noqa: E402
from torchrules import as1d, scalar_to, scatter_checks, gather_checks, identity, dim_targets  # noqa: E402
from tsrules import ts1_prepare, ts2_prepare, ts_broadcast  # noqa: E402

import tensorflow as tf  # noqa: E402

INT_MEAN = ("%s mean on %s: tf.math.unsorted_segment_mean divides with true division into float64; "
            "PyTorch floors into the integer dtype")


# TensorFlow's messages for a target outside the tensor (an empty tensor
# has no element to index).
OUT_OF_RANGE = ("does not index into", "Indices and updates specified for empty output shape",
                "Requested more than 0 entries, but params is empty")


def tensor(a):
    return tf.constant(a)


def nd_targets(dim, idx):
    """The [N, ndim] int64 n-d indices of the targets, and the positions
    (into src) in the same order."""
    tgt, pos = dim_targets(dim, idx)
    return np.stack([t.reshape(-1) for t in tgt], axis=-1), pos


def targets(out, dim, index):
    """nd_targets of a non-empty index; an empty index has no target (a
    [0, ndim] tensor) and no position, whatever its shape."""
    if index.size == 0:
        return np.zeros((0, out.ndim), dtype=np.int64), None
    return nd_targets(dim, as1d(index))


def segment_reduce(kind, x, t, v, include_self):
    """unsorted_segment_sum / _prod / _mean of every target's members (self
    first where include_self), the untouched elements self's."""
    touched = tf.tensor_scatter_nd_update(tf.zeros(x.shape, tf.bool), t, tf.ones([t.shape[0]], tf.bool))
    n = int(np.prod(x.shape))
    ids = np.ravel_multi_index(tuple(t.T), x.shape).astype(np.int64)
    data = tf.constant(v)
    if include_self:
        data = tf.concat([tf.reshape(tf.constant(x), [-1]), data], axis=0)
        ids = np.concatenate([np.arange(n, dtype=np.int64), ids])
    f = {"sum": tf.math.unsorted_segment_sum, "prod": tf.math.unsorted_segment_prod,
         "mean": tf.math.unsorted_segment_mean}[kind]
    r = tf.reshape(f(data, tf.constant(ids), n), x.shape)
    return tf.where(touched, r, tf.constant(x))


def op_scatter(self, dim, index, src, value, reduce):
    dim = scatter_checks(self, dim, index, src)
    out = as1d(self)
    t, pos = targets(out, dim, index)
    if index.size == 0:
        vals = np.zeros(0, dtype=out.dtype)
    elif src is not None:
        vals = as1d(src)[pos].reshape(-1)
    else:
        vals = np.full(t.shape[0], scalar_to(value, out.dtype), dtype=out.dtype)
    if reduce is None:
        r = tf.tensor_scatter_nd_update(tensor(out), t, tensor(vals))
    elif reduce == "add":
        r = tf.tensor_scatter_nd_add(tensor(out), t, tensor(vals))
    else:
        r = segment_reduce("prod", out, t, vals, True)
    return r.numpy().reshape(self.shape)


def op_scatter_reduce(self, dim, index, src, reduce, include_self):
    dim = scatter_checks(self, dim, index, src)
    if reduce == "mean" and np.issubdtype(self.dtype, np.integer):
        fail("unsupported", INT_MEAN % ("scatter_reduce", name_of(self)))
    out = as1d(self)
    t, pos = targets(out, dim, index)
    vals = np.zeros(0, dtype=out.dtype) if index.size == 0 else as1d(src)[pos].reshape(-1)
    if reduce in ("prod", "mean"):
        r = segment_reduce(reduce, out, t, vals, include_self)
    else:
        x = tensor(out)
        if not include_self:
            x = tf.tensor_scatter_nd_update(x, t, tf.fill([t.shape[0]], tensor(identity(reduce, out.dtype))))
        f = {"sum": tf.tensor_scatter_nd_add, "amax": tf.tensor_scatter_nd_max, "amin": tf.tensor_scatter_nd_min}[reduce]
        r = f(x, t, tensor(vals))
    return r.numpy().reshape(self.shape)


def op_gather(inp, dim, index):
    dim = gather_checks(inp, dim, index)
    if index.size == 0:
        return np.zeros(index.shape, dtype=inp.dtype)
    a, i = as1d(inp), as1d(index)
    block = a[tuple(slice(None) if d == dim else slice(0, i.shape[d]) for d in range(a.ndim))]
    t, _ = nd_targets(dim, i)
    r = tf.gather_nd(tensor(np.ascontiguousarray(block)), t)
    return r.numpy().reshape(index.shape)


# ------------------------------------------------- torch_scatter's calls
# The argument rules are torch_scatter's (as numpy_adapter.py has them);
# the sums and products are TensorFlow's segment reductions, out counted as
# the first member of each target (segment_reduce), index values checked by
# TensorFlow.

MAX_OUTPUT_ELEMS = MAX_ELEMS
TS_MEAN = ("torch_scatter.scatter mean with out divides a sum that includes out by a count that does not; "
           "tf.math.unsorted_segment_mean has no such form")
TS_MEAN_COUNT = ("torch_scatter.scatter mean divides by a count taken from the index as given, here not the number of "
                 "members of every element (an index stretched along dim); tf.math.unsorted_segment_mean counts the members")
TS_ARG = "torch_scatter.scatter with %s returns the position of each extreme (arg), which no TensorFlow segment reduction gives"


def ts_segment(kind, out, dim, index, src):
    """out (ndim >= 1) with src[p] reduced into out[p with p[dim] = index[p]]:
    out a member of the sum and the product, not of the mean (torch_scatter's
    mean without out is the mean of the members, 0 where there is none)."""
    t, pos = nd_targets(dim, index)
    return segment_reduce(kind, out, t, np.ascontiguousarray(src[pos]).reshape(-1), kind != "mean").numpy()


def ts_mean_count(index, dim, size):
    """torch_scatter's mean also scatters a count of ones over the index as
    given (not broadcast), along dim or the index's last dimension, size
    out.size(dim) long: that scatter, done here by
    tf.tensor_scatter_nd_add, checks the index against size even where src
    is empty. Returns the count, 0 raised to 1 (before its broadcast)."""
    if index.ndim == 0:
        fail("shape_mismatch", "scatter_mean's count of a 0-d index")
    index_dim = dim if index.ndim > dim else index.ndim - 1
    csize = list(index.shape)
    csize[index_dim] = size
    count = tf.zeros(csize, tf.int64)
    if index.size:
        t, _ = nd_targets(index_dim, index)
        count = tf.tensor_scatter_nd_add(count, t, tf.ones([t.shape[0]], tf.int64))
    return np.maximum(count.numpy(), 1)


def members(shape, dim, bindex):
    """The number of members of every element of a new out of that shape:
    what unsorted_segment_mean divides by."""
    n = np.zeros(shape, dtype=np.int64)
    if bindex.size:
        t, _ = dim_targets(dim, bindex)
        np.add.at(n, t, 1)
    return n


def op_ts1_scatter_add(src, index, dim, out, dim_size, fill_value):
    """torch_scatter 1.x scatter_add (SEMANTICS.md 8.3): out (or a new
    tensor of fill_value) with unsorted_segment_sum."""
    out, index, src, dim = ts1_prepare(src, index, dim, out, dim_size, fill_value, scalar_to, MAX_OUTPUT_ELEMS)
    if index.size:
        out = ts_segment("sum", out, dim, index, src)
    return out


def op_ts2_scatter(src, index, dim, out, dim_size, reduce):
    """torch_scatter 2.x scatter (SEMANTICS.md 8.1): sum and add with
    unsorted_segment_sum, mul with unsorted_segment_prod (out, or zeros /
    ones, as the first member of each target)."""
    if reduce not in ("sum", "add", "mul", "mean", "min", "max"):
        fail("invalid_argument", "torch_scatter.scatter: unknown reduce %r" % (reduce,))
    if reduce in ("min", "max"):
        fail("unsupported", TS_ARG % reduce)
    if reduce == "mean" and out is not None:
        fail("unsupported", TS_MEAN)
    if reduce == "mean" and not (np.issubdtype(src.dtype, np.floating) or src.dtype == DTYPES["bfloat16"]):
        fail("unsupported", INT_MEAN % ("torch_scatter.scatter", name_of(src)))
    p = ts2_prepare(src, index, dim, out, dim_size, reduce, MAX_OUTPUT_ELEMS)
    out, bindex = p.out, p.bindex
    if p.done:
        return out
    if reduce == "mul":
        if bindex.size:
            out = ts_segment("prod", out, p.dim, bindex, src)
        return out
    if bindex.size:
        out = ts_segment(reduce if reduce == "mean" else "sum", out, p.odim, bindex, src)
    if reduce == "mean":
        count = ts_broadcast(ts_mean_count(index, p.dim, out.shape[p.odim]), out.shape, p.given_dim)
        n = members(out.shape, p.odim, bindex)
        if np.any((n > 0) & (n != count)):
            fail("unsupported", TS_MEAN_COUNT)
    return out.reshape(p.shape)


def hello_answer(rid, ops):
    return {"id": rid, "protocol": PROTOCOL, "name": "tensorflow", "version": "%s (cpu)" % tf.__version__,
            "ops": ops, "dtypes": list(DTYPES)}


def framework_error(e):
    msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
    msg = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", msg)
    if isinstance(e, tf.errors.InvalidArgumentError) and any(m in msg for m in OUT_OF_RANGE):
        return "index_out_of_range", "TensorFlow: %s" % msg
    if isinstance(e, tf.errors.NotFoundError) or "is not in the list of allowed values" in msg:
        return "unsupported", "TensorFlow has no such kernel: %s" % msg
    return "invalid_argument", "TensorFlow: %s: %s" % (type(e).__name__, msg)


OPS = {"scatter": op_scatter,
       "scatter_reduce": op_scatter_reduce,
       "gather": op_gather,
       "torch_scatter.scatter_add": op_ts1_scatter_add,
       "torch_scatter.scatter": op_ts2_scatter}

if __name__ == "__main__":
    serve(hello_answer, OPS, framework_error, PROTOCOL_OUT)
