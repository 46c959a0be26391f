// Package cuda is the scatter family on NVIDIA GPUs: a scatter.Backend
// that loads the CUDA driver and NVRTC at run time (dlopen through purego:
// no cgo, no toolkit at build time) and compiles its kernels, CUDA C
// embedded in the package (kernels/*.cu), for the exact architecture of
// the device.
//
//	b := cuda.New(scatter.Torch2)                       // atomic mode: conformant
//	d := cuda.New(scatter.Torch2, cuda.Deterministic()) // bit-exact: strict
//	if why := b.Info().Unavailable; why != "" { ... }   // "libcuda.so.1 not found ...", ...
//
// # Host and device
//
// Run validates on the host and computes on the device. The checks that
// need no index values (dim, dtypes, ranks and sizes, reduce names, the
// conversion of a scalar value) run before anything is uploaded; a call
// that breaks one is answered by the reference (reference.New(p).Run), so
// the error code and its precedence are PyTorch's. Index values are checked
// by the kernels: a value out of range sets an error flag and is skipped
// (nothing is written out of bounds, the output buffer is private to the
// call), and the call is then answered by the reference. No device-side
// assert, no hang: every compare-and-swap loop compares bits, so NaN cannot
// stall it. torch_scatter's and the F# library's operations are computed by
// the reference on the host.
//
// Every call is normalised into a 3-d description (plan.go): contribution
// (a, k, b) reads the index at a*isA + k*isK + b*isB, the source at
// a*ssA + k*ssK + b*ssB and goes to a*osA + v*osK + b. An index expanded
// along the inner dims (stride 0, PyG's row scatter) or index_reduce's
// index becomes one value per row (isB = 0); a shape that does not map
// linearly becomes a table of output offsets computed on the host.
//
// # Kernels (kernels/*.cu)
//
//   - scatter: one contribution per thread in a grid-stride loop; on the
//     1-d path four per thread with 16-byte vector loads of the index and
//     the source;
//   - rows: the row scatter (expanded index, index_reduce): L lanes per row
//     (32/L rows per warp), the row's index read once, float4 loads and, on
//     sm_90, 4-wide vector reductions (red.global.add.v4.f32);
//   - smem: sums into a small output, privatised per block in shared memory
//     (W6: 16 outputs), one global atomic per touched output per block;
//   - warpagg: sums over a sorted or grouped index, runs of equal targets
//     summed in the warp (a segmented shuffle reduction) before one atomic;
//   - atomics: native float/double/int adds, float and double amax/amin by
//     integer atomics on the bits after making NaN canonical (no CAS loop),
//     compare-and-swap only for prod, 16-bit floats and 8/16-bit integers;
//   - init/finalize: include_self=False starts from the identity, and a
//     sentinel (float amax/amin), touched flags or the mean counts (fused
//     into the scatter pass) tell untouched outputs, which get self back;
//     the mean divides in finalize with torch's count rules per profile;
//   - 16-bit floats by bit manipulation (no cuda_fp16.h under NVRTC):
//     PyTorch 1.13 rounds every step (compare-and-swap), PyTorch 2
//     accumulates in a float32 buffer and rounds once;
//   - segfold: the deterministic mode. The host sorts the contributions by
//     output with a stable counting sort; one thread per output folds its
//     contributions in canonical order with the reference's functors and
//     rounding: bit-exact with the reference (the strict level).
//
// # Tests without a GPU
//
// The tests compile the same kernel source as C++ against emu/cuda_emu.h,
// an emulation of the CUDA launch model (blocks shuffled and run
// concurrently by OS threads, every CUDA thread a fiber scheduled in a
// random order, barriers, warp collectives, shared memory, atomics that
// may yield), load it with dlopen and drive it through the same host code:
// the spec (torch-2 and torch-1.13) and the properties (every profile) in
// both modes, a differential test of large random calls under every
// planner policy, and
// deliberately broken kernels that the suites must catch. GPU.md says what
// remains to be checked on a GPU and how.
package cuda
