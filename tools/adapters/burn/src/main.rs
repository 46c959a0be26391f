//! burn-scatter: the implementation protocol of the scatter conformance
//! suite (PROTOCOL.md, version 1) answered with Burn's tensor API
//! (burn-tensor) on its NdArray backend (burn-ndarray), on the CPU.
//!
//!     CARGO_TARGET_DIR=... cargo build --release --locked   # README.md
//!     scattercheck -allow-unsupported -xfail tools/adapters/xfail/burn.txt -impl BINARY
//!
//! One JSON request a line on standard input, one answer a line on
//! standard output. The argument rules of each PyTorch call (the dim range,
//! the index dtype, the dtype match, the shape rules, the reduce names, a
//! scalar's checked conversion) are checked here, as any implementation
//! must; the arithmetic and the indexing are Burn's own:
//!
//! | ours | Burn (`Tensor<D, K>`) |
//! |---|---|
//! | `scatter` with `src` | `scatter(dim, index, src, IndexingUpdateOp::Assign)` |
//! | `scatter` with `value` | the same, of `value` filled to the index's shape |
//! | `scatter` reduce `add`, `scatter_add`, `scatter_reduce` `sum` | `scatter(.., IndexingUpdateOp::Add)` |
//! | `scatter` reduce `multiply`, `scatter_reduce` `prod` | `scatter(.., IndexingUpdateOp::Mul)` |
//! | `scatter_reduce` `amax`, `amin` | `scatter(.., IndexingUpdateOp::Max)`, `Min` |
//! | `scatter_reduce`, `include_self=false` | `scatter(.., Assign)` of the reduction's identity first |
//! | `index_reduce` `prod`, `amax`, `amin` | `select_assign(dim, index, source, Mul / Max / Min)` |
//! | `index_reduce`, `include_self=false` | `select_assign(.., Assign)` of the identity first |
//! | `gather` | `gather(dim, index)` |
//!
//! tools/adapters/burn/README.md has the whole mapping, what is claimed
//! and answered `unsupported`, and the differences found.

use std::any::Any;
use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use burn_tensor::kind::Basic;
use burn_tensor::{
    Bool, BoolStore, DType, Device, Float, IndexingUpdateOp, Int, Tensor, TensorData,
};
use serde_json::{json, Map, Value};

/// burn-tensor's and burn-ndarray's versions, read from Cargo.lock by build.rs.
const BURN_VERSION: &str = env!("BURN_VERSION");
const BURN_NDARRAY_VERSION: &str = env!("BURN_NDARRAY_VERSION");

const PROTOCOL: i64 = 1;

/// The most elements one tensor may have (SCATTER_ADAPTER_MAX_ELEMS), so
/// that a request cannot make the adapter allocate without bound.
const DEFAULT_MAX_ELEMS: usize = 1 << 26;

/// The most dimensions the adapter gives Burn: its tensors have their rank
/// as a const generic (`Tensor<D, K>`), so each rank is compiled in.
const MAX_RANK: usize = 8;

