package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
)

// Text from the implementation under test is data. Its name and version,
// the messages of its errors and its standard error reach the terminal,
// the JUnit report and the JSON report only with every control character
// (and every character that reorders or hides text) escaped, and cut to a
// length: an implementation cannot clear the screen, set the terminal's
// title, or write a line that looks like the gate's own verdict.

// Caps on the implementation's text.
const (
	maxNameLen    = 120  // name, version, an operation or dtype it claims
	maxMessageLen = 1000 // an error message, a process failure's detail
	maxLineLen    = 300  // a line of its standard error
	maxStderrLine = 40   // lines of its standard error kept
)

// cleanLine escapes s into one line of printable text of at most max
// bytes (before the note of what was cut): control characters, invalid
// UTF-8 and the Unicode format characters that reorder text become \xNN
// or \u{NNNN}, newlines included.
func cleanLine(s string, max int) string {
	var b strings.Builder
	cut := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var piece string
		switch {
		case r == utf8.RuneError && size <= 1:
			piece = fmt.Sprintf(`\x%02x`, s[i])
		case r == '\n':
			piece = `\n`
		case r == '\r':
			piece = `\r`
		case r == '\t':
			piece = `\t`
		case r < 0x20 || r == 0x7f:
			piece = fmt.Sprintf(`\x%02x`, r)
		case r >= 0x80 && r < 0xa0, unsafeFormat(r):
			piece = fmt.Sprintf(`\u{%04x}`, r)
		default:
			piece = s[i : i+size]
		}
		if b.Len()+len(piece) > max {
			cut = len(s) - i
			break
		}
		b.WriteString(piece)
		i += size
	}
	if cut > 0 {
		fmt.Fprintf(&b, "... (%d bytes more)", cut)
	}
	return b.String()
}

// unsafeFormat reports whether r is a Unicode character that changes how
// text around it shows: bidirectional overrides and isolates, line and
// paragraph separators, zero-width characters and the byte order mark.
func unsafeFormat(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// cleanText escapes multi-line text: each line as cleanLine does (to
// maxLineLen), newlines kept, the last maxLines lines.
func cleanText(s string, maxLines int) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	dropped := 0
	if len(lines) > maxLines {
		dropped = len(lines) - maxLines
		lines = lines[dropped:]
	}
	for i, l := range lines {
		lines[i] = cleanLine(l, maxLineLen)
	}
	out := strings.Join(lines, "\n")
	if dropped > 0 {
		out = fmt.Sprintf("(%d lines before)\n", dropped) + out
	}
	return out
}

// cleanErr returns err with the implementation's text in it escaped: the
// message of a *scatter.Error it answered, the detail and stderr of a
// *protocol.ProcessError. Other errors are the gate's own.
func cleanErr(err error) error {
	var se *scatter.Error
	var pe *protocol.ProcessError
	switch {
	case errors.As(err, &pe):
		c := *pe
		c.Detail = cleanLine(pe.Detail, maxMessageLen)
		c.Stderr = cleanText(pe.Stderr, maxStderrLine)
		return &c
	case errors.As(err, &se):
		c := *se
		c.Msg = cleanLine(se.Msg, maxMessageLen)
		return &c
	}
	return err
}

// cleanCase escapes what a case holds of the implementation's text (its
// failure's summary, report and stderr), as a last line of defence:
// messages are escaped as they come back (guarded), but a summary or a
// report may quote them.
func cleanCase(cr *caseResult) {
	cr.Reason = cleanLine(cr.Reason, maxMessageLen)
	cr.Note = cleanLine(cr.Note, maxMessageLen)
	if f := cr.Failure; f != nil {
		f.Summary = cleanLine(f.Summary, maxMessageLen)
		f.Report = cleanReport(f.Report)
		f.Stderr = cleanText(f.Stderr, maxStderrLine)
	}
}

// cleanReport escapes a failure's report, line by line, without cutting
// it (the gate's own lines are long: a call's tensors).
func cleanReport(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = cleanLine(l, len(l)*4+16)
	}
	return strings.Join(lines, "\n")
}

// cleanInfo escapes what the implementation said of itself in its hello.
func cleanInfo(ii implInfo) implInfo {
	ii.Name = cleanLine(ii.Name, maxNameLen)
	ii.Version = cleanLine(ii.Version, maxNameLen)
	for i, s := range ii.Ops {
		ii.Ops[i] = cleanLine(s, maxNameLen)
	}
	for i, s := range ii.DTypes {
		ii.DTypes[i] = cleanLine(s, maxNameLen)
	}
	return ii
}
