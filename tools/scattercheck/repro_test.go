package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/fixtures/casefile"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/repro"
)

// TestReproFolderIsTheCallsOp: -repro-dir files a failure under the op of
// the call it writes, DIR/<profile>/<op>/<case>/, and the folder's
// case.json names it "<op>/<case>": a property's case, which has no op of
// its own (metamorphic-mean-is-sum-over-count) or one that is not its
// call's (permute-duplicates/scatter failing on a scatter_reduce call),
// included. Before, the first went to DIR/torch-2/<case> with the id
// "/property-...", the second under scatter/. Its request.jsonl is the
// hello and the call, so that sh -c CMD < request.jsonl replays it.
func TestReproFolderIsTheCallsOp(t *testing.T) {
	sr := func(reduce scatter.Reduce) scatter.Call {
		return scatter.ScatterReduce{Self: scatter.FromSlice([]float32{1, 2}), Dim: 0,
			Index: scatter.FromSlice([]int64{0, 0}), Src: scatter.FromSlice([]float32{3, 4}), Reduce: reduce}
	}
	wrong := scatter.Result{Out: scatter.FromSlice([]float32{9, 2})}
	cases := []struct {
		id, op string // the case's id and op as the gate has them
		call   scatter.Call
		want   string // the folder below DIR
	}{
		{"property/metamorphic-mean-is-sum-over-count", "", sr(scatter.ReduceMean),
			"torch-2/scatter_reduce/property-metamorphic-mean-is-sum-over-count"},
		{"property/permute-duplicates/scatter", "scatter", sr(scatter.ReduceSum),
			"torch-2/scatter_reduce/property-permute-duplicates-scatter"},
		{"random/scatter_reduce/float32", "scatter_reduce", sr(scatter.ReduceAmax),
			"torch-2/scatter_reduce/random-scatter_reduce-float32"},
	}
	r := &runReport{Impl: implInfo{Name: "test", Version: "1"}, Profile: scatter.Torch2, Level: scatter.Conformant}
	for _, c := range cases {
		r.Cases = append(r.Cases, &caseResult{ID: c.id, Source: suiteProperties, Op: scatter.Op(c.op), Status: stFail,
			Failure: &failure{Kind: "mismatch", call: c.call, res: wrong, profile: scatter.Torch2, level: scatter.Conformant}})
	}
	dir := t.TempDir()
	if err := r.writeRepros(dir); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		f := r.Cases[i].Failure
		if want := filepath.Join(dir, filepath.FromSlash(c.want)); f.Repro != want {
			t.Errorf("%s: repro folder %s, want %s", c.id, f.Repro, want)
			continue
		}
		b, err := os.ReadFile(filepath.Join(f.Repro, "case.json"))
		if err != nil {
			t.Fatal(err)
		}
		var meta struct{ ID, Op string }
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		if wantID := c.want[len("torch-2/"):]; meta.ID != wantID || meta.Op != string(c.call.Op()) {
			t.Errorf("%s: case.json has id %q, op %q; want %q, %q", c.id, meta.ID, meta.Op, wantID, c.call.Op())
		}
		if b, err := os.ReadFile(filepath.Join(f.Repro, "request.jsonl")); err != nil {
			t.Error(err)
		} else if want := string(protocol.EncodeHello(0)) + "\n" + repro.Line(c.call) + "\n"; string(b) != want {
			t.Errorf("%s: request.jsonl is\n%s\nwant the hello, then the call:\n%s", c.id, b, want)
		}
		if fx, err := casefile.Decode(os.DirFS(dir), c.want); err != nil {
			t.Errorf("%s: the repro folder is not a fixture: %v", c.id, err)
		} else if fx.Call.Op() != c.call.Op() {
			t.Errorf("%s: the fixture's call is %s", c.id, fx.Call.Op())
		}
	}
}
