// The deterministic mode: the host sorts the contributions by output
// (a stable counting sort, so each output's contributions stay in
// canonical order: increasing position along dim) and one thread folds
// each segment in that order, self first, with the reference's functors
// and rounding. The result is bit-exact with the reference (the strict
// level) whatever the schedule.
//
// segs holds n+1 (output, start) pairs; segment s is perm[start_s ..
// start_{s+1}), positions in src. aux is the identity's bits (ACC) when
// self does not take part.
template <class T, class ACC>
DEV void segfold_impl(const Params& p) {
  const i64* segs = (const i64*)p.segs;
  const i64* perm = (const i64*)p.perm;
  const T* src = (const T*)p.src;
  const T* self = (const T*)p.self;
  T* out = (T*)p.out;
  bool incl = (p.flags & F_INCL) != 0;
  int op = (int)p.op;
  i64 tid = global_thread(), nth = global_threads();
  for (i64 s = tid; s < p.n; s += nth) {
    i64 o = segs[2 * s], st = segs[2 * s + 1], en = segs[2 * s + 3];
    ACC acc = incl ? Conv<T, ACC>::to(self[o]) : from_bits((u64)p.aux, (const ACC*)0);
    for (i64 q = st; q < en; q++) acc = seq_op(op, acc, Conv<T, ACC>::to(src[perm[q]]));
    T v = Conv<T, ACC>::from(acc);
    if (op == OP_MEAN) v = mean_div(v, (u64)(en - st) + (incl ? 1 : 0), p.flags);
    out[o] = v;
  }
}
