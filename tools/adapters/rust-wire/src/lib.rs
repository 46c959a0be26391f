//! scatter-adapter-wire: what the scatter conformance suite's Rust adapters
//! (tools/adapters/candle, tools/adapters/burn) share, as the Python
//! adapters share tools/adapters/wire.py and torchrules.py:
//!
//! - the protocol's tensors and scalars (PROTOCOL.md, version 1): their
//!   dtypes ([`WireType`]), decoding ([`decode_tensor`], [`decode_scalar`])
//!   and encoding ([`Wire::encode`]);
//! - the answers that are not a tensor ([`Fail`], [`err`], [`unsupported`]);
//! - the argument rules of each PyTorch call that every adapter checks
//!   before it calls its framework (the dim range, the index dtype, the
//!   dtype match, the shape rules, the reduce names, a scalar's checked
//!   conversion), for the PyTorch of a profile ([`Rules`]);
//! - the request fields ([`Fields`]), and the request loop: hello, bench
//!   and the operations, one JSON request a line on standard input, one
//!   answer a line on standard output ([`serve`], through an [`Adapter`]).
//!
//! What is the framework's own (its tensors, its calls, its errors, what it
//! claims) stays in each adapter.

use std::any::Any;
use std::io::{BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use half::{bf16, f16};
use serde_json::{json, Map, Value};

/// The protocol's version, said in the hello answer.
pub const PROTOCOL: i64 = 1;

/// The most elements one tensor may have (SCATTER_ADAPTER_MAX_ELEMS), so
/// that a request cannot make the adapter allocate without bound.
pub const DEFAULT_MAX_ELEMS: usize = 1 << 26;

// ------------------------------------------------------------- rejections

/// A call that is not answered with a tensor: a protocol error of a kind,
/// or `unsupported`.
#[derive(Debug)]
pub enum Fail {
    Error(&'static str, String),
    Unsupported(String),
}

pub type R<T> = Result<T, Fail>;

/// The protocol error of the given kind.
pub fn err<T>(kind: &'static str, message: impl Into<String>) -> R<T> {
    Err(Fail::Error(kind, message.into()))
}

/// The `unsupported` answer, with its reason.
pub fn unsupported<T>(message: impl Into<String>) -> R<T> {
    Err(Fail::Unsupported(message.into()))
}

/// What r answers, in one word: "ok", the error's kind, or "unsupported"
/// (for the adapters' unit tests).
pub fn outcome<T>(r: R<T>) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(Fail::Error(k, _)) => k,
        Err(Fail::Unsupported(_)) => "unsupported",
    }
}

// ---------------------------------------------------------------- tensors

/// The protocol's dtypes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireType {
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
    /// The dtype of a protocol name ("float32"), None for an unknown one.
    pub fn parse(s: &str) -> Option<WireType> {
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

    /// The protocol's name of the dtype (PyTorch's, without `torch.`).
    pub fn name(self) -> &'static str {
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

    /// The bytes of one element (a bool is one byte, 0 or 1).
    pub fn size(self) -> usize {
        match self {
            WireType::Bool | WireType::U8 | WireType::I8 => 1,
            WireType::I16 | WireType::F16 | WireType::BF16 => 2,
            WireType::I32 | WireType::F32 => 4,
            WireType::I64 | WireType::F64 => 8,
        }
    }

    /// Whether the dtype is a floating-point one (PyTorch's
    /// is_floating_point).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            WireType::F16 | WireType::BF16 | WireType::F32 | WireType::F64
        )
    }
}

/// A decoded protocol tensor: contiguous, row-major, little-endian bytes.
#[derive(Clone, Debug)]
pub struct Wire {
    pub dt: WireType,
    pub shape: Vec<usize>,
    pub raw: Vec<u8>,
}

impl Wire {
    /// A tensor of shape whose every element is one (its little-endian
    /// bytes, of dtype dt).
    pub fn filled(dt: WireType, shape: &[usize], one: &[u8]) -> Wire {
        let n: usize = shape.iter().product();
        Wire {
            dt,
            shape: shape.to_vec(),
            raw: one.repeat(n),
        }
    }

