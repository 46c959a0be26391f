package cuda

import (
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/spec"
)

// The spec on the real GPU: every target skips, with the reason
// (Info().Unavailable: "libcuda.so.1 not found ..."), where there is none.
// The same suite through the emulated device is in emu_spec_test.go.
var (
	_ = spec.DescribeBackend(spec.Target{Backend: New(scatter.Torch2), Profile: scatter.Torch2})
	_ = spec.DescribeBackend(spec.Target{Backend: New(scatter.Torch113), Profile: scatter.Torch113})
	_ = spec.DescribeBackend(spec.Target{Backend: New(scatter.Torch2, Deterministic()), Profile: scatter.Torch2})
	_ = spec.DescribeBackend(spec.Target{Backend: New(scatter.Torch113, Deterministic()), Profile: scatter.Torch113})
)

func TestSpec(t *testing.T) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "cuda")
}

// TestPropertiesGPU runs the properties on the real GPU, all three
// profiles, both modes; it skips without a GPU.
func TestPropertiesGPU(t *testing.T) {
	for _, prof := range scatter.Profiles {
		for _, det := range []bool{false, true} {
			var opts []Option
			name := prof.String() + "/atomic"
			if det {
				opts = append(opts, Deterministic())
				name = prof.String() + "/deterministic"
			}
			t.Run(name, func(t *testing.T) {
				b := New(prof, opts...)
				if why := b.Info().Unavailable; why != "" {
					t.Skipf("no GPU: %s", why)
				}
				properties.Check(t, properties.Target{Backend: b, Profile: prof})
			})
		}
	}
}
