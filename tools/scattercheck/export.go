package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/fixtures/casefile"
	"github.com/scatterconf/scatter/npy"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/spec"
)

// scattercheck export DIR: the spec's cases (and the recorded fixtures
// that package spec hands out among them) as fixture packs, for
// implementations that would rather read files than speak the protocol.
//
//	DIR/README.md                     the layout, for whoever finds the folder
//	DIR/index.json                    every case: id, op, dtypes, folder, outcome
//	DIR/<profile>/<op>/<case>/        one folder per case, in package casefile's layout:
//	    case.json                     the call's arguments and the expected outcome
//	    self.npy index.npy src.npy .. the call's tensors (bfloat16 as '<u2' bit patterns)
//	    expected_out.npy              the canonical result (the strict level's only answer)
//	    expected_arg.npy              torch_scatter min/max's arg
//	    allowed_lo.npy allowed_hi.npy per element, the least and greatest value that conforms
//	                                  at -level (the hull of the allowed set)
//	    allowed.json                  per element, the allowed set exactly (ORACLE.md's format),
//	                                  or for a call that must fail the error kinds that conform

const exportReadme = `# scatter conformance fixture packs

Written by ` + "`scattercheck export`" + ` (github.com/scatterconf/scatter/tools/scattercheck).
One folder per case: ` + "`<profile>/<op>/<case>/`" + `.

- ` + "`case.json`" + `: the operation, its non-tensor arguments (PyTorch's parameter names),
  the tensors (file, dtype, shape) and the expected outcome: ` + "`{\"out\": ...}`" + ` or
  ` + "`{\"error\": KIND}`" + ` (PROTOCOL.md's error kinds; at the conformant level any kind in
  allowed.json's ` + "`allowed_errors`" + ` conforms).
- ` + "`*.npy`" + `: little-endian, C order; bfloat16 tensors are stored as ` + "`<u2`" + ` bit patterns
  (the dtype beside each file in case.json says so).
- ` + "`expected_out.npy`" + `: the canonical result, bit-exact at the strict level except
  where allowed.json lists more than one value for an element (the sign of a zero
  that ties, which PyTorch's versions and paths give differently; a NaN's payload).
- ` + "`allowed_lo.npy`" + `, ` + "`allowed_hi.npy`" + `: per element, the least and greatest value that
  conforms at the level of the export (see index.json); between them, only the values
  allowed.json lists conform where it lists values (a plain scatter with duplicate
  targets takes one of several candidates, not any value between them). NaN in both:
  only NaN conforms.
- ` + "`allowed_arg_lo.npy`" + `, ` + "`allowed_arg_hi.npy`" + `: the same for torch_scatter min/max's arg.
- ` + "`allowed.json`" + `: the profile and level, then per element ` + "`{\"values\": [...]}`" + ` and/or
  ` + "`{\"lo\": x, \"hi\": y}`" + ` (ordered with -0.0 < +0.0; "nan" matches any NaN), or
  ` + "`{\"any\": true}`" + ` (any value of the dtype); ` + "`{\"any\": true}`" + ` for the whole result
  when any result conforms; ` + "`{\"omitted\": ...}`" + ` where the sets are too large to list
  (expected_out.npy and the lo/hi files still hold). Each number is the shortest decimal
  that reads back as the value in the tensor's dtype: round it into that dtype before
  comparing (` + "`1.23`" + ` in a float32 tensor is float32(1.23), 1.2300000190734863 as a
  double; float16 and bfloat16 likewise, whose .npy files hold bit patterns for
  bfloat16). Integers are exact (int64 included: read them as integers, not doubles).
- Ids: index.json's ` + "`id`" + ` is the spec's case name; case.json's ` + "`id`" + ` is
  ` + "`<op>/<folder>`" + `, the folder's own name. ` + "`source`" + ` says where the case comes
  from (a recorded fixture names its recording there). ` + "`torch_version`" + ` is empty: the
  outcomes are the oracle's under the profile (package reference), checked against
  the recordings, not recordings themselves. The error ` + "`message`" + ` is PyTorch's, as
  the oracle words it.
- index.json's ` + "`emulated`" + `, where present, says that the case's truth is not a library
  the suite runs (torch_scatter 1.x, the F# library) but the oracle's emulation of its
  source. Where torch_scatter 2.x crashes or writes out of bounds (a dim or an index
  value outside the tensor), the expected error is the suite's rule (PROFILES.md).
- Scalars in case.json keep their Python kind: ` + "`2`" + ` is an int, ` + "`2.0`" + ` a float, and PyTorch
  converts them by different rules (PROTOCOL.md, "Scalars"): use a JSON reader that
  keeps the difference and int64 precision.
`

