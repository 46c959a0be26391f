package spec

import (
	"errors"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// The whole spec on the reference under both profiles: every recorded
// outcome must be the oracle's, at the strict level.
var _ = DescribeBackend(Target{Backend: reference.New(scatter.Torch113), Profile: scatter.Torch113})
var _ = DescribeBackend(Target{Backend: reference.New(scatter.Torch2), Profile: scatter.Torch2})

var _ = Describe("the case tables", func() {
	It("give every case a unique name, a source, a call and valid labels", func() {
		seen := map[string]bool{}
		for _, c := range Cases() {
			Expect(c.Name).NotTo(BeEmpty())
			Expect(seen[c.Name]).To(BeFalse(), "duplicate case name %q", c.Name)
			seen[c.Name] = true
			Expect(c.Source).NotTo(BeEmpty(), c.Name)
			Expect(c.Call).NotTo(BeNil(), c.Name)
			Expect(c.Labels).NotTo(BeEmpty(), c.Name)
			for _, l := range c.Labels {
				_, err := types.ValidateAndCleanupLabel(l, types.CodeLocation{})
				Expect(err).NotTo(HaveOccurred(), "case %s: label %q", c.Name, l)
			}
			Expect(c.Labels).To(ContainElement(string(c.Call.Op())), c.Name)
			for _, p := range c.Profiles {
				Expect(scatter.Profiles).To(ContainElement(p), c.Name)
			}
		}
	})

	It("record exactly one outcome per case: a valid Want or a protocol error code", func() {
		for _, c := range Cases() {
			if c.WantErr != 0 {
				Expect(scatter.Codes).To(ContainElement(c.WantErr), c.Name)
				Expect(c.Want.IsZero()).To(BeTrue(), "case %s has both Want and WantErr", c.Name)
				Expect(c.WantArg.IsZero()).To(BeTrue(), c.Name)
				continue
			}
			Expect(c.Want.IsZero()).To(BeFalse(), "case %s has neither Want nor WantErr", c.Name)
			Expect(c.Want.Validate()).To(Succeed(), c.Name)
			if !c.WantArg.IsZero() {
				Expect(c.WantArg.Validate()).To(Succeed(), c.Name)
				Expect(c.WantArg.DType()).To(Equal(scatter.DTInt64), c.Name)
			}
			for name, t := range c.Call.Tensors() {
				Expect(t.Validate()).To(Succeed(), "case %s tensor %s", c.Name, name)
			}
		}
	})

	It("label every example docs and every rule entry with its kind", func() {
		for _, c := range examples() {
			Expect(c.Labels).To(ContainElement("docs"), c.Name)
		}
		kinds := []string{shapeRule, dtypeRule, valueRule}
		for _, c := range rules() {
			Expect(slices.ContainsFunc(c.Labels, func(l string) bool { return slices.Contains(kinds, l) })).
				To(BeTrue(), "rule case %s has no kind label", c.Name)
		}
	})

	It("break two rules in every precedence case, the recorded error's first, under every profile", func() {
		for _, c := range precedenceCases() {
			for _, prof := range scatter.Profiles {
				codes := reference.Expect(c.Call, prof).Codes()
				Expect(len(codes)).To(BeNumerically(">=", 2), "%s under %v breaks %v", c.Name, prof, codes)
				Expect(codes[0]).To(Equal(c.WantErr), c.Name)
			}
		}
	})

	It("pair every rule: a keeping entry that succeeds and a breaking one that fails", func() {
		keeps, breaks := map[string]int{}, map[string]int{}
		for _, c := range rules() {
			base, side, found := cutSide(c.Name)
			Expect(found).To(BeTrue(), "rule case %s is named neither keeps nor breaks", c.Name)
			switch side {
			case "keeps":
				Expect(c.WantErr).To(BeZero(), c.Name)
				keeps[base]++
			case "breaks":
				Expect(c.WantErr).NotTo(BeZero(), c.Name)
				breaks[base]++
			}
		}
		Expect(len(keeps)).To(BeNumerically(">=", 40))
		for base, n := range keeps {
			Expect(breaks[base]).To(Equal(n), "rule %s", base)
		}
		Expect(breaks).To(HaveLen(len(keeps)))
	})

	It("return fresh tensors from every call of Cases", func() {
		a, b := Cases(), Cases()
		Expect(a).To(HaveLen(len(b)))
		for i := range a {
			for name, t := range a[i].Call.Tensors() {
				u := b[i].Call.Tensors()[name]
				if scatter.DataLen(t.Data) > 0 {
					setAt(t, 0, 1)
					setAt(u, 0, 0)
					Expect(scatter.Float64At(t.Data, 0)).NotTo(Equal(scatter.Float64At(u.Data, 0)),
						"case %s: tensor %s shares memory between two calls of Cases", a[i].Name, name)
				}
			}
		}
	})
})

// cutSide splits a rule case's name into its rule and its side.
func cutSide(name string) (base, side string, found bool) {
	for _, s := range []string{"keeps", "breaks"} {
		if i := strings.Index(name, "/"+s); i >= 0 {
			return name[:i], s, true
		}
	}
	return "", "", false
}

// fakeBackend wraps the reference and misbehaves as told.
type fakeBackend struct {
	info   scatter.Info
	inner  scatter.Backend
	run    func(c scatter.Call) (scatter.Result, error)
	mutate bool
}

func (f fakeBackend) Info() scatter.Info { return f.info }

func (f fakeBackend) Run(c scatter.Call) (scatter.Result, error) {
	if f.run != nil {
		return f.run(c)
	}
	res, err := f.inner.Run(c)
	if f.mutate {
		for _, t := range c.Tensors() {
			if scatter.DataLen(t.Data) > 0 {
				setAt(t, 0, 42)
			}
		}
	}
	return res, err
}

func findCase(name string) Case {
	for _, c := range Cases() {
		if c.Name == name {
			return c
		}
	}
	Fail("no case " + name)
	return Case{}
}

var _ = Describe("CheckCase", func() {
	const exampleName = "scatter_reduce/sum/float32/include_self=true/docs"
	const ruleName = "scatter/float32/index-equals-size/breaks"
	ref := reference.New(scatter.Torch2)

	It("passes the reference", func() {
		Expect(CheckCase(Target{Backend: ref, Profile: scatter.Torch2}, findCase(exampleName))).To(Succeed())
		Expect(CheckCase(Target{Backend: ref, Profile: scatter.Torch2}, findCase(ruleName))).To(Succeed())
	})

	It("reports a panic as the backend's failure", func() {
		b := fakeBackend{info: scatter.Info{Name: "panicky"}, run: func(scatter.Call) (scatter.Result, error) { panic("boom") }}
		err := CheckCase(Target{Backend: b, Profile: scatter.Torch2}, findCase(exampleName))
		var f *Failure
		Expect(errors.As(err, &f)).To(BeTrue())
		Expect(err.Error()).To(And(ContainSubstring("panicked"), ContainSubstring("boom"), ContainSubstring(exampleName)))
	})

	It("catches a backend that writes to its inputs", func() {
		b := fakeBackend{info: scatter.Info{Name: "mutating"}, inner: ref, mutate: true}
		err := CheckCase(Target{Backend: b, Profile: scatter.Torch2}, findCase(exampleName))
		Expect(err).To(MatchError(ContainSubstring("modified its input")))
		// and the table itself is unharmed
		Expect(CheckCase(Target{Backend: ref, Profile: scatter.Torch2}, findCase(exampleName))).To(Succeed())
	})

	It("fails an unsupported answer to a claimed call", func() {
		b := fakeBackend{info: scatter.Info{Name: "lazy"}, run: func(scatter.Call) (scatter.Result, error) {
			return scatter.Result{}, scatter.Errorf(scatter.ErrNotSupported, "no")
		}}
		err := CheckCase(Target{Backend: b, Profile: scatter.Torch2}, findCase(exampleName))
		Expect(err).To(MatchError(ContainSubstring("unsupported")))
		Expect(declinedSkip(Target{Backend: b, Profile: scatter.Torch2}, err)).To(BeEmpty())
		// a backend that covers only some of a claimed operation's calls
		// (Target.AllowUnsupported): the case is skipped with its reason
		Expect(declinedSkip(Target{Backend: b, Profile: scatter.Torch2, AllowUnsupported: true}, err)).To(
			Equal("the backend declines the call (Target.AllowUnsupported): unsupported: no"))
		// but not when the decline is not its only problem
		m := fakeBackend{info: scatter.Info{Name: "lazy-mutating"}, inner: b, mutate: true}
		err = CheckCase(Target{Backend: m, Profile: scatter.Torch2, AllowUnsupported: true}, findCase(exampleName))
		Expect(declinedSkip(Target{Backend: m, Profile: scatter.Torch2, AllowUnsupported: true}, err)).To(BeEmpty())
	})

	It("fails a wrong value and a wrong error code, printing the source", func() {
		c := findCase(exampleName)
		wrong := fakeBackend{info: scatter.Info{Name: "wrong"}, run: func(scatter.Call) (scatter.Result, error) {
			return scatter.Result{Out: f32(5, 14, 8, 5)}, nil
		}}
		err := CheckCase(Target{Backend: wrong, Profile: scatter.Torch2}, c)
		Expect(err).To(MatchError(And(ContainSubstring("[3]"), ContainSubstring(c.Source))))

		r := findCase(ruleName)
		code := fakeBackend{info: scatter.Info{Name: "code"}, run: func(scatter.Call) (scatter.Result, error) {
			return scatter.Result{}, scatter.Errorf(scatter.ErrShapeMismatch, "no")
		}}
		Expect(CheckCase(Target{Backend: code, Profile: scatter.Torch2}, r)).To(MatchError(ContainSubstring("index_out_of_range")))
	})

	It("fails a backend that follows the other profile", func() {
		c := findCase("scatter/float32/index-int32/breaks/torch-1.13/torch-2.6")
		err := CheckCase(Target{Backend: reference.New(scatter.Torch2), Profile: scatter.Torch113}, c)
		Expect(err).To(MatchError(ContainSubstring("index_dtype")))
	})

	It("fails a recorded outcome the oracle rejects", func() {
		c := findCase(exampleName)
		c.Want = f32(5, 14, 8, 5)
		err := CheckCase(Target{Backend: ref, Profile: scatter.Torch2}, c)
		Expect(err).To(MatchError(ContainSubstring("the oracle rejects the recorded outcome")))
	})
})

var _ = Describe("Target.SkipReason and JudgeLevel", func() {
	ref := reference.New(scatter.Torch2)
	c := Case{Name: "x", Call: scatter.ScatterAdd{Self: z(rF32, 2), Index: i64(0), Src: f32(1)}}

	It("skips what the backend does not claim, with the reason", func() {
		Expect(Target{Backend: ref}.SkipReason(c)).To(BeEmpty())
		gone := fakeBackend{info: scatter.Info{Name: "gpu", Unavailable: "no GPU"}}
		Expect(Target{Backend: gone}.SkipReason(c)).To(ContainSubstring("no GPU"))
		noOp := fakeBackend{info: scatter.Info{Name: "n", Ops: []scatter.Op{scatter.OpGather}}}
		Expect(Target{Backend: noOp}.SkipReason(c)).To(ContainSubstring("scatter_add"))
		noDT := fakeBackend{info: scatter.Info{Name: "n", DTypes: []scatter.DType{scatter.DTFloat64}}}
		Expect(Target{Backend: noDT}.SkipReason(c)).To(ContainSubstring("float32"))
		mixed := c
		mixed.Call = scatter.ScatterAdd{Self: z(rF64, 2), Index: i64(0), Src: f32(1)}
		Expect(Target{Backend: noDT}.SkipReason(mixed)).To(ContainSubstring("float32"))
		pinned := c
		pinned.Profiles = []scatter.Profile{scatter.Torch113}
		Expect(Target{Backend: ref, Profile: scatter.Torch2}.SkipReason(pinned)).To(ContainSubstring("torch-1.13"))
		Expect(Target{Backend: ref, Profile: scatter.Torch113}.SkipReason(pinned)).To(BeEmpty())
	})

	It("judges a deterministic backend strictly and others at the level asked", func() {
		Expect(Target{Backend: ref}.JudgeLevel()).To(Equal(scatter.Strict))
		loose := fakeBackend{info: scatter.Info{Name: "loose"}}
		Expect(Target{Backend: loose}.JudgeLevel()).To(Equal(scatter.Conformant))
		Expect(Target{Backend: loose, Level: scatter.Strict}.JudgeLevel()).To(Equal(scatter.Strict))
	})
})

var _ = Describe("diffValues", func() {
	It("equates NaN with NaN, and -0 with +0 unless signed zeros count", func() {
		Expect(diffValues(f32(float32(nan), 1), f32(float32(nan), 1), false)).To(BeEmpty())
		Expect(diffValues(f64(negz), f64(0), false)).To(BeEmpty())
		Expect(diffValues(f64(negz), f64(0), true)).To(ContainSubstring("-0.0"))
		Expect(diffValues(f16(nan), f16(nan), true)).To(BeEmpty())
	})

	It("names at most ten offenders by multi-index", func() {
		d := diffValues(full(rI64, 1, 3, 5), full(rI64, 2, 3, 5), false)
		Expect(d).To(And(ContainSubstring("15 of 15"), ContainSubstring("[0 0]"), ContainSubstring("and 5 more")))
		Expect(diffValues(f32(1), f64(1), false)).To(ContainSubstring("dtype"))
		Expect(diffValues(shape(f32(1, 2), 1, 2), f32(1, 2), false)).To(ContainSubstring("shape"))
	})
})
