package protocol

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/scatterconf/scatter"
)

// The kinds of ProcessError.
const (
	KindStart   = "start"   // the command did not start, or its hello failed
	KindTimeout = "timeout" // no answer within the request's timeout
	KindCrash   = "crash"   // the implementation exited or closed its output
	KindGarbage = "garbage" // the answer was not a valid answer to the request
	KindClosed  = "closed"  // the Client was closed or terminated, or its context is done
)

// ProcessError is a request that the implementation did not answer
// properly: it timed out, crashed, printed garbage or did not start. It is
// not a rejection of the call and carries no scatter.Code (CodeOf gives 0),
// so a gate counts it as the implementation's failure. The process has
// been killed; the Client restarts it before the next request.
type ProcessError struct {
	Kind    string // KindStart, KindTimeout, KindCrash, KindGarbage or KindClosed
	Command string // the implementation's command
	Op      string // the request's op
	ID      int64  // the request's id
	Detail  string // what happened, for people
	Stderr  string // the tail of the implementation's standard error then
	// History is what the process was sent since it started, after its
	// hello: the operation request lines, oldest first, the failed one
	// last (none for a failed start), so that a failure that depends on
	// the requests before it can be replayed (the hello, EncodeHello(0),
	// then these). It holds at most the last HistoryMaxRequests requests
	// and, past the failed one, HistoryMaxBytes bytes of them, and no
	// answered request longer than that; HistoryDropped counts the
	// earlier ones left out.
	History        [][]byte
	HistoryDropped int
}

// The bounds of ProcessError.History.
const (
	HistoryMaxRequests = 1000
	HistoryMaxBytes    = 16 << 20
)

// history is the request lines sent to one process, bounded as
// ProcessError.History says.
type history struct {
	lines   [][]byte
	bytes   int
	dropped int
}

// answered forgets the newest line, once answered, if it is longer than
// HistoryMaxBytes: a line that long is held only while its request is in
// flight, so that the history never keeps a huge call's line alive
// while the next one is encoded.
func (h *history) answered() {
	if n := len(h.lines); n > 0 && len(h.lines[n-1]) > HistoryMaxBytes {
		h.bytes -= len(h.lines[n-1])
		h.lines[n-1] = nil
		h.lines = h.lines[:n-1]
		h.dropped++
	}
}

// add records line, the newest, and drops the oldest past the bounds; the
// newest is always kept.
func (h *history) add(line []byte) {
	h.lines = append(h.lines, line)
	h.bytes += len(line)
	for len(h.lines) > 1 && (len(h.lines) > HistoryMaxRequests || h.bytes > HistoryMaxBytes+len(line)) {
		h.bytes -= len(h.lines[0])
		h.lines[0] = nil
		h.lines = h.lines[1:]
		h.dropped++
	}
}

func (e *ProcessError) Error() string {
	msg := fmt.Sprintf("protocol: %s: request %d (%s) to %q: %s", e.Kind, e.ID, e.Op, e.Command, e.Detail)
	if last := lastLine(e.Stderr); last != "" {
		msg += "; stderr: " + last
	}
	return msg
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\r\n\t ")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return clip(s)
}

// The defaults of ClientOptions.
const (
	DefaultTimeout      = time.Minute
	DefaultStartTimeout = 2 * time.Minute
	DefaultStderrTail   = 64 << 10
	// DefaultKillGrace is how long a process group has, after SIGTERM,
	// before SIGKILL.
	DefaultKillGrace = time.Second
	closeGrace       = 2 * time.Second
	crashGrace       = time.Second
)

