package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
)

// The helper process: the test binary itself, run by the Client tests with
// PROTOCOL_TEST_HELPER set (the os/exec TestHelperProcess pattern).
const helperEnv = "PROTOCOL_TEST_HELPER"

// Input values of the helper backend's gather that trigger misbehaviour.
const (
	trigHang    = 666
	trigCrash   = 777
	trigGarbage = 888
	trigPanic   = 999
)

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	switch mode {
	case "serve":
		err := Serve(os.Stdin, os.Stdout, helperBackend{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
	case "exit":
		fmt.Fprintln(os.Stderr, "helper: refusing to start")
		os.Exit(2)
	case "silent":
		time.Sleep(time.Hour)
	case "stall": // answers the hello, then reads nothing more
		var buf [64]byte
		os.Stdin.Read(buf[:])
		fmt.Println(`{"id":0,"protocol":1,"ops":["gather"]}`)
		time.Sleep(time.Hour)
	case "negative-bench", "zero-bench", "long-bench": // answers every bench with a negative time, a zero, or times longer than the request took
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			req, _ := DecodeRequest(sc.Bytes())
			if req.Op == OpHello {
				os.Stdout.Write(append(EncodeHelloAnswer(req.ID, helperBackend{}.Info()), '\n'))
				continue
			}
			secs := map[string]string{"negative-bench": "[0.5,-1]", "zero-bench": "[0.5,0]", "long-bench": "[1000,1000]"}[mode]
			fmt.Printf("{\"id\":%d,\"seconds\":%s}\n", req.ID, secs)
		}
	case "client": // a Client of the command in PROTOCOL_TEST_IMPL, its leader's pid printed, then waiting to be killed
		c, err := NewClient(os.Getenv("PROTOCOL_TEST_IMPL"), ClientOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		fmt.Println(c.live.Load().cmd.Process.Pid)
		time.Sleep(time.Hour)
	case "client-terminating": // as client; once a line comes on stdin, Terminate begun, with a long grace, and "terminating" printed
		c, err := NewClient(os.Getenv("PROTOCOL_TEST_IMPL"), ClientOptions{KillGrace: time.Minute})
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		fmt.Println(c.live.Load().cmd.Process.Pid)
		bufio.NewReader(os.Stdin).ReadString('\n')
		go c.Terminate()
		time.Sleep(300 * time.Millisecond)
		fmt.Println("terminating")
		time.Sleep(time.Hour)
	case "views", "views-unclaimed": // claims strides (or not); answers every call unsupported, saying whether it came with strides
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			req, _ := DecodeRequest(sc.Bytes())
			if req.Op == OpHello {
				os.Stdout.Write(append(EncodeHelloAnswerExt(req.ID, helperBackend{}.Info(), Extensions{Strides: mode == "views"}), '\n'))
				continue
			}
			how := "contiguous"
			if bytes.Contains(sc.Bytes(), []byte(`"strides"`)) {
				how = "with strides"
			}
			os.Stdout.Write(append(EncodeUnsupported(req.ID, how), '\n'))
		}
	case "protocol2":
		var buf [256]byte
		os.Stdin.Read(buf[:])
		fmt.Println(`{"id":0,"protocol":2,"ops":["gather"]}`)
		time.Sleep(time.Hour)
	}
	os.Exit(0)
}

// helperBackend offers a 1-D float64 gather, and misbehaves on request:
// input[0] picks a hang, a crash, garbage on stdout, or a panic.
type helperBackend struct{}

func (helperBackend) Info() scatter.Info {
	return scatter.Info{Name: "helper", Version: "0.1", Ops: []scatter.Op{scatter.OpGather},
		DTypes: []scatter.DType{scatter.DTFloat64}, Deterministic: true}
}

