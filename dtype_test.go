package scatter_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
)

// protocolDTypes is the dtype list of PROTOCOL.md, in its order.
const protocolDTypes = "bool uint8 int8 int16 int32 int64 float16 bfloat16 float32 float64"

func TestDTypeNames(t *testing.T) {
	var names []string
	for _, dt := range scatter.DTypes {
		names = append(names, dt.String())
	}
	if got := strings.Join(names, " "); got != protocolDTypes {
		t.Errorf("DTypes = %s, want %s", got, protocolDTypes)
	}
	for _, dt := range scatter.DTypes {
		t.Run("round-trip/"+dt.String(), func(t *testing.T) {
			got, err := scatter.ParseDType(dt.String())
			if err != nil || got != dt {
				t.Errorf("ParseDType(%q) = %v, %v", dt.String(), got, err)
			}
			if !dt.Valid() {
				t.Errorf("%v is not Valid", dt)
			}
		})
	}
	for _, s := range []string{"", "invalid", "float", "torch.float32", "Float32", "float32 ", "half", "uint16", "complex64"} {
		t.Run(fmt.Sprintf("unknown/%q", s), func(t *testing.T) {
			dt, err := scatter.ParseDType(s)
			if scatter.CodeOf(err) != scatter.ErrInvalidArgument || dt != scatter.DTInvalid {
				t.Errorf("ParseDType(%q) = %v, %v; want DTInvalid and invalid_argument", s, dt, err)
			}
		})
	}
	if s := scatter.DTInvalid.String(); s != "invalid" {
		t.Errorf("DTInvalid.String() = %q", s)
	}
	if s := scatter.DType(200).String(); s != "DType(200)" {
		t.Errorf("DType(200).String() = %q", s)
	}
	for _, dt := range []scatter.DType{scatter.DTInvalid, scatter.DTFloat64 + 1, 255} {
		if dt.Valid() || dt.Size() != 0 || scatter.MakeData(dt, 1) != nil {
			t.Errorf("%v: Valid %v, Size %d, MakeData %v", dt, dt.Valid(), dt.Size(), scatter.MakeData(dt, 1))
		}
	}
}

func TestDTypeProperties(t *testing.T) {
	for _, c := range []struct {
		dt                      scatter.DType
		size                    int
		isFloat, isInt, isIndex bool
	}{
		{scatter.DTBool, 1, false, false, false},
		{scatter.DTUint8, 1, false, true, false},
		{scatter.DTInt8, 1, false, true, false},
		{scatter.DTInt16, 2, false, true, false},
		{scatter.DTInt32, 4, false, true, true},
		{scatter.DTInt64, 8, false, true, true},
		{scatter.DTFloat16, 2, true, false, false},
		{scatter.DTBFloat16, 2, true, false, false},
		{scatter.DTFloat32, 4, true, false, false},
		{scatter.DTFloat64, 8, true, false, false},
		{scatter.DTInvalid, 0, false, false, false},
	} {
		t.Run(c.dt.String(), func(t *testing.T) {
			if c.dt.Size() != c.size || c.dt.IsFloat() != c.isFloat || c.dt.IsInt() != c.isInt || c.dt.IsIndex() != c.isIndex {
				t.Errorf("Size %d IsFloat %v IsInt %v IsIndex %v; want %d %v %v %v",
					c.dt.Size(), c.dt.IsFloat(), c.dt.IsInt(), c.dt.IsIndex(), c.size, c.isFloat, c.isInt, c.isIndex)
			}
			if !c.dt.Valid() {
				return
			}
			data := scatter.MakeData(c.dt, 3)
			if scatter.DTypeOf(data) != c.dt || scatter.DataLen(data) != 3 {
				t.Errorf("MakeData(%v, 3) = %T of %d", c.dt, data, scatter.DataLen(data))
			}
			if sz := int(reflect.TypeOf(data).Elem().Size()); sz != c.size {
				t.Errorf("the Go element type %T has %d bytes, Size() says %d", data, sz, c.size)
			}
		})
	}
	for _, data := range []any{nil, []int{}, []uint16{}, []string{}, float32(1), []any{}} {
		if dt := scatter.DTypeOf(data); dt != scatter.DTInvalid {
			t.Errorf("DTypeOf(%T) = %v", data, dt)
		}
		if n := scatter.DataLen(data); n != -1 {
			t.Errorf("DataLen(%T) = %d", data, n)
		}
	}
}

