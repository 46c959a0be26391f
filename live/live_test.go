package live

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/fixtures"
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

// A torch target is one PyTorch the differential runs against: Debian's
// roots through tools/torchenv/run (bookworm 1.13, trixie 2.6, sid 2.14),
// or the interpreter in SCATTER_TORCH_PYTHON (a user's own torch). A
// target that is not available skips its tests, saying why, unless
// SCATTER_LIVE_REQUIRE (a comma-separated list of names; .ci/run sets it)
// names it: then they fail.
type target struct {
	name string   // "sid", "trixie", "bookworm" or "custom"
	py   []string // the command that runs Python there
	skip string   // why it is not available
	err  error

	plain, views lazyClient // the adapter sending calls contiguous, and as views
}

// lazyClient is a PyTorch adapter started on first use.
type lazyClient struct {
	once   sync.Once
	client *protocol.Client
	err    error
}

// suites are the torchenv suites, the newest first.
var suites = []string{"sid", "trixie", "bookworm"}

var targets = sync.OnceValue(findTargets)

// findTargets lists the torch targets: SCATTER_TORCH_PYTHON alone when
// set, else every torchenv suite, each with the reason it is skipped when
// it is not ready (SCATTER_TORCH_SUITES narrows the list, e.g. "sid").
func findTargets() []*target {
	root, err := filepath.Abs("..")
	if err != nil {
		return []*target{{name: "custom", err: err}}
	}
	if py := os.Getenv("SCATTER_TORCH_PYTHON"); py != "" {
		t := &target{name: "custom", py: []string{py}}
		if out, err := exec.Command(py, "-c", "import torch, numpy").CombinedOutput(); err != nil {
			t.skip = fmt.Sprintf("SCATTER_TORCH_PYTHON=%s does not import torch and numpy: %v %s", py, err, lastLine(string(out)))
		}
		return []*target{t}
	}
	want := suites
	if s := os.Getenv("SCATTER_TORCH_SUITES"); s != "" {
		want = strings.Split(s, ",")
	}
	run := filepath.Join(root, "tools", "torchenv", "run")
	var ts []*target
	for _, s := range want {
		t := &target{name: s, py: []string{run, s, "python3"}}
		if out, err := exec.Command(run, s, "--ready").CombinedOutput(); err != nil {
			t.skip = lastLine(string(out))
			if t.skip == "" {
				t.skip = err.Error()
			}
		}
		ts = append(ts, t)
	}
	return ts
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestMain(m *testing.M) {
	code := m.Run()
	for _, t := range targets() {
		for _, lc := range []*lazyClient{&t.plain, &t.views} {
			if lc.client != nil {
				lc.client.Close()
			}
		}
	}
	os.Exit(code)
}

// start returns the PyTorch adapter of target tg under protocol.Client,
// started on first use, or skips the test with the reason tg is not
// available. Its calls go contiguous (as the gate sends them).
func (tg *target) start(t *testing.T) *protocol.Client {
	t.Helper()
	return tg.startClient(t, &tg.plain, nil)
}

// startViews is start for a second adapter that gets every call's views
// as views (the strides extension, which the adapter claims).
func (tg *target) startViews(t *testing.T) *protocol.Client {
	t.Helper()
	return tg.startClient(t, &tg.views, func(scatter.Call) bool { return true })
}

func (tg *target) startClient(t *testing.T, lc *lazyClient, views func(scatter.Call) bool) *protocol.Client {
	t.Helper()
	if tg.skip != "" {
		if slices.Contains(strings.Split(os.Getenv("SCATTER_LIVE_REQUIRE"), ","), tg.name) {
			t.Fatalf("torch from %s is required here (SCATTER_LIVE_REQUIRE) but not available: %s", tg.name, tg.skip)
		}
		t.Skip("skipping the live differential test against " + tg.name + ": " + tg.skip)
	}
	lc.once.Do(func() {
		script, err := filepath.Abs(filepath.Join("..", "tools", "adapters", "torch_adapter.py"))
		if err != nil {
			lc.err = err
			return
		}
		var cmd []string
		for _, a := range append(slices.Clone(tg.py), script) {
			cmd = append(cmd, shellQuote(a))
		}
		lc.client, lc.err = protocol.NewClient(strings.Join(cmd, " "), protocol.ClientOptions{Timeout: time.Minute, CallViews: views})
	})
	if lc.err != nil {
		t.Fatalf("starting the PyTorch adapter (%s): %v", tg.name, lc.err)
	}
	return lc.client
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

// setRapidChecks sets rapid's count of checks for the test that follows.
func setRapidChecks(t *testing.T, n int) {
	t.Helper()
	if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
}

// userChecks reports whether the user chose rapid's count themselves,
// asked before the tests set it (setRapidChecks).
var userChecks = sync.OnceValue(rapidChecksSet)

// rapidChecksSet reports whether rapid's count was set on the command
// line, by RAPID_CHECKS or by flag.Set.
func rapidChecksSet() bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	_, env := os.LookupEnv("RAPID_CHECKS")
	return set || env
}

// TestLive: random calls of every operation, answered by each live
// PyTorch and judged by the oracle at the strict level under the profile
// of that torch version; rapid shrinks a disagreement. A crash of PyTorch
// listed in fixtures.Crashes is PyTorch's bug: it is counted and logged,
// the adapter restarted; any other crash fails the test.
func TestLive(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) { liveDifferential(t, tg) })
	}
}

