#!/usr/bin/env python3
"""The NumPy adapter: the implementation protocol (PROTOCOL.md, version 1)
answered with NumPy, where NumPy has the operation.

    scattercheck -impl '/usr/bin/python3 tools/adapters/numpy_adapter.py'

It needs Python 3 and numpy, nothing else: NumPy 2 as pinned in
requirements/numpy.txt (tools/adapters/install numpy), or 1.24 as Debian
ships it; both answer alike. It is an honest port, not an emulation of
PyTorch: the argument rules of each PyTorch call (dim range, index dtype,
dtype match, the shape rules, index bounds, the reduce names), as PyTorch
2.14 has them (the gate's torch-2 profile), are checked here, as any
implementation must, and the arithmetic is NumPy's own:

- scatter: plain fancy assignment (out[targets] = values; NumPy does not
  promise which duplicate wins), reduce='add'/'multiply' with np.add.at and
  np.multiply.at;
- scatter_add: np.add.at;
- scatter_reduce: sum np.add.at, prod np.multiply.at, amax np.maximum.at,
  amin np.minimum.at (np.maximum/np.minimum propagate NaN, as torch's amax
  and amin do), mean np.add.at over a count; include_self=False first
  assigns the reduction's identity to the targets;
- index_reduce: the same ufuncs, applied slice by slice along dim (each
  source slice broadcast to its self slice, as PyTorch does);
- gather: np.take_along_axis on the index's block of the input;
- torch_scatter.scatter_add (1.x, with fill_value): np.full and np.add.at;
- torch_scatter.scatter (2.x): sum/add/mean with np.add.at, mul with
  np.multiply.at; min and max return an arg (the position of the extreme),
  which no NumPy ufunc.at gives: answered "unsupported";
- tensor.scatter (F#): np.add.at on the full index tuple; tensor.gather:
  fancy indexing.

NumPy has no bfloat16: the adapter does not claim it. What differs from
PyTorch is left to show in the gate's report: float16 arithmetic rounds in
float16 at every step (as torch 1.13 does, unlike torch 2's float32
accumulation), integers wrap, the mean's count is an int64, a plain scatter
with duplicate targets takes whichever value NumPy assigns last.

The hello claims the strides extension (protocol/doc.go): a tensor with
"strides" is decoded with np.lib.stride_tricks.as_strided and copied to a
contiguous array. bench is not offered (answered "unsupported").

A bad request never ends the adapter; it exits when standard input closes.
"""

import math
import os

import numpy as np

from arrays import NUMPY_DTYPES, Arrays
from lines import fail, operation, serve
from torchrules import as1d, dim_targets, identity, scalar_to, scatter_checks, wrap_dim
from tsrules import check_size, ts_broadcast, ts1_prepare, ts2_prepare

PROTOCOL = 1

# name -> numpy dtype of the wire bytes (little-endian). No bfloat16.
DTYPES = NUMPY_DTYPES
MAX_OUTPUT_ELEMS = int(os.environ.get("SCATTER_ADAPTER_MAX_ELEMS", str(1 << 28)))

ARRAYS = Arrays(DTYPES, max_view_elems=MAX_OUTPUT_ELEMS)
decode_tensor, encode_result, name_of = ARRAYS.decode, ARRAYS.encode, ARRAYS.name_of


# ------------------------------------------------------- PyTorch's rules


def check_index_dtype(index, what):
    # torch >= 2.8 takes int32 and int64 (the torch-2 profile).
    if index.dtype not in (np.int32, np.int64):
        fail("index_dtype", "%s(): Expected dtype int32/int64 for index" % what)


def check_bounds(idx, size, dim):
    if idx.size:
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            v = int(idx[bad].flat[0])
            fail("index_out_of_range", "index %d is out of bounds for dimension %d with size %d" % (v, dim, size))


UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum,
         "add": np.add, "multiply": np.multiply}


