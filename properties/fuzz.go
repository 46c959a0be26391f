package properties

import (
	"testing"

	"pgregory.net/rapid"
)

// FuzzTarget returns a native Go fuzz target (for testing.F.Fuzz) that
// drives the properties of family f on target: each input picks one
// property and draws its case from the input's bytes, through rapid's
// MakeFuzz, so that go test -fuzz (and OSS-Fuzz or ClusterFuzzLite, which
// take native Go fuzz targets) explore the same properties as Check. A
// property the backend cannot run (unclaimed operations) skips the input.
//
//	func FuzzScatterFamily(f *testing.F) {
//		f.Fuzz(properties.FuzzTarget(properties.Target{Backend: b, Profile: scatter.Torch2}, properties.FamilyScatter))
//	}
func FuzzTarget(target Target, f Family, budget ...Budget) func(*testing.T, []byte) {
	info := target.Backend.Info()
	lvl := target.JudgeLevel()
	cfg := resolveTier(firstBudget(budget).Tier).params().cfg
	var runs []*runCtx
	for _, p := range familyProperties(f) {
		if p.skipReason(target, info, lvl) == "" {
			runs = append(runs, &runCtx{target: target, info: info, level: lvl, cfg: cfg, prop: p, st: &propState{}})
		}
	}
	prop := rapid.MakeFuzz(func(rt *rapid.T) {
		if info.Unavailable != "" || len(runs) == 0 {
			rt.Skipf("nothing to run on backend %s", info.Name)
		}
		r := runs[rapid.IntRange(0, len(runs)-1).Draw(rt, "property")]
		rt.Logf("property %s", r.prop.name)
		st := *r.st // a fresh count per input
		(&runCtx{target: r.target, info: r.info, level: r.level, cfg: r.cfg, prop: r.prop, st: &st}).property(rt)
	})
	return func(t *testing.T, data []byte) {
		t.Helper()
		if info.Unavailable != "" {
			t.Skipf("backend %s is unavailable: %s", info.Name, info.Unavailable)
		}
		prop(t, data)
	}
}
