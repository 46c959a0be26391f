package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
)

// TestXfailLikeParse: an entry may pin mutants of the zoo with like=,
// alone, as a list, with a glob and a reason; an unknown or empty name,
// an unclassifying mutant, an empty list, two like= fields, any other
// second word or a like= with no pattern before it is a parse error, and
// the error for an unknown name lists the names known.
func TestXfailLikeParse(t *testing.T) {
	good := []struct {
		line, pattern, reason string
		like                  []string
	}{
		{"random/scatter_add/float16", "random/scatter_add/float16", "", nil},
		{"random/scatter_add/float16 like=half-accumulates-in-dtype", "random/scatter_add/float16", "", []string{"half-accumulates-in-dtype"}},
		{"random/*/float16\tlike=half-accumulates-in-dtype,rounds-toward-zero   # per step # really",
			"random/*/float16", "per step # really", []string{"half-accumulates-in-dtype", "rounds-toward-zero"}},
		{"spec/[ab]? like=nan-dropped-amax,nan-dropped-amax#dup", "spec/[ab]?", "dup", []string{"nan-dropped-amax"}},
		{"property/* like=half-accumulates-in-dtype sometimes # draws", "property/*", "draws", []string{"half-accumulates-in-dtype"}},
		{"random/*/float16 sometimes like=half-truncated", "random/*/float16", "", []string{"half-truncated"}},
	}
	for _, g := range good {
		l, err := parseXfail("x", strings.NewReader(g.line))
		if err != nil {
			t.Errorf("%q: %v", g.line, err)
			continue
		}
		e := l.entries[0]
		if e.pattern != g.pattern || e.reason != g.reason || !slices.Equal(e.like, g.like) {
			t.Errorf("%q: pattern %q, reason %q, like %q; want %q, %q, %q", g.line, e.pattern, e.reason, e.like, g.pattern, g.reason, g.like)
		}
		if want := strings.Contains(strings.Split(g.line, "#")[0], "sometimes"); e.sometimes != want {
			t.Errorf("%q: sometimes %v, want %v", g.line, e.sometimes, want)
		}
	}
	bad := []struct{ line, want string }{
		{"random/x like=no-such-mutant", `no mutant "no-such-mutant" in the zoo (known: negative-index-wrapped, `},
		{"random/x like=half-truncated,nope # why", `no mutant "nope"`},
		{"random/x like=flaky-duplicates", `no mutant "flaky-duplicates"`}, // unclassifying: never named
		{"random/x like=", "like= names no mutant (known: "},
		{"random/x like=half-truncated,", "an empty mutant name"},
		{"random/x like=half-truncated like=half-truncated", "one case id or glob a line"},
		{"random/x half-truncated", "one case id or glob a line"},
		{"like=half-truncated # no pattern", "like= follows the case id or glob it pins"},
		{"random/x sometimes # unpinned", "sometimes needs like=MUTANT"},
		{"random/x sometimes sometimes", "sometimes needs like=MUTANT"},
		{"random/x like=half-truncated sometimes extra", "one case id or glob a line"},
		{"random/x like=half-truncated often", "one case id or glob a line"},
	}
	for _, b := range bad {
		_, err := parseXfail("x.txt", strings.NewReader("# header\n"+b.line))
		if err == nil || !strings.Contains(err.Error(), b.want) || !strings.HasPrefix(err.Error(), "x.txt:2: ") {
			t.Errorf("%q: error %v, want x.txt:2: ... %s", b.line, err, b.want)
		}
	}
	// the names known are those classification can name
	_, err := parseXfail("x", strings.NewReader("random/x like=nope"))
	for _, name := range unclassifying {
		if err == nil || strings.Contains(err.Error(), name+",") || strings.HasSuffix(err.Error(), name+")") {
			t.Errorf("the error %v lists the unclassifying mutant %s", err, name)
		}
	}
}

