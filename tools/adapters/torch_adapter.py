#!/usr/bin/env python3
"""The PyTorch adapter: the implementation protocol (PROTOCOL.md, version 1)
on standard input and output, answered by real PyTorch calls.

Run it as the child of the suite (protocol.Client), e.g.

    scattercheck -impl '/usr/bin/python3 tools/adapters/torch_adapter.py'

It needs Python 3, numpy and torch (1.13 as Debian ships it, or 2.x), CPU.

- scatter, scatter_add, scatter_reduce, index_reduce and gather are PyTorch's
  own methods, out of place: self.clone() and then the in-place method.
- torch_scatter.scatter_add is torch_scatter 1.x's scatter_add with
  fill_value (utils/gen.py of 1.4.0; SEMANTICS.md section 8.3): the same
  Python over PyTorch, rewritten here, so torch_scatter need not be installed.
- torch_scatter.scatter is torch_scatter 2.x's scatter (section 8.1), run on
  the real library when torch_scatter imports (min and max through
  scatter_min/scatter_max, for arg). Its C++ kernels (mul, min, max) do not
  bounds-check the index: the adapter answers index_out_of_range itself,
  and never calls them with an index outside the output, as the emulation
  below decides. Where torch_scatter does not import, or with
  SCATTER_ADAPTER_TORCH_SCATTER=emulate, the adapter emulates it: sum, add
  and mean are its Python over PyTorch, rewritten here; mul, min and max
  its C++ CPU kernel (csrc/cpu/scatter_cpu.cpp, reducer.h), step by step
  with torch operations in the kernel's order. The hello's name says which
  ("torch+torch_scatter-2.1.2" or "torch").
- tensor.scatter and tensor.gather are the F# Tensor library's (section 9),
  with its argument rules checked first.

The hello claims the strides extension (protocol/doc.go): a tensor with
"strides" is decoded as torch.as_strided over its storage, so that a bench
of an expanded index times PyTorch on the expanded view. bench runs on
SCATTER_TORCH_BENCH_THREADS threads (default: one per CPU available), the
other requests on PyTorch's default.

Errors are answered with the kind found from PyTorch's message (see KINDS);
anything unrecognised is invalid_argument with the whole message, and its
traceback goes to standard error. A bad request never ends the adapter; it
exits when standard input closes.
"""

import math
import os
import sys
import time
import traceback

import numpy as np
import torch

from lines import AdapterError, fail, operation, serve, tensor_data, tensor_object

PROTOCOL = 1

# name -> (torch dtype, numpy dtype of the wire bytes, little-endian). The
# 16-bit floats travel as their bit patterns through int16 (numpy has no
# bfloat16, and torch 1.13 has no uint16).
DTYPES = {
    "bool": (torch.bool, np.dtype("|b1")),
    "uint8": (torch.uint8, np.dtype("|u1")),
    "int8": (torch.int8, np.dtype("|i1")),
    "int16": (torch.int16, np.dtype("<i2")),
    "int32": (torch.int32, np.dtype("<i4")),
    "int64": (torch.int64, np.dtype("<i8")),
    "float16": (torch.float16, np.dtype("<i2")),
    "bfloat16": (torch.bfloat16, np.dtype("<i2")),
    "float32": (torch.float32, np.dtype("<f4")),
    "float64": (torch.float64, np.dtype("<f8")),
}
NAME_OF = {tdt: name for name, (tdt, _) in DTYPES.items()}
BIT_TYPES = (torch.float16, torch.bfloat16)

# torch_scatter 2.x, the real library, where it imports (and
# SCATTER_ADAPTER_TORCH_SCATTER is not "emulate").
TS = None
if os.environ.get("SCATTER_ADAPTER_TORCH_SCATTER", "") != "emulate":
    try:
        import torch_scatter as TS
    except Exception:  # not installed, or built for another torch
        TS = None

# The adapter declines (answers "unsupported") outputs with more elements
# than this, so that an absurd dim_size or shape cannot exhaust memory.
MAX_OUTPUT_ELEMS = int(os.environ.get("SCATTER_ADAPTER_MAX_ELEMS", str(1 << 28)))


