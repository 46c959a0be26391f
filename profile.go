package scatter

// Profile pins the PyTorch version whose behaviour is the truth where
// versions differ. Each rule that differs is one method below; PROFILES.md
// lists them with the experiment (fixture or spec case) that shows each on
// real PyTorch. The zero value is Torch2.
type Profile uint8

const (
	// Torch2 is the newest PyTorch 2 verified here: 2.14 (CPU), as Debian
	// unstable ships it, with torch_scatter 2.1.2.
	Torch2 Profile = iota
	// Torch113 is PyTorch 1.13 (Debian 12's 1.13.1, CPU).
	Torch113
	// Torch26 is PyTorch 2.6 (Debian 13's 2.6.0, CPU), with torch_scatter
	// 2.1.2: Torch2's rules but for int64-only scatter and gather indices.
	Torch26
	// Torch28 is PyTorch 2.8 to 2.13 (PyPI's 2.8.0, 2.11.0 and 2.13.0,
	// run on the CPU): Torch2's rules but for the range of a float scalar
	// converted into an integer dtype, which is 2.6's (IntRangeHalfOpen).
	Torch28
)

// Profiles lists the profiles, the default first, then older versions.
var Profiles = []Profile{Torch2, Torch28, Torch26, Torch113}

// String returns the profile's name: "torch-2", "torch-2.8", "torch-2.6"
// or "torch-1.13".
func (p Profile) String() string {
	switch p {
	case Torch113:
		return "torch-1.13"
	case Torch26:
		return "torch-2.6"
	case Torch28:
		return "torch-2.8"
	}
	return "torch-2"
}

// ParseProfile returns the profile named s.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, Errorf(ErrInvalidArgument, "unknown profile %q (want torch-2, torch-2.8, torch-2.6 or torch-1.13)", s)
}

// Torch returns the torch versions whose behaviour the profile is verified
// against, as "major.minor" prefixes.
func (p Profile) Torch() string {
	switch p {
	case Torch113:
		return "1.13"
	case Torch26:
		return "2.6"
	case Torch28:
		return "2.8, 2.11, 2.13"
	}
	return "2.14"
}

// ProfileFor returns the profile whose truth a torch version (torch.__version__,
// e.g. "2.14.1+debian", "1.13.0a0") gives, and whether that version is one
// the profile was verified against. Versions between the verified ones map
// to the nearest rules known: 1.x to torch-1.13, 2.0 to 2.7 to torch-2.6
// (int32 scatter/gather indices arrived in 2.8; 2.5.1 and 2.7.1 were run
// too), 2.8 to 2.13 to torch-2.8 (the half-open integer range of a float
// scalar arrived in 2.14), 2.14 and later to torch-2.
func ProfileFor(version string) (Profile, bool) {
	major, minor, ok := TorchVersion(version)
	switch {
	case !ok:
		return Torch2, false
	case major < 2:
		return Torch113, major == 1 && minor == 13
	case major == 2 && minor < 8:
		return Torch26, minor == 6
	case major == 2 && minor < 14:
		return Torch28, minor == 8 || minor == 11 || minor == 13
	}
	return Torch2, major == 2 && minor == 14
}

// TorchVersion reads "major.minor" at the start of a version string as
// torch.__version__ gives it ("2.14.1+debian" is 2, 14).
func TorchVersion(v string) (major, minor int, ok bool) {
	num := func() (int, bool) {
		n, digits := 0, 0
		for len(v) > 0 && v[0] >= '0' && v[0] <= '9' && digits < 6 {
			n, v, digits = n*10+int(v[0]-'0'), v[1:], digits+1
		}
		return n, digits > 0
	}
	var ok1, ok2 bool
	if major, ok1 = num(); !ok1 || len(v) == 0 || v[0] != '.' {
		return 0, 0, false
	}
	v = v[1:]
	minor, ok2 = num()
	return major, minor, ok2
}

// Int32Index reports whether scatter, scatter_add, scatter_reduce and
// gather (and torch_scatter's Python ops over them) take int32 indices
// besides int64: PyTorch 2.8 and later. Under 2.6 and 1.13 they raise
// "scatter(): Expected dtype int64 for index". index_reduce takes int32 in
// every version.
func (p Profile) Int32Index() bool { return p == Torch2 || p == Torch28 }

// RoundsPerStep reports whether float16 and bfloat16 scatter, scatter_add
// and scatter_reduce round after every step, and a mean's count is kept
// (and saturates or wraps) in the tensor's dtype (PyTorch 1.13). From 2.x
// on they accumulate in float32 and round once, and counts are exact
// before conversion.
func (p Profile) RoundsPerStep() bool { return p == Torch113 }