// pinCall is TestLikelyFor's float16 scatter_add, 1 + 3·2^-12 into [1, 5]:
// the answer 1 is half-truncated's, 1 + 2^-9 no mutant's.
func pinCall() (scatter.Call, func(float64) scatter.Result) {
	h := f16
	call := scatter.ScatterAdd{Self: h(1, 5), Dim: 0, Index: scatter.FromSlice([]int64{0}, 1), Src: h(3 * math.Ldexp(1, -12))}
	return call, func(v float64) scatter.Result { return scatter.Result{Out: h(v, 5)} }
}

// TestApplyXfailPinned: a pinned entry excuses a failure whose likely bug
// (Mutant or Also) is one of its pins, classifying it on the way, and
// leaves every other failure it matches standing with a warning that says
// what the failure looks like or why it cannot be checked; an unpinned
// entry excuses them all as before, and an unexcusable kind stays
// unexcusable.
func TestApplyXfailPinned(t *testing.T) {
	call, res := pinCall()
	mismatch := func(got float64) *failure {
		return &failure{Kind: "mismatch", call: call, res: res(got), profile: scatter.Torch2, level: scatter.Conformant}
	}
	big := make([]float32, maxLikelyElements+1)
	bigCall := scatter.ScatterAdd{Self: scatter.FromSlice(big, len(big)), Dim: 0, Index: scatter.FromSlice([]int64{0}, 1),
		Src: scatter.FromSlice([]float32{1}, 1)}
	bigOut := scatter.FromSlice(make([]float32, len(big)), len(big)) // out[0] should be 1
	cases := []struct {
		name    string
		line    string
		status  status
		f       *failure
		want    status
		warning string // "" for none
	}{
		{"pinned/match", "c like=half-truncated", stFail, mismatch(1), stXfail, ""},
		{"pinned/match-in-list", "c like=nan-dropped-amax,half-truncated", stFail, mismatch(1), stXfail, ""},
		{"pinned/match-also", "c like=half-accumulates-in-dtype", stFail,
			&failure{Kind: "mismatch", classified: true, Likely: &likelyBug{Mutant: "rounds-toward-zero", Also: []string{"half-accumulates-in-dtype"}}},
			stXfail, ""},
		{"pinned/other-mutant", "c like=half-accumulates-in-dtype", stFail, mismatch(1), stFail,
			`x.txt:1: xfail entry "c" (like=half-accumulates-in-dtype) matches c, but its failure looks like half-truncated (or rounds-toward-zero); the failure stands`},
		{"pinned/no-mutant", "c like=half-truncated", stFail, mismatch(1 + math.Ldexp(1, -9)), stFail,
			"but its failure looks like no mutant of the zoo; the failure stands"},
		{"pinned/no-call", "c like=half-truncated", stFail, &failure{Kind: "mismatch"}, stFail,
			"cannot be classified (the gate kept no call for it), so the pin cannot be checked"},
		{"pinned/no-outcome", "c like=half-truncated", stFail, &failure{Kind: "mismatch", call: call, profile: scatter.Torch2}, stFail,
			"cannot be classified (the gate kept the call but not the outcome)"},
		{"pinned/timeout", "c like=half-truncated", stFail, &failure{Kind: "timeout", call: call}, stFail,
			"cannot be classified (a timeout failure, which the zoo does not name)"},
		{"pinned/too-large", "c like=half-truncated", stFail,
			&failure{Kind: "mismatch", call: bigCall, res: scatter.Result{Out: bigOut}, profile: scatter.Torch2, level: scatter.Conformant},
			stFail, fmt.Sprintf("cannot be classified (its output has %d elements, past the %d that classification compares)", maxLikelyElements+1, maxLikelyElements)},
		{"pinned/unsupported", "c like=half-truncated", stUnsup, &failure{Kind: "unsupported", call: call}, stUnsup,
			"cannot be classified (an unsupported failure, which the zoo does not name)"},
		{"pinned/unexcusable", "c like=half-truncated", stFail, &failure{Kind: "crash"}, stFail, "which an expected failure cannot excuse"},
		{"pinned/pass", "c like=half-truncated", stPass, nil, stXpass, ""},
		{"sometimes/match", "c like=half-truncated sometimes", stFail, mismatch(1), stXfail, ""},
		{"sometimes/other-mutant", "c like=half-accumulates-in-dtype sometimes", stFail, mismatch(1), stFail,
			"but its failure looks like half-truncated (or rounds-toward-zero); the failure stands"},
		{"sometimes/pass", "c like=half-truncated sometimes", stPass, nil, stPass, ""},
		{"unpinned/other-mutant", "c", stFail, mismatch(1), stXfail, ""},
		{"unpinned/no-call", "c", stFail, &failure{Kind: "mismatch"}, stXfail, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := parseXfail("x.txt", strings.NewReader(c.line))
			if err != nil {
				t.Fatal(err)
			}
			cr := &caseResult{ID: "c", Status: c.status, Failure: c.f}
			r := &runReport{Cases: []*caseResult{cr}}
			ws := r.applyXfail(l)
			if cr.Status != c.want {
				t.Errorf("status %s, want %s (warnings %q)", cr.Status, c.want, ws)
			}
			switch {
			case c.warning == "" && len(ws) > 0:
				t.Errorf("warnings %q", ws)
			case c.warning != "" && (len(ws) != 1 || !strings.Contains(ws[0], c.warning)):
				t.Errorf("warnings %q, want one with %q", ws, c.warning)
			}
			if pinned := strings.Contains(c.line, "like="); cr.Status == stXfail || cr.Status == stXpass {
				if pinned != (len(cr.XfailLike) > 0) {
					t.Errorf("XfailLike %q for %q", cr.XfailLike, c.line)
				}
			}
			if c.want == stXfail && strings.Contains(c.line, "like=") && (cr.Failure.Likely == nil) {
				t.Error("a pinned XFAIL without its likely bug")
			}
		})
	}
}