/// The dtypes claimed: those of the protocol's that Burn's NdArray backend
/// has (its `dtype_usage`: f64, f32, i64, i32, i16, i8, u8 and native
/// bool; float16 and bfloat16 are not supported on it).
const CLAIMED: [WireType; 8] = [
    WireType::Bool,
    WireType::U8,
    WireType::I8,
    WireType::I16,
    WireType::I32,
    WireType::I64,
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

/// Burn's three tensor kinds (`Tensor<D, Float | Int | Bool>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TensorKind {
    Float,
    Int,
    Bool,
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

    /// Burn's dtype on the NdArray backend, None where it has none.
    fn burn(self) -> Option<DType> {
        Some(match self {
            WireType::Bool => DType::Bool(BoolStore::Native),
            WireType::U8 => DType::U8,
            WireType::I8 => DType::I8,
            WireType::I16 => DType::I16,
            WireType::I32 => DType::I32,
            WireType::I64 => DType::I64,
            WireType::F32 => DType::F32,
            WireType::F64 => DType::F64,
            WireType::F16 | WireType::BF16 => return None,
        })
    }

    fn kind(self) -> TensorKind {
        match self {
            WireType::Bool => TensorKind::Bool,
            WireType::F16 | WireType::BF16 | WireType::F32 | WireType::F64 => TensorKind::Float,
            _ => TensorKind::Int,
        }
    }

    fn is_float(self) -> bool {
        self.kind() == TensorKind::Float
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
            WireType::I64 => Some(le(&self.raw, i64::from_le_bytes)),
            WireType::I32 => Some(
                le(&self.raw, i32::from_le_bytes)
                    .into_iter()
                    .map(i64::from)
                    .collect(),
            ),
            _ => None,
        }
    }

    /// A tensor of shape whose every element is one (its little-endian
    /// bytes, of dtype dt).
    fn filled(dt: WireType, shape: &[usize], one: &[u8]) -> Wire {
        let n: usize = shape.iter().product();
        Wire {
            dt,
            shape: shape.to_vec(),
            raw: one.repeat(n),
        }
    }

    /// Burn's TensorData of these elements, of shape shape1().
    fn data(&self) -> TensorData {
        let shape = self.shape1();
        let raw = &self.raw;
        match self.dt {
            WireType::Bool => {
                TensorData::new(raw.iter().map(|&b| b != 0).collect::<Vec<bool>>(), shape)
            }
            WireType::U8 => TensorData::new(raw.clone(), shape),
            WireType::I8 => TensorData::new(le(raw, i8::from_le_bytes), shape),
            WireType::I16 => TensorData::new(le(raw, i16::from_le_bytes), shape),
            WireType::I32 => TensorData::new(le(raw, i32::from_le_bytes), shape),
            WireType::I64 => TensorData::new(le(raw, i64::from_le_bytes), shape),
            WireType::F32 => TensorData::new(le(raw, f32::from_le_bytes), shape),
            WireType::F64 => TensorData::new(le(raw, f64::from_le_bytes), shape),
            WireType::F16 | WireType::BF16 => unreachable!("not a dtype of Burn's NdArray backend"),
        }
    }

    /// The wire form of Burn's result data, of dtype dt and the shape the
    /// answer has. Burn must keep the dtype: a result of another dtype is
    /// an error of the call.
    fn from_data(d: &TensorData, dt: WireType, shape: Vec<usize>) -> R<Wire> {
        if Some(d.dtype()) != dt.burn() {
            return err(
                "invalid_argument",
                format!("Burn's result has dtype {:?}, not {}", d.dtype(), dt.name()),
            );
        }
        fn bytes<E: burn_tensor::Element, const N: usize>(
            d: &TensorData,
            f: impl Fn(E) -> [u8; N],
        ) -> R<Vec<u8>> {
            match d.as_slice::<E>() {
                Ok(s) => Ok(s.iter().copied().flat_map(f).collect()),
                Err(e) => err("invalid_argument", format!("reading Burn's result: {e:?}")),
            }
        }
        let raw = match dt {
            WireType::Bool => bytes(d, |b: bool| [b as u8])?,
            WireType::U8 => bytes(d, |v: u8| [v])?,
            WireType::I8 => bytes(d, i8::to_le_bytes)?,
            WireType::I16 => bytes(d, i16::to_le_bytes)?,
            WireType::I32 => bytes(d, i32::to_le_bytes)?,
            WireType::I64 => bytes(d, i64::to_le_bytes)?,
            WireType::F32 => bytes(d, f32::to_le_bytes)?,
            WireType::F64 => bytes(d, f64::to_le_bytes)?,
            WireType::F16 | WireType::BF16 => unreachable!("not a dtype of Burn's NdArray backend"),
        };
        let w = Wire { dt, shape, raw };
        if w.raw.len() != w.numel() * dt.size() {
            return err(
                "invalid_argument",
                format!("Burn's result has shape {:?}, not {:?}", d.shape(), w.shape),
            );
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
        WireType::BF16 => (-3.3895313892515355e38, 3.3895313892515355e38),
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

/// The PyTorch whose argument rules the adapter checks (its
/// `--profile` flag, named as the gate's profiles): the rules of the
/// default torch-2 (2.14) and of torch-2.6 differ in two places that
/// reach these operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Rules {
    /// PyTorch 2.8 and later (verified 2.14): int32 indices everywhere,
    /// a float scalar into an integer dtype in the half-open [lowest, max+1).
    #[default]
    Torch2,
    /// PyTorch 2.0 to 2.7 (verified 2.6): scatter, scatter_add,
    /// scatter_reduce and gather take int64 indices only; a float scalar
    /// into an integer dtype in the closed [lowest, max] as doubles.
    Torch26,
}

/// c10's checked `Scalar::to<T>()` (the conversion of scatter's `value`;
/// Burn never sees the scalar: it gets a tensor filled with the converted
/// value). It fails with value_overflow: from an int, outside
/// [lowest, max], except that uint8 takes negative ints down to -255 (they
/// wrap: -1 is 255); from a float, NaN into an integer dtype, a finite
/// value outside [lowest, max] for a float dtype, outside the half-open
/// [lowest, max + 1) for an integer dtype under torch-2 (the closed
/// [lowest, max] as doubles under torch-2.6, where int64 2^63 passes and
/// wraps to -2^63); +-inf is fine into a float dtype. The conversion:
/// float to integer truncates toward zero; a bool is 0 or 1; anything
/// into bool is "not zero". Returns the element's little-endian bytes.
fn convert_scalar(s: Scalar, dt: WireType, rules: Rules) -> R<Vec<u8>> {
    let (lo, hi) = dtype_range(dt);
    let overflows = match s {
        Scalar::Bool(_) => false,
        _ if dt == WireType::Bool => false,
        Scalar::Float(f) => {
            if f.is_infinite() && dt.is_float() {
                false
            } else if f.is_nan() {
                !dt.is_float()
            } else if !dt.is_float() && rules == Rules::Torch2 {
                f < lo || f >= hi + 1.0
            } else {
                f < lo || f > hi
            }
        }
        Scalar::Int(i) => {
            if dt == WireType::U8 {
                (i as f64) > hi || (i < 0 && -(i as f64) > hi)
            } else if !dt.is_float() {
                !int_fits(i, dt)
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
        // 2^63 passes torch-2.6's closed range into int64 and wraps (x86's
        // cvttsd2si); Rust's `as` would saturate it to i64::MAX.
        Scalar::Float(f) if f >= 9223372036854775808.0 => i64::MIN,
        Scalar::Float(f) => f.trunc() as i64,
    };
    // float32 is made from an int64 in one rounding.
    let as_f32 = match s {
        Scalar::Int(i) => i as f32,
        _ => as_f64 as f32,
    };
    Ok(match dt {
        WireType::Bool => vec![match s {
            Scalar::Bool(b) => b as u8,
            Scalar::Int(i) => (i != 0) as u8,
            Scalar::Float(f) => (f != 0.0) as u8,
        }],
        WireType::U8 => vec![as_i64 as u8],
        WireType::I8 => (as_i64 as i8).to_le_bytes().to_vec(),
        WireType::I16 => (as_i64 as i16).to_le_bytes().to_vec(),
        WireType::I32 => (as_i64 as i32).to_le_bytes().to_vec(),
        WireType::I64 => as_i64.to_le_bytes().to_vec(),
        WireType::F32 => as_f32.to_le_bytes().to_vec(),
        WireType::F64 => as_f64.to_le_bytes().to_vec(),
        WireType::F16 | WireType::BF16 => {
            return unsupported(format!("Burn's NdArray backend has no {}", dt.name()))
        }
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

/// The index dtypes of scatter, scatter_add, scatter_reduce and gather:
/// int64, and int32 under torch-2 (PyTorch 2.8 and later).
fn is_index_dtype(dt: WireType, rules: Rules) -> bool {
    dt == WireType::I64 || (dt == WireType::I32 && rules == Rules::Torch2)
}

/// scatter_meta_impl's checks, in PyTorch's order (SEMANTICS.md 1.3): the
/// dim, the index dtype, src's dtype, then scatter_shape_check unless the
/// index is empty. The reduce name is validated after them, by the caller
/// of each op.
fn scatter_checks(s: &Wire, dim: i64, index: &Wire, src: Option<&Wire>, rules: Rules) -> R<usize> {
    let dim = wrap_dim(dim, s.ndim())?;
    if index.numel() > 0 && !is_index_dtype(index.dt, rules) {
        return err(
            "index_dtype",
            if rules == Rules::Torch2 {
                "scatter(): Expected dtype int32/int64 for index"
            } else {
                "scatter(): Expected dtype int64 for index"
            },
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

/// gather's checks (gather_meta, gather_shape_check): nothing but the dim
/// for an empty index.
fn gather_checks(input: &Wire, dim: i64, index: &Wire, rules: Rules) -> R<usize> {
    let dim = wrap_dim(dim, input.ndim())?;
    if index.numel() == 0 {
        return Ok(dim);
    }
    if !is_index_dtype(index.dt, rules) {
        return err(
            "index_dtype",
            if rules == Rules::Torch2 {
                "gather(): Expected dtype int32/int64 for index"
            } else {
                "gather(): Expected dtype int64 for index"
            },
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

/// index_reduce_'s checks under PyTorch 2 (index_func_meta_impl and the
/// index_reduce meta), in PyTorch's order: the reduce name (no sum), dim
/// against self, a vector (or 0-d) index, an int32/int64 index even when
/// empty, source's dtype, dim == 0 or dim < source.dim(), as many indices
/// as source.size(dim) (1 for a 0-d source, whose size PyTorch reads
/// first: dim_out_of_range), and source of self's shape apart from dim
/// (nothing broadcasts in PyTorch 2; a 0-d source needs a 0-d self). The
/// index values, and the bool dtype's failures, come after, in
/// op_index_reduce. Returns the wrapped dim.
fn index_reduce_checks(s: &Wire, dim: i64, index: &Wire, source: &Wire, reduce: &str) -> R<usize> {
    if !["prod", "mean", "amax", "amin"].contains(&reduce) {
        return err(
            "invalid_argument",
            format!("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."),
        );
    }
    let dim = wrap_dim(dim, s.ndim())?;
    if index.ndim() > 1 {
        return err(
            "shape_mismatch",
            format!(
                "index_reduce_(): Index is supposed to be a vector, but got dim: {}",
                index.ndim()
            ),
        );
    }
    if !matches!(index.dt, WireType::I32 | WireType::I64) {
        return err(
            "index_dtype",
            format!(
                "index_reduce_(): Expected dtype int32/int64 for index but got: {}",
                index.dt.name()
            ),
        );
    }
    if source.dt != s.dt {
        return err(
            "dtype_mismatch",
            "index_reduce_(): self and source must have the same scalar type",
        );
    }
    if !(dim == 0 || dim < source.ndim()) {
        return err(
            "shape_mismatch",
            format!(
                "index_reduce_(): Indexing dim {dim} is out of bounds of the source tensor with dim {}",
                source.ndim()
            ),
        );
    }
    let n = if source.ndim() == 0 {
        if index.numel() != 1 {
            return err(
                "dim_out_of_range",
                "Dimension specified as 0 but tensor has no dimensions",
            );
        }
        1
    } else {
        source.shape[dim]
    };
    if index.numel() != n {
        return err(
            "shape_mismatch",
            format!(
                "index_reduce_(): Number of indices ({}) should be equal to source.size(dim): ({n}), for dim: {dim}",
                index.numel()
            ),
        );
    }
    if !same_shape_except_dim(&s.shape, &source.shape, dim) {
        return err(
            "shape_mismatch",
            format!(
                "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {:?} source.shape = {:?}",
                s.shape, source.shape
            ),
        );
    }
    Ok(dim)
}

/// Whether two shapes agree apart from dim (two 0-d shapes do; a 0-d and
/// a 1-d one do not).
fn same_shape_except_dim(a: &[usize], b: &[usize], dim: usize) -> bool {
    if a.is_empty() || b.is_empty() || a.len() != b.len() {
        return a.len() == b.len() && a.is_empty();
    }
    (0..a.len()).all(|d| d == dim || a[d] == b[d])
}

/// The first index value outside [0, size), if any.
fn out_of_range(index: &Wire, size: usize) -> Option<i64> {
    index
        .index_values()?
        .into_iter()
        .find(|&v| v < 0 || v >= size as i64)
}

/// The identity of a reduction in dtype dt (PyTorch's include_self=false
/// fill): 0 for sum, 1 for prod, -inf / lowest() for amax, inf / max()
/// for amin. Its little-endian bytes.
fn identity(reduce: &str, dt: WireType) -> Vec<u8> {
    let s = match (reduce, dt) {
        ("sum", _) => Scalar::Int(0),
        ("prod", _) => Scalar::Int(1),
        ("amax", d) if d.is_float() => Scalar::Float(f64::NEG_INFINITY),
        ("amin", d) if d.is_float() => Scalar::Float(f64::INFINITY),
        ("amax", WireType::U8) => Scalar::Int(0),
        ("amax", WireType::I8) => Scalar::Int(i8::MIN as i64),
        ("amax", WireType::I16) => Scalar::Int(i16::MIN as i64),
        ("amax", WireType::I32) => Scalar::Int(i32::MIN as i64),
        ("amax", _) => Scalar::Int(i64::MIN),
        ("amin", WireType::U8) => Scalar::Int(255),
        ("amin", WireType::I8) => Scalar::Int(i8::MAX as i64),
        ("amin", WireType::I16) => Scalar::Int(i16::MAX as i64),
        ("amin", WireType::I32) => Scalar::Int(i32::MAX as i64),
        ("amin", _) => Scalar::Int(i64::MAX),
        _ => unreachable!("no identity for {reduce}"),
    };
    convert_scalar(s, dt, Rules::Torch2).expect("an identity fits its dtype")
}

// ------------------------------------------------------------ Burn calls

/// The NdArray device (the only backend compiled in: Cargo.toml). Burn
/// 0.22 deprecates the NdArray backend in favour of its new `flex` CPU
/// backend; it is still shipped, and it is the backend this adapter gates.
#[allow(deprecated)]
fn device() -> Device {
    Device::new(burn_ndarray::NdArrayDevice::Cpu)
}

/// The Burn tensor of w's elements, of shape w.shape1() and w's dtype.
fn tensor<const D: usize, K: Basic>(w: &Wire, dev: &Device) -> Tensor<D, K> {
    let dt = w.dt.burn().expect("a dtype of Burn's NdArray backend");
    Tensor::<D, K>::from_data(w.data(), (dev, dt))
}

/// The ranges of the block at the origin of the given sizes.
fn block(sizes: &[usize]) -> Vec<Range<usize>> {
    sizes.iter().map(|&n| 0..n).collect()
}

/// One Burn call made, whose result is read afterwards (so that `bench`
/// times the call alone).
type Done = Box<dyn FnOnce() -> TensorData>;

/// A Burn call ready to run: the tensors made, the closure runs the Burn
/// operations (cloning its tensors, which Burn's methods consume).
type Run = Box<dyn Fn() -> Done>;

/// One update of a dim-scatter: Burn's `Tensor::scatter` with `op` of
/// `values` (src, or a fill of the index's shape).
struct Step {
    op: IndexingUpdateOp,
    values: Wire,
}

/// The dim-scatter of the steps into self along dim with Burn:
///
/// ```text
/// self[i][index[i][j][k]][k] op= values[i][j][k]   (dim 1)
/// ```
///
/// for every position of index. Burn's `Tensor::scatter` wants index and
/// values of the same shape, and self of index's shape apart from dim
/// (burn-tensor's TensorCheck::scatter; the NdArray kernel indexes them
/// alike), where PyTorch takes an index no larger than src, and no larger
/// than self apart from dim. So src is narrowed to the index's shape
/// (`Tensor::slice`), and where the index is smaller than self apart from
/// dim, the scatter runs on the block of self it reaches (`Tensor::slice`),
/// which is then written back (`Tensor::slice_assign`). All three are Burn
/// calls: the elements PyTorch reads and writes are exactly those Burn is
/// given.
fn scatter_prep<const D: usize, K: Basic + 'static>(
    s: &Wire,
    dim: usize,
    index: &Wire,
    steps: &[Step],
) -> Run {
    let dev = device();
    let st: Tensor<D, K> = tensor(s, &dev);
    let it: Tensor<D, Int> = tensor(index, &dev);
    let (ss, is) = (s.shape1(), index.shape1());
    let vals: Vec<(IndexingUpdateOp, Tensor<D, K>)> = steps
        .iter()
        .map(|st| {
            let t: Tensor<D, K> = tensor(&st.values, &dev);
            let t = if st.values.shape1() != is {
                t.slice(block(&is).as_slice())
            } else {
                t
            };
            (st.op, t)
        })
        .collect();
    let reach: Option<Vec<Range<usize>>> = if (0..ss.len()).any(|d| d != dim && is[d] < ss[d]) {
        Some(
            (0..ss.len())
                .map(|d| if d == dim { 0..ss[d] } else { 0..is[d] })
                .collect(),
        )
    } else {
        None
    };
    Box::new(move || {
        let mut b = match &reach {
            Some(r) => st.clone().slice(r.as_slice()),
            None => st.clone(),
        };
        for (op, v) in &vals {
            b = b.scatter(dim, it.clone(), v.clone(), *op);
        }
        let out = match &reach {
            Some(r) => st.clone().slice_assign(r.as_slice(), b),
            None => b,
        };
        Box::new(move || out.into_data())
    })
}

/// gather with Burn: `Tensor::gather(dim, index)` on the input narrowed
/// (`Tensor::slice`) to the index's sizes apart from dim, since Burn wants
/// them equal (burn-tensor's TensorCheck::gather) where PyTorch takes an
/// index no larger.
fn gather_prep<const D: usize, K: Basic + 'static>(input: &Wire, dim: usize, index: &Wire) -> Run {
    let dev = device();
    let t: Tensor<D, K> = tensor(input, &dev);
    let it: Tensor<D, Int> = tensor(index, &dev);
    let (a, is) = (input.shape1(), index.shape1());
    let t = if (0..a.len()).any(|d| d != dim && is[d] < a[d]) {
        let r: Vec<Range<usize>> = (0..a.len())
            .map(|d| if d == dim { 0..a[d] } else { 0..is[d] })
            .collect();
        t.slice(r.as_slice())
    } else {
        t
    };
    Box::new(move || {
        let out = t.clone().gather(dim, it.clone());
        Box::new(move || out.into_data())
    })
}

/// index_reduce with Burn: `Tensor::select_assign(dim, index, values, op)`
/// for each step, the index as Burn's 1-d Int tensor.
fn index_reduce_prep<const D: usize, K: Basic + 'static>(
    s: &Wire,
    dim: usize,
    index: &Wire,
    steps: &[Step],
) -> Run {
    let dev = device();
    let st: Tensor<D, K> = tensor(s, &dev);
    let flat = Wire {
        shape: vec![index.numel()],
        ..index.clone()
    };
    let it: Tensor<1, Int> = tensor(&flat, &dev);
    let vals: Vec<(IndexingUpdateOp, Tensor<D, K>)> = steps
        .iter()
        .map(|st| (st.op, tensor(&st.values, &dev)))
        .collect();
    Box::new(move || {
        let mut b = st.clone();
        for (op, v) in &vals {
            b = b.select_assign(dim, it.clone(), v.clone(), *op);
        }
        Box::new(move || b.into_data())
    })
}

/// prep::<D, K>(args) for the rank and the kind of the call's data.
macro_rules! dispatch {
    ($prep:ident, $rank:expr, $kind:expr, ($($arg:expr),*)) => {{
        macro_rules! ranks {
            ($k:ty) => {
                match $rank {
                    1 => $prep::<1, $k>($($arg),*),
                    2 => $prep::<2, $k>($($arg),*),
                    3 => $prep::<3, $k>($($arg),*),
                    4 => $prep::<4, $k>($($arg),*),
                    5 => $prep::<5, $k>($($arg),*),
                    6 => $prep::<6, $k>($($arg),*),
                    7 => $prep::<7, $k>($($arg),*),
                    8 => $prep::<8, $k>($($arg),*),
                    n => return unsupported(format!(
                        "a tensor of {n} dimensions: the adapter compiles Burn's Tensor<D, K> for D up to {MAX_RANK}"
                    )),
                }
            };
        }
        match $kind {
            TensorKind::Float => ranks!(Float),
            TensorKind::Int => ranks!(Int),
            TensorKind::Bool => ranks!(Bool),
        }
    }};
}

// --------------------------------------------------------- running Burn

thread_local! {
    /// The message of the last panic on this thread (the panic hook's).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The panic hook: records the message (for the error answer) and prints
/// one line on standard error instead of the default report.
fn panic_hook(info: &panic::PanicHookInfo<'_>) {
    let msg = panic_text(info.payload());
    let at = info
        .location()
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    let text = format!("{msg}{at}");
    eprintln!("burn-scatter: Burn panicked: {text}");
    LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
}

/// A panic's message on one line (burn-tensor's argument checks panic
/// with a report of several).
fn panic_text(p: &(dyn Any + Send)) -> String {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string());
    msg.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// f, which makes Burn tensors for a call (from_data, and slice to narrow
/// src or the input), with a panic in Burn as an error answer (none is
/// expected: the arguments are checked before).
fn burn<T>(f: impl FnOnce() -> R<T>) -> R<T> {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = LAST_PANIC
                .with(|l| l.borrow_mut().take())
                .unwrap_or_else(|| panic_text(p.as_ref()));
            err(
                "invalid_argument",
                format!("Burn panicked making the tensors: {msg}"),
            )
        }
    }
}

/// What a request becomes once decoded and checked: an answer known
/// without Burn (an empty index), or a Burn call to run.
enum Plan {
    Ready(Wire),
    Call {
        run: Run,
        dt: WireType,
        shape: Vec<usize>,
        /// The index and the size of the dimension its values select in
        /// (PyTorch raises for a value outside [0, size)), to tell Burn's
        /// panic on such a value from any other.
        index: Wire,
        size: usize,
    },
}

impl Plan {
    /// Runs the Burn call; a panic inside Burn becomes an error answer:
    /// `index_out_of_range` when the index holds a value PyTorch rejects
    /// (Burn's NdArray kernels index with it, and ndarray's bounds check
    /// panics), otherwise `invalid_argument` with Burn's message (a panic
    /// on a call PyTorch accepts, which the gate then reports).
    fn call(&self) -> R<Done> {
        match self {
            Plan::Ready(_) => unreachable!("no call"),
            Plan::Call {
                run, index, size, ..
            } => match panic::catch_unwind(AssertUnwindSafe(run)) {
                Ok(done) => Ok(done),
                Err(p) => {
                    let msg = LAST_PANIC
                        .with(|l| l.borrow_mut().take())
                        .unwrap_or_else(|| panic_text(p.as_ref()));
                    match out_of_range(index, *size) {
                        Some(v) => err(
                            "index_out_of_range",
                            format!(
                                "index {v} is out of bounds for a dimension of size {size}; Burn panicked: {msg}"
                            ),
                        ),
                        None => err("invalid_argument", format!("Burn panicked: {msg}")),
                    }
                }
            },
        }
    }

    fn execute(&self) -> R<Wire> {
        match self {
            Plan::Ready(w) => Ok(w.clone()),
            Plan::Call { dt, shape, .. } => {
                let done = self.call()?;
                let data = match panic::catch_unwind(AssertUnwindSafe(done)) {
                    Ok(d) => d,
                    Err(p) => {
                        return err(
                            "invalid_argument",
                            format!(
                                "Burn panicked reading the result: {}",
                                panic_text(p.as_ref())
                            ),
                        )
                    }
                };
                Wire::from_data(&data, *dt, shape.clone())
            }
        }
    }
}

// ---------------------------------------------------------------- the ops

/// torch.Tensor.scatter_(dim, index, src | value, reduce=None | 'add' |
/// 'multiply'), out of place: self[...index[p]...] = src[p] (reduce: +=,
/// *=).
fn op_scatter(
    s: Wire,
    dim: i64,
    index: Wire,
    src: Option<Wire>,
    value: Option<Scalar>,
    reduce: Option<&str>,
    rules: Rules,
) -> R<Plan> {
    let dim = scatter_checks(&s, dim, &index, src.as_ref(), rules)?;
    let op = match reduce {
        None => IndexingUpdateOp::Assign,
        Some("add") => IndexingUpdateOp::Add,
        Some("multiply") => IndexingUpdateOp::Mul,
        Some(_) => {
            return err(
                "invalid_argument",
                "reduce argument must be either add or multiply.",
            )
        }
    };
    if s.dt.burn().is_none() {
        return unsupported(format!("Burn's NdArray backend has no {}", s.dt.name()));
    }
    if s.dt == WireType::Bool && op != IndexingUpdateOp::Add {
        return unsupported(format!(
            "scatter of bool{}: Burn's bool scatter has IndexingUpdateOp::Add (logical or) only \
             (Assign and Mul are unimplemented!() for bool tensors)",
            reduce.map_or(String::new(), |r| format!(" reduce='{r}'"))
        ));
    }
    if index.numel() == 0 {
        // PyTorch returns self unchanged (the value is not converted).
        return Ok(Plan::Ready(s));
    }
    let values = match (src, value) {
        (Some(src), _) => src,
        (None, Some(v)) => {
            match convert_scalar(v, s.dt, rules) {
                Ok(one) => Wire::filled(s.dt, &index.shape1(), &one),
                // PyTorch converts the value element by element, after each
                // element's bounds check: an index whose first value (in
                // row-major order) is out of range raises that first. Burn
                // never sees the value, so this check is the adapter's.
                Err(overflow) => {
                    let size = s.shape1()[dim] as i64;
                    return match index.index_values().and_then(|v| v.first().copied()) {
                    Some(first) if first < 0 || first >= size => err(
                        "index_out_of_range",
                        format!("index {first} is out of bounds for dimension {dim} with size {size}"),
                    ),
                    _ => Err(overflow),
                };
                }
            }
        }
        (None, None) => unreachable!("checked by the caller"),
    };
    scatter_plan(s, dim, index, vec![Step { op, values }])
}

/// The plan of a dim-scatter of steps into s.
fn scatter_plan(s: Wire, dim: usize, index: Wire, steps: Vec<Step>) -> R<Plan> {
    let (ss, rank) = (s.shape1(), s.shape1().len());
    let run = burn(|| {
        Ok(dispatch!(
            scatter_prep,
            rank,
            s.dt.kind(),
            (&s, dim, &index, &steps)
        ))
    })?;
    Ok(Plan::Call {
        run,
        dt: s.dt,
        shape: s.shape.clone(),
        size: ss[dim],
        index,
    })
}

/// torch.Tensor.scatter_reduce_(dim, index, src, reduce, include_self),
/// out of place: sum, prod, amax and amin are Burn's scatter with Add,
/// Mul, Max and Min; include_self=false scatters the reduction's identity
/// (Assign) first, as PyTorch does. mean is unsupported (Burn has no
/// scatter-mean, nor a count).
fn op_scatter_reduce(
    s: Wire,
    dim: i64,
    index: Wire,
    src: Wire,
    reduce: &str,
    include_self: bool,
    rules: Rules,
) -> R<Plan> {
    let dim = scatter_checks(&s, dim, &index, Some(&src), rules)?;
    let reduce = match reduce {
        "max" => "amax", // PyTorch 2's aliases
        "min" => "amin",
        r => r,
    };
    let op = match reduce {
        "sum" => IndexingUpdateOp::Add,
        "prod" => IndexingUpdateOp::Mul,
        "amax" => IndexingUpdateOp::Max,
        "amin" => IndexingUpdateOp::Min,
        "mean" => {
            return unsupported(
                "scatter_reduce 'mean': Burn has no scatter-mean (IndexingUpdateOp is Assign, Add, Mul, Min, Max)",
            )
        }
        _ => {
            return err(
                "invalid_argument",
                "reduce argument must be either sum, prod, mean, amax or amin.",
            )
        }
    };
    if s.dt.burn().is_none() {
        return unsupported(format!("Burn's NdArray backend has no {}", s.dt.name()));
    }
    if s.dt == WireType::Bool && (op != IndexingUpdateOp::Add || !include_self) {
        return unsupported(format!(
            "scatter_reduce '{reduce}' of bool{}: Burn's bool scatter has IndexingUpdateOp::Add \
             (logical or) only",
            if include_self {
                ""
            } else {
                " with include_self=false (a fill by Assign)"
            }
        ));
    }
    if index.numel() == 0 {
        return Ok(Plan::Ready(s));
    }
    let mut steps = Vec::new();
    if !include_self {
        steps.push(Step {
            op: IndexingUpdateOp::Assign,
            values: Wire::filled(s.dt, &index.shape1(), &identity(reduce, s.dt)),
        });
    }
    steps.push(Step { op, values: src });
    scatter_plan(s, dim, index, steps)
}

/// torch.Tensor.index_reduce_(dim, index, source, reduce, include_self),
/// out of place: prod, amax and amin are Burn's select_assign with Mul,
/// Max and Min; include_self=false assigns the identity to the selected
/// slices first (select_assign with Assign), as PyTorch's index_fill_.
/// mean is unsupported (no select-mean in Burn), as is bool (Burn's bool
/// select_assign has Add only).
fn op_index_reduce(
    s: Wire,
    dim: i64,
    index: Wire,
    source: Wire,
    reduce: &str,
    include_self: bool,
) -> R<Plan> {
    let dim = index_reduce_checks(&s, dim, &index, &source, reduce)?;
    if s.dt.burn().is_none() {
        return unsupported(format!("Burn's NdArray backend has no {}", s.dt.name()));
    }
    if s.dt == WireType::Bool {
        return unsupported(
            "index_reduce of bool: Burn's bool select_assign has IndexingUpdateOp::Add (logical or) only",
        );
    }
    let op = match reduce {
        "prod" => IndexingUpdateOp::Mul,
        "amax" => IndexingUpdateOp::Max,
        "amin" => IndexingUpdateOp::Min,
        _ => {
            return unsupported(
                "index_reduce 'mean': Burn has no select-mean (IndexingUpdateOp is Assign, Add, Mul, Min, Max)",
            )
        }
    };
    let ss = s.shape1();
    if index.numel() == 0 {
        // PyTorch's multi-dim path returns self; its 1-d path loops over
        // nothing (no bool here).
        return Ok(Plan::Ready(s));
    }
    let mut steps = Vec::new();
    if !include_self {
        steps.push(Step {
            op: IndexingUpdateOp::Assign,
            values: Wire::filled(s.dt, &source.shape1(), &identity(reduce, s.dt)),
        });
    }
    steps.push(Step { op, values: source });
    let run = burn(|| {
        Ok(dispatch!(
            index_reduce_prep,
            ss.len(),
            s.dt.kind(),
            (&s, dim, &index, &steps)
        ))
    })?;
    Ok(Plan::Call {
        run,
        dt: s.dt,
        shape: s.shape.clone(),
        size: ss[dim],
        index,
    })
}

/// torch.gather(input, dim, index): out[i][j][k] = input[i][index[i][j][k]][k]
/// (dim 1), with Burn's Tensor::gather.
fn op_gather(input: Wire, dim: i64, index: Wire, rules: Rules) -> R<Plan> {
    let dim = gather_checks(&input, dim, &index, rules)?;
    if input.dt.burn().is_none() {
        return unsupported(format!("Burn's NdArray backend has no {}", input.dt.name()));
    }
    if index.numel() == 0 {
        return Ok(Plan::Ready(Wire {
            dt: input.dt,
            shape: index.shape.clone(),
            raw: Vec::new(),
        }));
    }
    let a = input.shape1();
    let run = burn(|| {
        Ok(dispatch!(
            gather_prep,
            a.len(),
            input.dt.kind(),
            (&input, dim, &index)
        ))
    })?;
    Ok(Plan::Call {
        run,
        dt: input.dt,
        shape: index.shape.clone(),
        size: a[dim],
        index,
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

/// Decodes and checks one operation request (without id).
fn plan(req: &Map<String, Value>, rules: Rules) -> R<Plan> {
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
            op_scatter(s, dim, index, src, value, reduce, rules)
        }
        "scatter_add" => op_scatter(
            f.tensor("self")?,
            f.int("dim")?,
            f.tensor("index")?,
            Some(f.tensor("src")?),
            None,
            Some("add"),
            rules,
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
                rules,
            )
        }
        "index_reduce" => {
            let reduce = match f.str("reduce")? {
                Some(r) => r,
                None => return err("invalid_argument", "index_reduce needs reduce"),
            };
            op_index_reduce(
                f.tensor("self")?,
                f.int("dim")?,
                f.tensor("index")?,
                f.tensor("source")?,
                reduce,
                f.bool("include_self", true)?,
            )
        }
        "gather" => op_gather(f.tensor("input")?, f.int("dim")?, f.tensor("index")?, rules),
        _ => unsupported(format!("op {op:?} is not offered")),
    }
}

fn hello_answer(id: i64) -> Value {
    let dtypes: Vec<&str> = CLAIMED.iter().map(|d| d.name()).collect();
    json!({
        "id": id,
        "protocol": PROTOCOL,
        "name": "burn",
        "version": format!("{BURN_VERSION} (burn-ndarray {BURN_NDARRAY_VERSION}, cpu)"),
        "ops": ["scatter", "scatter_add", "scatter_reduce", "index_reduce", "gather"],
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

/// The optional timing request: the call decoded once (its Burn tensors
/// made once), run `repeat` times, each run timed alone (the Burn calls,
/// without making the tensors or reading the result).
fn bench(req: &Map<String, Value>, rules: Rules) -> R<Vec<f64>> {
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
    let p = plan(call, rules)?;
    let mut seconds = Vec::with_capacity(repeat as usize);
    for _ in 0..repeat {
        let t0 = Instant::now();
        let done = match &p {
            Plan::Ready(_) => None,
            Plan::Call { .. } => Some(p.call()?),
        };
        seconds.push(t0.elapsed().as_secs_f64());
        drop(done);
    }
    Ok(seconds)
}

/// The answer to one request line.
fn answer(line: &str, rules: Rules) -> Value {
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
        Some("bench") => match bench(obj, rules) {
            Ok(s) => json!({"id": id, "seconds": s}),
            Err(f) => fail_answer(id, f),
        },
        _ => match plan(obj, rules).and_then(|p| p.execute()) {
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

fn usage() -> ! {
    eprintln!(
        "usage: burn-scatter [--profile torch-2 | torch-2.6]   (speaks PROTOCOL.md on stdin/stdout)"
    );
    std::process::exit(2);
}

fn main() {
    let mut rules = Rules::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--profile" => {
                rules = match args.next().as_deref() {
                    Some("torch-2") => Rules::Torch2,
                    Some("torch-2.6") => Rules::Torch26,
                    _ => usage(),
                }
            }
            "--version" => {
                println!("burn-scatter (burn-tensor {BURN_VERSION}, burn-ndarray {BURN_NDARRAY_VERSION})");
                return;
            }
            _ => usage(),
        }
    }
    panic::set_hook(Box::new(panic_hook));
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
                eprintln!("burn-scatter: reading a request: {e}");
                std::process::exit(1);
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        // Burn's panics are caught where Burn is called (Plan::call); one
        // anywhere else is the adapter's own bug: not turned into an
        // answer, the process exits and the gate reports a crash.
        let a = match panic::catch_unwind(AssertUnwindSafe(|| answer(&line, rules))) {
            Ok(a) => a,
            Err(p) => {
                eprintln!(
                    "burn-scatter: panic answering {}: {}",
                    line.chars().take(200).collect::<String>(),
                    panic_text(p.as_ref())
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
    //! and PROFILES.md record (torch 2.14.1, and 2.6.0 where said), and the
    //! Burn behaviours the adapter's choices rest on. `cargo test --release
    //! --locked` (the release profile reuses the adapter's build).
    use super::*;

    fn kind<T>(r: R<T>) -> &'static str {
        match r {
            Ok(_) => "ok",
            Err(Fail::Error(k, _)) => k,
            Err(Fail::Unsupported(_)) => "unsupported",
        }
    }

    fn wire(dt: WireType, shape: &[usize]) -> Wire {
        let n: usize = shape.iter().product();
        Wire {
            dt,
            shape: shape.to_vec(),
            raw: vec![0; n * dt.size()],
        }
    }

    fn f32s(shape: &[usize], v: &[f32]) -> Wire {
        Wire {
            dt: WireType::F32,
            shape: shape.to_vec(),
            raw: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    fn i64s(shape: &[usize], v: &[i64]) -> Wire {
        Wire {
            dt: WireType::I64,
            shape: shape.to_vec(),
            raw: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    fn values_f32(w: &Wire) -> Vec<f32> {
        le(&w.raw, f32::from_le_bytes)
    }

    #[test]
    fn convert_scalar_uint8_negative_int_wraps_down_to_minus_255() {
        let t2 = Rules::Torch2;
        assert_eq!(
            convert_scalar(Scalar::Int(-1), WireType::U8, t2).ok(),
            Some(vec![255])
        );
        assert_eq!(
            convert_scalar(Scalar::Int(-255), WireType::U8, t2).ok(),
            Some(vec![1])
        );
        assert_eq!(
            kind(convert_scalar(Scalar::Int(-256), WireType::U8, t2)),
            "value_overflow"
        );
        assert_eq!(
            kind(convert_scalar(Scalar::Int(256), WireType::U8, t2)),
            "value_overflow"
        );
        assert_eq!(
            kind(convert_scalar(Scalar::Int(128), WireType::I8, t2)),
            "value_overflow"
        );
        // into bool, nothing overflows: non-zero is true
        assert_eq!(
            convert_scalar(Scalar::Float(f64::NAN), WireType::Bool, t2).ok(),
            Some(vec![1])
        );
        assert_eq!(
            convert_scalar(Scalar::Int(0), WireType::Bool, t2).ok(),
            Some(vec![0])
        );
    }

    #[test]
    fn convert_scalar_float_into_integer_by_profile() {
        // 2.14: uint8 255.5 gives 255, int64 2^63 raises, -1.5 into int16 is -1.
        let t2 = Rules::Torch2;
        assert_eq!(
            convert_scalar(Scalar::Float(255.5), WireType::U8, t2).ok(),
            Some(vec![255])
        );
        assert_eq!(
            kind(convert_scalar(Scalar::Float(256.0), WireType::U8, t2)),
            "value_overflow"
        );
        let two63 = 9223372036854775808.0;
        assert_eq!(
            kind(convert_scalar(Scalar::Float(two63), WireType::I64, t2)),
            "value_overflow"
        );
        assert_eq!(
            convert_scalar(Scalar::Float(-1.5), WireType::I16, t2).ok(),
            Some((-1i16).to_le_bytes().to_vec())
        );
        assert_eq!(
            kind(convert_scalar(Scalar::Float(f64::NAN), WireType::I32, t2)),
            "value_overflow"
        );
        // 2.6: the closed range as doubles: uint8 255.5 raises, int64 2^63 wraps.
        let t26 = Rules::Torch26;
        assert_eq!(
            kind(convert_scalar(Scalar::Float(255.5), WireType::U8, t26)),
            "value_overflow"
        );
        assert_eq!(
            convert_scalar(Scalar::Float(two63), WireType::I64, t26).ok(),
            Some(i64::MIN.to_le_bytes().to_vec())
        );
    }

    #[test]
    fn convert_scalar_float32_range_and_rounding() {
        let t2 = Rules::Torch2;
        assert_eq!(
            kind(convert_scalar(Scalar::Float(1e39), WireType::F32, t2)),
            "value_overflow"
        );
        assert_eq!(
            convert_scalar(Scalar::Float(f64::NEG_INFINITY), WireType::F32, t2).ok(),
            Some(f32::NEG_INFINITY.to_le_bytes().to_vec())
        );
        // an int64 goes to float32 in one rounding: 2^24 + 1 is 2^24.
        assert_eq!(
            convert_scalar(Scalar::Int((1 << 24) + 1), WireType::F32, t2).ok(),
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

    #[test]
    fn scatter_checks_src_of_fewer_dims_is_dim_out_of_range() {
        let t2 = Rules::Torch2;
        // self [4,1], index [3,1], src [3]: PyTorch reads src.size(1) first.
        let (s, i, r) = (
            wire(WireType::F32, &[4, 1]),
            wire(WireType::I64, &[3, 1]),
            wire(WireType::F32, &[3]),
        );
        assert_eq!(
            kind(scatter_checks(&s, 0, &i, Some(&r), t2)),
            "dim_out_of_range"
        );
        // an index larger than self apart from dim skips the src loop: shape_mismatch
        let i = wire(WireType::I64, &[3, 2]);
        assert_eq!(
            kind(scatter_checks(&s, 0, &i, Some(&r), t2)),
            "shape_mismatch"
        );
        // an empty index skips the shape rules, not the dtype rules
        let e = wire(WireType::I64, &[0]);
        assert_eq!(kind(scatter_checks(&s, 0, &e, Some(&r), t2)), "ok");
        let r64 = wire(WireType::F64, &[3]);
        assert_eq!(
            kind(scatter_checks(&s, 0, &e, Some(&r64), t2)),
            "dtype_mismatch"
        );
        // int32 indices: 2.14 takes them, 2.6 does not
        let i32x = wire(WireType::I32, &[3, 1]);
        let src = wire(WireType::F32, &[3, 1]);
        assert_eq!(kind(scatter_checks(&s, 0, &i32x, Some(&src), t2)), "ok");
        assert_eq!(
            kind(scatter_checks(&s, 0, &i32x, Some(&src), Rules::Torch26)),
            "index_dtype"
        );
    }

    #[test]
    fn index_reduce_checks_in_pytorch_2_order() {
        let s = wire(WireType::F32, &[3, 2]);
        let i = wire(WireType::I64, &[2]);
        let src = wire(WireType::F32, &[2, 2]);
        assert_eq!(kind(index_reduce_checks(&s, 0, &i, &src, "amax")), "ok");
        // the reduce name first (no sum), even before the dim
        assert_eq!(
            kind(index_reduce_checks(&s, 5, &i, &src, "sum")),
            "invalid_argument"
        );
        // an int16 index is rejected even when empty
        let e16 = wire(WireType::I16, &[0]);
        assert_eq!(
            kind(index_reduce_checks(&s, 0, &e16, &src, "prod")),
            "index_dtype"
        );
        // a 0-d source with an index of two: PyTorch reads its size first
        let s0 = wire(WireType::F32, &[]);
        assert_eq!(
            kind(index_reduce_checks(&s, 0, &i, &s0, "prod")),
            "dim_out_of_range"
        );
        // PyTorch 2: nothing broadcasts (a source slice [1] against [2])
        let narrow = wire(WireType::F32, &[2, 1]);
        assert_eq!(
            kind(index_reduce_checks(&s, 0, &i, &narrow, "prod")),
            "shape_mismatch"
        );
        // a 0-d source needs a 0-d self
        let one = wire(WireType::I64, &[1]);
        assert_eq!(kind(index_reduce_checks(&s0, 0, &one, &s0, "amin")), "ok");
        let s1 = wire(WireType::F32, &[1]);
        assert_eq!(
            kind(index_reduce_checks(&s1, 0, &one, &s0, "amin")),
            "shape_mismatch"
        );
    }

    #[test]
    fn value_overflow_after_the_first_index_values_bounds_check() {
        // scatter(zeros(1), 0, [-1], 1e39): PyTorch checks index[0]'s bounds
        // before it converts the value for it: index_out_of_range; with
        // index [0, 5] the value's overflow comes first.
        let s = f32s(&[1], &[0.]);
        let v = Some(Scalar::Float(1e39));
        let first_bad = op_scatter(
            s.clone(),
            0,
            i64s(&[1], &[-1]),
            None,
            v,
            None,
            Rules::Torch2,
        );
        assert_eq!(kind(first_bad), "index_out_of_range");
        let first_ok = op_scatter(s, 0, i64s(&[2], &[0, 5]), None, v, None, Rules::Torch2);
        assert_eq!(kind(first_ok), "value_overflow");
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
    }

    #[test]
    fn leading_id_of_a_malformed_line() {
        assert_eq!(leading_id(r#"{"id": 42, "op": nope}"#), 42);
        assert_eq!(leading_id(r#"{"id":-7,"#), -7);
        assert_eq!(leading_id("garbage"), 0);
    }

    // ------------------------------------------------ through Burn

    #[test]
    fn scatter_add_with_a_smaller_index_writes_the_block_back() {
        // self zeros [3,2], dim 0, index [[2],[2]] ([2,1]: smaller in dim 1),
        // src [[1,7],[2,7],[9,9]]: only src[0][0] and src[1][0] reach self[2][0].
        let s = f32s(&[3, 2], &[0.; 6]);
        let i = i64s(&[2, 1], &[2, 2]);
        let src = f32s(&[3, 2], &[1., 7., 2., 7., 9., 9.]);
        let p = op_scatter(s, 0, i, Some(src), None, Some("add"), Rules::Torch2).unwrap();
        let out = p.execute().unwrap();
        assert_eq!(values_f32(&out), vec![0., 0., 0., 0., 3., 0.]);
    }

    #[test]
    fn gather_with_a_smaller_index_reads_the_narrowed_input() {
        // gather(arange(4.).reshape(2,2,1), 2, zeros(2,1,1)) is [0, 2].
        let input = f32s(&[2, 2, 1], &[0., 1., 2., 3.]);
        let i = i64s(&[2, 1, 1], &[0, 0]);
        let out = op_gather(input, 2, i, Rules::Torch2)
            .unwrap()
            .execute()
            .unwrap();
        assert_eq!(values_f32(&out), vec![0., 2.]);
        assert_eq!(out.shape, vec![2, 1, 1]);
    }

    #[test]
    fn an_index_out_of_range_is_burns_panic_answered_index_out_of_range() {
        let s = f32s(&[3], &[1., 2., 3.]);
        for v in [3, -1] {
            let p = op_scatter(
                s.clone(),
                0,
                i64s(&[1], &[v]),
                Some(f32s(&[1], &[9.])),
                None,
                None,
                Rules::Torch2,
            )
            .unwrap();
            assert_eq!(kind(p.execute()), "index_out_of_range");
        }
        let p = op_index_reduce(
            f32s(&[3, 1], &[1., 2., 3.]),
            0,
            i64s(&[1], &[3]),
            f32s(&[1, 1], &[9.]),
            "prod",
            false,
        )
        .unwrap();
        assert_eq!(kind(p.execute()), "index_out_of_range");
        // and Burn goes on answering afterwards
        let p = op_gather(s, 0, i64s(&[2], &[2, 0]), Rules::Torch2).unwrap();
        assert_eq!(values_f32(&p.execute().unwrap()), vec![3., 1.]);
    }

    #[test]
    fn integer_sums_and_products_wrap() {
        // int8 127 + 1 + 1 is -127 (release profile: no overflow checks).
        let s = Wire {
            dt: WireType::I8,
            shape: vec![1],
            raw: vec![127],
        };
        let src = Wire {
            dt: WireType::I8,
            shape: vec![2],
            raw: vec![1, 1],
        };
        let out = op_scatter(
            s,
            0,
            i64s(&[2], &[0, 0]),
            Some(src),
            None,
            Some("add"),
            Rules::Torch2,
        )
        .unwrap()
        .execute()
        .unwrap();
        assert_eq!(out.raw, vec![(-127i8) as u8]);
    }

    #[test]
    fn include_self_false_replaces_the_targets() {
        // scatter_reduce amin, self [5, 5], index [0, 0], src [7, 8],
        // include_self=false: [7, 5]; index_reduce prod likewise [56, 5].
        let p = op_scatter_reduce(
            f32s(&[2], &[5., 5.]),
            0,
            i64s(&[2], &[0, 0]),
            f32s(&[2], &[7., 8.]),
            "amin",
            false,
            Rules::Torch2,
        )
        .unwrap();
        assert_eq!(values_f32(&p.execute().unwrap()), vec![7., 5.]);
        let p = op_index_reduce(
            f32s(&[2], &[5., 5.]),
            0,
            i64s(&[2], &[0, 0]),
            f32s(&[2], &[7., 8.]),
            "prod",
            false,
        )
        .unwrap();
        assert_eq!(values_f32(&p.execute().unwrap()), vec![56., 5.]);
    }

    #[test]
    fn burn_max_drops_a_nan_in_src() {
        // The difference tools/adapters/xfail/burn.txt lists: PyTorch's amax
        // gives [nan, 2]; Burn's IndexingUpdateOp::Max compares with >.
        let p = op_scatter_reduce(
            f32s(&[2], &[1., 1.]),
            0,
            i64s(&[3], &[0, 0, 1]),
            f32s(&[3], &[f32::NAN, 5., 2.]),
            "amax",
            true,
            Rules::Torch2,
        )
        .unwrap();
        assert_eq!(values_f32(&p.execute().unwrap()), vec![5., 2.]);
    }

    #[test]
    fn burn_bool_scatter_has_or_only() {
        // The reason bool scatter (set), multiply, prod, amax and amin are
        // answered unsupported: Burn's bool scatter with Assign panics
        // (unimplemented!()), and Add is a logical or, as PyTorch's bool +=.
        let dev = device();
        let mk = |v: Vec<bool>| {
            let n = v.len();
            Tensor::<1, Bool>::from_data(TensorData::new(v, [n]), &dev)
        };
        let idx =
            Tensor::<1, Int>::from_data(TensorData::new(vec![1i64, 1], [2]), (&dev, DType::I64));
        let set = panic::catch_unwind(AssertUnwindSafe(|| {
            mk(vec![false, false]).scatter(
                0,
                idx.clone(),
                mk(vec![true, false]),
                IndexingUpdateOp::Assign,
            )
        }));
        assert!(
            set.is_err(),
            "Burn's bool scatter Assign now works: claim it"
        );
        let or =
            mk(vec![false, false]).scatter(0, idx, mk(vec![true, false]), IndexingUpdateOp::Add);
        assert_eq!(
            or.into_data().try_to_vec::<bool>().unwrap(),
            vec![false, true]
        );
    }

    #[test]
    fn hello_claims_what_burns_ndarray_backend_has() {
        let h = hello_answer(0);
        assert_eq!(h["dtypes"].as_array().unwrap().len(), CLAIMED.len());
        for w in CLAIMED {
            assert!(w.burn().is_some(), "{} claimed", w.name());
        }
        assert_eq!(h["deterministic"], json!(true));
    }
}
