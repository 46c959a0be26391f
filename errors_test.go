package scatter_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
)

// protocolKinds is the error-kind table of PROTOCOL.md, in its order.
const protocolKinds = "dim_out_of_range index_dtype dtype_mismatch shape_mismatch index_out_of_range unsupported_dtype invalid_argument value_overflow"

func TestCodeNames(t *testing.T) {
	var names []string
	for _, c := range scatter.Codes {
		names = append(names, c.String())
	}
	if got := strings.Join(names, " "); got != protocolKinds {
		t.Errorf("Codes = %s, want %s", got, protocolKinds)
	}
	for _, c := range append(append([]scatter.Code{}, scatter.Codes...), scatter.ErrNotSupported) {
		t.Run("round-trip/"+c.String(), func(t *testing.T) {
			got, err := scatter.ParseCode(c.String())
			if err != nil || got != c {
				t.Errorf("ParseCode(%q) = %v, %v", c.String(), got, err)
			}
			if c.Error() != c.String() {
				t.Errorf("Error() = %q, String() = %q", c.Error(), c.String())
			}
		})
	}
	if s := scatter.ErrNotSupported.String(); s != "unsupported" {
		t.Errorf("ErrNotSupported = %q, want unsupported (the protocol's answer)", s)
	}
	for _, s := range []string{"", "none", "Code(99)", "IndexOutOfRange", "index-out-of-range"} {
		t.Run(fmt.Sprintf("unknown/%q", s), func(t *testing.T) {
			c, err := scatter.ParseCode(s)
			if c != 0 || scatter.CodeOf(err) != scatter.ErrInvalidArgument {
				t.Errorf("ParseCode(%q) = %v, %v", s, c, err)
			}
		})
	}
	if s := scatter.Code(0).String(); s != "none" {
		t.Errorf("Code(0) = %q", s)
	}
	if s := scatter.Code(99).String(); s != "Code(99)" {
		t.Errorf("Code(99) = %q", s)
	}
}

func TestErrorIs(t *testing.T) {
	err := error(scatter.Errorf(scatter.ErrIndexOutOfRange, "index %d is out of bounds for dimension %d with size %d", 5, 0, 3))
	if got, want := err.Error(), "index_out_of_range: index 5 is out of bounds for dimension 0 with size 3"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("call 7: %w", err)
	for name, e := range map[string]error{"direct": err, "wrapped": wrapped} {
		t.Run(name, func(t *testing.T) {
			if !errors.Is(e, scatter.ErrIndexOutOfRange) {
				t.Error("errors.Is(err, ErrIndexOutOfRange) = false")
			}
			for _, c := range scatter.Codes {
				if c != scatter.ErrIndexOutOfRange && errors.Is(e, c) {
					t.Errorf("errors.Is(err, %v) = true", c)
				}
			}
			var se *scatter.Error
			if !errors.As(e, &se) || se.Code != scatter.ErrIndexOutOfRange || se.Msg == "" {
				t.Errorf("errors.As = %v", se)
			}
			if c := scatter.CodeOf(e); c != scatter.ErrIndexOutOfRange {
				t.Errorf("CodeOf = %v", c)
			}
		})
	}
}

func TestCodeOf(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want scatter.Code
	}{
		{"nil", nil, 0},
		{"plain", io.EOF, 0},
		{"wrapped-plain", fmt.Errorf("x: %w", io.EOF), 0},
		{"code", scatter.ErrShapeMismatch, scatter.ErrShapeMismatch},
		{"wrapped-code", fmt.Errorf("x: %w", scatter.ErrDimOutOfRange), scatter.ErrDimOutOfRange},
		{"error", scatter.Errorf(scatter.ErrValueOverflow, "v"), scatter.ErrValueOverflow},
		{"error/not-supported", scatter.Errorf(scatter.ErrNotSupported, "no"), scatter.ErrNotSupported},
		{"joined", errors.Join(io.EOF, scatter.Errorf(scatter.ErrDTypeMismatch, "d")), scatter.ErrDTypeMismatch},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := scatter.CodeOf(c.err); got != c.want {
				t.Errorf("CodeOf(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}
