// The element operations of every accumulator type: conversions between
// a dtype T and its accumulator ACC (ACC = T, or float for the float32
// opmath buffer of 16-bit sums and products), the atomic combines used by
// the atomic mode, and the sequential combines used by the deterministic
// mode and the warp pre-aggregation.
//
// Atomic combines:
//   - native atomics where the hardware has them: int/int64/float/double
//     add, int/int64 max and min;
//   - float and double amax/amin without compare-and-swap: an IEEE value
//     with the sign bit clear orders like a signed integer and one with
//     the sign bit set like an unsigned integer in reverse, so a
//     non-negative v is an integer atomicMax (amin: atomicMin) on the bits
//     and a negative v an unsigned atomicMin (amin: atomicMax). A NaN is
//     first made canonical: 0x7fffffff for amax (above +inf as a signed
//     integer), 0xffffffff for amin (below -inf), so that NaN propagates
//     as torch's amax does, and the init pass does the same to self's
//     NaNs. A zero source value takes part as -0 in amax and as +0 in
//     amin, so that a tie of zeros never replaces self's zero (ties keep
//     the earlier value, self first) and the result does not depend on
//     the order of the atomics (the sign of a zero from a tie between
//     source values is free at both levels of the judge);
//   - compare-and-swap only for prod, for 16-bit floats and for the 8- and
//     16-bit integers (on the aligned 32-bit word that holds them); every
//     loop compares bits, never floats, so NaN cannot stall it.

template <class T, class ACC>
struct Conv {
  static __device__ __forceinline__ ACC to(T v) { return v; }
  static __device__ __forceinline__ T from(ACC a) { return a; }
};
template <>
struct Conv<f16, float> {
  static __device__ __forceinline__ float to(f16 v) { return h2f(v.x); }
  static __device__ __forceinline__ f16 from(float a) { return make_f16(a); }
};
template <>
struct Conv<bf16, float> {
  static __device__ __forceinline__ float to(bf16 v) { return b2f(v.x); }
  static __device__ __forceinline__ bf16 from(float a) { return make_bf16(a); }
};

// ---- bits ----
DEV u64 to_bits(float v) { return f2u(v); }
DEV u64 to_bits(double v) { return d2u(v); }
DEV u64 to_bits(f16 v) { return v.x; }
DEV u64 to_bits(bf16 v) { return v.x; }
DEV u64 to_bits(b8 v) { return v.x; }
DEV u64 to_bits(i64 v) { return (u64)v; }
DEV u64 to_bits(int v) { return (u64)(u32)v; }
DEV u64 to_bits(i16 v) { return (u64)(u16)v; }
DEV u64 to_bits(i8 v) { return (u64)(u8)v; }
DEV u64 to_bits(u8 v) { return (u64)v; }

DEV float from_bits(u64 b, const float*) { return u2f((u32)b); }
DEV double from_bits(u64 b, const double*) { return u2d(b); }
DEV f16 from_bits(u64 b, const f16*) {
  f16 r;
  r.x = (u16)b;
  return r;
}
DEV bf16 from_bits(u64 b, const bf16*) {
  bf16 r;
  r.x = (u16)b;
  return r;
}
DEV b8 from_bits(u64 b, const b8*) {
  b8 r;
  r.x = (u8)b;
  return r;
}
DEV i64 from_bits(u64 b, const i64*) { return (i64)b; }
DEV int from_bits(u64 b, const int*) { return (int)(u32)b; }
DEV i16 from_bits(u64 b, const i16*) { return (i16)(u16)b; }
DEV i8 from_bits(u64 b, const i8*) { return (i8)(u8)b; }
DEV u8 from_bits(u64 b, const u8*) { return (u8)b; }

DEV bool is_nan(float v) { return v != v; }
DEV bool is_nan(double v) { return v != v; }
DEV bool is_nan(f16 v) { return (v.x & 0x7c00u) == 0x7c00u && (v.x & 0x3ffu) != 0; }
DEV bool is_nan(bf16 v) { return (v.x & 0x7f80u) == 0x7f80u && (v.x & 0x7fu) != 0; }
DEV bool is_nan(i64) { return false; }
DEV bool is_nan(int) { return false; }
DEV bool is_nan(i16) { return false; }
DEV bool is_nan(i8) { return false; }
DEV bool is_nan(u8) { return false; }
DEV bool is_nan(b8) { return false; }

// ---- compare-and-swap loops ----
template <class F>
DEV void cas32(void* addr, F f) {
  u32* q = (u32*)addr;
  u32 old = ldv32(q), assumed;
  do {
    assumed = old;
    old = atomicCAS(q, assumed, f(assumed));
  } while (old != assumed);
}

