package protocol

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/scatterconf/scatter"
)

// ErrLineTooLong is the error for a line longer than its limit: ReadLine's
// (a *LineTooLongError, which errors.Is reports as ErrLineTooLong) and the
// Client's for an answer line.
var ErrLineTooLong = errors.New("line longer than the limit")

// LineTooLongError is ReadLine's error for a line of more than Max bytes.
// Head holds the line's first bytes (at most HeadBytes), enough to read the
// id a request starts with.
type LineTooLongError struct {
	Max  int
	Head []byte
}

// HeadBytes is how much of a line too long to read LineTooLongError keeps.
const HeadBytes = 1 << 10

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line longer than the limit %d", e.Max)
}

// ID returns the id the line starts with, or 0 (as for a malformed line).
func (e *LineTooLongError) ID() int64 { return leadingID(e.Head) }

// Answer returns a server's answer to the line: an invalid_argument error
// with the id the line starts with.
func (e *LineTooLongError) Answer() []byte {
	return EncodeError(e.ID(), scatter.Errorf(scatter.ErrInvalidArgument, "request line longer than the limit %d", e.Max))
}

// Is reports whether target is ErrLineTooLong.
func (e *LineTooLongError) Is(target error) bool { return target == ErrLineTooLong }

// ReadLine returns the next line of br without its newline: the line
// reader of Serve, for servers of the protocol written beside it. A line
// longer than max bytes is consumed to its end and a *LineTooLongError
// returned, without holding more than max bytes. A last line without a
// newline is returned as a line; io.EOF comes only when nothing is left.
// A line of n bytes costs 2n bytes at most while it is read.
func ReadLine(br *bufio.Reader, max int) ([]byte, error) {
	var line lineParts
	var tooLong *LineTooLongError
	for {
		chunk, err := br.ReadSlice('\n')
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		if tooLong == nil {
			if line.n+len(body) > max {
				tooLong = &LineTooLongError{Max: max, Head: line.head(body, HeadBytes)}
				line = lineParts{}
			} else {
				line.add(body)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && tooLong == nil && line.n == 0:
			return nil, io.EOF
		case err != nil && err != io.EOF:
			return nil, err
		case tooLong != nil:
			return nil, tooLong
		}
		return line.join(), nil
	}
}

// readAnswer returns the next line without its newline. A line longer
// than max is not read past max: ErrLineTooLong at once, so that a peer
// that never ends its line costs max bytes, not memory without bound.
func readAnswer(br *bufio.Reader, max int) ([]byte, error) {
	var line lineParts
	for {
		chunk, err := br.ReadSlice('\n')
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		if line.n+len(body) > max {
			return nil, ErrLineTooLong
		}
		line.add(body)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && line.n == 0:
			return nil, io.EOF
		case err != nil && err != io.EOF:
			return nil, err
		}
		return line.join(), nil
	}
}

// lineParts collects a line read in pieces (a bufio.Reader's buffer at a
// time): each piece is copied once and the pieces joined once, so that a
// line of n bytes costs 2n bytes at the peak, where a slice grown by
// append holds its old and new arrays at once (up to 2.25n, and more
// before the garbage collector catches up).
type lineParts struct {
	parts [][]byte
	n     int
}

func (l *lineParts) add(b []byte) {
	if len(b) > 0 {
		l.parts = append(l.parts, append([]byte(nil), b...))
		l.n += len(b)
	}
}

// join returns the line: never nil, so that an empty line is not io.EOF.
func (l *lineParts) join() []byte {
	if len(l.parts) == 1 {
		return l.parts[0]
	}
	out := make([]byte, 0, l.n)
	for i, p := range l.parts {
		out = append(out, p...)
		l.parts[i] = nil
	}
	return out
}

// head returns the first k bytes of the line so far followed by more.
func (l *lineParts) head(more []byte, k int) []byte {
	var h []byte
	for _, p := range l.parts {
		h = append(h, p[:min(len(p), k-len(h))]...)
	}
	return append(h, more[:min(len(more), k-len(h))]...)
}
