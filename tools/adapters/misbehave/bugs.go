package main

import (
	"math"
	"slices"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
)

// The bug modes: the reference with one known bug, answering every
// request, for the gate's likely-bug report (each is one class of
// properties' mutant zoo, written out here because a protocol adapter
// stands apart from the suite).
var bugModes = map[string]func(b scatter.Backend, c scatter.Call) (scatter.Result, error){
	"nan-dropped":            nanDropped,
	"negative-index-wrapped": negativeIndexWrapped,
	"bool-sum-as-and":        boolSumAsAnd,
	"half-truncated":         halfTruncated,
	"half-per-step":          halfPerStep,
	"half-round-half-away":   storeWith(roundHalfAway),
	"half-round-to-odd":      storeWith(roundToOdd),
	"mean-of-accumulator":    meanOfAccumulator,
	"subnormals-flushed":     subnormalsFlushed,
	"index-clamped":          indexClamped,
	"first-writer-wins":      firstWriterWins,
}

// indexClamped: scatter, scatter_add and scatter_reduce clamp an index
// value outside [0, size) into it instead of raising index_out_of_range
// (class scatter-index-clamped).
func indexClamped(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	return b.Run(remapIndex(c, false, func(v, n int64) int64 {
		if n == 0 {
			return v
		}
		return max(0, min(n-1, v))
	}))
}

// firstWriterWins: plain scatter keeps the first of the writers to a
// target along dim, not the last (class first-writer-wins): it writes the
// positions of the index in reverse row-major order, which reverses them
// along dim too.
func firstWriterWins(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	x, ok := c.(scatter.Scatter)
	if err != nil || !ok || x.Reduce != scatter.ReduceNone || x.Src.IsZero() || x.Index.Dim() == 0 {
		return res, err // a scalar value's writers all write one value
	}
	d, _ := scatter.WrapDim(x.Dim, x.Self.Dim())
	out := scatter.CloneTensor(x.Self.Contiguous())
	idx := x.Index.Contiguous() // int32 or int64
	ishape := x.Index.Shape
	sshape := x.Self.Shape
	src := x.Src.Contiguous()
	for p := idx.NumEl() - 1; p >= 0; p-- {
		coord := make([]int, len(ishape))
		for k, q := len(ishape)-1, p; k >= 0; k-- {
			coord[k], q = q%ishape[k], q/ishape[k]
		}
		s := 0
		for k := range coord {
			s = s*src.Shape[k] + coord[k]
		}
		coord[d] = int(scatter.IntAt(idx.Data, p))
		o := 0
		for k := range coord {
			o = o*sshape[k] + coord[k]
		}
		scatter.CopyElem(out.Data, o, src.Data, s)
	}
	return scatter.Result{Out: out}, nil
}

// nanDropped: amax/amin compare with > and < only, so a NaN in src never
// wins (class nan-dropped-amax).
func nanDropped(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	drop := func(t scatter.Tensor, r scatter.Reduce) scatter.Tensor {
		if !t.DType().IsFloat() || t.Validate() != nil || r != scatter.ReduceAmax && r != scatter.ReduceAmin {
			return t
		}
		loser := math.Inf(-1)
		if r == scatter.ReduceAmin {
			loser = math.Inf(1)
		}
		out := scatter.CloneTensor(t.Contiguous())
		for i := 0; i < out.NumEl(); i++ {
			if math.IsNaN(scatter.Float64At(out.Data, i)) {
				scatter.SetFloat(out.Data, i, loser)
			}
		}
		return out
	}
	switch x := c.(type) {
	case scatter.ScatterReduce:
		x.Src = drop(x.Src, x.Reduce)
		c = x
	case scatter.IndexReduce:
		x.Source = drop(x.Source, x.Reduce)
		c = x
	}
	return b.Run(c)
}

// negativeIndexWrapped: index values in [-size, -1] count from the end
// instead of raising index_out_of_range (class negative-index-wrapped).
func negativeIndexWrapped(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	return b.Run(remapIndex(c, true, func(v, n int64) int64 {
		if v < 0 && v >= -n {
			return v + n
		}
		return v
	}))
}