template <class F>
DEV void cas64(void* addr, F f) {
  u64* q = (u64*)addr;
  u64 old = ldv64(q), assumed;
  do {
    assumed = old;
    old = atomicCAS((unsigned long long*)q, (unsigned long long)assumed, (unsigned long long)f(assumed));
  } while (old != assumed);
}

// casSub updates the W-byte value (W = 1 or 2) at p inside its aligned
// 32-bit word: f maps the old bits to the new ones. Allocations are padded
// to 8 bytes, so the word never leaves the buffer.
template <int W, class F>
DEV void casSub(void* p, F f) {
  u64 a = (u64)p;
  u32* w = (u32*)(a & ~(u64)3);
  u32 sh = (u32)(a & 3) * 8;
  u32 mask = (W == 1 ? 0xffu : 0xffffu) << sh;
  u32 old = ldv32(w), assumed;
  do {
    assumed = old;
    u32 cur = (assumed & mask) >> sh;
    u32 nv = (f(cur) << sh) & mask;
    old = atomicCAS(w, assumed, (assumed & ~mask) | nv);
  } while (old != assumed);
}

// ---- float ----
DEV void atom_add_f32(float* p, float v, i64 flags) {
  if (flags & F_CASADD)
    cas32(p, [&](u32 o) { return f2u(u2f(o) + v); });
  else
    atomicAdd(p, v);
}

DEV void atom_op(int op, float* p, float v, i64 flags) {
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
      atom_add_f32(p, v, flags);
      break;
    case OP_PROD:
      cas32(p, [&](u32 o) { return f2u(u2f(o) * v); });
      break;
    case OP_AMAX: {
      u32 b = is_nan(v) ? 0x7fffffffu : f2u(v);
      if (b == 0) b = 0x80000000u;  // +0 takes part as -0
      if (!(b >> 31))
        atomicMax((int*)p, (int)b);
      else
        atomicMin((u32*)p, b);
      break;
    }
    case OP_AMIN: {
      u32 b = is_nan(v) ? 0xffffffffu : f2u(v);
      if (b == 0x80000000u) b = 0;  // -0 takes part as +0
      if (!(b >> 31))
        atomicMin((int*)p, (int)b);
      else
        atomicMax((u32*)p, b);
      break;
    }
    default:
      *p = v;
  }
}

// ---- double ----
DEV void atom_op(int op, double* p, double v, i64 flags) {
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
      if (flags & F_CASADD)
        cas64(p, [&](u64 o) { return d2u(u2d(o) + v); });
      else
        atomicAdd(p, v);
      break;
    case OP_PROD:
      cas64(p, [&](u64 o) { return d2u(u2d(o) * v); });
      break;
    case OP_AMAX: {
      u64 b = is_nan(v) ? 0x7fffffffffffffffull : d2u(v);
      if (b == 0) b = 0x8000000000000000ull;
      if (!(b >> 63))
        atomicMax((long long*)p, (long long)b);
      else
        atomicMin((unsigned long long*)p, (unsigned long long)b);
      break;
    }
    case OP_AMIN: {
      u64 b = is_nan(v) ? 0xffffffffffffffffull : d2u(v);
      if (b == 0x8000000000000000ull) b = 0;
      if (!(b >> 63))
        atomicMin((long long*)p, (long long)b);
      else
        atomicMax((unsigned long long*)p, (unsigned long long)b);
      break;
    }
    default:
      *p = v;
  }
}

// ---- sequential combines (the reference's functors) ----
DEV float seq_op(int op, float a, float v) {
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
      return a + v;
    case OP_PROD:
      return a * v;
    case OP_AMAX:
      return (is_nan(v) || a < v) ? v : a;
    case OP_AMIN:
      return (is_nan(v) || v < a) ? v : a;
  }
  return v;
}
DEV double seq_op(int op, double a, double v) {
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
      return a + v;
    case OP_PROD:
      return a * v;
    case OP_AMAX:
      return (is_nan(v) || a < v) ? v : a;
    case OP_AMIN:
      return (is_nan(v) || v < a) ? v : a;
  }
  return v;
}
// 16-bit floats: compute in float32, round once (per-step rounding).
DEV u16 seq_half(int op, u16 a, u16 v, bool bf) {
  float fa = bf ? b2f(a) : h2f(a), fv = bf ? b2f(v) : h2f(v);
  bool vnan = fv != fv;
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
      return bf ? f2b(fa + fv) : f2h(fa + fv);
    case OP_PROD:
      return bf ? f2b(fa * fv) : f2h(fa * fv);
    case OP_AMAX:
      return (vnan || fa < fv) ? v : a;
    case OP_AMIN:
      return (vnan || fv < fa) ? v : a;
  }
  return v;
}
DEV f16 seq_op(int op, f16 a, f16 v) {
  f16 r;
  r.x = seq_half(op, a.x, v.x, false);
  return r;
}
DEV bf16 seq_op(int op, bf16 a, bf16 v) {
  bf16 r;
  r.x = seq_half(op, a.x, v.x, true);
  return r;
}
// integers: two's complement wrap-around (computed unsigned: no overflow UB)
DEV u64 seq_int(int op, i64 a, i64 v) {
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
      return (u64)a + (u64)v;
    case OP_PROD:
      return (u64)a * (u64)v;
    case OP_AMAX:
      return (u64)(a < v ? v : a);
    case OP_AMIN:
      return (u64)(v < a ? v : a);
  }
  return (u64)v;
}
DEV i64 seq_op(int op, i64 a, i64 v) { return (i64)seq_int(op, a, v); }
DEV int seq_op(int op, int a, int v) { return (int)(u32)seq_int(op, a, v); }
DEV i16 seq_op(int op, i16 a, i16 v) { return (i16)(u16)seq_int(op, a, v); }
DEV i8 seq_op(int op, i8 a, i8 v) { return (i8)(u8)seq_int(op, a, v); }
DEV u8 seq_op(int op, u8 a, u8 v) { return (u8)seq_int(op, a, v); }
// bool: sum and amax are or, prod and amin are and
DEV b8 seq_op(int op, b8 a, b8 v) {
  b8 r;
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
    case OP_AMAX:
      r.x = (a.x | v.x) ? 1 : 0;
      break;
    case OP_PROD:
    case OP_AMIN:
      r.x = (a.x & v.x) ? 1 : 0;
      break;
    default:
      r.x = v.x;
  }
  return r;
}