// ReduceAliases reports whether scatter_reduce takes "max" and "min" as
// "amax" and "amin" (PyTorch 2.x: get_reduction_enum in ReductionType.h;
// 1.13 rejects them).
func (p Profile) ReduceAliases() bool { return p != Torch113 }

// OneElementFillUnchecked reports whether full() and new_full() (torch_scatter
// 1.x's fill_value) of exactly one float16 or bfloat16 element convert the
// scalar without the range check, so that past the range it rounds to
// ±inf (2.14: float16 65520 gives inf). With 0 or 2 and more elements, in
// every other dtype, for scatter_'s value and in 1.13 and 2.6, a value
// past the range raises "value cannot be converted to type at::Half
// without overflow".
func (p Profile) OneElementFillUnchecked() bool { return p == Torch2 || p == Torch28 }

// IntRangeHalfOpen reports whether a float scalar converts into an
// integer dtype when lowest <= v < max+1, truncating toward zero (2.14:
// uint8 255.5 gives 255, int64 2^63 raises), rather than when
// lowest <= v <= max as doubles (1.13, 2.6 and 2.8 to 2.13: uint8 255.5
// raises, int64 2^63, which is max as a double, wraps to -2^63).
func (p Profile) IntRangeHalfOpen() bool { return p == Torch2 }

// IndexMeanCountPerStep reports whether index_reduce's mean keeps its
// count in self's dtype, adding one per contribution with a rounding each
// (a 16-bit count saturates: bfloat16 at 256, float16 at 2048), for a self
// of selfDim dimensions reduced along dim (wrapped) with an index of dtype
// idx. 1.13: always. 2.6 and 2.14: except with an int64 index along the
// first or the last dimension of a self of two or more dimensions, where
// the count is exact, then converted (an int32 index, a 1-d self and a
// middle dimension count step by step). Integer counts wrap alike either
// way.
func (p Profile) IndexMeanCountPerStep(selfDim, dim int, idx DType) bool {
	return p.RoundsPerStep() || idx != DTInt64 || selfDim <= 1 || (dim > 0 && dim < selfDim-1)
}

// ExpandedPathIndexRows reports whether the expanded-index fast path of
// scatter_add_ and scatter_reduce_ (a floating self, dim 0, an index
// expanded over rows of 16 or more elements: reference/expanded_index.go)
// steps through self by the index's rows, K = index.numel() / index.size(0)
// elements each, whatever self's rows are: where self is wider than the
// index off dim 0 (a torch_scatter out larger than src), the sums of
// index row m land at self's flat offsets m*K to m*K+K-1 instead of in
// self's row m (2.14: scatter_add_ of ones(1,16) at row 1 of zeros(2,17)
// writes out[0,16] and out[1,0:15]; PyPI's 2.8 to 2.13 alike). Debian's
// 2.6, built without FBGEMM, never takes the path and writes them in row
// m; 1.13 has no such path. (PyPI's 2.5 to 2.7, built with FBGEMM, take
// it and shift the rows as 2.14 does: PROFILES.md, "Builds".)
func (p Profile) ExpandedPathIndexRows() bool { return p == Torch2 || p == Torch28 }

// IndexReduceExactShape reports whether index_reduce demands that source
// has self's shape but along dim (2.x: index_func_meta_impl's "source
// tensor shape must match self tensor shape, excluding the specified
// dimension", checked after the number of indices); 1.13 broadcasts a
// source slice instead and takes a 0-d source for a 1-d self.
func (p Profile) IndexReduceExactShape() bool { return p != Torch113 }

// Level is how strictly a result is judged. The zero value is Conformant.
type Level uint8

const (
	// Conformant accepts what any correct implementation may return, in any
	// summation order and thread count (see reference's judge).
	Conformant Level = iota
	// Strict demands bit-exactness with the canonical order: contributions
	// folded in increasing position along dim, self first.
	Strict
)

// String returns "conformant" or "strict".
func (l Level) String() string {
	if l == Strict {
		return "strict"
	}
	return "conformant"
}

// ParseLevel returns the level named s.
func ParseLevel(s string) (Level, error) {
	switch s {
	case "conformant":
		return Conformant, nil
	case "strict":
		return Strict, nil
	}
	return 0, Errorf(ErrInvalidArgument, "unknown level %q (want conformant or strict)", s)
}
