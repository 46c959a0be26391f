package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
)

func readReport(t *testing.T, path string) jsonReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep jsonReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func caseIDs(r jsonRun) []string {
	var ids []string
	for _, c := range r.Cases {
		ids = append(ids, c.ID)
	}
	return ids
}

// TestShardsUnion: n shards together run exactly the cases of one
// unsharded run, each case once, in every part (spec, fixtures, random,
// properties, workloads); merged, their reports are the unsharded one's cases in its
// order, with the same summary.
func TestShardsUnion(t *testing.T) {
	dir := t.TempDir()
	base := []string{"-profile", "torch-2", "-checks", "2", "-properties-tier", "short", "-workload-div", "1000", "-progress", "0"}
	full := filepath.Join(dir, "full.json")
	if code, out, errs := runCmd(t, nil, append(base, "-json", full)...); code != 0 {
		t.Fatalf("unsharded run: exit %d\n%s\n%s", code, tail(out, 20), errs)
	}
	const n = 3
	inputs := []string{filepath.Join(dir, "merged.json")}
	seen := map[string]map[string]int{} // run -> case id -> shards that ran it
	for i := 1; i <= n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("shard%d.json", i))
		if code, out, errs := runCmd(t, nil, append(base, "-shard", fmt.Sprintf("%d/%d", i, n), "-json", p)...); code != 0 {
			t.Fatalf("shard %d/%d: exit %d\n%s\n%s", i, n, code, tail(out, 20), errs)
		}
		inputs = append(inputs, p)
		for _, r := range readReport(t, p).Runs {
			if r.Shard != fmt.Sprintf("%d/%d", i, n) {
				t.Errorf("shard %d/%d: the report says shard %q", i, n, r.Shard)
			}
			key := r.Implementation.Name + " " + r.Implementation.Version
			if seen[key] == nil {
				seen[key] = map[string]int{}
			}
			for _, id := range caseIDs(r) {
				seen[key][id]++
			}
		}
	}
	want := readReport(t, full)
	parts := map[string]bool{}
	for _, r := range want.Runs {
		key := r.Implementation.Name + " " + r.Implementation.Version
		ids := caseIDs(r)
		for _, id := range ids {
			parts[strings.SplitN(id, "/", 2)[0]] = true
			if seen[key][id] != 1 {
				t.Errorf("%s: case %s ran in %d shards, want 1", key, id, seen[key][id])
			}
		}
		if len(seen[key]) != len(ids) {
			t.Errorf("%s: the shards ran %d distinct cases, the unsharded run %d", key, len(seen[key]), len(ids))
		}
	}
	for _, p := range []string{"spec", "fixture", "random", "property", "workload"} {
		if !parts[p] {
			t.Errorf("the unsharded run has no %s case: the test does not cover that part", p)
		}
	}

	junit := filepath.Join(dir, "merged.xml")
	if code, out, errs := runCmd(t, nil, append([]string{"merge", "-junit", junit}, inputs...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, errs)
	}
	got := readReport(t, inputs[0])
	if !got.Conforms || !got.Complete || got.Schema != jsonSchema || len(got.Runs) != len(want.Runs) {
		t.Fatalf("merged: conforms %v, complete %v, schema %d, %d runs (want %d)", got.Conforms, got.Complete, got.Schema,
			len(got.Runs), len(want.Runs))
	}
	for i, r := range want.Runs {
		g := got.Runs[i]
		if !slices.Equal(caseIDs(g), caseIDs(r)) {
			t.Errorf("merged run %d (%s): its cases are not the unsharded run's, in its order", i, g.Implementation.Name)
		}
		for k, v := range r.Summary {
			if g.Summary[k] != v {
				t.Errorf("merged run %d (%s): summary %s = %d, want %d", i, g.Implementation.Name, k, g.Summary[k], v)
			}
		}
		if len(g.Matrix) != len(r.Matrix) {
			t.Errorf("merged run %d: %d matrix cells, want %d", i, len(g.Matrix), len(r.Matrix))
		}
	}
	if b, err := os.ReadFile(junit); err != nil || !strings.Contains(string(b), "<testsuites") {
		t.Errorf("merge -junit: %v", err)
	}

	// the same shard twice is refused; shards that do not make one whole
	// run (one missing; one that ran other suites) merge into an
	// incomplete report, which fails
	if code, _, errs := runCmd(t, nil, "merge", filepath.Join(dir, "x.json"), inputs[1], inputs[1]); code != 2 ||
		!strings.Contains(errs, "more than one input") {
		t.Errorf("merging a shard with itself: exit %d, %q", code, errs)
	}
	other := filepath.Join(dir, "shard3-spec.json")
	if code, out, errs := runCmd(t, nil, append(base, "-shard", "3/3", "-suites", "spec", "-json", other)...); code != 0 {
		t.Fatalf("shard 3/3 of the spec alone: exit %d\n%s\n%s", code, tail(out, 20), errs)
	}
	for _, c := range []struct {
		name   string
		inputs []string
		want   string
	}{
		{"2 of 3 shards", []string{inputs[1], inputs[2]}, "shard 3/3 is missing"},
		{"a shard of other suites", []string{inputs[1], inputs[2], other}, "the shards chose different cases"},
	} {
		y := filepath.Join(dir, "y.json")
		code, out, _ := runCmd(t, nil, append([]string{"merge", y}, c.inputs...)...)
		if code != 1 || !strings.Contains(out, "INCOMPLETE:") || !strings.Contains(out, c.want) || strings.Contains(out, "PASS") {
			t.Errorf("merging %s: exit %d, want 1 and %q\n%s", c.name, code, c.want, out)
			continue
		}
		r := readReport(t, y)
		if r.Complete || r.Conforms || !strings.Contains(r.Incomplete, c.want) {
			t.Errorf("merging %s: the report says complete %v, conforms %v, incomplete %q", c.name, r.Complete, r.Conforms, r.Incomplete)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, s := range []string{"0/3", "4/3", "1/0", "x", "1/", "/2", "-1/2"} {
		if _, err := parseShard(s); err == nil {
			t.Errorf("parseShard(%q) accepted", s)
		}
	}
	sh, err := parseShard("2/4")
	if err != nil || sh != (shard{2, 4}) || sh.String() != "2/4" {
		t.Errorf("parseShard(2/4) = %v, %v", sh, err)
	}
	whole, _ := parseShard("")
	one, _ := parseShard("1/1")
	if !whole.has("anything") || !one.has("anything") || one.String() != "" {
		t.Error("the whole run, or 1/1, must hold every case")
	}
}

// TestSelection: a run's selection names -ops and -labels sorted and each
// once (shards given them in another order chose the same cases), and the
// scales of the parts run, where not their defaults.
func TestSelection(t *testing.T) {
	cfg := &gateConfig{ops: []scatter.Op{scatter.OpScatterAdd, scatter.OpGather, scatter.OpGather}, labels: []string{"b", "a"},
		suites: map[string]bool{suiteProperties: true, suiteWorkloads: true}, propTier: properties.TierShort, workloadDiv: 10}
	if got, want := cfg.selection(), "-ops gather,scatter_add -labels a,b -workload-div 10 -properties-tier short"; got != want {
		t.Errorf("selection %q, want %q", got, want)
	}
	def := &gateConfig{suites: map[string]bool{suiteProperties: true, suiteWorkloads: true}, propTier: properties.TierDefault,
		workloadDiv: defaultWorkloadDiv}
	if got := def.selection(); got != "" {
		t.Errorf("the defaults' selection is %q, want none", got)
	}
}
