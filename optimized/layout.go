package optimized

import (
	"slices"

	"github.com/scatterconf/scatter"
)

// geom is the normalised description every fast call becomes: the index
// (or, for index_reduce and torch_scatter, the index broadcast to the
// source's shape) is walked as a 3-level loop
//
//	for o < O, j < J, n < N:      (row-major: o outer, n inner)
//	    v   = index[iOff + o*iO + j*iJ + n*iN]          valid: 0 <= v < size
//	    val = src[sOff + o*sO + j*sJ + n*sN]
//	    out[o*oO + n*oN + v*ovs]  op=  val
//
// where O is the product of the index's sizes before dim, J its size along
// dim, N the product after dim, each group of dimensions coalesced into one
// stride per tensor. out is contiguous (the result, allocated by the
// backend). A call whose dimensions do not coalesce (an index narrower
// than self in several inner dimensions, say) takes the reference's path.
//
// Two shapes of the walk have kernels of their own:
//   - direct: O = N = 1 and unit strides: a 1-d scatter over contiguous
//     memory (W1, W3, W4, W6, W7); the index values are the targets;
//   - rows: the index is constant along the N inner elements (an expanded
//     PyG-style index, index_reduce, torch_scatter's broadcast) and src and
//     out rows are contiguous and complete: a row scatter (W2, W5).
type geom struct {
	O, J, N          int
	iOff, iO, iJ, iN int
	sOff, sO, sJ, sN int
	oO, oN, ovs      int
	size             int // out's extent along dim
	outN             int // out's number of elements
}

// count is the number of contributions (index positions).
func (g *geom) count() int { return g.O * g.J * g.N }

// direct reports whether the walk is a contiguous 1-d scatter.
func (g *geom) direct() bool {
	return g.O == 1 && g.N == 1 && g.iJ == 1 && g.sJ == 1 && g.ovs == 1
}

// rows reports whether the walk is a row scatter: the index constant along
// the inner elements, src and out rows contiguous, and every out row
// covered whole (so that out row r is out[r*N : (r+1)*N]).
func (g *geom) rows() bool {
	return g.N >= 2 && g.iN == 0 && g.sN == 1 && g.oN == 1 && g.ovs == g.N && (g.O == 1 || g.oO%g.N == 0)
}

// axis is one dimension of the walk: its size and the strides of the
// index, src and out along it.
type axis struct {
	n  int
	st [3]int
}

// coalesce merges a group of axes (outer first) into one, dropping size-1
// axes; ok is false when two remaining axes cannot merge.
func coalesce(ax []axis) (n int, st [3]int, ok bool) {
	n = 1
	have := false
	for _, a := range ax {
		if a.n == 1 {
			continue
		}
		if !have {
			n, st, have = a.n, a.st, true
			continue
		}
		for k := range st {
			if st[k] != a.st[k]*a.n {
				return 0, st, false
			}
		}
		n *= a.n
		st = a.st
	}
	return n, st, true
}

// buildGeom builds the walk over a loop shape (the index's, 0-d as [1])
// with the strides of the index, the src and the out along each
// dimension; the out stride along dim is ovs, and size is out's extent
// there.
func buildGeom(shape []int, dim int, ist, sst, ost []int, iOff, sOff, size, outN int) (geom, bool) {
	var outer, inner []axis
	for d, n := range shape {
		a := axis{n: n, st: [3]int{ist[d], sst[d], ost[d]}}
		switch {
		case d < dim:
			outer = append(outer, a)
		case d > dim:
			inner = append(inner, a)
		}
	}
	O, so, ok1 := coalesce(outer)
	N, sn, ok2 := coalesce(inner)
	if !ok1 || !ok2 {
		return geom{}, false
	}
	g := geom{
		O: O, J: shape[dim], N: N,
		iOff: iOff, iO: so[0], iJ: ist[dim], iN: sn[0],
		sOff: sOff, sO: so[1], sJ: sst[dim], sN: sn[1],
		oO: so[2], oN: sn[2], ovs: ost[dim],
		size: size, outN: outN,
	}
	if O == 1 {
		g.iO, g.sO, g.oO = 0, 0, 0
	}
	if N == 1 {
		g.iN, g.sN, g.oN = 0, 0, 0
	}
	return g, true
}

// shapeOf returns t's shape with a 0-d tensor seen as [1] (ATen's
// ensure_nonempty), and strides to match.
func shapeOf(t scatter.Tensor) (shape, strides []int) {
	if t.Dim() == 0 {
		return []int{1}, []int{0}
	}
	return t.Shape, t.StridesOrDefault()
}

// copyView copies the row-major elements [lo, hi) of view t (data d) into
// out[lo:hi].
func copyView[T any](out []T, t scatter.Tensor, d []T, lo, hi int) {
	if lo >= hi {
		return
	}
	if t.IsContiguous() {
		copy(out[lo:hi], d[t.Offset+lo:t.Offset+hi])
		return
	}
	if t.Dim() == 0 {
		out[0] = d[t.Offset]
		return
	}
	shape, st := t.Shape, t.Strides
	idx := make([]int, len(shape))
	p := t.Offset
	rest := lo
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k] = rest % shape[k]
			rest /= shape[k]
		}
		p += idx[k] * st[k]
	}
	last := len(shape) - 1
	for q := lo; q < hi; {
		// the run along the last dimension
		n := min(shape[last]-idx[last], hi-q)
		s := st[last]
		for i := 0; i < n; i++ {
			out[q+i] = d[p+i*s]
		}
		q += n
		p += n * s
		idx[last] += n
		for k := last; k > 0 && idx[k] == shape[k]; k-- {
			p -= idx[k] * st[k]
			idx[k] = 0
			idx[k-1]++
			p += st[k-1]
		}
	}
}

// sameShape reports whether a and b are equal.
func sameShape(a, b []int) bool { return slices.Equal(a, b) }
