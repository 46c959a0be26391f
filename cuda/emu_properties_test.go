//go:build linux

package cuda

import (
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
)

// The properties through the emulated device: both profiles, the atomic
// mode (conformant) and the deterministic mode (strict), at the tier that
// SCATTER_PROPERTIES or -short chooses (the default tier otherwise). The
// large calls are the differential test's (emu_random_test.go).
func TestPropertiesEmu(t *testing.T) {
	if _, why := gxx(); why != "" {
		t.Skip(why)
	}
	for _, prof := range scatter.Profiles {
		for _, det := range []bool{false, true} {
			name := prof.String() + "/atomic"
			if det {
				name = prof.String() + "/deterministic"
			}
			t.Run(name, func(t *testing.T) {
				b, why := emuBackend(prof, config{deterministic: det})
				if why != "" {
					t.Fatal(why)
				}
				properties.Check(t, properties.Target{Backend: b, Profile: prof}, properties.Budget{Tier: properties.TierAuto})
			})
		}
	}
}
