package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/spec"
	"github.com/scatterconf/scatter/workload"
)

// scattercheck merge OUT.json IN.json...: the -json reports of the shards
// of a run (-shard i/n), or of any runs, joined into one report of the
// same schema, and optionally one JUnit file. Runs of the same
// implementation (name, version, command), profile and level become one
// run whose cases are those of all its inputs, in the order of an
// unsharded run; the summary, matrix and features are counted again.

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scattercheck merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	junit := fs.String("junit", "", "also write the merged report as JUnit XML to this file")
	strictXfail := fs.Bool("strict-xfail", false, "an expected failure that passed (XPASS) fails the merged run")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: scattercheck merge [-junit FILE] [-strict-xfail] OUT.json IN.json...\n\n"+
			"Joins the -json reports of a run's shards (-shard i/n) into one report; exits 0 when it conforms.\n\n")
		fs.PrintDefaults()
	}
	// flags may come before or after the file names
	var files []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) < 2 {
		fs.Usage()
		return 2
	}
	if err := refuseOverwrite(files[0], files[1:]); err != nil {
		fmt.Fprintln(stderr, "scattercheck merge:", err)
		return 2
	}
	var ins []mergeInput
	for _, path := range files[1:] {
		b, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(stderr, "scattercheck merge:", err)
			return 2
		}
		var rep jsonReport
		if err := json.Unmarshal(b, &rep); err != nil {
			fmt.Fprintf(stderr, "scattercheck merge: %s: %v\n", path, err)
			return 2
		}
		if rep.Tool != "scattercheck" || rep.Schema != jsonSchema {
			fmt.Fprintf(stderr, "scattercheck merge: %s: not a scattercheck -json report of schema %d (tool %q, schema %d)\n",
				path, jsonSchema, rep.Tool, rep.Schema)
			return 2
		}
		if err := checkCases(rep); err != nil {
			fmt.Fprintf(stderr, "scattercheck merge: %s: %v\n", path, err)
			return 2
		}
		ins = append(ins, mergeInput{name: path, rep: rep})
	}
	out, runs, err := mergeReports(ins, *strictXfail)
	if err != nil {
		fmt.Fprintln(stderr, "scattercheck merge:", err)
		return 2
	}
	if err := writeJSONFile(files[0], out); err != nil {
		fmt.Fprintln(stderr, "scattercheck merge:", err)
		return 2
	}
	if *junit != "" {
		// each run's own StrictXfail (the flag's, or an input's) decides
		// its XPASS, as in the JSON
		if err := writeJUnit(*junit, runs, *strictXfail); err != nil {
			fmt.Fprintln(stderr, "scattercheck merge:", err)
			return 2
		}
	}
	for _, r := range runs {
		fmt.Fprintln(stdout, r.title())
		r.printFailures(stdout, false)
	}
	for _, w := range out.Warnings {
		fmt.Fprintln(stdout, "warning:", w)
	}
	if !out.Complete {
		fmt.Fprintln(stdout, "INCOMPLETE:", out.Incomplete)
		return 1
	}
	if !out.Conforms {
		fmt.Fprintln(stdout, "FAIL: the implementation does not conform")
		return 1
	}
	fmt.Fprintln(stdout, "PASS: conforms")
	return 0
}

