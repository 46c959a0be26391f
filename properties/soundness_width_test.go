package properties

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/reference"
)

// TestConformantSetWidths measures how tight the conformant sets of float
// sums, means and products are: for every such element of two or more
// terms, the number of dtype values its set admits (1: the value is exact),
// with the median, the 90th percentile, the largest and the share of exact
// elements per profile and dtype, logged for two generators: the standard
// call generator (valid calls of every operation with these reductions;
// its values are mostly exact in any order) and the stress values of the
// soundness test (wide exponent ranges, cancellation, near overflow,
// subnormals, long groups). It is a measurement, and fails only if nothing
// was measured or a set admits nothing.
func TestConformantSetWidths(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	ops := []scatter.Op{scatter.OpScatterAdd, scatter.OpScatterReduce, scatter.OpScatter, scatter.OpIndexReduce,
		scatter.OpTorchScatter, scatter.OpTorchScatterAdd, scatter.OpTensorScatter}
	r := rand.New(rand.NewPCG(11, 12))
	var calls []scatter.Call
	for _, op := range ops {
		for range n {
			c, err := callgen.DrawCall(r, op, callgen.Options{Valid: true, MaxElements: 512})
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			calls = append(calls, c)
		}
	}
	logWidths(t, "standard generator", calls)
	calls = calls[:0]
	for i := range 4 * n {
		dt := []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16, scatter.DTFloat32, scatter.DTFloat64}[i%4]
		calls = append(calls, widthStressCall(r, dt))
	}
	logWidths(t, "stress values", calls)
}

// logWidths measures the conformant sets of calls under every profile.
func logWidths(t *testing.T, what string, calls []scatter.Call) {
	t.Helper()
	type key struct {
		prof scatter.Profile
		dt   scatter.DType
	}
	terms := regexp.MustCompile(`of (\d+) (terms|factors)`)
	widths := map[key][]float64{}
	for _, c := range calls {
		for _, prof := range scatter.Profiles {
			e := reference.Expect(c, prof)
			if e.Codes() != nil {
				continue
			}
			a, err := e.Allowed(scatter.Conformant)
			if err != nil || a.Any || !a.Out.DType.IsFloat() {
				continue
			}
			for _, o := range a.Out.Elems {
				m := terms.FindStringSubmatch(o.Note)
				if m == nil || m[1] == "1" {
					continue // not a float sum, mean or product, or a single term (exact)
				}
				w := setSize(a.Out.DType, o)
				if w == 0 {
					t.Errorf("%s under %v: a set admits nothing: %+v", reference.DescribeCall(c), prof, o)
				}
				k := key{prof, a.Out.DType}
				widths[k] = append(widths[k], w)
			}
		}
	}
	if len(widths) == 0 {
		t.Fatalf("%s: no float sum, mean or product element measured", what)
	}
	for _, prof := range scatter.Profiles {
		for _, dt := range []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16, scatter.DTFloat32, scatter.DTFloat64} {
			ws := widths[key{prof, dt}]
			if len(ws) == 0 {
				continue
			}
			slices.Sort(ws)
			exact := 0
			for _, w := range ws {
				if w == 1 {
					exact++
				}
			}
			t.Logf("%s: %-10v %-8v %5d elements of 2+ terms: median %s values, 90th percentile %s, max %s, exact %.0f%%",
				what, prof, dt, len(ws), fmtWidth(ws[len(ws)/2]), fmtWidth(ws[len(ws)*9/10]), fmtWidth(ws[len(ws)-1]),
				100*float64(exact)/float64(len(ws)))
		}
	}
}

// widthStressCall draws a 1-d scatter_add or scatter_reduce (sum, mean,
// prod) call with one to three targets and the soundness test's stress
// values.
func widthStressCall(rng *rand.Rand, dt scatter.DType) scatter.Call {
	m := 1 + rng.IntN(3)
	k := 1 + rng.IntN(48)
	if rng.IntN(8) == 0 {
		k = 48 + rng.IntN(150)
	}
	regime := rng.IntN(6)
	f := scatter.FactsOf(dt)
	val := func() float64 {
		var v float64
		switch regime {
		case 0:
			v = math.Ldexp(1+rng.Float64(), rng.IntN(12)-6)
		case 1:
			v = math.Ldexp(rng.Float64(), f.EMin-f.Prec+1+rng.IntN(f.EMax-f.EMin+f.Prec+1))
		case 2:
			v = f.Max * (0.25 + rng.Float64()) / math.Max(1, float64(rng.IntN(k+1)))
		case 3:
			v = math.Ldexp(rng.Float64(), f.EMin+rng.IntN(3))
		case 4:
			v = 1 + math.Ldexp(rng.Float64(), -rng.IntN(f.Prec+4))
		default:
			v = 1 + math.Ldexp(rng.Float64()-0.5, -rng.IntN(6))
		}
		if rng.IntN(2) == 0 {
			v = -v
		}
		return v
	}
	self := scatter.Tensor{Shape: []int{m}, Data: scatter.MakeData(dt, m)}
	for i := range m {
		scatter.SetFloat(self.Data, i, val())
	}
	idx := make([]int64, k)
	src := scatter.Tensor{Shape: []int{k}, Data: scatter.MakeData(dt, k)}
	for i := range k {
		idx[i] = int64(rng.IntN(m))
		scatter.SetFloat(src.Data, i, val())
	}
	index := scatter.FromSlice(idx)
	switch rng.IntN(4) {
	case 0:
		return scatter.ScatterAdd{Self: self, Index: index, Src: src}
	case 1:
		return scatter.ScatterReduce{Self: self, Index: index, Src: src, Reduce: scatter.ReduceSum, ExcludeSelf: rng.IntN(2) == 0}
	case 2:
		return scatter.ScatterReduce{Self: self, Index: index, Src: src, Reduce: scatter.ReduceMean, ExcludeSelf: rng.IntN(2) == 0}
	}
	return scatter.ScatterReduce{Self: self, Index: index, Src: src, Reduce: scatter.ReduceProd, ExcludeSelf: rng.IntN(2) == 0}
}

func fmtWidth(w float64) string {
	if w < 1e6 {
		return fmt.Sprint(w)
	}
	return fmt.Sprintf("%.3g", w)
}

// setSize returns how many values of dt the set o admits (the two zeros
// count once, every NaN is one value); math.Inf(1) for Any.
func setSize(dt scatter.DType, o reference.Outcomes) float64 {
	if o.Any {
		return math.Inf(1)
	}
	var n float64
	if o.Range {
		n = float64(ordinal(dt, o.Hi)-ordinal(dt, o.Lo)) + 1
	}
	seen := map[int64]bool{}
	for _, v := range o.Values {
		f := v.Float64()
		if math.IsNaN(f) {
			n++
			continue
		}
		if o.Range && f >= o.Lo && f <= o.Hi {
			continue
		}
		seen[ordinal(dt, f)] = true
	}
	return n + float64(len(seen))
}

// ordinal numbers the values of dt in order, -0 and +0 alike.
func ordinal(dt scatter.DType, v float64) int64 {
	var b, sign uint64
	switch dt {
	case scatter.DTFloat16:
		b, sign = uint64(scatter.Float16FromFloat64(v)), 1<<15
	case scatter.DTBFloat16:
		b, sign = uint64(scatter.BFloat16FromFloat64(v)), 1<<15
	case scatter.DTFloat32:
		b, sign = uint64(math.Float32bits(float32(v))), 1<<31
	default:
		b, sign = math.Float64bits(v), 1<<63
	}
	if b&sign != 0 {
		return -int64(b &^ sign)
	}
	return int64(b)
}
