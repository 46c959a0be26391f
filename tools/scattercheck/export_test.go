package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/fixtures/casefile"
	"github.com/scatterconf/scatter/npy"
)

// TestExport writes fixture packs and reads every one back: the case
// decodes as a fixture (package casefile), and where bounds are written
// the expected result lies between them.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	code, out, errb := runCmd(t, nil, "export", "-profile", "torch-2", "-ops", "scatter_reduce,torch_scatter.scatter", dir)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, out, errb)
	}
	var index struct {
		Level string        `json:"level"`
		Cases []exportEntry `json:"cases"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatal(err)
	}
	if index.Level != "conformant" || len(index.Cases) < 20 {
		t.Fatalf("index: level %s, %d cases", index.Level, len(index.Cases))
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Error(err)
	}
	fsys := os.DirFS(dir)
	bounded, errs, placeholders := 0, 0, 0
	for _, e := range index.Cases {
		if e.Op != "scatter_reduce" && e.Op != "torch_scatter.scatter" {
			t.Errorf("%s: -ops let %s through", e.ID, e.Op)
		}
		if e.Emulated != "" {
			t.Errorf("%s: %s marked emulated: %s", e.ID, e.Op, e.Emulated)
		}
		fx, err := casefile.Decode(fsys, e.Folder)
		if err != nil {
			t.Errorf("%s: %v", e.ID, err)
			continue
		}
		var allowed map[string]json.RawMessage
		ab, err := os.ReadFile(filepath.Join(dir, e.Folder, "allowed.json"))
		if err != nil || json.Unmarshal(ab, &allowed) != nil {
			t.Errorf("%s: allowed.json: %v", e.ID, err)
			continue
		}
		if e.Expect != "out" {
			errs++
			if fx.WantErr.String() != e.Expect || allowed["allowed_errors"] == nil {
				t.Errorf("%s: expect %s, fixture %v, allowed %s", e.ID, e.Expect, fx.WantErr, ab)
			}
			if fx.Message == "the first rule PyTorch checks" {
				placeholders++
			}
			continue
		}
		if !e.Bounds {
			// every result has its bounds, however large, unless any
			// result conforms
			if !strings.Contains(strings.Join(strings.Fields(string(allowed["allowed"])), ""), `"any":true`) {
				t.Errorf("%s: no bounds written (allowed: %.200s)", e.ID, allowed["allowed"])
			}
			continue
		}
		bounded++
		lo := readNpy(t, filepath.Join(dir, e.Folder, "allowed_lo.npy"), fx.Want.Out.DType())
		hi := readNpy(t, filepath.Join(dir, e.Folder, "allowed_hi.npy"), fx.Want.Out.DType())
		want := fx.Want.Out
		wp, lp, hp := want.Positions(), lo.Positions(), hi.Positions()
		for i := range wp {
			w := scatter.Float64At(want.Data, wp[i])
			l := scatter.Float64At(lo.Data, lp[i])
			h := scatter.Float64At(hi.Data, hp[i])
			if math.IsNaN(w) {
				continue
			}
			if !(l <= w && w <= h) {
				t.Errorf("%s: element %d: %v not in [%v, %v]", e.ID, i, w, l, h)
			}
		}
	}
	if bounded == 0 || errs == 0 {
		t.Errorf("%d cases with bounds, %d expected errors", bounded, errs)
	}
	for _, op := range []scatter.Op{scatter.OpTorchScatterAdd, scatter.OpTensorScatter, scatter.OpTensorGather} {
		if emulatedTruth(op) == "" {
			t.Errorf("%s is not marked emulated", op)
		}
	}
	if placeholders > 0 {
		t.Errorf("%d of %d expected errors carry no PyTorch message", placeholders, errs)
	}
}

// TestExportReplacesEarlier: an export over an earlier one replaces its
// cases (an export of other operations leaves none of the earlier ones
// behind, unlisted), and a folder that holds anything else is refused,
// untouched.
func TestExportReplacesEarlier(t *testing.T) {
	dir := t.TempDir()
	for _, ops := range []string{"gather", "scatter_add"} {
		if code, out, errb := runCmd(t, nil, "export", "-profile", "torch-2", "-ops", ops, dir); code != 0 {
			t.Fatalf("export -ops %s: exit %d\n%s%s", ops, code, out, errb)
		}
	}
	cases, _ := filepath.Glob(filepath.Join(dir, "torch-2", "*", "*", "case.json"))
	for _, c := range cases {
		if op := filepath.Base(filepath.Dir(filepath.Dir(c))); op != "scatter_add" {
			t.Fatalf("a case of %s outlived the second export: %s", op, c)
		}
	}
	if len(cases) == 0 {
		t.Fatal("the second export wrote nothing")
	}
	other := t.TempDir()
	mine := filepath.Join(other, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := runCmd(t, nil, "export", "-ops", "gather", other)
	if code != 2 || !strings.Contains(errb, "holds no earlier export") {
		t.Fatalf("export into a folder of other files: exit %d, want 2 and why\n%s%s", code, out, errb)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Fatalf("the folder's file was touched: %q, %v", b, err)
	}
	// an index that lists the folder itself, a path out of it, or a path
	// through a link out of it removes nothing
	outside := t.TempDir()
	keep := filepath.Join(outside, "gather", "keep")
	if err := os.MkdirAll(keep, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, folder := range []string{".", "torch-2/..", "../x/y", "torch-2/gather/../../..", "link/gather/keep", "torch-2/gather/keep"} {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, "notes.txt"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{"link", "torch-2"} { // "torch-2/gather/keep" runs through the second
			if err := os.Symlink(outside, filepath.Join(d, l)); err != nil {
				t.Fatal(err)
			}
		}
		idx, _ := json.Marshal(map[string]any{"cases": []map[string]string{{"folder": folder}}})
		if err := os.WriteFile(filepath.Join(d, "index.json"), idx, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errb := runCmd(t, nil, "export", "-ops", "gather", "-profile", "torch-2", d)
		if _, err := os.Stat(filepath.Join(d, "notes.txt")); err != nil {
			t.Errorf("index listing %q: the folder's own file is gone (exit %d: %s)", folder, code, errb)
		}
		if _, err := os.Stat(keep); err != nil {
			t.Fatalf("index listing %q: a folder outside the export was removed (exit %d: %s)", folder, code, errb)
		}
	}
	// an export of no case is an earlier export too
	empty := t.TempDir()
	for range 2 {
		if code, out, errb := runCmd(t, nil, "export", "-labels", "no-such-label", empty); code != 0 {
			t.Fatalf("an export of no case, twice: exit %d\n%s%s", code, out, errb)
		}
	}
}

func readNpy(t *testing.T, path string, dt scatter.DType) scatter.Tensor {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	x, err := npy.ReadAs(f, dt)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return x
}
