"""torch_scatter's and scatter_add_'s layout rules for the adapters that
offer torch_scatter (NumPy, TensorFlow): the broadcast of an index
against src, the strides PyTorch gives it, the expanded-index path on
which torch 2.14 rejects an int32 index, and the bound on an output the
adapter allocates. NumPy only.
"""

import math
from types import SimpleNamespace

import numpy as np

from lines import fail
from torchrules import as1d, dim_out_of_range, scatter_checks


def check_size(shape, limit):
    """An output of shape is allocated only up to limit elements; past it
    the call is answered unsupported."""
    if math.prod(shape) > limit:
        fail("unsupported", "the adapter does not allocate an output of shape %s" % (list(shape),))


def contiguous_strides(shape):
    st = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        st[d] = st[d + 1] * shape[d + 1]
    return st


def expand_strides(shape, strides, to):
    """torch's expand of a layout of the same rank: a size-1 dimension
    stretched gets stride 0."""
    return [strides[d] if shape[d] == to[d] else 0 for d in range(len(to))]


def expanded_index_path(dtype, out_shape, wd, shape, strides, src_contiguous):
    """Whether out.scatter_add_(wd, index, src) takes PyTorch 2's fast path
    for an expanded index (can_use_expanded_index_path), whose kernel reads
    the index as int64, so that an int32 index there fails with "expected
    scalar type Long but found Int" (torch 2.14): a floating out, neither
    out nor the index empty or 0-d, dim 0, at least 16 index elements per
    index of dim 0, the index's dim-0 stride 1 and every other 0 or 1, src
    contiguous. The strides are torch's, in elements."""
    floating = np.issubdtype(dtype, np.floating) or dtype.name == "bfloat16"  # ml_dtypes' is not np.floating
    if not floating or wd != 0 or len(out_shape) == 0 or len(shape) == 0:
        return False
    if math.prod(shape) == 0 or math.prod(out_shape) == 0 or not src_contiguous:
        return False
    if math.prod(shape) // shape[0] < 16 or strides[0] != 1:
        return False
    return all(st <= 1 for st in strides[1:])


def check_expanded_int32(dtype, out_shape, wd, shape, strides, src_contiguous, index_dtype):
    if index_dtype == np.int32 and expanded_index_path(dtype, out_shape, wd, shape, strides, src_contiguous):
        fail("index_dtype", "expected scalar type Long but found Int (scatter_add_'s expanded-index path)")


def ts_index_max(index):
    return 0 if index.size == 0 else int(index.max()) + 1


def ts_broadcast(t, other_shape, dim):
    """torch_scatter 2.x broadcast(src, other, dim)."""
    nd = len(other_shape)
    if dim < 0:
        dim = nd + dim
    if t.ndim == 1:
        t = t.reshape((1,) * dim + t.shape)
    while t.ndim < nd:
        t = t.reshape(t.shape + (1,))
    try:
        return np.broadcast_to(t, other_shape)
    except ValueError as e:
        fail("shape_mismatch", "The expanded size of the tensor must match the existing size: %s" % e)


def ts_broadcast_strides(ishape, dim, to):
    """The strides (torch's, in elements) of broadcast(index, src, dim) for
    a contiguous index: a 1-d index unsqueezed at the front dim times, then
    at the end up to src's rank, then expanded."""
    sh, st = list(ishape), contiguous_strides(ishape)
    if len(sh) == 1:
        while len(sh) < dim + 1:
            sh, st = [1] + sh, [sh[0] * st[0]] + st
    while len(sh) < len(to):
        sh, st = sh + [1], st + [1]
    return expand_strides(sh, st, to)


