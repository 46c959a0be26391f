package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/spec"
)

// tally counts the outcomes of the cases that fall in one cell.
type tally struct{ pass, fail, skip int }

func (t tally) String() string {
	switch {
	case t.pass+t.fail+t.skip == 0:
		return "·"
	case t.fail > 0:
		return fmt.Sprintf("FAIL %d/%d", t.fail, t.pass+t.fail)
	case t.pass == 0:
		return "skip"
	}
	return fmt.Sprintf("ok %d", t.pass)
}

// report is the outcome of the suite on one target.
type report struct {
	target   spec.Target
	level    scatter.Level
	byOpDT   map[scatter.Op]map[scatter.DType]*tally
	byFeat   map[string]*tally
	failures []string
	skips    map[string]int // reason -> count
	failed   int
	passed   int
}

// notFeatures are labels that name an operation, dtype or table rather
// than a feature.
func isFeature(label string) bool {
	if _, err := scatter.ParseDType(label); err == nil {
		return false
	}
	if slices.Contains(scatter.Ops, scatter.Op(label)) {
		return false
	}
	switch label {
	case "rule-keeps", "rule-breaks":
		return false
	}
	return true
}

// runSuite checks every spec case (those carrying one of labels, if any)
// on t.
func runSuite(t spec.Target, labels []string) *report {
	r := &report{target: t, level: t.JudgeLevel(), byOpDT: map[scatter.Op]map[scatter.DType]*tally{},
		byFeat: map[string]*tally{}, skips: map[string]int{}}
	for _, c := range spec.Cases() {
		if labels != nil && !slices.ContainsFunc(c.Labels, func(l string) bool { return slices.Contains(labels, l) }) {
			continue
		}
		op := c.Call.Op()
		dt := caseDType(c)
		if r.byOpDT[op] == nil {
			r.byOpDT[op] = map[scatter.DType]*tally{}
		}
		cell := r.byOpDT[op][dt]
		if cell == nil {
			cell = &tally{}
			r.byOpDT[op][dt] = cell
		}
		var feats []*tally
		for _, l := range c.Labels {
			if isFeature(l) {
				if r.byFeat[l] == nil {
					r.byFeat[l] = &tally{}
				}
				feats = append(feats, r.byFeat[l])
			}
		}
		count := func(f func(*tally)) {
			f(cell)
			for _, ft := range feats {
				f(ft)
			}
		}
		if reason := t.SkipReason(c); reason != "" {
			r.skips[reason]++
			count(func(x *tally) { x.skip++ })
			continue
		}
		if err := spec.CheckCase(t, c); err != nil {
			r.failed++
			r.failures = append(r.failures, err.Error())
			count(func(x *tally) { x.fail++ })
			continue
		}
		r.passed++
		count(func(x *tally) { x.pass++ })
	}
	return r
}

// caseDType is the dtype a case is filed under: that of its first data
// tensor (self, input, src or source).
func caseDType(c spec.Case) scatter.DType {
	ts := c.Call.Tensors()
	for _, name := range []string{"self", "input", "src", "source"} {
		if t, ok := ts[name]; ok {
			return t.DType()
		}
	}
	return scatter.DTInvalid
}

func (r *report) print(w io.Writer, verbose bool) {
	info := r.target.Backend.Info()
	fmt.Fprintf(w, "\n== %s %s — profile %v, %v level: %d passed, %d failed, %d skipped\n",
		info.Name, info.Version, r.target.Profile, r.level, r.passed, r.failed, sum(r.skips))

	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprint(tw, "operation\t")
	for _, dt := range scatter.DTypes {
		fmt.Fprintf(tw, "%v\t", dt)
	}
	fmt.Fprintln(tw)
	for _, op := range scatter.Ops {
		row := r.byOpDT[op]
		if row == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t", op)
		for _, dt := range scatter.DTypes {
			t := tally{}
			if row[dt] != nil {
				t = *row[dt]
			}
			fmt.Fprintf(tw, "%v\t", t)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()

	fmt.Fprintln(w)
	feats := make([]string, 0, len(r.byFeat))
	for f := range r.byFeat {
		feats = append(feats, f)
	}
	sort.Strings(feats)
	tw = tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for i, f := range feats {
		fmt.Fprintf(tw, "%s\t%v\t", f, *r.byFeat[f])
		if i%4 == 3 || i == len(feats)-1 {
			fmt.Fprintln(tw)
		}
	}
	tw.Flush()

	if len(r.skips) > 0 {
		fmt.Fprintln(w, "\nskipped:")
		reasons := make([]string, 0, len(r.skips))
		for s := range r.skips {
			reasons = append(reasons, s)
		}
		sort.Strings(reasons)
		for _, s := range reasons {
			fmt.Fprintf(w, "  %4d  %s\n", r.skips[s], s)
		}
	}
	for i, f := range r.failures {
		if !verbose && i >= 5 {
			fmt.Fprintf(w, "\n... and %d more failures (-v prints all)\n", len(r.failures)-i)
			break
		}
		fmt.Fprintf(w, "\n--- FAIL\n%s\n", strings.TrimRight(f, "\n"))
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
