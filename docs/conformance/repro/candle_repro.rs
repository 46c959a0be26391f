//! The differences of candle-core from PyTorch that the conformance gate
//! found, each as a minimal call in candle alone (no adapter code), beside
//! what PyTorch 2.14.1 returns for the same call. candle_torch_repro.py
//! makes the same calls in PyTorch, numbered alike.
//!
//! Built and run from the adapter's Cargo project, with the versions its
//! Cargo.lock pins:
//!
//!     cd tools/adapters/candle
//!     CARGO_TARGET_DIR=${SCATTER_CACHE:-$HOME/.cache/scatter}/frameworks/candle/target \
//!         cargo run --release --locked --example candle_repro
//!
//! Each case prints candle's outcome and PyTorch's, and DIFFERS or agrees;
//! the process exits 0 either way (a repro documents, it does not gate).

use candle_core::{DType, Device, Tensor};

/// A result as candle_torch_repro.py prints PyTorch's: the flat values,
/// or the error (its first line; candle appends a backtrace when
/// RUST_BACKTRACE is set).
fn outcome(r: candle_core::Result<Tensor>) -> String {
    match r.and_then(|t| t.flatten_all()?.to_dtype(DType::F64)?.to_vec1::<f64>()) {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("error: {}", e.to_string().lines().next().unwrap_or("")),
    }
}

fn show(name: &str, candle: candle_core::Result<Tensor>, torch: &str) {
    let candle = outcome(candle);
    let verdict = if candle == torch { "agrees" } else { "DIFFERS" };
    println!("{name}\n  candle:        {candle}\n  PyTorch 2.14:  {torch}\n  {verdict}\n");
}

fn main() -> candle_core::Result<()> {
    let cpu = &Device::Cpu;
    let oob =
        "RuntimeError: index 9223372036854775807 is out of bounds for dimension 0 with size 3";

    // 1. A likely candle bug. Tensor::gather takes an index smaller than
    //    the input in a dimension other than dim (its documentation says
    //    indexes.dims()[d] <= self.dims()[d] for d != dim, as PyTorch), but
    //    the CPU kernel (cpu_backend Gather) walks the index as if its
    //    dimensions before and after dim had the input's sizes: it reads
    //    the wrong elements when a smaller dimension is not the outermost
    //    one before dim, nor the outermost one after dim.
    let input = Tensor::arange(0f32, 4., cpu)?.reshape((2, 2, 1))?;
    let index = Tensor::zeros((2, 1, 1), DType::I64, cpu)?;
    show(
        "1. gather, dim 2, input arange(4) [2,2,1], index zeros [2,1,1] (smaller in dim 1)",
        input.gather(&index, 2),
        "[0.0, 2.0]",
    );
    let input = Tensor::arange(0f32, 8., cpu)?.reshape((1, 2, 4))?;
    let index = Tensor::zeros((1, 2, 2), DType::I64, cpu)?;
    show(
        "1b. gather, dim 0, input arange(8) [1,2,4], index zeros [1,2,2] (smaller in dim 2)",
        input.gather(&index, 0),
        "[0.0, 1.0, 4.0, 5.0]",
    );

    // 2. By design: an id equal to the id type's maximum (i64::MAX,
    //    u32::MAX, u8::MAX) is a padding id for candle's CPU kernels:
    //    scatter and scatter_add skip it, gather gives 0. PyTorch raises
    //    for any index outside [0, size). The adapter answers such calls
    //    unsupported.
    let s = Tensor::new(&[1f32, 2., 3.], cpu)?;
    let index = Tensor::new(&[i64::MAX], cpu)?;
    let src = Tensor::new(&[10f32], cpu)?;
    show(
        "2. scatter_add, dim 0, self [1,2,3], index [i64::MAX], src [10]",
        s.scatter_add(&index, &src, 0),
        oob,
    );
    show(
        "2b. gather, dim 0, input [1,2,3], index [i64::MAX]",
        s.gather(&index, 0),
        oob,
    );

    // 3. By design: candle's scatter and scatter_add want the index of
    //    src's shape and src of self's shape apart from dim; PyTorch takes
    //    any index no larger than src (and than self apart from dim) and
    //    uses only the elements the index reaches. The adapter narrows src,
    //    and the block of self, with candle's narrow and slice_scatter.
    let s = Tensor::zeros(3, DType::F32, cpu)?;
    show(
        "3. scatter_add, dim 0, self zeros [3], index [2], src [1,5] (index smaller than src)",
        s.scatter_add(
            &Tensor::new(&[2i64], cpu)?,
            &Tensor::new(&[1f32, 5.], cpu)?,
            0,
        ),
        "[0.0, 0.0, 1.0]",
    );

    // 4. By design: a float16 or bfloat16 scatter_add rounds to the dtype
    //    at every step (half's AddAssign), as PyTorch 1.13 did; PyTorch 2.1
    //    and later sum in a float32 buffer and round once (SEMANTICS.md
    //    5.1). 2048 + 1 is 2048 in float16, ten times over; 256 + 1 is 256
    //    in bfloat16.
    let index = Tensor::zeros(10, DType::I64, cpu)?;
    let s = Tensor::new(&[2048f32], cpu)?.to_dtype(DType::F16)?;
    let src = Tensor::ones(10, DType::F16, cpu)?;
    show(
        "4. scatter_add float16, self [2048], index zeros [10], src ones [10]",
        s.scatter_add(&index, &src, 0),
        "[2058.0]",
    );
    let s = Tensor::new(&[256f32], cpu)?.to_dtype(DType::BF16)?;
    let src = Tensor::ones(10, DType::BF16, cpu)?;
    show(
        "4b. scatter_add bfloat16, self [256], index zeros [10], src ones [10]",
        s.scatter_add(&index, &src, 0),
        "[266.0]",
    );
    Ok(())
}
