// Package properties is the randomised half of the conformance suite:
// rapid (pgregory.net/rapid) properties, over calls drawn by package
// callgen, that check any scatter.Backend against the oracle and against
// itself (runs through package check, failures written by package repro),
// the mutant zoo that shows the properties have teeth, and a meta-test of
// the judge's own bounds.
//
// # Running it on a backend
//
// A backend hands itself to the properties from its own tests, as it does
// to the spec:
//
//	func TestProperties(t *testing.T) {
//		properties.Check(t, properties.Target{Backend: mybackend.New(), Profile: scatter.Torch2})
//	}
//
// Under Ginkgo (or with any TB of one's own, such as a recorder), CheckTB
// takes rapid.TB, which GinkgoT() satisfies; it runs the properties one
// after the other and reports all failures at the end:
//
//	var _ = It("passes the properties", func() {
//		properties.CheckTB(GinkgoT(), properties.Target{Backend: b, Profile: scatter.Torch2})
//	})
//
// The level follows spec.Target: a backend whose Info claims Deterministic
// is judged strict (bit-exact with the canonical order), any other at the
// conformant level (Target.Level may raise it to strict). A property whose
// operations the backend does not claim is skipped with the reason, dtypes
// it does not claim are never drawn, an answer of scatter.ErrNotSupported
// skips the case (a property in which no call that should succeed was
// judged, every case declined, a call that must fail or vacuous, is
// skipped with the counts: PropertyReport.Unjudged), and an unavailable
// backend skips everything.
//
// # The properties
//
// Each runs as a subtest named by it (Properties lists them):
//
//   - differential/<op>: a drawn call, mostly valid (indices in range by
//     construction) and corrupted toward an error path in about 15% of
//     cases; the outcome must be accepted by the judge (reference.Expect) at
//     the target's level: a conforming result, or an error whose code the
//     broken rules allow. A panic is a failure with the call printed.
//   - differential/crowded: the same check on valid float sums, products
//     and means of scatter, scatter_add, scatter_reduce, index_reduce and
//     torch_scatter 2.x scatter that fold long groups (three or more
//     contributions to a target, one or two targets per region, values
//     whose sums round: callgen.Want.Crowded), where the order and the
//     width of an accumulation show; the draws of differential/<op> rarely
//     hold such groups.
//   - differential/broken: the same check on calls of every operation
//     all drawn toward an error path, a quarter of them toward two
//     (callgen's FaultPercent 100: 76% to 98% break a rule, 2% to 16%
//     rules of two kinds, by operation): at the strict level an error
//     must be of the kind PyTorch (or the F# library) checks first, at
//     the conformant level of any kind the call breaks.
//   - invariants/inputs-unchanged: the tensors of one dtype share a single
//     backing slice with guard elements between; not one bit of it may
//     change (every property also checks its own calls' inputs, guard
//     elements included). Skipped for a Target.Copies backend (a process
//     behind the line protocol), which never sees the storage.
//   - invariants/strided-vs-contiguous: every tensor a strided view
//     (offset, transposed, gapped, expanded); the contiguous copy of the call
//     must give the same bits (strict targets) or a result the judge of the
//     copy accepts. Skipped for a Target.Materialises backend, to which
//     both are the same call.
//   - invariants/repeatable: for targets judged strict, three runs of one
//     call give the same bits.
//   - metamorphic/permute-duplicates/{scatter,index_reduce}: reordering the
//     index positions (and src) along dim keeps the answer within the judge
//     of the original call.
//   - metamorphic/split: one call equals its first half scattered into self
//     and its second half scattered into that result (integer sums and
//     products, bool, small-integer float sums, amax, amin: exactly).
//   - metamorphic/linear: scatter_add(self, src1) + scatter_add(0, src2) ==
//     scatter_add(self, src1+src2), exactly (integers wrap; floats hold
//     small integers).
//   - metamorphic/include-self/{scatter_reduce,index_reduce}:
//     include_self=False equals include_self=True on a self holding the
//     identity at the targets.
//   - metamorphic/mean-is-sum-over-count: integer mean is floor(sum/count).
//   - metamorphic/index_reduce-is-scatter_reduce: with the index expanded.
//   - metamorphic/gather-inverts-scatter: gather(scatter(x)) gives x back
//     with indices unique along every fiber.
//   - metamorphic/broadcast-is-expand/torch_scatter.{scatter,scatter_add}:
//     a 1-d index equals the same index expanded to src's shape (but for
//     the calls torch 2.14's expanded-index path lays by the index's rows
//     in an out wider than src, PROFILES.md).
//   - metamorphic/tensor.scatter-is-scatter_add: the F# scatter along one
//     dimension is scatter_add on zeros.
//
// The generator (callgen) draws ranks 0-4, zero-size dimensions, sizes around block
// boundaries (31/32/33, 255/256/257; 65535/65536/65537 in the long tier),
// offset, transposed, gapped and expanded (stride-0) views over bigger
// backing slices filled with guard values (NaNs with a payload, negative
// integers), duplicate densities from unique to all-same, int32 and int64
// indices, special values on purpose (NaN, ±Inf, ±0, subnormals, the
// largest finite values), 16-bit floats as raw bit patterns, exact small
// integers in a share of tensors, and every dtype.
//
// # Budgets, seeds and reproduction
//
// The optional Budget argument picks the tier; without it (or with its zero
// value) the tier comes from the environment: SCATTER_PROPERTIES=short,
// default or long, else go test's -short (TierShort), else TierDefault.
//
//	go test ./properties -short                        # smoke: seconds
//	go test ./properties                               # CI: the mutant zoo killed, about a minute
//	SCATTER_PROPERTIES=long go test ./properties -timeout 1h
//
// Each Check logs its seed; -rapid.seed=N reruns the same cases, and an
// explicit -rapid.checks=N overrides the tier's count. A failure is rapid's
// shrunk counterexample, printed with (a) the Go command that reruns it
// from its fail file (go test -run '^TestX$/^differential$/^scatter$'
// -rapid.failfile=testdata/rapid/...; rapid writes fail files under
// testdata/rapid of the package directory, properties/testdata/rapid for
// this package's own tests), (b) the protocol request line of each call
// involved (PROTOCOL.md; feed it to any implementation after the hello),
// and (c) a PyTorch one-liner (PyTorch), the F# calls as their PyTorch
// equivalent.
//
// # The mutant zoo and the judge's soundness
//
// Mutants returns deliberately broken backends (the reference with one
// injected bug each). TestMutants runs every one through CheckTB with the
// default budget and requires each to be killed; TestPropertiesHaveTeeth
// requires every property, run alone, to kill a named mutant.
// CheckBoundSoundness answers real calls as other correct implementations
// would (random orders and trees, per-step 16-bit rounding, float32,
// float64 and exact accumulation) and requires the judge to accept every
// answer; SCATTER_SOUNDNESS_N=1000000 runs a million orders.
//
// # Fuzzing (go test -fuzz, ClusterFuzzLite, OSS-Fuzz)
//
// FuzzTarget turns a family of properties into a native Go fuzz target,
// through rapid.MakeFuzz: the input's bytes are rapid's choices. The
// targets on the reference live in package properties/fuzz:
//
//	go test ./properties/fuzz -run '^$' -fuzz '^FuzzScatterFamily$' -fuzztime 5m -fuzzminimizetime 0
//	go test ./properties/fuzz -run '^$' -fuzz '^FuzzIndexReduceGather$' -fuzzminimizetime 0
//	go test ./properties/fuzz -run '^$' -fuzz '^FuzzNeighbours$' -fuzzminimizetime 0
//
// OSS-Fuzz and ClusterFuzzLite build native Go fuzz targets with
// compile_native_go_fuzzer (go-118-fuzz-build, which copies the
// directory's _test.go files into the package, so the targets sit in a
// directory with no external test package and no helpers in other test
// files: properties/fuzz) and use only F.Fuzz (F.Add seeds are ignored:
// ship a seed corpus). A ClusterFuzzLite setup in the repository root:
//
//	# .clusterfuzzlite/project.yaml
//	language: go
//
//	# .clusterfuzzlite/Dockerfile
//	FROM gcr.io/oss-fuzz-base/base-builder-go
//	COPY . $SRC/scatter
//	WORKDIR $SRC/scatter
//	COPY .clusterfuzzlite/build.sh $SRC/
//
//	# .clusterfuzzlite/build.sh
//	compile_native_go_fuzzer github.com/scatterconf/scatter/properties/fuzz FuzzScatterFamily fuzz_scatter_family
//	compile_native_go_fuzzer github.com/scatterconf/scatter/properties/fuzz FuzzIndexReduceGather fuzz_index_reduce_gather
//	compile_native_go_fuzzer github.com/scatterconf/scatter/properties/fuzz FuzzNeighbours fuzz_neighbours
//
// with the workflow of ClusterFuzzLite's documentation (the
// google/clusterfuzzlite actions build_fuzzers and run_fuzzers with
// language: go; mode code-change on pull requests, batch on a schedule).
// OSS-Fuzz takes the same build.sh in its projects/<name>/ directory. An
// outside Go backend fuzzes itself the same way, from a fuzz-only package
// of its own that calls FuzzTarget on its Target. A crash found by go test
// -fuzz reproduces with go test -run 'FuzzScatterFamily/<file>' from
// testdata/fuzz, and its log holds the shrunk call's protocol line and
// PyTorch one-liner. Inputs are long (rapid reads eight bytes per choice):
// give libFuzzer -max_len=65536, and turn go test's minimisation of new
// corpus entries off (-fuzzminimizetime 0): on inputs this long it stalls
// the engine (about 1 execution a second instead of thousands).
package properties
