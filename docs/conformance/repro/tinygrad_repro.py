import os
os.environ.setdefault("DEV", "CPU")
import numpy as np
from tinygrad import Tensor, dtypes
def show(title, f):
    try:
        t = f()
        r = "%s %s" % (repr(t.numpy().tolist()), t.dtype)
    except Exception as e: r = "raises %s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:140])
    print("%-70s %s" % (title, r))
nan, inf = float("nan"), float("inf")
I = lambda *v: Tensor(np.array(v, np.int64))
B = lambda *v: Tensor(np.array(v, np.bool_))
show("bool [T,F].scatter_reduce(0, [0,0], [F,T], 'sum')", lambda: B(True, False).scatter_reduce(0, I(0, 0), B(False, True), "sum"))
show("bool [T,T].scatter_reduce(0, [0], [F], 'prod')", lambda: B(True, True).scatter_reduce(0, I(0), B(False), "prod"))
show("int8 [127,0].scatter_reduce(0, [0], [1], 'sum')", lambda: Tensor(np.array([127, 0], np.int8)).scatter_reduce(0, I(0), Tensor(np.array([1], np.int8)), "sum"))
show("uint8 [255,0].scatter_reduce(0, [0], [1], 'sum')", lambda: Tensor(np.array([255, 0], np.uint8)).scatter_reduce(0, I(0), Tensor(np.array([1], np.uint8)), "sum"))
show("int16 [0,0].scatter(0, [0], 5, reduce='add')", lambda: Tensor(np.array([0, 0], np.int16)).scatter(0, I(0), 5, reduce="add"))
show("int8 [1,2].scatter_reduce(0, [0], [3], 'amax')  (amax keeps it)", lambda: Tensor(np.array([1, 2], np.int8)).scatter_reduce(0, I(0), Tensor(np.array([3], np.int8)), "amax"))
show("int8 [1,2].gather(0, [1])  (gather keeps it)", lambda: Tensor(np.array([1, 2], np.int8)).gather(0, I(1)))
f32 = lambda *v: Tensor(np.array(v, np.float32))
show("float32 [1,-0.].scatter_reduce(0, [0], [2], 'sum')  (untouched -0.)", lambda: f32(1, -0.0).scatter_reduce(0, I(0), f32(2), "sum"))
show("float32 [1,-0.].scatter(0, [0], 2., reduce='add')", lambda: f32(1, -0.0).scatter(0, I(0), 2.0, reduce="add"))
show("float64 [[-0.,1,-0.,1]].scatter_reduce(1, [[1,3,1]], ones, 'mean', include_self=False)",
     lambda: Tensor(np.array([[-0.0, 1, -0.0, 1]])).scatter_reduce(1, Tensor(np.array([[1, 3, 1]])), Tensor(np.ones((1, 3))), "mean", include_self=False))
show("float32 [5].scatter_reduce(0, [0], [-0.], 'sum', include_self=False)", lambda: f32(5).scatter_reduce(0, I(0), f32(-0.0), "sum", include_self=False))
show("float32 [5].scatter_reduce(0, [0], [-0.], 'mean', include_self=False)", lambda: f32(5).scatter_reduce(0, I(0), f32(-0.0), "mean", include_self=False))
show("float32 [nan,1].scatter_reduce(0, [0], [7], 'amax')", lambda: f32(nan, 1).scatter_reduce(0, I(0), f32(7), "amax"))
show("float32 [1,1].scatter_reduce(0, [0,0], [nan,7], 'amax')", lambda: f32(1, 1).scatter_reduce(0, I(0, 0), f32(nan, 7), "amax"))
show("float32 [1,nan].scatter_reduce(0, [0], [2], 'amin')  (untouched nan)", lambda: f32(1, nan).scatter_reduce(0, I(0), f32(2), "amin"))
show("float32 [1,nan].scatter_reduce(0, [0], [2], 'amax')  (untouched nan)", lambda: f32(1, nan).scatter_reduce(0, I(0), f32(2), "amax"))
show("float32 [nan].maximum([7])  (tinygrad's own maximum)", lambda: f32(nan).maximum(f32(7)))
show("float32 [7].maximum([nan])", lambda: f32(7).maximum(f32(nan)))
show("float32 zeros(3).scatter(0, [3], [1])", lambda: Tensor.zeros(3).contiguous().scatter(0, I(3), f32(1)))
show("float32 zeros(3).scatter(0, [-1], [1])", lambda: Tensor.zeros(3).contiguous().scatter(0, I(-1), f32(1)))
show("float32 [1,2,3].gather(0, [3, -1])", lambda: f32(1, 2, 3).gather(0, I(3, -1)))
show("int64 [0,0].scatter_reduce(0, [0,0], [-3,-4], 'mean', include_self=False)", lambda: Tensor(np.array([0, 0], np.int64)).scatter_reduce(0, I(0, 0), Tensor(np.array([-3, -4], np.int64)), "mean", include_self=False))
# 16-bit sum and prod rounded twice: src's contributions reduced in float32 and rounded to the dtype,
# then self added (multiplied) and rounded again. PyTorch 2.14.1 (tools/torchenv/run sid) rounds once:
# 2054 and bfloat16 0xb36a (-5.448237061500549e-08); float16 2048 + 10 x 1 (no self rounding in the
# way) is 2058 in both.
f16 = lambda *v: Tensor(np.array(v, np.float16))
b16 = lambda *v: Tensor(np.array(v, np.float32)).cast(dtypes.bfloat16)
show("float16 [5].scatter_reduce(0, [0,0], [2048, 1.0009766], 'sum')  (torch 2: 2054)", lambda: f16(5).scatter_reduce(0, I(0, 0), f16(2048, 1.0009766), "sum"))
show("float16 [2048].scatter_reduce(0, [0]*10, ones, 'sum')  (torch 2: 2058)", lambda: f16(2048).scatter_reduce(0, I(*[0] * 10), f16(*[1] * 10), "sum"))
show("bfloat16 [10560].scatter_reduce(0, [0]*3, [-4, 1.106e26, 1.166e-38], 'prod') (bits; torch 2: 45930)",
     lambda: b16(10560).scatter_reduce(0, I(0, 0, 0), b16(-4.0, 1.1061671e+26, 1.1663108e-38), "prod").bitcast(dtypes.uint16))
import importlib.metadata
print("versions: tinygrad", importlib.metadata.version("tinygrad"), "device", Tensor([0]).device)