// remapIndex returns a scatter, scatter_add or scatter_reduce call (and a
// gather, with gather) with every index value v replaced by f(v, n), n the
// size of self (input) along dim; any other call as it is.
func remapIndex(c scatter.Call, gather bool, f func(v, n int64) int64) scatter.Call {
	remap := func(self, index scatter.Tensor, dim int) scatter.Tensor {
		d, ok := scatter.WrapDim(dim, self.Dim())
		if !ok || self.Validate() != nil || index.Validate() != nil || !index.DType().IsIndex() {
			return index
		}
		n := int64(scatter.SizeAt(self.Shape, d))
		out := scatter.CloneTensor(index.Contiguous())
		for i := 0; i < out.NumEl(); i++ {
			scatter.SetInt(out.Data, i, f(scatter.IntAt(out.Data, i), n))
		}
		return out
	}
	switch x := c.(type) {
	case scatter.Scatter:
		x.Index = remap(x.Self, x.Index, x.Dim)
		return x
	case scatter.ScatterAdd:
		x.Index = remap(x.Self, x.Index, x.Dim)
		return x
	case scatter.ScatterReduce:
		x.Index = remap(x.Self, x.Index, x.Dim)
		return x
	case scatter.Gather:
		if gather {
			x.Index = remap(x.Input, x.Index, x.Dim)
			return x
		}
	}
	return c
}

// boolSumAsAnd: a bool sum computed as a logical and (class
// bool-sum-as-and).
func boolSumAsAnd(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	switch x := c.(type) {
	case scatter.ScatterAdd:
		if x.Self.DType() == scatter.DTBool {
			return b.Run(scatter.Scatter{Self: x.Self, Dim: x.Dim, Index: x.Index, Src: x.Src, Reduce: scatter.ReduceMultiply})
		}
	case scatter.ScatterReduce:
		if x.Self.DType() == scatter.DTBool && x.Reduce == scatter.ReduceSum {
			x.Reduce = scatter.ReduceProd
			return b.Run(x)
		}
	}
	return b.Run(c)
}

// halfTruncated: float16/bfloat16 scatter_add and scatter_reduce sums,
// means and products computed in float32 and stored by truncation (class
// half-truncated).
func halfTruncated(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	return storeWide(b, c, func(out any, i int, x float64) {
		scatter.SetFloat(out, i, x) // to nearest
		if y := scatter.Float64At(out, i); !math.IsNaN(x) && math.Abs(y) > math.Abs(x) {
			stepTowardZero(out, i)
		}
	})
}

// wideCall returns the float32 copy of a float16/bfloat16 scatter_add, or
// scatter_reduce sum, mean or product, whose src has self's dtype, and
// that dtype; ok is false for any other call.
func wideCall(c scatter.Call) (wide scatter.Call, dt scatter.DType, ok bool) {
	switch x := c.(type) {
	case scatter.ScatterAdd:
		dt = x.Self.DType()
		if !is16(dt) || x.Src.DType() != dt || x.Self.Validate() != nil || x.Src.Validate() != nil {
			return nil, dt, false
		}
		x.Self, x.Src = widen(x.Self), widen(x.Src)
		return x, dt, true
	case scatter.ScatterReduce:
		dt = x.Self.DType()
		if !is16(dt) || x.Src.DType() != dt || x.Reduce == scatter.ReduceAmax || x.Reduce == scatter.ReduceAmin ||
			x.Self.Validate() != nil || x.Src.Validate() != nil {
			return nil, dt, false
		}
		x.Self, x.Src = widen(x.Self), widen(x.Src)
		return x, dt, true
	}
	return nil, dt, false
}

