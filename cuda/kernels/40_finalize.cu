// init, finalize and the mean division.

// floor_div is ATen's div_floor_integer (b != 0; no overflow: |b| is a count).
DEV i64 floor_div(i64 a, i64 b) {
  i64 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

// mean_div divides a sum already rounded to T by the count c (which
// includes self when self takes part), as torch forms it: a float count
// is c rounded to the dtype (and, under PyTorch 1.13's per-step counting,
// first saturated at 2^precision); an integer count wraps in the dtype;
// a count of 0 becomes 1. Floats divide, integers floor-divide.
DEV float mean_div(float a, u64 c, i64 flags) {
  if ((flags & F_PERSTEP_COUNT) && c > (1ull << 24)) c = 1ull << 24;
  return a / round_count(c, 24);
}
DEV double mean_div(double a, u64 c, i64 flags) {
  if ((flags & F_PERSTEP_COUNT) && c > (1ull << 53)) c = 1ull << 53;
  return a / (double)c;
}
DEV f16 mean_div(f16 a, u64 c, i64 flags) {
  if ((flags & F_PERSTEP_COUNT) && c > 2048) c = 2048;
  float cnt = h2f(f2h(round_count(c, 11)));  // 65520 and more: +inf
  return make_f16(h2f(a.x) / cnt);
}
DEV bf16 mean_div(bf16 a, u64 c, i64 flags) {
  if ((flags & F_PERSTEP_COUNT) && c > 256) c = 256;
  float cnt = b2f(f2b(round_count(c, 8)));
  return make_bf16(b2f(a.x) / cnt);
}
template <class T>
DEV T mean_div_int(T a, u64 c) {
  i64 cc = (i64)from_bits(c, (const T*)0);
  if (cc == 0) cc = 1;
  return from_bits((u64)floor_div((i64)a, cc), (const T*)0);
}
DEV i64 mean_div(i64 a, u64 c, i64) { return mean_div_int<i64>(a, c); }
DEV int mean_div(int a, u64 c, i64) { return mean_div_int<int>(a, c); }
DEV i16 mean_div(i16 a, u64 c, i64) { return mean_div_int<i16>(a, c); }
DEV i8 mean_div(i8 a, u64 c, i64) { return mean_div_int<i8>(a, c); }
DEV u8 mean_div(u8 a, u64 c, i64) { return mean_div_int<u8>(a, c); }
DEV b8 mean_div(b8 a, u64, i64) { return a; }  // never planned: bool mean is an error

// init_impl fills the accumulator (p.out, n elements): INIT_FILL with the
// bits aux; INIT_COPY with self converted to ACC, a NaN made the
// canonical aux when F_CANON is set.
template <class T, class ACC>
DEV void init_impl(const Params& p) {
  ACC* out = (ACC*)p.out;
  const T* self = (const T*)p.self;
  i64 tid = global_thread(), nth = global_threads();
  for (i64 j = tid; j < p.n; j += nth) {
    if (p.op == INIT_FILL) {
      out[j] = from_bits((u64)p.aux, (const ACC*)0);
    } else {
      ACC x = Conv<T, ACC>::to(self[j]);
      if ((p.flags & F_CANON) && is_nan(x)) x = from_bits((u64)p.aux, (const ACC*)0);
      out[j] = x;
    }
  }
}

// finalize_impl writes the output (p.out, T) from the accumulator (p.src,
// ACC; it may be the output itself): an element no contribution reached
// gets self back, bit for bit; a mean divides; anything else converts.
// Which elements were reached: F_SENTINEL (the accumulator still holds
// the sentinel aux), else the touched flags, else the counts, else all.
template <class T, class ACC>
DEV void finalize_impl(const Params& p) {
  T* out = (T*)p.out;
  const ACC* acc = (const ACC*)p.src;
  const T* self = (const T*)p.self;
  const u32* count = (const u32*)p.count;
  const u8* touched = (const u8*)p.touched;
  i64 tid = global_thread(), nth = global_threads();
  for (i64 j = tid; j < p.n; j += nth) {
    bool hit = true;
    if (p.flags & F_SENTINEL)
      hit = to_bits(acc[j]) != (u64)p.aux;
    else if (touched)
      hit = touched[j] != 0;
    else if (count)
      hit = count[j] != 0;
    if (!hit) {
      out[j] = self[j];
      continue;
    }
    T v = Conv<T, ACC>::from(acc[j]);
    if (p.op == OP_MEAN) v = mean_div(v, (u64)count[j] + ((p.flags & F_INCL) ? 1 : 0), p.flags);
    out[j] = v;
  }
}
