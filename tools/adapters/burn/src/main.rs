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

use std::cell::RefCell;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};

use burn_tensor::kind::Basic;
use burn_tensor::{
    Bool, BoolStore, DType, Device, Float, IndexingUpdateOp, Int, Tensor, TensorData,
};
use scatter_adapter_wire::*;
use serde_json::{Map, Value};

/// burn-tensor's and burn-ndarray's versions, read from Cargo.lock by build.rs.
const BURN_VERSION: &str = env!("BURN_VERSION");
const BURN_NDARRAY_VERSION: &str = env!("BURN_NDARRAY_VERSION");

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

// ---------------------------------------------------------------- tensors

/// Burn's three tensor kinds (`Tensor<D, Float | Int | Bool>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TensorKind {
    Float,
    Int,
    Bool,
}

/// Burn's side of the protocol's dtypes.
trait BurnType {
    /// Burn's dtype on the NdArray backend, None where it has none.
    fn burn(self) -> Option<DType>;
    /// Burn's tensor kind of the dtype.
    fn kind(self) -> TensorKind;
}

impl BurnType for WireType {
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
}

/// A protocol tensor as Burn's data, and back.
trait BurnWire: Sized {
    /// Burn's TensorData of these elements, of shape shape1().
    fn data(&self) -> TensorData;
    /// The wire form of Burn's result data, of dtype dt and the shape the
    /// answer has. Burn must keep the dtype: a result of another dtype is
    /// an error of the call.
    fn from_data(d: &TensorData, dt: WireType, shape: Vec<usize>) -> R<Self>;
}

impl BurnWire for Wire {
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
}

// ---------------------------------- PyTorch's argument rules (not values)

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

/// The steps of a reduction of values into self (scatter_reduce's src,
/// index_reduce's source, of the given shape) by op: with
/// include_self=false the reduction's identity is assigned to the targets
/// first, as PyTorch does, then op.
fn reduce_steps(
    s: &Wire,
    reduce: &str,
    include_self: bool,
    shape: &[usize],
    op: IndexingUpdateOp,
    values: Wire,
) -> Vec<Step> {
    let mut steps = Vec::new();
    if !include_self {
        steps.push(Step {
            op: IndexingUpdateOp::Assign,
            values: Wire::filled(s.dt, shape, &identity(reduce, s.dt)),
        });
    }
    steps.push(Step { op, values });
    steps
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
    let op = match scatter_reduce_arg(reduce)? {
        ScatterReduce::None => IndexingUpdateOp::Assign,
        ScatterReduce::Add => IndexingUpdateOp::Add,
        ScatterReduce::Multiply => IndexingUpdateOp::Mul,
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
                // PyTorch's bounds check of the first index element comes
                // before the value's conversion (first_index_out_of_range);
                // an index out of range elsewhere is Burn's panic, answered
                // by Plan::call.
                Err(overflow) => {
                    let size = s.shape1()[dim];
                    return match first_index_out_of_range(&index, size) {
                        Some(first) => err(
                            "index_out_of_range",
                            format!("index {first} is out of bounds for dimension {dim} with size {size}"),
                        ),
                        None => Err(overflow),
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
    let reduce = scatter_reduce_name(reduce)?;
    let op = match reduce {
        "sum" => IndexingUpdateOp::Add,
        "prod" => IndexingUpdateOp::Mul,
        "amax" => IndexingUpdateOp::Max,
        "amin" => IndexingUpdateOp::Min,
        _ => {
            return unsupported(
                "scatter_reduce 'mean': Burn has no scatter-mean (IndexingUpdateOp is Assign, Add, Mul, Min, Max)",
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
    let steps = reduce_steps(&s, reduce, include_self, &index.shape1(), op, src);
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
    let steps = reduce_steps(&s, reduce, include_self, &source.shape1(), op, source);
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
        return Ok(Plan::Ready(Wire::zeros(input.dt, &index.shape)));
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

/// Decodes and checks one operation request (without id).
fn plan(req: &Map<String, Value>, rules: Rules) -> R<Plan> {
    let f = Fields(req);
    let op = req.get("op").and_then(Value::as_str).unwrap_or("");
    match op {
        "scatter" => {
            let (s, dim, index, src, value, reduce) = f.scatter()?;
            op_scatter(s, dim, index, src, value, reduce, rules)
        }
        "scatter_add" => {
            let (s, dim, index, src) = f.scatter_add()?;
            op_scatter(s, dim, index, Some(src), None, Some("add"), rules)
        }
        "scatter_reduce" => {
            let (s, dim, index, src, reduce, include_self) = f.scatter_reduce()?;
            op_scatter_reduce(s, dim, index, src, reduce, include_self, rules)
        }
        "index_reduce" => {
            let (s, dim, index, source, reduce, include_self) = f.index_reduce()?;
            op_index_reduce(s, dim, index, source, reduce, include_self)
        }
        "gather" => {
            let (input, dim, index) = f.gather()?;
            op_gather(input, dim, index, rules)
        }
        _ => unsupported(format!("op {op:?} is not offered")),
    }
}

fn hello_answer(id: i64) -> Value {
    hello(
        id,
        "burn",
        &format!("{BURN_VERSION} (burn-ndarray {BURN_NDARRAY_VERSION}, cpu)"),
        &[
            "scatter",
            "scatter_add",
            "scatter_reduce",
            "index_reduce",
            "gather",
        ],
        &CLAIMED,
        true,
    )
}

/// The adapter: Burn's NdArray backend, checked under the rules of the
/// `--profile` flag.
#[derive(Clone, Copy, Default)]
struct Burn {
    rules: Rules,
}

impl Adapter for Burn {
    type Plan = Plan;
    type Done = Done;

    fn hello(&self, id: i64) -> Value {
        hello_answer(id)
    }

    fn plan(&self, req: &Map<String, Value>) -> R<Plan> {
        plan(req, self.rules)
    }

    /// The Burn calls alone (the tensors are made once, by plan; the
    /// result is read afterwards).
    fn call(&self, p: &Plan) -> R<Option<Done>> {
        match p {
            Plan::Ready(_) => Ok(None),
            Plan::Call { .. } => Ok(Some(p.call()?)),
        }
    }

    fn execute(&self, p: &Plan) -> R<Wire> {
        p.execute()
    }
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
    // Burn's panics are caught where Burn is called (Plan::call); one
    // anywhere else is the adapter's own bug, a crash (serve).
    panic::set_hook(Box::new(panic_hook));
    serve("burn-scatter", &Burn { rules });
}

#[cfg(test)]
mod tests {
    //! The adapter's own rules, on values whose PyTorch answers SEMANTICS.md
    //! and PROFILES.md record (torch 2.14.1, and 2.6.0 where said), and the
    //! Burn behaviours the adapter's choices rest on; the rules it shares
    //! with the candle adapter are tested in tools/adapters/rust-wire.
    //! `cargo test --release --locked` (the release profile reuses the
    //! adapter's build).
    use super::*;
    use scatter_adapter_wire::outcome as kind;
    use serde_json::json;

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
    fn index_reduce_checks_in_pytorch_2_order() {
        let wire = Wire::zeros;
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