func (helperBackend) Run(c scatter.Call) (scatter.Result, error) {
	g, ok := c.(scatter.Gather)
	if !ok {
		return scatter.Result{}, scatter.Errorf(scatter.ErrNotSupported, "helper offers gather only, not %s", c.Op())
	}
	in, ok1 := scatter.Values[float64](g.Input)
	idx, ok2 := scatter.Values[int64](g.Index)
	if !ok1 || !ok2 || g.Input.Dim() != 1 || g.Index.Dim() != 1 || g.Dim != 0 {
		return scatter.Result{}, scatter.Errorf(scatter.ErrNotSupported, "helper gathers 1-d float64 along dim 0 only")
	}
	if len(in) > 0 {
		switch in[0] {
		case trigHang:
			time.Sleep(time.Hour)
		case trigCrash:
			fmt.Fprintln(os.Stderr, "helper: crashing now")
			os.Exit(3)
		case trigGarbage:
			fmt.Println("this is not an answer")
		case trigPanic:
			panic("helper panic")
		}
	}
	out := make([]float64, len(idx))
	for i, j := range idx {
		if j < 0 || j >= int64(len(in)) {
			return scatter.Result{}, scatter.Errorf(scatter.ErrIndexOutOfRange, "index %d is out of bounds for dimension 0 with size %d", j, len(in))
		}
		out[i] = in[j]
	}
	return scatter.Result{Out: scatter.FromSlice(out)}, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// helperCommand is the sh -c command that runs the helper.
func helperCommand() string {
	return "exec " + shellQuote(os.Args[0]) + " -test.run='^TestHelperProcess$'"
}

func newHelper(t *testing.T, mode string, opts ClientOptions) *Client {
	t.Helper()
	opts.Env = append(opts.Env, helperEnv+"="+mode)
	c, err := NewClient(helperCommand(), opts)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func gatherCall(in ...float64) scatter.Gather {
	return scatter.Gather{Input: scatter.FromSlice(in), Dim: 0, Index: scatter.FromSlice([]int64{2, 0, 2})}
}

func checkGather(t *testing.T, c *Client, what string) {
	t.Helper()
	res, err := c.Run(gatherCall(1, 2, 3))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got, _ := scatter.Values[float64](res.Out); !reflect.DeepEqual(got, []float64{3, 1, 3}) {
		t.Fatalf("%s: got %v, want [3 1 3]", what, res.Out)
	}
}

func processError(t *testing.T, err error, kind string) *ProcessError {
	t.Helper()
	var pe *ProcessError
	if !errors.As(err, &pe) {
		t.Fatalf("err %v (%T), want a *ProcessError", err, err)
	}
	if pe.Kind != kind {
		t.Fatalf("ProcessError kind %q, want %q: %v", pe.Kind, kind, err)
	}
	if code := scatter.CodeOf(err); code != 0 {
		t.Fatalf("ProcessError has code %v; it must have none", code)
	}
	return pe
}

func TestClientServe(t *testing.T) {
	c := newHelper(t, "serve", ClientOptions{Timeout: 20 * time.Second})
	want := helperBackend{}.Info()
	if got := c.Info(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Info = %+v, want %+v", got, want)
	}
	checkGather(t, c, "gather")

	_, err := c.Run(scatter.Gather{Input: scatter.FromSlice([]float64{1}), Index: scatter.FromSlice([]int64{5})})
	if scatter.CodeOf(err) != scatter.ErrIndexOutOfRange || !strings.Contains(err.Error(), "index 5 is out of bounds") {
		t.Fatalf("out of range: %v", err)
	}
	_, err = c.Run(scatter.ScatterAdd{Self: scatter.FromSlice([]float64{1}), Index: scatter.FromSlice([]int64{0}), Src: scatter.FromSlice([]float64{1})})
	if scatter.CodeOf(err) != scatter.ErrNotSupported {
		t.Fatalf("unsupported op: %v", err)
	}
	// A call the protocol cannot express fails here, with no request.
	_, err = c.Run(scatter.Scatter{Self: scatter.FromSlice([]float64{1}), Index: scatter.FromSlice([]int64{0})})
	if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Fatalf("inexpressible call: %v", err)
	}
	// A panic in the backend is an error answer; the process lives on.
	_, err = c.Run(gatherCall(trigPanic, 1))
	if scatter.CodeOf(err) != scatter.ErrInvalidArgument || !strings.Contains(err.Error(), "panic") {
		t.Fatalf("panic: %v", err)
	}
	// Standard error is copied on its own: give it a moment.
	for i := 0; i < 100 && !strings.Contains(c.Stderr(), "helper panic"); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(c.Stderr(), "helper panic") {
		t.Errorf("stderr tail lacks the panic: %q", c.Stderr())
	}
	secs, err := c.Bench(gatherCall(1, 2, 3), 5)
	if err != nil || len(secs) != 5 {
		t.Fatalf("Bench: %v, %v", secs, err)
	}
	for _, s := range secs {
		if s < 0 || s > 1 {
			t.Fatalf("Bench times %v", secs)
		}
	}
	_, err = c.Bench(gatherCall(1, 2, 3), 0)
	if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Fatalf("Bench repeat 0: %v", err)
	}
	_, err = c.Bench(gatherCall(1), 2)
	if scatter.CodeOf(err) != scatter.ErrIndexOutOfRange {
		t.Fatalf("Bench of a failing call: %v", err)
	}
	checkGather(t, c, "gather at the end")
	if n := c.Restarts(); n != 0 {
		t.Fatalf("%d restarts, want 0", n)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = c.Run(gatherCall(1, 2, 3))
	processError(t, err, KindClosed)
}

func TestClientTimeout(t *testing.T) {
	c := newHelper(t, "serve", ClientOptions{Timeout: 500 * time.Millisecond, BenchTimeout: 500 * time.Millisecond})
	checkGather(t, c, "before")
	t0 := time.Now()
	_, err := c.Run(gatherCall(trigHang, 1, 2))
	pe := processError(t, err, KindTimeout)
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("timeout took %v", d)
	}
	if pe.Op != "gather" || pe.ID == 0 {
		t.Errorf("ProcessError %+v", pe)
	}
	checkGather(t, c, "after the timeout")
	if n := c.Restarts(); n != 1 {
		t.Fatalf("%d restarts, want 1", n)
	}
	// A bench of a hanging call times out too.
	_, err = c.Bench(gatherCall(trigHang, 1, 2), 3)
	processError(t, err, KindTimeout)
	checkGather(t, c, "after the bench timeout")
}