// ClientOptions configure a Client. The zero value is the defaults.
type ClientOptions struct {
	// Timeout bounds each request, writing and answer (0: DefaultTimeout).
	Timeout time.Duration
	// BenchTimeout bounds each bench request (0: 10 × Timeout).
	BenchTimeout time.Duration
	// StartTimeout bounds the hello after each start (0: DefaultStartTimeout).
	StartTimeout time.Duration
	// Limits bound the answers decoded.
	Limits Limits
	// Env is added to the environment of the command.
	Env []string
	// Dir is the command's working directory ("": the current one).
	Dir string
	// Stderr, if not nil, also receives everything the implementation
	// writes to its standard error.
	Stderr io.Writer
	// KillGrace is how long the implementation's process group has to
	// exit after SIGTERM before SIGKILL (0: DefaultKillGrace).
	KillGrace time.Duration
	// Context, if not nil, ends the Client when it is done, as Terminate
	// does: a start or request in flight fails with KindClosed.
	Context context.Context
	// CallViews, if not nil, lets Run send a call's views as views (as
	// Bench does) to an implementation that claims the strides extension,
	// for the calls it reports true for; every other call goes contiguous,
	// as PROTOCOL.md has operation requests. The gate sets it only when
	// asked (-strided-calls), and leaves out the calls whose outcome
	// PyTorch 2 ties to their layout (reference.LayoutFree).
	CallViews func(scatter.Call) bool
}

func (o ClientOptions) killGrace() time.Duration {
	if o.KillGrace > 0 {
		return o.KillGrace
	}
	return DefaultKillGrace
}

func (o ClientOptions) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o ClientOptions) benchTimeout() time.Duration {
	if o.BenchTimeout > 0 {
		return o.BenchTimeout
	}
	return 10 * o.timeout()
}

func (o ClientOptions) startTimeout() time.Duration {
	if o.StartTimeout > 0 {
		return o.StartTimeout
	}
	return DefaultStartTimeout
}

// Client runs an outside implementation of the protocol as a child process
// (sh -c command) and is itself a scatter.Backend. Requests go one at a
// time; a Client is safe for concurrent use.
//
// The implementation runs in a process group of its own. Whenever the
// Client ends a process (a timeout, a crash, garbage, Close, Terminate,
// the Context done) it ends the whole group: SIGTERM, then SIGKILL after
// KillGrace, so that nothing the implementation started outlives it.
type Client struct {
	command string
	opts    ClientOptions
	stderr  *tailWriter

	// live is the running process, for Terminate (which does not wait for
	// mu); terminated is set by Terminate.
	live       atomic.Pointer[child]
	terminated atomic.Bool
	stopCtx    func() bool

	mu       sync.Mutex
	p        *child // nil: not running; started before the next request
	info     scatter.Info
	ext      Extensions
	nextID   int64
	restarts int
	closed   bool
	// viewCalls counts the operation requests sent with a tensor as a view
	viewCalls int
}

var _ scatter.Backend = (*Client)(nil)

// NewClient starts command with sh -c and does the hello handshake. It
// returns a *ProcessError of kind KindStart if the command does not start
// or does not answer the hello with protocol 1 and its ops within
// StartTimeout.
func NewClient(command string, opts ClientOptions) (*Client, error) {
	c := &Client{command: command, opts: opts, stderr: &tailWriter{max: DefaultStderrTail, tee: opts.Stderr}}
	if opts.Context != nil {
		c.stopCtx = context.AfterFunc(opts.Context, c.Terminate)
	}
	hello, err := c.start()
	if err != nil {
		if c.stopCtx != nil {
			c.stopCtx()
		}
		c.Terminate()
		return nil, err
	}
	c.info = hello.Info()
	c.ext = hello.Extensions
	return c, nil
}

// Info returns what the implementation claimed in its first hello: name,
// version, ops, dtypes, deterministic.
func (c *Client) Info() scatter.Info { return c.info }

// Extensions returns the protocol extensions the implementation claimed
// in its first hello.
func (c *Client) Extensions() Extensions { return c.ext }

// Stderr returns the tail (the last 64 KiB) of what the implementation has
// written to its standard error, over all its restarts.
func (c *Client) Stderr() string { return c.stderr.String() }

// Restarts returns how many times the implementation has been started
// again after a failure.
func (c *Client) Restarts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restarts
}

