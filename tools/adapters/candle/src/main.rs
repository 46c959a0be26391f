//! candle-scatter: the implementation protocol of the scatter conformance
//! suite (PROTOCOL.md, version 1) answered with candle-core on the CPU.
//!
//!     tools/adapters/install candle      # builds it; prints the binary's path
//!     scattercheck -allow-unsupported -xfail tools/adapters/xfail/candle.txt -impl BINARY
//!
//! One JSON request a line on standard input, one answer a line on
//! standard output. The argument rules of each PyTorch call (the dim range,
//! the index dtype, the dtype match, the shape rules, the reduce names, a
//! scalar's checked conversion) are checked here, as any implementation
//! must; the arithmetic and the indexing are candle's own:
//!
//! | ours | candle-core |
//! |---|---|
//! | `scatter` with `src` | `Tensor::scatter(index, src, dim)` |
//! | `scatter` with `value` | `Tensor::scatter` of `value` broadcast to the index's shape |
//! | `scatter` reduce `add`, `scatter_add`, `scatter_reduce` `sum` | `Tensor::scatter_add(index, src, dim)` |
//! | `scatter_reduce` `sum`, `include_self=false` | `Tensor::scatter` of zeros, then `Tensor::scatter_add` |
//! | `gather` | `Tensor::gather(index, dim)` |
//!
//! tools/adapters/candle/README.md has the whole mapping, what is claimed
//! and answered `unsupported`, and the differences found.