// TestMergeRechecksPins: merge keeps a pinned XFAIL of a shard only when
// the likely bug recorded with it is one of the pins (xfail_like); an
// unpinned XFAIL is kept as it is.
func TestMergeRechecksPins(t *testing.T) {
	lb := func(m string) *likelyBug { return &likelyBug{Mutant: m, Bug: "b", Match: "same outcome"} }
	xf := func(id string, like []string, l *likelyBug) *caseResult {
		return &caseResult{ID: id, Source: "spec", Status: stXfail, XfailLike: like,
			Failure: &failure{Kind: "mismatch", Summary: "s", Report: "r", Request: "{}", Likely: l, classified: true}}
	}
	run := &runReport{Impl: implInfo{Name: "impl", Version: "1"}, Profile: scatter.Torch2, Level: scatter.Conformant,
		Cases: []*caseResult{
			{ID: "spec/pass", Source: "spec", Status: stPass},
			xf("spec/pinned-match", []string{"half-truncated"}, lb("half-truncated")),
			xf("spec/pinned-other", []string{"half-truncated"}, lb("nan-dropped-amax")),
			xf("spec/pinned-none", []string{"half-truncated"}, nil),
			xf("spec/unpinned", nil, nil),
		}}
	in := buildJSON([]*runReport{run}, nil, true)
	out, runs, err := mergeReports([]mergeInput{{name: "in.json", rep: in}}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]status{"spec/pass": stPass, "spec/pinned-match": stXfail, "spec/pinned-other": stFail,
		"spec/pinned-none": stFail, "spec/unpinned": stXfail}
	for _, cr := range runs[0].Cases {
		if cr.Status != want[cr.ID] {
			t.Errorf("%s: %s, want %s", cr.ID, cr.Status, want[cr.ID])
		}
	}
	if out.Conforms {
		t.Error("the merged run conforms with pinned failures that stand")
	}
	ws := strings.Join(out.Warnings, "\n")
	for _, w := range []string{"spec/pinned-other: expected failure pinned like=half-truncated, but its failure looks like nan-dropped-amax",
		"spec/pinned-none: expected failure pinned like=half-truncated, but its failure cannot be classified (the report it comes from names no likely bug for it)"} {
		if !strings.Contains(ws, w) {
			t.Errorf("warnings %q lack %q", out.Warnings, w)
		}
	}
}