// Run sends call to the implementation (contiguous, or with its views as
// ClientOptions.CallViews allows) and returns its result, or its
// rejection as an *scatter.Error (ErrNotSupported for "unsupported"). A
// call the protocol cannot express is an *scatter.Error with code
// ErrInvalidArgument, and nothing is sent. A request that times out, a
// crash, an invalid answer and a failed restart are each a *ProcessError;
// the process is then killed, and started again before the next request.
func (c *Client) Run(call scatter.Call) (scatter.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.id()
	views := c.SendsViews(call)
	line, err := EncodeOptions{Strides: views}.EncodeCall(id, call)
	if err != nil {
		return scatter.Result{}, err
	}
	if views && carriesView(call) {
		c.viewCalls++
	}
	ans, err := c.request(line, id, string(call.Op()), c.opts.timeout(), c.opts.Limits.AnswerLimit(call))
	if err != nil {
		return scatter.Result{}, err
	}
	switch ans.Kind {
	case AnswerResult:
		return ans.Result, nil
	case AnswerError, AnswerUnsupported:
		return scatter.Result{}, ans.Err
	}
	return scatter.Result{}, c.fail(KindGarbage, id, string(call.Op()), fmt.Sprintf("a %v answer to an operation", ans.Kind))
}

// SendsViews reports whether Run sends call's views as views: the
// implementation claims the strides extension and ClientOptions.CallViews
// passes the call. A failure's request line written with
// EncodeOptions{Strides: SendsViews(call)} is then the line it was sent,
// so that replaying it reproduces what the implementation saw.
func (c *Client) SendsViews(call scatter.Call) bool {
	return c.ext.Strides && c.opts.CallViews != nil && c.opts.CallViews(call)
}

// ViewCalls returns how many operation requests Run has sent with at
// least one tensor as a view (SendsViews, and a view the strides
// extension carries: EncodeOptions), so that a caller can tell that views
// were sent at all.
func (c *Client) ViewCalls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.viewCalls
}

// carriesView reports whether EncodeOptions{Strides: true} writes one of
// call's tensors as a view.
func carriesView(call scatter.Call) bool {
	for _, t := range call.Tensors() {
		if _, ok := stridedSpan(t); ok {
			return true
		}
	}
	return false
}

// Bench asks the implementation to run call repeat times and returns the
// wall time of each run in seconds. An implementation that does not offer
// timing answers with ErrNotSupported. When the implementation claims the
// strides extension, the call's views go as views (an expanded index as
// its row ids and strides), so that it times the call on the same layout;
// otherwise they are materialised. (Run sends contiguous tensors unless
// ClientOptions.CallViews says otherwise: by default the gate's verdicts
// do not depend on the claim.) Times that are not one per run, one under
// a nanosecond (negative, or a coarse timer's zero), or that add up to
// more than the request took are a *ProcessError of kind KindGarbage.
func (c *Client) Bench(call scatter.Call, repeat int) ([]float64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.id()
	line, err := EncodeOptions{Strides: c.ext.Strides}.EncodeBench(id, call, repeat)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	ans, err := c.request(line, id, OpBench, c.opts.benchTimeout(), min(benchLimit(repeat), c.opts.Limits.maxLine()))
	took := time.Since(t0).Seconds()
	if err != nil {
		return nil, err
	}
	switch ans.Kind {
	case AnswerBench:
		if len(ans.Seconds) != repeat {
			return nil, c.fail(KindGarbage, id, OpBench, fmt.Sprintf("%d times for repeat %d", len(ans.Seconds), repeat))
		}
		total := 0.0
		for _, s := range ans.Seconds {
			if s < 0.5e-9 { // 0 ns, as the bench counts them
				return nil, c.fail(KindGarbage, id, OpBench, fmt.Sprintf("a time of %v s: not a measurement "+
					"(a negative one, or under a nanosecond: a zero from a timer too coarse for the call)", s))
			}
			total += s
		}
		// the runs are inside the request: their times cannot add up to
		// more than it took (1% and 10 ms for clocks that differ)
		if total > took*1.01+0.01 {
			return nil, c.fail(KindGarbage, id, OpBench, fmt.Sprintf("times adding up to %.3g s, in a request that took %.3g s", total, took))
		}
		return ans.Seconds, nil
	case AnswerError, AnswerUnsupported:
		return nil, ans.Err
	}
	return nil, c.fail(KindGarbage, id, OpBench, fmt.Sprintf("a %v answer to bench", ans.Kind))
}

