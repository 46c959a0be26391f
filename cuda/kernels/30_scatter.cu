// The scatter kernels of the atomic mode. Every contribution checks its
// index value first: one out of range sets the error flag and is skipped,
// so nothing is ever written out of bounds and the host answers the call
// with the reference's error (the output buffer is private to the call).

template <class T, class ACC>
DEV void contribute(const Params& p, i64 o, T v) {
  atom_op((int)p.op, (ACC*)p.out + o, Conv<T, ACC>::to(v), p.flags);
  if (p.count) atomicAdd((u32*)p.count + o, 1u);
  if (p.touched) ((u8*)p.touched)[o] = 1;
}

template <class T>
struct IsF32 {
  static constexpr bool value = false;
};
template <>
struct IsF32<float> {
  static constexpr bool value = true;
};

// load4 reads four index values at i (a multiple of 4) with vector loads.
DEV void load_idx4(const Params& p, i64 i, i64* v) {
  if (p.flags & F_IDX32) {
    int4 q = *(const int4*)((const int*)p.idx + i);
    v[0] = q.x;
    v[1] = q.y;
    v[2] = q.z;
    v[3] = q.w;
  } else {
    const longlong2* q = (const longlong2*)((const i64*)p.idx + i);
    longlong2 a = q[0], b = q[1];
    v[0] = a.x;
    v[1] = a.y;
    v[2] = b.x;
    v[3] = b.y;
  }
}

template <class T>
DEV void load_src4(const T* src, i64 i, i64 ss, T* s) {
  if (ss == 0) {
    s[0] = s[1] = s[2] = s[3] = src[0];
    return;
  }
  if constexpr (sizeof(T) == 4 && alignof(T) == 4) {
    // float, int: one 16-byte load
    float4 q = *(const float4*)(src + i);
    const T* t = (const T*)&q;
    s[0] = t[0];
    s[1] = t[1];
    s[2] = t[2];
    s[3] = t[3];
  } else {
    for (int j = 0; j < 4; j++) s[j] = src[i + j];
  }
}

// scatter_impl: one contribution per thread-iteration (grid-stride), with
// 4-wide vector loads on the linear (1-d) path.
template <class T, class ACC>
DEV void scatter_impl(const Params& p) {
  const T* src = (const T*)p.src;
  i64 tid = global_thread(), nth = global_threads();
  if (p.flags & F_LINEAR) {
    i64 n4 = p.n / 4;
    for (i64 q = tid; q < n4; q += nth) {
      i64 i = q * 4;
      i64 v[4];
      T s[4];
      load_idx4(p, i, v);
      load_src4<T>(src, i, p.ssK, s);
      for (int j = 0; j < 4; j++) {
        if (out_of_range(p, v[j])) {
          flag_oob(p);
          continue;
        }
        contribute<T, ACC>(p, out_offset(p, 0, v[j], 0), s[j]);
      }
    }
    for (i64 i = n4 * 4 + tid; i < p.n; i += nth) {
      i64 v = load_idx(p, i);
      if (out_of_range(p, v)) {
        flag_oob(p);
        continue;
      }
      contribute<T, ACC>(p, out_offset(p, 0, v, 0), src[i * p.ssK]);
    }
    return;
  }
  for (i64 i = tid; i < p.n; i += nth) {
    i64 a, k, b;
    decompose(p, i, a, k, b);
    i64 v = load_idx(p, a * p.isA + k * p.isK + b * p.isB);
    if (out_of_range(p, v)) {
      flag_oob(p);
      continue;
    }
    contribute<T, ACC>(p, out_offset(p, a, v, b), src[a * p.ssA + k * p.ssK + b * p.ssB]);
  }
}

// warpagg_impl: sums under contention (sorted or clustered indices). The
// 32 lanes of a warp take 32 consecutive contributions; lanes whose
// neighbours go to the same output form a run, which a segmented
// shuffle reduction sums into its first lane, which alone does the atomic.
// Every loop trip is warp-uniform, so the collectives see all 32 lanes.
template <class T, class ACC>
DEV void warpagg_impl(const Params& p) {
  const T* src = (const T*)p.src;
  i64 tid = global_thread(), nth = global_threads();
  unsigned lane = threadIdx.x & 31u;
  i64 first = tid - lane;  // the warp's first thread
  for (i64 base = first; base < p.n; base += nth) {
    i64 i = base + lane;
    i64 o = -1 - (i64)lane;  // a key of its own for a lane with nothing to add
    ACC x = Conv<T, ACC>::to(src[0]);
    if (i < p.n) {
      i64 a, k, b;
      decompose(p, i, a, k, b);
      i64 v = load_idx(p, a * p.isA + k * p.isK + b * p.isB);
      if (out_of_range(p, v)) {
        flag_oob(p);
      } else {
        o = out_offset(p, a, v, b);
        x = Conv<T, ACC>::to(src[a * p.ssA + k * p.ssK + b * p.ssB]);
      }
    }
    i64 prev = __shfl_up_sync(FULL_MASK, o, 1);
    bool head = lane == 0 || prev != o;
    unsigned heads = __ballot_sync(FULL_MASK, head);
    unsigned after = lane == 31 ? 0u : heads & ~((2u << lane) - 1u);  // heads after this lane
    unsigned end = after ? (unsigned)(__ffs((int)after) - 2) : 31u;    // this run's last lane
    for (unsigned off = 1; off < 32; off <<= 1) {
      ACC y = __shfl_down_sync(FULL_MASK, x, off);
      if (lane + off <= end) x = seq_op(OP_SUM, x, y);
    }
    if (head && o >= 0) atom_op(OP_SUM, (ACC*)p.out + o, x, p.flags);
  }
}

