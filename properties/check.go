package properties

import (
	"context"
	"flag"
	"fmt"
	"hash/maphash"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/check"
)

// Target is a backend to check, the truth it is judged against and the
// level (check.Target: its JudgeLevel).
type Target = check.Target

// Tier is a budget tier: how many cases each property runs and how large
// its tensors get.
type Tier uint8

const (
	// TierAuto chooses from the environment: SCATTER_PROPERTIES=short,
	// default or long; else go test's -short flag (TierShort); else
	// TierDefault.
	TierAuto Tier = iota
	// TierShort is a smoke run of seconds: few cases, small tensors.
	TierShort
	// TierDefault is the CI run: enough cases to kill every mutant of
	// Mutants, tensors up to a few thousand elements, sizes around the
	// 32- and 256-element block boundaries.
	TierDefault
	// TierLong is the long run: ten times the cases, tensors up to 2^17
	// elements and sizes around 65536.
	TierLong
)

func (t Tier) String() string {
	switch t {
	case TierShort:
		return "short"
	case TierDefault:
		return "default"
	case TierLong:
		return "long"
	}
	return "auto"
}

// Budget says how much a Check runs.
type Budget struct {
	// Tier sets the case count and the tensor sizes; TierAuto (the zero
	// value) takes it from the environment.
	Tier Tier
	// Checks, when positive, is the number of cases per property instead
	// of the tier's (differential properties run twice as many). An
	// explicit -rapid.checks flag or RAPID_CHECKS variable wins over both.
	Checks int
	// Match, when not empty, is a regular expression; only the properties
	// whose names it matches run (e.g. "^differential/").
	Match string
	// FailFast stops after the first property that fails.
	FailFast bool
}

// tierParams are a tier's numbers.
type tierParams struct {
	checks int
	cfg    callgen.Options // the sizes and faults of the tier
}

func (t Tier) params() tierParams {
	switch t {
	case TierShort:
		return tierParams{checks: 20, cfg: callgen.Options{MaxElements: 256, Boundaries: []int{31, 32, 33}, FaultPercent: 15}}
	case TierLong:
		return tierParams{checks: 4000, cfg: callgen.Options{MaxElements: 1 << 17,
			Boundaries: []int{31, 32, 33, 255, 256, 257, 65535, 65536, 65537}, FaultPercent: 15}}
	}
	return tierParams{checks: 400, cfg: callgen.Options{MaxElements: 4096, Boundaries: []int{31, 32, 33, 255, 256, 257}, FaultPercent: 15}}
}

// EnvTier is the environment variable that chooses the tier of TierAuto:
// short, default or long.
const EnvTier = "SCATTER_PROPERTIES"

// resolveTier returns the tier TierAuto stands for here.
func resolveTier(t Tier) Tier {
	if t != TierAuto {
		return t
	}
	switch strings.ToLower(os.Getenv(EnvTier)) {
	case "short", "smoke":
		return TierShort
	case "long":
		return TierLong
	case "default", "ci":
		return TierDefault
	}
	if inTestShort() {
		return TierShort
	}
	return TierDefault
}

// inTestShort reports go test's -short, without testing.Short's panic
// outside a test binary.
func inTestShort() bool {
	return testing.Testing() && flag.Parsed() && testing.Short()
}

// TB is what the properties report to: rapid.TB, which *testing.T,
// *testing.B and Ginkgo's GinkgoT() all satisfy.
type TB = rapid.TB

// Report is what a CheckTB run found.
type Report struct {
	Backend string
	Profile scatter.Profile
	Level   scatter.Level
	Tier    Tier
	Seed    uint64 // rapid's base seed: -rapid.seed reruns the same cases
	// Properties lists every property in order, run or skipped.
	Properties []PropertyReport
}

