package optimized_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/optimized"
	"github.com/scatterconf/scatter/spec"
)

func TestSpec(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "optimized spec")
}

// The whole spec on the backend under every profile: the default backend
// at the conformant level, the deterministic one at the strict level, and
// the deterministic one again with its parallel paths forced (the spec's
// calls are small enough to run serially otherwise). The spec compares
// every outcome with PyTorch's recorded one, so the non-canonical private
// float paths are left to the differential tests (diff_test.go), which
// hold them to the judge alone.
var _ = func() bool {
	for _, p := range scatter.Profiles {
		spec.DescribeBackend(spec.Target{Backend: optimized.New(p), Profile: p})
		spec.DescribeBackend(spec.Target{Backend: optimized.New(p, optimized.Deterministic()), Profile: p})
		for _, path := range []string{"private", "owner"} {
			b := optimized.New(p, optimized.Deterministic(), optimized.Workers(3), optimized.ForcePath(path))
			spec.DescribeBackend(spec.Target{Backend: b, Profile: p})
		}
	}
	return true
}()
