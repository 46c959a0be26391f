// Package optimized is the fast CPU backend of the scatter suite:
//
//	b := optimized.New(scatter.Torch2)                            // conformant
//	b := optimized.New(scatter.Torch113, optimized.Deterministic()) // strict
//	b := optimized.New(p, optimized.Workers(4))
//
// It runs every operation and dtype of the suite (Info claims them all)
// and passes spec.DescribeBackend and properties.Check under every profile
// (spec_suite_test.go, properties_test.go).
//
// # Validation and the reference
//
// Every call is validated, with the rules the reference (and PyTorch)
// check, in one place per operation (ops.go, gather.go), before anything
// the caller can see is written. The shape, dtype and dim rules cost
// O(rank). The index values are checked in the first pass over the index
// that the chosen path makes anyway: the counting pass of the owner paths
// (before any write at all), or the fold itself on the serial and private
// paths, whose writes go only to memory the backend owns (the result it
// has not returned yet, its scratch accumulators) and are dropped at the
// first bad value. A separate validating pass would read the index twice:
// W1's index is 80 MB of its 128 MB. The calls are out of place and never
// modify their inputs, so an invalid call changes nothing.
//
// Whenever a call breaks a rule, the backend hands it to the reference
// (reference.New(p).Run), which reports PyTorch's first broken rule in
// PyTorch's order: error codes are the reference's by construction, and
// the error path costs what the reference costs. The same holds for the
// calls no fast path takes, so every call conforms.
//
// # Which calls take a fast path
//
// Fast (valid calls, non-empty index, a walk that coalesces, see below):
//   - scatter (src or value; reduce none, add, multiply), scatter_add:
//     every dtype for plain scatter, every dtype but bool for add and
//     multiply;
//   - scatter_reduce sum, prod, mean, amax, amin, include_self either
//     way: every dtype but bool;
//   - index_reduce prod, mean, amax, amin, include_self either way: every
//     dtype but bool, when source has self's shape apart from dim (no
//     broadcast source slices) and self has at least one dimension;
//   - gather: every dtype;
//   - torch_scatter.scatter sum/add/mean without out: every dtype but
//     bool, with a 1-d index along dim (the PyG case) or an index of
//     src's shape, dim_size given or inferred (one pass for the maximum).
//
// Reference: torch_scatter.scatter_add (1.x), torch_scatter.scatter mul,
// min and max or with out, tensor.scatter, tensor.gather, bool
// reductions, index_reduce with broadcast source slices or 0-d self,
// empty indices, calls beyond the reference's size limits, and calls
// whose dimensions do not coalesce (below). The value of scatter's scalar
// form is converted by the reference too (a one-element scatter), so
// c10's checked conversion rules are the reference's own.
//
// # The normalised walk
//
// Every fast call becomes one description (layout.go, geom): the index is
// walked as o < O (the dims before dim), j < J (dim), n < N (the dims
// after dim), each group coalesced into one stride per tensor; the value
// index[o,j,n] = v sends src[o,j,n] to out[o, v, n]. out is the result,
// contiguous. Two shapes get kernels of their own:
//   - direct: a 1-d scatter over contiguous index and src (W1, W3, W4, W6,
//     W7): the index values are the targets;
//   - rows: the index is constant along n (PyG's expanded index,
//     index_reduce, torch_scatter's broadcast index) and rows of src and
//     out are contiguous (W2, W5): a row scatter, one index value per row.
//
// Everything else walks the strides in batches of (target, value) pairs.
//
// # Paths and determinism
//
// Serial: below serialMax (32K) element operations, or with one worker:
// the canonical fold (index order, self first) on the calling goroutine.
// Deterministic. A serial fold of a direct walk into an output under
// 1 MiB, with 8 MB of streams or more and a second worker at hand (W6
// under Deterministic), has that worker read the streams a little ahead
// of the fold (ahead.go): the fold, unchanged, then reads them from
// cache (W6 under Deterministic 1.5-1.7x faster on the Xeon host).
//
// Private: each worker folds a contiguous chunk of the index into its own
// output-sized accumulator (worker 0 starts from self, the others from the
// identity), then the accumulators are merged in parallel over output
// ranges, in worker order. Taken, except for plain scatter, when
// out.numel()*(workers-1) is at most the number of element operations
// (element scatters: the merge costs no more than the fold) or a 16th of
// it (row scatters, whose owner path keeps the output rows in cache while
// the src rows stream in with prefetch). For integers (wrapping arithmetic is
// associative), and for amax/amin (the merge keeps the earlier worker's
// value on a tie, so it is the canonical result), it is bit-exact with the
// canonical fold; for float sums, products and means it is not: the
// chunks' partial sums are added in another order (conformant, within
// the judge's any-order bounds). For those inexact reductions the work
// (the copy of self, the fold, the merge) is handed out in chunks, 16 per
// worker, to whichever worker asks first, and a helper that has not
// started when the calling goroutine runs out of chunks is cancelled
// rather than waited for (privateShared, parallelShare): on a loaded
// machine a worker kept off its core for a scheduler slice delays
// nothing. This is the path of W1, W3, W4, W6 and W7. A float32 mean
// with include_self over a direct walk (W4) accumulates there into
// (sum, int32 count) records of 8 bytes, one pass over the index whose
// contributions each touch one cache line (the addRec kernels,
// meanRecs); the merge adds the sums and the counts and divides once.
//
// Owner: one owner per output range, folding its elements' contributions
// in index order: bit-exact with the canonical fold. A validating pass
// counts the contributions per fine bucket of the output (64 buckets per
// worker, 256 for row scatters; a bucket is at least 64 elements), owners
// take contiguous bucket ranges balanced by count, a second pass places
// the records (stable: index order within a bucket; int32 targets, which
// always suffice, as the reference takes no tensor of 2^30 elements or
// more), and each owner folds its buckets one after the other, so that
// the output range being folded stays in cache. Element records hold the
// target and the value; row records the output row and the src row's
// start, and the row kernels prefetch the src rows, which the sort has
// put out of address order. Taken for plain scatter, for outputs too
// large for private accumulators (W2 and W5), and for float sums,
// products and means under Deterministic — unless the output has fewer
// than 128 units per worker, or the counts show that one owner would get
// four fifths of the work (a skewed index), or an element scatter runs on
// fewer than four workers (ownerElemMinWorkers: the sort's passes cost
// about three serial folds, so W1, W4 and W7 under Deterministic on two
// workers fold serially): then the serial path.
//
// Info().Deterministic is true only with the Deterministic option, which
// keeps float sums, products and means off the private path; the backend
// is then judged, and passes, at the strict level. gather is deterministic
// on every path (each output element is written once).
//
// # Arithmetic
//
// Kernels fold in the element type (integers wrap), with PyTorch's
// functors: amax/amin propagate NaN both ways and keep the accumulator on
// a tie (branch-free for floats, kernels_ext.go). float16 and bfloat16
// accumulate in float32 (kernels_half.go): under torch-2 the scatter
// family's sums and products run in float32 and round once at the end;
// under torch-1.13, and in index_reduce under every profile, every step
// rounds to the 16-bit format, bit for bit as reference/fold.go does
// (sums in float32, then rounded: the double rounding is innocuous;
// products in float64, where they are exact). Mean
// counts are exact integers, then saturate (per-step profile, floats at
// 2^p) or wrap (integers) in the dtype exactly as the reference's
// meanRule says; include_self=False starts from PyTorch's identities
// (+0, 1, ∓inf, the integer limits) and leaves untouched elements
// bit-identical to self.
//
// # Memory
//
// Private path: one output-sized accumulator per worker, but none for the
// first where the output itself can accumulate (sums, products, amax and
// amin with include_self, of every type but float16 and bfloat16, which
// accumulate in float32 — except the per-step bfloat16 sums of torch-1.13,
// which accumulate in bfloat16, the format every partial sum is rounded
// to anyway; W7 takes that path). A float32 mean with include_self over
// a direct walk (W4) holds one set of (sum, int32 count) records per
// worker, twice an output-sized buffer each. Other means with
// include_self over a direct walk, of a native type, run in passes that never hold more
// than one output-sized buffer per worker: the sums as above (worker 0
// into the output, the others into pooled accumulators, merged into the
// output), worker 0 also counting its chunk, a smaller one, into a
// pooled int32 array; then, the accumulators given back, the counts of
// the other chunks (split between all the workers, each into an int32
// array: a second read of that part of the index), then the division. Other means use (value, int32
// count) records (twice an output-sized buffer for float32),
// include_self=False adds a bitmap of the elements reached (1 bit each),
// and row scatters count per output row (one int32 per row).
// The output itself is allocated without zeroing (alloc.go): every path
// writes all of it (self copied in first) before returning it.
// Owner path: one accumulator set shared by the owners (none when the
// output itself can accumulate), and the sort's records: 4 bytes plus one
// element per contribution, or 12 bytes per row. Scratch buffers come
// from a pool of size classes (at most a quarter wasted) and are reused
// across calls.
//
// # Parallelism
//
// A persistent pool of Workers()-1 goroutines (default GOMAXPROCS) runs
// the parallel parts; no atomics, no locks in the kernels (one atomic
// counter per chunk handed out on privateShared). Go has no
// prefetch intrinsic, so the prefetching kernels are assembly on amd64
// (the Go loops elsewhere): the float sums (bfloat16 ones under torch-2
// too, widened to float32 as they are read), the float32 amax and amin
// (marking the elements reached as they go, for include_self=False) and
// the counts of a direct walk into an accumulator of 1 MiB or more
// (direct_amd64.s, generated by gen_direct.py; smaller ones stay in L2,
// where the Go loops are faster) prefetch the accumulator entry 32
// contributions ahead and the index and value streams ahead (the sums
// into L2 384 ahead and, repeatedly, into L1 64 ahead); the
// float32 row kernels (rows_amd64.s, generated by gen_rows.py) the output
// row 32 rows ahead and, on the owner path, the src row 32 ahead into L2
// and 8 ahead into L1. The merge of two float32
// accumulators of bfloat16 sums (W7) adds and rounds four at a time
// (finbf16_amd64.s, SSE2), and so does the division of two sets of
// float32 mean records (W4, finmean_amd64.s). The other element kernels
// prefetch the accumulator entries of the next block of 64 contributions
// when the accumulator is 8 MiB or more (prefetch_amd64.s).
//
// # Measured
//
// W1-W7 against PyTorch 1.13 are timed side by side by scattercheck bench
// (the README has the table); per kernel, go test -bench Direct. The
// figures behind the choices above are in the comments where they are
// made (gen_direct.py, gen_rows.py, exec.go, direct.go).
//
// The parallel paths need the second core. On two workers the private
// path of W7 (torch-2) costs about 6% more CPU time than the serial fold
// (17-18 ms against 16.5 ms per call: the second float32 accumulator
// zeroed, then read by the merge), and with both cores free it takes
// 8.2-9.2 ms against 15-16.5 ms serially (BenchmarkPath, one run). When
// other processes hold the second core, the two workers share one and
// the call costs that extra CPU time, and waits for the other processes'
// slices besides: hence the 16-17 ms against 14-15 ms seen on the loaded
// machine. The workers write separate accumulators (no false sharing
// but at the chunk counter), and the merge takes 1.2 ms on one core. A
// pool goroutine starts
// 40-130 µs after its task is queued when the other core is idle, and
// several milliseconds later when it is not; polling the queue after a
// task instead of blocking (so that the second and third phases of a
// call start at once) changed nothing measurable. The dispatcher cannot
// see the load; parallelShare lets worker 0 do all the work when the
// helper has not started, which is then the serial fold plus worker 0's
// accumulator.
package optimized
