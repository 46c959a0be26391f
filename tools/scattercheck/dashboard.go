package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// scattercheck dashboard: the gate on every installed framework of the
// frameworks table below, each report written compacted to
// DIR/<name>.json, and DIR/README.md's generated blocks (the framework ×
// operation × dtype table, the summaries, every expected failure, the
// repro scripts' output) rewritten from the reports. The rendering is in
// dashboard_render.go.

// framework is one row of the dashboard's table: how a framework is run
// through the gate, and where its expected failures and repro live.
type framework struct {
	// Name is what -frameworks takes and the report's file name
	// (DIR/<Name>.json).
	Name string
	// Install is the argument of tools/adapters/install. The framework
	// counts as installed when ${SCATTER_CACHE:-$HOME/.cache/scatter}/frameworks/<Install>
	// exists; tools/adapters/install then prints its program (a venv's
	// python, or a built binary) on its last line, without rebuilding an
	// environment that is up to date.
	Install string
	// Adapter is what the installed program runs: a script and its flags
	// ("" for a binary that is the adapter itself).
	Adapter string
	// Command, for a framework not installed by tools/adapters/install, is
	// the whole adapter command, and Ready a command that exits 0 when it
	// can run now without building anything.
	Command string
	Ready   string
	// Runner runs the repro script: with Install, the installed program
	// unless Runner is set.
	Runner string
	// Xfail is the -xfail file (used when it exists).
	Xfail string
	// Repro is a script printing the framework's answers to the calls of
	// its differences (run when it exists; a script shared by two rows
	// runs once).
	Repro string
	// Gate holds the gate flags of this framework, after the dashboard's
	// own (a later flag wins).
	Gate []string
}

// frameworks is the dashboard's table, in the README's order. A framework
// that is not installed is skipped, and named as such.
var frameworks = []framework{
	{Name: "jax", Install: "jax", Adapter: "tools/adapters/jax_adapter.py",
		Xfail: "tools/adapters/xfail/jax.txt", Repro: "docs/conformance/repro/jax_repro.py",
		Gate: []string{"-allow-unsupported"}},
	{Name: "onnxruntime", Install: "onnx", Adapter: "tools/adapters/onnx_adapter.py",
		Xfail: "tools/adapters/xfail/onnxruntime.txt", Repro: "docs/conformance/repro/onnx_repro.py",
		Gate: []string{"-allow-unsupported"}},
	{Name: "onnx-reference", Install: "onnx", Adapter: "tools/adapters/onnx_adapter.py --reference",
		Xfail: "tools/adapters/xfail/onnx-reference.txt", Repro: "docs/conformance/repro/onnx_repro.py",
		Gate: []string{"-allow-unsupported"}},
	{Name: "numpy", Install: "numpy", Adapter: "tools/adapters/numpy_adapter.py",
		Xfail: "tools/adapters/xfail/numpy.txt", Repro: "docs/conformance/repro/numpy_repro.py",
		Gate: []string{"-allow-unsupported"}},
	// The real torch_scatter 2.1.2 beside torch 2.14.1 (Debian sid): only
	// torch_scatter.scatter is the library's own call (the 1.x scatter_add
	// with fill_value is emulated by the adapter); it claims determinism,
	// so it is held to bit-exactness, and it has no expected failure (no
	// xfail file). torch_repro.py prints PyTorch's answers to every
	// framework's repro calls.
	{Name: "torch_scatter", Command: "tools/torchenv/run sid python3 tools/adapters/torch_adapter.py",
		Ready: "tools/torchenv/run sid --ready", Runner: "tools/torchenv/run sid python3",
		Repro: "docs/conformance/repro/torch_repro.py",
		Gate:  []string{"-ops", "torch_scatter.scatter", "-level", "strict"}},
	{Name: "tensorflow", Install: "tensorflow", Adapter: "tools/adapters/tensorflow_adapter.py",
		Xfail: "tools/adapters/xfail/tensorflow.txt", Repro: "docs/conformance/repro/tensorflow_repro.py",
		Gate: []string{"-allow-unsupported"}},
	{Name: "tinygrad", Install: "tinygrad", Adapter: "tools/adapters/tinygrad_adapter.py",
		Xfail: "tools/adapters/xfail/tinygrad.txt", Repro: "docs/conformance/repro/tinygrad_repro.py",
		Gate: []string{"-allow-unsupported"}},
	{Name: "paddle", Install: "paddle", Adapter: "tools/adapters/paddle_adapter.py",
		Xfail: "tools/adapters/xfail/paddle.txt", Repro: "docs/conformance/repro/paddle_repro.py",
		Gate: []string{"-allow-unsupported"}},
	// candle: a Rust binary, the adapter itself. Its repro in candle is
	// Rust (repro/candle_repro.rs, run with cargo by hand); the dashboard
	// runs the same calls in PyTorch 2.14.
	{Name: "candle", Install: "candle",
		Xfail: "tools/adapters/xfail/candle.txt", Repro: "docs/conformance/repro/candle_torch_repro.py",
		Runner: "tools/torchenv/run sid python3",
		Gate:   []string{"-allow-unsupported"}},
	// burn: a Rust binary too (burn-tensor on the NdArray backend); its
	// repro in Burn is repro/burn_repro.rs, the same calls in PyTorch 2.14
	// burn_torch_repro.py.
	{Name: "burn", Install: "burn",
		Xfail: "tools/adapters/xfail/burn.txt", Repro: "docs/conformance/repro/burn_torch_repro.py",
		Runner: "tools/torchenv/run sid python3",
		Gate:   []string{"-allow-unsupported"}},
}

