import subprocess, sys, warnings
warnings.simplefilter("ignore")
import numpy as np, paddle
paddle.set_device("cpu")
def show(title, f):
    try: r = repr(f().numpy().tolist())
    except Exception as e: r = "raises %s: %s" % (type(e).__name__, [l for l in str(e).strip().splitlines() if l.strip()][0][:140])
    print("%-66s %s" % (title, r))
T = lambda v, dt: paddle.to_tensor(np.array(v, dtype=dt))
i64 = lambda *v: T(list(v), np.int64)
f32 = lambda *v: T(list(v), np.float32)
nan = float("nan")
put = lambda a, i, v, red="assign", inc=True: paddle.put_along_axis(a, i, v, 0, red, include_self=inc, broadcast=False)
show("put_along_axis([1,1], [0,0], [nan,5], 'amax')", lambda: put(f32(1, 1), i64(0, 0), f32(nan, 5), "amax"))
show("put_along_axis([1,1], [0,0], [5,nan], 'amax')", lambda: put(f32(1, 1), i64(0, 0), f32(5, nan), "amax"))
show("put_along_axis([1,1], [0,0], [nan,-5], 'amin')", lambda: put(f32(1, 1), i64(0, 0), f32(nan, -5), "amin"))
show("put_along_axis([nan,1], [0], [1], 'amax')", lambda: put(f32(nan, 1), i64(0), f32(1), "amax"))
show("paddle.maximum(nan, 5.)  (Paddle's own maximum)", lambda: paddle.maximum(f32(nan), f32(5)))
show("put_along_axis([5], [0], [-0.], 'add', include_self=False)", lambda: put(f32(5), i64(0), f32(-0.0), "add", False))
show("put_along_axis([5], [0], [-0.], 'mean', include_self=False)", lambda: put(f32(5), i64(0), f32(-0.0), "mean", False))
show("take_along_axis(float32[0], [0], 0)", lambda: paddle.take_along_axis(paddle.zeros([0], "float32"), i64(0), 0, broadcast=False))
show("take_along_axis(int64[0], [0, 0, 0], 0)", lambda: paddle.take_along_axis(paddle.zeros([0], "int64"), i64(0, 0, 0), 0, broadcast=False))
show("take_along_axis(float32[2,0], [[0],[0]], 1)", lambda: paddle.take_along_axis(paddle.zeros([2, 0], "float32"), T([[0], [0]], np.int64), 1, broadcast=False))
show("take_along_axis([1,2,3], [3], 0)  (past the end of a non-empty one)", lambda: paddle.take_along_axis(f32(1, 2, 3), i64(3), 0, broadcast=False))
show("take_along_axis([1,2,3], [-1], 0)", lambda: paddle.take_along_axis(f32(1, 2, 3), i64(-1), 0, broadcast=False))
show("put_along_axis([0,0,0], [-1], [1])", lambda: put(f32(0, 0, 0), i64(-1), f32(1)))
show("put_along_axis([0,0,0], [3], [1])", lambda: put(f32(0, 0, 0), i64(3), f32(1)))
show("put_along_axis(float32[2,3], [[2]], [[5]], 1)  (index narrower)", lambda: paddle.put_along_axis(paddle.zeros([2, 3]), T([[2]], np.int64), f32([5]).reshape([1, 1]), 1, broadcast=False))
show("put_along_axis(uint8 [10], [0]*255, [4]*255, 'mean', include_self=False)", lambda: put(T([10], np.uint8), T([0] * 255, np.int64), T([4] * 255, np.uint8), "mean", False))
show("put_along_axis(uint8 [10], [0]*256, [4]*256, 'mean', include_self=True)", lambda: put(T([10], np.uint8), T([0] * 256, np.int64), T([4] * 256, np.uint8), "mean", True))
# a count of 256 in uint8 is 0: the kernel divides by it; run in a child, which SIGFPE ends
child = ("import numpy as np, paddle; paddle.put_along_axis(paddle.to_tensor(np.array([10], np.uint8)), "
         "paddle.to_tensor(np.zeros(256, np.int64)), paddle.to_tensor(np.full(256, 4, np.uint8)), 0, 'mean', "
         "include_self=False, broadcast=False)")
p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
print("%-66s %s" % ("put_along_axis(uint8 [10], [0]*256, [4]*256, 'mean', include_self=False)",
                    "process ends with exit status %d%s" % (p.returncode, " (SIGFPE)" if "SIGFPE" in p.stdout + p.stderr else "")))
for dt in ("bool", "int8", "float16", "bfloat16"):
    show("%s put_along_axis([0,0], [1], [1], 'add')" % dt, lambda: put(paddle.zeros([2], dt), i64(1), paddle.ones([1], dt), "add"))
print("versions: paddle", paddle.__version__)
