"""PyTorch's argument rules for the NumPy adapter and the framework
adapters (JAX, ONNX, Paddle, TensorFlow, tinygrad): what PyTorch checks
before it computes (dim range, index dtype, dtype match, the shape rules,
a scalar's conversion), which the frameworks do not check the same way
and each adapter must, and the pieces of the dim-scatter mapping they
share. The values themselves are the framework's. Plain NumPy: ml_dtypes
is imported only for bfloat16's range.
"""

import math

import numpy as np

from lines import fail


def dim_out_of_range(dim, n):
    """ATen's IndexError for dim against a range of n dimensions."""
    fail("dim_out_of_range", "Dimension out of range (expected to be in range of [%d, %d], but got %d)" % (-n, n - 1, dim))


def wrap_dim(dim, ndim):
    """maybe_wrap_dim: a 0-d tensor counts as 1-d."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        dim_out_of_range(dim, n)
    return dim + n if dim < 0 else dim


def as1d(a):
    return a.reshape(1) if a.ndim == 0 else a


def finite_max(dtype):
    """The largest finite value of a float dtype (bfloat16's from
    ml_dtypes, which only an environment with bfloat16 arrays has)."""
    try:
        return float(np.finfo(dtype).max)
    except ValueError:
        import ml_dtypes
        return float(ml_dtypes.finfo(dtype).max)


def scalar_to(value, dtype, checked=True):
    """c10's checked Scalar::to<T>() as torch 2.14 has it (PyTorch's
    conversion of a scalar value argument; the framework never sees it): a
    bool never overflows, nor does anything into bool; an int must lie in
    the dtype's range (uint8 also takes negative ints down to -255,
    wrapping); a float into an integer dtype must be finite with lowest <=
    v < max+1, and is truncated toward zero (uint8 255.5 is 255); a float
    dtype takes any value in range, or infinite. The 16-bit floats are
    reached through float32 (c10's Half and BFloat16 are constructed from
    a float): 1 + 2^-11 + 2^-30 is float16 1.0, not the 1.0009765625 that
    rounding the double once gives. checked=False skips the range check
    (one-element float16 new_full: a value past the range rounds to
    +-inf)."""
    if dtype == np.bool_:
        return np.bool_(value != 0)
    if isinstance(value, bool):
        return dtype.type(int(value))

    def overflow():
        fail("value_overflow", "value cannot be converted to type %s without overflow" % dtype)

    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if isinstance(value, float):
            # max+1 is a power of two, exact as a double
            if math.isnan(value) or math.isinf(value) or value < info.min or value >= float(info.max) + 1:
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
    if checked and math.isfinite(f) and abs(f) > finite_max(dtype):
        overflow()
    if dtype.itemsize == 2:
        with np.errstate(over="ignore"):
            return dtype.type(np.float32(f))
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
    wrong = any(d != dim and i.shape[d] > s.shape[d] for d in range(s.ndim))
    if src is not None:
        if not wrong:
            # ATen's quirk (SEMANTICS.md 1.3 step 4c): src.size(d) is read
            # over self's dimensions before src's rank is checked
            for d in range(s.ndim):
                if src.ndim > 0 and d >= src.ndim:
                    dim_out_of_range(d, src.ndim)
                if i.shape[d] > (src.shape[d] if src.ndim else 1):
                    wrong = True
                    break
        if max(src.ndim, 1) != i.ndim:
            fail("shape_mismatch", "Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        fail("shape_mismatch", "Expected index %s to be smaller than self %s apart from dimension %d%s"
             % (list(index.shape), list(self.shape), dim,
                "" if src is None else " and to be smaller size than src %s" % list(src.shape)))
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


def index_values(idx, size, message):
    """The by-design difference every framework here has: PyTorch raises
    for an index outside [0, size); the framework does not say so in the
    same way. Such calls are answered unsupported, with message (its %d
    and %d: the first such value and size)."""
    if idx.size:
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            v = int(idx[bad].flat[0])
            fail("unsupported", message % (v, size))


def negative_values(idx, size, message):
    """index_values for a framework that raises past the end but counts a
    negative index from it: only a negative value is answered unsupported."""
    if idx.size and (idx < 0).any():
        fail("unsupported", message % (int(idx[idx < 0].flat[0]), size))


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