// dashConfig is what one dashboard run was asked.
type dashConfig struct {
	dir        string
	readme     string
	only       []string
	gateArgs   []string // the dashboard's own gate flags, before each framework's
	renderOnly bool
	repros     bool
	verbose    bool
	cache      string
	ctx        context.Context // ended by SIGINT, SIGTERM or SIGHUP
}

// errCutShort is a gate run cut short (SIGINT, SIGTERM): its report is
// not written, and the dashboard stops.
var errCutShort = errors.New("the gate run was cut short; its report is not written")

// runDashboard is scattercheck dashboard over the frameworks table.
func runDashboard(args []string, stdout, stderr io.Writer) int {
	return dashboard(frameworks, args, stdout, stderr)
}

// dashboard is the command over a given table (the tests give their own).
func dashboard(table []framework, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scattercheck dashboard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "docs/conformance", "where the reports and README.md are written")
	only := fs.String("frameworks", "", "a comma list of the frameworks to run (default: every installed one); the README still shows every report in -dir")
	checks := fs.Int("checks", 30, "the gate's -checks")
	tier := fs.String("properties-tier", "short", "the gate's -properties-tier")
	seed := fs.Uint64("seed", 1, "the gate's -seed")
	progress := fs.Duration("progress", time.Minute, "the gate's -progress (on standard error)")
	renderOnly := fs.Bool("render-only", false, "run nothing: rewrite README.md's generated blocks from the reports in -dir")
	repros := fs.Bool("repros", true, "run the repro scripts of the frameworks run, and put their output in README.md")
	verbose := fs.Bool("v", false, "print each gate's full summary (default: one line per framework)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: scattercheck dashboard [flags]\n\n"+
			"Runs the gate on every installed framework of its table, writes DIR/<framework>.json (compacted)\n"+
			"and rewrites DIR/README.md's generated blocks; exits 0 when every framework run passes.\n\nframeworks: "+
			strings.Join(frameworkNames(table), ", ")+"\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "scattercheck dashboard: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg := dashConfig{dir: *dir, readme: filepath.Join(*dir, "README.md"), renderOnly: *renderOnly, repros: *repros,
		verbose: *verbose, cache: cacheDir()}
	cfg.gateArgs = []string{"-profile", "torch-2", "-level", "conformant", "-checks", fmt.Sprint(*checks),
		"-properties-tier", *tier, "-seed", fmt.Sprint(*seed), "-progress", progress.String()}
	names := frameworkNames(table)
	for _, n := range splitList(*only) {
		if !slices.Contains(names, n) {
			fmt.Fprintf(stderr, "scattercheck dashboard: unknown framework %q (frameworks: %s)\n", n, strings.Join(names, ", "))
			return 2
		}
		cfg.only = append(cfg.only, n)
	}
	if st, err := os.Stat(cfg.dir); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "scattercheck dashboard: -dir %s is not a folder\n", cfg.dir)
		return 2
	}

	// SIGINT or SIGTERM: the gate in flight is cut short (it has its own
	// handler) and its report not written, an install or repro in flight
	// is ended, and no other framework is run; README.md is still
	// rewritten from the reports there are.
	ctx, stop := cutContext(context.Background())
	defer stop()
	cfg.ctx = ctx
	code := 0
	repro := map[string]string{} // repro script -> its output, this run
	var skipped, failedInstall []string
	if !cfg.renderOnly {
		for _, fw := range table {
			if len(cfg.only) > 0 && !slices.Contains(cfg.only, fw.Name) {
				continue
			}
			if ctx.Err() != nil {
				break
			}
			cmd, runner, why, broken := fw.resolve(ctx, cfg.cache, stderr)
			if ctx.Err() != nil {
				break
			}
			if broken {
				// installed, but its install does not finish: a failure,
				// not a framework that is not there
				fmt.Fprintf(stderr, "scattercheck dashboard: %s: %s\n", fw.Name, why)
				failedInstall = append(failedInstall, fw.Name+" ("+why+")")
				code = max(code, 1)
				continue
			}
			if why != "" {
				skipped = append(skipped, fw.Name+" ("+why+")")
				if len(cfg.only) > 0 {
					code = max(code, 1) // asked for by name, and not run
				}
				continue
			}
			ok, err := runFramework(cfg, fw, cmd, runner, repro, stdout, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "scattercheck dashboard: %s: %v\n", fw.Name, err)
				code = max(code, 1)
				if errors.Is(err, errCutShort) {
					break
				}
				continue
			}
			if !ok {
				code = max(code, 1)
			}
		}
	}
	reports, err := loadReports(table, cfg.dir)
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck dashboard:", err)
		return 2
	}
	old, err := os.ReadFile(cfg.readme)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(stderr, "scattercheck dashboard:", err)
		return 2
	}
	doc := renderReadme(string(old), table, reports)
	if err := os.WriteFile(cfg.readme, []byte(doc), 0o644); err != nil {
		fmt.Fprintln(stderr, "scattercheck dashboard:", err)
		return 2
	}
	fmt.Fprintf(stdout, "wrote %s (%d framework reports)\n", cfg.readme, len(reports))
	if ctx.Err() != nil {
		fmt.Fprintln(stdout, "INCOMPLETE: interrupted; the frameworks not reached were not run")
		code = 1
	}
	if len(skipped) > 0 {
		fmt.Fprintln(stdout, "skipped, not installed:", strings.Join(skipped, "; "))
		if len(cfg.only) > 0 {
			fmt.Fprintln(stdout, "FAIL: frameworks asked for by -frameworks were not run")
		}
	}
	if len(failedInstall) > 0 {
		fmt.Fprintln(stdout, "FAIL: installed, but their install failed:", strings.Join(failedInstall, "; "))
	}
	return code
}