// PropertyReport is the outcome of one property.
type PropertyReport struct {
	Name string
	// Skipped is why the property did not run ("" if it ran).
	Skipped string
	// Cases is the number of cases run up to and including the first
	// failing one (all of them when none failed); shrinking is not
	// counted.
	Cases int
	// Failed is whether the property failed; Failure is the report (the
	// shrunk counterexample with its reproductions), as far as the TB
	// passed it on.
	Failed  bool
	Failure string
	// ExpectedErrors counts the cases of the properties that judge one
	// call (the differential ones, aliasing) whose call must fail and was
	// answered; Unsupported those the backend declined (ErrNotSupported,
	// skipped, whatever the call's outcome); Vacuous those that did not
	// meet the property's premise. In a property whose cases are all of
	// these three kinds no call that must succeed was judged.
	ExpectedErrors, Unsupported, Vacuous int
}

// UnjudgedPrefix begins the reason of a property skipped because no call
// that should succeed was judged: every case was declined as unsupported,
// was a call that must fail, or did not meet the property's premise, and
// at least one was declined. UnjudgedAll ends the reason when every case
// was declined.
const (
	UnjudgedPrefix = "no call that should succeed was judged: "
	UnjudgedAll    = " cases answered unsupported"
)

// Unjudged returns why the property judged no call that should succeed
// (UnjudgedPrefix and the counts), or "" when it judged one, failed, or
// the backend declined none of its cases (a property of error paths
// alone, such as differential/broken, judges only calls that must fail).
func (p PropertyReport) Unjudged() string {
	if p.Failed || p.Unsupported == 0 || p.Unsupported+p.Vacuous+p.ExpectedErrors < p.Cases {
		return ""
	}
	if p.Unsupported == p.Cases {
		return UnjudgedPrefix + fmt.Sprintf("all %d", p.Cases) + UnjudgedAll
	}
	parts := []string{fmt.Sprintf("of %d cases, %d answered unsupported", p.Cases, p.Unsupported)}
	if p.ExpectedErrors > 0 {
		parts = append(parts, fmt.Sprintf("%d calls that must fail", p.ExpectedErrors))
	}
	if p.Vacuous > 0 {
		parts = append(parts, fmt.Sprintf("%d did not meet the property's premise", p.Vacuous))
	}
	return UnjudgedPrefix + strings.Join(parts, ", ")
}

// Failed reports whether any property failed.
func (r Report) Failed() bool {
	for _, p := range r.Properties {
		if p.Failed {
			return true
		}
	}
	return false
}

// CasesRun is the total of Cases over the properties that ran.
func (r Report) CasesRun() int {
	n := 0
	for _, p := range r.Properties {
		n += p.Cases
	}
	return n
}

// Check runs every property on target as a subtest of t, named by the
// property ("differential/scatter_reduce", "metamorphic/split", ...). A
// property fails with rapid's shrunk counterexample, printed as the call,
// a Go repro command (go test -run ... -rapid.failfile=...), the protocol
// request line and a PyTorch one-liner. A property whose operations the
// backend does not claim is skipped with the reason; so is everything when
// the backend is unavailable. The budget (the one given, else the tier
// from SCATTER_PROPERTIES or -short) sets the number of cases; rapid's
// -rapid.seed reruns the same ones (the seed is logged).
//
// Call it from the backend's own tests:
//
//	func TestProperties(t *testing.T) {
//		properties.Check(t, properties.Target{Backend: mybackend.New(), Profile: scatter.Torch2})
//	}
func Check(t *testing.T, target Target, budget ...Budget) {
	t.Helper()
	checkAll(t, target, firstBudget(budget), t)
}

// firstBudget is the optional budget argument (the zero Budget if none).
func firstBudget(bs []Budget) Budget {
	if len(bs) > 0 {
		return bs[0]
	}
	return Budget{}
}