func TestClientCrash(t *testing.T) {
	c := newHelper(t, "serve", ClientOptions{Timeout: 20 * time.Second})
	_, err := c.Run(gatherCall(trigCrash, 1, 2))
	pe := processError(t, err, KindCrash)
	if !strings.Contains(pe.Stderr, "helper: crashing now") || !strings.Contains(c.Stderr(), "helper: crashing now") {
		t.Errorf("stderr tail lacks the crash message: %q", pe.Stderr)
	}
	if !strings.Contains(pe.Detail, "exit status 3") {
		t.Errorf("detail lacks the exit status: %q", pe.Detail)
	}
	if !strings.Contains(err.Error(), "helper: crashing now") {
		t.Errorf("error lacks stderr's last line: %v", err)
	}
	checkGather(t, c, "after the crash")
	if n := c.Restarts(); n != 1 {
		t.Fatalf("%d restarts, want 1", n)
	}
}

// TestClientCrashHistory checks that a process failure carries what the
// process was sent since it started, the failed request last, and that a
// restarted process starts a history of its own.
func TestClientCrashHistory(t *testing.T) {
	c := newHelper(t, "serve", ClientOptions{Timeout: 20 * time.Second})
	checkGather(t, c, "first")
	checkGather(t, c, "second")
	_, err := c.Run(gatherCall(trigCrash, 1, 2))
	pe := processError(t, err, KindCrash)
	if len(pe.History) != 3 || pe.HistoryDropped != 0 {
		t.Fatalf("history of %d requests (%d dropped), want 3 (0)", len(pe.History), pe.HistoryDropped)
	}
	for i, line := range pe.History {
		req, err := DecodeRequest(line)
		if err != nil || req.ID != int64(i+1) || req.Op != "gather" { // ids 1, 2, then the crash's 3
			t.Errorf("history line %d: id %d op %q (%v), want id %d gather", i, req.ID, req.Op, err, i+1)
		}
	}
	if pe.ID != 3 {
		t.Errorf("the failed request has id %d, want 3, the last of the history", pe.ID)
	}
	checkGather(t, c, "after the crash")
	_, err = c.Run(gatherCall(trigCrash, 1, 2))
	if pe := processError(t, err, KindCrash); len(pe.History) != 2 {
		t.Errorf("the restarted process's history holds %d requests, want 2 (its own)", len(pe.History))
	}
}

