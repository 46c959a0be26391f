package main

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The dashboard's README (DIR/README.md) is hand-written text around
// generated blocks, each between the lines
//
//	<!-- begin generated: NAME (scattercheck dashboard rewrites this block) -->
//	<!-- end generated: NAME -->
//
// The command rewrites what is inside the blocks, from the reports in DIR
// alone, and keeps every other line as it is: the introduction, how to
// read the table, and the per-framework prose on the differences (why a
// difference is by design or a bug) are written by hand, beside the
// generated list of every expected failure (from the xfail files' reasons
// and the reports) and the repro scripts' output. A block missing from the
// file is appended at its end under a heading; a missing file is written
// from a skeleton.

// The blocks, in the skeleton's order.
var readmeBlocks = []struct{ name, heading string }{
	{"frameworks", "## The frameworks"},
	{"table", "## The table"},
	{"summary", ""},
	{"differences", "## Every difference found, with its case"},
	{"repros", "## The repros, as run"},
}

func beginMarker(name string) string {
	return "<!-- begin generated: " + name + " (scattercheck dashboard rewrites this block) -->"
}

func endMarker(name string) string { return "<!-- end generated: " + name + " -->" }

const readmeSkeleton = `# Real frameworks through the gate

How the scatter operations of other frameworks differ from PyTorch's, as
the gate finds them: ` + "`go run ./tools/scattercheck dashboard`" + ` runs it on every
installed framework and rewrites the generated blocks below from the
reports; the rest of this file is written by hand and kept.
`

// renderReadme rewrites the generated blocks of old (or of the skeleton
// when old is empty) from the reports.
func renderReadme(old string, table []framework, reports []loadedReport) string {
	blocks := map[string]string{
		"frameworks":  renderFrameworks(table, reports),
		"table":       renderTable(reports),
		"summary":     renderSummary(reports),
		"differences": renderDifferences(reports),
		"repros":      renderRepros(reports),
	}
	doc := old
	if strings.TrimSpace(doc) == "" {
		doc = readmeSkeleton
	}
	for _, b := range readmeBlocks {
		begin, end := beginMarker(b.name), endMarker(b.name)
		body := begin + "\n" + strings.TrimRight(blocks[b.name], "\n") + "\n" + end
		i := strings.Index(doc, begin)
		j := strings.Index(doc, end)
		if i >= 0 && j > i {
			doc = doc[:i] + body + doc[j+len(end):]
			continue
		}
		doc = strings.TrimRight(doc, "\n") + "\n\n"
		if b.heading != "" {
			doc += b.heading + "\n\n"
		}
		doc += body + "\n"
	}
	return strings.TrimRight(doc, "\n") + "\n"
}

