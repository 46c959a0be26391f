package scatter

// Profile pins the PyTorch version whose behaviour is the truth where
// versions differ (SEMANTICS.md §10). The zero value is Torch2.
type Profile uint8

const (
	// Torch2 is PyTorch 2.x (CPU, ≥ 2.8 for the index rule): float16 and
	// bfloat16 scatter, scatter_add and scatter_reduce accumulate in float32
	// and round once; int32 indices are accepted by scatter and gather.
	Torch2 Profile = iota
	// Torch113 is PyTorch 1.13: float16 and bfloat16 round after every step,
	// mean counts are kept (and saturate or wrap) in the tensor's dtype, and
	// scatter and gather take int64 indices only.
	Torch113
)

// Profiles lists the profiles.
var Profiles = []Profile{Torch2, Torch113}

// String returns the profile's name: "torch-2" or "torch-1.13".
func (p Profile) String() string {
	if p == Torch113 {
		return "torch-1.13"
	}
	return "torch-2"
}

// ParseProfile returns the profile named s.
func ParseProfile(s string) (Profile, error) {
	switch s {
	case "torch-2":
		return Torch2, nil
	case "torch-1.13":
		return Torch113, nil
	}
	return 0, Errorf(ErrInvalidArgument, "unknown profile %q (want torch-2 or torch-1.13)", s)
}

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
