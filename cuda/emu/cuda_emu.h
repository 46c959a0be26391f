// cuda_emu.h: a small emulation of the CUDA launch model, so that the
// backend's kernels (cuda/kernels/*.cu, compiled unchanged as C++) run on a
// CPU in the tests.
//
// What it models:
//   - threadIdx, blockIdx, blockDim, gridDim (1-, 2- or 3-d), one fiber
//     (ucontext) per CUDA thread; the blocks of a launch are shuffled and
//     run by several OS threads at once, so blocks really are concurrent;
//     inside a block the fibers are scheduled in a random order;
//   - __syncthreads (a block barrier; a thread that exits while others wait
//     at a barrier is reported as barrier divergence), __syncwarp, and the
//     warp collectives __shfl_sync, __shfl_down_sync, __shfl_xor_sync,
//     __ballot_sync, __any_sync, __all_sync and __match_any_sync, exchanged
//     over the 32 lanes of a warp (a lane named in the mask that never
//     arrives is reported as a deadlock);
//   - static __shared__ memory (one copy per OS thread, and an OS thread
//     runs one block at a time);
//   - atomics as real atomic read-modify-write operations (GCC __atomic
//     builtins), each of which may first yield to another fiber of the
//     block, so that compare-and-swap loops see interference;
//   - float4/int4/longlong2 vector types and a few intrinsics.
//
// What it cannot model: the GPU memory model (the host's is stronger),
// plain (non-atomic) read-modify-write races inside a block (a fiber is
// never preempted between a plain load and a plain store), warp-synchronous
// code without the _sync collectives, hardware float atomics' handling of
// subnormals, and timing.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#define SCATTER_EMU 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __shared__ static thread_local
#define __launch_bounds__(...)

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) int4 {
  int x, y, z, w;
};
struct alignas(16) longlong2 {
  long long x, y;
};
struct alignas(16) double2 {
  double x, y;
};

namespace emu {

// The state of the thread (fiber) that is running now.
struct Thread {
  uint3 tid;
  unsigned linear;  // threadIdx linearised
  unsigned lane;    // linear % 32
  unsigned warp;    // linear / 32
};

extern thread_local Thread* cur;
extern thread_local uint3 cur_block;
extern thread_local dim3 cur_block_dim;
extern thread_local dim3 cur_grid_dim;

void syncthreads();
int syncthreads_count(int pred);
void syncwarp(unsigned mask);
// exchange deposits v for the calling lane in the warp collective over
// mask and returns the 32 deposited values (lanes outside mask: 0).
const unsigned long long* exchange(unsigned mask, unsigned long long v);
void maybe_yield();
[[noreturn]] void trap(const char* msg);

}  // namespace emu

#define threadIdx (emu::cur->tid)
#define blockIdx (emu::cur_block)
#define blockDim (emu::cur_block_dim)
#define gridDim (emu::cur_grid_dim)
#define warpSize 32

static inline void __syncthreads() { emu::syncthreads(); }
static inline int __syncthreads_count(int p) { return emu::syncthreads_count(p); }
static inline int __syncthreads_or(int p) { return emu::syncthreads_count(p) != 0; }
static inline int __syncthreads_and(int p) {
  return emu::syncthreads_count(p) == (int)(blockDim.x * blockDim.y * blockDim.z);
}
static inline void __syncwarp(unsigned mask = 0xffffffffu) { emu::syncwarp(mask); }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __trap() { emu::trap("__trap() called"); }

// ---- bit casts and integer intrinsics ----
static inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
static inline int __float_as_int(float f) { return (int)__float_as_uint(f); }
static inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
static inline float __int_as_float(int i) { return __uint_as_float((unsigned)i); }
static inline long long __double_as_longlong(double d) {
  long long u;
  std::memcpy(&u, &d, 8);
  return u;
}
static inline double __longlong_as_double(long long u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
template <class T>
static inline T __ldg(const T* p) {
  return *p;
}

// ---- warp collectives ----
template <class T>
static inline unsigned long long emu_bits(T v) {
  static_assert(sizeof(T) <= 8, "warp collectives take at most 8 bytes");
  unsigned long long u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}
template <class T>
static inline T emu_from_bits(unsigned long long u) {
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}
template <class T>
static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
  const unsigned long long* all = emu::exchange(mask, emu_bits(v));
  unsigned lane = emu::cur->lane;
  unsigned base = lane & ~(unsigned)(width - 1);
  unsigned from = base + ((unsigned)src & (unsigned)(width - 1));
  return emu_from_bits<T>(all[from]);
}
template <class T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  const unsigned long long* all = emu::exchange(mask, emu_bits(v));
  unsigned lane = emu::cur->lane;
  unsigned seg = lane & (unsigned)(width - 1);
  if (seg + delta >= (unsigned)width) return v;
  return emu_from_bits<T>(all[lane + delta]);
}
template <class T>
static inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  const unsigned long long* all = emu::exchange(mask, emu_bits(v));
  unsigned lane = emu::cur->lane;
  unsigned seg = lane & (unsigned)(width - 1);
  if (seg < delta) return v;
  return emu_from_bits<T>(all[lane - delta]);
}
template <class T>
static inline T __shfl_xor_sync(unsigned mask, T v, int lm, int width = 32) {
  const unsigned long long* all = emu::exchange(mask, emu_bits(v));
  unsigned lane = emu::cur->lane;
  unsigned from = lane ^ (unsigned)lm;
  if ((from & ~(unsigned)(width - 1)) != (lane & ~(unsigned)(width - 1))) return v;
  return emu_from_bits<T>(all[from]);
}
static inline unsigned __ballot_sync(unsigned mask, int pred) {
  const unsigned long long* all = emu::exchange(mask, pred ? 1 : 0);
  unsigned r = 0;
  for (int l = 0; l < 32; l++)
    if ((mask >> l & 1) && all[l]) r |= 1u << l;
  return r;
}
static inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0; }
static inline int __all_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) == mask; }
template <class T>
static inline unsigned __match_any_sync(unsigned mask, T v) {
  const unsigned long long* all = emu::exchange(mask, emu_bits(v));
  unsigned long long me = emu_bits(v);
  unsigned r = 0;
  for (int l = 0; l < 32; l++)
    if ((mask >> l & 1) && all[l] == me) r |= 1u << l;
  return r;
}