// mdCell makes text safe in a Markdown table cell: one line, pipes
// escaped, at most n runes.
func mdCell(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// mdCode is s as a code span in a table cell.
func mdCode(s string, n int) string {
	s = mdCell(s, n)
	if s == "" {
		return ""
	}
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

func renderFrameworks(table []framework, reports []loadedReport) string {
	var b strings.Builder
	b.WriteString("| framework | version (its hello) | adapter | environment | xfail file | report | gate run |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	have := map[string]bool{}
	for _, lr := range reports {
		have[lr.fw.Name] = true
		fw := lr.fw
		adapter, env := fw.Adapter, "`tools/adapters/install "+fw.Install+"`"
		switch {
		case fw.Install == "":
			adapter, env = fw.Command, "`"+fw.Ready+"`"
		case adapter == "":
			adapter = "(the installed binary)"
		}
		xf := "—" // none, or no such file: nothing is expected to fail
		if _, err := os.Stat(fw.Xfail); fw.Xfail != "" && err == nil {
			xf = "`" + strings.TrimPrefix(fw.Xfail, "tools/adapters/") + "`"
		}
		for _, r := range lr.rep.Runs {
			gate := r.Level
			if d := lr.rep.Dashboard; d != nil {
				gate = fmt.Sprintf("%s, %.0f s", r.Level, d.Seconds)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | [%s](%s) (%s) | %s |\n", mdCell(r.Implementation.Name, 60),
				mdCell(r.Implementation.Version, 80), mdCode(adapter, 120), env, xf, lr.file, lr.file, sizeText(lr.size), gate)
		}
	}
	var missing []string
	for _, fw := range table {
		if !have[fw.Name] {
			how := "`tools/adapters/install " + fw.Install + "`"
			if fw.Install == "" {
				how = "`" + fw.Ready + "`"
			}
			missing = append(missing, fw.Name+" ("+how+")")
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\nNot installed when the dashboard last ran, so not here: %s.\n", strings.Join(missing, ", "))
	}
	return b.String()
}

func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", (n+1023)/1024)
}

// renderTable is the framework × operation × dtype table: one row per
// operation a framework claims and the gate ran.
func renderTable(reports []loadedReport) string {
	var b strings.Builder
	b.WriteString("| framework | version | operation | " + strings.Join(tableDTypes, " | ") + " |\n")
	b.WriteString("|---|---|---|" + strings.Repeat("---|", len(tableDTypes)) + "\n")
	for _, lr := range reports {
		for _, r := range lr.rep.Runs {
			cells := runCells(r)
			ran := map[string]bool{}
			for k := range cells {
				ran[k[0]] = true
			}
			first := true
			for _, op := range claimedOps(r) {
				if !ran[op] {
					continue
				}
				name, version := "", ""
				if first {
					name = fmt.Sprintf("%s ([report](%s))", mdCell(r.Implementation.Name, 60), lr.file)
					version = mdCell(r.Implementation.Version, 80)
					first = false
				}
				vals := make([]string, len(tableDTypes))
				for i, dt := range tableDTypes {
					vals[i] = cellText[cells[[2]string{op, dt}]]
				}
				fmt.Fprintf(&b, "| %s | %s | `%s` | %s |\n", name, version, op, strings.Join(vals, " | "))
			}
		}
	}
	return b.String()
}

func renderSummary(reports []loadedReport) string {
	var b strings.Builder
	for _, lr := range reports {
		for i, r := range lr.rep.Runs {
			fmt.Fprintf(&b, "- %s %s (%s, %s, seed %d, %d checks): %s", mdCell(r.Implementation.Name, 60),
				mdCell(r.Implementation.Version, 80), r.Profile, r.Level, r.Seed, r.Checks, summaryLine(r.Summary))
			if d := lr.rep.Dashboard; d != nil {
				fmt.Fprintf(&b, "; the gate ran %.0f s", d.Seconds)
				if i < len(d.Omitted) {
					om := d.Omitted[i]
					fmt.Fprintf(&b, "; the report lists %d cases (%d passed and %d skipped are counted only)", len(r.Cases), om.Pass, om.Skip)
				}
			}
			if lr.rep.Conforms {
				b.WriteString("; passes\n")
			} else {
				b.WriteString("; **does not pass**\n")
			}
		}
		for _, w := range lr.rep.Warnings {
			fmt.Fprintf(&b, "  - warning: %s\n", mdCell(w, 300))
		}
	}
	return b.String()
}

var callLine = regexp.MustCompile(`(?m)^\s*call:\s*(.+)$`)

var (
	elementOutcome = regexp.MustCompile(`(?m)((?:out|arg)\[[^\]]*\]): got (.+?), allowed (.+)$`)
	callOutcome    = regexp.MustCompile(`(?m)(succeeded|returned error .+?), want (.+)$`)
)

// splitOutcome splits a failure into what PyTorch does (what the judge
// allowed) and what the framework did, from its summary, else from the
// judge's report.
func splitOutcome(f *jsonFailure) (pytorch, got string) {
	for _, text := range []string{f.Summary, f.Report} {
		if m := elementOutcome.FindStringSubmatch(text); m != nil {
			return m[3], m[1] + " = " + m[2]
		}
		if m := callOutcome.FindStringSubmatch(text); m != nil {
			return m[2], m[1]
		}
	}
	return "", f.Summary
}

var tensorShape = regexp.MustCompile(`\b(?:bool|u?int\d+|b?float\d+)\[([\d, ]*)\]`)

// callSize is the number of elements of a call's tensors (from the
// judge's rendering of the call), the measure of the smallest case.
func callSize(call string) int {
	if call == "" {
		return 1 << 62
	}
	n := 0
	for _, m := range tensorShape.FindAllStringSubmatch(call, -1) {
		e := 1
		for _, d := range strings.Split(m[1], ",") {
			if d = strings.TrimSpace(d); d != "" {
				k, _ := strconv.Atoi(d)
				e *= k
			}
		}
		n += e
	}
	return n
}

// difference is one row of the differences: the cases of one run that
// share an xfail reason (or that failed with no entry).
type difference struct {
	reason  string
	status  status
	cases   []jsonCase
	example jsonCase // the one with the shortest call
}

func caseCall(c jsonCase) string {
	if c.Failure == nil {
		return ""
	}
	if m := callLine.FindStringSubmatch(c.Failure.Report); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// runDifferences groups a run's non-passing cases by reason.
func runDifferences(r jsonRun) []*difference {
	by := map[string]*difference{}
	var order []string
	for _, c := range r.Cases {
		var key string
		switch c.Status {
		case stXfail, stXpass:
			key = c.Reason
		case stFail, stUnsup:
			key = "no xfail entry"
		default:
			continue
		}
		key = string(c.Status) + "\x00" + key
		d := by[key]
		if d == nil {
			d = &difference{reason: c.Reason, status: c.Status, example: c}
			by[key] = d
			order = append(order, key)
		}
		d.cases = append(d.cases, c)
		ec, cc := caseCall(d.example), caseCall(c)
		if es, cs := callSize(ec), callSize(cc); cs < es || cs == es && len(cc) < len(ec) {
			d.example = c
		}
	}
	out := make([]*difference, len(order))
	for i, k := range order {
		out[i] = by[k]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].status == stFail && out[j].status != stFail })
	return out
}

// renderDifferences lists, per framework, every difference: its reason
// (the xfail entry's), how many cases show it, and its smallest case with
// the call, what PyTorch does and what the framework did.
func renderDifferences(reports []loadedReport) string {
	var b strings.Builder
	for _, lr := range reports {
		for _, r := range lr.rep.Runs {
			fmt.Fprintf(&b, "### %s %s\n\n", mdCell(r.Implementation.Name, 60), mdCell(r.Implementation.Version, 80))
			diffs := runDifferences(r)
			if len(diffs) == 0 {
				b.WriteString("No difference: every case run passed.\n\n")
				continue
			}
			b.WriteString("| difference | cases | smallest case | the call | PyTorch | " + mdCell(r.Implementation.Name, 40) + " |\n")
			b.WriteString("|---|---|---|---|---|---|\n")
			for _, d := range diffs {
				what := d.reason
				switch d.status {
				case stFail, stUnsup:
					what = "**FAIL, no xfail entry**"
				case stXpass:
					what = "passed, though expected to fail: " + d.reason
				}
				ex := d.example
				pt, got := "", ""
				if ex.Failure != nil {
					pt, got = splitOutcome(ex.Failure)
				}
				fmt.Fprintf(&b, "| %s | %d | `%s` | %s | %s | %s |\n", mdCell(what, 300), len(d.cases), mdCell(ex.ID, 120),
					mdCode(caseCall(ex), 220), mdCell(pt, 120), mdCell(got, 160))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// renderRepros is each repro script's output as the dashboard last ran
// it (kept in the reports), once per script; the cache folder is written
// as ${SCATTER_CACHE:-$HOME/.cache/scatter}, so that a command shown runs
// as it is, whether SCATTER_CACHE is set or not.
func renderRepros(reports []loadedReport) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, lr := range reports {
		d := lr.rep.Dashboard
		if d == nil || d.Repro == "" || d.ReproOutput == "" || seen[d.Repro] {
			continue
		}
		seen[d.Repro] = true
		// the cache folder as the environment variable that names it
		out := strings.ReplaceAll(d.ReproOutput, cacheDir()+"/", "${SCATTER_CACHE:-$HOME/.cache/scatter}/")
		fmt.Fprintf(&b, "`%s` (run beside the %s report):\n\n```\n%s\n```\n\n", d.Repro, lr.fw.Name, out)
	}
	if b.Len() == 0 {
		b.WriteString("No repro script has been run.\n")
	}
	return b.String()
}
