package cuda

import (
	"math"
	"slices"

	"github.com/scatterconf/scatter"
)

// build turns a staged dim-scatter into a program: the atomic mode's
// init / scatter / finalize passes, or the deterministic mode's sorted
// segments.
func (b *backend) build(st *staged, dt scatter.DType, shape []int, o dimOp) (*program, error) {
	if st.outN == 0 {
		return nil, nil // an empty output: every index value is out of range, the reference says how
	}
	opmath := (dt == scatter.DTFloat16 || dt == scatter.DTBFloat16) && !o.perStep &&
		(o.op == opSum || o.op == opMean || o.op == opProd)
	if b.cfg.deterministic {
		return b.buildDeterministic(st, dt, shape, o, opmath)
	}
	pol := b.cfg.pol
	caps := b.dev.Caps()
	pair := pairName(dt, opmath)
	esz := dt.Size()
	accSize := esz
	if opmath {
		accSize = 4
	}
	n, outN := st.g.n, st.outN
	pr := &program{dt: dt, shape: slices.Clone(shape), outN: outN}
	self := pr.addBuf(outN*esz, st.self)
	src := pr.addBuf(byteLen(st.src), st.src)
	idx := pr.addBuf(byteLen(st.idx), st.idx)
	out := pr.addBuf(outN*esz, nil)
	pr.out = out
	acc := out
	if opmath {
		acc = pr.addBuf(outN*4, nil)
	}
	floatExt := (dt == scatter.DTFloat32 || dt == scatter.DTFloat64) && (o.op == opAmax || o.op == opAmin)
	count, touched := noBuf, noBuf
	if o.op == opMean {
		count = pr.addBuf(outN*4, nil)
	} else if o.exclude && !floatExt {
		touched = pr.addBuf(outN, nil)
	}

	var flags int64
	if _, is32 := st.idx.([]int32); is32 {
		flags |= fIdx32
	}
	if caps.casAdd || pol.forceCASAdd {
		flags |= fCASAdd
	}
	work := int64(outN)
	refs := noRefs()

	// 1. the accumulator's initial value
	finalize := opmath || o.op == opMean || o.exclude
	var finFlags int64
	var finAux uint64
	switch {
	case o.exclude && floatExt:
		s := sentinel(dt, o.op)
		p := params{N: work, Aux: int64(s)}
		refs[rOut] = out
		pr.launch("fill_"+widthName(esz), work, p, refs)
		finFlags, finAux = fSentinel, s
	case o.exclude:
		p := params{N: work, Op: initFill, Aux: int64(identity(dt, opmath, o.op))}
		refs[rOut] = acc
		pr.launch("init_"+pair, work, p, refs)
	case opmath || floatExt:
		p := params{N: work, Op: initCopy}
		if floatExt {
			p.Flags, p.Aux = fCanon, int64(canonNaN(dt, o.op))
		}
		refs[rOut], refs[rSelf] = acc, self
		pr.launch("init_"+pair, work, p, refs)
	default:
		pr.copy(out, self, outN*esz)
	}
	pr.memset(count, outN*4)
	pr.memset(touched, outN)

	// 2. the contributions
	g := st.g
	p := g.params()
	p.Op = int64(o.op)
	p.Flags = flags
	refs = noRefs()
	refs[rOut], refs[rSrc], refs[rIdx], refs[rCount], refs[rTouched] = acc, src, idx, count, touched
	sumPair := o.op == opSum && touched == noBuf && slices.Contains([]string{"f32", "f64", "f16o", "bf16o", "i64", "i32"}, pair)
	switch {
	case g.isB == 0 && g.B > 1 && !pol.noRows:
		vec := dt == scatter.DTFloat32 && g.B%4 == 0 && g.ssB == 1 && g.ssK%4 == 0 && g.ssA%4 == 0 &&
			g.osK%4 == 0 && g.osA%4 == 0
		per := g.B
		if vec {
			p.Flags |= fVec4
			if caps.vecRed {
				p.Flags |= fVecRed
			}
			per = (g.B + 3) / 4
		}
		lanes := int64(1)
		for lanes < per && lanes < 32 {
			lanes *= 2
		}
		p.Lanes = lanes
		pr.launch("rows_"+pair, g.A*g.K*lanes, p, refs)
	case sumPair && !pol.noSmem && int64(outN*accSize) <= smemBytes && (n >= 8*int64(outN) || pol.forceSmem):
		// every block sums into its own shared copy and flushes it: give
		// each block at least 8 contributions per output (256 threads of
		// 32 * n / outN threads wanted), so the flush stays small
		p.Aux = int64(outN)
		pr.launch("smem_"+pair, max(1, min(n, 32*n/int64(outN))), p, refs)
	case sumPair && !pol.noWarpAgg && g.B == 1 && (pol.forceWarpAgg || clustered(st.idx, g)):
		pr.launch("warpagg_"+pair, n, p, refs)
	default:
		w := n
		if g.A == 1 && g.B == 1 && g.isK == 1 && !pol.noLinear {
			p.Flags |= fLinear
			w = (n + 3) / 4
		}
		pr.launch("scatter_"+pair, w, p, refs)
	}

	// 3. the output
	if finalize {
		p := params{N: work, Op: int64(o.op), Flags: flags | finFlags, Aux: int64(finAux)}
		if !o.exclude {
			p.Flags |= fIncl
		}
		if o.countPerStep {
			p.Flags |= fPerStepCount
		}
		refs := noRefs()
		refs[rOut], refs[rSrc], refs[rSelf], refs[rCount], refs[rTouched] = out, acc, self, count, touched
		pr.launch("finalize_"+pair, work, p, refs)
	}
	return pr, nil
}

