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

use candle_core::{DType, Device, Tensor};
use half::{bf16, f16};
use scatter_adapter_wire::*;
use serde_json::{Map, Value};

/// candle-core's version, read from Cargo.lock by build.rs.
const CANDLE_VERSION: &str = env!("CANDLE_VERSION");

/// The PyTorch whose argument rules the adapter checks: torch-2 (2.14).
const RULES: Rules = Rules::Torch2;

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

/// candle's side of the protocol's dtypes.
trait CandleType: Sized {
    /// candle's dtype, None where candle has none.
    fn candle(self) -> Option<DType>;
    /// The protocol dtype of candle's dtype dt, among those claimed.
    fn of(dt: DType) -> Option<Self>;
}

impl CandleType for WireType {
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
}

/// A protocol tensor as candle's, and back.
trait CandleWire: Sized {
    /// The candle tensor of this data, of shape shape1().
    fn to_candle(&self, name: &str) -> R<Tensor>;
    /// The wire form of candle tensor t (any layout), given the shape the
    /// answer has.
    fn from_candle(t: &Tensor, shape: Vec<usize>) -> R<Self>;
}

impl CandleWire for Wire {
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
}

/// The little-endian bytes of v's elements.
fn bytes<T, const N: usize>(
    v: candle_core::Result<Vec<T>>,
    f: impl Fn(T) -> [u8; N],
) -> R<Vec<u8>> {
    Ok(v.map_err(candle_fail)?.into_iter().flat_map(f).collect())
}

// ------------------------------------------------------------ candle's ids

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
        raw: convert_scalar(value, dt, RULES)?,
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
    let dim = scatter_checks(&s, dim, &index, src.as_ref(), RULES)?;
    let how = match scatter_reduce_arg(reduce)? {
        ScatterReduce::None => Update::Set,
        ScatterReduce::Add => Update::Add,
        ScatterReduce::Multiply => {
            return unsupported("scatter reduce='multiply': candle-core has no scatter-multiply")
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
            // PyTorch's bounds check of the first index element comes
            // before the value's conversion (first_index_out_of_range);
            // candle checks the index only when it runs, after the
            // conversion here. (i64::MAX, candle's padding id, is left to
            // index_tensor, which answers it unsupported.)
            let size = s.shape1()[dim];
            let first = first_index_out_of_range(&index, size);
            if let Some(bad) = first.filter(|&i| i != i64::MAX) {
                return err(
                    "index_out_of_range",
                    format!("index {bad} is out of bounds for dimension with size {size}"),
                );
            }
            value_tensor(v, s.dt, &index.shape1())?
        }
        (None, None) => unreachable!("checked by the caller"),
    };
    scatter_plan(&s, dim, &index, src, how)
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
    let dim = scatter_checks(&s, dim, &index, Some(&src), RULES)?;
    let reduce = scatter_reduce_name(reduce)?;
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
    let dim = gather_checks(&input, dim, &index, RULES)?;
    if input.dt.candle().is_none() {
        return unsupported(format!("candle-core has no {} dtype", input.dt.name()));
    }
    if index.numel() == 0 {
        return Ok(Plan::Ready(Wire::zeros(input.dt, &index.shape)));
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
            let (s, dim, index, src, value, reduce) = f.scatter()?;
            op_scatter(s, dim, index, src, value, reduce)
        }
        "scatter_add" => {
            let (s, dim, index, src) = f.scatter_add()?;
            op_scatter(s, dim, index, Some(src), None, Some("add"))
        }
        "scatter_reduce" => {
            let (s, dim, index, src, reduce, include_self) = f.scatter_reduce()?;
            op_scatter_reduce(s, dim, index, src, reduce, include_self)
        }
        "gather" => {
            let (input, dim, index) = f.gather()?;
            op_gather(input, dim, index, opts.narrow_gather)
        }
        _ => unsupported(format!("op {op:?} is not offered")),
    }
}

fn hello_answer(id: i64) -> Value {
    hello(
        id,
        "candle-core",
        &format!("{CANDLE_VERSION} (cpu)"),
        &["scatter", "scatter_add", "scatter_reduce", "gather"],
        &CLAIMED,
        true,
    )
}

impl Adapter for Options {
    type Plan = Plan;
    type Done = Tensor;

    fn hello(&self, id: i64) -> Value {
        hello_answer(id)
    }

    fn plan(&self, req: &Map<String, Value>) -> R<Plan> {
        plan(req, *self)
    }

    /// The candle call alone (bench times it without decoding or encoding).
    fn call(&self, p: &Plan) -> R<Option<Tensor>> {
        match p {
            Plan::Ready(_) => Ok(None),
            Plan::Call { run, .. } => Ok(Some(run().map_err(candle_fail)?)),
        }
    }

    fn execute(&self, p: &Plan) -> R<Wire> {
        p.execute()
    }
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
    serve("candle-scatter", &opts);
}

#[cfg(test)]
mod tests {
    //! The adapter's own rules, on values whose PyTorch answers SEMANTICS.md
    //! and PROFILES.md record (torch 2.14.1); the rules it shares with the
    //! Burn adapter are tested in tools/adapters/rust-wire.
    //! `cargo test --release --locked` (the release profile reuses the build
    //! of tools/adapters/install).
    use super::*;
    use scatter_adapter_wire::outcome as kind;

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
}
