//go:build linux

package cuda

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/spec"
)

// Deliberately broken kernels: each mutant is the kernel source with one
// computation changed, built into its own emulator library. The suites run
// through the emulated device must catch every one: a wrong index
// computation in a kernel fails CI.
var kernelMutants = []struct {
	mutation
	deterministic bool
}{
	{mutation{name: "flip-index",
		// every scatter path and gather: the output (input) row of index value v becomes size-1-v
		from: "DEV i64 out_offset(const Params& p, i64 a, i64 v, i64 b) { return a * p.osA + v * p.osK + b; }",
		to:   "DEV i64 out_offset(const Params& p, i64 a, i64 v, i64 b) { return a * p.osA + (p.size - 1 - v) * p.osK + b; }"},
		false},
	{mutation{name: "rows-previous-index",
		// the row kernel reads the index of the row before
		from: "i64 v = load_idx(p, a * p.isA + k * p.isK);",
		to:   "i64 v = load_idx(p, a * p.isA + (k > 0 ? k - 1 : k) * p.isK);"},
		false},
	{mutation{name: "segfold-reverse",
		// the deterministic fold takes a segment's contributions last first
		from: "for (i64 q = st; q < en; q++) acc",
		to:   "for (i64 q = en - 1; q >= st; q--) acc"},
		true},
}

func TestKernelMutantsAreCaught(t *testing.T) {
	if _, why := gxx(); why != "" {
		t.Skip(why)
	}
	// build the mutants side by side
	var wg sync.WaitGroup
	for _, m := range kernelMutants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buildEmu(m.mutation)
		}()
	}
	wg.Wait()
	for _, m := range kernelMutants {
		t.Run(m.name, func(t *testing.T) {
			prof := scatter.Torch2
			b, why := emuBackend(prof, config{deterministic: m.deterministic}, m.mutation)
			if why != "" {
				t.Fatal(why)
			}
			// 1. the spec, as DescribeBackend runs it
			tgt := spec.Target{Backend: b, Profile: prof}
			specFails, ran := 0, 0
			var first error
			for _, c := range spec.Cases() {
				if tgt.SkipReason(c) != "" {
					continue
				}
				ran++
				if err := spec.CheckCase(tgt, c); err != nil {
					specFails++
					if first == nil {
						first = err
					}
				}
			}
			// 2. the differential test's calls
			lvl := scatter.Conformant
			if m.deterministic {
				lvl = scatter.Strict
			}
			g := &callGen{r: rand.New(rand.NewPCG(1, 2))}
			randFails, calls := 0, 300
			for i := 0; i < calls; i++ {
				if judgeRun(b, g.call(), prof, lvl) != nil {
					randFails++
				}
			}
			t.Logf("mutant %s: %d of %d spec cases fail, %d of %d random calls fail", m.name, specFails, ran, randFails, calls)
			if first != nil {
				t.Logf("the first spec failure:\n%v", first)
			}
			if specFails+randFails == 0 {
				t.Errorf("mutant %s survived the suites", m.name)
			}
		})
	}
}
