// float16 and bfloat16 by bit manipulation (NVRTC has no cuda_fp16.h
// without the toolkit's headers). Conversions to 16 bits round to nearest,
// ties to even, in one rounding; a NaN becomes c10's canonical NaN
// (float16 0x7e00 with the sign kept, bfloat16 0x7fc0).
//
// Every 16-bit operation computes in float32 and rounds once: float32's 24
// bits are at least 2p+2 for p = 11 and 8, so for +, *, / the double
// rounding gives the correctly rounded 16-bit result (Figueroa 1995), as
// the reference's float64-then-round does.

DEV float h2f(u16 h) {
  u32 sign = (u32)(h & 0x8000u) << 16;
  u32 e = (h >> 10) & 0x1fu;
  u32 m = h & 0x3ffu;
  if (e == 0x1fu) return u2f(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    // zero or subnormal: m * 2^-24, exact in float32
    float f = (float)m * 5.9604644775390625e-8f;
    return u2f(sign | f2u(f));
  }
  return u2f(sign | ((e + 112u) << 23) | (m << 13));
}

DEV u16 f2h(float f) {
  u32 x = f2u(f);
  u32 sign = (x >> 16) & 0x8000u;
  u32 ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (u16)(sign | 0x7e00u);  // NaN
  if (ax >= 0x477ff000u) return (u16)(sign | 0x7c00u); // >= 65520: infinity
  if (ax < 0x38800000u) {
    // below 2^-14: a multiple of 2^-24 after rounding (1024 is the
    // smallest normal number's encoding, as it should be)
    float s = u2f(ax) * 16777216.0f;  // exact: a power-of-two scaling
    u32 q = (u32)s;
    float r = s - (float)q;
    if (r > 0.5f || (r == 0.5f && (q & 1u))) q++;
    return (u16)(sign | q);
  }
  u32 h = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13);
  u32 rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;  // a carry moves into the exponent
  return (u16)(sign | h);
}

DEV float b2f(u16 b) { return u2f((u32)b << 16); }

DEV u16 f2b(float f) {
  u32 x = f2u(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (u16)0x7fc0u;
  x += 0x7fffu + ((x >> 16) & 1u);
  return (u16)(x >> 16);
}

DEV float to_float(f16 v) { return h2f(v.x); }
DEV float to_float(bf16 v) { return b2f(v.x); }
DEV f16 make_f16(float f) {
  f16 r;
  r.x = f2h(f);
  return r;
}
DEV bf16 make_bf16(float f) {
  bf16 r;
  r.x = f2b(f);
  return r;
}

// round_count returns n rounded to prec significant bits (to nearest, ties
// to even), exactly, as a float: the mean count converted to a float dtype.
DEV float round_count(u64 n, int prec) {
  if (n == 0) return 0.0f;
  int top = 63 - __clzll((i64)n);  // index of the leading bit
  if (top < prec) return (float)n;
  int shift = top - (prec - 1);
  u64 q = n >> shift;
  u64 rem = n & ((1ull << shift) - 1);
  u64 half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) q++;
  // q <= 2^prec, so q * 2^shift is exact in float32 for prec <= 24
  float f = (float)q;
  for (int i = 0; i < shift; i++) f *= 2.0f;
  return f;
}
