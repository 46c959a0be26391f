package fuzz

import (
	"math/rand/v2"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/reference"
)

// fuzzSeeds adds a few random inputs to the seed corpus (go test without
// -fuzz runs them, and testdata/fuzz/<Target>/ besides).
func fuzzSeeds(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{4096, 16384, 65536} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
}

func fuzzTarget(f *testing.F, fam properties.Family) {
	fuzzSeeds(f)
	p := scatter.Torch2
	f.Fuzz(properties.FuzzTarget(properties.Target{Backend: reference.New(p), Profile: p}, fam))
}

// FuzzScatterFamily fuzzes scatter, scatter_add and scatter_reduce on the
// reference.
func FuzzScatterFamily(f *testing.F) { fuzzTarget(f, properties.FamilyScatter) }

// FuzzIndexReduceGather fuzzes index_reduce and gather on the reference.
func FuzzIndexReduceGather(f *testing.F) { fuzzTarget(f, properties.FamilyIndexGather) }

// FuzzNeighbours fuzzes torch_scatter and the F# Tensor library's scatter
// and gather on the reference.
func FuzzNeighbours(f *testing.F) { fuzzTarget(f, properties.FamilyNeighbours) }