use std::io::{BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use candle_core::{DType, Device, Tensor};
use half::{bf16, f16};
use serde_json::{json, Map, Value};

/// candle-core's version, read from Cargo.lock by build.rs.
const CANDLE_VERSION: &str = env!("CANDLE_VERSION");

const PROTOCOL: i64 = 1;

/// The most elements one tensor may have (SCATTER_ADAPTER_MAX_ELEMS), so
/// that a request cannot make the adapter allocate without bound.
const DEFAULT_MAX_ELEMS: usize = 1 << 26;

/// The dtypes claimed: those candle-core has among the protocol's.
/// candle has no bool and no int8 (it has u32, which the protocol lacks).
const CLAIMED: [WireType; 8] = [
    WireType::U8,
    WireType::I16,
    WireType::I32,
    WireType::I64,
    WireType::F16,
    WireType::BF16,
    WireType::F32,
    WireType::F64,
];

// ------------------------------------------------------------- rejections

/// A call that is not answered with a tensor: a protocol error of a kind,
/// or `unsupported`.
#[derive(Debug)]
enum Fail {
    Error(&'static str, String),
    Unsupported(String),
}

type R<T> = Result<T, Fail>;

fn err<T>(kind: &'static str, message: impl Into<String>) -> R<T> {
    Err(Fail::Error(kind, message.into()))
}

fn unsupported<T>(message: impl Into<String>) -> R<T> {
    Err(Fail::Unsupported(message.into()))
}

/// A candle error as the protocol's kind. The adapter checks PyTorch's
/// argument rules before it calls candle, so the only errors candle is
/// expected to raise are its own index checks (`InvalidIndex`); the others
/// are mapped for completeness.
fn candle_fail(e: candle_core::Error) -> Fail {
    let mut inner = &e;
    while let candle_core::Error::WithBacktrace { inner: i, .. }
    | candle_core::Error::WithPath { inner: i, .. }
    | candle_core::Error::Context { inner: i, .. } = inner
    {
        inner = i;
    }
    let kind = match inner {
        candle_core::Error::InvalidIndex { .. } => "index_out_of_range",
        candle_core::Error::DimOutOfRange { .. } => "dim_out_of_range",
        candle_core::Error::ShapeMismatchBinaryOp { .. } => "shape_mismatch",
        candle_core::Error::DTypeMismatchBinaryOp { .. } => "dtype_mismatch",
        candle_core::Error::UnsupportedDTypeForOp(..) => "unsupported_dtype",
        _ => "invalid_argument",
    };
    let text = inner.to_string();
    Fail::Error(
        kind,
        format!("candle: {}", text.lines().next().unwrap_or("")),
    )
}

// ---------------------------------------------------------------- tensors

/// The protocol's dtypes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WireType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

impl WireType {
    fn parse(s: &str) -> Option<WireType> {
        Some(match s {
            "bool" => WireType::Bool,
            "uint8" => WireType::U8,
            "int8" => WireType::I8,
            "int16" => WireType::I16,
            "int32" => WireType::I32,
            "int64" => WireType::I64,
            "float16" => WireType::F16,
            "bfloat16" => WireType::BF16,
            "float32" => WireType::F32,
            "float64" => WireType::F64,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            WireType::Bool => "bool",
            WireType::U8 => "uint8",
            WireType::I8 => "int8",
            WireType::I16 => "int16",
            WireType::I32 => "int32",
            WireType::I64 => "int64",
            WireType::F16 => "float16",
            WireType::BF16 => "bfloat16",
            WireType::F32 => "float32",
            WireType::F64 => "float64",
        }
    }

    fn size(self) -> usize {
        match self {
            WireType::Bool | WireType::U8 | WireType::I8 => 1,
            WireType::I16 | WireType::F16 | WireType::BF16 => 2,
            WireType::I32 | WireType::F32 => 4,
            WireType::I64 | WireType::F64 => 8,
        }
    }

    /// candle's dtype, None where candle has none.
    fn candle(self) -> Option<DType> {
        Some(match self {
            WireType::U8 => DType::U8,
            WireType::I16 => DType::I16,
            WireType::I32 => DType::I32,
            WireType::I64 => DType::I64,
            WireType::F16 => DType::F16,
            WireType::BF16 => DType::BF16,
            WireType::F32 => DType::F32,
            WireType::F64 => DType::F64,
            WireType::Bool | WireType::I8 => return None,
        })
    }

    fn of(dt: DType) -> Option<WireType> {
        CLAIMED.iter().copied().find(|w| w.candle() == Some(dt))
    }

    fn is_float(self) -> bool {
        matches!(
            self,
            WireType::F16 | WireType::BF16 | WireType::F32 | WireType::F64
        )
    }
}

/// A decoded protocol tensor: contiguous, row-major, little-endian bytes.
#[derive(Clone, Debug)]
struct Wire {
    dt: WireType,
    shape: Vec<usize>,
    raw: Vec<u8>,
}

impl Wire {
    fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The shape with a 0-d tensor seen as [1] (PyTorch's scatter and
    /// gather treat a 0-d tensor as 1-d).
    fn shape1(&self) -> Vec<usize> {
        if self.shape.is_empty() {
            vec![1]
        } else {
            self.shape.clone()
        }
    }

    /// The index values as i64 (an int32 index widened), or None for a
    /// dtype that is not an index dtype.
    fn index_values(&self) -> Option<Vec<i64>> {
        match self.dt {
            WireType::I64 => Some(
                self.raw
                    .chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                    .collect(),
            ),
            WireType::I32 => Some(
                self.raw
                    .chunks_exact(4)
                    .map(|c| i32::from_le_bytes(c.try_into().unwrap()) as i64)
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The candle tensor of this data, of shape shape1().
    fn to_candle(&self, name: &str) -> R<Tensor> {
        let shape = self.shape1();
        let raw = &self.raw;
        let dev = &Device::Cpu;
        let t = match self.dt {
            WireType::U8 => Tensor::from_vec(raw.clone(), shape, dev),
            WireType::I16 => Tensor::from_vec(le(raw, i16::from_le_bytes), shape, dev),
            WireType::I32 => Tensor::from_vec(le(raw, i32::from_le_bytes), shape, dev),
            WireType::I64 => Tensor::from_vec(le(raw, i64::from_le_bytes), shape, dev),
            WireType::F16 => Tensor::from_vec(
                le(raw, |b: [u8; 2]| f16::from_bits(u16::from_le_bytes(b))),
                shape,
                dev,
            ),
            WireType::BF16 => Tensor::from_vec(
                le(raw, |b: [u8; 2]| bf16::from_bits(u16::from_le_bytes(b))),
                shape,
                dev,
            ),
            WireType::F32 => Tensor::from_vec(le(raw, f32::from_le_bytes), shape, dev),
            WireType::F64 => Tensor::from_vec(le(raw, f64::from_le_bytes), shape, dev),
            WireType::Bool | WireType::I8 => {
                return unsupported(format!(
                    "{name}: candle-core has no {} dtype",
                    self.dt.name()
                ))
            }
        };
        t.map_err(candle_fail)
    }

    /// The wire form of candle tensor t (any layout), given the shape the
    /// answer has.
    fn from_candle(t: &Tensor, shape: Vec<usize>) -> R<Wire> {
        let dt = match WireType::of(t.dtype()) {
            Some(dt) => dt,
            None => return err("invalid_argument", format!("result dtype {:?}", t.dtype())),
        };
        let flat = t.flatten_all().map_err(candle_fail)?;
        let raw: Vec<u8> = match dt {
            WireType::U8 => flat.to_vec1::<u8>().map_err(candle_fail)?,
            WireType::I16 => bytes(flat.to_vec1::<i16>(), i16::to_le_bytes)?,
            WireType::I32 => bytes(flat.to_vec1::<i32>(), i32::to_le_bytes)?,
            WireType::I64 => bytes(flat.to_vec1::<i64>(), i64::to_le_bytes)?,
            WireType::F16 => bytes(flat.to_vec1::<f16>(), |v| v.to_bits().to_le_bytes())?,
            WireType::BF16 => bytes(flat.to_vec1::<bf16>(), |v| v.to_bits().to_le_bytes())?,
            WireType::F32 => bytes(flat.to_vec1::<f32>(), f32::to_le_bytes)?,
            WireType::F64 => bytes(flat.to_vec1::<f64>(), f64::to_le_bytes)?,
            WireType::Bool | WireType::I8 => unreachable!("not a candle dtype"),
        };
        let w = Wire { dt, shape, raw };
        if w.raw.len() != w.numel() * dt.size() {
            return err("invalid_argument", "result size differs from its shape");
        }
        Ok(w)
    }

    fn encode(&self) -> Value {
        json!({"dtype": self.dt.name(), "shape": self.shape, "data": B64.encode(&self.raw)})
    }
}

/// The little-endian elements of raw, each decoded by f.
fn le<T, const N: usize>(raw: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
    raw.chunks_exact(N)
        .map(|c| f(c.try_into().unwrap()))
        .collect()
}

/// The little-endian bytes of v's elements.
fn bytes<T, const N: usize>(
    v: candle_core::Result<Vec<T>>,
    f: impl Fn(T) -> [u8; N],
) -> R<Vec<u8>> {
    Ok(v.map_err(candle_fail)?.into_iter().flat_map(f).collect())
}

fn max_elems() -> usize {
    std::env::var("SCATTER_ADAPTER_MAX_ELEMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_MAX_ELEMS)
}

fn decode_tensor(v: &Value, name: &str) -> R<Wire> {
    let obj = match v.as_object() {
        Some(o) => o,
        None => {
            return err(
                "invalid_argument",
                format!("{name}: a tensor is an object with dtype, shape and data"),
            )
        }
    };
    let dt = match obj
        .get("dtype")
        .and_then(Value::as_str)
        .and_then(WireType::parse)
    {
        Some(dt) => dt,
        None => return err("invalid_argument", format!("{name}: unknown dtype")),
    };
    let shape_v = match obj.get("shape").and_then(Value::as_array) {
        Some(s) if s.len() <= 64 => s,
        _ => return err("invalid_argument", format!("{name}: shape is not a list")),
    };
    let mut shape = Vec::with_capacity(shape_v.len());
    let mut n: usize = 1;
    for s in shape_v {
        let d = match s.as_u64().and_then(|d| usize::try_from(d).ok()) {
            Some(d) => d,
            None => {
                return err(
                    "invalid_argument",
                    format!("{name}: shape {shape_v:?} is not a list of non-negative integers"),
                )
            }
        };
        n = n.saturating_mul(d);
        shape.push(d);
    }
    if matches!(obj.get("strides"), Some(s) if !s.is_null()) {
        return err(
            "invalid_argument",
            format!("{name}: strides were not claimed"),
        );
    }
    let limit = max_elems();
    if n > limit {
        return unsupported(format!(
            "{name}: the adapter does not take a tensor of more than {limit} elements"
        ));
    }
    let data = match obj.get("data") {
        None => "",
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return err("invalid_argument", format!("{name}: data is not a string")),
    };
    let raw = match B64.decode(data) {
        Ok(r) => r,
        Err(e) => return err("invalid_argument", format!("{name}: malformed base64: {e}")),
    };
    let want = n * dt.size();
    if raw.len() != want {
        return err(
            "invalid_argument",
            format!(
                "{name}: {} bytes of data, shape {shape:?} of {} needs {want}",
                raw.len(),
                dt.name()
            ),
        );
    }
    if dt == WireType::Bool && raw.iter().any(|&b| b > 1) {
        return err(
            "invalid_argument",
            format!("{name}: a bool byte is not 0 or 1"),
        );
    }
    Ok(Wire { dt, shape, raw })
}

// ---------------------------------------------------------------- scalars

/// A protocol scalar: a JSON integer, a JSON number with a fraction or an
/// exponent, "nan", "inf", "-inf", or (the Go codec's extension) a bool.
#[derive(Clone, Copy, Debug)]
enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

fn decode_scalar(v: &Value, name: &str) -> R<Scalar> {
    match v {
        Value::Bool(b) => Ok(Scalar::Bool(*b)),
        Value::Number(n) => {
            if n.is_f64() {
                Ok(Scalar::Float(n.as_f64().unwrap()))
            } else if let Some(i) = n.as_i64() {
                Ok(Scalar::Int(i))
            } else {
                err("invalid_argument", format!("{name}: {n} is outside int64"))
            }
        }
        Value::String(s) if s == "nan" => Ok(Scalar::Float(f64::NAN)),
        Value::String(s) if s == "inf" => Ok(Scalar::Float(f64::INFINITY)),
        Value::String(s) if s == "-inf" => Ok(Scalar::Float(f64::NEG_INFINITY)),
        _ => err(
            "invalid_argument",
            format!("{name}: {v} is not a number, \"nan\", \"inf\" or \"-inf\""),
        ),
    }
}

/// numeric_limits<T>::lowest() and max() as doubles.
fn dtype_range(dt: WireType) -> (f64, f64) {
    match dt {
        WireType::Bool => (0.0, 1.0),
        WireType::U8 => (0.0, 255.0),
        WireType::I8 => (-128.0, 127.0),
        WireType::I16 => (i16::MIN as f64, i16::MAX as f64),
        WireType::I32 => (i32::MIN as f64, i32::MAX as f64),
        WireType::I64 => (i64::MIN as f64, i64::MAX as f64),
        WireType::F16 => (-65504.0, 65504.0),
        WireType::BF16 => (-bf16::MAX.to_f64(), bf16::MAX.to_f64()),
        WireType::F32 => (f32::MIN as f64, f32::MAX as f64),
        WireType::F64 => (f64::MIN, f64::MAX),
    }
}

/// Whether integer i is inside the integer dtype's range exactly.
fn int_fits(i: i64, dt: WireType) -> bool {
    match dt {
        WireType::I8 => i8::try_from(i).is_ok(),
        WireType::I16 => i16::try_from(i).is_ok(),
        WireType::I32 => i32::try_from(i).is_ok(),
        _ => true,
    }
}

/// c10's checked `Scalar::to<T>()` as PyTorch 2 (2.8 and later) does it,
/// the conversion of scatter's `value` (candle never sees the scalar: it
/// gets a tensor filled with the converted value). It fails with
/// value_overflow: from an int, outside [lowest, max], except that uint8
/// takes negative ints down to -255 (they wrap: -1 is 255); from a float,
/// NaN into an integer dtype, a finite value outside [lowest, max] for a
/// float dtype (float16 70000.0 fails, it does not round to inf), outside
/// the half-open [lowest, max + 1) for an integer dtype; +-inf is fine
/// into a float dtype. The conversion: float to integer truncates toward
/// zero; to float16 and bfloat16 it rounds to float32 first, then to
/// nearest even; a bool is 0 or 1. Returns the element's little-endian
/// bytes.
fn convert_scalar(s: Scalar, dt: WireType) -> R<Vec<u8>> {
    let (lo, hi) = dtype_range(dt);
    let overflows = match s {
        Scalar::Bool(_) => false,
        _ if dt == WireType::Bool => false,
        Scalar::Float(f) => {
            if f.is_infinite() && dt.is_float() {
                false
            } else if f.is_nan() {
                !dt.is_float()
            } else if !dt.is_float() {
                f < lo || f >= hi + 1.0
            } else {
                f < lo || f > hi
            }
        }
        Scalar::Int(i) => {
            if dt == WireType::U8 {
                (i as f64) > hi || (i < 0 && -(i as f64) > hi)
            } else if !dt.is_float() {
                (i as f64) < lo || (i as f64) > hi || !int_fits(i, dt)
            } else {
                (i as f64) < lo || (i as f64) > hi
            }
        }
    };
    if overflows {
        return err(
            "value_overflow",
            format!(
                "value cannot be converted to type {} without overflow",
                dt.name()
            ),
        );
    }
    let as_f64 = match s {
        Scalar::Bool(b) => b as i64 as f64,
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    };
    let as_i64 = match s {
        Scalar::Bool(b) => b as i64,
        Scalar::Int(i) => i,
        Scalar::Float(f) => f.trunc() as i64,
    };
    // A 16-bit float is made from a float: an int64 or a double rounds to
    // float32 first.
    let as_f32 = match s {
        Scalar::Int(i) => i as f32,
        _ => as_f64 as f32,
    };
    Ok(match dt {
        WireType::Bool => vec![(as_f64 != 0.0) as u8],
        WireType::U8 => vec![as_i64 as u8],
        WireType::I8 => (as_i64 as i8).to_le_bytes().to_vec(),
        WireType::I16 => (as_i64 as i16).to_le_bytes().to_vec(),
        WireType::I32 => (as_i64 as i32).to_le_bytes().to_vec(),
        WireType::I64 => as_i64.to_le_bytes().to_vec(),
        WireType::F16 => f16::from_f32(as_f32).to_bits().to_le_bytes().to_vec(),
        WireType::BF16 => bf16::from_f32(as_f32).to_bits().to_le_bytes().to_vec(),
        WireType::F32 => as_f32.to_le_bytes().to_vec(),
        WireType::F64 => as_f64.to_le_bytes().to_vec(),
    })
}

// ---------------------------------- PyTorch's argument rules (not values)

/// maybe_wrap_dim: a 0-d tensor counts as 1-d.
fn wrap_dim(dim: i64, ndim: usize) -> R<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return err(
            "dim_out_of_range",
            format!(
                "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
                -n,
                n - 1
            ),
        );
    }
    Ok(if dim < 0 { dim + n } else { dim } as usize)
}

fn is_index_dtype(dt: WireType) -> bool {
    dt == WireType::I64 || dt == WireType::I32
}

/// scatter_meta_impl's checks, in PyTorch's order (SEMANTICS.md 1.3): the
/// dim, the index dtype (PyTorch 2 takes int32 and int64), src's dtype,
/// then scatter_shape_check unless the index is empty. The reduce name is
/// validated after them, by the caller of each op.
fn scatter_checks(s: &Wire, dim: i64, index: &Wire, src: Option<&Wire>) -> R<usize> {
    let dim = wrap_dim(dim, s.ndim())?;
    if index.numel() > 0 && !is_index_dtype(index.dt) {
        return err(
            "index_dtype",
            "scatter(): Expected dtype int32/int64 for index",
        );
    }
    if let Some(src) = src {
        if src.dt != s.dt {
            return err(
                "dtype_mismatch",
                "scatter(): Expected self.dtype to be equal to src.dtype",
            );
        }
    }
    if index.numel() == 0 {
        return Ok(dim);
    }
    let (ss, is) = (s.shape1(), index.shape1());
    if ss.len() != is.len() {
        return err(
            "shape_mismatch",
            "Index tensor must have the same number of dimensions as self tensor",
        );
    }
    // ensure_nonempty_size: a 0-d tensor has size 1 along dimension 0.
    let mut wrong = (0..ss.len()).any(|d| d != dim && is[d] > ss[d]);
    if let Some(src) = src {
        if !wrong {
            // PyTorch reads src.size(d) before it checks src's rank: a src
            // of fewer dimensions (not 0-d) raises IndexError there.
            let rs = src.shape1();
            for d in 0..ss.len() {
                if d >= rs.len() {
                    return err(
                        "dim_out_of_range",
                        format!(
                            "Dimension out of range (expected to be in range of [{}, {}], but got {d})",
                            -(rs.len() as i64),
                            rs.len() as i64 - 1
                        ),
                    );
                }
                if is[d] > rs[d] {
                    wrong = true;
                    break;
                }
            }
        }
        if src.shape1().len() != is.len() {
            return err(
                "shape_mismatch",
                "Index tensor must have the same number of dimensions as src tensor",
            );
        }
    }
    if wrong {
        return err(
            "shape_mismatch",
            format!(
                "Expected index {:?} to be no larger than self {:?} apart from dimension {dim}{}",
                index.shape,
                s.shape,
                src.map_or(String::new(), |r| format!(
                    " and to be no larger size than src {:?}",
                    r.shape
                ))
            ),
        );
    }
    Ok(dim)
}

/// gather's checks (gather_meta, gather_shape_check).
fn gather_checks(input: &Wire, dim: i64, index: &Wire) -> R<usize> {
    let dim = wrap_dim(dim, input.ndim())?;
    if index.numel() == 0 {
        return Ok(dim);
    }
    if !is_index_dtype(index.dt) {
        return err(
            "index_dtype",
            "gather(): Expected dtype int32/int64 for index",
        );
    }
    let (a, i) = (input.shape1(), index.shape1());
    if a.len() != i.len() {
        return err(
            "shape_mismatch",
            "Index tensor must have the same number of dimensions as input tensor",
        );
    }
    for d in 0..a.len() {
        if d != dim && i[d] > a[d] {
            return err(
                "shape_mismatch",
                format!(
                    "Size does not match at dimension {d} expected index {:?} to be smaller than self {:?} apart from dimension {dim}",
                    index.shape, input.shape
                ),
            );
        }
    }
    Ok(dim)
}

/// The index as candle's i64 tensor (an int32 index is widened; candle's
/// scatter and gather take u8, u32 and i64 ids). candle's CPU kernels skip
/// an id equal to the id type's maximum (i64::MAX), a padding id by design:
/// scatter leaves the target alone and gather writes 0 where PyTorch
/// raises for an index out of range, so such a call is answered
/// unsupported. Every other id outside [0, size) is left to candle, which
/// rejects it (InvalidIndex: index_out_of_range).
fn index_tensor(index: &Wire, size: usize) -> R<Tensor> {
    let vals = index.index_values().expect("an index dtype");
    if vals.contains(&i64::MAX) {
        return unsupported(format!(
            "index {} is outside [0, {size}): PyTorch raises; candle-core skips an id equal to \
             i64::MAX by design (scatter leaves the target unchanged, gather gives 0)",
            i64::MAX
        ));
    }
    Tensor::from_vec(vals, index.shape1(), &Device::Cpu).map_err(candle_fail)
}

// ---------------------------------------------------------------- the ops

/// What a request becomes once decoded and checked: an answer known
/// without candle (an empty index), or a candle call to run.
enum Plan {
    Ready(Wire),
    Call {
        run: Box<dyn Fn() -> candle_core::Result<Tensor>>,
        shape: Vec<usize>,
    },
}

impl Plan {
    fn execute(&self) -> R<Wire> {
        match self {
            Plan::Ready(w) => Ok(w.clone()),
            Plan::Call { run, shape } => {
                let t = run().map_err(candle_fail)?;
                Wire::from_candle(&t, shape.clone())
            }
        }
    }
}

/// candle's scatter functions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Update {
    /// `Tensor::scatter`: each target takes the value (the last one written
    /// among duplicates).
    Set,
    /// `Tensor::scatter_add`: each target adds its values, in increasing
    /// position along dim.
    Add,
    /// `Tensor::scatter` of zeros, then `Tensor::scatter_add`: the sum of
    /// the values without the target's own (include_self=false).
    AddExcludingSelf,
}

/// The dim-scatter of src into self along dim with candle:
///
/// ```text
/// self[i][index[i][j][k]][k] = src[i][j][k]   (dim 1; Set; Add: +=)
/// ```
///
/// for every position of index. candle wants index and src of the same
/// shape, and self of src's shape apart from dim, where PyTorch takes an
/// index no larger than src, and no larger than self apart from dim. So
/// src is narrowed to the index's shape (Tensor::narrow), and where the
/// index is smaller than self apart from dim, the scatter runs on the
/// block of self it reaches (Tensor::narrow), which is then written back
/// into self (Tensor::slice_scatter). Both are candle calls: the elements
/// PyTorch reads and writes are exactly those candle is given.
fn scatter_plan(s: &Wire, dim: usize, index: &Wire, src: Tensor, how: Update) -> R<Plan> {
    let st = s.to_candle("self")?;
    let ss = s.shape1();
    let is = index.shape1();
    let it = index_tensor(index, ss[dim])?;
    let mut src = src;
    for (d, &n) in is.iter().enumerate() {
        if src.dims()[d] != n {
            src = src.narrow(d, 0, n).map_err(candle_fail)?;
        }
    }
    let src = src.contiguous().map_err(candle_fail)?;
    let smaller: Vec<usize> = (0..ss.len())
        .filter(|&d| d != dim && is[d] < ss[d])
        .collect();
    let run = move || -> candle_core::Result<Tensor> {
        let mut block = st.clone();
        for &d in &smaller {
            block = block.narrow(d, 0, is[d])?;
        }
        let block = match how {
            Update::Set => block.scatter(&it, &src, dim)?,
            Update::Add => block.scatter_add(&it, &src, dim)?,
            Update::AddExcludingSelf => block
                .scatter(&it, &src.zeros_like()?, dim)?
                .scatter_add(&it, &src, dim)?,
        };
        if smaller.is_empty() {
            Ok(block)
        } else {
            put_block(&st, &block, &smaller)
        }
    };
    Ok(Plan::Call {
        run: Box::new(run),
        shape: s.shape.clone(),
    })
}

/// t with block written at its origin: block has t's sizes except along
/// dims, where it is smaller (nested Tensor::slice_scatter, one dim each).
fn put_block(t: &Tensor, block: &Tensor, dims: &[usize]) -> candle_core::Result<Tensor> {
    match dims.split_first() {
        None => Ok(block.clone()),
        Some((&d, rest)) => {
            let sub = t.narrow(d, 0, block.dims()[d])?;
            let sub = put_block(&sub, block, rest)?;
            t.slice_scatter(&sub, d, 0)
        }
    }
}

/// The value broadcast to shape (Tensor::broadcast_as, made contiguous for
/// candle's scatter kernels), after PyTorch's checked conversion.
fn value_tensor(value: Scalar, dt: WireType, shape: &[usize]) -> R<Tensor> {
    let one = Wire {
        dt,
        shape: vec![1],
        raw: convert_scalar(value, dt)?,
    };
    let t = one.to_candle("value")?;
    let ones = vec![1usize; shape.len()];
    t.reshape(ones)
        .and_then(|t| t.broadcast_as(shape))
        .and_then(|t| t.contiguous())
        .map_err(candle_fail)
}

/// torch.Tensor.scatter_(dim, index, src | value, reduce=None | 'add'),
/// out of place: self[...index[p]...] = src[p] (reduce 'add': +=). reduce
/// 'multiply' has no candle counterpart (unsupported).
fn op_scatter(
    s: Wire,
    dim: i64,
    index: Wire,
    src: Option<Wire>,
    value: Option<Scalar>,
    reduce: Option<&str>,
) -> R<Plan> {
    let dim = scatter_checks(&s, dim, &index, src.as_ref())?;
    let how = match reduce {
        None => Update::Set,
        Some("add") => Update::Add,
        Some("multiply") => {
            return unsupported("scatter reduce='multiply': candle-core has no scatter-multiply")
        }
        Some(_) => {
            return err(
                "invalid_argument",
                "reduce argument must be either add or multiply.",
            )
        }
    };
    if s.dt.candle().is_none() {
        return unsupported(format!("candle-core has no {} dtype", s.dt.name()));
    }
    if index.numel() == 0 {
        // PyTorch returns self unchanged (the value is not converted).
        return Ok(Plan::Ready(s));
    }
    let src = match (src, value) {
        (Some(src), _) => src.to_candle("src")?,
        (None, Some(v)) => {
            // PyTorch converts the value element by element, each after
            // its index element's bounds check: the first index element
            // decides between index_out_of_range and value_overflow
            // (scatter(zeros(1), 0, [-1], 1e39) is the former, [0, 5] the
            // latter); candle checks the index only when it runs, after
            // the conversion here.
            first_index_in_range(&index, s.shape1()[dim])?;
            value_tensor(v, s.dt, &index.shape1())?
        }
        (None, None) => unreachable!("checked by the caller"),
    };
    scatter_plan(&s, dim, &index, src, how)
}

/// PyTorch's bounds check of a scatter's first index element, the
/// adapter's own: index_out_of_range when it is outside [0, size). (i64::MAX,
/// candle's padding id, is left to index_tensor, which answers it
/// unsupported.)
fn first_index_in_range(index: &Wire, size: usize) -> R<()> {
    let vals = index.index_values().expect("an index dtype");
    match vals.first() {
        Some(&v) if v != i64::MAX && (v < 0 || v as u64 >= size as u64) => err(
            "index_out_of_range",
            format!("index {v} is out of bounds for dimension with size {size}"),
        ),
        _ => Ok(()),
    }
}

/// torch.Tensor.scatter_reduce_(dim, index, src, reduce, include_self), out
/// of place. Only 'sum' is a candle call (scatter_add); prod, mean, amax
/// and amin are unsupported.
fn op_scatter_reduce(
    s: Wire,
    dim: i64,
    index: Wire,
    src: Wire,
    reduce: &str,
    include_self: bool,
) -> R<Plan> {
    let dim = scatter_checks(&s, dim, &index, Some(&src))?;
    let reduce = match reduce {
        "max" => "amax", // PyTorch 2's aliases
        "min" => "amin",
        r => r,
    };
    if !["sum", "prod", "mean", "amax", "amin"].contains(&reduce) {
        return err(
            "invalid_argument",
            "reduce argument must be either sum, prod, mean, amax or amin.",
        );
    }
    if reduce != "sum" {
        return unsupported(format!(
            "scatter_reduce '{reduce}': candle-core has scatter (set) and scatter_add only"
        ));
    }
    if s.dt.candle().is_none() {
        return unsupported(format!("candle-core has no {} dtype", s.dt.name()));
    }
    if index.numel() == 0 {
        return Ok(Plan::Ready(s));
    }
    let how = if include_self {
        Update::Add
    } else {
        Update::AddExcludingSelf
    };
    let src = src.to_candle("src")?;
    scatter_plan(&s, dim, &index, src, how)
}

/// torch.gather(input, dim, index): out[i][j][k] = input[i][index[i][j][k]][k]
/// (dim 1), with candle's Tensor::gather, which documents an index no
/// larger than input apart from dim, as PyTorch takes. With
/// `narrow_gather` (the adapter's --narrow-gather flag) the input is first
/// narrowed to the index's sizes apart from dim (Tensor::narrow, then
/// contiguous), which works around the candle-core difference described
/// in README.md.
fn op_gather(input: Wire, dim: i64, index: Wire, narrow_gather: bool) -> R<Plan> {
    let dim = gather_checks(&input, dim, &index)?;
    if input.dt.candle().is_none() {
        return unsupported(format!("candle-core has no {} dtype", input.dt.name()));
    }
    if index.numel() == 0 {
        return Ok(Plan::Ready(Wire {
            dt: input.dt,
            shape: index.shape.clone(),
            raw: Vec::new(),
        }));
    }
    let mut t = input.to_candle("input")?;
    let (a, is) = (input.shape1(), index.shape1());
    let it = index_tensor(&index, a[dim])?;
    if narrow_gather {
        for d in 0..a.len() {
            if d != dim && is[d] < a[d] {
                t = t.narrow(d, 0, is[d]).map_err(candle_fail)?;
            }
        }
        t = t.contiguous().map_err(candle_fail)?;
    }
    Ok(Plan::Call {
        run: Box::new(move || t.gather(&it, dim)),
        shape: index.shape.clone(),
    })
}

// ---------------------------------------------------------------- requests

struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn has(&self, key: &str) -> bool {
        matches!(self.0.get(key), Some(v) if !v.is_null())
    }

    fn tensor(&self, key: &str) -> R<Wire> {
        match self.0.get(key) {
            Some(v) if !v.is_null() => decode_tensor(v, key),
            _ => err("invalid_argument", format!("missing {key}")),
        }
    }

    fn int(&self, key: &str) -> R<i64> {
        match self.0.get(key).and_then(Value::as_i64) {
            Some(i) => Ok(i),
            _ => err(
                "invalid_argument",
                format!("{key} must be a 64-bit integer"),
            ),
        }
    }

    fn str(&self, key: &str) -> R<Option<&str>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => err("invalid_argument", format!("{key} must be a string")),
        }
    }

    fn bool(&self, key: &str, default: bool) -> R<bool> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => err("invalid_argument", format!("{key} must be true or false")),
        }
    }
}

