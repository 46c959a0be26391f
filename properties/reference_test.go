package properties_test

import (
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/reference"
)

// TestReference runs every property on the reference backend under both
// profiles: the oracle must pass its own properties (and the properties
// must not reject a correct backend).
func TestReference(t *testing.T) {
	for _, p := range scatter.Profiles {
		t.Run(p.String(), func(t *testing.T) {
			properties.Check(t, properties.Target{Backend: reference.New(p), Profile: p})
		})
	}
}
