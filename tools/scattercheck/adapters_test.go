package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/repro"
	"github.com/scatterconf/scatter/spec"
)

// The adapters of tools/adapters under the gate. The Python ones need
// /usr/bin/python3 (or $SCATTER_TORCH_PYTHON) with torch or numpy, and
// skip with the reason otherwise.

func adapterPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "adapters", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTorchAdapterGate: real PyTorch 1.13 passes the gate under the
// torch-1.13 profile at the strict level.
func TestTorchAdapterGate(t *testing.T) {
	py := python(t, "torch", "numpy")
	js := filepath.Join(t.TempDir(), "r.json")
	impl := shQuote(py) + " " + shQuote(adapterPath(t, "torch_adapter.py"))
	code, out, errb := runCmd(t, nil, "-impl", impl, "-profile", "torch-1.13", "-level", "strict",
		"-checks", "15", "-properties-tier", "short", "-json", js)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	r := readJSONReport(t, js)
	run := r.Runs[0]
	if run.Implementation.Name != "torch" || run.Profile != "torch-1.13" || run.Level != "strict" || run.Summary["pass"] < 500 {
		t.Errorf("report: %+v %s %s %v", run.Implementation, run.Profile, run.Level, run.Summary)
	}
}

// TestNumpyAdapterGate: the NumPy adapter runs through the gate, and its
// report says what it does not claim (bfloat16, skipped), what it does not
// offer (torch_scatter min/max: unsupported) and where it differs: its
// float16 add.at rounds at every step, which is torch 1.13's arithmetic and
// not torch 2's (float32 accumulation rounded once), so both levels reject
// it under the torch-2 profile. At the strict level nothing else fails: the
// rules PyTorch checks come in its order, so the first error is its.
func TestNumpyAdapterGate(t *testing.T) {
	py := python(t, "numpy")
	js := filepath.Join(t.TempDir(), "r.json")
	impl := shQuote(py) + " " + shQuote(adapterPath(t, "numpy_adapter.py"))
	code, out, errb := runCmd(t, nil, "-impl", impl, "-checks", "15", "-properties-tier", "short", "-json", js)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (it does not conform)\n%s%s", code, out, errb)
	}
	r := readJSONReport(t, js)
	run := r.Runs[0]
	if run.Implementation.Name != "numpy" {
		t.Errorf("implementation %+v", run.Implementation)
	}
	var unsupMinMax, bf16Skipped, f32ScatterAddPass, perStepRejected bool
	for _, c := range run.Cases {
		switch {
		case c.Status == "unsupported" && c.Op == "torch_scatter.scatter" && strings.Contains(c.Failure.Summary, "arg"):
			unsupMinMax = true
		case c.DType == "bfloat16" && c.Status == "skip" && strings.Contains(c.Reason, "does not claim"):
			bf16Skipped = true
		case c.ID == "random/scatter_add/float32" && c.Status == "pass":
			f32ScatterAddPass = true
		case c.Status == "fail" && strings.Contains(c.ID, "float32-accumulation"):
			perStepRejected = true
		}
	}
	if !unsupMinMax || !bf16Skipped || !f32ScatterAddPass || !perStepRejected {
		t.Errorf("unsupported min/max %v, bfloat16 skipped %v, float32 scatter_add passes %v, per-step float16 sum rejected %v\n%s",
			unsupMinMax, bf16Skipped, f32ScatterAddPass, perStepRejected, out)
	}

	// Nor is it at the strict level.
	code, out, errb = runCmd(t, nil, "-impl", impl, "-level", "strict", "-checks", "15", "-properties-tier", "short", "-json", js)
	if code != 1 {
		t.Fatalf("strict: exit %d, want 1\n%s%s", code, out, errb)
	}
	differs := false
	for _, c := range readJSONReport(t, js).Runs[0].Cases {
		if c.Status != "fail" {
			continue
		}
		differs = differs || strings.Contains(c.ID, "float32-accumulation")
		// Every other strict failure is one of NumPy's two known
		// differences: its float16 arithmetic, and the sign of the zero
		// that np.maximum keeps from a tie of -0.0 and 0.0 (two spec
		// cases); or torch 2.14's expanded-index path, whose row length
		// the port does not copy (PROFILES.md). The rules that PyTorch
		// checks, in its order (the adapters' torchrules.py and
		// tsrules.py), must hold at the strict level: which error comes
		// first included.
		half := c.DType == "float16" || c.Failure != nil && strings.Contains(c.Failure.Report, "float16[")
		rows := c.Failure != nil && c.Failure.LikelyBug != nil && c.Failure.LikelyBug.Mutant == "expanded-path-rows-in-place"
		if !half && !rows && !strings.Contains(c.ID, "/tie-") {
			t.Errorf("strict: %s fails, not for float16 arithmetic or a tie's zero sign: %s", c.ID, c.Failure.Summary)
		}
	}
	if !differs {
		t.Errorf("strict: NumPy's per-step float16 sum passes where torch 2 rounds once\n%s", out)
	}
}

