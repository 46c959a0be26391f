package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// The tests of scattercheck bench: its flags, a scaled-down run on the
// built-in backends, and runs against implementations that time, decline,
// fail or crash (the test binary itself, with benchHelperEnv set).

const (
	benchHelperEnv = "SCATTERCHECK_BENCH_HELPER"
	benchMarkEnv   = "SCATTERCHECK_BENCH_MARK"
)

// benchHelper is the test binary run as an implementation:
//
//	serve        protocol.Serve with the reference, claiming float32 and
//	             int64 only (so W7, bfloat16, is not claimed)
//	unsupported  answers every bench "unsupported"
//	error        answers every bench with an invalid_argument error
//	crash        exits on the first bench
//	hang         never answers a bench
//	crash-once   crashes on its first bench if the file named by
//	             benchMarkEnv is not there (and makes it), else serves
//	decline-rank3  serves the reference, claiming everything, and answers
//	             unsupported to every call with a tensor of 3 or more dims
//	wrong-large  serves the reference, claiming everything, but adds 1 to
//	             the first element of a float32 result whose call has an
//	             index of more than 32768 elements (a bug of a large path)
//	flat-views   serves the reference, claiming everything and the strides
//	             extension, but reads a view whose storage has as many
//	             elements as the view (a transposed one) as if it were
//	             contiguous: a kernel that ignores strides
//	errors-only  serves the reference, claiming everything, but answers
//	             unsupported to every call that should succeed: it gets
//	             every argument check right and computes nothing
//	hang-large   serves the reference, claiming everything and the strides
//	             extension, but never answers a call whose index has more
//	             than 16 elements and that is sent without a view,
//	             appending the SHA-256 of its request line with id 0
//	             to the file benchMarkEnv names first (one line a hang)
func benchHelper(mode string) int {
	if mode == "crash-once" {
		mark := os.Getenv(benchMarkEnv)
		if _, err := os.Stat(mark); err != nil {
			if err := os.WriteFile(mark, nil, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "helper:", err)
				return 1
			}
			mode = "crash"
		} else {
			mode = "serve"
		}
	}
	if mode == "flat-views" || mode == "hang-large" {
		pr, pw := io.Pipe()
		go func() {
			sc := bufio.NewScanner(os.Stdin)
			sc.Buffer(nil, 1<<30)
			for sc.Scan() {
				line := sc.Bytes()
				if mode == "hang-large" {
					if _, c, err := protocol.DecodeCall(line); err == nil && c.Tensors()["index"].NumEl() > 16 && !bytes.Contains(line, []byte(`"strides"`)) {
						if f, err := os.OpenFile(os.Getenv(benchMarkEnv), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
							same, _ := protocol.EncodeOptions{Strides: true}.EncodeCall(0, c) // the call, whatever its id
							fmt.Fprintf(f, "%x\n", sha256.Sum256(same))
							f.Close()
						}
						fmt.Fprintln(os.Stderr, "helper: hanging")
						time.Sleep(time.Hour)
					}
					pw.Write(append(line, '\n'))
					continue
				}
				pw.Write(append(dropSameSizeStrides(line), '\n'))
			}
			pw.Close()
		}()
		if err := protocol.Serve(pr, os.Stdout, reference.New(scatter.Torch2)); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		return 0
	}
	if mode == "decline-rank3" || mode == "wrong-large" || mode == "errors-only" {
		var b scatter.Backend = declineRank3{reference.New(scatter.Torch2)}
		switch mode {
		case "wrong-large":
			b = wrongLarge{reference.New(scatter.Torch2)}
		case "errors-only":
			b = errorsOnly{reference.New(scatter.Torch2)}
		}
		if err := protocol.Serve(os.Stdin, os.Stdout, b); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		return 0
	}
	if mode == "serve" {
		b := claimed{Backend: reference.New(scatter.Torch2), info: scatter.Info{Name: "helper", Version: "1",
			DTypes: []scatter.DType{scatter.DTFloat32, scatter.DTInt64}}}
		if err := protocol.Serve(os.Stdin, os.Stdout, b); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		return 0
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		req, err := protocol.DecodeRequest(sc.Bytes())
		var ans []byte
		switch {
		case err != nil:
			ans = protocol.EncodeError(req.ID, err)
		case req.Op == protocol.OpHello:
			ans = protocol.EncodeHelloAnswer(req.ID, scatter.Info{Name: "helper-" + mode, Version: "1"})
		case mode == "unsupported":
			ans = protocol.EncodeUnsupported(req.ID, "this helper does not time calls")
		case mode == "error":
			ans = protocol.EncodeError(req.ID, scatter.Errorf(scatter.ErrInvalidArgument, "the helper refuses"))
		case mode == "hang":
			fmt.Fprintln(os.Stderr, "helper: hanging on", req.Op)
			time.Sleep(time.Hour)
		default: // crash
			fmt.Fprintln(os.Stderr, "helper: crashing on", req.Op)
			return 3
		}
		os.Stdout.Write(append(ans, '\n'))
	}
	return 0
}