/// Options of the adapter (its command line).
#[derive(Clone, Copy, Default)]
struct Options {
    narrow_gather: bool,
}

/// Decodes and checks one operation request (without id).
fn plan(req: &Map<String, Value>, opts: Options) -> R<Plan> {
    let f = Fields(req);
    let op = req.get("op").and_then(Value::as_str).unwrap_or("");
    match op {
        "scatter" => {
            let (s, dim, index) = (f.tensor("self")?, f.int("dim")?, f.tensor("index")?);
            let reduce = f.str("reduce")?;
            if f.has("src") == f.has("value") {
                return err(
                    "invalid_argument",
                    "scatter needs exactly one of src and value",
                );
            }
            let src = if f.has("src") {
                Some(f.tensor("src")?)
            } else {
                None
            };
            let value = if f.has("value") {
                Some(decode_scalar(&req["value"], "value")?)
            } else {
                None
            };
            op_scatter(s, dim, index, src, value, reduce)
        }
        "scatter_add" => op_scatter(
            f.tensor("self")?,
            f.int("dim")?,
            f.tensor("index")?,
            Some(f.tensor("src")?),
            None,
            Some("add"),
        ),
        "scatter_reduce" => {
            let reduce = match f.str("reduce")? {
                Some(r) => r,
                None => return err("invalid_argument", "scatter_reduce needs reduce"),
            };
            op_scatter_reduce(
                f.tensor("self")?,
                f.int("dim")?,
                f.tensor("index")?,
                f.tensor("src")?,
                reduce,
                f.bool("include_self", true)?,
            )
        }
        "gather" => op_gather(
            f.tensor("input")?,
            f.int("dim")?,
            f.tensor("index")?,
            opts.narrow_gather,
        ),
        _ => unsupported(format!("op {op:?} is not offered")),
    }
}

