package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Helpers shared by the tests: running the command in process, building
// the module's programs once into a temporary folder, and finding a
// python3 that imports what an adapter needs.

var binDir string

func TestMain(m *testing.M) {
	if mode := os.Getenv(benchHelperEnv); mode != "" {
		// the test binary as an implementation for the bench tests
		os.Exit(benchHelper(mode))
	}
	flag.Parse()
	dir, err := os.MkdirTemp("", "scattercheck-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runCmd runs the command in process.
func runCmd(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// buildTool builds the package at pkg (relative to the module root) once,
// and returns the program's path.
func buildTool(t *testing.T, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	name := filepath.Base(pkg)
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	out := filepath.Join(binDir, name)
	cmd := exec.Command("go", "build", "-o", out, "./"+pkg)
	cmd.Dir = "../.."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	built[pkg] = out
	return out
}

// python returns /usr/bin/python3 if it imports modules, else skips.
func python(t *testing.T, modules ...string) string {
	t.Helper()
	py := os.Getenv("SCATTER_TORCH_PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
	}
	out, err := exec.Command(py, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput()
	if err != nil {
		t.Skipf("skipping: %s cannot import %s (set SCATTER_TORCH_PYTHON to a python3 that can): %v %s",
			py, strings.Join(modules, ", "), err, strings.TrimSpace(string(out)))
	}
	return py
}

func TestRunBuiltinDocs(t *testing.T) {
	code, out, errb := runCmd(t, nil, "-profile", "torch-1.13", "-labels", "docs", "-suites", "spec")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	for _, want := range []string{"reference", "profile torch-1.13", "scatter_reduce", "PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-profile", "torch-3"}, {"-nosuch"}, {"-level", "exact"}, {"-ops", "scatter,nosuch"},
		{"-suites", "spec,nosuch"}, {"-properties-tier", "huge"}, {"-checks", "-1"}, {"-timeout", "0s"},
		{"extra-argument"}, {"-xfail", "/nonexistent/xfail.txt"},
		{"oracle", "-profile", "torch-3"}, {"export"}, {"export", "-level", "x", "dir"},
	} {
		if code, out, errb := runCmd(t, strings.NewReader(""), args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s%s", args, code, out, errb)
		}
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runCmd(t, nil, "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for _, want := range []string{"-impl", "-profile", "-level", "-ops", "-checks", "-seed", "-timeout",
		"-junit", "-json", "-repro-dir", "-xfail", "oracle", "export", "bench"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
