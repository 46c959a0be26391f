#!/usr/bin/env python3
"""The JAX adapter: the implementation protocol (PROTOCOL.md, version 1)
answered with JAX on the CPU, 64-bit types on (jax_enable_x64).

    tools/adapters/install jax
    go run ./tools/scattercheck -allow-unsupported -xfail tools/adapters/xfail/jax.txt \\
        -impl "$HOME/.cache/scatter/frameworks/jax/bin/python tools/adapters/jax_adapter.py"

It needs jax, jaxlib, numpy and ml_dtypes (requirements/jax.txt). The
argument rules of each PyTorch call (dim range, index dtype, dtype match,
the shape rules, the reduce names, a scalar's conversion) are checked here,
as any implementation must; the arithmetic is JAX's own, one eager (not jitted)
call per request on jnp arrays:

| ours | JAX |
|---|---|
| scatter (src or value) | x.at[targets].set(values) |
| scatter reduce='add' / 'multiply' | x.at[targets].add / .multiply |
| scatter_add | x.at[targets].add(src) |
| scatter_reduce sum / prod / amax / amin | x.at[targets].add / .multiply / .max / .min |
| scatter_reduce include_self=False | x.at[targets].set(identity), then the reduction |
| gather | jnp.take_along_axis(input block, index, axis=dim) |

where targets is the index tuple of the dim-scatter mapping (for each
position p of index, p with p[dim] = index[p]).

Claimed: scatter, scatter_add, scatter_reduce, gather on all ten dtypes.
Not claimed: index_reduce, torch_scatter and the F# operations (JAX has no
such call; composing them here would test the adapter, not JAX).
Answered unsupported:
- scatter_reduce 'mean': JAX offers no scatter-mean (it would be a
  composition of add and a count);
- any call with an index value outside [0, size): PyTorch raises, JAX by
  design never does (.at[] wraps negative indices and drops one below
  -size, drops out-of-range scatter updates; take_along_axis, the
  gather here, fills out-of-range positions, where x[idx] and
  .at[idx].get() clamp); run the gate with
  -allow-unsupported. docs/conformance/README.md shows what JAX returns.

By-design differences from PyTorch (see docs/conformance/README.md and
xfail/jax.txt): the index handling above; plain scatter with duplicate
targets keeps whichever update XLA applies last (the conformant level
allows any of them).
"""

import numpy as np

from wire import PROTOCOL, DTYPES, fail, serve
from torchrules import as1d, scalar_to, scatter_checks, gather_checks, index_values, identity, dim_targets

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp  # noqa: E402

BAD_INDEX = ("index %d is outside [0, %d): PyTorch raises; JAX by design wraps a negative index, "
             "drops an out-of-range scatter update and fills an out-of-range take_along_axis gather")


def op_scatter(self, dim, index, src, value, reduce):
    dim = scatter_checks(self, dim, index, src)
    out = as1d(self)
    if index.size == 0:
        return self.copy()
    idx = as1d(index)
    index_values(idx, out.shape[dim], BAD_INDEX)
    tgt, pos = dim_targets(dim, idx)
    if src is not None:
        vals = as1d(src)[pos]
    else:
        vals = np.full(idx.shape, scalar_to(value, out.dtype), dtype=out.dtype)
    x, t, v = jnp.asarray(out), tuple(jnp.asarray(a) for a in tgt), jnp.asarray(vals)
    if reduce is None:
        r = x.at[t].set(v)
    elif reduce == "add":
        r = x.at[t].add(v)
    else:
        r = x.at[t].multiply(v)
    return np.asarray(r).reshape(self.shape)


def op_scatter_reduce(self, dim, index, src, reduce, include_self):
    dim = scatter_checks(self, dim, index, src)
    if reduce == "mean":
        fail("unsupported", "JAX offers no scatter-mean")
    out = as1d(self)
    if index.size == 0:
        return self.copy()
    idx = as1d(index)
    index_values(idx, out.shape[dim], BAD_INDEX)
    tgt, pos = dim_targets(dim, idx)
    x, t, v = jnp.asarray(out), tuple(jnp.asarray(a) for a in tgt), jnp.asarray(as1d(src)[pos])
    if not include_self:
        x = x.at[t].set(jnp.asarray(identity(reduce, out.dtype)))
    r = {"sum": x.at[t].add, "prod": x.at[t].multiply, "amax": x.at[t].max, "amin": x.at[t].min}[reduce](v)
    return np.asarray(r).reshape(self.shape)


def op_gather(inp, dim, index):
    dim = gather_checks(inp, dim, index)
    if index.size == 0:
        return np.zeros(index.shape, dtype=inp.dtype)
    a, i = as1d(inp), as1d(index)
    index_values(i, a.shape[dim], BAD_INDEX)
    block = a[tuple(slice(None) if d == dim else slice(0, i.shape[d]) for d in range(a.ndim))]
    r = jnp.take_along_axis(jnp.asarray(block), jnp.asarray(i), axis=dim)
    return np.asarray(r).reshape(index.shape)


def hello_answer(rid, ops):
    return {"id": rid, "protocol": PROTOCOL, "name": "jax", "version": "%s (jaxlib %s, cpu, x64)" % (
        jax.__version__, jax.lib.__version__ if hasattr(jax.lib, "__version__") else "?"),
        "ops": ops, "dtypes": list(DTYPES)}


def framework_error(e):
    if isinstance(e, TypeError) and "does not accept dtype" in str(e):
        return "unsupported", "JAX: %s" % str(e).splitlines()[0]
    return "invalid_argument", "JAX: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")


OPS = {"scatter": op_scatter,
       "scatter_reduce": op_scatter_reduce,
       "gather": op_gather}

if __name__ == "__main__":
    serve(hello_answer, OPS, framework_error)