// storeWide runs a call wideCall accepts wide (after checking the call c
// itself) and stores each element x of its result in the dtype with
// store(out, i, x); any other call runs as it is.
func storeWide(b scatter.Backend, c scatter.Call, store func(out any, i int, x float64)) (scatter.Result, error) {
	wide, dt, ok := wideCall(c)
	if !ok {
		return b.Run(c)
	}
	if res, err := b.Run(c); err != nil {
		return res, err
	}
	res, err := b.Run(wide)
	if err != nil {
		return res, err
	}
	w := res.Out.Contiguous()
	out := scatter.Tensor{Shape: w.Shape, Data: scatter.MakeData(dt, w.NumEl())}
	for i := 0; i < w.NumEl(); i++ {
		store(out.Data, i, scatter.Float64At(w.Data, i))
	}
	return scatter.Result{Out: out}, nil
}

// stepTowardZero moves a 16-bit float one step toward zero: its magnitude
// bits count down.
func stepTowardZero(data any, i int) {
	switch d := data.(type) {
	case []scatter.Float16:
		d[i]--
	case []scatter.BFloat16:
		d[i]--
	}
}

func is16(dt scatter.DType) bool { return dt == scatter.DTFloat16 || dt == scatter.DTBFloat16 }

// widen converts a 16-bit float tensor to a contiguous float32 one
// (exactly).
func widen(t scatter.Tensor) scatter.Tensor {
	c := t.Contiguous()
	out := scatter.Tensor{Shape: c.Shape, Data: make([]float32, c.NumEl())}
	for i := range out.Data.([]float32) {
		out.Data.([]float32)[i] = float32(scatter.Float64At(c.Data, i))
	}
	return out
}

// perStep is the reference of the profile that rounds 16-bit sums,
// products and means to the dtype after every step (PyTorch 1.13).
var perStep = reference.New(scatter.Torch113)

// halfPerStep: float16/bfloat16 scatter_add and scatter_reduce sums,
// means and products round every step to the dtype where torch 2
// accumulates in float32 and rounds once (class half-accumulates-in-dtype):
// the torch-1.13 reference's fold, for the calls both profiles accept.
func halfPerStep(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	if err != nil {
		return res, err
	}
	var dt scatter.DType
	switch x := c.(type) {
	case scatter.ScatterAdd:
		dt = x.Self.DType()
	case scatter.ScatterReduce:
		if x.Reduce == scatter.ReduceAmax || x.Reduce == scatter.ReduceAmin {
			return res, err
		}
		dt = x.Self.DType()
	default:
		return res, err
	}
	if !is16(dt) {
		return res, err
	}
	if r, e := perStep.Run(c); e == nil && slices.Equal(r.Out.Shape, res.Out.Shape) {
		return r, nil
	}
	return res, err
}

// meanOfAccumulator: a float16/bfloat16 scatter_reduce mean divides the
// float32 accumulator and rounds once, where torch 2 stores the sum in the
// dtype and divides that (class mean-divides-accumulator): the reference
// run on float32 copies, rounded to the dtype.
func meanOfAccumulator(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	res, err := b.Run(c)
	x, ok := c.(scatter.ScatterReduce)
	if err != nil || !ok || x.Reduce != scatter.ReduceMean || !is16(x.Self.DType()) || x.Src.DType() != x.Self.DType() {
		return res, err
	}
	dt := x.Self.DType()
	x.Self, x.Src = widen(x.Self), widen(x.Src)
	w, werr := b.Run(x)
	if werr != nil {
		return res, err
	}
	wc := w.Out.Contiguous()
	out := scatter.Tensor{Shape: wc.Shape, Data: scatter.MakeData(dt, wc.NumEl())}
	for i := 0; i < wc.NumEl(); i++ {
		scatter.SetFloat(out.Data, i, scatter.Float64At(wc.Data, i))
	}
	return scatter.Result{Out: out}, nil
}

// storeWith: float16/bfloat16 scatter_add and scatter_reduce sums, means
// and products accumulated in float32 (as torch 2 does) but stored in the
// dtype with rounding rule round instead of to nearest, ties to even
// (classes rounds-half-away and rounds-to-odd, whose float32 steps round
// alike too; they answer alike wherever those steps have no tie).
func storeWith(round func(x float64, down, up uint16, val func(uint16) float64) uint16) func(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	return func(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
		return storeWide(b, c, func(out any, i int, x float64) {
			scatter.SetFloat(out, i, math.Abs(x)) // the magnitude to nearest
			if math.IsNaN(x) || math.IsInf(x, 0) || scatter.Float64At(out, i) == math.Abs(x) {
				scatter.SetFloat(out, i, x)
				return
			}
			bits, val := magnitudeBits(out, i)
			down, up := bits, bits+1
			if scatter.Float64At(out, i) > math.Abs(x) {
				down, up = bits-1, bits
			}
			setMagnitudeBits(out, i, round(math.Abs(x), down, up, val), math.Signbit(x))
		})
	}
}