// declineRank3 answers unsupported to every call with a tensor of 3 or
// more dims, and runs the others on its backend.
type declineRank3 struct{ scatter.Backend }

func (d declineRank3) Run(c scatter.Call) (scatter.Result, error) {
	for _, t := range c.Tensors() {
		if len(t.Shape) >= 3 {
			return scatter.Result{}, scatter.Errorf(scatter.ErrNotSupported, "no tensors of 3 or more dims")
		}
	}
	return d.Backend.Run(c)
}

// dropSameSizeStrides removes "strides" from every tensor of a request
// line whose storage has as many elements as its shape: the line then
// asks for the storage read in order, not for the view.
func dropSameSizeStrides(line []byte) []byte {
	var req map[string]json.RawMessage
	if json.Unmarshal(line, &req) != nil {
		return line
	}
	for name, raw := range req {
		var w protocol.Tensor
		if json.Unmarshal(raw, &w) != nil || w.Strides == nil {
			continue
		}
		dt, err := scatter.ParseDType(w.DType)
		data, err2 := base64.StdEncoding.DecodeString(w.Data)
		if err != nil || err2 != nil {
			continue
		}
		n := 1
		for _, s := range w.Shape {
			n *= s
		}
		if len(data) != n*dt.Size() {
			continue
		}
		w.Strides = nil
		req[name], _ = json.Marshal(w)
	}
	out, _ := json.Marshal(req)
	return out
}

// errorsOnly answers the calls that must fail as its backend does, and
// unsupported to every other.
type errorsOnly struct{ scatter.Backend }

func (e errorsOnly) Run(c scatter.Call) (scatter.Result, error) {
	res, err := e.Backend.Run(c)
	if err == nil {
		return scatter.Result{}, scatter.Errorf(scatter.ErrNotSupported, "this helper computes no result")
	}
	return res, err
}

// wrongLarge adds 1 to the first element of a float32 result whose call
// has an index of more than 32768 elements.
type wrongLarge struct{ scatter.Backend }

func (w wrongLarge) Run(c scatter.Call) (scatter.Result, error) {
	res, err := w.Backend.Run(c)
	idx, ok := c.Tensors()["index"]
	if err != nil || !ok || idx.NumEl() <= 1<<15 {
		return res, err
	}
	if vals, ok := scatter.Values[float32](res.Out); ok && len(vals) > 0 {
		vals[0]++
		res.Out = scatter.FromSlice(vals, res.Out.Shape...)
	}
	return res, err
}

// claimed narrows a backend's claims.
type claimed struct {
	scatter.Backend
	info scatter.Info
}

func (c claimed) Info() scatter.Info { return c.info }

// helperImpl is the -impl command that runs the test binary as the helper.
func helperImpl(t *testing.T, mode string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return benchHelperEnv + "=" + mode + " exec " + shQuote(exe)
}

// benchJSON reads a -json file of scattercheck bench.
func benchJSON(t *testing.T, path string) benchReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r benchReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// result returns the result of target on workload id.
func (r *benchReport) result(t *testing.T, id, target string) benchResult {
	t.Helper()
	for _, w := range r.Workloads {
		if w.ID != id {
			continue
		}
		for _, res := range w.Results {
			if res.Label == target {
				return res
			}
		}
	}
	t.Fatalf("no result of %s on %s", target, id)
	return benchResult{}
}

func TestBenchBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-targets", "nosuch"}, "unknown target"},
		{[]string{"-targets", "reference"}, "-scale 100"},
		{[]string{"-targets", "reference", "-scale", "99"}, "-scale 100"},
		{[]string{"-targets", "optimized,optimized"}, "twice"},
		{[]string{"-targets", "none"}, "nothing to time"},
		{[]string{"-repeat", "0"}, "-repeat"},
		{[]string{"-warmup", "0"}, "-warmup"},
		{[]string{"-scale", "0"}, "-scale"},
		{[]string{"-scale", "100001"}, "-scale"},
		{[]string{"-workloads", "W8"}, "unknown workload"},
		{[]string{"-workloads", "W1,x"}, "unknown workload"},
		{[]string{"-workloads", ",,"}, "no workload"},
		{[]string{"-profile", "torch-3"}, "profile"},
		{[]string{"-timeout", "0s"}, "-timeout"},
		{[]string{"-format", "csv"}, "-format must be table or benchstat"},
		{[]string{"-nosuch"}, "-nosuch"},
		{[]string{"-scale", "1000", "extra"}, "unexpected argument"},
	} {
		code, out, errb := runCmd(t, nil, append([]string{"bench"}, c.args...)...)
		if code != 2 || !strings.Contains(errb, c.msg) {
			t.Errorf("%v: exit %d, want 2 and %q\nstdout: %s\nstderr: %s", c.args, code, c.msg, out, errb)
		}
	}
	code, _, errb := runCmd(t, nil, "bench", "-h")
	if code != 2 || !strings.Contains(errb, "usage: scattercheck bench") || !strings.Contains(errb, "-impl") {
		t.Errorf("bench -h: exit %d\n%s", code, errb)
	}
}

