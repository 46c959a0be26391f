package reference

import (
	"iter"
	"slices"

	"github.com/scatterconf/scatter"
)

// group is one output element and its contributions in canonical order.
type group struct {
	out  int     // position in init / the output
	srcs []int32 // positions in src
}

// groupSet holds a plan's groups in increasing output position, compressed:
// group i is output position outs[i] and its contributions, in canonical
// order, are the src positions flat[off[i]:off[i+1]]. Positions fit an
// int32: no tensor the reference materialises has more than maxElements
// (2^30) elements, and no call more contributions than its largest
// tensor's elements. A plan of C contributions into G groups holds 4C+8G
// bytes (a slice per group held 8C+32G, and the positions it was sorted
// from 16C more).
type groupSet struct {
	outs []int32
	off  []int32 // len(outs)+1 entries, or none
	flat []int32
}

// len returns the number of groups.
func (s *groupSet) len() int { return len(s.outs) }

// at returns group i; its srcs are part of the set (not to be changed).
func (s *groupSet) at(i int) group {
	return group{out: int(s.outs[i]), srcs: s.flat[s.off[i]:s.off[i+1]:s.off[i+1]]}
}

// all yields every group with its number, in increasing output position.
func (s *groupSet) all() iter.Seq2[int, group] {
	return func(yield func(int, group) bool) {
		for i := range s.outs {
			if !yield(i, s.at(i)) {
				return
			}
		}
	}
}

// reserve makes room for the given numbers of groups and contributions.
func (s *groupSet) reserve(groups, contributions int) {
	s.outs = slices.Grow(s.outs, groups)
	s.off = slices.Grow(s.off, groups+1)
	s.flat = slices.Grow(s.flat, contributions)
}

// add appends a group; out must be past every output position already in
// the set.
func (s *groupSet) add(out int, srcs ...int) {
	s.push(out, nil)
	for _, x := range srcs {
		s.flat = append(s.flat, int32(x))
	}
	s.off[len(s.off)-1] = int32(len(s.flat))
}

// push appends a group of src positions already in the set's form.
func (s *groupSet) push(out int, srcs []int32) {
	if len(s.off) == 0 {
		s.off = append(s.off, 0)
	}
	s.outs = append(s.outs, int32(out))
	s.flat = append(s.flat, srcs...)
	s.off = append(s.off, int32(len(s.flat)))
}

// withEmpty returns the set with an empty group (no contributions) added
// at each output position of outs, which are increasing and hold no
// group of the set.
func (s *groupSet) withEmpty(outs []int) groupSet {
	var r groupSet
	r.reserve(s.len()+len(outs), len(s.flat))
	i := 0
	for _, g := range s.all() {
		for ; i < len(outs) && outs[i] < g.out; i++ {
			r.push(outs[i], nil)
		}
		r.push(g.out, g.srcs)
	}
	for ; i < len(outs); i++ {
		r.push(outs[i], nil)
	}
	return r
}

// contributions enumerates a call's contributions (out, src positions) in
// the index's row-major order; it is called more than once and must
// enumerate the same contributions every time.
type contributions func(yield func(out, src int))

// groupBy collects the src positions per output position (n output
// elements), keeping the enumeration's order (increasing position along dim
// for one target), groups sorted by output position. It is a counting
// sort over two enumerations: the contributions per output, then each
// src position in its place (a map of appended slices took about three
// times the memory and most of a large call's planning time, and the
// positions materialised for one pass as much again).
// The positions are in range: every planner has checked them.
func groupBy(n int, each contributions) groupSet {
	start := make([]int32, n+1) // contributions to outputs before o: start[o]
	each(func(o, _ int) { start[o+1]++ })
	groups := 0
	for o := range n {
		if start[o+1] > 0 {
			groups++
		}
		start[o+1] += start[o]
	}
	s := groupSet{outs: make([]int32, 0, groups), off: make([]int32, 0, groups+1), flat: make([]int32, start[n])}
	each(func(o, src int) {
		s.flat[start[o]] = int32(src)
		start[o]++
	})
	// start[o] is now the end of o's contributions, the start of o+1's
	s.off = append(s.off, 0)
	prev := int32(0)
	for o := range n {
		if start[o] > prev {
			s.outs = append(s.outs, int32(o))
			s.off = append(s.off, start[o])
			prev = start[o]
		}
	}
	return s
}

// walk calls f with every multi-index of shape in row-major order, and its
// row-major number, until f returns false. The multi-index is reused: f
// must leave it as it found it, and not keep it. A
// shape with a zero extent has no multi-index; the empty shape has one.
func walk(shape []int, f func(p int, idx []int) bool) {
	n := numel(shape)
	idx := make([]int, len(shape))
	for p := 0; p < n; p++ {
		if !f(p, idx) {
			return
		}
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// indexAt returns the reader of a valid int32 or int64 tensor's element at a
// multi-index (the tensor's rank of coordinates, or one 0 for a 0-d
// tensor), widened to int64, reading the view where it lies.
func indexAt(t scatter.Tensor) func(idx []int) int64 {
	st := t.StridesOrDefault()
	switch data := t.Data.(type) {
	case []int64:
		return func(idx []int) int64 {
			p := t.Offset
			for d, s := range st {
				p += idx[d] * s
			}
			return data[p]
		}
	case []int32:
		return func(idx []int) int64 {
			p := t.Offset
			for d, s := range st {
				p += idx[d] * s
			}
			return int64(data[p])
		}
	}
	return nil
}

// eachIndexValue calls f with every element of an int32 or int64 tensor in
// row-major order, widened to int64, until f returns false; a tensor of
// another dtype has none.
func eachIndexValue(t scatter.Tensor, f func(v int64) bool) {
	at := indexAt(t)
	if at == nil {
		return
	}
	walk(t.Shape, func(_ int, idx []int) bool { return f(at(idx)) })
}
