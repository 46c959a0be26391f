// Command scattercheck is the conformance gate for implementations of the
// PyTorch scatter family, in any language.
//
//	scattercheck                                  # the suite on the built-in backends, both profiles
//	scattercheck -impl 'python3 my_adapter.py'    # the suite on an outside implementation (PROTOCOL.md)
//	scattercheck -impl CMD -profile torch-1.13 -level strict -junit report.xml -json report.json
//	scattercheck oracle < requests > answers      # the reference oracle as a service (ORACLE.md)
//	scattercheck export DIR                       # the spec's cases as fixture packs
//	scattercheck bench -impl CMD                  # W1-W7 timed on optimized and on CMD, side by side
//	scattercheck -impl CMD -shard 2/4 -json s2.json # one shard of four of the gate's cases
//	scattercheck merge -junit all.xml all.json s1.json s2.json s3.json s4.json
//	scattercheck dashboard -frameworks jax,numpy    # real frameworks: docs/conformance/*.json and README.md
//
// The gate runs the documented examples, shape rules and edge cases of
// package spec (with the recorded PyTorch fixtures that spec hands out),
// and random calls for every operation and dtype the implementation
// claims, each judged by the reference oracle; a failing random call is
// shrunk to a minimal one. It prints a matrix of operation × dtype with
// pass / fail / skipped and why, every failure with its protocol request
// line, a PyTorch program and what was allowed against what came back,
// and exits 0 exactly when the implementation conforms. README.md has the
// flags and a CI recipe.
//
// scattercheck bench times the standard workloads of PERFORMANCE.md
// (package workload) on built-in backends and outside implementations
// side by side, with a memory copy measured in the same run (bench.go).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command: the subcommand named by the first argument, or the
// gate.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "oracle":
			return runOracle(args[1:], stdin, stdout, stderr)
		case "export":
			return runExport(args[1:], stdout, stderr)
		case "bench":
			return runBench(args[1:], stdout, stderr)
		case "merge":
			return runMerge(args[1:], stdout, stderr)
		case "dashboard":
			return runDashboard(args[1:], stdout, stderr)
		case "gate", "check":
			args = args[1:]
		case "help":
			fs := flag.NewFlagSet("scattercheck", flag.ContinueOnError)
			gateFlags(fs)
			usage(fs, stdout)
			return 0
		}
	}
	return runGate(args, stdout, stderr)
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `usage:
  scattercheck [flags]                  run the suite on the built-in backends
  scattercheck -impl 'CMD' [flags]      run the suite on CMD, a child process speaking the protocol
  scattercheck oracle [flags]           answer protocol requests with the reference and what conforms
  scattercheck export [flags] DIR       write the spec's cases as fixture packs
  scattercheck bench [flags]            time the workloads W1-W7 on built-in backends and on
                                        -impl CMD (the protocol's bench request), side by side
                                        (scattercheck bench -h for its flags)
  scattercheck merge [-junit FILE] [-strict-xfail] OUT.json IN.json...
                                        join the -json reports of shards (-shard i/n) into one
  scattercheck dashboard [-frameworks a,b]
                                        the gate on every installed framework: docs/conformance's
                                        reports and README.md table (scattercheck dashboard -h)

The exit status is 0 exactly when the implementation conforms, 1 when it does
not or could not be shown to (no case passed, the run was cut short by
SIGINT, SIGTERM or -deadline), 2 for a usage error (bench: 1 when a target
failed a workload). These are the binary's; go run reports any non-zero
status as 1.

flags of the gate:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}