// Close closes the implementation's standard input, waits a little for it
// to exit, and then ends its process group (SIGTERM, then SIGKILL after
// KillGrace), whatever is left of it. Later requests fail with
// KindClosed.
func (c *Client) Close() error {
	if c.stopCtx != nil {
		c.stopCtx()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.p != nil {
		c.p.stop(closeGrace, c.opts.killGrace())
		c.p = nil
		c.live.Store(nil)
	}
	return nil
}

// Terminate ends the implementation's process group now (SIGTERM, then
// SIGKILL after KillGrace) and returns once it is gone. It does not wait
// for a request in flight, which fails with KindClosed, and may be called
// from any goroutine (a signal handler, say). Later requests, and
// restarts, fail with KindClosed.
func (c *Client) Terminate() {
	c.terminated.Store(true)
	if p := c.live.Load(); p != nil {
		p.terminate(c.opts.killGrace())
	}
}

// isTerminated reports whether Terminate was called or the Context is
// done.
func (c *Client) isTerminated() bool {
	return c.terminated.Load() || c.opts.Context != nil && c.opts.Context.Err() != nil
}

func (c *Client) id() int64 {
	c.nextID++
	return c.nextID
}

// request sends one line and reads its answer, starting the process first
// if needed. Any failure is a *ProcessError, after which the process is
// gone.
func (c *Client) request(line []byte, id int64, op string, timeout time.Duration, maxLine int) (Answer, error) {
	if c.closed || c.isTerminated() {
		return Answer{}, &ProcessError{Kind: KindClosed, Command: c.command, Op: op, ID: id, Detail: "the client is closed"}
	}
	if c.p == nil {
		c.restarts++
		c.stderr.note(fmt.Sprintf("restarting %q (restart %d)", c.command, c.restarts))
		if _, err := c.start(); err != nil {
			err.(*ProcessError).Op, err.(*ProcessError).ID = op, id
			return Answer{}, err
		}
	}
	ans, perr := c.roundTrip(line, id, op, timeout, maxLine)
	if perr != nil {
		return Answer{}, perr
	}
	return ans, nil
}

// start starts the command and does the hello. On failure the process is
// gone and the error is a *ProcessError of kind KindStart.
func (c *Client) start() (Answer, error) {
	startErr := func(detail string) error {
		return &ProcessError{Kind: KindStart, Command: c.command, Op: OpHello, Detail: detail, Stderr: c.stderr.String()}
	}
	p, err := startChild(c.command, c.opts, c.stderr)
	if err != nil {
		return Answer{}, startErr(err.Error())
	}
	c.p = p
	c.live.Store(p)
	if c.isTerminated() { // Terminate may have missed p
		c.kill()
		return Answer{}, &ProcessError{Kind: KindClosed, Command: c.command, Op: OpHello, Detail: "the client is closed", Stderr: c.stderr.String()}
	}
	const id = 0 // the first request to a process is always {"id":0,"op":"hello","protocol":1}
	ans, err := c.roundTrip(EncodeHello(id), id, OpHello, c.opts.startTimeout(), min(helloMaxLine, c.opts.Limits.maxLine()))
	if err != nil {
		pe := err.(*ProcessError)
		if pe.Kind != KindClosed {
			pe.Kind, pe.Detail = KindStart, "hello: "+pe.Kind+": "+pe.Detail
		}
		return Answer{}, pe
	}
	var detail string
	switch {
	case ans.Kind == AnswerError || ans.Kind == AnswerUnsupported:
		detail = "hello rejected: " + ans.Err.Error()
	case ans.Kind != AnswerHello:
		detail = fmt.Sprintf("a %v answer to hello", ans.Kind)
	case ans.Protocol != Version:
		detail = fmt.Sprintf("the implementation speaks protocol %d, not %d", ans.Protocol, Version)
	}
	if detail != "" {
		c.kill()
		return Answer{}, startErr(detail)
	}
	return ans, nil
}

// roundTrip writes line and reads the answer with id within timeout, and
// no more than maxLine bytes of it. On any failure it ends the process
// and returns a *ProcessError.
func (c *Client) roundTrip(line []byte, id int64, op string, timeout time.Duration, maxLine int) (Answer, error) {
	p := c.p
	if op != OpHello && op != OpBench {
		p.sent.add(line)
	}
	deadline := time.Now().Add(timeout)
	p.stdin.SetWriteDeadline(deadline)
	p.stdout.SetReadDeadline(deadline)
	var err error
	if len(line) < 1<<20 {
		msg := make([]byte, 0, len(line)+1)
		_, err = p.stdin.Write(append(append(msg, line...), '\n'))
	} else if _, err = p.stdin.Write(line); err == nil { // a bench's call: not copied again
		_, err = p.stdin.Write([]byte{'\n'})
	}
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return Answer{}, c.fail(KindTimeout, id, op, fmt.Sprintf("the request was not read within %v", timeout))
		}
		return Answer{}, c.fail(KindCrash, id, op, c.writeFailure(err, deadline))
	}
	got, err := readAnswer(p.br, maxLine)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return Answer{}, c.fail(KindTimeout, id, op, fmt.Sprintf("no answer within %v", timeout))
	case err == io.EOF:
		return Answer{}, c.fail(KindCrash, id, op, "the implementation closed its standard output")
	case errors.Is(err, ErrLineTooLong):
		return Answer{}, c.fail(KindGarbage, id, op, fmt.Sprintf("an answer line longer than %d bytes, the most this request can legitimately get", maxLine))
	case err != nil:
		return Answer{}, c.fail(KindCrash, id, op, "reading the answer failed: "+err.Error())
	}
	ans, err := c.opts.Limits.DecodeAnswer(got)
	if err != nil {
		return Answer{}, c.fail(KindGarbage, id, op, fmt.Sprintf("%s in the answer %s", msgOf(err), clip(string(got))))
	}
	if ans.ID != id {
		return Answer{}, c.fail(KindGarbage, id, op, fmt.Sprintf("an answer with id %d", ans.ID))
	}
	p.sent.answered()
	return ans, nil
}

