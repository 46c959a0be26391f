// Package spec is the table-driven part of the conformance suite: every
// example printed in the documentation the project follows (examples.go),
// every shape and dtype rule as a pair of calls, one that keeps it and one
// that breaks it (rules.go), and the verified edge cases of SEMANTICS.md §12
// (edge_cases.go). Each entry is a Case: a call and PyTorch's outcome.
//
// Any backend runs the whole table from its own tests with one line:
//
//	var _ = spec.DescribeBackend(spec.Target{Backend: mybackend.New(), Profile: scatter.Torch2})
//
// and any other harness (the scattercheck command) can use Cases,
// Target.SkipReason and CheckCase directly, which return plain values and
// errors and need no Ginkgo.
package spec

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/onsi/ginkgo/v2"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/check"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/repro"
)

// Target is a backend to check and the truth it is judged against
// (check.Target: its JudgeLevel and SkipReason).
type Target = check.Target

// Cases returns every case of the spec, fresh (no two calls share memory
// with an earlier result of Cases): the documented examples, the rule pairs,
// the calls that break two rules (the order of PyTorch's checks), the
// verified edge cases of SEMANTICS.md §12, the float32 groups that no
// order rounds as a float64 accumulation does, the float sums that only
// the canonical order gives (strict targets), the regressions the live
// differential test found, the calls that pin bugs only a chosen call
// shows (pins.go), the sizes cases (large and wide tensors), the
// unseen identities of amax and amin without self, and the recorded
// PyTorch fixtures.
func Cases() []Case {
	var cs []Case
	cs = append(cs, examples()...)
	cs = append(cs, rules()...)
	cs = append(cs, precedenceCases()...)
	cs = append(cs, edgeCases()...)
	cs = append(cs, accumulationCases()...)
	cs = append(cs, orderCases()...)
	cs = append(cs, regressions()...)
	cs = append(cs, pinCases()...)
	cs = append(cs, sizesCases()...)
	cs = append(cs, identityCases()...)
	cs = append(cs, fixtureCases()...)
	return cs
}

// Failure is the report of a case that failed on a target. Its Error text
// names the case, where its truth comes from, the target, the call, and
// each problem found (the judge's reports among them).
type Failure struct {
	Case     string
	Source   string
	Target   string // backend name and version, profile, level
	Call     string
	Problems []string
	// Declined is the backend's reason when it answered ErrNotSupported
	// to the claimed call (the one problem then): DescribeBackend skips
	// the case with it under Target.AllowUnsupported.
	Declined string
}

func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %s\n  source: %s\n  target: %s\n  call:   %s", f.Case, f.Source, f.Target, f.Call)
	for i, p := range f.Problems {
		fmt.Fprintf(&b, "\n%d. %s", i+1, indent(p, "   "))
	}
	return b.String()
}

func indent(s, pad string) string { return strings.ReplaceAll(s, "\n", "\n"+pad) }