// buildDeterministic: a stable counting sort of the contributions by
// output on the host, then one thread per touched output folds its
// contributions in canonical order (kernels/50_segfold.cu).
func (b *backend) buildDeterministic(st *staged, dt scatter.DType, shape []int, o dimOp, opmath bool) (*program, error) {
	g := st.g
	n, outN := g.n, st.outN
	iv := indexInts(st.idx)
	outs := make([]int64, n)
	cnt := make([]int64, outN+1)
	for i := int64(0); i < n; i++ {
		var a, k, bb int64
		switch {
		case g.B == 1 && g.A == 1:
			k = i
		case g.B == 1:
			a, k = i/g.K, i%g.K
		default:
			a, k, bb = i/(g.K*g.B), (i/g.B)%g.K, i%g.B
		}
		v := iv[a*g.isA+k*g.isK+bb*g.isB]
		if v < 0 || v >= g.size {
			return nil, nil // the reference gives the error
		}
		t := a*g.osA + v*g.osK + bb
		outs[i] = t
		cnt[t+1]++
	}
	var nseg int64
	for t := 1; t <= outN; t++ {
		if cnt[t] > 0 {
			nseg++
		}
		cnt[t] += cnt[t-1]
	}
	segs := make([]int64, 0, 2*(nseg+1))
	for t := 0; t < outN; t++ {
		if cnt[t+1] > cnt[t] {
			segs = append(segs, int64(t), cnt[t])
		}
	}
	segs = append(segs, -1, n)
	perm := make([]int64, n)
	next := cnt[:outN] // next free slot per output (cnt is consumed)
	for i := int64(0); i < n; i++ {
		var a, k, bb int64
		switch {
		case g.B == 1 && g.A == 1:
			k = i
		case g.B == 1:
			a, k = i/g.K, i%g.K
		default:
			a, k, bb = i/(g.K*g.B), (i/g.B)%g.K, i%g.B
		}
		t := outs[i]
		perm[next[t]] = a*g.ssA + k*g.ssK + bb*g.ssB
		next[t]++
	}

	esz := dt.Size()
	pr := &program{dt: dt, shape: slices.Clone(shape), outN: outN}
	self := pr.addBuf(outN*esz, st.self)
	src := pr.addBuf(byteLen(st.src), st.src)
	permB := pr.addBuf(8*len(perm), perm)
	segsB := pr.addBuf(8*len(segs), segs)
	pr.out = pr.addBuf(outN*esz, nil)
	pr.copy(pr.out, self, outN*esz)
	p := params{N: nseg, Op: int64(o.op), Aux: int64(identity(dt, opmath, o.op))}
	if !o.exclude {
		p.Flags |= fIncl
	}
	if o.countPerStep {
		p.Flags |= fPerStepCount
	}
	refs := noRefs()
	refs[rOut], refs[rSrc], refs[rSelf], refs[rPerm], refs[rSegs] = pr.out, src, self, permB, segsB
	pr.launch("segfold_"+pairName(dt, opmath), nseg, p, refs)
	return pr, nil
}