    /// A tensor of zeros of dtype dt and the given shape (all bytes 0: 0,
    /// 0.0 or false); with no elements, PyTorch's answer to an empty index.
    pub fn zeros(dt: WireType, shape: &[usize]) -> Wire {
        let n: usize = shape.iter().product();
        Wire {
            dt,
            shape: shape.to_vec(),
            raw: vec![0; n * dt.size()],
        }
    }

    /// The number of elements (1 for a 0-d tensor).
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The number of dimensions (0 for a 0-d tensor).
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The shape with a 0-d tensor seen as [1] (PyTorch's scatter and
    /// gather treat a 0-d tensor as 1-d).
    pub fn shape1(&self) -> Vec<usize> {
        if self.shape.is_empty() {
            vec![1]
        } else {
            self.shape.clone()
        }
    }

    /// The index values as i64 (an int32 index widened), or None for a
    /// dtype that is not an index dtype.
    pub fn index_values(&self) -> Option<Vec<i64>> {
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

    /// The protocol's form of the tensor: dtype, shape and base64 data.
    pub fn encode(&self) -> Value {
        json!({"dtype": self.dt.name(), "shape": self.shape, "data": B64.encode(&self.raw)})
    }
}

/// The little-endian elements of raw, each decoded by f.
pub fn le<T, const N: usize>(raw: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
    raw.chunks_exact(N)
        .map(|c| f(c.try_into().unwrap()))
        .collect()
}

/// The element limit: SCATTER_ADAPTER_MAX_ELEMS, else DEFAULT_MAX_ELEMS.
fn max_elems() -> usize {
    std::env::var("SCATTER_ADAPTER_MAX_ELEMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_MAX_ELEMS)
}

/// The protocol tensor v (argument `name`): an object with dtype, shape
/// (at most 64 non-negative sizes) and base64 data of exactly the shape's
/// bytes (a bool byte 0 or 1); strides are not claimed. A tensor of more
/// than the element limit is answered `unsupported`.
pub fn decode_tensor(v: &Value, name: &str) -> R<Wire> {
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
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

/// The protocol scalar v (argument `name`): an integer outside int64 is
/// an invalid_argument (PyTorch's Python scalar would be too); a number
/// with a fraction or an exponent is a float, read correctly rounded
/// (serde_json's float_roundtrip).
pub fn decode_scalar(v: &Value, name: &str) -> R<Scalar> {
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
pub fn dtype_range(dt: WireType) -> (f64, f64) {
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

/// Whether integer i is inside the integer dtype's range exactly (int8,
/// int16, int32; int64 always; uint8 and bool are the caller's).
pub fn int_fits(i: i64, dt: WireType) -> bool {
    match dt {
        WireType::I8 => i8::try_from(i).is_ok(),
        WireType::I16 => i16::try_from(i).is_ok(),
        WireType::I32 => i32::try_from(i).is_ok(),
        _ => true,
    }
}

/// The PyTorch whose argument rules an adapter checks (burn's `--profile`
/// flag, named as the gate's profiles; candle checks torch-2's): the rules
/// of the default torch-2 (2.14) and of torch-2.6 differ in two places
/// that reach these operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rules {
    /// PyTorch 2.8 and later (verified 2.14): int32 indices everywhere,
    /// a float scalar into an integer dtype in the half-open [lowest, max+1).
    #[default]
    Torch2,
    /// PyTorch 2.0 to 2.7 (verified 2.6): scatter, scatter_add,
    /// scatter_reduce and gather take int64 indices only; a float scalar
    /// into an integer dtype in the closed [lowest, max] as doubles.
    Torch26,
}

/// c10's checked `Scalar::to<T>()`, the conversion of scatter's `value`
/// (the framework never sees the scalar: it gets a tensor filled with the
/// converted value) and of a reduction's identity. It fails with
/// value_overflow: from an int, outside [lowest, max], except that uint8
/// takes negative ints down to -255 (they wrap: -1 is 255); from a float,
/// NaN into an integer dtype, a finite value outside [lowest, max] for a
/// float dtype (float16 70000.0 fails, it does not round to inf), outside
/// the half-open [lowest, max + 1) for an integer dtype under torch-2 (the
/// closed [lowest, max] as doubles under torch-2.6, where int64 2^63
/// passes and wraps to -2^63); +-inf is fine into a float dtype; nothing
/// overflows bool. The conversion: float to integer truncates toward zero;
/// to float32 an int64 rounds once; to float16 and bfloat16 a value rounds
/// to float32 first, then to nearest even; a bool is 0 or 1; anything into
/// bool is "not zero". Returns the element's little-endian bytes.
pub fn convert_scalar(s: Scalar, dt: WireType, rules: Rules) -> R<Vec<u8>> {
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
    // float32 is made from an int64 in one rounding, and a 16-bit float is
    // made from a float32: an int64 or a double rounds to float32 first.
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
        WireType::F16 => f16::from_f32(as_f32).to_bits().to_le_bytes().to_vec(),
        WireType::BF16 => bf16::from_f32(as_f32).to_bits().to_le_bytes().to_vec(),
        WireType::F32 => as_f32.to_le_bytes().to_vec(),
        WireType::F64 => as_f64.to_le_bytes().to_vec(),
    })
}

// ---------------------------------- PyTorch's argument rules (not values)

/// maybe_wrap_dim: a 0-d tensor counts as 1-d.
pub fn wrap_dim(dim: i64, ndim: usize) -> R<usize> {
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
pub fn is_index_dtype(dt: WireType, rules: Rules) -> bool {
    dt == WireType::I64 || (dt == WireType::I32 && rules == Rules::Torch2)
}

/// scatter_meta_impl's checks, in PyTorch's order (SEMANTICS.md 1.3): the
/// dim, the index dtype (int32 and int64 under torch-2, int64 under
/// torch-2.6), src's dtype, then scatter_shape_check unless the index is
/// empty (a src of fewer dimensions, not 0-d, is dim_out_of_range, as
/// PyTorch reads its sizes first). The reduce name is validated after
/// them, by the caller of each op. Returns the wrapped dim.
pub fn scatter_checks(
    s: &Wire,
    dim: i64,
    index: &Wire,
    src: Option<&Wire>,
    rules: Rules,
) -> R<usize> {
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

/// gather's checks (gather_meta, gather_shape_check), in PyTorch's order:
/// the dim, and for a non-empty index only, the index dtype (as
/// [`is_index_dtype`]) and an index of input's rank, no larger than input
/// apart from dim. Returns the wrapped dim.
pub fn gather_checks(input: &Wire, dim: i64, index: &Wire, rules: Rules) -> R<usize> {
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

/// torch.Tensor.scatter_'s reduce argument (the deprecated reduce=).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    /// No reduce: each target takes the value.
    None,
    /// reduce='add': +=.
    Add,
    /// reduce='multiply': *=.
    Multiply,
}

/// scatter's reduce argument: none, 'add' or 'multiply', else
/// invalid_argument (checked after [`scatter_checks`]).
pub fn scatter_reduce_arg(reduce: Option<&str>) -> R<ScatterReduce> {
    match reduce {
        None => Ok(ScatterReduce::None),
        Some("add") => Ok(ScatterReduce::Add),
        Some("multiply") => Ok(ScatterReduce::Multiply),
        Some(_) => err(
            "invalid_argument",
            "reduce argument must be either add or multiply.",
        ),
    }
}

/// scatter_reduce's reduce argument: PyTorch 2's aliases (max is amax, min
/// is amin), and invalid_argument for a name other than sum, prod, mean,
/// amax and amin (checked after [`scatter_checks`]). Returns the name.
pub fn scatter_reduce_name(reduce: &str) -> R<&'static str> {
    Ok(match reduce {
        "sum" => "sum",
        "prod" => "prod",
        "mean" => "mean",
        "amax" | "max" => "amax",
        "amin" | "min" => "amin",
        _ => {
            return err(
                "invalid_argument",
                "reduce argument must be either sum, prod, mean, amax or amin.",
            )
        }
    })
}

/// The first index value (in row-major order) when it is outside
/// [0, size), else None (also for a dtype that is not an index dtype).
/// PyTorch converts scatter's value element by element, each after its
/// index element's bounds check: the first index element decides between
/// index_out_of_range and value_overflow (scatter(zeros(1), 0, [-1], 1e39)
/// is the former, with index [0, 5] the latter), a check the adapter makes
/// itself, since its framework never sees the value.
pub fn first_index_out_of_range(index: &Wire, size: usize) -> Option<i64> {
    match index.index_values()?.first() {
        Some(&v) if v < 0 || v as u64 >= size as u64 => Some(v),
        _ => None,
    }
}

// ---------------------------------------------------------------- requests

/// The fields of one request object.
pub struct Fields<'a>(pub &'a Map<String, Value>);

impl Fields<'_> {
    /// Whether key is given (a null counts as absent).
    pub fn has(&self, key: &str) -> bool {
        matches!(self.0.get(key), Some(v) if !v.is_null())
    }

    /// The tensor argument key (required).
    pub fn tensor(&self, key: &str) -> R<Wire> {
        match self.0.get(key) {
            Some(v) if !v.is_null() => decode_tensor(v, key),
            _ => err("invalid_argument", format!("missing {key}")),
        }
    }

    /// The integer argument key (required), such as dim.
    pub fn int(&self, key: &str) -> R<i64> {
        match self.0.get(key).and_then(Value::as_i64) {
            Some(i) => Ok(i),
            _ => err(
                "invalid_argument",
                format!("{key} must be a 64-bit integer"),
            ),
        }
    }

    /// The string argument key, None when absent or null.
    pub fn str(&self, key: &str) -> R<Option<&str>> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => err("invalid_argument", format!("{key} must be a string")),
        }
    }