// writeFailure describes a failed write of a request. A write fails with
// a broken pipe when the implementation has closed its standard input,
// most often by exiting; then its standard output has usually closed as
// well, and the failure reads as it does when the exit is seen first, on
// the read ("closed its standard output"), so that one exit is not
// reported two ways depending on which end the client touched first.
func (c *Client) writeFailure(err error, deadline time.Time) string {
	if !brokenPipe(err) {
		return "writing the request failed: " + err.Error()
	}
	if soon := time.Now().Add(crashGrace); soon.Before(deadline) {
		deadline = soon
	}
	c.p.stdout.SetReadDeadline(deadline)
	if _, rerr := c.p.br.ReadByte(); rerr == io.EOF {
		return "the implementation closed its standard output"
	}
	return "the implementation closed its standard input: writing the request failed: " + err.Error()
}

// fail kills the process and returns a *ProcessError; a crash waits a
// little for the exit status.
func (c *Client) fail(kind string, id int64, op, detail string) error {
	if c.isTerminated() {
		kind, detail = KindClosed, "the client was terminated while the request was in flight"
	}
	if c.p == nil {
		return &ProcessError{Kind: kind, Command: c.command, Op: op, ID: id, Detail: detail, Stderr: c.stderr.String()}
	}
	grace := time.Duration(0)
	if kind == KindCrash {
		grace = crashGrace
	}
	if status := c.p.stop(grace, c.opts.killGrace()); status != "" {
		detail += " (" + status + ")"
	}
	sent := c.p.sent
	c.p = nil
	c.live.Store(nil)
	// stop waited for the child's standard error to be copied.
	pe := &ProcessError{Kind: kind, Command: c.command, Op: op, ID: id, Detail: detail, Stderr: c.stderr.String(),
		History: slices.Clone(sent.lines), HistoryDropped: sent.dropped}
	c.stderr.note(fmt.Sprintf("%s on request %d (%s): %s", kind, id, op, detail))
	return pe
}

