// Command gen records fixtures from PyTorch: it enumerates cases, sends
// each to a PyTorch adapter through the protocol (protocol.Client), and
// writes what PyTorch answered into the fixtures folder, one folder per
// case (layout: package fixtures/casefile), with MANIFEST.json.
//
// From the module root:
//
//	go run ./tools/gen                       # torch-1.13 from Debian's /usr/bin/python3
//	go run ./tools/gen -profile torch-2 -adapter 'python3 tools/adapters/torch_adapter.py'
//
// The cases: every spec case (spec.Cases(): the documented examples, the
// rule pairs, the SEMANTICS.md §12 edge cases and the regressions, not the
// fixtures themselves nor the large sizes cases), then -n seeded random cases (math/rand/v2, -seed)
// for every operation × dtype × reduce × include_self combination that
// callgen.Combos lists (three times -n for the operations with one
// combination per dtype), then -large cases of about 1–4K elements per
// operation. Calls the protocol cannot express, calls whose outcome is
// undefined (the judge accepts anything) and duplicates are left out.
//
// Regenerating with the same seed, flags and torch gives identical files:
// nothing depends on time, paths or map order. The folder of the profile
// is replaced; the other profiles' folders and manifest entries are kept.
package main

import (
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing/fstest"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/fixtures"
	"github.com/scatterconf/scatter/fixtures/casefile"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/spec"
)

