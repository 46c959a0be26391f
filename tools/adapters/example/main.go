// Command example is a template for an implementation of the protocol
// (PROTOCOL.md) written in Go: it wraps a scatter.Backend and serves it on
// standard input and output, so that the gate can check it:
//
//	go build -o /tmp/example ./tools/adapters/example
//	go run ./tools/scattercheck -impl /tmp/example
//
// To check your own implementation, replace reference.New below with it:
// a type with Info() and Run(scatter.Call), where Run returns the result
// or an *scatter.Error whose code says which rule the call broke, and
// scatter.ErrNotSupported for calls it does not offer. protocol.Serve
// does the rest: the hello, decoding (with limits), encoding, and turning
// a panic into an error answer instead of a crash.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// claims narrows what a backend claims in the hello: the gate skips what
// is not claimed (with the reason) and holds the rest to PyTorch's rules.
type claims struct {
	scatter.Backend
	info scatter.Info
}

func (c claims) Info() scatter.Info { return c.info }

func main() {
	profile := flag.String("profile", "torch-2", "which PyTorch the reference behaves as: torch-2 or torch-1.13")
	flag.Parse()
	p, err := scatter.ParseProfile(*profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	b := claims{Backend: reference.New(p), info: scatter.Info{
		Name:    "example",
		Version: "0.1 (" + p.String() + ")",
		Ops:     nil,                                                 // nil: every operation
		DTypes:  []scatter.DType{scatter.DTFloat32, scatter.DTInt64}, // nil would be every dtype
		// Deterministic: true would claim bit-exactness with the canonical order.
	}}
	// Answer requests until standard input closes; log to standard error
	// (the gate keeps its tail for the report).
	if err := protocol.Serve(os.Stdin, os.Stdout, b); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}