// TestBenchBuiltins times every workload scaled down 1000x on every
// built-in backend.
func TestBenchBuiltins(t *testing.T) {
	js := filepath.Join(t.TempDir(), "bench.json")
	code, out, errb := runCmd(t, nil, "bench", "-scale", "1000", "-repeat", "3", "-profile", "torch-1.13",
		"-targets", strings.Join(builtinNames, ","), "-json", js)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	r := benchJSON(t, js)
	if r.Schema != benchSchema || r.Tool != "scattercheck bench" || !r.OK || r.Scale != 1000 || r.Repeat != 3 || r.Profile != "torch-1.13" {
		t.Errorf("report header %+v", r)
	}
	if len(r.Workloads) != 7 || len(r.Targets) != len(builtinNames) {
		t.Fatalf("%d workloads, %d targets", len(r.Workloads), len(r.Targets))
	}
	// the memory copy: 256 MiB / 1000, read and written, 8 rounds of 3
	if r.Memcpy.Bytes != 2*(256<<20/1000) || len(r.Memcpy.SamplesNS) != 24 || r.Memcpy.Rounds != 8 || !(r.Memcpy.MedianGBs > 0) {
		t.Errorf("memcpy %+v", r.Memcpy)
	}
	gpu := r.Targets[3].Unavail == ""
	for _, w := range r.Workloads {
		if len(w.Results) != len(builtinNames) || w.Bytes <= 0 || w.Description == "" {
			t.Fatalf("%s: %+v", w.ID, w)
		}
		for _, name := range builtinNames {
			res := r.result(t, w.ID, name)
			if name == "cuda" && !gpu {
				if res.Status != benchSkipped || !strings.Contains(res.Reason, "unavailable") {
					t.Errorf("%s cuda without a GPU: %+v", w.ID, res)
				}
				continue
			}
			if res.Status != benchOK || len(res.SamplesNS) != 3 || !(res.MedianNS > 0) || float64(res.MinNS) > res.MedianNS ||
				!(res.GBs > 0) || !(res.Memcpy > 0) || res.Bytes != w.Bytes || res.Name == "" || res.Version == "" {
				t.Errorf("%s %s: %+v", w.ID, name, res)
			}
			if math.Abs(res.GBs-float64(w.Bytes)/(res.MedianNS*1e-9)/1e9) > 1e-9*res.GBs {
				t.Errorf("%s %s: %v GB/s for %d bytes in %v ns", w.ID, name, res.GBs, w.Bytes, res.MedianNS)
			}
			if rssReadable && (res.PeakRSS <= 0 || res.StartRSS <= 0 || res.PeakRSS < res.StartRSS) {
				t.Errorf("%s %s: peak RSS %d, at the start %d", w.ID, name, res.PeakRSS, res.StartRSS)
			}
			for other, s := range res.Ratios {
				back := r.result(t, w.ID, other).Ratios[name]
				if math.Abs(s*back-1) > 1e-9 {
					t.Errorf("%s: %s over %s %v, the other way %v", w.ID, name, other, s, back)
				}
			}
		}
		if len(r.result(t, w.ID, "optimized").Ratios) < 2 {
			t.Errorf("%s: optimized has ratios %v", w.ID, r.result(t, w.ID, "optimized").Ratios)
		}
	}
	if len(r.Pairs) < 3 || r.Pairs[0].A != "reference" || r.Pairs[0].B != "optimized" || r.Pairs[0].Workloads != 7 {
		t.Errorf("pairs %+v", r.Pairs)
	}
	for _, want := range []string{"scaled down 1000x", "memory copy", "median ms", "of memcpy", "W2 ", "slower than optimized",
		"reference vs optimized:", "unavailable here"} {
		if want == "unavailable here" && gpu {
			continue
		}
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestBenchImplementations times the helper implementations beside the
// optimized backend: one that times (through protocol.Serve, strides
// claimed), one that declines, one that errs, one that crashes, one that
// does not start.
func TestBenchImplementations(t *testing.T) {
	js := filepath.Join(t.TempDir(), "bench.json")
	code, out, errb := runCmd(t, nil, "bench", "-scale", "1000", "-repeat", "2", "-workloads", "W2,W7,W1",
		"-impl", helperImpl(t, "serve"), "-impl", helperImpl(t, "unsupported"), "-impl", helperImpl(t, "error"),
		"-impl", helperImpl(t, "crash"), "-impl", "exit 3", "-impl", "true && "+helperImpl(t, "serve"),
		"-timeout", "1m", "-json", js)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (failed targets)\n%s%s", code, out, errb)
	}
	r := benchJSON(t, js)
	if r.OK {
		t.Error("ok with failed targets")
	}
	// labels: the name and version of the hello ("1"), a suffix for a
	// second target of the same label, the command's place for one
	// that did not start
	var labels, names []string
	for _, tg := range r.Targets {
		labels, names = append(labels, tg.Label), append(names, tg.Name+"/"+tg.Version)
	}
	want := []string{"optimized", "helper 1", "helper-unsupported 1", "helper-error 1", "helper-crash 1", "impl5", "helper 1 #2"}
	if !slices.Equal(labels, want) {
		t.Fatalf("targets %v, want %v", labels, want)
	}
	if want := []string{"optimized/torch-2", "helper/1", "helper-unsupported/1", "helper-error/1", "helper-crash/1", "/", "helper/1"}; !slices.Equal(names, want) {
		t.Errorf("names/versions %v, want %v", names, want)
	}
	if !r.Targets[1].Strides || r.Targets[2].Strides || r.Targets[5].StartErr == "" {
		t.Errorf("targets %+v %+v %+v", r.Targets[1], r.Targets[2], r.Targets[5])
	}
	if ids := []string{r.Workloads[0].ID, r.Workloads[1].ID, r.Workloads[2].ID}; !slices.Equal(ids, []string{"W2", "W7", "W1"}) {
		t.Errorf("workloads %v", ids)
	}
	status := func(id, target string) string {
		res := r.result(t, id, target)
		return res.Status + ": " + res.Reason
	}
	for _, c := range []struct{ id, target, want string }{
		{"W2", "optimized", "ok"},
		{"W2", "helper 1", "ok"}, // the expanded index went strided and was decoded as a view
		{"W1", "helper 1", "ok"},
		{"W1", "helper 1 #2", "ok"},
		{"W7", "helper 1", "skipped: scatter_add on bfloat16 not claimed"},
		{"W1", "helper-unsupported 1", "unsupported: this helper does not time calls"},
		{"W1", "helper-error 1", "failed: invalid_argument: the helper refuses"},
		{"W2", "helper-crash 1", "failed: crash"},
		{"W1", "helper-crash 1", "failed: crash"}, // restarted, crashed again
		{"W1", "impl5", "failed: did not start"},
	} {
		if got := status(c.id, c.target); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %s: %q, want %q...", c.id, c.target, got, c.want)
		}
	}
	if res := r.result(t, "W2", "helper 1"); len(res.SamplesNS) != 2 || res.Ratios["optimized"] <= 0 || res.Ratios["helper 1 #2"] <= 0 {
		t.Errorf("W2 helper: %+v", res)
	}
	if res := r.result(t, "W2", "helper-crash 1"); !strings.Contains(res.Reason, "helper: crashing on bench") {
		t.Errorf("the crash's stderr is not in the reason: %q", res.Reason)
	}
	// peak RSS: the helpers are this test binary, whose resident memory is
	// more than a megabyte; the first one execs itself in place of sh,
	// the second runs below sh (true && ... is not exec'd)
	if rssReadable {
		for _, target := range []string{"optimized", "helper 1", "helper 1 #2"} {
			for _, id := range []string{"W2", "W1"} {
				res := r.result(t, id, target)
				if res.PeakRSS < 1<<20 || res.StartRSS < 1<<20 || res.PeakRSS < res.StartRSS {
					t.Errorf("%s %s: peak RSS %d, at the start %d", id, target, res.PeakRSS, res.StartRSS)
				}
			}
		}
		for _, tg := range r.Targets[:5] {
			if tg.RSS != rssBuiltin && tg.RSS != rssImpl {
				t.Errorf("%s: RSS %q", tg.Label, tg.RSS)
			}
		}
		if res := r.result(t, "W1", "helper-error 1"); res.PeakRSS != 0 {
			t.Errorf("a failed result has a peak RSS: %+v", res)
		}
	}
	for _, want := range []string{"helper-unsupported 1  unsupported: this helper does not time calls", "FAIL: a target failed a workload",
		"views sent as views (strides)", "did not start", "optimized vs helper 1:", "peak RSS"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestBenchRestartRSS: an implementation that crashes on its first
// workload is restarted on the second, and its new process is found for
// the RSS of the third (on the second it starts only with the request,
// after the measurement would have begun).
func TestBenchRestartRSS(t *testing.T) {
	if !rssReadable {
		t.Skip("no peak RSS here")
	}
	js := filepath.Join(t.TempDir(), "bench.json")
	impl := benchMarkEnv + "=" + shQuote(filepath.Join(t.TempDir(), "crashed")) + " " + helperImpl(t, "crash-once")
	code, out, errb := runCmd(t, nil, "bench", "-scale", "1000", "-repeat", "2", "-workloads", "W1,W6,W3",
		"-targets", "none", "-impl", helperImpl(t, "serve"), "-impl", impl, "-json", js)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a crash)\n%s%s", code, out, errb)
	}
	r := benchJSON(t, js)
	if res := r.result(t, "W1", "helper-crash 1"); res.Status != benchFailed || res.PeakRSS != 0 {
		t.Errorf("W1, the crash: %+v", res)
	}
	if res := r.result(t, "W6", "helper-crash 1"); res.Status != benchOK || res.PeakRSS != 0 {
		t.Errorf("W6, restarted with the request: %+v", res)
	}
	for _, id := range []string{"W1", "W6", "W3"} {
		if res := r.result(t, id, "helper 1"); res.Status != benchOK || res.PeakRSS < 1<<20 {
			t.Errorf("%s, the other helper: %+v", id, res)
		}
	}
	if res := r.result(t, "W3", "helper-crash 1"); res.Status != benchOK || res.PeakRSS < 1<<20 || res.StartRSS < 1<<20 {
		t.Errorf("W3, after the restart: %+v", res)
	}
}