def ts1_prepare(src, index, dim, out, dim_size, fill_value, convert, limit):
    """torch_scatter 1.x scatter_add (SEMANTICS.md 8.3) up to the
    out.scatter_add_(dim, index, src) it ends with: dim wrapped, the index
    broadcast against src, a new output of fill_value (convert is the
    adapter's scalar_to; limit bounds its elements) or a copy of out, and
    every check PyTorch makes on the way, in its order. It returns (out,
    index, src, dim) for the adapter to scatter-add src into out when the
    index is not empty (the index values are the adapter's to check)."""
    n = src.ndim
    if not -n <= dim < n:
        fail("dim_out_of_range", "dim %d of a %d-dimensional src" % (dim, n))
    dim = dim + n if dim < 0 else dim
    idx_dtype = index.dtype
    orig_index, src_shape = index, list(src.shape)
    if index.ndim == 1:
        view = [1] * n
        view[dim] = src.shape[dim]
        if index.size > 0:
            if index.size != src.shape[dim]:
                fail("shape_mismatch", "shape '%s' is invalid for input of size %d" % (view, index.size))
            index = np.broadcast_to(index.reshape(view), src.shape)
        else:
            index = np.zeros(view, dtype=np.int64)  # torch_scatter: new_empty, uninitialised
            idx_dtype = index.dtype
    if src.ndim != index.ndim:
        fail("shape_mismatch", "Number of dimensions of src and index tensor do not match, got %d and %d" % (src.ndim, index.ndim))
    shape = []
    for s, i in zip(src.shape, index.shape):
        t = s if (s == i and s != 1 and i != 1) else max(i, s)
        if (s != t and s != 1) or (i != t and i != 1):
            fail("shape_mismatch", "The expanded size of the tensor (%d) must match the existing size (%d)" % (t, s if s != t else i))
        shape.append(t)
    src = np.broadcast_to(src, shape)
    index = np.broadcast_to(index, shape)
    if out is None:
        size = list(shape)
        if dim_size is None and index.size and not np.issubdtype(idx_dtype, np.integer) and idx_dtype != np.bool_:
            fail("index_dtype", "new_full(): argument 'size' must be a tuple of ints, but index.max() is a %s" % index.dtype.name)
        size[dim] = dim_size if dim_size is not None else ts_index_max(index)
        if size[dim] < 0:
            fail("invalid_argument", "Trying to create tensor with negative dimension %d" % size[dim])
        check_size(size, limit)
        # new_full: torch 2.14 does not range-check one float16 element
        one_half = math.prod(size) == 1 and src.dtype == np.float16
        out = np.full(size, convert(fill_value, src.dtype, checked=not one_half), dtype=src.dtype)
    # out.scatter_add_(dim, index, src): the index dtype (unless the index
    # is empty; an empty 1-d index became an int64 one), then src's dtype
    if index.size and idx_dtype not in (np.int32, np.int64):
        fail("index_dtype", "scatter(): Expected dtype int32/int64 for index")
    if out.dtype != src.dtype:
        fail("dtype_mismatch", "scatter(): Expected self.dtype to be equal to src.dtype")
    out = out.copy()
    if index.size and orig_index.ndim >= 1:
        # the index gen hands to scatter_add_: a 1-d one viewed along dim
        # and expanded to src, then to the broadcast shape
        if orig_index.ndim == 1:
            view = [1] * n
            view[dim] = src_shape[dim]
            ist = expand_strides(src_shape, expand_strides(view, contiguous_strides(view), src_shape), shape)
        else:
            ist = expand_strides(list(orig_index.shape), contiguous_strides(orig_index.shape), shape)
        src_contig = all(a == b or a != 1 for a, b in zip(src_shape, shape))
        check_expanded_int32(src.dtype, out.shape, dim, shape, ist, src_contig, idx_dtype)
    if index.size:
        if out.ndim != index.ndim:
            fail("shape_mismatch", "Index tensor must have the same number of dimensions as self tensor")
        for d in range(out.ndim):
            if d != dim and index.shape[d] > out.shape[d]:
                fail("shape_mismatch", "Expected index to be smaller than self apart from dimension %d" % dim)
    return out, index, src, dim


