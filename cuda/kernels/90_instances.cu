// The kernels, one per (dtype, accumulator) pair and kind. Names are
// "<kind>_<pair>"; the Go side builds the same names (kernels.go).
//
//   pair    T       ACC
//   f32     float   float
//   f64     double  double
//   f16     f16     f16     (16-bit floats rounding after every step)
//   bf16    bf16    bf16
//   f16o    f16     float   (float32 opmath buffer, one rounding at the end)
//   bf16o   bf16    float
//   i64 i32 i16 i8 u8 b8    (ACC = T)
#define SCATTER_PAIRS(X) \
  X(f32, float, float)   \
  X(f64, double, double) \
  X(f16, f16, f16)       \
  X(bf16, bf16, bf16)    \
  X(f16o, f16, float)    \
  X(bf16o, bf16, float)  \
  X(i64, i64, i64)       \
  X(i32, int, int)       \
  X(i16, i16, i16)       \
  X(i8, i8, i8)          \
  X(u8, u8, u8)          \
  X(b8, b8, b8)

#define SCATTER_KERNELS(name, T, ACC)                                                        \
  extern "C" __global__ void scatter_##name(const Params p) { scatter_impl<T, ACC>(p); }     \
  EMU_REGISTER(scatter_##name)                                                               \
  extern "C" __global__ void rows_##name(const Params p) { rows_impl<T, ACC>(p); }           \
  EMU_REGISTER(rows_##name)                                                                  \
  extern "C" __global__ void init_##name(const Params p) { init_impl<T, ACC>(p); }           \
  EMU_REGISTER(init_##name)                                                                  \
  extern "C" __global__ void finalize_##name(const Params p) { finalize_impl<T, ACC>(p); }   \
  EMU_REGISTER(finalize_##name)                                                              \
  extern "C" __global__ void segfold_##name(const Params p) { segfold_impl<T, ACC>(p); }     \
  EMU_REGISTER(segfold_##name)

SCATTER_PAIRS(SCATTER_KERNELS)

// sums with a 32- or 64-bit accumulator: shared-memory privatisation for
// small outputs and warp pre-aggregation under contention
#define SUM_PAIRS(X)     \
  X(f32, float, float)   \
  X(f64, double, double) \
  X(f16o, f16, float)    \
  X(bf16o, bf16, float)  \
  X(i64, i64, i64)       \
  X(i32, int, int)

#define SUM_KERNELS(name, T, ACC)                                                          \
  extern "C" __global__ void smem_##name(const Params p) { smem_impl<T, ACC>(p); }         \
  EMU_REGISTER(smem_##name)                                                                \
  extern "C" __global__ void warpagg_##name(const Params p) { warpagg_impl<T, ACC>(p); }   \
  EMU_REGISTER(warpagg_##name)

SUM_PAIRS(SUM_KERNELS)

#define GATHER_KERNEL(w, W)                                                              \
  extern "C" __global__ void gather_w##w(const Params p) { gather_impl<W>(p); }           \
  EMU_REGISTER(gather_w##w)
#define FILL_KERNEL(w, W)                                                                \
  extern "C" __global__ void fill_w##w(const Params p) { fill_impl<W>(p); }               \
  EMU_REGISTER(fill_w##w)

GATHER_KERNEL(1, u8)
GATHER_KERNEL(2, u16)
GATHER_KERNEL(4, u32)
GATHER_KERNEL(8, u64)
FILL_KERNEL(4, u32)  // the float32 and float64 sentinels
FILL_KERNEL(8, u64)