    /// The bool argument key, default when absent or null.
    pub fn bool(&self, key: &str, default: bool) -> R<bool> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => err("invalid_argument", format!("{key} must be true or false")),
        }
    }

    /// torch.Tensor.scatter's arguments, in this order: self, dim, index,
    /// reduce (None or a name, checked by the op), then exactly one of src
    /// (a tensor) and value (a protocol scalar), PyTorch's two overloads.
    pub fn scatter(&self) -> R<ScatterArgs<'_>> {
        let (s, dim, index) = (
            self.tensor("self")?,
            self.int("dim")?,
            self.tensor("index")?,
        );
        let reduce = self.str("reduce")?;
        if self.has("src") == self.has("value") {
            return err(
                "invalid_argument",
                "scatter needs exactly one of src and value",
            );
        }
        let src = if self.has("src") {
            Some(self.tensor("src")?)
        } else {
            None
        };
        let value = if self.has("value") {
            Some(decode_scalar(&self.0["value"], "value")?)
        } else {
            None
        };
        Ok((s, dim, index, src, value, reduce))
    }

    /// torch.Tensor.scatter_add's arguments: self, dim, index, src.
    pub fn scatter_add(&self) -> R<(Wire, i64, Wire, Wire)> {
        Ok((
            self.tensor("self")?,
            self.int("dim")?,
            self.tensor("index")?,
            self.tensor("src")?,
        ))
    }

    /// torch.Tensor.scatter_reduce's arguments: reduce (required, read
    /// first; its name is checked by the op), then self, dim, index, src
    /// and include_self (default true).
    pub fn scatter_reduce(&self) -> R<ReduceArgs<'_>> {
        let reduce = self.reduce("scatter_reduce")?;
        Ok((
            self.tensor("self")?,
            self.int("dim")?,
            self.tensor("index")?,
            self.tensor("src")?,
            reduce,
            self.bool("include_self", true)?,
        ))
    }

    /// torch.Tensor.index_reduce's arguments: reduce (required, read
    /// first; its name is checked by the op), then self, dim, index,
    /// source and include_self (default true).
    pub fn index_reduce(&self) -> R<ReduceArgs<'_>> {
        let reduce = self.reduce("index_reduce")?;
        Ok((
            self.tensor("self")?,
            self.int("dim")?,
            self.tensor("index")?,
            self.tensor("source")?,
            reduce,
            self.bool("include_self", true)?,
        ))
    }

    /// torch.gather's arguments: input, dim, index.
    pub fn gather(&self) -> R<(Wire, i64, Wire)> {
        Ok((
            self.tensor("input")?,
            self.int("dim")?,
            self.tensor("index")?,
        ))
    }

    /// The reduce argument of op, which op requires.
    fn reduce(&self, op: &str) -> R<&str> {
        match self.str("reduce")? {
            Some(r) => Ok(r),
            None => err("invalid_argument", format!("{op} needs reduce")),
        }
    }
}

