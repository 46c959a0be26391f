import jax
jax.config.update("jax_enable_x64", True); jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp, numpy as np
def show(title, f):
    try: r = repr(np.asarray(f()).tolist())
    except Exception as e: r = "raises %s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:140])
    print("%-62s %s" % (title, r))
i = lambda *v: jnp.array(v, jnp.int64)
show("zeros(3).at[[-1]].set(1.)", lambda: jnp.zeros(3).at[i(-1)].set(1.))
show("zeros(3).at[[3]].add(1.)", lambda: jnp.zeros(3).at[i(3)].add(1.))
show("take_along_axis([1,2,3], [3,0])", lambda: jnp.take_along_axis(jnp.array([1,2,3]), i(3,0), axis=0))
show("take_along_axis([1.,2.,3.], [3,0])", lambda: jnp.take_along_axis(jnp.array([1.,2.,3.]), i(3,0), axis=0))
show("take_along_axis([1,2,3], [-1])", lambda: jnp.take_along_axis(jnp.array([1,2,3]), i(-1), axis=0))
show("bool zeros(2).at[[0,0]].add([True,True])", lambda: jnp.zeros(2, bool).at[i(0,0)].add(jnp.array([True,True])))
show("float32 [0.].at[[0]].max([1e-45])", lambda: jnp.zeros(1, jnp.float32).at[i(0)].max(jnp.array([1e-45], jnp.float32)))
show("float32 [0.].at[[0]].min([-1e-45])", lambda: jnp.zeros(1, jnp.float32).at[i(0)].min(jnp.array([-1e-45], jnp.float32)))
show("float32 [0.].at[[0]].set([1e-45])", lambda: jnp.zeros(1, jnp.float32).at[i(0)].set(jnp.array([1e-45], jnp.float32)))
show("float32 [0.].at[[0]].add([1e-45])", lambda: jnp.zeros(1, jnp.float32).at[i(0)].add(jnp.array([1e-45], jnp.float32)))
show("float64 [0.].at[[0]].max([5e-324])", lambda: jnp.zeros(1, jnp.float64).at[i(0)].max(jnp.array([5e-324])))
show("bfloat16 [0.].at[[0,0]].add([2^-133, 2^-133]) (bits)", lambda: jnp.zeros(1, jnp.bfloat16).at[i(0,0)].add(jnp.array([2.0**-133]*2, jnp.bfloat16)).view(jnp.uint16))
# 16-bit sums and products rounded at every step (XLA computes in the dtype);
# PyTorch 2.14.1 (tools/torchenv/run sid) accumulates in float32 and rounds once:
# float16 2048 + 10 x 1 is 2058, bfloat16 256 + 10 x 1 is 266, the float16
# product 8920 * 0.0149002075 * -16.921875 is -2250.
f16 = lambda *v: jnp.array(v, jnp.float16); b16 = lambda *v: jnp.array(v, jnp.bfloat16)
show("float16 [2048.].at[[0]*10].add(ones)  (torch 2: 2058)", lambda: f16(2048).at[i(*[0]*10)].add(f16(*[1]*10)))
show("bfloat16 [256.].at[[0]*10].add(ones)  (torch 2: 266)", lambda: b16(256).at[i(*[0]*10)].add(b16(*[1]*10)).astype(jnp.float32))
show("float16 [1.].at[[0,0,0]].multiply([8920, 0.0149, -16.92])  (torch 2: -2250)", lambda: f16(1).at[i(0,0,0)].multiply(f16(8920, 0.0149002075, -16.921875)))
# a subnormal product flushed: PyTorch 2.14.1 gives -3.783505853677006e-44
show("float32 [-4e-45].at[[0,0]].multiply([3, 3])  (torch: -3.78e-44)", lambda: jnp.array([-4e-45], jnp.float32).at[i(0,0)].multiply(jnp.array([3, 3], jnp.float32)))
print("versions: jax", jax.__version__)
