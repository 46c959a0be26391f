package optimized

import "github.com/scatterconf/scatter"

// gather: torch.gather(input, dim, index), every dtype, when the walk
// coalesces. The walk is the scatter walk with the roles turned (layout.go):
// out is contiguous over the index's shape, so position q of the walk is
// out[q], and the value read is input[sOff + o*sO + n*sN + v*sJ]. Every
// output element is written once, by the worker whose chunk holds it, so
// gather is deterministic on every path.
func (b *backend) gather(c scatter.Gather) (scatter.Result, bool) {
	in, index := c.Input, c.Index
	if !okTensor(in) || !okTensor(index) {
		return scatter.Result{}, false
	}
	dim, ok := scatter.WrapDim(c.Dim, in.Dim())
	n := index.NumEl()
	if !ok || n == 0 || in.NumEl() == 0 || !b.indexDTypeOK(index.DType()) || nd(in) != nd(index) {
		return scatter.Result{}, false
	}
	for d := 0; d < nd(in); d++ {
		if d != dim && scatter.SizeAt(index.Shape, d) > scatter.SizeAt(in.Shape, d) {
			return scatter.Result{}, false
		}
	}
	I, ist := shapeOf(index)
	inShape, inSt := shapeOf(in)
	g, ok := buildGeom(I, dim, ist, inSt, scatter.ContiguousStrides(I), index.Offset, in.Offset, inShape[dim], n)
	if !ok {
		return scatter.Result{}, false
	}
	var out any
	switch d := in.Data.(type) {
	case []bool:
		out, ok = runGather(b, &g, index.Data, d)
	case []uint8:
		out, ok = runGather(b, &g, index.Data, d)
	case []int8:
		out, ok = runGather(b, &g, index.Data, d)
	case []int16:
		out, ok = runGather(b, &g, index.Data, d)
	case []int32:
		out, ok = runGather(b, &g, index.Data, d)
	case []int64:
		out, ok = runGather(b, &g, index.Data, d)
	case []scatter.Float16:
		out, ok = runGather(b, &g, index.Data, d)
	case []scatter.BFloat16:
		out, ok = runGather(b, &g, index.Data, d)
	case []float32:
		out, ok = runGather(b, &g, index.Data, d)
	case []float64:
		out, ok = runGather(b, &g, index.Data, d)
	default:
		ok = false
	}
	if !ok {
		return scatter.Result{}, false
	}
	return result(index.Shape, out), true
}

func runGather[T any](b *backend, g *geom, idx any, in []T) (any, bool) {
	out := make([]T, g.outN)
	rows := g.N >= 2 && g.iN == 0 && g.sN == 1 && g.oN == 1
	units, unitLen := g.count(), 1
	if rows {
		units, unitLen = g.O*g.J, g.N
	}
	W := b.workers
	if units*unitLen < b.serialMax || units < 2*W {
		W = 1
	}
	oks := make([]bool, W)
	parallel(W, func(w int) {
		lo, hi := split(units, W, w)
		switch x := idx.(type) {
		case []int64:
			oks[w] = gatherRange(g, x, in, out, rows, lo, hi)
		case []int32:
			oks[w] = gatherRange(g, x, in, out, rows, lo, hi)
		}
	})
	for _, ok := range oks {
		if !ok {
			return nil, false
		}
	}
	return out, true
}

// gatherRange writes the walk's units [lo, hi) (elements, or rows of N).
func gatherRange[T any, I ix](g *geom, idx []I, in, out []T, rows bool, lo, hi int) bool {
	if lo >= hi {
		return true
	}
	size := g.size
	if rows {
		n := g.N
		o := lo / g.J
		j := lo - o*g.J
		ib := g.iOff + o*g.iO + j*g.iJ
		sb := g.sOff + o*g.sO
		for u := lo; u < hi; u++ {
			x := int(idx[ib])
			if uint(x) >= uint(size) {
				return false
			}
			s := sb + x*g.sJ
			copy(out[u*n:u*n+n], in[s:s+n])
			j++
			ib += g.iJ
			if j == g.J {
				j = 0
				o++
				ib = g.iOff + o*g.iO
				sb = g.sOff + o*g.sO
			}
		}
		return true
	}
	if g.O == 1 && g.N == 1 {
		o := out[lo:hi]
		ip := g.iOff + lo*g.iJ
		for q := range o {
			x := int(idx[ip])
			if uint(x) >= uint(size) {
				return false
			}
			o[q] = in[g.sOff+x*g.sJ]
			ip += g.iJ
		}
		return true
	}
	JN := g.J * g.N
	o := lo / JN
	rest := lo - o*JN
	j := rest / g.N
	n := rest - j*g.N
	ib := g.iOff + o*g.iO + j*g.iJ
	sb := g.sOff + o*g.sO
	for q := lo; q < hi; q++ {
		x := int(idx[ib+n*g.iN])
		if uint(x) >= uint(size) {
			return false
		}
		out[q] = in[sb+n*g.sN+x*g.sJ]
		n++
		if n == g.N {
			n = 0
			j++
			ib += g.iJ
			if j == g.J {
				j = 0
				o++
				ib = g.iOff + o*g.iO
				sb = g.sOff + o*g.sO
			}
		}
	}
	return true
}
