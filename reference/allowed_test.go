package reference_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/spec"
)

// TestAllowedAgreesWithJudge: for the spec's cases (a quarter of the
// recorded fixtures; none of the sizes cases labelled large, whose
// results are past the 64 elements probed here, as the 10,007-element
// ones are, and cost a tenth of a second each), at both levels and under both profiles, the sets of
// Expectation.Allowed say what Check accepts: at every element, each probe
// value (the canonical one and its neighbours, every listed value, the
// interval's ends and their neighbours, the zeros, the infinities, NaN,
// the dtype's extremes) is in the set exactly when the canonical result
// with that value put there conforms.
func TestAllowedAgreesWithJudge(t *testing.T) {
	elems := 0
	for k, c := range spec.Cases() {
		if strings.HasPrefix(c.Name, "fixture/") && k%4 != 0 || slices.Contains(c.Labels, "large") {
			continue
		}
		for _, prof := range []scatter.Profile{scatter.Torch2, scatter.Torch113} {
			exp := reference.Expect(c.Call, prof)
			for _, lvl := range []scatter.Level{scatter.Conformant, scatter.Strict} {
				a, err := exp.Allowed(lvl)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if codes := exp.Codes(); codes != nil {
					if want := codes[:1]; lvl == scatter.Strict && (len(a.Errors) != 1 || a.Errors[0] != want[0]) ||
						lvl == scatter.Conformant && len(a.Errors) != len(codes) {
						t.Errorf("%s (%v): errors %v, codes %v", c.Name, lvl, a.Errors, codes)
					}
					continue
				}
				if a.Any || a.Errors != nil {
					continue
				}
				canon := exp.Result()
				res := scatter.Result{Out: canon.Out.Contiguous()}
				if !canon.Arg.IsZero() {
					res.Arg = canon.Arg.Contiguous()
				}
				if (a.Arg != nil) != !res.Arg.IsZero() {
					t.Fatalf("%s (%v): arg sets %v, arg %v", c.Name, lvl, a.Arg != nil, !res.Arg.IsZero())
				}
				if res.Out.NumEl() > 64 {
					continue // each probe judges the whole result
				}
				check := func(name string, at reference.AllowedTensor, tt scatter.Tensor) {
					if at.DType != tt.DType() || len(at.Elems) != tt.NumEl() {
						t.Fatalf("%s (%v) %s: sets of %v×%d for a %v×%d result", c.Name, lvl, name, at.DType, len(at.Elems), tt.DType(), tt.NumEl())
					}
					for i, o := range at.Elems {
						elems++
						canonV := valueAt(tt, i)
						if !o.Contains(canonV) {
							t.Errorf("%s (%v) %s[%d]: the canonical %v is not in %+v", c.Name, lvl, name, i, canonV, o)
						}
						for _, v := range probes(at.DType, canonV, o) {
							setValue(tt, i, v)
							judged := exp.Check(lvl, res, nil) == nil
							setValue(tt, i, canonV)
							if judged != o.Contains(v) {
								t.Errorf("%s (%v, %v) %s[%d]: %v conforms: %v; in %+v: %v", c.Name, prof, lvl, name, i, v, judged, o, !judged)
							}
						}
					}
				}
				check("out", a.Out, res.Out)
				if a.Arg != nil {
					check("arg", *a.Arg, res.Arg)
				}
			}
		}
	}
	if elems == 0 {
		t.Fatal("no element checked")
	}
}

// probes returns the values tried at an element of dtype dt whose
// canonical value is v and whose set is o.
func probes(dt scatter.DType, v scatter.Scalar, o reference.Outcomes) []scatter.Scalar {
	if !dt.IsFloat() {
		lo, hi := dt.IntRange()
		var ps []scatter.Scalar
		for _, x := range []int64{v.Int64() - 1, v.Int64() + 1, lo, hi, 0, 1} {
			if x >= lo && x <= hi {
				ps = append(ps, scatter.Int(x))
			}
		}
		if dt == scatter.DTBool {
			for i := range ps {
				ps[i] = scatter.Bool(ps[i].Int64() != 0)
			}
		}
		return append(ps, o.Values...)
	}
	m := maxFinite(dt)
	fs := []float64{math.NaN(), m, -m, math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1}
	near := []float64{v.Float64()}
	for _, w := range o.Values {
		near = append(near, w.Float64())
	}
	if o.Range {
		near = append(near, o.Lo, o.Hi)
	}
	for _, f := range near {
		fs = append(fs, f, step(dt, f, -1), step(dt, f, +1))
	}
	ps := make([]scatter.Scalar, 0, len(fs))
	for _, f := range fs {
		ps = append(ps, scatter.Float(f))
	}
	return ps
}

func maxFinite(dt scatter.DType) float64 {
	switch dt {
	case scatter.DTFloat16:
		return 65504
	case scatter.DTBFloat16:
		return scatter.BFloat16(0x7f7f).Float64()
	case scatter.DTFloat32:
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// step returns the dtype value next to f (dir -1 below, +1 above) in the
// order with -0 < +0; NaN and f itself past the infinities.
func step(dt scatter.DType, f float64, dir int) float64 {
	if math.IsNaN(f) || math.IsInf(f, dir) {
		return f
	}
	if f == 0 && math.Signbit(f) == (dir > 0) {
		return -f // -0 -> +0 upward, +0 -> -0 downward
	}
	to := math.Inf(dir)
	switch dt {
	case scatter.DTFloat64:
		return math.Nextafter(f, to)
	case scatter.DTFloat32:
		return float64(math.Nextafter32(float32(f), float32(to)))
	}
	// 16-bit: move the bit pattern's magnitude away from or toward zero.
	var b uint16
	if dt == scatter.DTFloat16 {
		b = uint16(scatter.Float16FromFloat64(f))
	} else {
		b = uint16(scatter.BFloat16FromFloat64(f))
	}
	if (f > 0 || f == 0 && !math.Signbit(f)) == (dir > 0) {
		b++
	} else {
		b--
	}
	if dt == scatter.DTFloat16 {
		return scatter.Float16(b).Float64()
	}
	return scatter.BFloat16(b).Float64()
}

// valueAt returns element i of a contiguous tensor as a value of Outcomes.
func valueAt(t scatter.Tensor, i int) scatter.Scalar {
	switch {
	case t.DType() == scatter.DTBool:
		return scatter.Bool(scatter.IntAt(t.Data, i) != 0)
	case t.DType().IsFloat():
		return scatter.Float(scatter.Float64At(t.Data, i))
	}
	return scatter.Int(scatter.IntAt(t.Data, i))
}

// setValue stores v at element i of a contiguous tensor.
func setValue(t scatter.Tensor, i int, v scatter.Scalar) {
	if v.IsFloat() {
		scatter.SetFloat(t.Data, i, v.Float64())
	} else {
		scatter.SetInt(t.Data, i, v.Int64())
	}
}
