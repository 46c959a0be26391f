package live

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/repro"
)

// TestSnippets runs the PyTorch snippets that failure reports print for
// random calls of every operation and dtype: each must run, and raise
// exactly when the adapter answers with an error.
func TestSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the snippets start one more Python")
	}
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) { snippets(t, tg) })
	}
}

func snippets(t *testing.T, tg *target) {
	c := tg.start(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var calls []scatter.Call
	var fails []bool
	var script strings.Builder
	script.WriteString("import warnings\nwarnings.filterwarnings('ignore')\n")
	for _, op := range scatter.Ops {
		combos := callgen.Combos(op)
		for i := range 8 {
			call := callgen.ComboCall(callgen.Rand(r), combos[(i*7)%len(combos)], callgen.ComboOptions{})
			_, err := c.Run(call)
			calls = append(calls, call)
			fails = append(fails, err != nil)
			fmt.Fprintf(&script, "exec(%q, {})\nprint('@@end@@')\n", repro.AdapterProgram(call))
		}
	}
	cmd := exec.Command(tg.py[0], append(tg.py[1:], "-c", script.String())...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the snippets do not run: %v\n%s", err, out)
	}
	parts := strings.Split(string(out), "@@end@@\n")
	if len(parts) != len(calls)+1 {
		t.Fatalf("%d outputs for %d snippets:\n%s", len(parts)-1, len(calls), out)
	}
	for i, call := range calls {
		o := strings.TrimSpace(parts[i])
		last := o[strings.LastIndexByte(o, '\n')+1:]
		raised := strings.HasPrefix(last, "AdapterError ") || strings.Contains(strings.SplitN(last, " ", 2)[0], "Error")
		if strings.Contains(o, "NameError") || strings.Contains(o, "SyntaxError") || raised != fails[i] {
			t.Errorf("snippet %d printed %q; the adapter failed: %v\n%s", i, o, fails[i], repro.AdapterProgram(call))
		}
	}
}
