package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// scattercheck bench -compare OLD.json [NEW.json]: the change of every
// target on every workload between two bench runs, by label, with a
// Mann-Whitney U test on the timed samples to tell a change from noise.

// compareAlpha is the significance level of the comparison: a change is
// reported when the two-sided p-value of the U test is below it (as
// benchstat does, whose default is the same).
const compareAlpha = 0.05

// exactUMax bounds n1+n2 for the exact distribution of U: the counts of
// arrangements, at most C(n1+n2, n1) (C(60, 30) < 1.2e17), stay exact in
// int64 (below 9.2e18), intermediate differences included.
const exactUMax = 60

// mannWhitney returns the U statistic of xs against ys (the number of
// pairs (x, y) with x > y, ties counting one half) and the two-sided
// p-value of the hypothesis that both come from one distribution. Without
// ties and with len(xs)+len(ys) <= exactUMax the p-value is exact: twice
// the smaller tail of U under every arrangement of the pooled samples
// being equally likely. Otherwise it is the normal approximation with
// the variance corrected for ties and a continuity correction of one
// half. It is 1 when either sample is empty or all values are equal.
func mannWhitney(xs, ys []float64) (u, p float64) {
	n1, n2 := len(xs), len(ys)
	if n1 == 0 || n2 == 0 {
		return 0, 1
	}
	type obs struct {
		v float64
		x bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range xs {
		all = append(all, obs{v, true})
	}
	for _, v := range ys {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	n := n1 + n2
	rankSum, tieTerm, ties := 0.0, 0.0, false
	for i := 0; i < n; {
		j := i
		for j < n && all[j].v == all[i].v {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1..j, their mean
		for k := i; k < j; k++ {
			if all[k].x {
				rankSum += mid
			}
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	u = rankSum - float64(n1*(n1+1))/2
	if !ties && n <= exactUMax {
		counts := uCounts(n1, n2)
		k := int(math.Round(u))
		total, lo, hi := 0.0, 0.0, 0.0
		for i, c := range counts {
			f := float64(c)
			total += f
			if i <= k {
				lo += f
			}
			if i >= k {
				hi += f
			}
		}
		return u, math.Min(1, 2*math.Min(lo, hi)/total)
	}
	mu := float64(n1) * float64(n2) / 2
	v := float64(n1) * float64(n2) / 12 * (float64(n+1) - tieTerm/(float64(n)*float64(n-1)))
	if v <= 0 {
		return u, 1
	}
	z := math.Max(0, math.Abs(u-mu)-0.5) / math.Sqrt(v)
	return u, math.Min(1, math.Erfc(z/math.Sqrt2))
}

// uCounts returns, for u = 0 .. n1·n2, how many of the C(n1+n2, n1)
// arrangements of n1 x's and n2 y's give U = u: the coefficients of the
// Gaussian binomial coefficient [n1+n2 choose n1] in q, built as the
// product over i = 1..n1 of (1 - q^(n2+i)) / (1 - q^i); after each i the
// polynomial is [n2+i choose i], whose coefficients are counts.
func uCounts(n1, n2 int) []int64 {
	c := make([]int64, n1*n2+1)
	c[0] = 1
	for i := 1; i <= n1; i++ {
		m := n2 + i
		for k := len(c) - 1; k >= m; k-- { // times (1 - q^m)
			c[k] -= c[k-m]
		}
		for k := i; k < len(c); k++ { // over (1 - q^i)
			c[k] += c[k-i]
		}
	}
	return c
}

// loadBench reads a -json file of scattercheck bench, of schema 1 or 2.
func loadBench(path string) (*benchReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r benchReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if r.Tool != "scattercheck bench" {
		return nil, fmt.Errorf("%s: not the -json file of scattercheck bench (tool %q)", path, r.Tool)
	}
	switch r.Schema {
	case benchSchema:
	case 1:
		if err := fromSchema1(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	default:
		return nil, fmt.Errorf("%s: schema %d, which this scattercheck does not know (it reads 1 and %d)", path, r.Schema, benchSchema)
	}
	if err := r.checkTimes(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &r, nil
}

// checkTimes refuses a file that the bench cannot have written: a result
// timed ("ok") without a time, or with a negative one (a timer too coarse
// for a tiny call may report 0).
func (r *benchReport) checkTimes() error {
	for _, w := range r.Workloads {
		for _, res := range w.Results {
			if res.Status != benchOK {
				continue
			}
			if len(res.SamplesNS) == 0 {
				return fmt.Errorf("workload %s: %s is %q but has no times", w.ID, res.Label, benchOK)
			}
			if slices.Min(res.SamplesNS) < 0 {
				return fmt.Errorf("workload %s: %s has a time of %d ns", w.ID, res.Label, slices.Min(res.SamplesNS))
			}
		}
	}
	return nil
}

// fromSchema1 fills in r, decoded from a schema 1 file b, what schema 1
// held under other names: a target's label was its "name" and
// "implementation" its name and version; a result named its target in
// "target" and timed it in "seconds"; the run's date was "time", the
// platform one string.
func fromSchema1(b []byte, r *benchReport) error {
	var old struct {
		Time     string `json:"time"`
		Go       string `json:"go"`
		Platform string `json:"platform"`
		CPUs     int    `json:"cpus"`
		Targets  []struct {
			Name string `json:"name"`
			Impl string `json:"implementation"`
		} `json:"targets"`
		Memcpy struct {
			Seconds []float64 `json:"seconds"`
		} `json:"memcpy"`
		Workloads []struct {
			Results []struct {
				Target  string    `json:"target"`
				Seconds []float64 `json:"seconds"`
			} `json:"results"`
		} `json:"workloads"`
	}
	if err := json.Unmarshal(b, &old); err != nil {
		return err
	}
	if len(old.Targets) != len(r.Targets) || len(old.Workloads) != len(r.Workloads) {
		return fmt.Errorf("schema 1 file not as written") // cannot happen: the same JSON
	}
	r.Date = old.Time
	r.Machine.GOOS, r.Machine.GOARCH, _ = strings.Cut(old.Platform, "/")
	r.Machine.Go, r.Machine.Cores = old.Go, old.CPUs
	for i, t := range old.Targets {
		r.Targets[i].Label, r.Targets[i].Name, r.Targets[i].Version = t.Name, t.Impl, ""
	}
	r.Memcpy.SamplesNS = nanoseconds(old.Memcpy.Seconds)
	for wi, w := range old.Workloads {
		for ri, res := range w.Results {
			nr := &r.Workloads[wi].Results[ri]
			nr.Label, nr.SamplesNS, nr.Bytes = res.Target, nanoseconds(res.Seconds), r.Workloads[wi].Bytes
		}
	}
	r.finish()
	return nil
}

// benchDelta is one target on one workload in two runs.
type benchDelta struct {
	Workload string
	Label    string
	Old, New *benchResult // nil where the run has no such result
	Ratio    float64      // the new median over the old (both timed)
	P        float64      // the U test's two-sided p-value (both timed)
}

// timed reports whether both runs timed the target on the workload, at
// one size (a workload of another -scale is another benchmark).
func (d *benchDelta) timed() bool {
	return d.Old != nil && d.New != nil && d.Old.Status == benchOK && d.New.Status == benchOK &&
		len(d.Old.SamplesNS) > 0 && len(d.New.SamplesNS) > 0 && !d.resized()
}

// resized reports whether the workload moves another number of bytes in
// the two runs (where both say).
func (d *benchDelta) resized() bool {
	return d.Old.Bytes > 0 && d.New.Bytes > 0 && d.Old.Bytes != d.New.Bytes
}

// significant reports whether the change is beyond the noise of the
// samples (p < compareAlpha).
func (d *benchDelta) significant() bool { return d.timed() && d.P < compareAlpha }

// compareBench pairs the results of two runs by workload and target
// label: NEW's workloads and targets in its order, then what only OLD
// has. An outside implementation whose label changed (its version:
// "mykernel 1.0", then "mykernel 1.1") pairs by its name and command
// where, on that workload, one result of that name is left unpaired on
// each side; its label is then "OLD -> NEW".
func compareBench(old, cur *benchReport) []benchDelta {
	// results are a run's results on workload id, in its order
	results := func(r *benchReport, id string) []*benchResult {
		var rs []*benchResult
		for wi := range r.Workloads {
			if r.Workloads[wi].ID == id {
				for ri := range r.Workloads[wi].Results {
					rs = append(rs, &r.Workloads[wi].Results[ri])
				}
			}
		}
		return rs
	}
	find := func(r *benchReport, id, label string) *benchResult {
		for _, res := range results(r, id) {
			if res.Label == label {
				return res
			}
		}
		return nil
	}
	// unpaired lists a run's results on workload id named name whose
	// label the other run does not have
	unpaired := func(r, other *benchReport, id, name string) []*benchResult {
		return slices.DeleteFunc(results(r, id), func(res *benchResult) bool {
			return res.Name != name || find(other, id, res.Label) != nil
		})
	}
	paired := map[*benchResult]bool{} // OLD's results paired
	var ds []benchDelta
	for wi := range cur.Workloads {
		w := &cur.Workloads[wi]
		for ri := range w.Results {
			res := &w.Results[ri]
			d := benchDelta{Workload: w.ID, Label: res.Label, Old: find(old, w.ID, res.Label), New: res}
			if d.Old == nil && res.Name != "" {
				os, ns := unpaired(old, cur, w.ID, res.Name), unpaired(cur, old, w.ID, res.Name)
				if len(os) == 1 && len(ns) == 1 && sameImpl(old.target(os[0].Label), cur.target(res.Label)) {
					d.Old, d.Label = os[0], os[0].Label+" -> "+res.Label
				}
			}
			if d.Old != nil {
				paired[d.Old] = true
			}
			ds = append(ds, d)
		}
	}
	for wi := range old.Workloads {
		w := &old.Workloads[wi]
		for ri := range w.Results {
			if res := &w.Results[ri]; !paired[res] {
				ds = append(ds, benchDelta{Workload: w.ID, Label: res.Label, Old: res})
			}
		}
	}
	for i := range ds {
		d := &ds[i]
		if !d.timed() {
			continue
		}
		d.Ratio = d.New.MedianNS / d.Old.MedianNS
		_, d.P = mannWhitney(floats(d.New.SamplesNS), floats(d.Old.SamplesNS))
	}
	return ds
}

// sameImpl reports whether two targets are one outside implementation run
// by the same command (a built-in's label never changes: two built-ins
// of one name are two backends, optimized and optimized-deterministic).
func sameImpl(a, b *benchTarget) bool {
	return a != nil && b != nil && a.Kind == "impl" && b.Kind == "impl" && a.Command == b.Command
}

// target is the run's target of this label, or nil.
func (r *benchReport) target(label string) *benchTarget {
	for _, t := range r.Targets {
		if t.Label == label {
			return t
		}
	}
	return nil
}

func floats(ns []int64) []float64 {
	f := make([]float64, len(ns))
	for i, v := range ns {
		f[i] = float64(v)
	}
	return f
}

// runDesc describes a run in one line for the comparison's header.
func runDesc(r *benchReport) string {
	m := r.Machine
	s := fmt.Sprintf("%s, %s/%s", orDefault(r.Date, "no date"), m.GOOS, m.GOARCH)
	if m.CPUModel != "" {
		s += ", " + m.CPUModel
	}
	s += fmt.Sprintf(", %d CPUs, %d calls, profile %s", m.Cores, r.Repeat, r.Profile)
	if r.Scale > 1 {
		s += fmt.Sprintf(", -scale %d", r.Scale)
	}
	return s
}

// printCompare writes the comparison of two runs.
func printCompare(w io.Writer, oldName string, old *benchReport, newName string, cur *benchReport) {
	fmt.Fprintf(w, "scattercheck bench -compare: the change from OLD to NEW, by workload and target label\n")
	fmt.Fprintf(w, "  OLD %s: %s\n  NEW %s: %s\n", oldName, runDesc(old), newName, runDesc(cur))
	var notes []string
	for _, r := range []struct {
		which string
		rep   *benchReport
	}{{"OLD", old}, {"NEW", cur}} {
		if r.rep.Incomplete != "" {
			notes = append(notes, r.which+" was cut short ("+r.rep.Incomplete+"): its workloads after that are missing")
		}
	}
	if old.Scale != cur.Scale {
		notes = append(notes, fmt.Sprintf("OLD ran at -scale %d, NEW at %d: the workloads differ", old.Scale, cur.Scale))
	}
	if old.Profile != cur.Profile {
		notes = append(notes, fmt.Sprintf("OLD ran the built-ins under %s, NEW under %s (W7 differs)", old.Profile, cur.Profile))
	}
	if om, nm := old.Machine, cur.Machine; om.GOOS != nm.GOOS || om.GOARCH != nm.GOARCH || om.CPUModel != nm.CPUModel || om.Cores != nm.Cores {
		notes = append(notes, "the runs are on different machines (or CPUs available)")
	}
	for _, n := range notes {
		fmt.Fprintln(w, "  note:", n)
	}
	fmt.Fprintf(w, "  p: two-sided Mann-Whitney U test of the timed samples; a change is shown when p < %.2f, else ~\n", compareAlpha)
	fmt.Fprintf(w, "  (exact without ties up to %d samples in all, else the normal approximation; with 3 samples\n", exactUMax)
	fmt.Fprintf(w, "  in each run p is at least 0.1, so no change can show: give -repeat 4 or more)\n\n")
	if len(old.Memcpy.SamplesNS) > 0 && len(cur.Memcpy.SamplesNS) > 0 {
		_, p := mannWhitney(floats(cur.Memcpy.SamplesNS), floats(old.Memcpy.SamplesNS))
		fmt.Fprintf(w, "memory copy (the machine's state): median %s GB/s in OLD, %s GB/s in NEW (p %.3f)\n\n",
			fmtGBs(old.Memcpy.MedianGBs), fmtGBs(cur.Memcpy.MedianGBs), p)
	}
	ds := compareBench(old, cur)
	labelW := len("target")
	for _, d := range ds {
		labelW = max(labelW, len(d.Label))
	}
	header := fmt.Sprintf("%-8s  %-*s  %10s  %10s  %7s  %8s  %6s  %-8s  %s", "workload", labelW, "target", "old ms", "new ms", "new/old",
		"change", "p", "verdict", "peak RSS old -> new")
	fmt.Fprintln(w, header)
	fmt.Fprintln(w, strings.Repeat("-", len(header)))
	prev := ""
	type acc struct {
		n      int
		logSum float64
	}
	geo := map[string]*acc{}
	var order []string
	for _, d := range ds {
		id := d.Workload
		if id == prev {
			id = ""
		}
		prev = d.Workload
		if !d.timed() {
			fmt.Fprintf(w, "%-8s  %-*s  %s\n", id, labelW, d.Label, whyNotCompared(d))
			continue
		}
		verdict := "~"
		if d.significant() {
			verdict = "faster"
			if d.Ratio > 1 {
				verdict = "slower"
			}
		}
		rss := ""
		if d.Old.PeakRSS > 0 || d.New.PeakRSS > 0 {
			rss = rssOrDash(d.Old.PeakRSS) + " -> " + rssOrDash(d.New.PeakRSS)
		}
		line := fmt.Sprintf("%-8s  %-*s  %10s  %10s  %7.3f  %+7.1f%%  %6.3f  %-8s  %s", id, labelW, d.Label, fmtMS(d.Old.MedianNS/1e6),
			fmtMS(d.New.MedianNS/1e6), d.Ratio, 100*(d.Ratio-1), d.P, verdict, rss)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		a := geo[d.Label]
		if a == nil {
			a = &acc{}
			geo[d.Label] = a
			order = append(order, d.Label)
		}
		a.n++
		a.logSum += math.Log(d.Ratio)
	}
	if len(order) > 0 {
		fmt.Fprintln(w, "\ngeometric mean of new/old over the workloads both runs timed:")
		for _, l := range order {
			a := geo[l]
			g := math.Exp(a.logSum / float64(a.n))
			fmt.Fprintf(w, "  %-*s  %.3f (%+.1f%%) over %d workloads\n", labelW, l, g, 100*(g-1), a.n)
		}
	}
}

func rssOrDash(n int64) string {
	if n <= 0 {
		return "-"
	}
	return rssSize(n)
}

// whyNotCompared says why a target on a workload has no comparison.
func whyNotCompared(d benchDelta) string {
	status := func(r *benchResult) string {
		if r.Reason == "" {
			return r.Status
		}
		return r.Status + ": " + r.Reason
	}
	switch {
	case d.Old == nil:
		return "only in NEW (" + status(d.New) + ")"
	case d.New == nil:
		return "only in OLD (" + status(d.Old) + ")"
	case d.Old.Status != benchOK:
		return "not timed in OLD: " + status(d.Old)
	case d.New.Status != benchOK:
		return "not timed in NEW: " + status(d.New)
	case d.resized():
		return fmt.Sprintf("not compared: the workload moves %d bytes in OLD, %d in NEW (another -scale)", d.Old.Bytes, d.New.Bytes)
	}
	return "no samples"
}