// CheckCase runs case c on t's backend and returns nil when everything
// holds, or a *Failure listing what does not:
//
//  1. the judge (reference.Expect under t.Profile) accepts the case's own
//     recorded outcome, Want/WantArg or WantErr, at the strict level: the
//     oracle agrees with PyTorch;
//  2. the backend does not panic, does not answer ErrNotSupported (the call
//     is claimed), and leaves every tensor it was given unchanged, bit for
//     bit over the whole of its data;
//  3. the judge accepts the backend's outcome at t.JudgeLevel();
//  4. at the strict level and unless c.OneOf, the outcome is the recorded
//     one: Out equals Want (and Arg equals WantArg) by value, NaN equal to
//     NaN and -0 equal to +0 unless c.SignedZeros; an expected error has
//     exactly code WantErr. At the conformant level the judge alone
//     decides: a correct backend may sum in another order than PyTorch's
//     CPU kernel (SEMANTICS.md §12 #45 summed pairwise gives 2058, not
//     2048), and step 1 has already tied the judge to the recorded truth.
//
// CheckCase does not skip: call t.SkipReason first.
func CheckCase(t Target, c Case) error {
	info := t.Backend.Info()
	lvl := t.JudgeLevel()
	f := &Failure{
		Case:   c.Name,
		Source: c.Source,
		Target: fmt.Sprintf("%s %s, %v, %v", info.Name, info.Version, t.Profile, lvl),
		Call:   reference.DescribeCall(c.Call),
	}
	problem := func(format string, args ...any) { f.Problems = append(f.Problems, fmt.Sprintf(format, args...)) }

	// The judge sees a copy nobody else touches.
	exp := reference.Expect(scatter.CloneCall(c.Call), t.Profile)

	// 1. The oracle against the recorded truth.
	if err := exp.Check(scatter.Strict, recordedResult(c), recordedErr(c)); err != nil {
		problem("the oracle rejects the recorded outcome (%s) at the strict level: reference/ or this case is wrong:\n%v",
			describeRecorded(c), err)
	}

	// 2. Run the backend on a copy, so that a backend that writes to its
	// inputs neither corrupts the table nor escapes notice.
	given := scatter.CloneCall(c.Call)
	o := check.Run(t.Backend, given)
	res, err := o.Res, o.Err
	if o.Panicked != "" {
		problem("the backend panicked:\n%s", o.Panicked)
		return f
	}
	if o.Modified != nil {
		problem("the backend modified its input tensors:\n%v", o.Modified)
	}
	if scatter.CodeOf(err) == scatter.ErrNotSupported {
		problem("the backend answered unsupported for a call it claims (Target.AllowUnsupported skips such a case): %v", err)
		f.Declined = err.Error()
		return f
	}

	// 3. The judge on the backend's outcome.
	if jerr := exp.Check(lvl, res, err); jerr != nil {
		problem("the judge rejects the backend's outcome at the %v level:\n%v", lvl, jerr)
	}

	// 4. The recorded outcome itself, for a backend held to PyTorch's order.
	if lvl == scatter.Strict && !c.OneOf {
		if p := diffRecorded(c, lvl, exp, res, err); p != "" {
			problem("the outcome differs from PyTorch's recorded one (%s):\n%s", describeRecorded(c), p)
		}
	}
	if len(f.Problems) > 0 {
		return f
	}
	return nil
}

// declinedSkip returns why to skip a case whose CheckCase failed with err:
// the backend declined the call and t.AllowUnsupported lets it; "" when
// the failure stands.
func declinedSkip(t Target, err error) string {
	var f *Failure
	if !t.AllowUnsupported || !errors.As(err, &f) || f.Declined == "" || len(f.Problems) != 1 {
		return ""
	}
	return "the backend declines the call (Target.AllowUnsupported): " + f.Declined
}

// recordedResult and recordedErr are the case's own outcome as a backend
// would give it.
func recordedResult(c Case) scatter.Result {
	if c.WantErr != 0 {
		return scatter.Result{}
	}
	return scatter.Result{Out: c.Want, Arg: c.WantArg}
}

func recordedErr(c Case) error {
	if c.WantErr == 0 {
		return nil
	}
	return scatter.Errorf(c.WantErr, "recorded: PyTorch raises %v", c.WantErr)
}

func describeRecorded(c Case) string {
	if c.WantErr != 0 {
		return "error " + c.WantErr.String()
	}
	s := "out=" + c.Want.String()
	if !c.WantArg.IsZero() {
		s += ", arg=" + c.WantArg.String()
	}
	return s
}

