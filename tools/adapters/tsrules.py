"""torch_scatter's and scatter_add_'s layout rules for the adapters that
offer torch_scatter (NumPy, TensorFlow): the broadcast of an index
against src, the strides PyTorch gives it, the expanded-index path on
which torch 2.14 rejects an int32 index, and the bound on an output the
adapter allocates. NumPy only.
"""

import math

import numpy as np

from failure import fail


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
