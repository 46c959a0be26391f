// gather: out[i] = input[a*osA + v*osK + b] for every position i = (a, k, b)
// of the index (table mode: the index holds input offsets). Elements are
// moved as bits, so one kernel per element width serves every dtype.
template <class W>
DEV void gather_impl(const Params& p) {
  W* out = (W*)p.out;
  const W* in = (const W*)p.src;
  i64 tid = global_thread(), nth = global_threads();
  for (i64 i = tid; i < p.n; i += nth) {
    i64 a, k, b;
    decompose(p, i, a, k, b);
    i64 v = load_idx(p, a * p.isA + k * p.isK + b * p.isB);
    if (out_of_range(p, v)) {
      flag_oob(p);
      continue;
    }
    out[i] = in[out_offset(p, a, v, b)];
  }
}

// fill_impl sets n elements of width W to the bits aux.
template <class W>
DEV void fill_impl(const Params& p) {
  W* out = (W*)p.out;
  W v = (W)(u64)p.aux;
  i64 tid = global_thread(), nth = global_threads();
  for (i64 j = tid; j < p.n; j += nth) out[j] = v;
}

// probe: how the hardware's float atomics treat subnormals. out holds 12
// floats and 2 doubles set by the host; the host compares the results
// with IEEE arithmetic and falls back to compare-and-swap adds if they
// flush.
extern "C" __global__ void probe_atomics(const Params p) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  float* f = (float*)p.out;
  atomicAdd(f + 0, 1e-40f);        // 0 + subnormal
  atomicAdd(f + 1, -1.0e-38f);     // normal - normal = subnormal
  float4 v;
  v.x = 1e-40f;
  v.y = 2e-40f;
  v.z = 3e-40f;
  v.w = 4e-40f;
  red_add4(f + 4, v, p.flags);     // the vector path (f + 4 is 16-byte aligned)
  double* d = (double*)(f + 8);
  atomicAdd(d + 0, 1e-310);        // 0 + subnormal
  atomicAdd(d + 1, -2.0e-308);     // normal - normal = subnormal
}
EMU_REGISTER(probe_atomics)