// roundHalfAway picks, for a magnitude x between the dtype's neighbours
// down < x < up (bit patterns whose values val gives), the nearer, and up
// at a tie.
func roundHalfAway(x float64, down, up uint16, val func(uint16) float64) uint16 {
	if x-val(down) >= val(up)-x {
		return up
	}
	return down
}

// roundToOdd picks the neighbour whose last bit is 1.
func roundToOdd(_ float64, down, up uint16, _ func(uint16) float64) uint16 {
	if down&1 == 1 {
		return down
	}
	return up
}

// magnitudeBits returns element i's bit pattern (a non-negative 16-bit
// float) and the value of a bit pattern of its dtype.
func magnitudeBits(data any, i int) (uint16, func(uint16) float64) {
	switch d := data.(type) {
	case []scatter.Float16:
		return uint16(d[i]), func(b uint16) float64 { return scatter.Float16(b).Float64() }
	case []scatter.BFloat16:
		return uint16(d[i]), func(b uint16) float64 { return scatter.BFloat16(b).Float64() }
	}
	return 0, func(uint16) float64 { return 0 }
}

// setMagnitudeBits stores a magnitude's bit pattern with a sign.
func setMagnitudeBits(data any, i int, bits uint16, neg bool) {
	if neg {
		bits |= 0x8000
	}
	switch d := data.(type) {
	case []scatter.Float16:
		d[i] = scatter.Float16(bits)
	case []scatter.BFloat16:
		d[i] = scatter.BFloat16(bits)
	}
}

// subnormalsFlushed: scatter_add and scatter_reduce read subnormal
// contributions as zeros and store subnormal results as zeros, as a float
// unit in flush-to-zero and denormals-are-zero mode does (class
// subnormals-flushed). A simpler model than the mutant's (self's operand
// is not flushed, nor a step), enough for the small calls the gate
// shrinks its failures to: the src flushed, then every element of the
// result that is subnormal and differs from self's.
func subnormalsFlushed(b scatter.Backend, c scatter.Call) (scatter.Result, error) {
	var self scatter.Tensor
	switch x := c.(type) {
	case scatter.ScatterAdd:
		self, x.Src = x.Self, flushTensor(x.Src, scatter.Tensor{})
		c = x
	case scatter.ScatterReduce:
		self, x.Src = x.Self, flushTensor(x.Src, scatter.Tensor{})
		c = x
	default:
		return b.Run(c)
	}
	res, err := b.Run(c)
	if err != nil || !self.DType().IsFloat() || self.Validate() != nil {
		return res, err
	}
	res.Out = flushTensor(res.Out, self.Contiguous())
	return res, nil
}

// flushTensor returns a contiguous copy of float tensor t with its
// subnormal elements (in t's dtype) made zeros of their sign, except where
// the element equals the one at the same position of except (when given);
// any other tensor is returned as it is.
func flushTensor(t, except scatter.Tensor) scatter.Tensor {
	dt := t.DType()
	if !dt.IsFloat() || t.Validate() != nil {
		return t
	}
	tiny := scatter.FactsOf(dt).MinNorm
	out := scatter.CloneTensor(t.Contiguous())
	for i := 0; i < out.NumEl(); i++ {
		v := scatter.Float64At(out.Data, i)
		if v == 0 || !(math.Abs(v) < tiny) || !except.IsZero() && math.Float64bits(scatter.Float64At(except.Data, i)) == math.Float64bits(v) {
			continue
		}
		scatter.SetFloat(out.Data, i, math.Copysign(0, v))
	}
	return out
}