// TestHistoryBounds checks the bounds of ProcessError.History: the newest
// request is always kept, at most HistoryMaxRequests, and past the newest
// at most HistoryMaxBytes bytes; the rest are counted as dropped.
func TestHistoryBounds(t *testing.T) {
	var h history
	for range HistoryMaxRequests + 5 {
		h.add([]byte("x"))
	}
	if len(h.lines) != HistoryMaxRequests || h.dropped != 5 {
		t.Errorf("%d lines, %d dropped; want %d, 5", len(h.lines), h.dropped, HistoryMaxRequests)
	}
	h = history{}
	big := make([]byte, HistoryMaxBytes/3+1)
	for range 4 {
		h.add(big)
	}
	if len(h.lines) != 3 || h.dropped != 1 || h.bytes != 3*len(big) {
		t.Errorf("%d lines (%d bytes), %d dropped; want 3 (%d), 1", len(h.lines), h.bytes, h.dropped, 3*len(big))
	}
	// a line past the bound is kept, with HistoryMaxBytes of the others,
	// while it is in flight
	h.add(make([]byte, 2*HistoryMaxBytes))
	if len(h.lines) != 3 || h.dropped != 2 || len(h.lines[2]) != 2*HistoryMaxBytes {
		t.Errorf("a line past the bound: %d lines, %d dropped; want 3 (2 others and itself), 2", len(h.lines), h.dropped)
	}
	h.answered()
	if len(h.lines) != 2 || h.dropped != 3 || h.bytes != 2*len(big) {
		t.Errorf("the line past the bound, answered: %d lines (%d bytes), %d dropped; want 2 (%d), 3", len(h.lines), h.bytes, h.dropped, 2*len(big))
	}
	h.answered() // a line within the bound stays
	if len(h.lines) != 2 {
		t.Errorf("an answered line within the bound was forgotten: %d lines", len(h.lines))
	}
}

func TestClientGarbage(t *testing.T) {
	c := newHelper(t, "serve", ClientOptions{Timeout: 20 * time.Second})
	_, err := c.Run(gatherCall(trigGarbage, 1, 2))
	pe := processError(t, err, KindGarbage)
	if !strings.Contains(pe.Detail, "this is not an answer") {
		t.Errorf("detail lacks the garbage: %q", pe.Detail)
	}
	checkGather(t, c, "after the garbage")
	if n := c.Restarts(); n != 1 {
		t.Fatalf("%d restarts, want 1", n)
	}
}

func TestClientWriteTimeout(t *testing.T) {
	c := newHelper(t, "stall", ClientOptions{Timeout: 500 * time.Millisecond})
	// 4 MiB of request: more than a pipe holds, so the write blocks.
	big := gatherCall(make([]float64, 1<<19)...)
	_, err := c.Run(big)
	pe := processError(t, err, KindTimeout)
	if !strings.Contains(pe.Detail, "not read") {
		t.Errorf("detail %q", pe.Detail)
	}
}

func TestClientAnswerTooLong(t *testing.T) {
	c := newHelper(t, "serve", ClientOptions{Timeout: 20 * time.Second, Limits: Limits{MaxLineBytes: 200}})
	_, err := c.Run(scatter.Gather{Input: scatter.FromSlice([]float64{1}), Index: scatter.FromSlice(make([]int64, 100))})
	processError(t, err, KindGarbage)
	checkGather(t, c, "after the long line")
}

func TestClientStartFailures(t *testing.T) {
	for _, tc := range []struct {
		mode, detail string
	}{
		{"exit", "closed its standard output"},
		{"silent", "timeout"},
		{"protocol2", "protocol 2"},
	} {
		t0 := time.Now()
		_, err := NewClient(helperCommand(), ClientOptions{StartTimeout: 500 * time.Millisecond, Env: []string{helperEnv + "=" + tc.mode}})
		pe := processError(t, err, KindStart)
		if !strings.Contains(pe.Detail, tc.detail) {
			t.Errorf("%s: detail %q lacks %q", tc.mode, pe.Detail, tc.detail)
		}
		if tc.mode == "exit" && !strings.Contains(pe.Stderr, "refusing to start") {
			t.Errorf("%s: stderr %q", tc.mode, pe.Stderr)
		}
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("%s: took %v", tc.mode, d)
		}
	}
	_, err := NewClient("/nonexistent/implementation", ClientOptions{StartTimeout: 5 * time.Second})
	processError(t, err, KindStart)
}

