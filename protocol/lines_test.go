package protocol

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReadLine_Max20_Buffer16 reads lines shorter than, as long as and
// longer than the limit through a buffer smaller than them, so that each
// arrives in pieces: every line comes back whole, a line over the limit is
// consumed to its end and reported with its head, and the next line is
// read as if nothing happened.
func TestReadLine_Max20_Buffer16(t *testing.T) {
	long := `{"id":42,"op":"gather","data":"` + strings.Repeat("A", 100) + `"}`
	in := "abc\n" + long + "\n\n" + strings.Repeat("x", 20) + "\n" + strings.Repeat("y", 21) + "\n" + "tail"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	want := []struct {
		line    string
		tooLong bool
	}{{"abc", false}, {long, true}, {"", false}, {strings.Repeat("x", 20), false}, {strings.Repeat("y", 21), true}, {"tail", false}}
	for i, w := range want {
		got, err := ReadLine(br, 20)
		var long *LineTooLongError
		switch {
		case w.tooLong:
			if !errors.Is(err, ErrLineTooLong) || !errors.As(err, &long) || long.Max != 20 || !strings.HasPrefix(w.line, string(long.Head)) || len(long.Head) < 20 {
				t.Fatalf("line %d: %q, %v; want a *LineTooLongError with the line's head", i, got, err)
			}
		case err != nil || got == nil || string(got) != w.line:
			t.Fatalf("line %d: %q, %v; want %q", i, got, err, w.line)
		}
	}
	if got, err := ReadLine(br, 20); err != io.EOF {
		t.Fatalf("past the end: %q, %v; want io.EOF", got, err)
	}
}

// TestLineTooLongError_Answer answers with the id the line starts with,
// or 0 where it starts otherwise.
func TestLineTooLongError_Answer(t *testing.T) {
	for head, id := range map[string]int64{`{"id":42,"op":"gath`: 42, ` { "id" : -3 , "op"`: -3, `{"op":"gather","id":4`: 0, `xxxx`: 0} {
		e := &LineTooLongError{Max: 10, Head: []byte(head)}
		a, err := DecodeAnswer(e.Answer())
		if err != nil || a.ID != id || a.Err == nil || !strings.Contains(a.Err.Msg, "limit 10") {
			t.Errorf("head %q: answer %+v (%v), want an error with id %d", head, a, err, id)
		}
	}
}