// ---- 16-bit floats: compare-and-swap on the word ----
// zero_as: a zero source value of amax takes part as -0, of amin as +0
// (see the top of this file).
DEV u16 zero_as(int op, u16 v) {
  if ((v & 0x7fffu) == 0) {
    if (op == OP_AMAX) return 0x8000u;
    if (op == OP_AMIN) return 0;
  }
  return v;
}
DEV void atom_op(int op, f16* p, f16 v, i64) {
  if (op == OP_ASSIGN) {
    p->x = v.x;
    return;
  }
  u16 x = zero_as(op, v.x);
  casSub<2>(p, [&](u32 o) { return (u32)seq_half(op, (u16)o, x, false); });
}
DEV void atom_op(int op, bf16* p, bf16 v, i64) {
  if (op == OP_ASSIGN) {
    p->x = v.x;
    return;
  }
  u16 x = zero_as(op, v.x);
  casSub<2>(p, [&](u32 o) { return (u32)seq_half(op, (u16)o, x, true); });
}

// ---- integers ----
DEV void atom_op(int op, i64* p, i64 v, i64) {
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
      atomicAdd((unsigned long long*)p, (unsigned long long)v);
      break;
    case OP_PROD:
      cas64(p, [&](u64 o) { return (u64)o * (u64)v; });
      break;
    case OP_AMAX:
      atomicMax((long long*)p, (long long)v);
      break;
    case OP_AMIN:
      atomicMin((long long*)p, (long long)v);
      break;
    default:
      *p = v;
  }
}
DEV void atom_op(int op, int* p, int v, i64) {
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
      atomicAdd(p, v);
      break;
    case OP_PROD:
      cas32(p, [&](u32 o) { return o * (u32)v; });
      break;
    case OP_AMAX:
      atomicMax(p, v);
      break;
    case OP_AMIN:
      atomicMin(p, v);
      break;
    default:
      *p = v;
  }
}
DEV void atom_op(int op, i16* p, i16 v, i64) {
  if (op == OP_ASSIGN) {
    *p = v;
    return;
  }
  casSub<2>(p, [&](u32 o) { return (u32)(u16)seq_op(op, (i16)(u16)o, v); });
}
DEV void atom_op(int op, i8* p, i8 v, i64) {
  if (op == OP_ASSIGN) {
    *p = v;
    return;
  }
  casSub<1>(p, [&](u32 o) { return (u32)(u8)seq_op(op, (i8)(u8)o, v); });
}
DEV void atom_op(int op, u8* p, u8 v, i64) {
  if (op == OP_ASSIGN) {
    *p = v;
    return;
  }
  casSub<1>(p, [&](u32 o) { return (u32)seq_op(op, (u8)o, v); });
}
// bool: or and and on the word, no loop
DEV void atom_op(int op, b8* p, b8 v, i64) {
  u64 a = (u64)p;
  u32* w = (u32*)(a & ~(u64)3);
  u32 sh = (u32)(a & 3) * 8;
  switch (op) {
    case OP_SUM:
    case OP_MEAN:
    case OP_AMAX:
      if (v.x) atomicOr(w, 1u << sh);
      break;
    case OP_PROD:
    case OP_AMIN:
      if (!v.x) atomicAnd(w, ~(0xffu << sh));
      break;
    default:
      p->x = v.x;
  }
}
