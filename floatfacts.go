package scatter

import "math"

// FloatFacts are the landmarks of a float dtype's IEEE binary format: its
// precision and exponent range, and the values they make. They have one
// home here, for the generators' special values, the judge's error
// bounds, the mutants' and the misbehaving adapter's arithmetic.
type FloatFacts struct {
	Prec int // significand bits, the implicit bit included
	EMin int // the smallest normal number is 2^EMin
	EMax int // the largest finite number is in [2^EMax, 2^(EMax+1))

	MinSub  float64 // the smallest subnormal, 2^(EMin-Prec+1)
	MaxSub  float64 // the largest subnormal, MinNorm - MinSub
	MinNorm float64 // the smallest normal, 2^EMin
	Max     float64 // the largest finite, (2 - 2^(1-Prec))·2^EMax
}

// newFloatFacts derives a format's landmarks from its precision and
// exponent range.
func newFloatFacts(prec, emin, emax int) FloatFacts {
	f := FloatFacts{Prec: prec, EMin: emin, EMax: emax}
	f.MinNorm = math.Ldexp(1, emin)
	f.MinSub = math.Ldexp(1, emin-prec+1)
	f.MaxSub = f.MinNorm - f.MinSub
	f.Max = math.Ldexp(2-math.Ldexp(1, 1-prec), emax)
	return f
}

var floatFacts = map[DType]FloatFacts{
	DTFloat16:  newFloatFacts(11, -14, 15),
	DTBFloat16: newFloatFacts(8, -126, 127),
	DTFloat32:  newFloatFacts(24, -126, 127),
	DTFloat64:  newFloatFacts(53, -1022, 1023),
}

// FactsOf returns the landmarks of a float dtype (float64's for any
// other dtype).
func FactsOf(dt DType) FloatFacts {
	if f, ok := floatFacts[dt]; ok {
		return f
	}
	return floatFacts[DTFloat64]
}
