package optimized_test

import (
	"os"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/optimized"
	"github.com/scatterconf/scatter/properties"
)

// The property suite (generators, differential and metamorphic properties,
// judged by the reference) on the backend under every profile: the
// default backend at the conformant level and the deterministic one at
// the strict level. The default and short tiers' tensors are small enough
// to run serially, so those tiers also run the backend with its paths
// forced parallel on 3 workers (private accumulators, conformant; owners,
// deterministic, strict); the long tier's tensors cross the thresholds by
// themselves, and it runs the two plain backends only.
func TestProperties(t *testing.T) {
	type target struct {
		name string
		b    scatter.Backend
	}
	long := strings.EqualFold(os.Getenv(properties.EnvTier), "long")
	for _, p := range scatter.Profiles {
		targets := []target{
			{"default", optimized.New(p)},
			{"deterministic", optimized.New(p, optimized.Deterministic())},
		}
		if !long {
			targets = append(targets,
				target{"private", optimized.New(p, optimized.Workers(3), optimized.ForcePath("private"))},
				target{"deterministic-owner", optimized.New(p, optimized.Deterministic(), optimized.Workers(3), optimized.ForcePath("owner"))})
		}
		for _, tg := range targets {
			t.Run(tg.name+"/"+p.String(), func(t *testing.T) {
				properties.Check(t, properties.Target{Backend: tg.b, Profile: p})
			})
		}
	}
}