type exportEntry struct {
	ID       string   `json:"id"`
	Op       string   `json:"op"`
	Profile  string   `json:"profile"`
	Folder   string   `json:"folder"`
	DTypes   []string `json:"dtypes"`
	Expect   string   `json:"expect"` // "out" or the error kind
	Source   string   `json:"source"`
	Labels   []string `json:"labels,omitempty"`
	Bounds   bool     `json:"bounds"` // allowed_lo/hi.npy written
	Allowed  bool     `json:"allowed"`
	Problems string   `json:"problems,omitempty"`
	// Emulated says, for an operation whose truth is not a library the
	// suite runs, what it is instead (absent for PyTorch's own and
	// torch_scatter 2.x)
	Emulated string `json:"emulated,omitempty"`
}

// emulatedTruth is exportEntry.Emulated for op.
func emulatedTruth(op scatter.Op) string {
	switch op {
	case scatter.OpTorchScatterAdd:
		return "torch_scatter 1.x scatter_add, emulated by the oracle from its source (SEMANTICS.md §8.3): no 1.x is run"
	case scatter.OpTensorScatter, scatter.OpTensorGather:
		return "the F# Tensor library, emulated by the oracle from its source (SEMANTICS.md §9): no F# is run"
	}
	return ""
}

func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scattercheck export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "all", "the truth: torch-2, torch-2.8, torch-2.6, torch-1.13 or all")
	level := fs.String("level", "conformant", "the level of the allowed sets: conformant or strict")
	ops := fs.String("ops", "", "only these operations (comma-separated)")
	labels := fs.String("labels", "", "only the cases carrying one of these labels")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: scattercheck export [flags] DIR\n\nWrites the spec's cases as fixture packs (npy + case.json + expected / allowed bounds).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	dir := fs.Arg(0)
	profiles, err := parseProfiles(*profile, false)
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck export:", err)
		return 2
	}
	lvl, err := scatter.ParseLevel(*level)
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck export:", err)
		return 2
	}
	opList, err := parseOps(*ops)
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck export:", err)
		return 2
	}
	cfg := &gateConfig{ops: opList}
	if *labels != "" {
		cfg.labels = splitList(*labels)
	}
	if err := clearEarlierExport(dir); err != nil {
		fmt.Fprintln(stderr, "scattercheck export:", err)
		return 2
	}
	index := []exportEntry{} // "cases": [] when none, never null
	for _, p := range profiles {
		used := map[string]bool{}
		for _, c := range spec.Cases() {
			if c.Profiles != nil && !slices.Contains(c.Profiles, p) {
				continue
			}
			if !cfg.wantOp(c.Call.Op()) || !cfg.wantLabels(c.Labels) {
				continue
			}
			name := reproName(c.Call.Op(), c.Name)
			for k := 2; used[name]; k++ {
				name = fmt.Sprintf("%s-%d", reproName(c.Call.Op(), c.Name), k)
			}
			used[name] = true
			e, err := exportCase(dir, p, lvl, name, c)
			if err != nil {
				fmt.Fprintf(stderr, "scattercheck export: %s: %v\n", c.Name, err)
				return 1
			}
			index = append(index, e)
		}
	}
	js, _ := json.MarshalIndent(map[string]any{"level": lvl.String(), "cases": index}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "index.json"), append(js, '\n'), 0o644); err != nil {
		fmt.Fprintln(stderr, "scattercheck export:", err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(exportReadme), 0o644); err != nil {
		fmt.Fprintln(stderr, "scattercheck export:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %d cases to %s (%s level)\n", len(index), dir, lvl)
	return 0
}

// clearEarlierExport readies dir for a pack: a folder that does not exist
// or is empty is left as it is; one that holds an earlier export (its
// index.json) loses that export's case folders (and the profile and op
// folders they leave empty), index and README, so that no case of it
// outlives the new one unlisted (an export of fewer operations, say); any
// other folder is refused, and nothing in it is touched. Only folders of
// the shape export writes, <profile>/<op>/<case>, are removed, through an
// os.Root: a link inside dir does not lead the removal out of it.
func clearEarlierExport(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	var index map[string]json.RawMessage // "cases" is in every export's index, if empty
	var cases []exportEntry
	if err != nil || json.Unmarshal(b, &index) != nil || index["cases"] == nil || json.Unmarshal(index["cases"], &cases) != nil {
		return fmt.Errorf("%s is not empty and holds no earlier export (its index.json): write the pack into an empty or new folder, or over an earlier export, whose cases it replaces", dir)
	}
	for _, e := range cases {
		if !exportFolder(e.Folder) {
			return fmt.Errorf("%s/index.json lists %q, not a case folder of an export (<profile>/<op>/<case>): nothing removed", dir, e.Folder)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, e := range cases {
		if err := root.RemoveAll(e.Folder); err != nil {
			return err
		}
		// the op and profile folders, once empty (Remove leaves a
		// folder that still holds something)
		for _, d := range []string{path.Dir(e.Folder), path.Dir(path.Dir(e.Folder))} {
			if fi, err := root.Lstat(d); err == nil && fi.IsDir() {
				_ = root.Remove(d)
			}
		}
	}
	for _, f := range []string{"index.json", "README.md"} {
		if err := root.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// exportFolder reports whether f is a case folder as export names them:
// <profile>/<op>/<case>, clean and relative, the profile a known one.
func exportFolder(f string) bool {
	parts := strings.Split(f, "/")
	// a clean local path has no "." or ".." among its parts
	if len(parts) != 3 || path.Clean(f) != f || !filepath.IsLocal(f) {
		return false
	}
	_, err := scatter.ParseProfile(parts[0])
	return err == nil
}

// exportCase writes one case's folder.
func exportCase(dir string, p scatter.Profile, lvl scatter.Level, name string, c spec.Case) (exportEntry, error) {
	e := exportEntry{ID: c.Name, Op: string(c.Call.Op()), Profile: p.String(), Folder: p.String() + "/" + name,
		Source: c.Source, Labels: c.Labels, Emulated: emulatedTruth(c.Call.Op())}
	for _, t := range c.Call.Tensors() {
		if s := t.DType().String(); !slices.Contains(e.DTypes, s) {
			e.DTypes = append(e.DTypes, s)
		}
	}
	slices.Sort(e.DTypes)
	exp := reference.Expect(scatter.CloneCall(c.Call), p)
	fx := casefile.Fixture{Name: name, Profile: p, Call: c.Call, Source: "spec: " + c.Name + " (" + c.Source + ")",
		Provenance: "scattercheck export: the spec's recorded outcome, accepted by the reference oracle under " + p.String()}
	allowed := map[string]any{"profile": p.String(), "level": lvl.String()}
	switch codes := exp.Codes(); {
	case codes != nil:
		fx.WantErr = codes[0]
		if c.WantErr != 0 {
			fx.WantErr = c.WantErr
		}
		fx.Message = "the first rule PyTorch checks"
		var se *scatter.Error
		if errors.As(exp.Err(), &se) && se.Code == fx.WantErr {
			fx.Message = se.Msg // PyTorch's message, as the oracle words it
		}
		want := codes
		if lvl == scatter.Strict {
			want = []scatter.Code{fx.WantErr}
		}
		names := make([]string, len(want))
		for i, w := range want {
			names[i] = w.String()
		}
		allowed["allowed_errors"] = names
		e.Expect = fx.WantErr.String()
		e.Allowed = true
	default:
		fx.Want = exp.Result()
		e.Expect = "out"
		allowed["allowed"] = allowedJSON(exp, lvl, defaultAllowedMax)
		e.Allowed = true
	}
	files, err := casefile.Files(fx)
	if err != nil {
		return e, err
	}
	if exp.Codes() == nil {
		// the bounds of every result, however large (two tensors of its
		// size; allowed.json lists sets up to defaultAllowedMax elements)
		if a, err := allowedSets(exp, lvl, math.MaxInt); err == nil && !a.Any {
			for _, at := range allowedTensors(a) {
				lo, hi, ok := boundsOf(at.AllowedTensor)
				if !ok {
					continue
				}
				prefix := "allowed_"
				if at.name == "arg" {
					prefix = "allowed_arg_"
				}
				for fn, t := range map[string]scatter.Tensor{prefix + "lo.npy": lo, prefix + "hi.npy": hi} {
					var b bytes.Buffer
					if err := npy.Write(&b, t); err != nil {
						return e, err
					}
					files[fn] = b.Bytes()
				}
				if at.name == "out" {
					e.Bounds = true
				}
			}
		} else if err != nil {
			e.Problems = err.Error()
		}
	}
	js, _ := json.MarshalIndent(allowed, "", "  ")
	files["allowed.json"] = append(js, '\n')
	folder := filepath.Join(dir, p.String(), filepath.FromSlash(name))
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return e, err
	}
	for fn, b := range files {
		if err := os.WriteFile(filepath.Join(folder, fn), b, 0o644); err != nil {
			return e, err
		}
	}
	if strings.Contains(e.Problems, "\n") {
		e.Problems = firstLine(e.Problems)
	}
	return e, nil
}

// allowedBounds returns tensors lo and hi of the out's dtype and shape: at
// each element the smallest and largest value that conforms at level lvl
// (the hull of its allowed set; NaN when only NaN conforms). ok is false
// when the sets are not given (no success, too large, anything conforms).
func allowedBounds(exp *reference.Expectation, lvl scatter.Level) (lo, hi scatter.Tensor, ok bool) {
	a, err := allowedSets(exp, lvl, defaultAllowedMax)
	if err != nil || a.Any {
		return lo, hi, false
	}
	return boundsOf(a.Out)
}

// boundsOf returns the hulls of one tensor's allowed sets as tensors.
func boundsOf(at reference.AllowedTensor) (lo, hi scatter.Tensor, ok bool) {
	n := len(at.Elems)
	lo = scatter.Tensor{Shape: slices.Clone(at.Shape), Data: scatter.MakeData(at.DType, n)}
	hi = scatter.Tensor{Shape: slices.Clone(at.Shape), Data: scatter.MakeData(at.DType, n)}
	for i, o := range at.Elems {
		l, h, ok := hull(at.DType, o)
		if !ok {
			return lo, hi, false
		}
		setValue(lo, i, l)
		setValue(hi, i, h)
	}
	return lo, hi, true
}

// hull returns the least and greatest values of o (of dtype dt), floats
// ordered with -0 < +0 and NaN left out unless only NaN conforms; ok is
// false when nothing conforms.
func hull(dt scatter.DType, o reference.Outcomes) (lo, hi scatter.Scalar, ok bool) {
	if o.Any {
		if dt.IsFloat() {
			return scatter.Float(math.Inf(-1)), scatter.Float(math.Inf(1)), true
		}
		l, h := dt.IntRange()
		return scatter.Int(l), scatter.Int(h), true
	}
	vs := make([]scatter.Scalar, 0, len(o.Values)+2)
	for _, v := range o.Values {
		if !math.IsNaN(v.Float64()) {
			vs = append(vs, v)
		}
	}
	if o.Range {
		vs = append(vs, scatter.Float(o.Lo), scatter.Float(o.Hi))
	}
	if len(vs) == 0 {
		if dt.IsFloat() && len(o.Values) > 0 { // only NaN
			return scatter.Float(math.NaN()), scatter.Float(math.NaN()), true
		}
		return lo, hi, false
	}
	less := func(a, b scatter.Scalar) bool { return a.Int64() < b.Int64() }
	if dt.IsFloat() {
		less = func(a, b scatter.Scalar) bool {
			x, y := a.Float64(), b.Float64()
			return x < y || x == 0 && y == 0 && math.Signbit(x) && !math.Signbit(y)
		}
	}
	lo, hi = vs[0], vs[0]
	for _, v := range vs[1:] {
		if less(v, lo) {
			lo = v
		}
		if less(hi, v) {
			hi = v
		}
	}
	return lo, hi, true
}

// setValue stores v at position i of a contiguous tensor's data (a value
// of its dtype).
func setValue(t scatter.Tensor, i int, v scatter.Scalar) {
	if v.IsFloat() {
		scatter.SetFloat(t.Data, i, v.Float64())
	} else {
		scatter.SetInt(t.Data, i, v.Int64())
	}
}
