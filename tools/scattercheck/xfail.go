package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/scatterconf/scatter/properties"
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
//
// An entry may pin the failure it expects: "PATTERN like=MUTANT[,MUTANT...]
// [# reason]" names mutants of package properties' zoo (likely.go). Such
// an entry excuses a failure it matches only when the failure's likely bug
// is one of them (its Mutant, or one of its Also): a random case or a
// property runs many calls, and a glob covers many cases, so without a pin
// a new, different bug in a listed case would pass unseen. A pinned
// failure that looks like another mutant, like none, or that cannot be
// classified (no call or outcome kept, an output past maxLikelyElements)
// stays a failure, with a warning that says why.
//
// A pinned entry may add "sometimes": "PATTERN like=MUTANT[,...]
// sometimes [# reason]". Its cases may pass too, and a pass stays a pass
// (not XPASS): a known bug that only some draws show, in random cases and
// properties, whose failures come and go with -seed and -checks. The pin
// still decides which failures it excuses, so a new bug there fails.

type xfailEntry struct {
	pattern string
	// like are the mutants the entry pins (like=); nil excuses any
	// excusable failure.
	like []string
	// sometimes: the cases may pass as well (a known bug that only some
	// draws show); a pass stays a pass, not XPASS. Only with like=.
	sometimes bool
	reason    string
	line      int
	re        *regexp.Regexp
	matched   bool
}

type xfailList struct {
	path    string
	entries []*xfailEntry
	digest  string // the file's SHA-256 (hex), from loadXfail
}

func loadXfail(path string) (*xfailList, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-xfail: %w", err)
	}
	l, err := parseXfail(path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	l.digest = hex.EncodeToString(sum[:])
	return l, nil
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
		fields := strings.Fields(pat)
		if strings.HasPrefix(fields[0], "like=") {
			return nil, fmt.Errorf("%s:%d: %q: like= follows the case id or glob it pins", path, n, pat)
		}
		var like []string
		sometimes := false
		for _, f := range fields[1:] {
			switch {
			case f == "sometimes":
				sometimes = true
			case strings.HasPrefix(f, "like=") && like == nil:
				var err error
				if like, err = parseLike(strings.TrimPrefix(f, "like=")); err != nil {
					return nil, fmt.Errorf("%s:%d: %v", path, n, err)
				}
			default:
				return nil, fmt.Errorf("%s:%d: %q: one case id or glob a line, optionally followed by like=MUTANT[,MUTANT...] and sometimes (a reason goes after #)", path, n, pat)
			}
		}
		if sometimes && like == nil {
			return nil, fmt.Errorf("%s:%d: %q: sometimes needs like=MUTANT: an entry that may pass and pins nothing would excuse any failure and never say so", path, n, pat)
		}
		pat = fields[0]
		re, err := globRegexp(pat)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		l.entries = append(l.entries, &xfailEntry{pattern: pat, like: like, sometimes: sometimes, reason: strings.TrimSpace(reason), line: n, re: re})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// pinnableMutants are the names a like= list may hold: the zoo's mutants
// that classification can name (not the unclassifying ones).
func pinnableMutants() []string {
	var names []string
	for _, m := range properties.Mutants() {
		if !slices.Contains(unclassifying, m.Name) && !slices.Contains(names, m.Name) {
			names = append(names, m.Name)
		}
	}
	return names
}

// parseLike parses the list of a like= field: mutant names, comma
// separated, each one the zoo can name.
func parseLike(list string) ([]string, error) {
	if list == "" {
		return nil, fmt.Errorf("like= names no mutant (known: %s)", strings.Join(pinnableMutants(), ", "))
	}
	known := pinnableMutants()
	var like []string
	for _, name := range strings.Split(list, ",") {
		if !slices.Contains(known, name) {
			if name == "" {
				return nil, fmt.Errorf("like=%s: an empty mutant name (known: %s)", list, strings.Join(known, ", "))
			}
			return nil, fmt.Errorf("like=%s: no mutant %q in the zoo (known: %s)", list, name, strings.Join(known, ", "))
		}
		if !slices.Contains(like, name) {
			like = append(like, name)
		}
	}
	return like, nil
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
	return l.matchFrom(0, id)
}

// matchAfter returns the first entry after prev matching id, or nil.
func (l *xfailList) matchAfter(prev *xfailEntry, id string) *xfailEntry {
	return l.matchFrom(slices.Index(l.entries, prev)+1, id)
}

// matchFrom returns the first entry from the i-th on matching id, or nil,
// and marks it matched.
func (l *xfailList) matchFrom(i int, id string) *xfailEntry {
	for _, e := range l.entries[i:] {
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

// pinned renders the entry for a warning: its pattern and its pins.
func (e *xfailEntry) pinned() string {
	return fmt.Sprintf("%q (like=%s)", e.pattern, strings.Join(e.like, ","))
}

// pinMismatch returns "" when a failure shows one of the bugs pinned by
// like (its likely bug names one of them, as Mutant or in Also), else why
// not. It classifies the failure when that has not been done (whatever
// maxClassified allows the unpinned ones).
func pinMismatch(like []string, f *failure) string {
	if f == nil {
		return "but it holds no failure to compare, so the pin cannot be checked"
	}
	f.classify()
	if lb := f.Likely; lb != nil {
		if slices.Contains(like, lb.Mutant) || slices.ContainsFunc(lb.Also, func(m string) bool { return slices.Contains(like, m) }) {
			return ""
		}
		names := lb.Mutant
		if len(lb.Also) > 0 {
			names += " (or " + strings.Join(lb.Also, ", ") + ")"
		}
		return "but its failure looks like " + names
	}
	if why := f.unclassified(); why != "" {
		return "but its failure cannot be classified (" + why + "), so the pin cannot be checked"
	}
	return "but its failure looks like no mutant of the zoo"
}

// applyXfail turns the failures the list expects into XFAIL and the passes
// it expects to fail into XPASS; the first entry matching a case decides,
// but for a failure that a pinned entry (like=) matches and whose likely
// bug is none of its pins, where the next entry matching the case is
// tried. A failure that no entry can excuse (the implementation did not
// start or crashed, the gate gave up on it) stays a failure, and so does
// one that no pinned entry fits and no unpinned entry matches; the
// warnings returned name each entry that matched one.
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
			// a pinned entry that does not fit the failure leaves it to the
			// next entry matching the case (a case may fail for one of
			// several known reasons)
			var pinWs []string
			for e != nil && len(e.like) > 0 {
				why := pinMismatch(e.like, cr.Failure)
				if why == "" {
					break
				}
				pinWs = append(pinWs, fmt.Sprintf("%s:%d: xfail entry %s matches %s, %s; the failure stands",
					l.path, e.line, e.pinned(), cr.ID, why))
				e = l.matchAfter(e, cr.ID)
			}
			if e == nil {
				ws = append(ws, pinWs...)
				continue
			}
			cr.Status, cr.Reason, cr.XfailLike, cr.xfail = stXfail, e.reason, e.like, e
		case stPass:
			if !e.sometimes {
				cr.Status, cr.Reason, cr.XfailLike, cr.xfail = stXpass, e.reason, e.like, e
			}
		}
	}
	return ws
}