// TestApplyXfailPinnedNext: when a pinned entry does not fit a failure,
// the next entry matching the case is tried (a case listed under two
// known reasons); the warnings come only when none fits.
func TestApplyXfailPinnedNext(t *testing.T) {
	call, res := pinCall()
	for _, c := range []struct {
		name, lines, reason string
		want                status
		warnings            int
	}{
		{"second-fits", "c like=nan-dropped-amax # nan\nc* like=half-truncated # truncated", "truncated", stXfail, 0},
		{"second-unpinned", "c like=nan-dropped-amax # nan\nc # anything", "anything", stXfail, 0},
		{"none-fits", "c like=nan-dropped-amax # nan\nc like=int-mean-truncates # mean", "", stFail, 2},
		{"first-fits", "c like=half-truncated # truncated\nc like=nan-dropped-amax # nan", "truncated", stXfail, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := parseXfail("x.txt", strings.NewReader(c.lines))
			if err != nil {
				t.Fatal(err)
			}
			cr := &caseResult{ID: "c", Status: stFail,
				Failure: &failure{Kind: "mismatch", call: call, res: res(1), profile: scatter.Torch2, level: scatter.Conformant}}
			ws := (&runReport{Cases: []*caseResult{cr}}).applyXfail(l)
			if cr.Status != c.want || cr.Reason != c.reason || len(ws) != c.warnings {
				t.Errorf("status %s, reason %q, warnings %q; want %s, %q, %d warnings", cr.Status, cr.Reason, ws, c.want, c.reason, c.warnings)
			}
			if c.name == "first-fits" {
				if u := l.unmatched(); len(u) != 1 || !strings.Contains(u[0], "x.txt:2") {
					t.Errorf("unmatched %q: the entry after the one that fits is not looked at", u)
				}
			}
		})
	}
}

// TestAdapterXfailFilesPinned checks the expected failures shipped with
// the adapters (tools/adapters/xfail): each file parses, and every entry
// pins the bug it expects (like=), so that a different bug in the same
// case cannot pass behind it: a random case or a property runs many
// calls and a glob covers many cases, and even a spec case or a fixture,
// one call, could fail another way than its reason says. An entry may
// stay unpinned only where no mutant of the zoo matches its failure, and
// its reason must say so ("(unpinned: ...)"); never a random case, a
// property or a glob.
func TestAdapterXfailFilesPinned(t *testing.T) {
	paths, err := filepath.Glob("../adapters/xfail/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no xfail files (%v)", err)
	}
	for _, path := range paths {
		l, err := loadXfail(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range l.entries {
			if len(e.like) > 0 {
				continue
			}
			many := strings.HasPrefix(e.pattern, "random/") || strings.HasPrefix(e.pattern, "property/") || strings.ContainsAny(e.pattern, "*?[")
			switch {
			case many:
				t.Errorf("%s:%d: %q excuses any failure of its many calls: pin the bug it expects with like=MUTANT", path, e.line, e.pattern)
			case !strings.Contains(e.reason, "(unpinned: "):
				t.Errorf("%s:%d: %q excuses any failure of its case: pin the bug it expects with like=MUTANT, or say why not with (unpinned: ...)", path, e.line, e.pattern)
			}
		}
	}
}