fn hello_answer(id: i64) -> Value {
    let dtypes: Vec<&str> = CLAIMED.iter().map(|d| d.name()).collect();
    json!({
        "id": id,
        "protocol": PROTOCOL,
        "name": "candle-core",
        "version": format!("{CANDLE_VERSION} (cpu)"),
        "ops": ["scatter", "scatter_add", "scatter_reduce", "gather"],
        "dtypes": dtypes,
        "deterministic": true,
    })
}

fn fail_answer(id: i64, f: Fail) -> Value {
    match f {
        Fail::Unsupported(m) => json!({"id": id, "unsupported": m}),
        Fail::Error(kind, m) => json!({"id": id, "error": {"kind": kind, "message": m}}),
    }
}

/// The optional timing request: the call decoded once, run `repeat`
/// times, each run timed alone (the candle call, without decoding or
/// encoding).
fn bench(req: &Map<String, Value>, opts: Options) -> R<Vec<f64>> {
    let repeat = match req.get("repeat").and_then(Value::as_u64) {
        Some(n) if (1..=100_000).contains(&n) => n,
        _ => {
            return err(
                "invalid_argument",
                "repeat must be an integer in [1, 100000]",
            )
        }
    };
    let call = match req.get("call").and_then(Value::as_object) {
        Some(c) => c,
        None => return err("invalid_argument", "bench needs a call object"),
    };
    let p = plan(call, opts)?;
    let mut seconds = Vec::with_capacity(repeat as usize);
    for _ in 0..repeat {
        let t0 = Instant::now();
        let out = match &p {
            Plan::Ready(_) => None,
            Plan::Call { run, .. } => Some(run().map_err(candle_fail)?),
        };
        seconds.push(t0.elapsed().as_secs_f64());
        drop(out);
    }
    Ok(seconds)
}

