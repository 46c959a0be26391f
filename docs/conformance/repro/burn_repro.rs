//! The differences of Burn 0.22.1 (burn-tensor on the burn-ndarray
//! backend) from PyTorch that the conformance gate found, each as a
//! minimal call in Burn alone (no adapter code), beside what PyTorch 2.14.1
//! returns for the same call (SEMANTICS.md and the suite's spec cases
//! record those answers).
//!
//! Built and run from the adapter's Cargo project, with the versions its
//! Cargo.lock pins:
//!
//!     cd tools/adapters/burn
//!     CARGO_TARGET_DIR=${SCATTER_CACHE:-$HOME/.cache/scatter}/frameworks/burn/target \
//!         cargo run --release --locked --example burn_repro
//!
//! Each case prints Burn's outcome and PyTorch's, and DIFFERS or agrees;
//! the process exits 0 either way (a repro documents, it does not gate). A
//! panic in Burn is caught and shown as `panic: <message>`.
#![allow(deprecated)] // burn-ndarray's device: Burn 0.22 deprecates the backend for `flex`

use std::panic::{self, AssertUnwindSafe};

use burn_tensor::{DType, Device, IndexingUpdateOp, Int, Tensor, TensorData};

fn dev() -> Device {
    Device::new(burn_ndarray::NdArrayDevice::Cpu)
}

fn f32s<const D: usize>(v: Vec<f32>, shape: [usize; D]) -> Tensor<D> {
    Tensor::<D>::from_data(TensorData::new(v, shape), (&dev(), DType::F32))
}

fn i64s<const D: usize>(v: Vec<i64>, shape: [usize; D]) -> Tensor<D, Int> {
    Tensor::<D, Int>::from_data(TensorData::new(v, shape), (&dev(), DType::I64))
}

/// Burn's outcome as PyTorch's is written below: the flat values, or the
/// panic's message.
fn outcome<const D: usize>(f: impl FnOnce() -> Tensor<D>) -> String {
    match panic::catch_unwind(AssertUnwindSafe(|| f().into_data().try_to_vec::<f32>())) {
        Ok(Ok(v)) => format!("{v:?}"),
        Ok(Err(e)) => format!("error: {e:?}"),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            // burn-tensor's argument checks panic with a report of several
            // lines: shown on one.
            let msg = msg.replace("=== Tensor Operation Error ===", "");
            format!(
                "panic: {}",
                msg.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        }
    }
}

fn show<const D: usize>(name: &str, burn: impl FnOnce() -> Tensor<D>, torch: &str) {
    let burn = outcome(burn);
    let verdict = if burn == torch { "agrees" } else { "DIFFERS" };
    println!("{name}\n  Burn:          {burn}\n  PyTorch 2.14:  {torch}\n  {verdict}\n");
}

