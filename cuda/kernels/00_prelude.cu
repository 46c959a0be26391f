// The scatter family on the GPU: CUDA C compiled at run time by NVRTC for
// the device's architecture (without the toolkit's headers), and compiled
// unchanged as C++ against cuda/emu/cuda_emu.h by the tests.
//
// The files of this directory form one translation unit, in name order.
// Every kernel takes one Params struct by value; the Go side (params.go)
// lays out the same fields, all 8 bytes wide, in the same order.

#ifndef SCATTER_EMU
#define EMU_REGISTER(name)
#endif

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;
typedef signed char i8;
typedef short i16;

#define DEV static __device__ __forceinline__

// 16-bit floats and bool as distinct storage types (bit patterns).
struct f16 {
  u16 x;
};
struct bf16 {
  u16 x;
};
struct b8 {
  u8 x;
};

// Params: everything a kernel needs. A contribution (a, k, b) of the
// normalised 3-d description reads the index at a*isA + k*isK + b*isB, the
// source at a*ssA + k*ssK + b*ssB, and goes to the output at
// a*osA + v*osK + b, v being the index value (0 <= v < size). A table-mode
// call has A = B = 1 and index values that are output offsets (osK = 1).
struct Params {
  u64 out;      // the buffer written (T* or the accumulator ACC*)
  u64 src;      // the values read (T*; finalize: the accumulator)
  u64 idx;      // the index (int32 or int64, see F_IDX32)
  u64 self;     // self (T*), for init and finalize
  u64 count;    // u32 per output: contributions (mean), or 0
  u64 touched;  // u8 per output: set when targeted, or 0
  u64 err;      // int: bit 0 set when an index value is out of range
  u64 perm;     // deterministic: i64 source positions in canonical order
  u64 segs;     // deterministic: i64 (output, start) pairs, one past the last
  i64 n;        // contributions, outputs or segments
  i64 A, K, B;
  i64 isA, isK, isB;
  i64 ssA, ssK, ssB;
  i64 osA, osK;
  i64 size;   // index values must lie in [0, size)
  i64 flags;  // F_*
  i64 op;     // OP_* (init: INIT_*)
  i64 lanes;  // rows: lanes per row, a power of two <= 32
  i64 aux;    // bits of a fill value, a sentinel or an identity; smem: outputs
  i64 aux2;
};

// flags
#define F_IDX32 1             // the index is int32
#define F_LINEAR 2            // A = B = 1, isK = 1, ssK in {0,1}: vector loads
#define F_VEC4 4              // rows: float4 loads (B, strides and bases multiples of 4)
#define F_INCL 8              // include_self: a mean counts self once
#define F_PERSTEP_COUNT 16    // a float mean count saturates at 2^precision (PyTorch 1.13)
#define F_SENTINEL 32         // finalize: untouched outputs still hold the sentinel aux
#define F_CASADD 64           // float sums by compare-and-swap (hardware adds flush subnormals)
#define F_CANON 128           // init: NaN becomes the canonical NaN aux
#define F_VECRED 256          // rows: 4-wide vector reductions (sm_90)
#define F_WARPAGG 512         // sums: combine equal neighbouring targets in the warp first

// ops
#define OP_ASSIGN 0
#define OP_SUM 1
#define OP_PROD 2
#define OP_AMAX 3
#define OP_AMIN 4
#define OP_MEAN 5

// init modes
#define INIT_FILL 0
#define INIT_COPY 1

#define FULL_MASK 0xffffffffu

DEV u32 f2u(float f) { return __float_as_uint(f); }
DEV float u2f(u32 u) { return __uint_as_float(u); }
DEV u64 d2u(double d) { return (u64)__double_as_longlong(d); }
DEV double u2d(u64 u) { return __longlong_as_double((i64)u); }

// ldv32/ldv64: a fresh read of memory that other threads update atomically.
DEV u32 ldv32(const u32* p) { return *(const volatile u32*)p; }
DEV u64 ldv64(const u64* p) { return *(const volatile u64*)p; }

DEV i64 load_idx(const Params& p, i64 pos) {
  if (p.flags & F_IDX32) return (i64)((const int*)p.idx)[pos];
  return ((const i64*)p.idx)[pos];
}

DEV void flag_oob(const Params& p) { atomicOr((int*)p.err, 1); }

DEV bool out_of_range(const Params& p, i64 v) { return v < 0 || v >= p.size; }

// out_offset is where contribution (a, ., b) with index value v goes.
DEV i64 out_offset(const Params& p, i64 a, i64 v, i64 b) { return a * p.osA + v * p.osK + b; }

// decompose splits contribution i into (a, k, b).
DEV void decompose(const Params& p, i64 i, i64& a, i64& k, i64& b) {
  if (p.B == 1) {
    b = 0;
    if (p.A == 1) {
      a = 0;
      k = i;
    } else {
      a = i / p.K;
      k = i - a * p.K;
    }
  } else {
    i64 kb = p.K * p.B;
    a = i / kb;
    i64 r = i - a * kb;
    k = r / p.B;
    b = r - k * p.B;
  }
}

DEV i64 global_thread() { return (i64)blockIdx.x * blockDim.x + threadIdx.x; }
DEV i64 global_threads() { return (i64)gridDim.x * blockDim.x; }