def mean_divide(out, count):
    """out / count in out's dtype: true division for floats, floor
    division for integers (PyTorch's rule)."""
    count = np.where(count == 0, 1, count)
    if np.issubdtype(out.dtype, np.floating):
        return (out / count).astype(out.dtype)
    return np.floor_divide(out, count.astype(out.dtype)).astype(out.dtype)


# ---------------------------------------------------------------- the ops


def op_scatter(self, dim, index, src, value, reduce):
    dim = scatter_checks(self, dim, index, src)
    # the reduce name is checked in meta, after the shape check
    if reduce is not None and reduce not in ("add", "multiply"):
        fail("invalid_argument", "reduce argument must be either add or multiply.")
    out = as1d(self).copy()
    if index.size == 0:
        return out.reshape(self.shape)
    idx = as1d(index)
    if src is None and 0 <= idx.flat[0] < out.shape[dim]:
        # the kernel converts the value at the first index element, and
        # meets a bad index value later; a bad first one comes first
        scalar_to(value, out.dtype)
    check_bounds(idx, out.shape[dim], dim)
    tgt, pos = dim_targets(dim, idx)
    if src is not None:
        vals = as1d(src)[pos]
    else:
        vals = np.full(idx.shape, scalar_to(value, out.dtype), dtype=out.dtype)
    if reduce is None:
        out[tgt] = vals  # fancy assignment: NumPy picks one of the duplicates
    else:
        UFUNC[reduce].at(out, tgt, vals)
    return out.reshape(self.shape)


def op_scatter_add(self, dim, index, src):
    dim = scatter_checks(self, dim, index, src)
    out = as1d(self).copy()
    if index.size:
        idx = as1d(index)
        check_bounds(idx, out.shape[dim], dim)
        tgt, pos = dim_targets(dim, idx)
        np.add.at(out, tgt, as1d(src)[pos])
    return out.reshape(self.shape)


# torch 2's get_reduction_enum takes "max" and "min" for amax and amin
REDUCE_ALIASES = {"max": "amax", "min": "amin"}