// CheckTB is Check for any TB (Ginkgo's GinkgoT(), a recorder of one's
// own): the properties run one after the other inside t, each failure
// collected, and reported together at the end through one t.Errorf (a TB
// whose Errorf stops the test, as GinkgoT()'s does, then loses nothing).
// Given a *testing.T, it is Check. It returns what it found:
//
//	var _ = It("passes the properties", func() {
//		properties.CheckTB(GinkgoT(), properties.Target{Backend: b, Profile: scatter.Torch2})
//	})
func CheckTB(t TB, target Target, budget ...Budget) Report {
	t.Helper()
	if tt, ok := t.(*testing.T); ok {
		return checkAll(tt, target, firstBudget(budget), tt)
	}
	return checkAll(t, target, firstBudget(budget), nil)
}

// checkAll runs the properties; with tt, as subtests of tt.
func checkAll(t TB, target Target, budget Budget, tt *testing.T) Report {
	t.Helper()
	if !testing.Testing() {
		// rapid reads testing.Short(), which panics unless the testing
		// flags exist: outside a test binary (a command running CheckTB),
		// register them.
		testing.Init()
	}
	info := target.Backend.Info()
	lvl := target.JudgeLevel()
	tier := resolveTier(budget.Tier)
	params := tier.params()
	checks := params.checks
	if budget.Checks > 0 {
		checks = budget.Checks
	}
	if userSet("rapid.checks", "RAPID_CHECKS") {
		if f := flag.Lookup("rapid.checks"); f != nil {
			if v, err := strconv.Atoi(f.Value.String()); err == nil && v > 0 {
				checks = v // -rapid.checks wins (rapid applies it as is)
			}
		}
	}
	seed := runSeed()
	rep := Report{Backend: info.Name + " " + info.Version, Profile: target.Profile, Level: lvl, Tier: tier, Seed: seed}
	if info.Unavailable != "" {
		t.Skipf("backend %s is unavailable: %s", info.Name, info.Unavailable)
		return rep
	}
	var match *regexp.Regexp
	if budget.Match != "" {
		var err error
		if match, err = regexp.Compile(budget.Match); err != nil {
			t.Fatalf("properties: Budget.Match: %v", err)
			return rep
		}
	}
	t.Logf("properties: backend %s under %v at the %v level; tier %v, %d cases per property; seed %d (rerun the same cases with -rapid.seed=%d)",
		rep.Backend, target.Profile, lvl, tier, checks, seed, seed)

	var failures []string
	for _, p := range allProperties() {
		if match != nil && !match.MatchString(p.name) {
			continue
		}
		pr := PropertyReport{Name: p.name}
		if reason := p.skipReason(target, info, lvl); reason != "" {
			pr.Skipped = reason
			rep.Properties = append(rep.Properties, pr)
			if tt != nil {
				tt.Run(p.name, func(st *testing.T) { st.Skip(reason) })
			} else {
				t.Logf("%s: skipped: %s", p.name, reason)
			}
			continue
		}
		st := &propState{}
		ctx := &runCtx{target: target, info: info, level: lvl, cfg: params.cfg, prop: p, st: st}
		n := checks * max(p.weight, 1)
		if tt != nil {
			tt.Run(p.name, func(sub *testing.T) {
				defer func() { pr.Failed = sub.Failed() }()
				runRapid(&reproTB{TB: sub}, n, seed, ctx.property)
				sub.Logf("%s", st.summary())
				if why := st.report(sub.Failed()).Unjudged(); why != "" {
					pr.Skipped = why
					sub.Skip(why)
				}
			})
		} else {
			s := &subTB{parent: t, name: p.name}
			func() {
				defer func() {
					if r := recover(); r != nil && r != errSubStop {
						panic(r)
					}
				}()
				runRapid(&reproTB{TB: s, inline: t.Name()}, n, seed, ctx.property)
			}()
			t.Logf("%s: %s", p.name, st.summary())
			pr.Failed = s.failed
			pr.Failure = strings.Join(s.errors, "\n")
			if s.skipped != "" && !s.failed {
				pr.Skipped = s.skipped
			} else if why := st.report(s.failed).Unjudged(); why != "" {
				pr.Skipped = why
				t.Logf("%s: skipped: %s", p.name, why)
			}
			if pr.Failed {
				failures = append(failures, fmt.Sprintf("property %s failed on %s (%v, %v):\n%s", p.name, rep.Backend, target.Profile, lvl, pr.Failure))
			}
		}
		pr.Cases = st.casesUntilFailure()
		pr.ExpectedErrors, pr.Unsupported, pr.Vacuous = st.expectedErrors, st.unsupported, st.vacuous
		rep.Properties = append(rep.Properties, pr)
		if pr.Failed && budget.FailFast {
			break
		}
	}
	if len(failures) > 0 {
		t.Errorf("%s", strings.Join(failures, "\n\n"))
	}
	return rep
}