func frameworkNames(table []framework) []string {
	var names []string
	for _, fw := range table {
		names = append(names, fw.Name)
	}
	return names
}

// cacheDir is ${SCATTER_CACHE:-$HOME/.cache/scatter}, as tools/adapters/install has it.
func cacheDir() string {
	if c := os.Getenv("SCATTER_CACHE"); c != "" {
		return c
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "scatter")
}

// resolve returns the adapter command and the repro runner of an
// installed framework, or why it is skipped (not installed) or broken
// (installed, but its install, run again, fails).
func (fw framework) resolve(ctx context.Context, cache string, stderr io.Writer) (cmd, runner, why string, broken bool) {
	if fw.Install == "" {
		if fw.Ready != "" {
			c := exec.CommandContext(ctx, "sh", "-c", fw.Ready)
			inGroup(c)
			c.Stderr = io.Discard
			if err := runGrouped(c); err != nil {
				return "", "", fmt.Sprintf("%s: %v", fw.Ready, err), false
			}
		}
		return fw.Command, fw.Runner, "", false
	}
	env := filepath.Join(cache, "frameworks", fw.Install)
	if _, err := os.Stat(env); err != nil {
		return "", "", "no " + env + "; tools/adapters/install " + fw.Install, false
	}
	var out bytes.Buffer
	c := exec.CommandContext(ctx, "tools/adapters/install", fw.Install)
	inGroup(c)
	c.Stdout, c.Stderr = &out, stderr
	if err := runGrouped(c); err != nil {
		return "", "", fmt.Sprintf("tools/adapters/install %s: %v", fw.Install, err), true
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	prog := strings.TrimSpace(lines[len(lines)-1])
	if prog == "" {
		return "", "", "tools/adapters/install " + fw.Install + " printed no program", true
	}
	cmd = shellWord(prog)
	if fw.Adapter != "" {
		cmd += " " + fw.Adapter
	}
	runner = fw.Runner
	if runner == "" {
		runner = shellWord(prog)
	}
	return cmd, runner, "", false
}

// shellWord quotes s for sh (shQuote) when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return shQuote(s)
}