func liveDifferential(t *testing.T, tg *target) {
	c := tg.start(t)
	info := c.Info()
	prof, verified := scatter.ProfileFor(info.Version)
	total := budget(t)
	sum := 0
	for _, w := range opWeight {
		sum += w
	}
	t.Logf("%s %s (%s), profile %v, %d checks (-short: a fifth)", info.Name, info.Version, tg.name, prof, total)
	if !verified {
		t.Logf("torch %s is not a version the profiles were verified against; judged under %v, the nearest", info.Version, prof)
	}
	ownCount := !userChecks()
	var known sync.Map // crash name -> count
	restarts := c.Restarts()
	for _, op := range scatter.Ops {
		t.Run(string(op), func(t *testing.T) {
			if ownCount {
				setRapidChecks(t, max(total*opWeight[op]/sum, 1))
			}
			combos := callgen.Combos(op)
			rapid.Check(t, func(rt *rapid.T) {
				src := callgen.Rapid(rt)
				combo := combos[rapid.IntRange(0, len(combos)-1).Draw(rt, "combo")]
				large := rapid.IntRange(0, 99).Draw(rt, "large") >= 98
				call := callgen.ComboCall(src, combo, callgen.ComboOptions{Large: large})
				res, err := c.Run(call)
				if fixtures.IsCrash(err) {
					if k, ok := fixtures.KnownCrash(info.Version, call); ok {
						n, _ := known.LoadOrStore(k.Name, new(int))
						*n.(*int)++
						return
					}
					rt.Fatalf("PyTorch %s crashed on a call that fixtures/crashes.go does not list: %v\n%s", info.Version, err, Report(call, res, err))
				}
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
	crashes := 0
	known.Range(func(k, v any) bool {
		t.Logf("known crash of torch %s (fixtures/crashes.go): %s, %d calls", info.Version, k, *v.(*int))
		crashes += *v.(*int)
		return true
	})
	if n := c.Restarts() - restarts; n > crashes {
		t.Errorf("the adapter was restarted %d times for %d known crashes; its stderr:\n%s", n, crashes, c.Stderr())
	}
}

// Report shows a call as a protocol line and a PyTorch snippet, with
// PyTorch's outcome.
func Report(call scatter.Call, res scatter.Result, err error) string {
	return reportAs(false, call, res, err)
}

// reportAs is Report with the protocol line's views written as views
// when views is set (the line a client that sends views sent).
func reportAs(views bool, call scatter.Call, res scatter.Result, err error) string {
	var b strings.Builder
	line, lerr := protocol.EncodeOptions{Strides: views}.EncodeCall(1, call)
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