// TestProfileFor: the profile of each torch version a hello may report.
func TestProfileFor(t *testing.T) {
	for _, tc := range []struct {
		version  string
		want     scatter.Profile
		verified bool
	}{
		{"2.14.1+debian", scatter.Torch2, true},
		{"2.14.0", scatter.Torch2, true},
		{"2.15.0.dev20261101+cpu", scatter.Torch2, false},
		{"2.8.0+cu128", scatter.Torch28, true},
		{"2.11.0+cu130", scatter.Torch28, true},
		{"2.13.0", scatter.Torch28, true},
		{"2.12.1", scatter.Torch28, false},
		{"2.14.1+cu130", scatter.Torch2, true},
		{"2.7.1", scatter.Torch26, false},
		{"2.6.0+debian", scatter.Torch26, true},
		{"2.0.1", scatter.Torch26, false},
		{"1.13.0a0", scatter.Torch113, true},
		{"1.13.1+cpu", scatter.Torch113, true},
		{"1.12.1", scatter.Torch113, false},
		{"3.0.0", scatter.Torch2, false},
		{"", scatter.Torch2, false},
		{"nightly", scatter.Torch2, false},
		{"2", scatter.Torch2, false},
		{"2.x", scatter.Torch2, false},
	} {
		got, verified := scatter.ProfileFor(tc.version)
		if got != tc.want || verified != tc.verified {
			t.Errorf("ProfileFor(%q) = %v, %v; want %v, %v", tc.version, got, verified, tc.want, tc.verified)
		}
	}
}

func TestParseProfile(t *testing.T) {
	want := map[scatter.Profile]string{scatter.Torch2: "torch-2", scatter.Torch28: "torch-2.8", scatter.Torch26: "torch-2.6", scatter.Torch113: "torch-1.13"}
	if len(scatter.Profiles) != len(want) {
		t.Errorf("Profiles = %v", scatter.Profiles)
	}
	for _, p := range scatter.Profiles {
		t.Run("round-trip/"+p.String(), func(t *testing.T) {
			if p.String() != want[p] {
				t.Errorf("String() = %q, want %q", p.String(), want[p])
			}
			got, err := scatter.ParseProfile(p.String())
			if err != nil || got != p {
				t.Errorf("ParseProfile(%q) = %v, %v", p.String(), got, err)
			}
		})
	}
	var zero scatter.Profile
	if zero != scatter.Torch2 {
		t.Error("the zero Profile is not Torch2")
	}
	for _, s := range []string{"", "torch-1.13.1", "torch2", "2", "Torch-2"} {
		t.Run(fmt.Sprintf("unknown/%q", s), func(t *testing.T) {
			if _, err := scatter.ParseProfile(s); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
				t.Errorf("ParseProfile(%q) error = %v, want invalid_argument", s, err)
			}
		})
	}
}

func TestParseLevel(t *testing.T) {
	for _, l := range []scatter.Level{scatter.Conformant, scatter.Strict} {
		t.Run("round-trip/"+l.String(), func(t *testing.T) {
			got, err := scatter.ParseLevel(l.String())
			if err != nil || got != l {
				t.Errorf("ParseLevel(%q) = %v, %v", l.String(), got, err)
			}
		})
	}
	var zero scatter.Level
	if zero != scatter.Conformant || zero.String() != "conformant" || scatter.Strict.String() != "strict" {
		t.Error("Level names or zero value wrong")
	}
	if _, err := scatter.ParseLevel("exact"); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Errorf("ParseLevel(exact) error = %v", err)
	}
}