fn main() {
    // The panics below are the outcomes shown; keep the default report quiet.
    panic::set_hook(Box::new(|_| {}));
    let nan = f32::NAN;

    // 1. By design of the NdArray kernels: IndexingUpdateOp::Max and Min
    //    replace the target only when `value > target` (`value < target`),
    //    so a NaN in the values never wins and is dropped; PyTorch's amax
    //    and amin propagate it (SEMANTICS.md 3.3). Tensor::scatter
    //    (scatter_reduce) and Tensor::select_assign (index_reduce) alike.
    show(
        "1. scatter Max, dim 0, self [1,1], index [0,0,1], src [nan,5,2] (scatter_reduce amax)",
        || {
            f32s(vec![1., 1.], [2]).scatter(
                0,
                i64s(vec![0, 0, 1], [3]),
                f32s(vec![nan, 5., 2.], [3]),
                IndexingUpdateOp::Max,
            )
        },
        "[NaN, 2.0]",
    );
    show(
        "1b. scatter Min, dim 0, self [1,1], index [0,0,1], src [nan,-5,2] (scatter_reduce amin)",
        || {
            f32s(vec![1., 1.], [2]).scatter(
                0,
                i64s(vec![0, 0, 1], [3]),
                f32s(vec![nan, -5., 2.], [3]),
                IndexingUpdateOp::Min,
            )
        },
        "[NaN, 1.0]",
    );
    show(
        "1c. select_assign Max, dim 0, self [[1,1],[1,1]], index [0], source [[nan,5]] (index_reduce amax)",
        || {
            f32s(vec![1., 1., 1., 1.], [2, 2]).select_assign(
                0,
                i64s(vec![0], [1]),
                f32s(vec![nan, 5.], [1, 2]),
                IndexingUpdateOp::Max,
            )
        },
        "[NaN, 5.0, 1.0, 1.0]",
    );
    // ... while a NaN already in the target stays, as in PyTorch:
    show(
        "1d. scatter Max, dim 0, self [nan], index [0], src [5] (agrees)",
        || {
            f32s(vec![nan], [1]).scatter(
                0,
                i64s(vec![0], [1]),
                f32s(vec![5.], [1]),
                IndexingUpdateOp::Max,
            )
        },
        "[NaN]",
    );

    // 2. By design: Burn does not check index values ("Not all backends
    //    have runtime bound checks for the indices"); the NdArray kernels
    //    index with them and ndarray's bounds check panics, for a negative
    //    value too (it becomes a huge usize). PyTorch raises an error. The
    //    adapter catches the panic and answers index_out_of_range.
    show(
        "2. scatter Assign, dim 0, self [1,2,3], index [5], src [9]",
        || {
            f32s(vec![1., 2., 3.], [3]).scatter(
                0,
                i64s(vec![5], [1]),
                f32s(vec![9.], [1]),
                IndexingUpdateOp::Assign,
            )
        },
        "RuntimeError: index 5 is out of bounds for dimension 0 with size 3",
    );
    show(
        "2b. gather, dim 0, input [1,2,3], index [-1]",
        || f32s(vec![1., 2., 3.], [3]).gather(0, i64s(vec![-1], [1])),
        "RuntimeError: index -1 is out of bounds for dimension 0 with size 3",
    );

    // 3. By design: Tensor::scatter wants the index of self's shape apart
    //    from dim and the values of the index's shape; Tensor::gather wants
    //    the index of the input's shape apart from dim (burn-tensor's
    //    TensorCheck, which panics). PyTorch takes an index no larger than
    //    src, and than self or the input apart from dim. The adapter
    //    narrows src, and self's block or the input, with Burn's slice and
    //    slice_assign, so these cases pass through the adapter.
    show(
        "3. scatter Add, dim 0, self zeros [3], index [2], src [1,5] (index smaller than src)",
        || {
            f32s(vec![0., 0., 0.], [3]).scatter(
                0,
                i64s(vec![2], [1]),
                f32s(vec![1., 5.], [2]),
                IndexingUpdateOp::Add,
            )
        },
        "[0.0, 0.0, 1.0]",
    );
    show(
        "3b. gather, dim 1, input [[1,2,3],[4,5,6]], index [[2,0]] (smaller in dim 0)",
        || f32s(vec![1., 2., 3., 4., 5., 6.], [2, 3]).gather(1, i64s(vec![2, 0], [1, 2])),
        "[3.0, 1.0]",
    );

    // 4. By design: a bool tensor's scatter and select_assign have
    //    IndexingUpdateOp::Add (logical or) only; Assign and Mul are
    //    unimplemented!(). PyTorch's bool scatter_ sets, and its multiply
    //    is a logical and. The adapter answers those calls unsupported.
    let bools =
        |v: Vec<bool>| Tensor::<1, burn_tensor::Bool>::from_data(TensorData::new(v, [2]), &dev());
    let shown = match panic::catch_unwind(AssertUnwindSafe(|| {
        bools(vec![false, false])
            .scatter(
                0,
                i64s(vec![1], [1]),
                Tensor::<1, burn_tensor::Bool>::from_data(TensorData::new(vec![true], [1]), &dev()),
                IndexingUpdateOp::Assign,
            )
            .into_data()
            .try_to_vec::<bool>()
    })) {
        Ok(v) => format!("{v:?}"),
        Err(_) => "panic: not implemented".to_string(),
    };
    let verdict = if shown == "Ok([false, true])" {
        "agrees"
    } else {
        "DIFFERS"
    };
    println!(
        "4. bool scatter Assign, dim 0, self [false,false], index [1], src [true]\n  Burn:          {shown}\n  PyTorch 2.14:  [False, True]\n  {verdict}\n"
    );
}