// runFramework runs the gate on one framework, then its repro script
// (once per script in a dashboard run, kept in repro), and writes its
// compacted report; ok is the gate's verdict.
func runFramework(cfg dashConfig, fw framework, cmd, runner string, repro map[string]string, stdout, stderr io.Writer) (ok bool, err error) {
	tmp, err := os.MkdirTemp("", "scattercheck-dashboard-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	full := filepath.Join(tmp, fw.Name+".json")
	args := append([]string{"-impl", cmd, "-json", full}, cfg.gateArgs...)
	if fw.Xfail != "" {
		if _, err := os.Stat(fw.Xfail); err == nil {
			args = append(args, "-xfail", fw.Xfail)
		}
	}
	args = append(args, fw.Gate...)
	var summary bytes.Buffer
	out := io.Writer(&summary)
	if cfg.verbose {
		out = io.MultiWriter(&summary, stdout)
	}
	fmt.Fprintf(stdout, "%s: scattercheck %s\n", fw.Name, strings.Join(quoteArgs(args), " "))
	t0 := time.Now()
	code := runGate(args, out, stderr)
	wall := time.Since(t0)
	if code == 2 {
		return false, fmt.Errorf("the gate refused its flags (exit 2)")
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return false, fmt.Errorf("the gate wrote no report: %v", err)
	}
	var rep jsonReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return false, fmt.Errorf("reading the gate's report: %v", err)
	}
	if !rep.Complete {
		return false, errCutShort
	}
	dr := compactReport(rep, fw.Name, args, wall)
	path := filepath.Join(cfg.dir, fw.Name+".json")
	if fw.Repro != "" {
		if _, err := os.Stat(fw.Repro); err == nil {
			dr.Dashboard.Repro = fw.Repro
			switch {
			case repro[fw.Repro] != "":
				dr.Dashboard.ReproOutput = repro[fw.Repro]
			case cfg.repros:
				dr.Dashboard.ReproOutput = runRepro(cfg.ctx, fw.Repro, runner, stdout)
				repro[fw.Repro] = dr.Dashboard.ReproOutput
			default:
				dr.Dashboard.ReproOutput = previousReproOutput(path)
			}
		}
	}
	if err := writeDashReport(path, dr); err != nil {
		return false, err
	}
	verdict := "PASS"
	if code != 0 {
		verdict = "FAIL"
		if !cfg.verbose {
			// the failures' index and the first ones in full
			stdout.Write(tailBytes(summary.Bytes(), 6000))
		}
	}
	for _, r := range rep.Runs {
		fmt.Fprintf(stdout, "%s: %s %s: %s, %s in %.0f s\n", fw.Name, r.Implementation.Name, r.Implementation.Version,
			verdict, summaryLine(r.Summary), wall.Seconds())
	}
	return code == 0, nil
}

func quoteArgs(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellWord(a)
	}
	return q
}

func tailBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[len(b)-n:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return b
}

// summaryLine is a run's counts in words.
func summaryLine(s map[string]int) string {
	line := fmt.Sprintf("%d passed, %d expected failures, %d failed, %d skipped of %d cases",
		s["pass"], s["xfail"], s["fail"]+s["unsupported"], s["skip"], s["total"])
	if s["xpass"] > 0 {
		line += fmt.Sprintf(", %d unexpected passes", s["xpass"])
	}
	return line
}

// reproTimeout bounds one repro script.
const reproTimeout = 5 * time.Minute

// runRepro runs a repro script with the framework's interpreter and
// returns its output after the command line, or with why it failed.
func runRepro(ctx context.Context, script, runner string, stdout io.Writer) string {
	if runner == "" {
		return ""
	}
	line := runner + " " + script
	ctx, cancel := context.WithTimeout(ctx, reproTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", line)
	inGroup(c)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := runGrouped(c)
	text := sanitizeBlock(out.String())
	if err != nil {
		text += fmt.Sprintf("\n(%s failed: %v)", line, err)
		fmt.Fprintf(stdout, "repro %s: %v\n", script, err)
	} else {
		fmt.Fprintf(stdout, "repro %s: ran\n", script)
	}
	return "$ " + line + "\n" + text
}

// previousReproOutput is the repro output of the report at path, if any
// (kept when the repros are not run).
func previousReproOutput(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var r dashReport
	if json.Unmarshal(b, &r) != nil || r.Dashboard == nil {
		return ""
	}
	return r.Dashboard.ReproOutput
}

// sanitizeBlock makes a program's output safe inside a fenced block:
// control characters (but newlines and tabs) escaped, no line of three
// backquotes, trailing space trimmed.
func sanitizeBlock(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		line = strings.TrimRight(line, " \r")
		for _, r := range line {
			switch {
			case r == '\t' || r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0):
				b.WriteRune(r)
			default:
				fmt.Fprintf(&b, "\\x%02x", r)
			}
		}
		b.WriteByte('\n')
	}
	return strings.ReplaceAll(strings.TrimRight(b.String(), "\n"), "```", "'''")
}