// ---- rapid's global flags ----

// rapid reads its case count and seed from its command-line flags only.
// runRapid sets them for one rapid.Check, under a lock that it releases
// as soon as rapid has read them (when the property first runs), so that
// concurrent checks cannot see each other's values. A -rapid.checks or
// -rapid.seed given on the command line (or RAPID_CHECKS, RAPID_SEED) is
// left alone: it wins.
var rapidMu sync.Mutex

// runSeed returns the base seed of this run: -rapid.seed (or RAPID_SEED)
// when given, else a fresh random one.
func runSeed() uint64 {
	if userSet("rapid.seed", "RAPID_SEED") {
		if f := flag.Lookup("rapid.seed"); f != nil {
			if v, err := strconv.ParseUint(f.Value.String(), 0, 64); err == nil && v != 0 {
				return v
			}
		}
	}
	for {
		if s := new(maphash.Hash).Sum64() ^ uint64(time.Now().UnixNano()); s != 0 {
			return s >> 1 // keep it printable as a positive int64 too
		}
	}
}

// userSet reports whether the named flag was given on the command line or
// its environment variable is set.
func userSet(name, env string) bool {
	if _, ok := os.LookupEnv(env); ok {
		return true
	}
	set := false
	if flag.Parsed() {
		flag.Visit(func(f *flag.Flag) {
			if f.Name == name {
				set = true
			}
		})
	}
	return set
}

// setFlag sets a registered flag's value (without marking it as given on
// the command line) and returns the restoring function.
func setFlag(name, value string) func() {
	f := flag.Lookup(name)
	if f == nil {
		return func() {}
	}
	old := f.Value.String()
	_ = f.Value.Set(value)
	return func() { _ = f.Value.Set(old) }
}

// runRapid runs prop through rapid.Check with the given number of cases
// and base seed.
func runRapid(t rapid.TB, checks int, seed uint64, prop func(*rapid.T)) {
	t.Helper()
	rapidMu.Lock()
	var restore []func()
	if !userSet("rapid.checks", "RAPID_CHECKS") {
		n := checks
		if inTestShort() {
			n *= 5 // rapid divides by 5 under -short; the tier already did
		}
		restore = append(restore, setFlag("rapid.checks", strconv.Itoa(n)))
	}
	if !userSet("rapid.seed", "RAPID_SEED") {
		restore = append(restore, setFlag("rapid.seed", strconv.FormatUint(seed, 10)))
	}
	var once sync.Once
	release := func() {
		once.Do(func() {
			for _, r := range restore {
				r()
			}
			rapidMu.Unlock()
		})
	}
	defer release()
	rapid.Check(t, func(rt *rapid.T) {
		release()
		prop(rt)
	})
}

// ---- TB wrappers ----

// reproTB passes everything on to its TB, adding to rapid's failure report
// a Go command that reruns the shrunk case from its fail file. inline: the
// TB is a property run inside a TB without subtests (CheckTB), whose Go
// test is not known here; it holds that TB's name.
type reproTB struct {
	rapid.TB
	inline string // the name of the TB that CheckTB was given, when inline
}

var failfileRE = regexp.MustCompile(`-rapid\.failfile=("(?:[^"\\]|\\.)*")`)
var seedRE = regexp.MustCompile(`-rapid\.seed=([0-9]+)`)