// diffRecorded compares an outcome with the case's recorded one; "" when
// they agree.
func diffRecorded(c Case, lvl scatter.Level, exp *reference.Expectation, res scatter.Result, err error) string {
	if c.WantErr != 0 {
		if err == nil {
			return fmt.Sprintf("the call succeeded with out=%s; PyTorch raises %v", res.Out, c.WantErr)
		}
		got := scatter.CodeOf(err)
		if got == c.WantErr {
			return ""
		}
		if lvl == scatter.Conformant && slices.Contains(exp.Codes(), got) {
			return ""
		}
		if lvl == scatter.Conformant {
			return fmt.Sprintf("error code %v (%v); want %v or another code the call's broken rules allow: %v",
				got, err, c.WantErr, exp.Codes())
		}
		return fmt.Sprintf("error code %v (%v); want %v, the first rule PyTorch checks", got, err, c.WantErr)
	}
	if err != nil {
		return fmt.Sprintf("the call failed with %v; PyTorch returns %s", err, c.Want)
	}
	var ps []string
	if d := diffValues(res.Out, c.Want, c.SignedZeros); d != "" {
		ps = append(ps, "out: "+d)
	}
	if !c.WantArg.IsZero() {
		if d := diffValues(res.Arg, c.WantArg, false); d != "" {
			ps = append(ps, "arg: "+d)
		}
	}
	return strings.Join(ps, "\n")
}

// describedCases are the cases of every DescribeBackend in the process,
// built once: a package of many targets holds one table, not one each (the
// sizes cases alone are some 60 MB). No target can change it for another:
// CheckCase hands the backend, and the judge, copies of a case's call.
var describedCases = sync.OnceValue(Cases)

// casesOf returns the described cases whose truth is profile p's: every
// case but those of other PyTorch versions (their recorded fixtures).
func casesOf(p scatter.Profile) []Case {
	var cs []Case
	for _, c := range describedCases() {
		if c.Profiles == nil || slices.Contains(c.Profiles, p) {
			cs = append(cs, c)
		}
	}
	return cs
}

// DescribeBackend registers the spec for target t as Ginkgo specs: one
// container named after the backend, its profile and level, holding one
// spec per case, named by the case's Name and labelled with its Labels (and
// the container with the profile and level). Call it at package level in a
// _test.go file of the backend's package:
//
//	var _ = spec.DescribeBackend(spec.Target{Backend: b, Profile: scatter.Torch2})
//
// A case whose Profiles exclude t.Profile (another PyTorch version's
// truth, such as its recorded fixtures) is not registered. A spec is
// skipped, with the reason, when the backend is unavailable
// (Info().Unavailable), or when
// the backend does not claim the case's operation on one of its data
// dtypes (SkipReason), or, under t.AllowUnsupported, when the backend
// declines the call (ErrNotSupported). Otherwise it fails with CheckCase's
// report and the call's reproductions (repro.Block: its protocol request
// line and a PyTorch one-liner); a panic inside the backend is caught and
// reported as the backend's failure.
func DescribeBackend(t Target) bool {
	info := t.Backend.Info()
	text := fmt.Sprintf("backend %s %s under %v at the %v level", info.Name, info.Version, t.Profile, t.JudgeLevel())
	return ginkgo.Describe(text, ginkgo.Label(t.Profile.String(), t.JudgeLevel().String()), func() {
		for _, c := range casesOf(t.Profile) {
			ginkgo.It(c.Name, ginkgo.Label(c.Labels...), func() {
				if reason := t.SkipReason(c); reason != "" {
					ginkgo.Skip(reason)
				}
				if err := CheckCase(t, c); err != nil {
					if reason := declinedSkip(t, err); reason != "" {
						ginkgo.Skip(reason)
					}
					ginkgo.Fail(err.Error() + repro.Block("reproduce", c.Call, t.SendsViews(c.Call)))
				}
			})
		}
		for _, r := range OutOfScopeRows() {
			name := fmt.Sprintf("SEMANTICS.md §12 #%d", r.Row)
			if r.Row == 0 {
				name = "SEMANTICS.md §12, the rows after the table"
			}
			ginkgo.It(name+" (out of scope)", ginkgo.Label("edge-case", "out-of-scope"), func() {
				ginkgo.Skip(r.Reason)
			})
		}
	})
}