// ---- atomics: real atomic operations (blocks run concurrently) ----
#define EMU_ATOMIC_INT(T)                                                      \
  static inline T atomicAdd(T* p, T v) {                                      \
    emu::maybe_yield();                                                        \
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                         \
  }                                                                            \
  static inline T atomicSub(T* p, T v) {                                      \
    emu::maybe_yield();                                                        \
    return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);                         \
  }                                                                            \
  static inline T atomicAnd(T* p, T v) {                                      \
    emu::maybe_yield();                                                        \
    return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                         \
  }                                                                            \
  static inline T atomicOr(T* p, T v) {                                       \
    emu::maybe_yield();                                                        \
    return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                          \
  }                                                                            \
  static inline T atomicXor(T* p, T v) {                                      \
    emu::maybe_yield();                                                        \
    return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                         \
  }                                                                            \
  static inline T atomicExch(T* p, T v) {                                     \
    emu::maybe_yield();                                                        \
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                        \
  }                                                                            \
  static inline T atomicCAS(T* p, T cmp, T v) {                               \
    emu::maybe_yield();                                                        \
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return cmp;                                                                \
  }                                                                            \
  static inline T atomicMax(T* p, T v) {                                      \
    emu::maybe_yield();                                                        \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                              \
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { \
    }                                                                          \
    return old;                                                                \
  }                                                                            \
  static inline T atomicMin(T* p, T v) {                                      \
    emu::maybe_yield();                                                        \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                              \
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { \
    }                                                                          \
    return old;                                                                \
  }

EMU_ATOMIC_INT(int)
EMU_ATOMIC_INT(unsigned)
EMU_ATOMIC_INT(long long)
EMU_ATOMIC_INT(unsigned long long)
#undef EMU_ATOMIC_INT

// CUDA has a 16-bit atomicCAS (compute capability 7.0 and later).
static inline unsigned short atomicCAS(unsigned short* p, unsigned short cmp, unsigned short v) {
  emu::maybe_yield();
  __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}

// Float atomics: a compare-and-swap loop over the bits with the host's IEEE
// arithmetic (subnormals kept).
static inline float atomicAdd(float* p, float v) {
  emu::maybe_yield();
  unsigned* q = (unsigned*)p;
  unsigned old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(q, &old, __float_as_uint(__uint_as_float(old) + v), false,
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return __uint_as_float(old);
}
static inline double atomicAdd(double* p, double v) {
  emu::maybe_yield();
  unsigned long long* q = (unsigned long long*)p;
  unsigned long long old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(q, &old,
                                      (unsigned long long)__double_as_longlong(__longlong_as_double((long long)old) + v),
                                      false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return __longlong_as_double((long long)old);
}

// The kernels register each __global__ function with EMU_REGISTER(name)
// after its definition; the runtime finds it by name.
namespace emu {
typedef void (*Trampoline)(void** params);
struct Registrar {
  Registrar(const char* name, Trampoline t);
};
template <class T>
struct ArgOf {
  typedef T type;
};
template <class T>
struct ArgOf<const T> {
  typedef T type;
};
template <class... A>
struct Invoker {
  template <unsigned long... I>
  struct Seq {};
  template <unsigned long N, unsigned long... I>
  struct Make : Make<N - 1, N - 1, I...> {};
  template <unsigned long... I>
  struct Make<0, I...> {
    typedef Seq<I...> type;
  };
  template <unsigned long... I>
  static void call(void (*f)(A...), void** p, Seq<I...>) {
    f(*(typename ArgOf<A>::type*)p[I]...);
  }
  static void run(void (*f)(A...), void** p) { call(f, p, typename Make<sizeof...(A)>::type()); }
};
template <class... A>
static inline void invoke(void (*f)(A...), void** p) {
  Invoker<A...>::run(f, p);
}
}  // namespace emu

#define EMU_REGISTER(name) \
  static emu::Registrar emu_registrar_##name(#name, [](void** p) { emu::invoke(name, p); });