/// The answer to one request line.
fn answer(line: &str, opts: Options) -> Value {
    let req: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return fail_answer(
                leading_id(line),
                Fail::Error("invalid_argument", format!("malformed request: {e}")),
            )
        }
    };
    let (obj, id) = match req.as_object() {
        Some(o) => match o.get("id").and_then(Value::as_i64) {
            Some(id) if !o["id"].is_f64() => (o, id),
            _ => {
                return fail_answer(
                    0,
                    Fail::Error("invalid_argument", "a request has an integer id".into()),
                )
            }
        },
        None => {
            return fail_answer(
                0,
                Fail::Error("invalid_argument", "a request is a JSON object".into()),
            )
        }
    };
    match obj.get("op").and_then(Value::as_str) {
        Some("hello") => hello_answer(id),
        Some("bench") => match bench(obj, opts) {
            Ok(s) => json!({"id": id, "seconds": s}),
            Err(f) => fail_answer(id, f),
        },
        _ => match plan(obj, opts).and_then(|p| p.execute()) {
            Ok(w) => json!({"id": id, "out": w.encode()}),
            Err(f) => fail_answer(id, f),
        },
    }
}

/// The id of a line that is not JSON, when it starts like a request.
fn leading_id(line: &str) -> i64 {
    let rest = line.trim_start();
    let rest = match rest.strip_prefix('{') {
        Some(r) => r.trim_start(),
        None => return 0,
    };
    let rest = match rest.strip_prefix("\"id\"") {
        Some(r) => r.trim_start(),
        None => return 0,
    };
    let rest = match rest.strip_prefix(':') {
        Some(r) => r.trim_start(),
        None => return 0,
    };
    let end = rest
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(rest.len(), |(i, _)| i);
    rest[..end].parse().unwrap_or(0)
}