// recheckPins applies the rule of pinned entries to cases read back from
// -json reports (scattercheck merge): an XFAIL case that its entry pinned
// (xfail_like) stays XFAIL only when the likely bug recorded with its
// failure is one of the pins; otherwise it is a failure again, with a
// warning.
func (r *runReport) recheckPins() []string {
	var ws []string
	for _, cr := range r.Cases {
		if cr.Status != stXfail || len(cr.XfailLike) == 0 {
			continue
		}
		if why := pinMismatch(cr.XfailLike, cr.Failure); why != "" {
			cr.Status = stFail
			ws = append(ws, fmt.Sprintf("%s: expected failure pinned like=%s, %s; the failure stands",
				cr.ID, strings.Join(cr.XfailLike, ","), why))
		}
	}
	return ws
}

// maxPinHints bounds the failures that unpinnedExcuses classifies for
// each entry.
const maxPinHints = 20

// unpinnedExcuses returns a warning for every unpinned entry that excused
// failures of random cases or properties (after applyXfail): each runs
// many calls, so an unpinned entry there would let a new bug pass unseen.
// The warning names what the failures look like, the first maxPinHints
// of them classified, and the like= that would pin them. An entry whose
// reason says "(unpinned: ...)" is left unpinned on purpose and is not
// warned about.
func unpinnedExcuses(l *xfailList, runs []*runReport) []string {
	if l == nil {
		return nil
	}
	type excuses struct {
		n      int
		counts map[string]int
		order  []string
	}
	by := map[*xfailEntry]*excuses{}
	for _, r := range runs {
		for _, cr := range r.Cases {
			e := cr.xfail
			if cr.Status != stXfail || e == nil || len(e.like) > 0 || !drawn(cr.ID) {
				continue
			}
			if strings.Contains(e.reason, "(unpinned:") {
				continue
			}
			x := by[e]
			if x == nil {
				x = &excuses{counts: map[string]int{}}
				by[e] = x
			}
			x.n++
			if x.n > maxPinHints || cr.Failure == nil {
				continue
			}
			cr.Failure.classify()
			name := "no mutant of the zoo"
			if lb := cr.Failure.Likely; lb != nil {
				name = lb.Mutant
			}
			if x.counts[name] == 0 {
				x.order = append(x.order, name)
			}
			x.counts[name]++
		}
	}
	var ws []string
	for _, e := range l.entries {
		x := by[e]
		if x == nil {
			continue
		}
		var looks, pins []string
		for _, name := range x.order {
			looks = append(looks, fmt.Sprintf("%s (%d)", name, x.counts[name]))
			if name != "no mutant of the zoo" {
				pins = append(pins, name)
			}
		}
		failures := "failures"
		if x.n == 1 {
			failures = "failure"
		}
		w := fmt.Sprintf("%s:%d: xfail entry %q is not pinned: it excused %d %s of random cases and properties, which run many calls, so a new bug among them would pass unseen",
			l.path, e.line, e.pattern, x.n, failures)
		if len(looks) > 0 {
			w += "; they look like " + strings.Join(looks, ", ")
		}
		if len(pins) > 0 {
			w += "; pin them with like=" + strings.Join(pins, ",")
		}
		ws = append(ws, w+" (or say \"(unpinned: why)\" in its reason)")
	}
	return ws
}