// TestBenchUnsupportedOnly: a target that declines everything is no
// failure, but is named in a warning; a run in which nothing at all was
// timed fails (a bench job that measured nothing must not pass).
func TestBenchUnsupportedOnly(t *testing.T) {
	for _, tc := range []struct {
		targets string
		code    int
		fail    bool
	}{{"none", 1, true}, {"optimized", 0, false}} {
		t.Run("targets="+tc.targets, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "bench.json")
			code, out, errb := runCmd(t, nil, "bench", "-scale", "1000", "-repeat", "1", "-workloads", "W6,W1",
				"-targets", tc.targets, "-impl", helperImpl(t, "unsupported"), "-json", js)
			if code != tc.code || !strings.Contains(out, "unsupported: this helper does not time calls") ||
				!strings.Contains(out, "warning: helper-unsupported 1 timed no workload: it declined 2 of 2 (this helper does not time calls)") ||
				strings.Contains(out, "FAIL: nothing was timed: no target timed a workload") != tc.fail {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errb)
			}
			if r := benchJSON(t, js); r.OK == tc.fail || len(r.Warnings) != 1 {
				t.Errorf("ok %v, warnings %q", r.OK, r.Warnings)
			}
		})
	}
}

// builtinName is the name a built-in backend's Info gives it: its name,
// with "-deterministic" for the deterministic optimized backend.
func builtinName(b scatter.Backend) string {
	info := b.Info()
	if info.Name == "optimized" && info.Deterministic {
		return "optimized-deterministic"
	}
	return info.Name
}