// TestExampleAdapter: the Go template passes the gate, claiming two
// dtypes. It claims the strides extension too (protocol.Serve does), yet
// its operation requests are contiguous, so the invariants that compare a
// view with its copy, or look for writes into the inputs, are skipped
// with their reason rather than passed without a check.
func TestExampleAdapter(t *testing.T) {
	ex := buildTool(t, "tools/adapters/example")
	js := filepath.Join(t.TempDir(), "r.json")
	code, out, errb := runCmd(t, nil, "-impl", shQuote(ex), "-checks", "10", "-properties-tier", "short", "-json", js)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	r := readJSONReport(t, js)
	if r.Runs[0].Implementation.Name != "example" || r.Runs[0].Summary["skip"] == 0 {
		t.Errorf("report: %+v %v", r.Runs[0].Implementation, r.Runs[0].Summary)
	}
	vacuous := map[string]bool{"property/invariants/strided-vs-contiguous": false, "property/invariants/inputs-unchanged": false}
	for _, c := range r.Runs[0].Cases {
		if _, ok := vacuous[c.ID]; ok {
			vacuous[c.ID] = true
			if c.Status != "skip" || c.Reason == "" {
				t.Errorf("%s: %s (%q), want skipped with its reason", c.ID, c.Status, c.Reason)
			}
		}
	}
	for id, seen := range vacuous {
		if !seen {
			t.Errorf("%s not in the report", id)
		}
	}
}

// TestPyTorchSnippets runs the PyTorch program of one successful spec case
// per operation (torch_scatter and F# through their formulas) and compares
// what it prints with the reference's result.
func TestPyTorchSnippets(t *testing.T) {
	py := python(t, "torch")
	var script strings.Builder
	script.WriteString("import torch\ntorch.set_printoptions(precision=10)\n")
	want := map[string]string{}
	for _, op := range scatter.Ops {
		for _, c := range spec.Cases() {
			if c.Call.Op() != op || c.WantErr != 0 || c.Want.NumEl() == 0 || !c.Want.DType().IsFloat() || c.Want.DType().Size() != 4 && c.Want.DType().Size() != 8 ||
				(c.Profiles != nil && c.Profiles[0] != scatter.Torch113) || strings.HasPrefix(c.Name, "fixture/") {
				continue
			}
			res, err := reference.New(scatter.Torch113).Run(c.Call)
			if err != nil {
				continue
			}
			var vals []float64
			for _, p := range res.Out.Positions() {
				vals = append(vals, scatter.Float64At(res.Out.Data, p))
			}
			want[string(op)] = fmt.Sprint(vals)
			fmt.Fprintf(&script, "print('=== %s')\nexec(compile(%q, %q, 'exec'), {})\n", op, repro.Program(c.Call), c.Name)
			break
		}
	}
	f := filepath.Join(t.TempDir(), "snippets.py")
	if err := os.WriteFile(f, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, f).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	parts := strings.Split(string(out), "=== ")
	got := map[string]string{}
	for _, p := range parts[1:] {
		op, body, _ := strings.Cut(p, "\n")
		got[op] = body
	}
	num := regexp.MustCompile(`-?(?:inf|nan|[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)`)
	for op, w := range want {
		body := got[op]
		i := strings.Index(body, "tensor(")
		if body == "" || strings.Contains(body, "Error") || i < 0 {
			t.Errorf("%s: the program printed %q", op, body)
			continue
		}
		first := body[i+len("tensor("):]
		first = first[:strings.IndexByte(first, ')')]
		first, _, _ = strings.Cut(first, "dtype=")
		printed := num.FindAllString(first, -1)
		wantVals := strings.Fields(strings.Trim(w, "[]"))
		if len(printed) != len(wantVals) {
			t.Errorf("%s: printed %q, the reference gives %s", op, first, w)
			continue
		}
		for k := range printed {
			a, _ := strconv.ParseFloat(printed[k], 64)
			b, _ := strconv.ParseFloat(wantVals[k], 64)
			if !(a == b || math.Abs(a-b) <= 1e-6*math.Abs(b) || math.IsNaN(a) && math.IsNaN(b)) {
				t.Errorf("%s: printed %q, the reference gives %s", op, first, w)
				break
			}
		}
	}
	if len(want) < len(scatter.Ops) {
		t.Errorf("programs for %d operations only", len(want))
	}
}