func (r *reproTB) Errorf(format string, args ...any) {
	r.TB.Helper()
	msg := fmt.Sprintf(format, args...)
	if strings.HasPrefix(msg, "[rapid] ") && strings.Contains(msg, "reproduce, specify -run=") {
		repro := goRepro(r.TB.Name(), msg, r.inline)
		if i := strings.Index(msg, "\nFailed test output:"); i >= 0 {
			msg = msg[:i] + "\n" + repro + msg[i:]
		} else {
			msg += "\n" + repro
		}
	}
	r.TB.Errorf("%s", msg)
}

// Context passes on the TB's context where it has one (rapid's T.Context
// uses it).
func (r *reproTB) Context() context.Context {
	if c, ok := r.TB.(interface{ Context() context.Context }); ok {
		return c.Context()
	}
	return context.Background()
}

// goRepro builds the command that reruns the failing subtest name on the
// fail file (or seed) rapid names in msg.
func goRepro(name, msg string, inline string) string {
	var flagArg string
	if m := failfileRE.FindStringSubmatch(msg); m != nil {
		if f, err := strconv.Unquote(m[1]); err == nil {
			flagArg = "-rapid.failfile=" + shellQuote(f)
		}
	}
	if flagArg == "" {
		if m := seedRE.FindStringSubmatch(msg); m != nil {
			flagArg = "-rapid.seed=" + m[1]
		}
	}
	dir, _ := os.Getwd()
	if inline != "" {
		// A Ginkgo spec (or another TB): its name is no go test -run path.
		return fmt.Sprintf("Go repro: cd %s && go test -run '<the test that calls CheckTB>' %s -v (under Ginkgo add -ginkgo.focus=%s)",
			shellQuote(dir), flagArg, shellQuote(regexp.QuoteMeta(inline)))
	}
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return fmt.Sprintf("Go repro: cd %s && go test -run %s %s -v", shellQuote(dir), shellQuote(strings.Join(parts, "/")), flagArg)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[](){}<>|&;#~=%") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// subTB is one property run inline under a TB that has no subtests: it
// records failures and skips instead of passing them on, and FailNow and
// SkipNow end only the property (by a panic that check recovers).
type subTB struct {
	parent  TB
	name    string
	mu      sync.Mutex
	failed  bool
	errors  []string
	skipped string
}

var errSubStop = &struct{ s string }{"properties: property stopped"}

func (s *subTB) Helper()      {}
func (s *subTB) Name() string { return s.parent.Name() + "/" + s.name }
func (s *subTB) Logf(format string, args ...any) {
	s.parent.Logf("%s: %s", s.name, fmt.Sprintf(format, args...))
}
func (s *subTB) Log(args ...any) { s.parent.Logf("%s: %s", s.name, fmt.Sprint(args...)) }
func (s *subTB) Errorf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed = true
	s.errors = append(s.errors, fmt.Sprintf(format, args...))
}
func (s *subTB) Error(args ...any) { s.Errorf("%s", fmt.Sprint(args...)) }
func (s *subTB) Fatalf(format string, args ...any) {
	s.Errorf(format, args...)
	s.FailNow()
}
func (s *subTB) Fatal(args ...any) { s.Fatalf("%s", fmt.Sprint(args...)) }
func (s *subTB) Fail() {
	s.mu.Lock()
	s.failed = true
	s.mu.Unlock()
}
func (s *subTB) FailNow() {
	s.Fail()
	panic(errSubStop)
}
func (s *subTB) Failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}
func (s *subTB) Skipf(format string, args ...any) {
	s.skipped = fmt.Sprintf(format, args...)
	s.SkipNow()
}
func (s *subTB) Skip(args ...any) { s.Skipf("%s", fmt.Sprint(args...)) }
func (s *subTB) SkipNow() {
	if s.skipped == "" {
		s.skipped = "skipped"
	}
	panic(errSubStop)
}