// Every built-in is registered under the name its Info gives it.
func TestBuiltinNames(t *testing.T) {
	for _, p := range scatter.Profiles {
		var names []string
		for _, b := range builtin(p) {
			name := builtinName(b)
			names = append(names, name)
			nb := builtinNamed(name, p)
			if nb == nil || nb.Info().Name != b.Info().Name || nb.Info().Deterministic != b.Info().Deterministic ||
				nb.Info().Version != b.Info().Version {
				t.Errorf("%s: builtinNamed gives %v, builtin %v", name, nb, b.Info())
			}
		}
		if !slices.Equal(names, builtinNames) {
			t.Errorf("builtin() names %v, builtinNames %v", names, builtinNames)
		}
	}
	if builtinNamed("nosuch", scatter.Torch2) != nil {
		t.Error("builtinNamed(nosuch) is not nil")
	}
}

// TestBenchFigures checks the figures derived from the times on a
// made-up run.
func TestBenchFigures(t *testing.T) {
	r := &benchReport{
		Targets: []*benchTarget{{Label: "a"}, {Label: "b"}, {Label: "c"}},
		Memcpy:  benchMemcpy{Bytes: 4e9, SamplesNS: []int64{1e8, 2e8, 4e8}}, // 20 GB/s median
		Workloads: []benchWorkload{
			{ID: "W1", Bytes: 1e9, Results: []benchResult{
				{Label: "a", Status: benchOK, SamplesNS: []int64{3e8, 1e8, 2e8, 5e8}}, // median 0.25 s
				{Label: "b", Status: benchOK, SamplesNS: []int64{1e9}},
				{Label: "c", Status: benchUnsupported, Reason: "no"},
			}},
			{ID: "W2", Bytes: 2e9, Results: []benchResult{
				{Label: "a", Status: benchOK, SamplesNS: []int64{1e9}},
				{Label: "b", Status: benchOK, SamplesNS: []int64{2.5e8}},
				{Label: "c", Status: benchSkipped},
			}},
		},
	}
	r.finish()
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }
	if !near(r.Memcpy.MedianGBs, 20) || !near(r.Memcpy.MaxGBs, 40) || !near(r.Memcpy.MinGBs, 10) || !r.OK ||
		r.Memcpy.MedianNS != 2e8 || r.Memcpy.MinNS != 1e8 {
		t.Errorf("memcpy %+v, ok %v", r.Memcpy, r.OK)
	}
	a := r.Workloads[0].Results[0]
	if a.MedianNS != 2.5e8 || a.MinNS != 1e8 || !near(a.GBs, 4) || !near(a.Memcpy, 0.2) || !near(a.Ratios["b"], 4) || len(a.Ratios) != 1 {
		t.Errorf("W1 a: %+v", a)
	}
	if c := r.Workloads[0].Results[2]; c.Ratios != nil || c.GBs != 0 {
		t.Errorf("an unsupported result has figures: %+v", c)
	}
	// a over b: 4x on W1, 1/4 on W2: geometric mean 1
	if len(r.Pairs) != 1 || !near(r.Pairs[0].GeoMean, 1) || !near(r.Pairs[0].Max, 4) || r.Pairs[0].MaxOn != "W1" ||
		!near(r.Pairs[0].Min, 0.25) || r.Pairs[0].MinOn != "W2" {
		t.Errorf("pairs %+v", r.Pairs)
	}
	if got := ratioText(4, "b") + "; " + ratioText(0.25, "b"); got != "4.00x faster than b; 4.00x slower than b" {
		t.Errorf("ratio text %q", got)
	}
	// plausible figures, and c declined what it was asked
	if len(r.Warnings) != 1 || r.Warnings[0] != "c timed no workload: it declined 1 of 2 (no)" {
		t.Errorf("warnings: %q", r.Warnings)
	}
	r.Workloads[1].Results[2].Status = benchFailed
	r.finish()
	if r.OK {
		t.Error("a failed result leaves the run ok")
	}
}