def op_scatter_reduce(self, dim, index, src, reduce, include_self):
    dim = scatter_checks(self, dim, index, src)
    # the reduce name is checked in meta, after the shape check
    reduce = REDUCE_ALIASES.get(reduce, reduce)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        fail("invalid_argument", "reduce argument must be either sum, prod, mean, amax or amin, got %s" % reduce)
    out = as1d(self).copy()
    if reduce == "mean" and self.dtype == np.bool_:
        # the include_self=False fill checks the index first; the dispatch
        # fails next, and even an empty index fails in the division
        if index.size and not include_self:
            check_bounds(as1d(index), out.shape[dim], dim)
        fail("unsupported_dtype", "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    if index.size == 0:
        return out.reshape(self.shape)
    idx = as1d(index)
    check_bounds(idx, out.shape[dim], dim)
    tgt, pos = dim_targets(dim, idx)
    vals = as1d(src)[pos]
    if not include_self:
        out[tgt] = identity(reduce, out.dtype)
    UFUNC[reduce].at(out, tgt, vals)
    if reduce == "mean":
        count = np.full(out.shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count, tgt, 1)
        out = mean_divide(out, count)
    return out.reshape(self.shape)


def op_index_reduce(self, dim, index, source, reduce, include_self):
    """index_reduce_ with PyTorch 2's checks (index_func_meta_impl), in
    its order: source must have self's shape but along dim (nothing
    broadcasts; a 0-d source needs a 0-d self)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        fail("invalid_argument", "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s." % reduce)
    dim = wrap_dim(dim, self.ndim)
    if index.ndim > 1:
        fail("shape_mismatch", "index_reduce_(): Index is supposed to be a vector")
    check_index_dtype(index, "index_reduce_")
    if source.dtype != self.dtype:
        fail("dtype_mismatch", "index_reduce_(): self and source must have the same scalar type")
    if not (dim == 0 or dim < source.ndim):
        fail("shape_mismatch", "index_reduce_(): Indexing dim %d is out of bounds of the source tensor" % dim)
    if source.ndim == 0 and index.size != 1:
        fail("dim_out_of_range", "Dimension specified as 0 but tensor has no dimensions")
    n = 1 if source.ndim == 0 else source.shape[dim]
    if index.size != n:
        fail("shape_mismatch", "index_reduce_(): Number of indices (%d) should be equal to source.size(dim): (%d)" % (index.size, n))
    ss, rs = list(self.shape), list(source.shape)
    if self.ndim and source.ndim:
        del ss[dim], rs[dim]
    if ss != rs:
        fail("shape_mismatch", "source tensor shape must match self tensor shape, excluding the specified dimension. "
             "Got self.shape = %s source.shape = %s" % (list(self.shape), list(source.shape)))
    out = as1d(self).copy()
    src = as1d(source)
    idx = index.reshape(-1).astype(np.int64)
    size = out.shape[dim]
    # include_self=False: the identity fill dispatches on self's dtype (no
    # bool) and runs index_fill_, which wraps negative indices, first.
    if not include_self:
        if self.dtype == np.bool_:
            fail("unsupported_dtype", "\"index_reduce_func_exclude_input_init\" not implemented for 'Bool'")
        bad = (idx < -size) | (idx >= size)
        if bad.any():
            fail("index_out_of_range", "index %d is out of bounds for dimension %d with size %d" % (int(idx[bad][0]), dim, size))
    if self.ndim > 1:
        if idx.size == 0:
            return out.reshape(self.shape)
        if size == 0:
            fail("index_out_of_range", "select(): index 0 out of range for tensor of size %s at dimension %d" % (list(self.shape), dim))
    elif self.dtype == np.bool_:
        # the 1-d path dispatches on self's dtype before its loop
        fail("unsupported_dtype", "\"index_func_\" not implemented for 'Bool'")
    if idx.size and ((idx < 0) | (idx >= size)).any():
        fail("index_out_of_range", "index out of range in self")
    if self.ndim > 1 and reduce == "mean" and self.dtype == np.bool_:
        fail("unsupported_dtype", "\"div_floor_cpu\" not implemented for 'Bool'")
    if idx.size == 0:
        return out.reshape(self.shape)
    lead = (slice(None),) * dim
    if not include_self:
        out[lead + (idx,)] = identity(reduce, out.dtype)
    # source.select(dim, i) combined into self.select(dim, index[i]), in
    # increasing i (same shapes: nothing broadcasts)
    ufunc = UFUNC[reduce]
    for i in range(idx.size):
        dst = out[lead + (idx[i],)]
        s = np.take(src, i, axis=dim)
        out[lead + (idx[i],)] = ufunc(dst, s).astype(out.dtype)
    if reduce == "mean":
        count = np.full(size, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count, idx, 1)
        shape = [1] * out.ndim
        shape[dim] = size
        out = mean_divide(out, count.reshape(shape))
    return out.reshape(self.shape)


def op_gather(inp, dim, index):
    dim = wrap_dim(dim, inp.ndim)
    if index.size == 0:
        return np.zeros(index.shape, dtype=inp.dtype)
    check_index_dtype(index, "gather")
    a, i = as1d(inp), as1d(index)
    if a.ndim != i.ndim:
        fail("shape_mismatch", "Index tensor must have the same number of dimensions as input tensor")
    for d in range(a.ndim):
        if d != dim and i.shape[d] > a.shape[d]:
            fail("shape_mismatch", "Size does not match at dimension %d expected index %s to be smaller than self %s apart from dimension %d"
                 % (d, list(index.shape), list(inp.shape), dim))
    check_bounds(i, a.shape[dim], dim)
    block = a[tuple(slice(None) if d == dim else slice(0, i.shape[d]) for d in range(a.ndim))]
    return np.take_along_axis(block, i.astype(np.int64), axis=dim).reshape(index.shape)


def op_ts1_scatter_add(src, index, dim, out, dim_size, fill_value):
    """torch_scatter 1.x scatter_add (SEMANTICS.md 8.3), with NumPy."""
    out, index, src, dim = ts1_prepare(src, index, dim, out, dim_size, fill_value, scalar_to, MAX_OUTPUT_ELEMS)
    if index.size:
        check_bounds(index, out.shape[dim], dim)
        tgt, pos = dim_targets(dim, index)
        np.add.at(out, tgt, src[pos])
    return out


def op_ts2_scatter(src, index, dim, out, dim_size, reduce):
    """torch_scatter 2.x scatter (SEMANTICS.md 8.1), with NumPy: sum, add,
    mean and mul; min and max need an arg NumPy cannot give."""
    if reduce in ("min", "max"):
        fail("unsupported", "torch_scatter.scatter with %s returns the position of each extreme (arg), which no NumPy ufunc.at gives" % reduce)
    p = ts2_prepare(src, index, dim, out, dim_size, reduce, MAX_OUTPUT_ELEMS)
    out, bindex, dim = p.out, p.bindex, p.dim
    if p.done:
        return out
    if reduce == "mul":
        if bindex.size:
            check_bounds(bindex, out.shape[dim], dim)
            tgt, pos = dim_targets(dim, bindex)
            np.multiply.at(out, tgt, src[pos])
        return out
    if bindex.size:
        check_bounds(bindex, out.shape[p.odim], p.odim)
        tgt, pos = dim_targets(p.odim, bindex)
        np.add.at(out, tgt, src[pos])
    out = out.reshape(p.shape)
    if reduce != "mean":
        return out
    if out.ndim == 0:
        fail("dim_out_of_range", "scatter_mean: out.size(dim) of a 0-d out")
    # count: ones of the index's shape summed along dim (wrapped against
    # src), in src's dtype, out.size(dim) long
    index_dim = dim if index.ndim > dim else index.ndim - 1
    if index.ndim == 0:
        fail("shape_mismatch", "scatter_mean's count of a 0-d index")
    csize = list(index.shape)
    csize[index_dim] = out.shape[p.given_dim]
    count = np.zeros(csize, dtype=src.dtype)
    if index.size:
        check_bounds(index, csize[index_dim], index_dim)
        ctgt, _ = dim_targets(index_dim, index)
        np.add.at(count, ctgt, np.ones(index.shape, dtype=src.dtype))
    count = np.where(count < 1, np.ones((), dtype=src.dtype), count)
    count = ts_broadcast(count, out.shape, p.given_dim)
    if src.dtype == np.bool_:
        fail("unsupported_dtype", "\"div_floor_cpu\" not implemented for 'Bool'")
    if np.issubdtype(out.dtype, np.floating):
        return (out / count).astype(out.dtype)
    return np.floor_divide(out, count).astype(out.dtype)


def fs_index_types(indices):
    for k, t in enumerate(indices):
        if t is not None and t.dtype != np.int64:
            fail("index_dtype", "indices[%d]: expected Tensor<int64>, got %s" % (k, name_of(t)))


def broadcasts_to(shape, to):
    if len(shape) > len(to):
        return False
    s = [1] * (len(to) - len(shape)) + list(shape)
    return all(a == b or a == 1 for a, b in zip(s, to))


def positional(k, shape):
    view = [1] * len(shape)
    view[k] = shape[k]
    return np.broadcast_to(np.arange(shape[k], dtype=np.int64).reshape(view), shape)


def check_positions(cols, lim):
    bad = ((cols < 0) | (cols >= lim)).any(axis=1)
    if bad.any():
        p = int(np.nonzero(bad)[0][0])
        fail("index_out_of_range", "Position %s is out of range for tensor of shape %s." % (cols[p].tolist(), lim.tolist()))


def op_fs_scatter(indices, shape, src):
    """F# Tensor.scatter: trgt = zeros(shape); np.add.at(trgt, j, src)."""
    fs_index_types(indices)
    if any(s < 0 for s in shape):
        fail("invalid_argument", "shape %s cannot have negative entries" % shape)
    S = list(src.shape)
    if len(indices) != len(shape):
        fail("invalid_argument", "For each dimension of the target an index tensor must be specified.")
    if len(shape) < len(S):
        fail("invalid_argument", "the target's %d dimensions are fewer than src's %d" % (len(shape), len(S)))
    for k in range(len(S), len(shape)):
        if indices[k] is None:
            fail("invalid_argument", "Index dimensions beyond the number of source dimensions must not be None.")
    for k, t in enumerate(indices):
        if t is not None and not broadcasts_to(t.shape, S):
            fail("shape_mismatch", "Cannot broadcast shape %s to shape %s" % (list(t.shape), S))
    if src.dtype == np.bool_:
        fail("unsupported_dtype", "Tensor.scatter: the element type bool has no addition")
    check_size(shape, MAX_OUTPUT_ELEMS)
    idx = tuple(np.broadcast_to(t, S) if t is not None else positional(k, S) for k, t in enumerate(indices))
    trgt = np.zeros(shape, dtype=src.dtype)
    if src.size and idx:
        cols = np.stack([i.reshape(-1) for i in idx], axis=1)
        check_positions(cols, np.array(shape, dtype=np.int64))
        np.add.at(trgt, idx, src)
    elif src.size:
        trgt += src
    return trgt


def op_fs_gather(indices, src):
    """F# Tensor.gather: fancy indexing with the broadcast indices."""
    fs_index_types(indices)
    given = [t.shape for t in indices if t is not None]
    if not given:
        fail("invalid_argument", "At least one index tensor must not be None.")
    try:
        T = list(np.broadcast_shapes(*given))
    except ValueError as e:
        fail("shape_mismatch", "Cannot broadcast shapes %s to same size: %s" % (given, e))
    S = list(src.shape)
    if len(indices) != len(S):
        fail("invalid_argument", "For each dimension of src an index tensor must be specified.")
    if len(T) > len(S):
        fail("invalid_argument", "src's %d dimensions are fewer than the target's %d" % (len(S), len(T)))
    for k in range(len(T), len(S)):
        if indices[k] is None:
            fail("invalid_argument", "Index dimensions beyond the number of target dimensions must not be None.")
    check_size(T, MAX_OUTPUT_ELEMS)
    idx = tuple(np.broadcast_to(t, T) if t is not None else positional(k, T) for k, t in enumerate(indices))
    if math.prod(T) == 0:
        return np.zeros(T, dtype=src.dtype)
    cols = np.stack([i.reshape(-1) for i in idx], axis=1)
    check_positions(cols, np.array(S, dtype=np.int64))
    return src[idx].reshape(T).copy()


# ---------------------------------------------------------------- requests


# the functions by the protocol's op name (lines.operation reads their
# fields); each returns the output
OPS = {
    "scatter": op_scatter,
    "scatter_add": op_scatter_add,
    "scatter_reduce": op_scatter_reduce,
    "index_reduce": op_index_reduce,
    "gather": op_gather,
    "torch_scatter.scatter_add": op_ts1_scatter_add,
    "torch_scatter.scatter": op_ts2_scatter,
    "tensor.scatter": op_fs_scatter,
    "tensor.gather": op_fs_gather,
}


def hello_answer(rid):
    # "strides": the strides extension (protocol/doc.go).
    return {"id": rid, "protocol": PROTOCOL, "name": "numpy", "version": np.__version__,
            "ops": list(OPS), "dtypes": list(DTYPES), "strides": True}


def handle(rid, req):
    op = req.get("op")
    if op == "hello":
        return hello_answer(rid)
    if op == "bench":
        fail("unsupported", "the NumPy adapter does not time calls")
    fn, args = operation(req, decode_tensor, OPS)
    try:
        with np.errstate(all="ignore"):  # overflow, invalid and 0/0 are results, as in PyTorch
            out = fn(*args)
    except IndexError as e:
        fail("index_out_of_range", "IndexError: %s" % e)
    return {"id": rid, "out": encode_result(out)}


if __name__ == "__main__":
    serve(handle)