func (c *Client) kill() {
	if c.p != nil {
		c.p.stop(0, c.opts.killGrace())
		c.p = nil
		c.live.Store(nil)
	}
}

// child is one running implementation process, the leader of its own
// process group.
type child struct {
	cmd    *exec.Cmd
	mark   string   // the MarkEnv value of every process it starts
	stdin  *os.File // our end of its standard input
	stdout *os.File // our end of its standard output
	br     *bufio.Reader

	stderr *os.File // our end of its standard error, copied into the Client's tail
	guard  *guard   // its group's guard (GuardGroup)

	exited    chan struct{} // closed once cmd.Wait has returned
	waitErr   error         // cmd.Wait's error, once exited is closed
	errCopied chan struct{} // closed once its standard error is all copied
	ended     sync.Once     // the group's termination, done once

	sent history // the operation requests it was sent (not bench's)
}

func startChild(command string, opts ClientOptions, stderr io.Writer) (*child, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	// Standard error goes through a pipe of our own, copied in bounded
	// chunks, so that cmd.Wait returns when the process exits even while
	// something it started still holds the pipe.
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := groupCommand(command)
	mark := newMark()
	cmd.Env = append(append(os.Environ(), opts.Env...), MarkEnv+"="+mark) // (the last of a name wins)
	cmd.Dir = opts.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &child{cmd: cmd, mark: mark, stdin: inW, stdout: outR, stderr: errR, guard: startGuard(cmd.Process.Pid, mark), br: bufio.NewReaderSize(outR, 64<<10),
		exited: make(chan struct{}), errCopied: make(chan struct{})}
	go func() {
		io.CopyBuffer(stderr, errR, make([]byte, 32<<10))
		close(p.errCopied)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop closes the child's standard input, gives it grace to exit, then
// ends its process group (terminate) and returns how the child ended.
func (p *child) stop(grace, killGrace time.Duration) string {
	p.stdin.Close()
	if grace > 0 {
		select {
		case <-p.exited:
		case <-time.After(grace):
		}
	}
	p.terminate(killGrace)
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// terminate ends the child's whole process group, whatever is left of it,
// and every process that carries its mark outside the group (MarkEnv):
// SIGTERM, then SIGKILL once killGrace has passed with one of them still
// there. It returns once the child has been waited for; a second call
// waits for the first.
func (p *child) terminate(killGrace time.Duration) {
	p.ended.Do(func() {
		signalGroup(p.cmd, false)
		termMarked(p.mark)
		deadline := time.Now().Add(killGrace)
		for {
			select {
			case <-p.exited:
				if !groupAlive(p.cmd, p.guard.pid()) && !markedAlive(p.mark) {
					p.closePipes()
					return
				}
			default:
			}
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		signalGroup(p.cmd, true)
		killMarked(p.mark)
		<-p.exited
		p.closePipes()
	})
}

// closePipes closes our ends of the pipes once the group is gone, after
// the last of its standard error is copied (a little while at most: a
// process outside the group may hold the pipe).
func (p *child) closePipes() {
	p.stdin.Close()
	p.stdout.Close()
	select {
	case <-p.errCopied:
	case <-time.After(time.Second):
	}
	p.stderr.Close()
	p.guard.release() // the group is gone but its guard: it ends itself
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
	tee io.Writer
}

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tee != nil {
		t.tee.Write(b)
	}
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

// note adds a line of the Client's own to the tail.
func (t *tailWriter) note(s string) {
	t.mu.Lock()
	nl := len(t.buf) > 0 && t.buf[len(t.buf)-1] != '\n'
	t.mu.Unlock()
	if nl {
		s = "\n" + s
	}
	t.Write([]byte("--- protocol.Client: " + s + "\n"))
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return string(b)
}