fn main() {
    let mut opts = Options::default();
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--narrow-gather" => opts.narrow_gather = true,
            "--version" => {
                println!("candle-scatter (candle-core {CANDLE_VERSION})");
                return;
            }
            _ => {
                eprintln!("usage: candle-scatter [--narrow-gather]   (speaks PROTOCOL.md on stdin/stdout)");
                std::process::exit(2);
            }
        }
    }
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut input = stdin.lock();
    let mut out = stdout.lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => {
                eprintln!("candle-scatter: reading a request: {e}");
                std::process::exit(1);
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        // A panic in candle is a crash of the implementation: it is not
        // turned into an answer (which the gate would judge as a result);
        // the process says where on standard error and exits, and the gate
        // reports a crash.
        let a = match panic::catch_unwind(AssertUnwindSafe(|| answer(&line, opts))) {
            Ok(a) => a,
            Err(p) => {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                eprintln!(
                    "candle-scatter: panic answering {}: {msg}",
                    line.chars().take(200).collect::<String>()
                );
                std::process::exit(101);
            }
        };
        let mut text = a.to_string();
        text.push('\n');
        if out
            .write_all(text.as_bytes())
            .and_then(|_| out.flush())
            .is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    //! The adapter's own rules, on values whose PyTorch answers SEMANTICS.md
    //! and PROFILES.md record (torch 2.14.1). `cargo test --release --locked`
    //! (the release profile reuses the build of tools/adapters/install).
    use super::*;

    fn kind<T>(r: R<T>) -> &'static str {
        match r {
            Ok(_) => "ok",
            Err(Fail::Error(k, _)) => k,
            Err(Fail::Unsupported(_)) => "unsupported",
        }
    }

    #[test]
    fn scatter_value_checks_the_first_index_element_before_converting_the_value() {
        let index = Wire {
            dt: WireType::I64,
            shape: vec![1],
            raw: (-1i64).to_le_bytes().to_vec(),
        };
        let s = Wire {
            dt: WireType::F32,
            shape: vec![1],
            raw: 0f32.to_le_bytes().to_vec(),
        };
        let got = op_scatter(s.clone(), 0, index, None, Some(Scalar::Float(1e39)), None);
        assert_eq!(kind(got), "index_out_of_range");
        // the first element in range: the value's conversion fails first
        let index = Wire {
            dt: WireType::I64,
            shape: vec![2],
            raw: [0i64.to_le_bytes(), 5i64.to_le_bytes()].concat(),
        };
        let got = op_scatter(s, 0, index, None, Some(Scalar::Float(1e39)), None);
        assert_eq!(kind(got), "value_overflow");
    }

    #[test]
    fn convert_scalar_uint8_negative_int_wraps_down_to_minus_255() {
        assert_eq!(
            convert_scalar(Scalar::Int(-1), WireType::U8).ok(),
            Some(vec![255])
        );
        assert_eq!(
            convert_scalar(Scalar::Int(-255), WireType::U8).ok(),
            Some(vec![1])
        );
        assert_eq!(
            kind(convert_scalar(Scalar::Int(-256), WireType::U8)),
            "value_overflow"
        );
        assert_eq!(
            kind(convert_scalar(Scalar::Int(256), WireType::U8)),
            "value_overflow"
        );
    }

    #[test]
    fn convert_scalar_float_into_integer_half_open_range_truncates() {
        // 2.14: uint8 255.5 gives 255, int64 2^63 raises, -1.5 into int16 is -1.
        assert_eq!(
            convert_scalar(Scalar::Float(255.5), WireType::U8).ok(),
            Some(vec![255])
        );
        assert_eq!(
            kind(convert_scalar(Scalar::Float(256.0), WireType::U8)),
            "value_overflow"
        );
        assert_eq!(
            kind(convert_scalar(
                Scalar::Float(9223372036854775808.0),
                WireType::I64
            )),
            "value_overflow"
        );
        assert_eq!(
            convert_scalar(Scalar::Float(-1.5), WireType::I16).ok(),
            Some((-1i16).to_le_bytes().to_vec())
        );
        assert_eq!(
            kind(convert_scalar(Scalar::Float(f64::NAN), WireType::I32)),
            "value_overflow"
        );
    }

    #[test]
    fn convert_scalar_16_bit_float_range_and_double_rounding() {
        // float16 70000.0 fails rather than rounding to inf; inf itself is fine.
        assert_eq!(
            kind(convert_scalar(Scalar::Float(70000.0), WireType::F16)),
            "value_overflow"
        );
        assert_eq!(
            convert_scalar(Scalar::Float(f64::INFINITY), WireType::F16).ok(),
            Some(f16::INFINITY.to_bits().to_le_bytes().to_vec())
        );
        // bfloat16 1 + 2^-8 + 2^-30 goes through float32 (1 + 2^-8, a tie) to 1.0.
        let v = 1.0 + 2f64.powi(-8) + 2f64.powi(-30);
        assert_eq!(
            convert_scalar(Scalar::Float(v), WireType::BF16).ok(),
            Some(bf16::ONE.to_bits().to_le_bytes().to_vec())
        );
        // an int64 goes to float32 in one rounding: 2^24 + 1 is 2^24.
        assert_eq!(
            convert_scalar(Scalar::Int((1 << 24) + 1), WireType::F32).ok(),
            Some(16777216f32.to_le_bytes().to_vec())
        );
    }

    #[test]
    fn wrap_dim_zero_d_counts_as_one_d() {
        assert_eq!(wrap_dim(-1, 0).ok(), Some(0));
        assert_eq!(kind(wrap_dim(1, 0)), "dim_out_of_range");
        assert_eq!(wrap_dim(-3, 3).ok(), Some(0));
        assert_eq!(kind(wrap_dim(-4, 3)), "dim_out_of_range");
    }

    fn wire(dt: WireType, shape: &[usize]) -> Wire {
        let n: usize = shape.iter().product();
        Wire {
            dt,
            shape: shape.to_vec(),
            raw: vec![0; n * dt.size()],
        }
    }

    #[test]
    fn scatter_checks_src_of_fewer_dims_is_dim_out_of_range() {
        // self [4,1], index [3,1], src [3]: PyTorch reads src.size(1) first.
        let (s, i, r) = (
            wire(WireType::F32, &[4, 1]),
            wire(WireType::I64, &[3, 1]),
            wire(WireType::F32, &[3]),
        );
        assert_eq!(
            kind(scatter_checks(&s, 0, &i, Some(&r))),
            "dim_out_of_range"
        );
        // an index larger than self apart from dim skips the src loop: shape_mismatch
        let i = wire(WireType::I64, &[3, 2]);
        assert_eq!(kind(scatter_checks(&s, 0, &i, Some(&r))), "shape_mismatch");
        // an empty index skips the shape rules, not the dtype rules
        let e = wire(WireType::I64, &[0]);
        assert_eq!(kind(scatter_checks(&s, 0, &e, Some(&r))), "ok");
        assert_eq!(
            kind(scatter_checks(&s, 0, &e, Some(&wire(WireType::F64, &[3])))),
            "dtype_mismatch"
        );
    }

    #[test]
    fn put_block_writes_the_origin_corner_along_two_dims() -> candle_core::Result<()> {
        let t = Tensor::zeros((3, 2, 4), DType::F32, &Device::Cpu)?;
        let b = Tensor::ones((2, 2, 3), DType::F32, &Device::Cpu)?;
        let got = put_block(&t, &b, &[0, 2])?.to_vec3::<f32>()?;
        for (i, m) in got.iter().enumerate() {
            for row in m {
                for (k, &v) in row.iter().enumerate() {
                    let want = if i < 2 && k < 3 { 1.0 } else { 0.0 };
                    assert_eq!(v, want, "at [{i}][.][{k}]");
                }
            }
        }
        Ok(())
    }

    #[test]
    fn decode_scalar_float32_max_is_read_exactly() {
        // the gate writes f32::MAX as a double in its shortest form; read one
        // ulp high it would overflow float32 (serde_json's float_roundtrip).
        let v: Value = serde_json::from_str("3.4028234663852886e+38").unwrap();
        match decode_scalar(&v, "value") {
            Ok(Scalar::Float(f)) => assert_eq!(f, f32::MAX as f64),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            convert_scalar(Scalar::Float(f32::MAX as f64), WireType::F32).ok(),
            Some(f32::MAX.to_le_bytes().to_vec())
        );
    }

    #[test]
    fn leading_id_of_a_malformed_line() {
        assert_eq!(leading_id(r#"{"id": 42, "op": nope}"#), 42);
        assert_eq!(leading_id(r#"{"id":-7,"#), -7);
        assert_eq!(leading_id("garbage"), 0);
    }
}
