package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Expected failures (-xfail FILE): one case id or glob a line, optionally
// followed by "# reason"; blank lines and lines starting with # are
// comments. In a glob, * matches any run of characters (slashes too), ?
// one character, and [...] a class, so "random/*/float16" or
// "spec/scatter_reduce/mean/*" select whole groups.
//
// A failing case that an entry matches is XFAIL and does not fail the run;
// a passing one is XPASS, reported as a warning, and fails the run only
// with -strict-xfail (pytest's xfail_strict): a fixed bug should leave the
// list, but a gate should not break because an implementation improved.
// Entries that match no case at all are warned about (a typo, or a case
// that no longer exists).

type xfailEntry struct {
	pattern string
	reason  string
	line    int
	re      *regexp.Regexp
	matched bool
}

type xfailList struct {
	path    string
	entries []*xfailEntry
}

func loadXfail(path string) (*xfailList, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-xfail: %w", err)
	}
	defer f.Close()
	return parseXfail(path, f)
}

func parseXfail(path string, f interface{ Read([]byte) (int, error) }) (*xfailList, error) {
	l := &xfailList{path: path}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pat, reason, _ := strings.Cut(line, "#")
		pat = strings.TrimSpace(pat)
		if strings.ContainsAny(pat, " \t") {
			return nil, fmt.Errorf("%s:%d: %q: one case id or glob a line (a reason goes after #)", path, n, pat)
		}
		re, err := globRegexp(pat)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		l.entries = append(l.entries, &xfailEntry{pattern: pat, reason: strings.TrimSpace(reason), line: n, re: re})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// globRegexp compiles a glob: * any run, ? one character, [...] a class.
func globRegexp(pat string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(pat[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("%q: unclosed [", pat)
			}
			class := pat[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("%q: %v", pat, err)
	}
	return re, nil
}

// match returns the first entry matching id, or nil.
func (l *xfailList) match(id string) *xfailEntry {
	if l == nil {
		return nil
	}
	for _, e := range l.entries {
		if e.re.MatchString(id) {
			e.matched = true
			return e
		}
	}
	return nil
}

// unmatched returns a warning for every entry that matched no case.
func (l *xfailList) unmatched() []string {
	if l == nil {
		return nil
	}
	var ws []string
	for _, e := range l.entries {
		if !e.matched {
			ws = append(ws, fmt.Sprintf("%s:%d: xfail entry %q matches no case", l.path, e.line, e.pattern))
		}
	}
	return ws
}

// applyXfail turns the failures the list expects into XFAIL and the passes
// it expects to fail into XPASS. A failure that no entry can excuse (the
// implementation did not start or crashed, the gate gave up on it) stays a
// failure; the warnings returned name each entry that matched one.
func (r *runReport) applyXfail(l *xfailList) []string {
	if l == nil {
		return nil
	}
	var ws []string
	for _, cr := range r.Cases {
		e := l.match(cr.ID)
		if e == nil {
			continue
		}
		switch cr.Status {
		case stFail, stUnsup:
			if cr.Failure != nil && !excusable(cr.Failure.Kind) {
				ws = append(ws, fmt.Sprintf("%s:%d: xfail entry %q matches %s, a %s failure, which an expected failure cannot excuse",
					l.path, e.line, e.pattern, cr.ID, cr.Failure.Kind))
				continue
			}
			cr.Status, cr.Reason = stXfail, e.reason
		case stPass:
			cr.Status, cr.Reason = stXpass, e.reason
		}
	}
	return ws
}