// refuseOverwrite refuses an OUT that is one of the inputs, or that holds
// a shard's report (the merged report's name forgotten: the first shard
// would be overwritten by the merge of the others).
func refuseOverwrite(out string, ins []string) error {
	oi, err := os.Stat(out)
	if err != nil {
		return nil // a new file
	}
	for _, in := range ins {
		if ii, err := os.Stat(in); err == nil && os.SameFile(oi, ii) {
			return fmt.Errorf("%s is both the merged report and an input: the merged report's file comes first (OUT.json IN.json...)", out)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil
	}
	var rep jsonReport
	if json.Unmarshal(b, &rep) != nil || rep.Tool != "scattercheck" {
		return nil
	}
	for _, jr := range rep.Runs {
		if jr.Shard != "" {
			return fmt.Errorf("%s holds the report of shard %s: the merged report's file comes first (scattercheck merge OUT.json IN.json...); it is not overwritten",
				out, jr.Shard)
		}
	}
	return nil
}

// checkCases refuses a report whose cases the gate cannot have written: a
// status it does not use, or a failed case (fail, unsupported, xfail)
// without its failure.
func checkCases(rep jsonReport) error {
	for _, jr := range rep.Runs {
		for _, jc := range jr.Cases {
			switch jc.Status {
			case stPass, stSkip, stXpass:
			case stFail, stUnsup, stXfail:
				if jc.Failure == nil {
					return fmt.Errorf("case %q of %q has status %s but no failure", jc.ID, jr.Implementation.Name, jc.Status)
				}
			default:
				return fmt.Errorf("case %q of %q has the status %q (the gate writes pass, fail, skip, unsupported, xfail, xpass)",
					jc.ID, jr.Implementation.Name, string(jc.Status))
			}
		}
	}
	return nil
}

// mergeInput is one report to merge and the file it came from.
type mergeInput struct {
	name string
	rep  jsonReport
}

// mergedRun gathers the inputs of one merged run.
type mergedRun struct {
	r           *runReport
	shards      []string
	ids         map[string]bool
	hadNothing  bool     // an input run had its gate/nothing-passed case
	notStarted  []string // the inputs whose implementation did not start
	stderrParts []string
	// settings maps each input's settings (seed, -checks and
	// runReport.Settings) to the inputs that ran with them
	settings map[string][]string
	// choices are the shards' choices of cases (suites, selection): one
	// when they chose alike
	choices map[string]bool
}

// mergeReports joins reports; it returns the merged report and its runs.
func mergeReports(inputs []mergeInput, strictXfail bool) (jsonReport, []*runReport, error) {
	var order []string
	byKey := map[string]*mergedRun{}
	warnCount := map[string]int{}
	var warnOrder []string
	complete := true
	var incomplete []string
	versions := map[string][]string{} // tool version -> inputs
	for _, input := range inputs {
		in := input.rep
		if in.ToolVersion != "" {
			versions[in.ToolVersion] = append(versions[in.ToolVersion], input.name)
		}
		if !in.Complete {
			complete = false
			if in.Incomplete != "" {
				incomplete = append(incomplete, inputLabel(input)+": "+in.Incomplete)
			}
		}
		for _, w := range in.Warnings {
			if warnCount[w] == 0 {
				warnOrder = append(warnOrder, w)
			}
			warnCount[w]++
		}
		for _, jr := range in.Runs {
			key := strings.Join([]string{jr.Implementation.Name, jr.Implementation.Version, jr.Implementation.Command,
				jr.Profile, jr.Level}, "\x00")
			m := byKey[key]
			if m == nil {
				p, err := scatter.ParseProfile(jr.Profile)
				if err != nil {
					return jsonReport{}, nil, fmt.Errorf("run of %s: profile %q: %v", jr.Implementation.Name, jr.Profile, err)
				}
				lvl, err := scatter.ParseLevel(jr.Level)
				if err != nil {
					return jsonReport{}, nil, fmt.Errorf("run of %s: level %q: %v", jr.Implementation.Name, jr.Level, err)
				}
				m = &mergedRun{r: &runReport{Impl: jr.Implementation, Profile: p, Level: lvl, Seed: jr.Seed, Checks: jr.Checks,
					Suites: slices.Clone(jr.Suites), Settings: jr.Settings}, ids: map[string]bool{}, settings: map[string][]string{},
					choices: map[string]bool{}}
				byKey[key] = m
				order = append(order, key)
			}
			label := fileLabel(input.name, jr.Shard)
			set := fmt.Sprintf("seed %d, checks %d", jr.Seed, jr.Checks)
			if jr.Settings != "" {
				set += ", " + jr.Settings
			}
			m.settings[set] = append(m.settings[set], label)
			m.r.StrictXfail = m.r.StrictXfail || jr.StrictXfail
			if jr.Implementation.Name == notStarted {
				m.notStarted = append(m.notStarted, label)
			}
			for _, s := range jr.Suites {
				if !slices.Contains(m.r.Suites, s) {
					m.r.Suites = append(m.r.Suites, s)
				}
			}
			if jr.Shard != "" {
				m.shards = append(m.shards, jr.Shard)
				choice := "-suites " + strings.Join(jr.Suites, ",")
				if jr.Selection != "" {
					choice += " " + jr.Selection
				}
				m.choices[choice] = true
			}
			if m.r.Selection == "" {
				m.r.Selection = jr.Selection
			}
			m.r.Duration += time.Duration(jr.Seconds * float64(time.Second))
			m.r.Restarts += jr.Restarts
			for _, n := range jr.Notes {
				if !slices.Contains(m.r.Notes, n) {
					m.r.Notes = append(m.r.Notes, n)
				}
			}
			if jr.StderrTail != "" {
				m.stderrParts = append(m.stderrParts, jr.StderrTail)
			}
			for _, jc := range jr.Cases {
				if jc.ID == "gate/nothing-passed" {
					m.hadNothing = true
					continue
				}
				if m.ids[jc.ID] && !strings.HasPrefix(jc.ID, "gate/") {
					return jsonReport{}, nil, fmt.Errorf("case %s of %s (%s) is in more than one input: overlapping shards, or the same report twice",
						jc.ID, jr.Implementation.Name, jr.Profile)
				}
				m.ids[jc.ID] = true
				m.r.Cases = append(m.r.Cases, caseFromJSON(jc))
			}
		}
	}

	// shards of another version may run other cases, or judge them
	// otherwise: not one run
	versionGap := ""
	if len(versions) > 1 {
		versionGap = "the inputs were written by different versions of scattercheck (" + groupsText(versions) + ")"
	}
	var warnings []string
	for _, w := range warnOrder {
		// an xfail entry unmatched in one shard may match in another
		if strings.HasSuffix(w, " matches no case") && warnCount[w] < len(inputs) {
			continue
		}
		warnings = append(warnings, w)
	}
	rank := canonicalCaseOrder()
	labels := runLabels(order, byKey)
	var runs []*runReport
	unavailable := map[*runReport]bool{}
	for _, key := range order {
		m := byKey[key]
		r := m.r
		name := labels[key]
		differ := ""
		if len(m.settings) > 1 {
			differ = "the inputs ran with different settings (" + groupsText(m.settings) + ")"
			if len(m.shards) == 0 {
				warnings = append(warnings, fmt.Sprintf("%s: %s; they are merged all the same", name, differ))
			}
		}
		if versionGap != "" && len(m.shards) == 0 {
			warnings = append(warnings, name+": "+versionGap+"; they are merged all the same")
		}
		if r.StrictXfail && !strictXfail {
			r.Notes = append(r.Notes, "-strict-xfail: an input ran with it, so an XPASS fails the merged run too")
		}
		if len(m.shards) > 0 {
			r.Notes = append(r.Notes, "merged from shards "+strings.Join(m.shards, ", "))
			// shards that do not make up one whole run leave cases out
			// that no report shows: the merged run is incomplete
			var gaps []string
			if len(m.notStarted) > 0 {
				gaps = append(gaps, "the implementation did not start in "+strings.Join(m.notStarted, ", "))
			} else if missing := missingShards(m.shards); missing != "" {
				if len(labels) > 1 {
					missing += " (the inputs hold runs of more than one implementation, version, command, profile or level, merged apart)"
				}
				gaps = append(gaps, missing)
			}
			if len(m.choices) > 1 {
				gaps = append(gaps, "the shards chose different cases ("+strings.Join(slices.Sorted(maps.Keys(m.choices)), "; ")+
					"), or were run by different versions of scattercheck")
			}
			if differ != "" {
				// different seeds, -checks, xfail files or send flags:
				// not the cases and rules of one run
				gaps = append(gaps, differ)
			}
			if versionGap != "" {
				gaps = append(gaps, versionGap)
			}
			if len(gaps) > 0 {
				why := fmt.Sprintf("%s: %s", name, strings.Join(gaps, "; "))
				complete = false
				incomplete = append(incomplete, why)
				r.Cases = append(r.Cases, incompleteCase("the merged run is incomplete: "+why+"; the cases of the shards not merged are not in this report"))
			}
		}
		r.StderrTail = strings.Join(m.stderrParts, "\n")
		sort.SliceStable(r.Cases, func(i, j int) bool {
			ri, okI := rank[r.Cases[i].ID]
			rj, okJ := rank[r.Cases[j].ID]
			switch {
			case okI && okJ:
				return ri < rj
			case okI != okJ:
				return okI
			}
			return sourceRank(r.Cases[i].Source) < sourceRank(r.Cases[j].Source)
		})
		// a pinned expected failure holds only while its recorded
		// likely bug is one of the pins (xfail.go)
		warnings = append(warnings, r.recheckPins()...)
		if !m.hadNothing {
			unavailable[r] = true // no input ran into it: a built-in unavailable here
		}
		runs = append(runs, r)
	}
	if complete {
		checkNothingPassed(runs, unavailable)
	}
	ok := complete
	for _, r := range runs {
		r.StrictXfail = r.StrictXfail || strictXfail
		ok = ok && r.conforms(r.StrictXfail)
	}
	out := buildJSON(runs, warnings, ok)
	out.Complete = complete
	out.Incomplete = strings.Join(incomplete, "; ")
	return out, runs, nil
}

// inputLabel names an input in a message: its file, and its shards.
func inputLabel(in mergeInput) string {
	var shards []string
	for _, jr := range in.rep.Runs {
		if jr.Shard != "" && !slices.Contains(shards, jr.Shard) {
			shards = append(shards, jr.Shard)
		}
	}
	return fileLabel(in.name, shards...)
}

// fileLabel is "FILE" or "FILE (shard I/N, ...)".
func fileLabel(name string, shards ...string) string {
	if shards = slices.DeleteFunc(shards, func(s string) bool { return s == "" }); len(shards) == 0 {
		return name
	}
	return name + " (shard " + strings.Join(shards, ", ") + ")"
}

// groupsText writes what the inputs differ in, by value: "a, b: X; c: Y".
func groupsText(byValue map[string][]string) string {
	var gs []string
	for _, v := range slices.Sorted(maps.Keys(byValue)) {
		gs = append(gs, strings.Join(byValue[v], ", ")+": "+v)
	}
	return strings.Join(gs, "; ")
}

// runLabels names each merged run in messages: "NAME (PROFILE)", or,
// where runs of one name were merged apart, everything that tells them
// apart (version, profile, level, command).
func runLabels(order []string, byKey map[string]*mergedRun) map[string]string {
	perName := map[string]int{}
	for _, key := range order {
		perName[byKey[key].r.Impl.Name]++
	}
	labels := map[string]string{}
	for _, key := range order {
		r := byKey[key].r
		if perName[r.Impl.Name] == 1 {
			labels[key] = fmt.Sprintf("%s (%v)", r.Impl.Name, r.Profile)
			continue
		}
		labels[key] = fmt.Sprintf("%s %s (%v, %v level, -impl %s)", r.Impl.Name, r.Impl.Version, r.Profile, r.Level, shQuote(r.Impl.Command))
	}
	return labels
}

// caseFromJSON is a case of a -json report as the gate holds it.
func caseFromJSON(jc jsonCase) *caseResult {
	cr := &caseResult{ID: jc.ID, Source: jc.Source, Origin: jc.Truth, Op: scatter.Op(jc.Op), Features: jc.Features,
		Status: jc.Status, Reason: jc.Reason, ErrorsOnly: jc.ErrorsOnly, XfailLike: jc.XfailLike, Seconds: jc.Seconds, Checks: jc.Checks, Seed: jc.Seed, Note: jc.Note}
	if jc.DType != "" {
		if dt, err := scatter.ParseDType(jc.DType); err == nil {
			cr.DType = dt
		}
	}
	if f := jc.Failure; f != nil {
		// no call is kept: classify keeps the recorded likely bug and
		// says why it can compare nothing itself
		cr.Failure = &failure{Kind: f.Kind, Summary: f.Summary, Report: f.Report, Request: f.Request, PyTorch: f.PyTorch,
			Shrunk: f.Shrunk, Stderr: f.Stderr, Repro: f.Repro, Seed: jc.Seed, Likely: f.LikelyBug}
	}
	return cr
}

// canonicalCaseOrder ranks the case ids in the order an unsharded run
// emits them: spec and fixture cases, random pairs, properties.
func canonicalCaseOrder() map[string]int {
	rank := map[string]int{}
	add := func(id string) {
		if _, ok := rank[id]; !ok {
			rank[id] = len(rank)
		}
	}
	for _, c := range spec.Cases() {
		add(specCaseID(c, caseSource(c)))
	}
	for _, op := range scatter.Ops {
		for _, dt := range scatter.DTypes {
			add(randomCaseID(op, dt))
		}
	}
	for _, name := range properties.Properties() {
		add("property/" + name)
	}
	for w := 1; w <= workload.Count; w++ {
		add(workloadCaseID(w))
	}
	return rank
}

func sourceRank(src string) int {
	if i := slices.Index(allSuites, src); i >= 0 {
		return i
	}
	return len(allSuites)
}

// missingShards says which shards of n are missing or repeated ("" when
// the inputs are exactly shards 1..n of one n).
func missingShards(shards []string) string {
	seen := map[shard]int{}
	counts := map[int]bool{}
	for _, s := range shards {
		sh, err := parseShard(s)
		if err != nil {
			return "an input names shard " + s
		}
		seen[sh]++
		counts[sh.count] = true
	}
	if len(counts) > 1 {
		return "the inputs are shards of different splits: " + strings.Join(shards, ", ")
	}
	var n int
	for c := range counts {
		n = c
	}
	var problems []string
	for i := 1; i <= n; i++ {
		switch seen[shard{i, n}] {
		case 0:
			problems = append(problems, fmt.Sprintf("shard %d/%d is missing", i, n))
		case 1:
		default:
			problems = append(problems, fmt.Sprintf("shard %d/%d is there twice", i, n))
		}
	}
	return strings.Join(problems, "; ")
}