// The defaults: Debian's PyTorch 1.13 through the repository's adapter.
const (
	defaultAdapter = "/usr/bin/python3 tools/adapters/torch_adapter.py"
	adapterScript  = "tools/adapters/torch_adapter.py"
	emulations     = "torch_scatter (1.x scatter_add, 2.x scatter) and the F# Tensor library emulated on torch as SEMANTICS.md §8/§9 describe"
	emulationsTS   = "torch_scatter 2.x scatter on the real library; torch_scatter 1.x scatter_add and the F# Tensor library emulated on torch as SEMANTICS.md §8/§9 describe"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type options struct {
	adapter string
	out     string
	seed    uint64
	n       int
	large   int
	profile scatter.Profile
	force   bool
	verbose bool
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("gen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var o options
	fl.StringVar(&o.adapter, "adapter", defaultAdapter, "the adapter command (run with sh -c)")
	fl.StringVar(&o.out, "out", "fixtures", "the fixtures folder")
	fl.Uint64Var(&o.seed, "seed", 1, "the seed of the random cases")
	fl.IntVar(&o.n, "n", 4, "random cases per combination")
	fl.IntVar(&o.large, "large", 3, "large cases (about 1–4K elements) per operation")
	prof := fl.String("profile", "torch-1.13", "the profile the recorded truth belongs to: torch-2, torch-2.8, torch-2.6 or torch-1.13")
	fl.BoolVar(&o.force, "force", false, "record even if the torch version does not match the profile")
	fl.BoolVar(&o.verbose, "v", false, "print every disagreement with the oracle in full")
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./tools/gen [flags]\n\nRecords PyTorch's answers to the suite's cases as fixtures.\n\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 || o.n < 0 || o.large < 0 {
		fl.Usage()
		return 2
	}
	p, err := scatter.ParseProfile(*prof)
	if err != nil {
		fmt.Fprintln(stderr, "gen:", err)
		return 2
	}
	o.profile = p
	if err := record(o, stdout); err != nil {
		fmt.Fprintln(stderr, "gen:", err)
		return 1
	}
	return 0
}

// pending is a case to record.
type pending struct {
	op     scatter.Op
	slug   string
	source string
	call   scatter.Call
}

// errNoCode is an outcome no defined call accepts: the judge accepts it
// only for a call whose outcome is undefined.
var errNoCode = errors.New("probe")

// cases enumerates the cases in a fixed order.
func cases(o options) (cs []pending, skipped map[string]int) {
	skipped = map[string]int{}
	seen := map[string]bool{}
	add := func(pc pending) {
		line, err := protocol.EncodeCall(0, pc.call)
		if err != nil {
			skipped["the protocol cannot express the call"]++
			return
		}
		if reference.Judge(pc.call, o.profile, scatter.Strict, scatter.Result{}, errNoCode) == nil {
			skipped["the outcome is undefined"]++
			return
		}
		if seen[string(line)] {
			skipped["a duplicate of an earlier case"]++
			return
		}
		seen[string(line)] = true
		cs = append(cs, pc)
	}
	for _, c := range spec.Cases() {
		// not the fixtures themselves, nor the large sizes cases: their
		// truth is arithmetic, and their tensors (up to 131,075
		// elements) would add some 55 MB to each profile's fixtures
		if slices.Contains(c.Labels, "fixture") || slices.Contains(c.Labels, "large") {
			continue
		}
		name := strings.TrimPrefix(c.Name, string(c.Call.Op())+"/")
		add(pending{op: c.Call.Op(), slug: "spec-" + name, source: "spec: " + c.Name, call: c.Call})
	}
	for _, combo := range callgen.Combos("") {
		k := o.n
		if len(callgen.Combos(combo.Op)) == len(scatter.DTypes) {
			k *= 3 // one combination per dtype: more cases each
		}
		r := rand.New(rand.NewPCG(o.seed, hash(combo.String())))
		for i := range k {
			call := callgen.ComboCall(callgen.Rand(r), combo, callgen.ComboOptions{})
			add(pending{op: combo.Op, slug: combo.Slug("-"), call: call,
				source: fmt.Sprintf("random seed %d %s #%d", o.seed, combo, i)})
		}
	}
	for _, op := range scatter.Ops {
		// the large cases keep to the dtypes whose accumulation matters
		combos := slices.DeleteFunc(callgen.Combos(op), func(c callgen.Combo) bool {
			return !slices.Contains([]scatter.DType{scatter.DTFloat16, scatter.DTBFloat16, scatter.DTFloat32, scatter.DTInt64}, c.DType) ||
				c.Reduce == scatter.ReduceMultiply
		})
		r := rand.New(rand.NewPCG(o.seed, hash(string(op)+"/large")))
		for i := range o.large {
			combo := combos[r.IntN(len(combos))]
			call := callgen.ComboCall(callgen.Rand(r), combo, callgen.ComboOptions{Large: true})
			add(pending{op: op, slug: combo.Slug("-") + "-large", call: call,
				source: fmt.Sprintf("random seed %d %s large #%d", o.seed, combo, i)})
		}
	}
	return cs, skipped
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.]+`)

// slugify makes a folder name from s: letters, digits, '_', '.' and '-'.
func slugify(s string) string {
	s = strings.Trim(unsafeChars.ReplaceAllString(s, "-"), "-.")
	if len(s) > 72 {
		s = strings.TrimRight(s[:72], "-.")
	}
	return s
}

// adapterName is how provenance names the adapter: the repository's
// script, or the command as given.
func adapterName(cmd string) string {
	if strings.Contains(cmd, adapterScript) {
		return adapterScript
	}
	return cmd
}

// versionFits reports whether a torch version gives profile p's truth.
func versionFits(p scatter.Profile, version string) bool {
	q, _ := scatter.ProfileFor(version)
	return q == p
}

func record(o options, w io.Writer) error {
	start := time.Now()
	client, err := protocol.NewClient(o.adapter, protocol.ClientOptions{Timeout: 2 * time.Minute})
	if err != nil {
		return err
	}
	defer client.Close()
	info := client.Info()
	if !versionFits(o.profile, info.Version) && !o.force {
		return fmt.Errorf("the adapter runs %s %s, whose truth is not that of profile %v (-force records anyway)",
			info.Name, info.Version, o.profile)
	}
	how := emulations
	if strings.Contains(info.Name, "torch_scatter") {
		how = emulationsTS
	}
	provenance := fmt.Sprintf("%s %s CPU via %s; %s", info.Name, info.Version, adapterName(o.adapter), how)
	cs, skipped := cases(o)
	fmt.Fprintf(w, "gen: %d cases for %v from %s %s (%s)\n", len(cs), o.profile, info.Name, info.Version, o.adapter)

	// Write into a temporary folder (which embedding ignores: its name
	// starts with '.'), and put it in place once everything is written.
	root := filepath.Join(o.out, o.profile.String())
	tmp := filepath.Join(o.out, ".gen-"+o.profile.String())
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	manifest := &casefile.Manifest{Format: casefile.ManifestFormat, Files: map[string]string{}}
	if raw, err := os.ReadFile(filepath.Join(o.out, casefile.ManifestFile)); err == nil {
		if manifest, err = casefile.ParseManifest(raw); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	prefix := o.profile.String() + "/"
	for name := range manifest.Files {
		if strings.HasPrefix(name, prefix) {
			delete(manifest.Files, name)
		}
	}
	manifest.Profiles = slices.DeleteFunc(manifest.Profiles, func(e casefile.ProfileEntry) bool { return e.Profile == o.profile.String() })
	entry := casefile.ProfileEntry{
		Profile: o.profile.String(), TorchVersion: info.Version, Provenance: provenance,
		Command: command(o), Seed: o.seed, N: o.n, Count: map[string]int{},
	}

	type tally struct{ ok, failed int }
	tallies := map[scatter.Op]*tally{}
	var disagreements []string
	unlisted := 0
	for _, pc := range cs {
		res, err := client.Run(pc.call)
		if fixtures.IsCrash(err) {
			// PyTorch's bug: no fixture; the manifest records it, and the
			// client has restarted the adapter.
			name := "unlisted"
			if k, ok := fixtures.KnownCrash(info.Version, pc.call); ok {
				name = k.Name
			} else {
				unlisted++
			}
			line, _ := protocol.EncodeCall(1, pc.call)
			entry.Crashes = append(entry.Crashes, casefile.CrashRecord{Source: pc.source, Crash: name, Outcome: err.Error(), Line: string(line)})
			fmt.Fprintf(w, "gen: %s %s crashed on %s (%s): %s\n", info.Name, info.Version, pc.op, pc.source, name)
			continue
		}
		var pe *protocol.ProcessError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s (%s): %v", pc.op, pc.source, err)
		}
		if scatter.CodeOf(err) == scatter.ErrNotSupported {
			skipped["the adapter declined the call"]++
			continue
		}
		entry.Count[string(pc.op)]++
		f := casefile.Fixture{
			Name:    fmt.Sprintf("%s/%04d-%s", pc.op, entry.Count[string(pc.op)], slugify(pc.slug)),
			Profile: o.profile, TorchVersion: info.Version, Provenance: provenance, Source: pc.source,
			Call: pc.call, Want: res, WantErr: scatter.CodeOf(err),
		}
		if t := tallies[pc.op]; t == nil {
			tallies[pc.op] = &tally{}
		}
		if err != nil {
			var se *scatter.Error
			if !errors.As(err, &se) || se.Code == 0 {
				return fmt.Errorf("%s (%s): an error without a protocol kind: %v", pc.op, pc.source, err)
			}
			f.Message = se.Msg
			f.Want = scatter.Result{}
			tallies[pc.op].failed++
		} else {
			tallies[pc.op].ok++
		}
		if jerr := reference.Judge(pc.call, o.profile, scatter.Strict, f.Want, f.WantError()); jerr != nil {
			msg := fmt.Sprintf("%s (%s): the oracle disagrees with %s %s", f.Name, pc.source, info.Name, info.Version)
			if o.verbose {
				msg += ":\n" + jerr.Error()
			}
			disagreements = append(disagreements, msg)
		}
		files, err := casefile.Files(f)
		if err != nil {
			return err
		}
		if err := checkRoundTrip(f, files); err != nil {
			return err
		}
		dir := filepath.Join(tmp, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				return err
			}
			manifest.Files[f.Dir()+"/"+name] = casefile.Sum(b)
			entry.Bytes += int64(len(b))
		}
		entry.Cases++
	}
	manifest.Profiles = append(manifest.Profiles, entry)
	raw, err := manifest.Encode()
	if err != nil {
		return err
	}
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, root); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, casefile.ManifestFile), raw, 0o644); err != nil {
		return err
	}

	fmt.Fprintf(w, "gen: wrote %d cases, %d files, %.1f MB into %s in %v\n",
		entry.Cases, countPrefix(manifest.Files, prefix), float64(entry.Bytes)/1e6, root, time.Since(start).Round(time.Millisecond))
	for _, op := range scatter.Ops {
		if t := tallies[op]; t != nil {
			fmt.Fprintf(w, "  %-26s %5d cases: %5d results, %5d errors\n", op, t.ok+t.failed, t.ok, t.failed)
		}
	}
	reasons := make([]string, 0, len(skipped))
	for r := range skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(w, "  left out: %d (%s)\n", skipped[r], r)
	}
	if len(disagreements) > 0 {
		fmt.Fprintf(w, "gen: the oracle disagrees with PyTorch on %d recorded cases (go test ./fixtures shows each):\n", len(disagreements))
		for i, d := range disagreements {
			if i == 20 && !o.verbose {
				fmt.Fprintf(w, "  ... and %d more (-v lists all)\n", len(disagreements)-i)
				break
			}
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	if len(entry.Crashes) > 0 {
		fmt.Fprintf(w, "gen: %s %s crashed on %d cases (recorded in the manifest, no fixture):\n", info.Name, info.Version, len(entry.Crashes))
		n := map[string]int{}
		for _, c := range entry.Crashes {
			n[c.Crash]++
		}
		for _, k := range slices.Sorted(maps.Keys(n)) {
			fmt.Fprintf(w, "  %d %s\n", n[k], k)
		}
	}
	if unlisted > 0 {
		return fmt.Errorf("%d crashes of %s %s are not listed in fixtures/crashes.go: describe them there, or fix the adapter", unlisted, info.Name, info.Version)
	}
	return nil
}

// command is the command line that regenerates the profile, from the
// module root, as the manifest records it.
func command(o options) string {
	s := fmt.Sprintf("go run ./tools/gen -profile %v -seed %d -n %d -large %d", o.profile, o.seed, o.n, o.large)
	switch {
	case strings.HasPrefix(o.adapter, "tools/torchenv/run "):
		s += " -adapter '" + o.adapter + "'"
	case o.adapter != defaultAdapter:
		s += " -adapter '" + adapterName(o.adapter) + "'"
	}
	return s
}

func countPrefix(m map[string]string, prefix string) int {
	n := 0
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}

// checkRoundTrip decodes the files just made and demands the same call
// (the same protocol line) and the same outcome, bit for bit.
func checkRoundTrip(f casefile.Fixture, files map[string][]byte) error {
	fsys := fstest.MapFS{}
	for name, b := range files {
		fsys[f.Dir()+"/"+name] = &fstest.MapFile{Data: b}
	}
	g, err := casefile.Decode(fsys, f.Dir())
	if err != nil {
		return err
	}
	a, _ := protocol.EncodeCall(0, f.Call)
	b, err := protocol.EncodeCall(0, g.Call)
	if err != nil || string(a) != string(b) {
		return fmt.Errorf("%s: the call does not survive its files: %v\n  %s\n  %s", f.Name, err, a, b)
	}
	if g.WantErr != f.WantErr || g.Message != f.Message || g.Source != f.Source || g.Provenance != f.Provenance {
		return fmt.Errorf("%s: the outcome or provenance does not survive its files", f.Name)
	}
	for _, pair := range [][2]scatter.Tensor{{f.Want.Out, g.Want.Out}, {f.Want.Arg, g.Want.Arg}} {
		x, y := pair[0], pair[1]
		if x.IsZero() != y.IsZero() {
			return fmt.Errorf("%s: the result does not survive its files", f.Name)
		}
		if x.IsZero() {
			continue
		}
		ex, _ := protocol.EncodeTensor(x)
		ey, _ := protocol.EncodeTensor(y)
		if ex.DType != ey.DType || ex.Data != ey.Data || !slices.Equal(ex.Shape, ey.Shape) {
			return fmt.Errorf("%s: the result does not survive its files", f.Name)
		}
	}
	return nil
}