// smem_impl: sums into a small output (aux elements): each block sums into
// its own copy in shared memory (shared atomics, which keep subnormals),
// then adds its copy to the output, one atomic per element it touched.
// Floats start from -0.0, the additive identity of every value, and an
// element still holding -0.0 needs no atomic (x + -0.0 == x, bit for bit).
#define SMEM_BYTES 16384

DEV float smem_neutral(const float*) { return -0.0f; }
DEV double smem_neutral(const double*) { return -0.0; }
DEV int smem_neutral(const int*) { return 0; }
DEV i64 smem_neutral(const i64*) { return 0; }

template <class T, class ACC>
DEV void smem_impl(const Params& p) {
  __shared__ u64 raw[SMEM_BYTES / 8];
  ACC* sm = (ACC*)raw;
  const T* src = (const T*)p.src;
  i64 m = p.aux;
  ACC z = smem_neutral((const ACC*)0);
  for (i64 j = threadIdx.x; j < m; j += blockDim.x) sm[j] = z;
  __syncthreads();
  i64 tid = global_thread(), nth = global_threads();
  for (i64 i = tid; i < p.n; i += nth) {
    i64 a, k, b;
    decompose(p, i, a, k, b);
    i64 v = load_idx(p, a * p.isA + k * p.isK + b * p.isB);
    if (out_of_range(p, v)) {
      flag_oob(p);
      continue;
    }
    atom_op(OP_SUM, sm + out_offset(p, a, v, b), Conv<T, ACC>::to(src[a * p.ssA + k * p.ssK + b * p.ssB]),
            p.flags & ~(i64)F_CASADD);
  }
  __syncthreads();
  for (i64 j = threadIdx.x; j < m; j += blockDim.x) {
    ACC x = sm[j];
    if (to_bits(x) != to_bits(z)) atom_op(OP_SUM, (ACC*)p.out + j, x, p.flags);
  }
}

// red_add4 adds four floats at p (16-byte aligned): one vector reduction
// on sm_90 (PTX ISA 8.1), four scalar atomics elsewhere.
DEV void red_add4(float* p, float4 v, i64 flags) {
#if defined(SCATTER_VECRED) && !defined(SCATTER_EMU)
  if ((flags & F_VECRED) && !(flags & F_CASADD)) {
    asm volatile(
        "{ .reg .u64 g;\n\t"
        "cvta.to.global.u64 g, %0;\n\t"
        "red.global.add.v4.f32 [g], {%1, %2, %3, %4}; }" ::"l"(p),
        "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
        : "memory");
    return;
  }
#endif
  atom_add_f32(p + 0, v.x, flags);
  atom_add_f32(p + 1, v.y, flags);
  atom_add_f32(p + 2, v.z, flags);
  atom_add_f32(p + 3, v.w, flags);
}

// rows_impl: row scatters, where the index is constant along the inner
// extent B (an expanded index, index_reduce): a row of L lanes (L a power
// of two, 32/L rows per warp) reads the row's index once and moves B
// contiguous elements, four at a time when F_VEC4 says the row is aligned.
template <class T, class ACC>
DEV void rows_impl(const Params& p) {
  const T* src = (const T*)p.src;
  i64 tid = global_thread(), nth = global_threads();
  i64 L = p.lanes;
  i64 lane = tid & 31;
  i64 sub = lane & (L - 1);
  i64 rpw = 32 / L;
  i64 rows = p.A * p.K;
  for (i64 r = (tid >> 5) * rpw + lane / L; r < rows; r += (nth >> 5) * rpw) {
    i64 a = p.A == 1 ? 0 : r / p.K;
    i64 k = r - a * p.K;
    i64 v = load_idx(p, a * p.isA + k * p.isK);
    if (out_of_range(p, v)) {
      if (sub == 0) flag_oob(p);
      continue;
    }
    i64 ob = out_offset(p, a, v, 0);
    i64 sb = a * p.ssA + k * p.ssK;
    if constexpr (IsF32<T>::value && IsF32<ACC>::value) {
      if (p.flags & F_VEC4) {
        bool plain = p.op == OP_SUM && !p.count && !p.touched;
        for (i64 b = sub * 4; b < p.B; b += L * 4) {
          float4 s = *(const float4*)(src + sb + b);
          if (plain) {
            red_add4((float*)p.out + ob + b, s, p.flags);
          } else {
            contribute<T, ACC>(p, ob + b, s.x);
            contribute<T, ACC>(p, ob + b + 1, s.y);
            contribute<T, ACC>(p, ob + b + 2, s.z);
            contribute<T, ACC>(p, ob + b + 3, s.w);
          }
        }
        continue;
      }
    }
    for (i64 b = sub; b < p.B; b += L) contribute<T, ACC>(p, ob + b, src[sb + b * p.ssB]);
  }
}
