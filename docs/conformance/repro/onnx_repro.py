import numpy as np, onnx, onnxruntime as ort
from onnx import helper, TensorProto as TP
from onnx.reference import ReferenceEvaluator
ort.set_default_logger_severity(4)
T={np.dtype('float16'):TP.FLOAT16, np.dtype('float32'):TP.FLOAT, np.dtype('int64'):TP.INT64, np.dtype('float64'):TP.DOUBLE}
def model(op, feeds, **attrs):
    vis=[helper.make_tensor_value_info(n, T[a.dtype], list(a.shape)) for n,a in feeds.items()]
    node=helper.make_node(op, list(feeds), ["y"], **attrs)
    g=helper.make_graph([node],"g",vis,[helper.make_tensor_value_info("y",T[next(iter(feeds.values())).dtype],None)])
    m=helper.make_model(g, opset_imports=[helper.make_opsetid("",18)]); m.ir_version=9; return m
def both(title, op, feeds, **attrs):
    m=model(op, feeds, **attrs)
    for name, f in [("onnxruntime", lambda: ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]),
                    ("onnx.reference", lambda: ReferenceEvaluator(m).run(None, feeds)[0])]:
        try: r=repr(f().tolist())
        except Exception as e: r="raises %s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:150])
        print("%-55s %-15s %s" % (title, name, r))
f32=lambda *v: np.array(v, np.float32); i64=lambda *v: np.array(v, np.int64)
both("max, NaN first: data [5,7] idx [0,0] upd [nan,1]", "ScatterElements", dict(data=f32(5,7), indices=i64(0,0), updates=f32(np.nan,1)), axis=0, reduction="max")
both("max, NaN last: data [5,7] idx [0,0] upd [1,nan]", "ScatterElements", dict(data=f32(5,7), indices=i64(0,0), updates=f32(1,np.nan)), axis=0, reduction="max")
both("max, NaN in data: data [nan,7] idx [0] upd [1]", "ScatterElements", dict(data=f32(np.nan,7), indices=i64(0), updates=f32(1)), axis=0, reduction="max")
both("min, NaN: data [5,7] idx [0,0] upd [nan,1]", "ScatterElements", dict(data=f32(5,7), indices=i64(0,0), updates=f32(np.nan,1)), axis=0, reduction="min")
both("negative index: data [0,0,0] idx [-1] upd [1]", "ScatterElements", dict(data=f32(0,0,0), indices=i64(-1), updates=f32(1)), axis=0)
both("index past the end: data [0,0,0] idx [3] upd [1]", "ScatterElements", dict(data=f32(0,0,0), indices=i64(3), updates=f32(1)), axis=0)
both("gather index == size: data [1,2,3] idx [3,0]", "GatherElements", dict(data=i64(1,2,3), indices=i64(3,0)), axis=0)
both("gather negative: data [1,2,3] idx [-1]", "GatherElements", dict(data=i64(1,2,3), indices=i64(-1)), axis=0)
both("gather, index narrower: data 2x3 idx [[2],[0]] axis 1", "GatherElements", dict(data=np.arange(6,dtype=np.int64).reshape(2,3), indices=np.array([[2],[0]],np.int64)), axis=1)
both("gather, index shorter on other dim: data 2x3 idx [[2,0,1]] axis 1", "GatherElements", dict(data=np.arange(6,dtype=np.int64).reshape(2,3), indices=np.array([[2,0,1]],np.int64)), axis=1)
both("gather along a dimension of 63: idx [62]", "GatherElements", dict(data=np.arange(63,dtype=np.int64), indices=i64(62)), axis=0)
both("gather along a dimension of 64: idx [63]", "GatherElements", dict(data=np.arange(64,dtype=np.int64), indices=i64(63)), axis=0)
both("gather, empty data [0,2] idx [[0,0]] axis 0", "GatherElements", dict(data=np.zeros((0,2),np.float32), indices=np.zeros((1,2),np.int64)), axis=0)
# 16-bit sums and products: onnx.reference rounds in float16 at every step; PyTorch 2.14.1
# (tools/torchenv/run sid) accumulates in float32 and rounds once: 2058 and -2250.
# (ONNX Runtime has no float16 add/mul ScatterElements kernel.)
f16=lambda *v: np.array(v, np.float16)
both("float16 add: data [2048] idx [0]*10 upd ones (torch 2: 2058)", "ScatterElements", dict(data=f16(2048), indices=i64(*[0]*10), updates=f16(*[1]*10)), axis=0, reduction="add")
both("float16 mul: data [1] idx [0,0,0] upd [8920,0.0149,-16.92] (torch 2: -2250)", "ScatterElements", dict(data=f16(1), indices=i64(0,0,0), updates=f16(8920, 0.0149002075, -16.921875)), axis=0, reduction="mul")
print("versions: onnxruntime", ort.__version__, "onnx", onnx.__version__)