/// scatter's arguments: self, dim, index, src, value, reduce.
pub type ScatterArgs<'a> = (
    Wire,
    i64,
    Wire,
    Option<Wire>,
    Option<Scalar>,
    Option<&'a str>,
);

/// scatter_reduce's and index_reduce's arguments: self, dim, index, src
/// (source), reduce, include_self.
pub type ReduceArgs<'a> = (Wire, i64, Wire, Wire, &'a str, bool);

// ------------------------------------------------------------ the answers

/// One framework's side of the protocol: its hello, and its calls planned
/// (decoded, checked, the framework's tensors made) and run.
pub trait Adapter {
    /// A request once decoded and checked.
    type Plan;
    /// The result of one framework call, read afterwards (so that `bench`
    /// times the call alone).
    type Done;

    /// The hello answer (see [`hello`]).
    fn hello(&self, id: i64) -> Value;

    /// Decodes and checks one operation request (without id).
    fn plan(&self, req: &Map<String, Value>) -> R<Self::Plan>;

    /// Runs the plan's framework call alone: None for a plan answered
    /// without the framework (an empty index).
    fn call(&self, plan: &Self::Plan) -> R<Option<Self::Done>>;

    /// Runs the plan and reads its result as the answer's tensor.
    fn execute(&self, plan: &Self::Plan) -> R<Wire>;
}