# PyTorch's messages -> the protocol's kinds, first match wins.
KINDS = [
    ("Dimension out of range", "dim_out_of_range"),
    ("but tensor has no dimensions", "dim_out_of_range"),
    ("Expected dtype int64 for index", "index_dtype"),
    ("int32/int64 for index", "index_dtype"),
    ("Expected a long tensor for index", "index_dtype"),
    ("Expected self.dtype to be equal to src.dtype", "dtype_mismatch"),
    ("must have the same scalar type", "dtype_mismatch"),
    ("Index tensor must have the same number of dimensions", "shape_mismatch"),
    ("to be smaller", "shape_mismatch"),  # 1.13: "Expected index [..] to be smaller than self [..]"
    ("to be no larger", "shape_mismatch"),  # 2.x: "Expected index [..] to be no larger than self [..]"
    ("source tensor shape must match self tensor shape", "shape_mismatch"),  # index_reduce_, 2.x
    ("Size does not match", "shape_mismatch"),
    ("The expanded size", "shape_mismatch"),
    ("must be greater or equal to the number of dimensions", "shape_mismatch"),
    ("Index is supposed to be a vector", "shape_mismatch"),
    ("Number of indices", "shape_mismatch"),
    ("Indexing dim", "shape_mismatch"),
    ("must match the size", "shape_mismatch"),
    ("doesn't match the broadcast shape", "shape_mismatch"),
    ("Input mismatch", "shape_mismatch"),
    ("shape '", "shape_mismatch"),
    ("must one or zero for given self.dim()", "shape_mismatch"),  # index_reduce_, 1-d self
    ("cannot be applied to a 0-dim tensor", "shape_mismatch"),  # index_reduce_, 0-d source, n-d self
    ("out of bounds for dimension", "index_out_of_range"),
    ("index out of range in self", "index_out_of_range"),
    ("out of range for tensor of size", "index_out_of_range"),  # select(), index_reduce_ on an empty self
    # index_reduce_(include_self=False) on a self of no elements: index_fill_
    # makes a view past the end before any bounds check.
    ("out of bounds for storage of size 0", "index_out_of_range"),
    ("not implemented for", "unsupported_dtype"),
    # torch_scatter's C++ kernels: index.data_ptr<int64_t>(), then
    # out and src of one dtype
    ("expected scalar type Long but found", "index_dtype"),
    ("expected scalar type", "dtype_mismatch"),
    # torch_scatter's scatter_mean counting a 0-d index: size[dim] of [] (the
    # emulation's ts_scatter_mean says the same)
    ("list assignment index out of range", "shape_mismatch"),
    ("reduce argument must be", "invalid_argument"),
    ("Expected reduce to be one of", "invalid_argument"),
    ("negative dimension", "invalid_argument"),
    ("without overflow", "value_overflow"),
    ("Overflow when unpacking long", "value_overflow"),
    ("can't convert negative int to unsigned", "value_overflow"),  # 2.x: a Python int below -2**63
]


def kind_of(exc):
    """The protocol kind of an exception PyTorch raised, or None."""
    msg = str(exc)
    for needle, kind in KINDS:
        if needle in msg:
            return kind
    return None


# ---------------------------------------------------------------- tensors


def decode_tensor(obj, name):
    dtn, shape, strides, raw = tensor_data(obj, name, DTYPES, max_view_elems=MAX_OUTPUT_ELEMS)
    tdt, ndt = DTYPES[dtn]
    arr = np.frombuffer(raw, dtype=ndt).astype(ndt.newbyteorder("="), copy=True)
    t = torch.from_numpy(arr)
    if tdt in BIT_TYPES:
        t = t.view(tdt)
    if strides is None:
        return t.reshape(shape)
    # The strides extension: a view of the storage, as the caller has it
    # (an expanded index stays expanded, so PyTorch runs the kernel for it).
    return torch.as_strided(t, shape, strides)


def encode_result(t):
    """The wire form of a result tensor (any layout)."""
    shape = list(t.shape)
    t = t.detach().cpu().contiguous()
    name = NAME_OF.get(t.dtype)
    if name is None:
        fail("invalid_argument", "result has dtype %s, which the protocol lacks" % t.dtype)
    _, ndt = DTYPES[name]
    if t.dtype in BIT_TYPES:
        t = t.reshape(-1).view(torch.int16)
    return tensor_object(name, shape, t.numpy().astype(ndt, copy=False).tobytes())


