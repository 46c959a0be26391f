// Command scattercheck runs the scatter conformance suite.
//
// With no arguments it runs the spec suite (every documented example, every
// shape and dtype rule, every verified edge case) on each built-in backend
// under each profile, prints a conformance matrix per backend (operation x
// dtype, and per feature: pass / fail / skipped), and exits non-zero when
// any case fails.
//
//	go run ./tools/scattercheck                 # every built-in backend, both profiles
//	go run ./tools/scattercheck -profile torch-1.13 -v
//	go run ./tools/scattercheck -labels include_self,16-bit
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/spec"
)

// builtin returns the backends this module ships, under profile p.
func builtin(p scatter.Profile) []scatter.Backend {
	return []scatter.Backend{reference.New(p)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scattercheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "all", "the truth to judge against: torch-2, torch-1.13 or all")
	verbose := fs.Bool("v", false, "print every failure in full")
	labels := fs.String("labels", "", "run only the cases carrying one of these comma-separated labels")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	profiles := scatter.Profiles
	if *profile != "all" {
		p, err := scatter.ParseProfile(*profile)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		profiles = []scatter.Profile{p}
	}
	var want []string
	if *labels != "" {
		want = strings.Split(*labels, ",")
	}
	failed := 0
	for _, p := range profiles {
		for _, b := range builtin(p) {
			t := spec.Target{Backend: b, Profile: p}
			r := runSuite(t, want)
			r.print(stdout, *verbose)
			failed += r.failed
		}
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "\nFAIL: %d case(s) do not conform\n", failed)
		return 1
	}
	fmt.Fprintln(stdout, "\nPASS: every backend conforms")
	return 0
}