/// The hello answer: the protocol's version, the implementation's name
/// and version, the ops and dtypes it claims, and whether it is
/// deterministic (judged at -level strict too).
pub fn hello(
    id: i64,
    name: &str,
    version: &str,
    ops: &[&str],
    dtypes: &[WireType],
    deterministic: bool,
) -> Value {
    let dtypes: Vec<&str> = dtypes.iter().map(|d| d.name()).collect();
    json!({
        "id": id,
        "protocol": PROTOCOL,
        "name": name,
        "version": version,
        "ops": ops,
        "dtypes": dtypes,
        "deterministic": deterministic,
    })
}

/// The answer of a call that failed: `unsupported`, or an error of a kind.
pub fn fail_answer(id: i64, f: Fail) -> Value {
    match f {
        Fail::Unsupported(m) => json!({"id": id, "unsupported": m}),
        Fail::Error(kind, m) => json!({"id": id, "error": {"kind": kind, "message": m}}),
    }
}

/// The optional timing request: the call decoded (and its framework
/// tensors made) once, run `repeat` times (1 to 100000), each run timed
/// alone ([`Adapter::call`], without decoding or reading the result).
pub fn bench<A: Adapter>(a: &A, req: &Map<String, Value>) -> R<Vec<f64>> {
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
    let p = a.plan(call)?;
    let mut seconds = Vec::with_capacity(repeat as usize);
    for _ in 0..repeat {
        let t0 = Instant::now();
        let done = a.call(&p)?;
        seconds.push(t0.elapsed().as_secs_f64());
        drop(done);
    }
    Ok(seconds)
}

/// The answer to one request line: hello, bench, or an operation's tensor
/// (or its failure); a line that is not a JSON object with an integer id
/// is an invalid_argument (of the id it starts with, if any).
pub fn answer<A: Adapter>(line: &str, a: &A) -> Value {
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
        Some("hello") => a.hello(id),
        Some("bench") => match bench(a, obj) {
            Ok(s) => json!({"id": id, "seconds": s}),
            Err(f) => fail_answer(id, f),
        },
        _ => match a.plan(obj).and_then(|p| a.execute(&p)) {
            Ok(w) => json!({"id": id, "out": w.encode()}),
            Err(f) => fail_answer(id, f),
        },
    }
}