def check_output_size(size):
    n = math.prod(size)
    if n > MAX_OUTPUT_ELEMS:
        fail("unsupported", "the adapter does not allocate an output of shape %s (more than %d elements)"
             % (list(size), MAX_OUTPUT_ELEMS))


# ------------------------------------------- torch_scatter 1.x scatter_add


def ts1_scatter_add(src, index, dim, out, dim_size, fill_value):
    """torch_scatter 1.x (tag 1.4.0) scatter_add(src, index, dim, out,
    dim_size, fill_value): gen() in utils/gen.py, then out.scatter_add_."""
    n = src.dim()
    # dim = range(src.dim())[dim]: a 0-d src has no valid dim.
    if not -n <= dim < n:
        fail("dim_out_of_range", "range object index out of range (dim %d of a %d-dimensional src)" % (dim, n))
    dim = dim + n if dim < 0 else dim

    # A 1-d index is viewed along dim and expanded to src.
    if index.dim() == 1:
        index_size = [1] * n
        index_size[dim] = src.size(dim)
        if index.numel() > 0:
            index = index.view(index_size).expand_as(src)
        else:
            # torch_scatter makes src.new_empty(index_size, dtype=long):
            # uninitialised values. Zeros stand in for them, so that the
            # adapter stays deterministic (the judge accepts any outcome).
            index = torch.zeros(index_size, dtype=torch.long)

    if src.dim() != index.dim():
        fail("shape_mismatch", "Number of dimensions of src and index tensor do not match, got %d and %d"
             % (src.dim(), index.dim()))

    expand_size = []
    for s, i in zip(src.size(), index.size()):
        expand_size.append(-1 if s == i and s != 1 and i != 1 else max(i, s))
    src = src.expand(expand_size)
    index = index.expand_as(src)

    if out is None:
        out_size = list(src.size())
        if dim_size is None:
            if index.numel() == 0:
                dim_size = 0
            else:
                m = index.max().item()
                if isinstance(m, float):
                    # new_full() rejects the float size with a TypeError.
                    fail("index_dtype", "new_full(): argument 'size' must be a tuple of ints, "
                         "but index.max() of a %s index is a float" % index.dtype)
                dim_size = m + 1
        out_size[dim] = dim_size
        if dim_size >= 0:
            check_output_size(out_size)
        out = src.new_full(out_size, fill_value)
    else:
        check_output_size(out.shape)
    return out.scatter_add_(dim, index, src)


# ------------------------------------------------ torch_scatter 2.x scatter

TS2_REDUCES = ("sum", "add", "mul", "mean", "min", "max")


def ts_broadcast(src, other, dim):
    """torch_scatter 2.x broadcast(src, other, dim) (utils.py)."""
    if dim < 0:
        dim = other.dim() + dim
    if src.dim() == 1:
        for _ in range(0, dim):
            src = src.unsqueeze(0)
    for _ in range(src.dim(), other.dim()):
        src = src.unsqueeze(-1)
    return src.expand(other.size())


def ts_index_max(index):
    """int(index.max()), as scatter_sum computes the output size; a NaN or
    infinite maximum fails the int() (a float index)."""
    try:
        return int(index.max())
    except (ValueError, OverflowError) as e:
        fail("index_dtype", "int(index.max()) of a %s index: %s" % (index.dtype, e))


def ts_scatter_sum(src, index, dim, out, dim_size):
    index = ts_broadcast(index, src, dim)
    if out is None:
        size = list(src.size())
        if dim_size is not None:
            size[dim] = dim_size
        elif index.numel() == 0:
            size[dim] = 0
        else:
            size[dim] = ts_index_max(index) + 1
        if size[dim] >= 0:
            check_output_size(size)
        out = torch.zeros(size, dtype=src.dtype)
        return out.scatter_add_(dim, index, src)
    return out.scatter_add_(dim, index, src)


def ts_scatter_mean(src, index, dim, out, dim_size):
    out = ts_scatter_sum(src, index, dim, out, dim_size)
    dim_size = out.size(dim)

    index_dim = dim
    if index_dim < 0:
        index_dim = index_dim + src.dim()
    if index.dim() <= index_dim:
        index_dim = index.dim() - 1

    ones = torch.ones(index.size(), dtype=src.dtype)
    try:
        count = ts_scatter_sum(ones, index, index_dim, None, dim_size)
    except IndexError as e:
        if "list assignment index out of range" in str(e):
            # a 0-d index: size[index_dim] of an empty size list
            fail("shape_mismatch", "scatter_mean's count of a %d-d index: %s" % (index.dim(), e))
        raise
    count[count < 1] = 1
    count = ts_broadcast(count, out, dim)
    if out.is_floating_point():
        out.true_divide_(count)
    else:
        out.div_(count, rounding_mode="floor")
    return out