// TestUnpinnedExcuses: an unpinned entry that excused failures of random
// cases or properties is warned about, with what they look like and the
// like= that would pin them; one that excused only spec cases, one whose
// reason says it is unpinned on purpose, and a pinned one are not.
func TestUnpinnedExcuses(t *testing.T) {
	call, res := pinCall()
	mismatch := func() *failure {
		return &failure{Kind: "mismatch", call: call, res: res(1), profile: scatter.Torch2, level: scatter.Conformant}
	}
	for _, c := range []struct {
		name, file string
		ids        []string
		want       string // "" for no warning
	}{
		{"random glob", "random/*", []string{"random/scatter_add/float16", "random/scatter/float16"},
			`x.txt:1: xfail entry "random/*" is not pinned: it excused 2 failures of random cases and properties, which run many calls, so a new bug among them would pass unseen; they look like half-truncated (2); pin them with like=half-truncated`},
		{"property", "property/differential/scatter_add", []string{"property/differential/scatter_add"}, "it excused 1 failure of random cases"},
		{"spec only", "spec/*", []string{"spec/a", "spec/b"}, ""},
		{"unpinned on purpose", "random/* # (unpinned: no mutant matches)", []string{"random/x"}, ""},
		{"pinned", "random/* like=half-truncated", []string{"random/x"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := parseXfail("x.txt", strings.NewReader(c.file))
			if err != nil {
				t.Fatal(err)
			}
			r := &runReport{}
			for _, id := range c.ids {
				r.Cases = append(r.Cases, &caseResult{ID: id, Status: stFail, Failure: mismatch()})
			}
			if ws := r.applyXfail(l); len(ws) > 0 {
				t.Fatalf("applyXfail warned: %q", ws)
			}
			ws := unpinnedExcuses(l, []*runReport{r})
			switch {
			case c.want == "" && len(ws) > 0:
				t.Errorf("warnings %q, want none", ws)
			case c.want != "" && (len(ws) != 1 || !strings.Contains(ws[0], c.want)):
				t.Errorf("warnings %q, want one with %q", ws, c.want)
			}
		})
	}
}

// TestXpassDrawsHint: an XPASS of a random case or a property says that
// its draws vary and what the entry needs (sometimes, and like= first
// when the entry is unpinned); a spec case's XPASS adds nothing.
func TestXpassDrawsHint(t *testing.T) {
	for _, c := range []struct{ name, line, id, want string }{
		{"random/pinned", "random/* like=half-truncated", "random/scatter_add/float16", "add sometimes to the entry"},
		{"property/unpinned", "property/*", "property/differential/scatter_add", "pin the entry (like=, from the failure's looks like: line) and add sometimes"},
		{"spec", "spec/*", "spec/scatter_add/x", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := parseXfail("x.txt", strings.NewReader(c.line))
			if err != nil {
				t.Fatal(err)
			}
			r := &runReport{Cases: []*caseResult{{ID: c.id, Status: stPass}}}
			r.applyXfail(l)
			var b strings.Builder
			r.printExpected(&b)
			out := b.String()
			if !strings.Contains(out, "XPASS "+c.id) {
				t.Fatalf("no XPASS line:\n%s", out)
			}
			if c.want == "" && strings.Contains(out, "-seed") || c.want != "" && !strings.Contains(out, c.want) {
				t.Errorf("want %q in:\n%s", c.want, out)
			}
		})
	}
}

// TestMergeRefusesMalformedCases: merge refuses (exit 2, naming the file
// and the case) a report whose cases the gate cannot have written: a
// status it does not use, or a failed case without its failure; it does
// not panic on them, nor pass a status it does not know.
func TestMergeRefusesMalformedCases(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, status, want string }{
		{"fail-without-failure", "fail", `case "spec/b" of "impl" has status fail but no failure`},
		{"xfail-without-failure", "xfail", `case "spec/b" of "impl" has status xfail but no failure`},
		{"unknown-status", "FAIL", `case "spec/b" of "impl" has the status "FAIL"`},
	} {
		in := filepath.Join(dir, c.name+".json")
		text := `{"tool": "scattercheck", "schema": 1, "complete": true, "conforms": true, "runs": [{"implementation": {"name": "impl"},
		  "profile": "torch-2", "level": "conformant", "cases": [{"id": "spec/a", "status": "pass"}, {"id": "spec/b", "status": "` + c.status + `"}]}]}`
		if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errb := runCmd(t, nil, "merge", "-junit", filepath.Join(dir, "j.xml"), filepath.Join(dir, "out.json"), in)
		if code != 2 || !strings.Contains(errb, c.want) || !strings.Contains(errb, in) {
			t.Errorf("%s: exit %d, want 2 and %q\nstdout: %s\nstderr: %s", c.name, code, c.want, out, errb)
		}
	}
}
