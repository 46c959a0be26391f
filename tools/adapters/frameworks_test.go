package adapters_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// frameworkFile is the path of a file of FRAMEWORK's installation as
// tools/adapters/install makes it, under
// ${SCATTER_CACHE:-$HOME/.cache/scatter}/frameworks/FRAMEWORK, or "" when
// it is not there.
func frameworkFile(fw string, elem ...string) string {
	cache := os.Getenv("SCATTER_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache", "scatter")
	}
	p := filepath.Join(append([]string{cache, "frameworks", fw}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// frameworkPython is the interpreter of FRAMEWORK's environment, or ""
// when it is not installed. An environment counts as installed once
// tools/adapters/install has written its stamp (.requirements.sha256),
// its last step: an install under way, or one cut short, has a python
// but not every package, and its adapter would fail to import.
func frameworkPython(fw string) string {
	if frameworkFile(fw, ".requirements.sha256") == "" {
		return ""
	}
	return frameworkFile(fw, "bin", "python")
}

// adapterAnswers runs an adapter (the command bin with args) on the request
// lines, whose ids are 0, 1, ..., and returns its answers, one per
// request, each checked to carry its request's id.
func adapterAnswers(t *testing.T, bin string, args []string, requests []string) []map[string]any {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(strings.Join(requests, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(requests) {
		t.Fatalf("%d answers to %d requests:\n%s", len(lines), len(requests), out)
	}
	ans := make([]map[string]any, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &ans[i]); err != nil {
			t.Fatalf("answer %d: %v: %s", i+1, err, l)
		}
		if id, _ := ans[i]["id"].(float64); int(id) != i {
			t.Fatalf("answer %d has id %v: %s", i, ans[i]["id"], l)
		}
	}
	return ans
}

// TestFrameworkAdapters: each framework's adapter, where its environment is
// installed, says hello and answers a scatter_add with duplicates, a
// negative index (unsupported where the framework by design accepts it;
// index_out_of_range where it raises, as TensorFlow does), a dim out of
// range (the adapter's rule) and an op it does not offer (unsupported:
// the shared wire.py). The gate itself runs them: docs/conformance.
func TestFrameworkAdapters(t *testing.T) {
	for _, a := range []struct{ fw, name, script, flag string }{
		{"jax", "jax", "jax_adapter.py", ""},
		{"onnx", "onnxruntime", "onnx_adapter.py", ""},
		{"onnx", "onnx.reference", "onnx_adapter.py", "--reference"},
		{"tensorflow", "tensorflow", "tensorflow_adapter.py", ""},
		{"tinygrad", "tinygrad", "tinygrad_adapter.py", ""},
		{"paddle", "paddle", "paddle_adapter.py", ""},
	} {
		t.Run(a.name, func(t *testing.T) {
			py := frameworkPython(a.fw)
			if py == "" {
				t.Skipf("%s is not installed, or its install has not finished (tools/adapters/install %s)", a.fw, a.fw)
			}
			if a.fw == "tinygrad" {
				if _, err := exec.LookPath("clang"); err != nil {
					t.Skip("tinygrad's CPU device compiles its kernels with clang, which is not on PATH")
				}
			}
			args := []string{a.script}
			if a.flag != "" {
				args = append(args, a.flag)
			}
			// self [0 0 0] float32, index [1 1] int64, src [1 2]
			add := `"op":"scatter_add","dim":0,"self":{"dtype":"float32","shape":[3],"data":"AAAAAAAAAAAAAAAA"},` +
				`"src":{"dtype":"float32","shape":[2],"data":"AACAPwAAAEA="},"index":{"dtype":"int64","shape":[2],"data":`
			ans := adapterAnswers(t, py, args, []string{
				`{"id":0,"op":"hello"}`,
				`{"id":1,` + add + `"AQAAAAAAAAABAAAAAAAAAA=="}}`, // [1 1]
				`{"id":2,` + add + `"AQAAAAAAAAD//////////w=="}}`, // [1 -1]
				`{"id":3,` + strings.Replace(add, `"dim":0`, `"dim":1`, 1) + `"AQAAAAAAAAABAAAAAAAAAA=="}}`,
				`{"id":4,"op":"index_reduce"}`,
			})
			if ans[0]["name"] != a.name {
				t.Errorf("hello names %v, want %s", ans[0]["name"], a.name)
			}
			if o, _ := ans[1]["out"].(map[string]any); o == nil || o["data"] != "AAAAAAAAQEAAAAAA" { // [0 3 0]
				t.Errorf("scatter_add: %v", ans[1])
			}
			if e, _ := ans[2]["error"].(map[string]any); ans[2]["unsupported"] == nil && (e == nil || e["kind"] != "index_out_of_range") {
				t.Errorf("a negative index: %v, want unsupported, or index_out_of_range where the framework checks", ans[2])
			}
			if e, _ := ans[3]["error"].(map[string]any); e == nil || e["kind"] != "dim_out_of_range" {
				t.Errorf("dim 1 of a 1-d self: %v, want dim_out_of_range", ans[3])
			}
			if ans[4]["unsupported"] == nil {
				t.Errorf("an op the adapter does not offer: %v, want unsupported", ans[4])
			}
		})
	}
}