def ts_init(dtype, reduce):
    """Reducer<scalar_t, REDUCE>::init(): 1 for mul, numeric_limits max()
    for min, lowest() for max (finite: ±FLT_MAX for float, not ±inf)."""
    if reduce == "mul":
        return 1
    info = torch.finfo(dtype) if dtype.is_floating_point else torch.iinfo(dtype)
    return info.max if reduce == "min" else info.min


def ts_kernel(src, index, dim, out, dim_size, reduce):
    """torch_scatter's scatter_mul/min/max: ScatterMul/Min/Max::forward in
    csrc/scatter.cpp (wrap dim, broadcast the index) and scatter_cpu in
    csrc/cpu/scatter_cpu.cpp, in its order. The update loop is
    Reducer::update, emulated one position along dim at a time (all the
    targets of one step are distinct, so each step is one vectorised
    gather/compare/scatter, in the kernel's arithmetic dtype)."""
    n = src.dim()
    dim = dim + n if dim < 0 else dim
    index = ts_broadcast(index, src, dim)

    given = out is not None
    if given:
        # CHECK_INPUT(src.size(i) == out.size(i)) for i != dim, i over out's
        # dimensions: src.size(i) past src's last one raises first.
        for i in range(out.dim()):
            if i == dim:
                continue
            if i >= n:
                fail("dim_out_of_range", "Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                     % (-n, n - 1, i))
            if src.size(i) != out.size(i):
                fail("shape_mismatch", "Input mismatch: out %s and src %s differ in dimension %d"
                     % (list(out.shape), list(src.shape), i))
        out = out.contiguous()
    else:
        sizes = list(src.size())
        if dim_size is not None:
            sizes[dim] = dim_size
        elif index.numel() == 0:
            sizes[dim] = 0
        else:
            if index.dtype != torch.int64:  # index.max().data_ptr<int64_t>()
                fail("index_dtype", "expected scalar type Long but found %s" % index.dtype)
            sizes[dim] = 1 + int(index.max())
        if sizes[dim] < 0:
            fail("invalid_argument", "Trying to create tensor with negative dimension %d: %s" % (sizes[dim], sizes))
        check_output_size(sizes)
        out = torch.empty(sizes, dtype=src.dtype)

    arg = None
    if reduce in ("min", "max"):
        # full_like(out, src.size(dim), index.options()), then data_ptr<int64_t>()
        if index.dtype != torch.int64:
            fail("index_dtype", "expected scalar type Long but found %s" % index.dtype)
        arg = torch.full(out.shape, src.size(dim), dtype=torch.int64)

    if src.numel() == 0:
        if not given:
            out.fill_(0)
        return out, arg

    if out.dim() <= dim:  # N = out.size(dim), out of fewer dimensions than src
        fail("dim_out_of_range", "Dimension out of range (expected to be in range of [%d, %d], but got %d)"
             % (-max(out.dim(), 1), max(out.dim(), 1) - 1, dim))
    if index.dtype != torch.int64:  # getTensorInfo<int64_t>(index)
        fail("index_dtype", "expected scalar type Long but found %s" % index.dtype)
    if src.dtype == torch.bool:  # AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)
        fail("unsupported_dtype", "\"scatter_cpu\" not implemented for 'Bool'")
    if out.dtype != src.dtype:  # out.data_ptr<scalar_t>()
        fail("dtype_mismatch", "expected scalar type %s but found %s" % (src.dtype, out.dtype))

    if out.dim() != n:
        # out of fewer dimensions than src: the kernel indexes out's data
        # with src's layout and writes past its end (undefined behaviour).
        fail("shape_mismatch", SUITE_RULE + "Input mismatch: out has %d dimensions, src %d (the C++ kernel would write past out)"
             % (out.dim(), n))
    N = out.size(dim)
    # The C++ kernel does not bounds-check; the adapter does.
    bad = (index < 0) | (index >= N)
    if bool(bad.any()):
        v = int(index.reshape(-1)[bad.reshape(-1)][0])
        fail("index_out_of_range", "index %d is out of bounds for dimension %d with size %d" % (v, dim, N))

    if not given:
        out.fill_(ts_init(src.dtype, reduce))

    B = math.prod(src.shape[:dim])
    E = src.size(dim)
    K = src.numel() // (B * E)
    s = src.contiguous().view(B, E, K)
    ix = index.contiguous().view(B, E, K)
    o = out.view(B, N, K)
    a = arg.view(B, N, K) if arg is not None else None
    for e in range(E):
        t = ix[:, e:e + 1, :]
        v = s[:, e:e + 1, :]
        cur = o.gather(1, t)
        if reduce == "mul":
            o.scatter_(1, t, cur * v)
            continue
        # Reducer::update: strict comparison, so the first extreme wins and
        # a NaN never does.
        m = (v < cur) if reduce == "min" else (v > cur)
        o.scatter_(1, t, torch.where(m, v, cur))
        a.scatter_(1, t, torch.where(m, torch.full_like(t, e), a.gather(1, t)))

    if not given and reduce in ("min", "max"):
        init = ts_init(src.dtype, reduce)
        out.masked_fill_(out == init, 0)
    return out, arg


def ts2_scatter(src, index, dim, out, dim_size, reduce):
    """torch_scatter 2.x scatter(src, index, dim, out, dim_size, reduce):
    the real library's where it imports, else the emulation; returns
    (out, arg) with arg for min and max."""
    if TS is None:
        return ts2_emulated(src, index, dim, out, dim_size, reduce)
    # torch_scatter never range-checks dim: past the ends its C++ kernels
    # abort or crash the process, and its Python fails wherever it breaks
    # first. The suite's rule (SEMANTICS.md section 8.1) is
    # dim_out_of_range, checked here first, as the emulation does.
    ts2_checks(src, dim, out, reduce)
    if reduce in ("mul", "min", "max"):
        # The C++ kernels write out[index] unchecked: run the emulation (on
        # a copy of out) first, and keep its index_out_of_range; call the
        # kernel only with every index value inside the output.
        try:
            ts2_emulated(src, index, dim, None if out is None else out.clone(), dim_size, reduce)
        except AdapterError as e:
            if (e.kind == "index_out_of_range" or e.message.startswith(SUITE_RULE)
                    or not ts_index_inside(src, index, dim, out, dim_size)):
                raise
    elif out is None and not index.dtype.is_floating_point:
        # sum, add and mean size a new output from dim_size or the
        # broadcast index's maximum: the adapter's limit first, as in the
        # emulation, so that a huge index value is not a huge allocation
        # (an index that does not broadcast, or a float one, goes on to
        # fail in the library)
        try:
            bindex = ts_broadcast(index, src, dim)
        except RuntimeError:
            bindex = None
        if bindex is not None:
            size = list(src.shape)
            d = dim + src.dim() if dim < 0 else dim
            size[d] = dim_size if dim_size is not None else (int(bindex.max()) + 1 if bindex.numel() else 0)
            if size[d] >= 0:
                check_output_size(size)
    try:
        if reduce == "min":
            return TS.scatter_min(src, index, dim, out, dim_size)
        if reduce == "max":
            return TS.scatter_max(src, index, dim, out, dim_size)
        return TS.scatter(src, index, dim, out, dim_size, reduce), None
    except RuntimeError as e:
        # The C++ kernels' "expected scalar type Long but found X" is about
        # the index when it is not int64 (read first), else about out.
        if "expected scalar type" in str(e):
            fail("index_dtype" if index.dtype != torch.int64 else "dtype_mismatch", "RuntimeError: %s" % e)
        raise
    except (ValueError, OverflowError, TypeError) as e:
        # A float index whose maximum int() cannot take (NaN, an infinity)
        # or zeros() cannot size (2^63 and past) fails in the Python that
        # sizes the output, before scatter_add_ would reject its dtype:
        # the float index is the cause, as the emulation answers.
        if index.dtype.is_floating_point:
            fail("index_dtype", "%s: %s (a %s index)" % (type(e).__name__, e, index.dtype))
        raise


# The prefix of the emulation's messages for the suite's own rules where the
# C++ kernel has undefined behaviour (it writes outside out).
SUITE_RULE = "the suite's rule: "


def ts_index_inside(src, index, dim, out, dim_size):
    """Whether every index value lies in [0, N) for the N that the C++
    kernel takes as the output's size along dim."""
    try:
        n = src.dim()
        d = dim + n if dim < 0 else dim
        if out is not None:
            size = out.size(d)
        elif dim_size is not None:
            size = dim_size
        else:
            return True  # the output is sized by index.max() + 1
        return index.numel() == 0 or (int(index.min()) >= 0 and int(index.max()) < size)
    except Exception:
        return False


def ts2_emulated(src, index, dim, out, dim_size, reduce):
    """torch_scatter 2.x scatter, emulated over PyTorch (section 8.1)."""
    ts2_checks(src, dim, out, reduce)
    if reduce in ("sum", "add"):
        return ts_scatter_sum(src, index, dim, out, dim_size), None
    if reduce == "mean":
        return ts_scatter_mean(src, index, dim, out, dim_size), None
    return ts_kernel(src, index, dim, out, dim_size, reduce)


def ts2_checks(src, dim, out, reduce):
    """The reduce name (Python dispatches on it first), then dim against
    src, then the output's size."""
    if reduce not in TS2_REDUCES:
        fail("invalid_argument", "torch_scatter.scatter: reduce must be one of %s, got %r"
             % (", ".join(TS2_REDUCES), reduce))
    n = src.dim()
    if not -n <= dim < n:
        fail("dim_out_of_range", "Dimension out of range (expected to be in range of [%d, %d], but got %d)"
             % (-n, n - 1, dim))
    if out is not None:
        check_output_size(out.shape)


# ---------------------------------------------------------------- F# Tensor


def np_broadcast_shape(shapes):
    """NumPy's broadcast of shapes (left-pad with 1s, size-1 dims stretch),
    or None."""
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        s = [1] * (nd - len(s)) + list(s)
        for k in range(nd):
            if s[k] == out[k] or s[k] == 1:
                continue
            if out[k] == 1:
                out[k] = s[k]
            else:
                return None
    return out


def broadcasts_to(shape, to):
    if len(shape) > len(to):
        return False
    s = [1] * (len(to) - len(shape)) + list(shape)
    return all(a == b or a == 1 for a, b in zip(s, to))


def fs_index_types(indices):
    for k, t in enumerate(indices):
        if t is not None and t.dtype != torch.int64:
            fail("index_dtype", "indices[%d]: expected Tensor<int64>, got %s" % (k, NAME_OF.get(t.dtype, t.dtype)))


def positional(k, shape):
    """The index of a None: the position along dimension k of shape."""
    view = [1] * len(shape)
    view[k] = shape[k]
    return torch.arange(shape[k], dtype=torch.int64).view(view).expand(shape)


def fs_scatter(indices, shape, src):
    """Tensor.scatter indices trgtShp src (DeepNet Tensor.fs, FillScatter):
    trgt = zeros(trgtShp); trgt[j(p)] += src[p] for every source position p
    in row-major order, j(p)[k] = indices[k][p] (broadcast to src's shape)
    or p[k] where indices[k] is None."""
    fs_index_types(indices)
    if any(s < 0 for s in shape):
        fail("invalid_argument", "shape %s cannot have negative entries" % shape)
    S = list(src.shape)
    if len(indices) != len(shape):
        fail("invalid_argument", "For each dimension of the target an index tensor must be specified "
             "(%d indices, %d dimensions)." % (len(indices), len(shape)))
    if len(shape) < len(S):
        fail("invalid_argument", "List.skip: the target's %d dimensions are fewer than src's %d" % (len(shape), len(S)))
    for k in range(len(S), len(shape)):
        if indices[k] is None:
            fail("invalid_argument", "Index dimensions beyond the number of source dimensions must not be None "
                 "(indices[%d])." % k)
    for k, t in enumerate(indices):
        if t is not None and not broadcasts_to(list(t.shape), S):
            fail("shape_mismatch", "Cannot broadcast shape %s to shape %s (indices[%d])" % (list(t.shape), S, k))
    if src.dtype == torch.bool:
        fail("unsupported_dtype", "Tensor.scatter: the element type bool has no addition")
    check_output_size(shape)
    idx = [t.expand(S) if t is not None else positional(k, S) for k, t in enumerate(indices)]
    n = src.numel()
    flat = torch.zeros(n, dtype=torch.int64)
    if n:
        cols = torch.stack([i.reshape(-1) for i in idx], dim=1) if idx else torch.zeros(n, 0, dtype=torch.int64)
        lim = torch.tensor(shape, dtype=torch.int64)
        bad = ((cols < 0) | (cols >= lim)).any(dim=1)
        if bool(bad.any()):
            p = int(bad.nonzero()[0, 0])
            fail("index_out_of_range", "Position %s is out of range for tensor of shape %s." % (cols[p].tolist(), shape))
        for k in range(len(shape)):
            flat = flat * shape[k] + cols[:, k]
    trgt = torch.zeros(math.prod(shape), dtype=src.dtype)
    # One index_put_ with accumulate on the flattened target, on one
    # thread: PyTorch's CPU kernel then adds serially in the order of this
    # 1-d index, which is the row-major order of p, each step rounded in the
    # element type. (On several threads torch 1.13 splits a float32
    # accumulation of 32768 elements or more, and the sum then varies from
    # run to run.)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        trgt.index_put_((flat,), src.reshape(-1), accumulate=True)
    finally:
        torch.set_num_threads(threads)
    return trgt.reshape(shape)


def fs_gather(indices, src):
    """Tensor.gather indices src: trgt[i] = src[j(i)], j(i)[k] = indices[k][i]
    or i[k] where indices[k] is None; trgt's shape is the broadcast shape of
    the given indices."""
    fs_index_types(indices)
    given = [list(t.shape) for t in indices if t is not None]
    if not given:
        fail("invalid_argument", "At least one index tensor must not be None.")
    T = np_broadcast_shape(given)
    if T is None:
        fail("shape_mismatch", "Cannot broadcast shapes %s to same size" % given)
    S = list(src.shape)
    if len(indices) != len(S):
        fail("invalid_argument", "For each dimension of src an index tensor must be specified "
             "(%d indices, %d dimensions)." % (len(indices), len(S)))
    if len(T) > len(S):
        fail("invalid_argument", "List.skip: src's %d dimensions are fewer than the target's %d" % (len(S), len(T)))
    for k in range(len(T), len(S)):
        if indices[k] is None:
            fail("invalid_argument", "Index dimensions beyond the number of target dimensions must not be None "
                 "(indices[%d])." % k)
    check_output_size(T)
    idx = [t.expand(T) if t is not None else positional(k, T) for k, t in enumerate(indices)]
    n = math.prod(T)
    if n:
        cols = torch.stack([i.reshape(-1) for i in idx], dim=1)
        lim = torch.tensor(S, dtype=torch.int64)
        bad = ((cols < 0) | (cols >= lim)).any(dim=1)
        if bool(bad.any()):
            p = int(bad.nonzero()[0, 0])
            fail("index_out_of_range", "Position %s is out of range for tensor of shape %s." % (cols[p].tolist(), S))
    if n == 0:
        return torch.zeros(T, dtype=src.dtype)
    return src[tuple(idx)].reshape(T).clone()


# ---------------------------------------------------------------- the loop


def hello_answer(rid):
    # "strides": the strides extension (protocol/doc.go): tensors may come
    # as a view's strides and storage.
    name = "torch" if TS is None else "torch+torch_scatter-" + TS.__version__
    return {"id": rid, "protocol": PROTOCOL, "name": name, "version": torch.__version__,
            "ops": list(OPS), "dtypes": list(DTYPES), "deterministic": True, "strides": True}


def result_answer(rid, res):
    out, arg = res
    ans = {"id": rid, "out": encode_result(out)}
    if arg is not None:
        ans["arg"] = encode_result(arg)
    return ans


# ---------------------------------------------------------------- requests


def decode_field(v, key):
    """A tensor field of a request (Fields): torch_scatter writes into out,
    so out is never a strided view, whose elements may share memory."""
    t = decode_tensor(v, key)
    if key == "out" and not t.is_contiguous():
        t = t.contiguous()
    return t


def op_scatter(self, dim, index, src, value, reduce):
    kw = {} if reduce is None else {"reduce": reduce}
    return self.clone().scatter_(dim, index, value if src is None else src, **kw), None


# The calls by the protocol's op name (lines.operation reads their
# fields); each returns (out, arg or None). A call is out of place: the
# clone of self is part of it, in the timing too.
OPS = {
    "scatter": op_scatter,
    "scatter_add": lambda self, dim, index, src: (self.clone().scatter_add_(dim, index, src), None),
    "scatter_reduce": lambda self, dim, index, src, reduce, include_self: (
        self.clone().scatter_reduce_(dim, index, src, reduce, include_self=include_self), None),
    "index_reduce": lambda self, dim, index, source, reduce, include_self: (
        self.clone().index_reduce_(dim, index, source, reduce, include_self=include_self), None),
    "gather": lambda inp, dim, index: (torch.gather(inp, dim, index), None),
    "torch_scatter.scatter_add": lambda *args: (ts1_scatter_add(*args), None),
    "torch_scatter.scatter": ts2_scatter,
    "tensor.scatter": lambda *args: (fs_scatter(*args), None),
    "tensor.gather": lambda *args: (fs_gather(*args), None),
}


def prepare(req):
    """Decode a request once; return a function of no arguments that runs
    the call and returns (out, arg or None)."""
    fn, args = operation(req, decode_field, OPS)
    return lambda: fn(*args)


def run_guarded(fn):
    """Run fn, turning exceptions into AdapterError with their kind."""
    try:
        return fn()
    except AdapterError:
        raise
    except Exception as e:  # PyTorch's (and Python's) errors
        kind = kind_of(e)
        msg = "%s: %s" % (type(e).__name__, e)
        if kind is None:
            traceback.print_exc(file=sys.stderr)
            kind = "invalid_argument"
        raise AdapterError(kind, msg)


def bench_threads():
    """The intra-op threads of bench: SCATTER_TORCH_BENCH_THREADS, else one
    per CPU this process may use (PyTorch's own default where OpenMP does
    not cut it down; Debian's 1.13 starts with one), as
    optimized/testdata/bench_torch.py times it."""
    v = os.environ.get("SCATTER_TORCH_BENCH_THREADS")
    if v:
        try:
            if int(v) >= 1:
                return int(v)
        except ValueError:
            pass
        print("torch_adapter: ignoring SCATTER_TORCH_BENCH_THREADS=%r" % v, file=sys.stderr)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def bench(req):
    """The bench request: the call decoded once (prepare), then each run
    timed alone. A run is the out-of-place call: self.clone() and the
    in-place method, as the operation requests answer it (the Go backends
    allocate their output in every call too). Runs on bench_threads()
    threads; the operation requests keep PyTorch's setting, so that the
    gate sees the same results as before."""
    rep = req.get("repeat")
    if type(rep) is not int or rep < 1:
        fail("invalid_argument", "bench: repeat must be a positive integer, not %r" % (rep,))
    call = req.get("call")
    if not isinstance(call, dict) or call.get("op") not in OPS:
        fail("invalid_argument", "bench: call must be an operation request")
    fn = run_guarded(lambda: prepare(call))
    threads = torch.get_num_threads()
    torch.set_num_threads(bench_threads())
    try:
        secs = []
        for _ in range(rep):
            t0 = time.perf_counter()
            run_guarded(fn)
            secs.append(time.perf_counter() - t0)
    finally:
        torch.set_num_threads(threads)
    return secs


def handle(rid, req):
    op = req.get("op")
    if op == "hello":
        return hello_answer(rid)
    if op == "bench":
        return {"id": rid, "seconds": bench(req)}
    fn = run_guarded(lambda: prepare(req))
    return result_answer(rid, run_guarded(fn))


def check_numpy():
    """Tensors travel through numpy. A numpy that this torch was not built
    against (a user site's numpy 2 over Debian's torch 1.13, say) fails
    every call with "Numpy is not available": say so once, at start, and
    exit, instead of answering every call with that error."""
    try:
        torch.from_numpy(np.zeros(1, dtype=np.float32)).numpy()
    except Exception as e:  # noqa: BLE001 - any failure means the same
        sys.exit("torch_adapter: torch %s cannot use numpy %s from %s (%s: %s); "
                 "another numpy shadows the one torch was built with (a user site's is "
                 "ignored by python3 -s)" % (torch.__version__, np.__version__,
                                              os.path.dirname(np.__file__), type(e).__name__, e))


if __name__ == "__main__":
    check_numpy()
    serve(handle)
