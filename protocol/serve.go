package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/scatterconf/scatter"
)

// DefaultMaxRepeat bounds a bench request's repeat count.
const DefaultMaxRepeat = 1_000_000

// Server answers protocol requests with a Go backend.
type Server struct {
	Backend scatter.Backend
	Limits  Limits
	// Log receives backend panics with their stacks and lines that could
	// not be read; nil discards them.
	Log io.Writer
	// MaxRepeat bounds bench's repeat (0: DefaultMaxRepeat).
	MaxRepeat int
}

// Serve answers the protocol requests on r with backend b on w, logging
// to standard error, until r ends (nil) or reading or writing fails (that
// error). See Server.Serve.
func Serve(r io.Reader, w io.Writer, b scatter.Backend) error {
	return (&Server{Backend: b, Log: os.Stderr}).Serve(r, w)
}

// Serve answers every request line on r with one answer line on w, in
// order, flushing after each:
//
//   - hello: the backend's Info (protocol 1), claiming the strides
//     extension: a strided tensor is decoded as a view over its storage,
//     which every scatter.Backend takes;
//   - an operation: the backend's Result or error (ErrNotSupported as
//     "unsupported");
//   - bench: the call decoded once and run repeat times, with the wall
//     time of each run in seconds;
//   - any other op: "unsupported".
//
// A malformed request is answered with an invalid_argument error; a
// backend panic is answered with an invalid_argument error whose message
// starts with "panic:", and logged with its stack. Blank lines are
// skipped. Serve returns nil when r ends.
func (s *Server) Serve(r io.Reader, w io.Writer) error {
	return ServeLines(r, w, s.Limits.maxLine(), s.answer, func(err *LineTooLongError) []byte {
		s.logf("protocol: %v", err)
		return err.Answer()
	})
}

// collectAfter is the line length past which ServeLines collects the
// garbage of reading a line before answering it.
const collectAfter = 64 << 20

// ServeLines is the loop of a protocol server: it reads request lines of
// at most max bytes from r and writes answer(line) and a newline for each
// on w, in order, flushing after each, until r ends (nil) or reading or
// writing fails (that error). Blank lines are skipped. A line longer than
// max is answered with tooLong(err), or where tooLong is nil with
// err.Answer(): an invalid_argument error with the id the line starts
// with. After reading a line of more than 64 MiB it runs the garbage
// collector before answering, so that the answer's allocations (the
// line's tensors) reuse the memory of reading it instead of adding to it.
func ServeLines(r io.Reader, w io.Writer, max int, answer func(line []byte) []byte, tooLong func(err *LineTooLongError) []byte) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		line, err := ReadLine(br, max)
		if err == io.EOF {
			return bw.Flush()
		}
		var ans []byte
		var long *LineTooLongError
		switch {
		case errors.As(err, &long):
			if tooLong == nil {
				ans = long.Answer()
			} else {
				ans = tooLong(long)
			}
		case err != nil:
			return err
		case len(bytes.TrimSpace(line)) == 0:
			continue
		default:
			if len(line) > collectAfter {
				// reading it left as much garbage as the line: collect
				// it now, for the answer's allocations to reuse
				runtime.GC()
			}
			ans = answer(line)
		}
		bw.Write(ans)
		bw.WriteByte('\n')
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// answer returns the answer line for one request line.
func (s *Server) answer(line []byte) []byte {
	req, err := s.Limits.DecodeRequest(line)
	if err != nil {
		return EncodeError(req.ID, err)
	}
	switch {
	case req.Op == OpHello:
		return EncodeHelloAnswerExt(req.ID, s.info(), Extensions{Strides: true})
	case req.Op == OpBench:
		return s.bench(&req)
	case !req.IsCall():
		return EncodeUnsupported(req.ID, fmt.Sprintf("op %q is not offered", clip(req.Op)))
	}
	c, err := s.Limits.ToCall(&req)
	if err != nil {
		return EncodeError(req.ID, err)
	}
	res, err := s.run(c)
	if err != nil {
		return EncodeError(req.ID, err)
	}
	ans, err := EncodeResult(req.ID, res)
	if err != nil {
		return EncodeError(req.ID, scatter.Errorf(scatter.ErrInvalidArgument, "backend returned an invalid result: %s", msgOf(err)))
	}
	return ans
}

func (s *Server) info() (info scatter.Info) {
	defer func() {
		if p := recover(); p != nil {
			s.logf("protocol: backend Info panicked: %v\n%s", p, debug.Stack())
			info = scatter.Info{Name: "panicked"}
		}
	}()
	return s.Backend.Info()
}

func (s *Server) bench(req *Request) []byte {
	maxRepeat := s.MaxRepeat
	if maxRepeat <= 0 {
		maxRepeat = DefaultMaxRepeat
	}
	switch {
	case req.Repeat == nil:
		return EncodeError(req.ID, scatter.Errorf(scatter.ErrInvalidArgument, "bench: missing repeat"))
	case *req.Repeat < 1 || *req.Repeat > maxRepeat:
		return EncodeError(req.ID, scatter.Errorf(scatter.ErrInvalidArgument, "bench: repeat %d outside [1, %d]", *req.Repeat, maxRepeat))
	case req.Call == nil:
		return EncodeError(req.ID, scatter.Errorf(scatter.ErrInvalidArgument, "bench: missing call"))
	case !req.Call.IsCall():
		return EncodeError(req.ID, scatter.Errorf(scatter.ErrInvalidArgument, "bench: op %q is not an operation", clip(req.Call.Op)))
	}
	c, err := s.Limits.ToCall(req.Call)
	if err != nil {
		return EncodeError(req.ID, err)
	}
	secs := make([]float64, *req.Repeat)
	for i := range secs {
		t0 := time.Now()
		_, err := s.run(c)
		secs[i] = time.Since(t0).Seconds()
		if err != nil {
			return EncodeError(req.ID, err)
		}
	}
	ans, err := EncodeBenchAnswer(req.ID, secs)
	if err != nil {
		return EncodeError(req.ID, err)
	}
	return ans
}

// run calls the backend, turning a panic into an error.
func (s *Server) run(c scatter.Call) (res scatter.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logf("protocol: backend panicked on %s: %v\n%s", c.Op(), p, debug.Stack())
			res, err = scatter.Result{}, scatter.Errorf(scatter.ErrInvalidArgument, "panic: %v", p)
		}
	}()
	return s.Backend.Run(c)
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format+"\n", args...)
	}
}
