package properties_test

import (
	"regexp"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
)

// teeth names, for every property, a mutant that the property alone must
// kill: a property that cannot fail is a defect.
var teeth = map[string]string{
	"differential/scatter":                                      "duplicate-scatter-sums-writers",
	"differential/scatter_add":                                  "tail-dropped",
	"differential/scatter_reduce":                               "include-self-ignored",
	"differential/index_reduce":                                 "include-self-ignored",
	"differential/gather":                                       "gather-index-clamped",
	"differential/torch_scatter.scatter_add":                    "fill-value-ignored",
	"differential/torch_scatter.scatter":                        "ts-broadcast-wrong",
	"differential/tensor.scatter":                               "fsharp-none-as-zero",
	"differential/tensor.gather":                                "fsharp-none-as-zero",
	"differential/crowded":                                      "mean-divides-accumulator",
	"differential/broken":                                       "last-rule-reported",
	"invariants/inputs-unchanged":                               "writes-self",
	"invariants/strided-vs-contiguous":                          "stride-ignored",
	"invariants/repeatable":                                     "flaky-duplicates",
	"metamorphic/permute-duplicates/scatter":                    "tail-dropped",
	"metamorphic/permute-duplicates/index_reduce":               "include-self-ignored",
	"metamorphic/split":                                         "tail-dropped",
	"metamorphic/linear":                                        "int-sum-saturates",
	"metamorphic/include-self/scatter_reduce":                   "int8-amax-identity-zero",
	"metamorphic/include-self/index_reduce":                     "include-self-ignored",
	"metamorphic/mean-is-sum-over-count":                        "int-mean-truncates",
	"metamorphic/index_reduce-is-scatter_reduce":                "include-self-ignored",
	"metamorphic/gather-inverts-scatter":                        "tail-dropped",
	"metamorphic/broadcast-is-expand/torch_scatter.scatter":     "ts-broadcast-wrong",
	"metamorphic/broadcast-is-expand/torch_scatter.scatter_add": "negative-dim-wrong",
	"metamorphic/tensor.scatter-is-scatter_add":                 "fsharp-none-as-zero",
}

// TestPropertiesHaveTeeth runs every property alone on a mutant it must
// kill, and checks that the table covers every property.
func TestPropertiesHaveTeeth(t *testing.T) {
	if testing.Short() {
		t.Skip("the teeth are shown at the default budget (run without -short)")
	}
	noFailFiles(t)
	mutants := map[string]properties.Mutant{}
	for _, m := range properties.Mutants() {
		mutants[m.Name] = m
	}
	for _, name := range properties.Properties() {
		if _, ok := teeth[name]; !ok {
			t.Errorf("property %s has no mutant in the teeth table: show that it can fail", name)
		}
	}
	for name, mname := range teeth {
		t.Run(name, func(t *testing.T) {
			m, ok := mutants[mname]
			if !ok {
				t.Fatalf("no mutant %q", mname)
			}
			rec := &recorder{name: t.Name()}
			rep := properties.CheckTB(rec, properties.Target{Backend: m.Backend, Profile: scatter.Torch2},
				properties.Budget{Tier: properties.TierDefault, Match: "^" + regexp.QuoteMeta(name) + "$"})
			if len(rep.Properties) != 1 {
				t.Fatalf("Match selected %d properties", len(rep.Properties))
			}
			p := rep.Properties[0]
			if !p.Failed {
				t.Fatalf("property %s did not kill mutant %s in %d cases (seed %d; %s)", name, mname, p.Cases, rep.Seed, p.Skipped)
			}
			t.Logf("killed %s at case %d", mname, p.Cases)
		})
	}
}