func TestServe(t *testing.T) {
	call, _ := EncodeCall(5, gatherCall(1, 2, 3))
	oob, _ := EncodeCall(6, scatter.Gather{Input: scatter.FromSlice([]float64{1}), Index: scatter.FromSlice([]int64{5})})
	bench, _ := EncodeBench(8, gatherCall(1, 2, 3), 3)
	in := strings.Join([]string{
		`{"id":0,"op":"hello","protocol":1}`,
		"",
		string(call),
		string(oob),
		`{"id":7,"op":"scatter_mean"}`,
		`{"id":9,"op":"gather","dim":0}`,
		`{"id":10,"op":`,
		string(bench),
		`{"id":11,"op":"bench","repeat":2}`,
		`{"id":12,"op":"bench","repeat":2,"call":{"op":"hello"}}`,
		`{"id":13,"op":"bench","repeat":2000000,"call":{"op":"gather"}}`,
		`{"id":14,"op":"hello"}` + "\r",
		`{"id":15,"op":"gather","input":{"dtype":"float64","shape":[1],"data":"AAAAAAAA8D8="},"dim":0,"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}}`, // last line without a newline
	}, "\n")
	var out bytes.Buffer
	var log bytes.Buffer
	if err := (&Server{Backend: helperBackend{}, Log: &log}).Serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	type check func(Answer) bool
	want := []struct {
		id int64
		ok check
	}{
		{0, func(a Answer) bool { return a.Kind == AnswerHello && a.Name == "helper" && a.Protocol == 1 }},
		{5, func(a Answer) bool {
			v, _ := scatter.Values[float64](a.Result.Out)
			return reflect.DeepEqual(v, []float64{3, 1, 3})
		}},
		{6, func(a Answer) bool { return a.Err != nil && a.Err.Code == scatter.ErrIndexOutOfRange }},
		{7, func(a Answer) bool { return a.Kind == AnswerUnsupported }},
		{9, func(a Answer) bool { return a.Err != nil && a.Err.Code == scatter.ErrInvalidArgument }},
		{10, func(a Answer) bool { return a.Err != nil && a.Err.Code == scatter.ErrInvalidArgument }},
		{8, func(a Answer) bool { return a.Kind == AnswerBench && len(a.Seconds) == 3 }},
		{11, func(a Answer) bool { return a.Err != nil && a.Err.Code == scatter.ErrInvalidArgument }},
		{12, func(a Answer) bool { return a.Err != nil && a.Err.Code == scatter.ErrInvalidArgument }},
		{13, func(a Answer) bool { return a.Err != nil && a.Err.Code == scatter.ErrInvalidArgument }},
		{14, func(a Answer) bool { return a.Kind == AnswerHello }},
		{15, func(a Answer) bool {
			v, _ := scatter.Values[float64](a.Result.Out)
			return reflect.DeepEqual(v, []float64{1})
		}},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d answers, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		a, err := DecodeAnswer([]byte(lines[i]))
		if err != nil || a.ID != w.id || !w.ok(a) {
			t.Errorf("answer %d: %s (%v)", i, lines[i], err)
		}
	}
	// A line over the limit is answered, with its id, and skipped.
	out.Reset()
	long := `{"id":1,"op":"gather","pad":"` + strings.Repeat("x", 300) + `"}` + "\n" + `{"id":2,"op":"hello"}` + "\n"
	if err := (&Server{Backend: helperBackend{}, Limits: Limits{MaxLineBytes: 100}}).Serve(strings.NewReader(long), &out); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `{"id":1,"error":{"kind":"invalid_argument"`) || !strings.Contains(lines[1], `"id":2,"protocol":1`) {
		t.Fatalf("long line: %q", lines)
	}
}

// TestClientCallViews: Run sends a call's views as views only to an
// implementation that claims the strides extension, and only for the
// calls ClientOptions.CallViews passes; else contiguous, as PROTOCOL.md
// has operation requests.
func TestClientCallViews(t *testing.T) {
	view := scatter.Gather{Input: scatter.Tensor{Shape: []int{3}, Strides: []int{0}, Data: []float64{5}}, Dim: 0,
		Index: scatter.FromSlice([]int64{2, 0, 2})}
	yes := func(scatter.Call) bool { return true }
	no := func(scatter.Call) bool { return false }
	for _, c := range []struct {
		name, mode string
		views      func(scatter.Call) bool
		want       string
	}{
		{"claimed, passed", "views", yes, "with strides"},
		{"claimed, not passed", "views", no, "contiguous"},
		{"claimed, no CallViews", "views", nil, "contiguous"},
		{"not claimed", "views-unclaimed", yes, "contiguous"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newHelper(t, c.mode, ClientOptions{CallViews: c.views})
			_, err := cl.Run(view)
			if scatter.CodeOf(err) != scatter.ErrNotSupported || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want the call sent %s", err, c.want)
			}
			sent := c.want == "with strides"
			if got := cl.SendsViews(view); got != sent {
				t.Errorf("SendsViews = %v, want %v", got, sent)
			}
			// a contiguous call carries no view, whatever CallViews says
			flat := scatter.Gather{Input: scatter.FromSlice([]float64{5, 5, 5}), Dim: 0, Index: view.Index}
			_, _ = cl.Run(flat)
			if got, want := cl.ViewCalls(), map[bool]int{true: 1}[sent]; got != want {
				t.Errorf("ViewCalls = %d, want %d", got, want)
			}
		})
	}
}
