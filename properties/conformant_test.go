package properties_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/properties"
	"github.com/scatterconf/scatter/reference"
)

// shuffler is a correct backend that does not claim determinism: it feeds
// the reference the contributions of every dim-scatter and index_reduce
// call in a random order along dim (index and src permuted together), as
// a multi-threaded or atomic implementation would fold them. Plain
// scatter's duplicates then pick a random writer, and float sums round in
// another order.
type shuffler struct {
	base scatter.Backend
	mu   sync.Mutex
	rng  *rand.Rand
}

func (s *shuffler) Info() scatter.Info {
	i := s.base.Info()
	i.Name, i.Deterministic = "shuffler", false
	return i
}

func (s *shuffler) perm(n int) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Perm(n)
}

func (s *shuffler) Run(c scatter.Call) (scatter.Result, error) {
	if _, err := s.base.Run(c); err != nil {
		return scatter.Result{}, err // invalid calls: the reference's error
	}
	switch x := c.(type) {
	case scatter.Scatter:
		if !x.Src.IsZero() {
			x.Index, x.Src = s.shuffle(x.Self, x.Dim, x.Index, x.Src)
		}
		c = x
	case scatter.ScatterAdd:
		x.Index, x.Src = s.shuffle(x.Self, x.Dim, x.Index, x.Src)
		c = x
	case scatter.ScatterReduce:
		x.Index, x.Src = s.shuffle(x.Self, x.Dim, x.Index, x.Src)
		c = x
	case scatter.IndexReduce:
		if x.Index.Dim() == 1 && x.Source.Dim() > 0 {
			d := x.Dim
			if d < 0 {
				d += max(x.Self.Dim(), 1)
			}
			p := s.perm(x.Index.Shape[0])
			x.Index, x.Source = permute(x.Index, 0, p), permute(x.Source, d, p)
		}
		c = x
	}
	return s.base.Run(c)
}

// shuffle permutes index and src along dim (a valid call's).
func (s *shuffler) shuffle(self scatter.Tensor, dim int, index, src scatter.Tensor) (scatter.Tensor, scatter.Tensor) {
	d := dim
	if d < 0 {
		d += max(self.Dim(), 1)
	}
	if index.Dim() <= d || src.Dim() <= d || index.NumEl() == 0 {
		return index, src
	}
	p := s.perm(index.Shape[d])
	return permute(index, d, p), permute(src, d, p)
}

// permute returns a contiguous copy of t whose positions 0..len(p)-1 along
// d come from p[i].
func permute(t scatter.Tensor, d int, p []int) scatter.Tensor {
	c := t.Contiguous()
	out := scatter.Tensor{Shape: c.Shape, Data: c.Contiguous().Data}
	out = out.Contiguous() // a fresh copy
	inner := 1
	for _, s := range c.Shape[d+1:] {
		inner *= s
	}
	size := c.Shape[d]
	for q := 0; q < c.NumEl(); q++ {
		k := (q / inner) % size
		if k < len(p) {
			scatter.CopyElem(out.Data, q, c.Data, q+(p[k]-k)*inner)
		}
	}
	return out
}

// TestConformantBackendPasses runs the properties on a correct backend
// that folds contributions in a random order and does not claim
// determinism: judged at the conformant level, it must pass every property
// (none may reject a correct answer), and the strict-only ones skip.
func TestConformantBackendPasses(t *testing.T) {
	for _, p := range scatter.Profiles {
		t.Run(p.String(), func(t *testing.T) {
			b := &shuffler{base: reference.New(p), rng: rand.New(rand.NewPCG(uint64(p)+7, 99))}
			properties.Check(t, properties.Target{Backend: b, Profile: p})
		})
	}
}
