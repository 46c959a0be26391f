package live

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/repro"
)

// defaultChecks is the live test's budget: random calls over all
// operations (SCATTER_LIVE_CHECKS changes it; -short takes a fifth).
const defaultChecks = 3000

// opWeight shares the budget among the operations: those with more
// reductions and rules get more.
var opWeight = map[scatter.Op]int{
	scatter.OpScatter: 4, scatter.OpScatterAdd: 2, scatter.OpScatterReduce: 5, scatter.OpIndexReduce: 4,
	scatter.OpGather: 2, scatter.OpTorchScatterAdd: 2, scatter.OpTorchScatter: 3,
	scatter.OpTensorScatter: 2, scatter.OpTensorGather: 2,
}

// torchPython finds a Python that imports torch and numpy:
// $SCATTER_TORCH_PYTHON, else the system interpreter /usr/bin/python3,
// else python3 on PATH. It returns "" and what was tried when none does.
func torchPython() (py, tried string) {
	var cands []string
	if env := os.Getenv("SCATTER_TORCH_PYTHON"); env != "" {
		cands = append(cands, env)
	}
	cands = append(cands, "/usr/bin/python3")
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	var notes []string
	for _, c := range cands {
		out, err := exec.Command(c, "-c", "import torch, numpy").CombinedOutput()
		if err == nil {
			return c, ""
		}
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		notes = append(notes, fmt.Sprintf("%s: %v %s", c, err, msg))
	}
	return "", strings.Join(notes, "; ")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// The adapter, started once for all the tests of the package.
var torch struct {
	once   sync.Once
	py     string
	client *protocol.Client
	skip   string // why there is none
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if torch.client != nil {
		torch.client.Close()
	}
	os.Exit(code)
}

// startTorch returns the PyTorch adapter under protocol.Client, started on
// first use, or skips the test when no Python here imports torch.
func startTorch(t *testing.T) *protocol.Client {
	t.Helper()
	torch.once.Do(func() {
		py, tried := torchPython()
		if py == "" {
			torch.skip = "no Python here imports torch and numpy (tried " + tried +
				"; install Debian's python3-torch, or set SCATTER_TORCH_PYTHON)"
			return
		}
		torch.py = py
		script, err := filepath.Abs(filepath.Join("..", "tools", "adapters", "torch_adapter.py"))
		if err != nil {
			torch.err = err
			return
		}
		torch.client, torch.err = protocol.NewClient(shellQuote(py)+" "+shellQuote(script), protocol.ClientOptions{Timeout: time.Minute})
	})
	switch {
	case torch.skip != "":
		t.Skip("skipping the live differential test: " + torch.skip)
	case torch.err != nil:
		t.Fatalf("starting the PyTorch adapter: %v", torch.err)
	}
	return torch.client
}

// profileOf is the profile whose truth a torch version gives.
func profileOf(version string) scatter.Profile {
	if strings.HasPrefix(version, "1.") {
		return scatter.Torch113
	}
	return scatter.Torch2
}

// budget returns the number of checks for all operations together.
func budget(t *testing.T) int {
	n := defaultChecks
	if s := os.Getenv("SCATTER_LIVE_CHECKS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			t.Fatalf("SCATTER_LIVE_CHECKS=%q is not a non-negative count", s)
		}
		n = v
	}
	return n
}

// rapidChecksSet reports whether the user chose rapid's count themselves.
func rapidChecksSet() bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	_, env := os.LookupEnv("RAPID_CHECKS")
	return set || env
}

// TestLive: random calls of every operation, answered by live PyTorch and
// judged by the oracle at the strict level; rapid shrinks a disagreement.
func TestLive(t *testing.T) {
	c := startTorch(t)
	info := c.Info()
	prof := profileOf(info.Version)
	total := budget(t)
	sum := 0
	for _, w := range opWeight {
		sum += w
	}
	t.Logf("torch %s, profile %v, %d checks (-short: a fifth)", info.Version, prof, total)
	ownCount := !rapidChecksSet()
	for _, op := range scatter.Ops {
		t.Run(string(op), func(t *testing.T) {
			if ownCount {
				n := max(total*opWeight[op]/sum, 1)
				if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
					t.Fatal(err)
				}
			}
			combos := callgen.Combos(op)
			rapid.Check(t, func(rt *rapid.T) {
				combo := combos[rapid.IntRange(0, len(combos)-1).Draw(rt, "combo")]
				large := rapid.IntRange(0, 99).Draw(rt, "large") >= 98
				call := callgen.ComboCall(callgen.Rapid(rt), combo, callgen.ComboOptions{Large: large})
				res, err := c.Run(call)
				var pe *protocol.ProcessError
				switch {
				case errors.As(err, &pe):
					rt.Fatalf("the PyTorch adapter failed: %v\n%s", err, Report(call, res, err))
				case scatter.CodeOf(err) == scatter.ErrNotSupported:
					rt.Fatalf("the PyTorch adapter declined the call: %v\n%s", err, Report(call, res, err))
				}
				if jerr := reference.Judge(call, prof, scatter.Strict, res, err); jerr != nil {
					rt.Fatalf("PyTorch %s and the oracle disagree (profile %v, strict):\n%v\n%s", info.Version, prof, jerr, Report(call, res, err))
				}
			})
		})
	}
	if n := c.Restarts(); n > 0 {
		t.Errorf("the adapter was restarted %d times; its stderr:\n%s", n, c.Stderr())
	}
}

// Report shows a call as a protocol line and a PyTorch snippet, with
// PyTorch's outcome.
func Report(call scatter.Call, res scatter.Result, err error) string {
	var b strings.Builder
	line, lerr := protocol.EncodeCall(1, call)
	if lerr != nil {
		fmt.Fprintf(&b, "protocol line: cannot encode: %v\n", lerr)
	} else {
		fmt.Fprintf(&b, "protocol line:\n%s\n", line)
	}
	if err != nil {
		fmt.Fprintf(&b, "PyTorch: %v\n", err)
	} else {
		fmt.Fprintf(&b, "PyTorch: out=%v", res.Out)
		if !res.Arg.IsZero() {
			fmt.Fprintf(&b, " arg=%v", res.Arg)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "PyTorch snippet (run from the module root):\n%s", repro.AdapterProgram(call))
	return b.String()
}