/// The id of a line that is not JSON, when it starts like a request.
pub fn leading_id(line: &str) -> i64 {
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

/// A panic's message on one line (burn-tensor's argument checks panic
/// with a report of several).
pub fn panic_text(p: &(dyn Any + Send)) -> String {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string());
    msg.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The request loop of program `prog`: one JSON request a line on
/// standard input (blank lines skipped), one answer a line on standard
/// output, flushed, until the end of the input (or of the output). A
/// panic that reaches the loop is a crash of the implementation: it is
/// not turned into an answer (which the gate would judge as a result);
/// the process says where on standard error and exits 101, and the gate
/// reports a crash.
pub fn serve<A: Adapter>(prog: &str, a: &A) {
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
                eprintln!("{prog}: reading a request: {e}");
                std::process::exit(1);
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        let ans = match panic::catch_unwind(AssertUnwindSafe(|| answer(&line, a))) {
            Ok(ans) => ans,
            Err(p) => {
                eprintln!(
                    "{prog}: panic answering {}: {}",
                    line.chars().take(200).collect::<String>(),
                    panic_text(p.as_ref())
                );
                std::process::exit(101);
            }
        };
        let mut text = ans.to_string();
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
    //! The shared rules, on values whose PyTorch answers SEMANTICS.md and
    //! PROFILES.md record (torch 2.14.1, and 2.6.0 where said).
    //! `cargo test --release --locked`.
    use super::*;

    use super::outcome as kind;

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
    fn convert_scalar_16_bit_float_range_and_double_rounding() {
        let t2 = Rules::Torch2;
        // float16 70000.0 fails rather than rounding to inf; inf itself is fine.
        assert_eq!(
            kind(convert_scalar(Scalar::Float(70000.0), WireType::F16, t2)),
            "value_overflow"
        );
        assert_eq!(
            convert_scalar(Scalar::Float(f64::INFINITY), WireType::F16, t2).ok(),
            Some(f16::INFINITY.to_bits().to_le_bytes().to_vec())
        );
        // bfloat16 1 + 2^-8 + 2^-30 goes through float32 (1 + 2^-8, a tie) to 1.0.
        let v = 1.0 + 2f64.powi(-8) + 2f64.powi(-30);
        assert_eq!(
            convert_scalar(Scalar::Float(v), WireType::BF16, t2).ok(),
            Some(bf16::ONE.to_bits().to_le_bytes().to_vec())
        );
        // bfloat16's range is its max as a double.
        assert_eq!(dtype_range(WireType::BF16).1, 3.3895313892515355e38);
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
        let wire = Wire::zeros;
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
    fn scatter_reduce_name_takes_pytorch_2s_aliases() {
        assert_eq!(scatter_reduce_name("max").ok(), Some("amax"));
        assert_eq!(scatter_reduce_name("min").ok(), Some("amin"));
        assert_eq!(scatter_reduce_name("mean").ok(), Some("mean"));
        assert_eq!(kind(scatter_reduce_name("add")), "invalid_argument");
    }

    #[test]
    fn first_index_out_of_range_reads_the_first_element_only() {
        let idx = |v: &[i64]| Wire {
            dt: WireType::I64,
            shape: vec![v.len()],
            raw: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        };
        assert_eq!(first_index_out_of_range(&idx(&[-1]), 1), Some(-1));
        assert_eq!(first_index_out_of_range(&idx(&[0, 5]), 1), None);
        assert_eq!(first_index_out_of_range(&idx(&[1]), 1), Some(1));
        assert_eq!(first_index_out_of_range(&idx(&[]), 1), None);
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
            convert_scalar(Scalar::Float(f32::MAX as f64), WireType::F32, Rules::Torch2).ok(),
            Some(f32::MAX.to_le_bytes().to_vec())
        );
    }

    #[test]
    fn decode_tensor_checks_the_bytes_against_the_shape() {
        let t = |s: &str| decode_tensor(&serde_json::from_str(s).unwrap(), "self");
        let w = t(r#"{"dtype":"int16","shape":[2],"data":"AQACAA=="}"#).unwrap();
        assert_eq!(w.index_values(), None);
        assert_eq!(w.encode()["data"], json!("AQACAA=="));
        assert_eq!(
            kind(t(r#"{"dtype":"int16","shape":[3],"data":"AQACAA=="}"#)),
            "invalid_argument"
        );
        assert_eq!(
            kind(t(r#"{"dtype":"bool","shape":[1],"data":"Ag=="}"#)),
            "invalid_argument"
        );
        let i = t(r#"{"dtype":"int32","shape":[],"data":"/////w=="}"#).unwrap();
        assert_eq!((i.shape1(), i.index_values()), (vec![1], Some(vec![-1])));
    }

    #[test]
    fn leading_id_of_a_malformed_line() {
        assert_eq!(leading_id(r#"{"id": 42, "op": nope}"#), 42);
        assert_eq!(leading_id(r#"{"id":-7,"#), -7);
        assert_eq!(leading_id("garbage"), 0);
    }
}