def ts2_prepare(src, index, dim, out, dim_size, reduce, limit):
    """torch_scatter 2.x scatter (SEMANTICS.md 8.1) with reduce sum, add,
    mean or mul (the adapter answers min, max and its own limits first) up
    to the scatter itself, with every check PyTorch makes on the way, in
    its order: dim wrapped, the index broadcast against src (bindex), a new
    output of zeros (ones for mul; limit bounds its elements) or out.
    - sum, add and mean are Python over out.scatter_add_(dim, index, src):
      out comes back a copy, 0-d viewed as 1-d, with scatter_add_'s checks
      made against it (dim as given, wrapped against out: a given out may
      be larger than src, or 0-d) and odim that dim;
    - mul is the C++ kernel: out comes back a copy with the kernel's checks
      made (out's dimensions other than dim are src's; an int64 index, not
      bool, src's dtype), and odim is None; an empty src returns at once,
      done, with an output it made zeroed.
    Returns them as a namespace: out, bindex, dim (wrapped against src),
    given_dim, odim, shape (out's, to reshape the 1-d copy of a 0-d out
    back), given (whether out was), done; the index values are the
    adapter's to check."""
    if reduce not in ("sum", "add", "mul", "mean"):
        fail("invalid_argument", "torch_scatter.scatter: unknown reduce %r" % (reduce,))
    n = src.ndim
    if not -n <= dim < n:
        dim_out_of_range(dim, n)
    given_dim = dim
    dim = dim + n if dim < 0 else dim
    if reduce == "mul" and index.dtype not in (np.int32, np.int64):
        fail("index_dtype", "scatter(): Expected dtype int32/int64 for index")
    given = out is not None
    bindex = ts_broadcast(index, src.shape, dim)
    if reduce == "mul" and out is None and dim_size is None and bindex.size and index.dtype != np.int64:
        # the C++ kernel reads index.max() as int64
        fail("index_dtype", "expected scalar type Long but found %s" % index.dtype.name)
    if out is None:
        size = list(src.shape)
        size[dim] = dim_size if dim_size is not None else ts_index_max(bindex)
        if size[dim] < 0:
            fail("invalid_argument", "Trying to create tensor with negative dimension %d" % size[dim])
        check_size(size, limit)
        out = np.full(size, 1 if reduce == "mul" else 0, dtype=src.dtype)
    if reduce == "mul":
        if given:
            # over out's dimensions: src.size(d) past src's last one raises
            for d in range(out.ndim):
                if d == dim:
                    continue
                if d >= n:
                    dim_out_of_range(d, n)
                if out.shape[d] != src.shape[d]:
                    fail("shape_mismatch", "Input mismatch: out %s and src %s differ in dimension %d"
                         % (list(out.shape), list(src.shape), d))
            out = out.copy()
        if src.size == 0:
            if not given:
                out[...] = 0
            return SimpleNamespace(out=out, bindex=bindex, dim=dim, given_dim=given_dim, odim=None, shape=out.shape,
                                   given=given, done=True)
        if given and out.ndim <= dim:  # out.size(dim)
            dim_out_of_range(dim, max(out.ndim, 1))
        if index.dtype != np.int64:
            fail("index_dtype", "expected scalar type Long but found %s" % index.dtype.name)
        if src.dtype == np.bool_:
            fail("unsupported_dtype", "\"scatter_cpu\" not implemented for 'Bool'")
        if out.dtype != src.dtype:
            fail("dtype_mismatch", "expected scalar type %s but found %s" % (src.dtype.name, out.dtype.name))
        if out.ndim != n:
            # the kernel would index an out of fewer dimensions with src's
            # layout; the suite rejects it
            fail("shape_mismatch", "Input mismatch: out has %d dimensions, src %d" % (out.ndim, n))
        return SimpleNamespace(out=out, bindex=bindex, dim=dim, given_dim=given_dim, odim=None, shape=out.shape,
                               given=given, done=False)
    shape = out.shape
    odim = scatter_checks(out, given_dim, bindex, src)
    out = as1d(out).copy()
    if bindex.size and shape:
        check_expanded_int32(src.dtype, shape, odim, list(src.shape), ts_broadcast_strides(list(index.shape), dim, list(src.shape)),
                             True, index.dtype)
    return SimpleNamespace(out=out, bindex=bindex, dim=dim, given_dim=given_dim, odim=odim, shape=shape,
                           given=given, done=False)