// clustered reports whether neighbouring contributions of a 1-d-like
// geometry tend to share their target (a sorted or grouped index, as in
// PyG's edge lists): then warp pre-aggregation pays. It samples 64
// neighbouring pairs of the index.
func clustered(idx any, g geom) bool {
	if g.B != 1 || g.n < 64 {
		return false
	}
	iv := indexInts(idx)
	if int64(len(iv)) < g.n {
		return false
	}
	same, total := 0, 0
	step := (g.n - 1) / 64
	for i := int64(0); i+1 < g.n && total < 64; i += max(step, 1) {
		k := i % g.K
		if k+1 >= g.K {
			continue
		}
		a := i / g.K
		if iv[a*g.isA+k*g.isK] == iv[a*g.isA+(k+1)*g.isK] {
			same++
		}
		total++
	}
	return total > 0 && 4*same >= total
}

// identity returns the bits (in the accumulator's type) a group starts
// from when self does not take part: 0, 1, lowest (-inf), highest (+inf).
func identity(dt scatter.DType, opmath bool, op int) uint64 {
	if opmath {
		dt = scatter.DTFloat32
	}
	switch dt {
	case scatter.DTFloat32:
		return uint64(math.Float32bits(floatIdentity(op)))
	case scatter.DTFloat64:
		return math.Float64bits(float64(floatIdentity(op)))
	case scatter.DTFloat16:
		return uint64(scatter.Float16FromFloat64(float64(floatIdentity(op))))
	case scatter.DTBFloat16:
		return uint64(scatter.BFloat16FromFloat64(float64(floatIdentity(op))))
	}
	lo, hi := dt.IntRange()
	switch op {
	case opProd:
		return 1
	case opAmax:
		return uint64(lo)
	case opAmin:
		return uint64(hi)
	}
	return 0
}

func floatIdentity(op int) float32 {
	switch op {
	case opProd:
		return 1
	case opAmax:
		return float32(math.Inf(-1))
	case opAmin:
		return float32(math.Inf(1))
	}
	return 0
}

// sentinel returns the bits that mark an untouched float32/float64 output
// of an amax/amin without self: a NaN pattern that every value (the
// canonical NaN included) replaces under the integer-ordering atomics
// (kernels/20_ops.cu).
func sentinel(dt scatter.DType, op int) uint64 {
	if dt == scatter.DTFloat64 {
		if op == opAmax {
			return 0xfffffffffffffffe
		}
		return 0x7ffffffffffffffe
	}
	if op == opAmax {
		return 0xfffffffe
	}
	return 0x7ffffffe
}

// canonNaN returns the NaN an amax (amin) makes of every NaN: the largest
// (smallest) pattern under the integer ordering, so that it wins.
func canonNaN(dt scatter.DType, op int) uint64 {
	if dt == scatter.DTFloat64 {
		if op == opAmax {
			return 0x7fffffffffffffff
		}
		return 0xffffffffffffffff
	}
	if op == opAmax {
		return 0x7fffffff
	}
	return 0xffffffff
}