// TestBenchWarnings: a result faster than ten memory copies of its bytes,
// and one whose median is past ten times its fastest call, are warned of.
func TestBenchWarnings(t *testing.T) {
	r := &benchReport{
		Targets: []*benchTarget{{Label: "liar"}, {Label: "loaded"}},
		Memcpy:  benchMemcpy{Bytes: 4e9, SamplesNS: []int64{2e8}}, // 20 GB/s
		Workloads: []benchWorkload{{ID: "W1", Bytes: 1e9, Results: []benchResult{
			{Label: "liar", Status: benchOK, SamplesNS: []int64{1e6, 1e6}},             // 1000 GB/s: 50x the copy
			{Label: "loaded", Status: benchOK, SamplesNS: []int64{3e7, 9e8, 9e8, 9e8}}, // median 0.9 s, fastest 0.03 s
		}}},
	}
	r.finish()
	if len(r.Warnings) != 2 || !strings.Contains(r.Warnings[0], "W1, liar: 50x the memory copy's bandwidth") ||
		!strings.Contains(r.Warnings[1], "W1, loaded: median 900.0 ms, fastest 30.00 ms") {
		t.Errorf("warnings: %q", r.Warnings)
	}
}

// TestBenchHang: an implementation that hangs costs -timeout once, then
// is not asked again.
func TestBenchHang(t *testing.T) {
	js := filepath.Join(t.TempDir(), "bench.json")
	t0 := time.Now()
	code, out, errb := runCmd(t, nil, "bench", "-scale", "1000", "-repeat", "1", "-workloads", "W1,W6,W3",
		"-impl", helperImpl(t, "hang"), "-timeout", "500ms", "-json", js)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errb)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	r := benchJSON(t, js)
	if res := r.result(t, "W1", "helper-hang 1"); res.Status != benchFailed || !strings.HasPrefix(res.Reason, "timeout") {
		t.Errorf("W1: %+v", res)
	}
	for _, id := range []string{"W6", "W3"} {
		if res := r.result(t, id, "helper-hang 1"); res.Status != benchFailed || res.Reason != "not run: a bench request timed out on W1" {
			t.Errorf("%s: %+v", id, res)
		}
	}
	if res := r.result(t, "W3", "optimized"); res.Status != benchOK {
		t.Errorf("W3 optimized: %+v", res)
	}
}

// cancelOnWrite cancels a context on its n-th write (the bench's n-th
// progress line: the n-th workload begins).
type cancelOnWrite struct {
	n      int
	seen   *int
	cancel func()
}

func (c cancelOnWrite) Write(p []byte) (int, error) {
	if *c.seen++; *c.seen >= c.n {
		c.cancel()
	}
	return len(p), nil
}

// TestBenchCutShort: a bench cut short (a signal) reports the workloads
// timed until then, marked incomplete and not ok; the one in flight is
// left out.
func TestBenchCutShort(t *testing.T) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	parse := benchFlags(fs)
	if err := fs.Parse([]string{"-scale", "1000", "-repeat", "2", "-workloads", "W1,W2,W3"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.ctx = ctx
	seen := 0
	rep := runBenchConfig(cfg, cancelOnWrite{n: 2, seen: &seen, cancel: cancel})
	if rep.Incomplete == "" || rep.OK || len(rep.Workloads) != 1 || rep.Workloads[0].ID != "W1" ||
		rep.Workloads[0].Results[0].Status != benchOK {
		t.Errorf("cut at W2: incomplete %q, ok %v, workloads %+v", rep.Incomplete, rep.OK, rep.Workloads)
	}
}
