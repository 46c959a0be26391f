package live

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTorchenvRefusals: tools/torchenv/run says why in one line, prefixed
// "torchenv:", and exits 3, for an unknown suite, a missing command, and a
// root that is not built or whose build did not finish (a folder without
// the completion stamp, as an interrupted build leaves).
func TestTorchenvRefusals(t *testing.T) {
	run, err := filepath.Abs(filepath.Join("..", "tools", "torchenv", "run"))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cache, "torchenv", "trixie.partial", "usr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cache, "torchenv", "sid", "usr", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown-suite", []string{"buster", "python3"}, "unknown suite 'buster'"},
		{"no-suite", nil, "usage: tools/torchenv/run SUITE"},
		{"unfinished-build", []string{"trixie", "--ready"}, "trixie: the root is not built"},
		{"no-completion-stamp", []string{"sid", "--ready"}, "sid: the root is not built"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(run, tc.args...)
			cmd.Env = append(os.Environ(), "SCATTER_CACHE="+cache)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Fatalf("exit %v, want 3; output %q", err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "torchenv: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("output %q, want one line with %q", out, tc.want)
			}
		})
	}
}
