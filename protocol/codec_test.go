package protocol

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
)

// sampleTensor returns a contiguous tensor of dt and shape with distinct,
// NaN-free elements, including negative, extreme and fractional values
// where dt has them.
func sampleTensor(dt scatter.DType, shape ...int) scatter.Tensor {
	n, _ := scatter.NumElements(shape)
	f := func(i int) float64 { return float64(i%7-3) * 1.25 }
	var data any
	switch dt {
	case scatter.DTBool:
		d := make([]bool, n)
		for i := range d {
			d[i] = i%3 == 1
		}
		data = d
	case scatter.DTUint8:
		d := make([]uint8, n)
		for i := range d {
			d[i] = uint8(250 + i)
		}
		data = d
	case scatter.DTInt8:
		d := make([]int8, n)
		for i := range d {
			d[i] = int8(-128 + 37*i)
		}
		data = d
	case scatter.DTInt16:
		d := make([]int16, n)
		for i := range d {
			d[i] = int16(-32768 + 1001*i)
		}
		data = d
	case scatter.DTInt32:
		d := make([]int32, n)
		for i := range d {
			d[i] = int32(math.MinInt32 + 123456789*i)
		}
		data = d
	case scatter.DTInt64:
		d := make([]int64, n)
		for i := range d {
			d[i] = math.MaxInt64 - int64(i)*1e17
		}
		data = d
	case scatter.DTFloat16:
		d := make([]scatter.Float16, n)
		for i := range d {
			d[i] = scatter.Float16FromFloat64(f(i))
		}
		if n > 0 {
			d[0] = 0x7c00 // +inf
		}
		data = d
	case scatter.DTBFloat16:
		d := make([]scatter.BFloat16, n)
		for i := range d {
			d[i] = scatter.BFloat16FromFloat64(f(i))
		}
		if n > 0 {
			d[0] = 0x8000 // -0
		}
		data = d
	case scatter.DTFloat32:
		d := make([]float32, n)
		for i := range d {
			d[i] = float32(f(i))
		}
		if n > 0 {
			d[0] = float32(math.Inf(-1))
		}
		data = d
	case scatter.DTFloat64:
		d := make([]float64, n)
		for i := range d {
			d[i] = f(i) + 1e-300
		}
		if n > 0 {
			d[0] = math.SmallestNonzeroFloat64
		}
		data = d
	}
	return scatter.Tensor{Shape: append([]int{}, shape...), Data: data}
}

// sameTensor reports whether a and b have the same dtype, shape and
// element bits.
func sameTensor(a, b scatter.Tensor) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() == b.IsZero()
	}
	return a.DType() == b.DType() && reflect.DeepEqual(append([]int{}, a.Shape...), append([]int{}, b.Shape...)) &&
		bytes.Equal(tensorBytes(a), tensorBytes(b))
}

func TestTensorRoundTrip(t *testing.T) {
	shapes := [][]int{{}, {0}, {5}, {2, 3}, {2, 0, 3}, {1, 2, 3, 1}}
	for _, dt := range scatter.DTypes {
		for _, sh := range shapes {
			want := sampleTensor(dt, sh...)
			w, err := EncodeTensor(want)
			if err != nil {
				t.Fatalf("%v%v: encode: %v", dt, sh, err)
			}
			if w.DType != dt.String() || w.Shape == nil {
				t.Fatalf("%v%v: encoded as %+v", dt, sh, w)
			}
			got, err := DecodeTensor(w)
			if err != nil {
				t.Fatalf("%v%v: decode: %v", dt, sh, err)
			}
			if !sameTensor(got, want) || got.Strides != nil || got.Offset != 0 {
				t.Fatalf("%v%v: round trip gave %v, want %v", dt, sh, got, want)
			}
			if !reflect.DeepEqual(got.Data, want.Data) && dt != scatter.DTFloat64 {
				t.Fatalf("%v%v: data %v, want %v", dt, sh, got.Data, want.Data)
			}
		}
	}
}

func TestEncodeTensorViews(t *testing.T) {
	// A 3×4 float64 base 0..11; views of it encode their own elements.
	base := make([]float64, 16)
	for i := range base {
		base[i] = float64(i)
	}
	cases := []struct {
		name string
		view scatter.Tensor
		want []float64
	}{
		{"transposed", scatter.Tensor{Shape: []int{2, 3}, Strides: []int{1, 4}, Data: base}, []float64{0, 4, 8, 1, 5, 9}},
		{"offset", scatter.Tensor{Shape: []int{3}, Offset: 5, Data: base}, []float64{5, 6, 7}},
		{"expanded", scatter.Tensor{Shape: []int{2, 3}, Strides: []int{0, 2}, Offset: 1, Data: base}, []float64{1, 3, 5, 1, 3, 5}},
		{"0-d offset", scatter.Tensor{Shape: []int{}, Offset: 15, Data: base}, []float64{15}},
	}
	for _, c := range cases {
		w, err := EncodeTensor(c.view)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := DecodeTensor(w)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(got.Data, c.want) || !reflect.DeepEqual(got.Shape, c.view.Shape) {
			t.Fatalf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if _, err := EncodeTensor(scatter.Tensor{Shape: []int{5}, Data: base[:3]}); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Fatalf("invalid view: err %v, want invalid_argument", err)
	}
	if _, err := EncodeTensor(scatter.Tensor{Shape: []int{1}, Data: []string{"x"}}); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Fatalf("non-element data: err %v, want invalid_argument", err)
	}
}

func TestTensorGolden(t *testing.T) {
	tt := scatter.FromSlice([]float32{0, 1, 2, 3, 4, 5}, 2, 3)
	w, err := EncodeTensor(tt)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := marshal(w)
	// The data is Python's base64.b64encode(struct.pack('<6f', 0, 1, 2, 3, 4, 5)).
	const want = `{"dtype":"float32","shape":[2,3],"data":"AAAAAAAAgD8AAABAAABAQAAAgEAAAKBA"}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	golden := []struct {
		t    scatter.Tensor
		data string
	}{
		{scatter.FromSlice([]int64{0, 4, 2}), "AAAAAAAAAAAEAAAAAAAAAAIAAAAAAAAA"},
		{scatter.FromSlice([]scatter.Float16{0x3c00, 0xc000}), "ADwAwA=="}, // 1.0, -2.0
		{scatter.FromSlice([]bool{true, false, true}), "AQAB"},
		{scatter.FromSlice([]float64{}, 0, 4), ""},
		{scatter.Scalar0D(int8(-1)), "/w=="},
	}
	for _, g := range golden {
		w, err := EncodeTensor(g.t)
		if err != nil || w.Data != g.data {
			t.Errorf("%v: data %q (%v), want %q", g.t, w.Data, err, g.data)
		}
	}
	w, _ = EncodeTensor(scatter.Scalar0D(5.0))
	if b, _ := marshal(w); !strings.Contains(string(b), `"shape":[]`) {
		t.Errorf("0-d tensor encodes as %s, want shape []", b)
	}
}

func TestDecodeTensorRejects(t *testing.T) {
	f32x6 := base64.StdEncoding.EncodeToString(make([]byte, 24))
	cases := []struct {
		name string
		w    Tensor
	}{
		{"unknown dtype", Tensor{DType: "complex64", Shape: []int{1}, Data: "AAAAAAAAAAA="}},
		{"empty dtype", Tensor{Shape: []int{0}}},
		{"missing shape", Tensor{DType: "float32", Data: ""}},
		{"negative size", Tensor{DType: "float32", Shape: []int{-1}, Data: ""}},
		{"negative with zero", Tensor{DType: "float32", Shape: []int{0, -3}, Data: ""}},
		{"overflowing product", Tensor{DType: "int8", Shape: []int{1 << 40, 1 << 40}, Data: ""}},
		{"overflowing bytes", Tensor{DType: "float64", Shape: []int{math.MaxInt / 4}, Data: ""}},
		{"absurd size", Tensor{DType: "uint8", Shape: []int{1 << 50}, Data: "AAAA"}},
		{"too many dims", Tensor{DType: "uint8", Shape: make([]int, 65), Data: ""}},
		{"truncated", Tensor{DType: "float32", Shape: []int{2, 3}, Data: f32x6[:len(f32x6)-4]}},
		{"too long", Tensor{DType: "float32", Shape: []int{2, 3}, Data: f32x6 + "AAAA"}},
		{"not base64", Tensor{DType: "float32", Shape: []int{2, 3}, Data: strings.Repeat("!", len(f32x6))}},
		{"newlines", Tensor{DType: "float32", Shape: []int{2, 3}, Data: "AAAA\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}},
		{"url alphabet", Tensor{DType: "uint8", Shape: []int{3}, Data: "-_-_"}},
		{"3 bytes for 1", Tensor{DType: "uint8", Shape: []int{}, Data: "0000"}},
		{"2 bytes for 1", Tensor{DType: "uint8", Shape: []int{1}, Data: "AAA="}},
		{"missing padding", Tensor{DType: "uint8", Shape: []int{1}, Data: "AA"}},
		{"nonzero padding bits", Tensor{DType: "uint8", Shape: []int{1}, Data: "AB=="}},
		{"bool byte 2", Tensor{DType: "bool", Shape: []int{1}, Data: "Ag=="}},
		{"data for empty", Tensor{DType: "float32", Shape: []int{0}, Data: "AAAAAA=="}},
	}
	for _, c := range cases {
		_, err := DecodeTensor(c.w)
		if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
			t.Errorf("%s: err %v, want invalid_argument", c.name, err)
		}
	}
	// The byte budget: 2 tensors of 16 bytes against a limit of 24.
	lim := Limits{MaxTensorBytes: 24}
	w, _ := EncodeTensor(scatter.FromSlice([]int64{1, 2}))
	if _, err := lim.DecodeTensor(w); err != nil {
		t.Fatalf("16 bytes under a 24-byte limit: %v", err)
	}
	line := []byte(`{"id":1,"op":"scatter_add","self":` + mustJSON(t, w) + `,"dim":0,"index":` + mustJSON(t, w) + `,"src":` + mustJSON(t, w) + `}`)
	if _, _, err := lim.DecodeCall(line); scatter.CodeOf(err) != scatter.ErrInvalidArgument || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("48 bytes in one line under a 24-byte limit: err %v, want invalid_argument", err)
	}
	if _, _, err := (Limits{MaxLineBytes: 10}).DecodeCall(line); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Fatalf("line over the line limit: err %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestScalar(t *testing.T) {
	enc := []struct {
		s    scatter.Scalar
		want string
	}{
		{scatter.Int(3), "3"},
		{scatter.Int(-9223372036854775808), "-9223372036854775808"},
		{scatter.Float(2), "2.0"},
		{scatter.Float(-2.5), "-2.5"},
		{scatter.Float(math.Copysign(0, -1)), "-0.0"},
		{scatter.Float(1e300), "1e+300"},
		{scatter.Float(1.23), "1.23"},
		{scatter.Float(math.NaN()), `"nan"`},
		{scatter.Float(math.Inf(1)), `"inf"`},
		{scatter.Float(math.Inf(-1)), `"-inf"`},
		{scatter.Bool(true), "true"},
		{scatter.Bool(false), "false"},
	}
	for _, c := range enc {
		got := string(EncodeScalar(c.s))
		if got != c.want {
			t.Errorf("EncodeScalar(%v) = %s, want %s", c.s, got, c.want)
		}
		back, err := DecodeScalar([]byte(got))
		if err != nil || back.String() != c.s.String() || back.IsFloat() != c.s.IsFloat() || back.IsBool() != c.s.IsBool() ||
			math.Float64bits(back.Float64()) != math.Float64bits(c.s.Float64()) && !math.IsNaN(c.s.Float64()) {
			t.Errorf("DecodeScalar(%s) = %v, %v; want %v", got, back, err, c.s)
		}
	}
	dec := []struct {
		in   string
		want scatter.Scalar
	}{
		{"7", scatter.Int(7)},
		{"-0", scatter.Int(0)},
		{"7.0", scatter.Float(7)},
		{"1e3", scatter.Float(1000)},
		{"1E3", scatter.Float(1000)},
		{"-2.7", scatter.Float(-2.7)},
		{" 5 ", scatter.Int(5)},
	}
	for _, c := range dec {
		got, err := DecodeScalar([]byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("DecodeScalar(%s) = %v (%#v), %v; want %v", c.in, got, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "null", `"NaN"`, `"Infinity"`, `"1"`, "1e400", "99999999999999999999", "01", "+1", "1.", ".5", "0x10", "[1]", "{}", "tru", "nan", `"nan`} {
		if _, err := DecodeScalar([]byte(bad)); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
			t.Errorf("DecodeScalar(%q): err %v, want invalid_argument", bad, err)
		}
	}
}

// sampleCalls returns one or more calls of every operation, with
// contiguous NaN-free tensors, so that a round trip gives a DeepEqual call.
func sampleCalls() []scatter.Call {
	f32 := func(shape ...int) scatter.Tensor { return sampleTensor(scatter.DTFloat32, shape...) }
	idx := func(v []int64, shape ...int) scatter.Tensor { return scatter.FromSlice(v, shape...) }
	return []scatter.Call{
		scatter.Scatter{Self: f32(3, 5), Dim: 0, Index: idx([]int64{0, 1, 2, 0}, 1, 4), Src: f32(2, 5)},
		scatter.Scatter{Self: f32(3, 5), Dim: -1, Index: idx([]int64{0, 1, 2, 0}, 1, 4), Src: f32(2, 5), Reduce: scatter.ReduceMultiply},
		scatter.Scatter{Self: sampleTensor(scatter.DTInt32, 3), Dim: 0, Index: idx([]int64{0}), Value: scatter.Ptr(scatter.Float(-2.7))},
		scatter.Scatter{Self: sampleTensor(scatter.DTUint8, 3), Dim: 0, Index: idx([]int64{0}), Value: scatter.Ptr(scatter.Int(300)), Reduce: scatter.ReduceAdd},
		scatter.Scatter{Self: sampleTensor(scatter.DTBool, 3), Dim: 0, Index: idx([]int64{0}), Value: scatter.Ptr(scatter.Bool(true))},
		scatter.Scatter{Self: f32(3), Dim: 0, Index: idx([]int64{0}), Value: scatter.Ptr(scatter.Float(math.Inf(-1))), Reduce: "bogus"},
		scatter.ScatterAdd{Self: sampleTensor(scatter.DTFloat16, 3, 5), Dim: 1, Index: idx([]int64{0, 1, 2, 0}, 2, 2), Src: sampleTensor(scatter.DTFloat16, 2, 5)},
		scatter.ScatterReduce{Self: f32(4), Dim: 0, Index: idx([]int64{0, 1, 0, 1, 2, 1}), Src: f32(6), Reduce: scatter.ReduceMean},
		scatter.ScatterReduce{Self: sampleTensor(scatter.DTBFloat16, 4), Dim: 0, Index: idx([]int64{0, 1}), Src: sampleTensor(scatter.DTBFloat16, 2), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
		scatter.IndexReduce{Self: f32(5, 3), Dim: 0, Index: scatter.FromSlice([]int32{0, 4, 2, 0}), Source: f32(4, 3), Reduce: scatter.ReduceProd},
		scatter.IndexReduce{Self: sampleTensor(scatter.DTInt16, 5), Dim: -1, Index: idx([]int64{1}), Source: sampleTensor(scatter.DTInt16, 1), Reduce: scatter.ReduceAmin, ExcludeSelf: true},
		scatter.Gather{Input: sampleTensor(scatter.DTInt64, 2, 2), Dim: 1, Index: idx([]int64{0, 0, 1, 0}, 2, 2)},
		scatter.Gather{Input: sampleTensor(scatter.DTInt8), Dim: 0, Index: idx([]int64{0, 0})},
		scatter.TorchScatterAdd{Src: f32(6), Index: idx([]int64{0, 1, 0, 1, 1, 3})},
		scatter.TorchScatterAdd{Src: f32(2, 6), Index: idx([]int64{0, 1, 0, 1, 1, 3}), Dim: scatter.Ptr(1), DimSize: scatter.Ptr(5), FillValue: scatter.Float(-1.5)},
		scatter.TorchScatterAdd{Src: f32(6), Index: idx([]int64{0, 1, 0, 1, 1, 3}), Out: f32(4), FillValue: scatter.Int(7)},
		scatter.TorchScatter{Src: f32(6), Index: idx([]int64{0, 1, 0, 1, 1, 3})},
		scatter.TorchScatter{Src: f32(6, 2), Index: idx([]int64{0, 1, 0, 1, 1, 3}), Dim: scatter.Ptr(0), Out: f32(4, 2), DimSize: scatter.Ptr(4), Reduce: scatter.ReduceMax},
		scatter.TorchScatter{Src: sampleTensor(scatter.DTFloat64, 6), Index: idx([]int64{0, 1, 0, 1, 1, 3}), DimSize: scatter.Ptr(-2), Reduce: scatter.ReduceMean},
		scatter.TensorScatter{Indices: []scatter.Tensor{idx([]int64{0, 2, 1}, 3, 1), {}}, Shape: []int{4, 4}, Src: f32(3, 4)},
		scatter.TensorScatter{Indices: []scatter.Tensor{}, Shape: []int{}, Src: f32()},
		scatter.TensorScatter{Indices: []scatter.Tensor{{}, {}}, Shape: []int{5, -3}, Src: sampleTensor(scatter.DTFloat64, 4, 3)},
		scatter.TensorGather{Indices: []scatter.Tensor{{}, idx([]int64{3, 1, 0})}, Src: f32(3, 4)},
		scatter.TensorGather{Indices: []scatter.Tensor{idx([]int64{1, 2, 0, 0}), idx([]int64{3, 1, 0, 3})}, Src: sampleTensor(scatter.DTInt32, 3, 4)},
	}
}

func TestCallRoundTrip(t *testing.T) {
	seen := map[scatter.Op]bool{}
	for i, c := range sampleCalls() {
		seen[c.Op()] = true
		line, err := EncodeCall(int64(i), c)
		if err != nil {
			t.Fatalf("%d %s: encode: %v", i, c.Op(), err)
		}
		if bytes.ContainsAny(line, "\n") {
			t.Fatalf("%d %s: line has a newline: %s", i, c.Op(), line)
		}
		id, got, err := DecodeCall(line)
		if err != nil {
			t.Fatalf("%d %s: decode %s: %v", i, c.Op(), line, err)
		}
		if id != int64(i) || !reflect.DeepEqual(got, c) {
			t.Fatalf("%d %s: round trip\n got %#v\nwant %#v\nline %s", i, c.Op(), got, c, line)
		}
		// Through the generic decoder too.
		r, err := DecodeRequest(line)
		if err != nil || r.ID != int64(i) || r.Op != string(c.Op()) || !r.IsCall() {
			t.Fatalf("%d: DecodeRequest: %+v, %v", i, r, err)
		}
	}
	for _, op := range scatter.Ops {
		if !seen[op] {
			t.Errorf("no sample call for %s", op)
		}
	}
}

func TestCallEveryDType(t *testing.T) {
	for _, dt := range scatter.DTypes {
		c := scatter.ScatterReduce{Self: sampleTensor(dt, 2, 3), Dim: 1, Index: scatter.FromSlice([]int64{0, 2, 1, 1}, 2, 2),
			Src: sampleTensor(dt, 2, 2), Reduce: scatter.ReduceSum}
		line, err := EncodeCall(1, c)
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := DecodeCall(line)
		if err != nil {
			t.Fatal(err)
		}
		g := got.(scatter.ScatterReduce)
		if !sameTensor(g.Self, c.Self) || !sameTensor(g.Src, c.Src) || !sameTensor(g.Index, c.Index) {
			t.Fatalf("%v: round trip gave %v", dt, got)
		}
	}
}

func TestCallViewsAndNaN(t *testing.T) {
	base := []float64{math.NaN(), 1, math.Inf(1), math.Copysign(0, -1), 4, 5}
	self := scatter.Tensor{Shape: []int{2, 3}, Strides: []int{1, 2}, Data: base} // transposed 3×2
	c := scatter.ScatterAdd{Self: self, Dim: 0, Index: scatter.Tensor{Shape: []int{1, 3}, Strides: []int{0, 0}, Data: []int64{1}}, Src: self}
	line, err := EncodeCall(3, c)
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := DecodeCall(line)
	if err != nil {
		t.Fatal(err)
	}
	g := got.(scatter.ScatterAdd)
	if !sameTensor(g.Self, self) || !sameTensor(g.Src, self) || !reflect.DeepEqual(g.Index.Data, []int64{1, 1, 1}) {
		t.Fatalf("views: got %v", got)
	}
	if g.Self.Strides != nil {
		t.Fatalf("decoded tensor is not contiguous: %v", g.Self.Strides)
	}
}

func TestRequestGolden(t *testing.T) {
	if got := string(EncodeHello(0)); got != `{"id":0,"op":"hello","protocol":1}` {
		t.Errorf("hello: %s", got)
	}
	r, err := DecodeRequest([]byte(`{"id":0,"op":"hello","protocol":1}`))
	if err != nil || r.Op != OpHello || r.Protocol == nil || *r.Protocol != 1 || r.ID != 0 {
		t.Errorf("decode hello: %+v, %v", r, err)
	}
	x := scatter.FromSlice([]float32{0, 1, 2, 3, 4, 5}, 2, 3)
	c := scatter.Gather{Input: x, Dim: 1, Index: scatter.FromSlice([]int64{0, 4, 2}, 1, 3)}
	line, err := EncodeCall(7, c)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":7,"op":"gather","input":{"dtype":"float32","shape":[2,3],"data":"AAAAAAAAgD8AAABAAABAQAAAgEAAAKBA"},"dim":1,"index":{"dtype":"int64","shape":[1,3],"data":"AAAAAAAAAAAEAAAAAAAAAAIAAAAAAAAA"}}`
	if string(line) != want {
		t.Errorf("gather:\n got %s\nwant %s", line, want)
	}
	line, err = EncodeBench(9, c, 20)
	if err != nil {
		t.Fatal(err)
	}
	const wantBench = `{"id":9,"op":"bench","repeat":20,"call":{"op":"gather","input":{"dtype":"float32","shape":[2,3],"data":"AAAAAAAAgD8AAABAAABAQAAAgEAAAKBA"},"dim":1,"index":{"dtype":"int64","shape":[1,3],"data":"AAAAAAAAAAAEAAAAAAAAAAIAAAAAAAAA"}}}`
	if string(line) != wantBench {
		t.Errorf("bench:\n got %s\nwant %s", line, wantBench)
	}
	r, err = DecodeRequest(line)
	if err != nil || r.Op != OpBench || *r.Repeat != 20 || r.Call == nil {
		t.Fatalf("decode bench: %+v, %v", r, err)
	}
	inner, err := r.Call.ToCall()
	if err != nil || !reflect.DeepEqual(inner, c) {
		t.Fatalf("bench call: %#v, %v", inner, err)
	}
	// include_self false is sent, true is the default and left out.
	line, _ = EncodeCall(1, scatter.ScatterReduce{Self: x, Index: scatter.FromSlice([]int64{0}, 1, 1), Src: x, Reduce: "sum", ExcludeSelf: true})
	if !bytes.Contains(line, []byte(`"reduce":"sum","include_self":false`)) {
		t.Errorf("scatter_reduce: %s", line)
	}
	line, _ = EncodeCall(1, scatter.ScatterReduce{Self: x, Index: scatter.FromSlice([]int64{0}, 1, 1), Src: x, Reduce: "sum"})
	if bytes.Contains(line, []byte(`include_self`)) {
		t.Errorf("scatter_reduce with include_self: %s", line)
	}
	// Scalars keep their kind on the wire.
	line, _ = EncodeCall(2, scatter.Scatter{Self: x, Index: scatter.FromSlice([]int64{0}, 1, 1), Value: scatter.Ptr(scatter.Float(2))})
	if !bytes.Contains(line, []byte(`"value":2.0`)) {
		t.Errorf("value 2.0: %s", line)
	}
	line, _ = EncodeCall(2, scatter.TorchScatterAdd{Src: x, Index: scatter.FromSlice([]int64{0}, 1, 1), FillValue: scatter.Float(math.NaN())})
	if !bytes.Contains(line, []byte(`"fill_value":"nan"`)) || bytes.Contains(line, []byte(`"dim"`)) {
		t.Errorf("fill_value nan: %s", line)
	}
}

func TestDecodeCallDefaults(t *testing.T) {
	src := `{"dtype":"float32","shape":[2],"data":"AACAPwAAAEA="}`
	ix := `{"dtype":"int64","shape":[2],"data":"AAAAAAAAAAABAAAAAAAAAA=="}`
	_, c, err := DecodeCall([]byte(`{"id":4,"op":"torch_scatter.scatter","src":` + src + `,"index":` + ix + `,"future_field":[1,2]}`))
	if err != nil {
		t.Fatal(err)
	}
	ts := c.(scatter.TorchScatter)
	if ts.Dim != nil || ts.DimSize != nil || !ts.Out.IsZero() || ts.Reduce != "" {
		t.Fatalf("defaults: %#v", ts)
	}
	_, c, err = DecodeCall([]byte(`{"id":4,"op":"torch_scatter.scatter_add","src":` + src + `,"index":` + ix + `,"dim":0,"fill_value":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if tsa := c.(scatter.TorchScatterAdd); *tsa.Dim != 0 || tsa.FillValue != scatter.Int(3) {
		t.Fatalf("torch_scatter.scatter_add: %#v", tsa)
	}
	_, c, err = DecodeCall([]byte(`{"id":4,"op":"scatter_reduce","self":` + src + `,"dim":0,"index":` + ix + `,"src":` + src + `,"reduce":"amax","include_self":true}`))
	if err != nil || c.(scatter.ScatterReduce).ExcludeSelf {
		t.Fatalf("include_self true: %#v %v", c, err)
	}
	_, c, err = DecodeCall([]byte(`{"id":4,"op":"scatter","self":` + src + `,"dim":0,"index":` + ix + `,"value":true}`))
	if err != nil || *c.(scatter.Scatter).Value != scatter.Bool(true) {
		t.Fatalf("bool value: %#v %v", c, err)
	}
	_, c, err = DecodeCall([]byte(`{"id":4,"op":"tensor.gather","indices":[null,` + ix + `],"src":` + src + `}`))
	if g := c.(scatter.TensorGather); err != nil || len(g.Indices) != 2 || !g.Indices[0].IsZero() || g.Indices[1].IsZero() {
		t.Fatalf("tensor.gather: %#v %v", c, err)
	}
}

func TestDecodeCallRejects(t *testing.T) {
	src := `{"dtype":"float32","shape":[2],"data":"AACAPwAAAEA="}`
	ix := `{"dtype":"int64","shape":[2],"data":"AAAAAAAAAAABAAAAAAAAAA=="}`
	bad := map[string]string{
		"not json":             `{"id":1,"op":`,
		"not an object":        `[1,2]`,
		"null":                 `null`,
		"no id":                `{"op":"gather","input":` + src + `,"dim":0,"index":` + ix + `}`,
		"null id":              `{"id":null,"op":"gather","input":` + src + `,"dim":0,"index":` + ix + `}`,
		"float id":             `{"id":1.5,"op":"gather","input":` + src + `,"dim":0,"index":` + ix + `}`,
		"no op":                `{"id":1}`,
		"hello":                `{"id":0,"op":"hello","protocol":1}`,
		"bench":                `{"id":0,"op":"bench","repeat":1,"call":{}}`,
		"unknown op":           `{"id":1,"op":"scatter_mean"}`,
		"gather no input":      `{"id":1,"op":"gather","dim":0,"index":` + ix + `}`,
		"gather no dim":        `{"id":1,"op":"gather","input":` + src + `,"index":` + ix + `}`,
		"gather no index":      `{"id":1,"op":"gather","input":` + src + `,"dim":0}`,
		"gather self":          `{"id":1,"op":"gather","self":` + src + `,"dim":0,"index":` + ix + `}`,
		"scatter neither":      `{"id":1,"op":"scatter","self":` + src + `,"dim":0,"index":` + ix + `}`,
		"scatter both":         `{"id":1,"op":"scatter","self":` + src + `,"dim":0,"index":` + ix + `,"src":` + src + `,"value":1}`,
		"scatter bad value":    `{"id":1,"op":"scatter","self":` + src + `,"dim":0,"index":` + ix + `,"value":"one"}`,
		"scatter huge value":   `{"id":1,"op":"scatter","self":` + src + `,"dim":0,"index":` + ix + `,"value":18446744073709551616}`,
		"scatter_add no src":   `{"id":1,"op":"scatter_add","self":` + src + `,"dim":0,"index":` + ix + `}`,
		"reduce missing":       `{"id":1,"op":"scatter_reduce","self":` + src + `,"dim":0,"index":` + ix + `,"src":` + src + `}`,
		"index_reduce source":  `{"id":1,"op":"index_reduce","self":` + src + `,"dim":0,"index":` + ix + `,"src":` + src + `,"reduce":"prod"}`,
		"dim string":           `{"id":1,"op":"gather","input":` + src + `,"dim":"0","index":` + ix + `}`,
		"dim float":            `{"id":1,"op":"gather","input":` + src + `,"dim":0.5,"index":` + ix + `}`,
		"bad tensor":           `{"id":1,"op":"gather","input":{"dtype":"float32","shape":[3],"data":""},"dim":0,"index":` + ix + `}`,
		"tensor not object":    `{"id":1,"op":"gather","input":[1,2],"dim":0,"index":` + ix + `}`,
		"tensor.scatter shape": `{"id":1,"op":"tensor.scatter","indices":[` + ix + `],"src":` + src + `}`,
		"tensor.gather no idx": `{"id":1,"op":"tensor.gather","src":` + src + `}`,
		"bad index in list":    `{"id":1,"op":"tensor.gather","indices":[{"dtype":"int64","shape":[1],"data":"x"}],"src":` + src + `}`,
		"include_self string":  `{"id":1,"op":"scatter_reduce","self":` + src + `,"dim":0,"index":` + ix + `,"src":` + src + `,"reduce":"sum","include_self":"no"}`,
	}
	for name, line := range bad {
		_, _, err := DecodeCall([]byte(line))
		if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
			t.Errorf("%s: err %v, want invalid_argument", name, err)
		}
	}
	id, _, _ := DecodeCall([]byte(`{"id":42,"op":"gather","dim":0}`))
	if id != 42 {
		t.Errorf("id of a rejected call: %d, want 42", id)
	}
	id, _, _ = DecodeCall([]byte(`{"id":43,"op":"gather","dim":"x"}`))
	if id != 43 {
		t.Errorf("id of a malformed call: %d, want 43", id)
	}
	// an id past int64 is no id the client sent: 0, not int64's max
	id, _, _ = DecodeCall([]byte(`{"id":9223372036854775808,"op":"gather","dim":"x"}`))
	if id != 0 {
		t.Errorf("id past int64 of a malformed call: %d, want 0", id)
	}
	// Calls the protocol cannot express.
	x := scatter.FromSlice([]float32{1})
	ix1 := scatter.FromSlice([]int64{0})
	for name, c := range map[string]scatter.Call{
		"nil":             nil,
		"scatter neither": scatter.Scatter{Self: x, Index: ix1},
		"scatter both":    scatter.Scatter{Self: x, Index: ix1, Src: x, Value: scatter.Ptr(scatter.Int(1))},
		"no self":         scatter.ScatterAdd{Index: ix1, Src: x},
		"invalid view":    scatter.Gather{Input: scatter.Tensor{Shape: []int{4}, Data: []float32{1}}, Index: ix1},
		"invalid index":   scatter.TensorGather{Indices: []scatter.Tensor{{Shape: []int{2}, Data: []int64{1}}}, Src: x},
	} {
		if _, err := EncodeCall(1, c); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
			t.Errorf("EncodeCall %s: err %v, want invalid_argument", name, err)
		}
	}
}

func TestAnswers(t *testing.T) {
	// PROTOCOL.md's hello answer, on one line.
	info := scatter.Info{Name: "torch", Version: "1.13.1", Ops: scatter.Ops,
		DTypes: []scatter.DType{scatter.DTFloat32, scatter.DTFloat64, scatter.DTInt64}, Deterministic: true}
	const hello = `{"id":0,"protocol":1,"name":"torch","version":"1.13.1",` +
		`"ops":["scatter","scatter_add","scatter_reduce","index_reduce","gather",` +
		`"torch_scatter.scatter_add","torch_scatter.scatter",` +
		`"tensor.scatter","tensor.gather"],` +
		`"dtypes":["float32","float64","int64"],` +
		`"deterministic":true}`
	if got := string(EncodeHelloAnswer(0, info)); got != hello {
		t.Errorf("hello answer:\n got %s\nwant %s", got, hello)
	}
	a, err := DecodeAnswer([]byte(hello))
	if err != nil || a.Kind != AnswerHello || a.Protocol != 1 || !reflect.DeepEqual(a.Info(), info) {
		t.Errorf("decode hello: %+v, %v", a, err)
	}
	a, err = DecodeAnswer([]byte(`{"id":0,"protocol":1,"ops":["gather","future_op"],"dtypes":["float32","complex64"],"extra":{"x":1}}`))
	if err != nil || a.Deterministic || !reflect.DeepEqual(a.Ops, []scatter.Op{"gather", "future_op"}) ||
		!reflect.DeepEqual(a.DTypes, []scatter.DType{scatter.DTFloat32}) {
		t.Errorf("decode minimal hello: %+v, %v", a, err)
	}
	a, _ = DecodeAnswer([]byte(`{"id":0,"protocol":1,"ops":["gather"]}`))
	if a.Info().DTypes != nil || a.Info().Ops == nil {
		t.Errorf("hello without dtypes: %+v", a.Info())
	}
	if got := EncodeHelloAnswer(3, scatter.Info{Name: "x"}); !bytes.Contains(got, []byte(`"ops":["scatter",`)) || bytes.Contains(got, []byte("dtypes")) || bytes.Contains(got, []byte("deterministic")) {
		t.Errorf("hello for Info with nil ops: %s", got)
	}

	// The error answer of PROTOCOL.md.
	const errLine = `{"id":7,"error":{"kind":"index_out_of_range","message":"index 5 is out of bounds for dimension 0 with size 3"}}`
	got := string(EncodeError(7, scatter.Errorf(scatter.ErrIndexOutOfRange, "index 5 is out of bounds for dimension 0 with size 3")))
	if got != errLine {
		t.Errorf("error answer:\n got %s\nwant %s", got, errLine)
	}
	a, err = DecodeAnswer([]byte(errLine))
	if err != nil || a.Kind != AnswerError || a.ID != 7 || a.Err.Code != scatter.ErrIndexOutOfRange || a.Err.Msg != "index 5 is out of bounds for dimension 0 with size 3" {
		t.Errorf("decode error: %+v, %v", a, err)
	}
	const unsup = `{"id":7,"unsupported":"float16 is not implemented"}`
	if got := string(EncodeError(7, scatter.Errorf(scatter.ErrNotSupported, "float16 is not implemented"))); got != unsup {
		t.Errorf("unsupported: %s", got)
	}
	if got := string(EncodeUnsupported(7, "float16 is not implemented")); got != unsup {
		t.Errorf("unsupported: %s", got)
	}
	a, err = DecodeAnswer([]byte(unsup))
	if err != nil || a.Kind != AnswerUnsupported || a.Err.Code != scatter.ErrNotSupported || !errors.Is(a.Err, scatter.ErrNotSupported) {
		t.Errorf("decode unsupported: %+v, %v", a, err)
	}
	for _, code := range scatter.Codes {
		a, err := DecodeAnswer(EncodeError(1, scatter.Errorf(code, "m <&>")))
		if err != nil || a.Err.Code != code || a.Err.Msg != "m <&>" {
			t.Errorf("%v: %+v, %v", code, a, err)
		}
	}
	if got := string(EncodeError(1, errors.New("plain"))); got != `{"id":1,"error":{"kind":"invalid_argument","message":"plain"}}` {
		t.Errorf("plain error: %s", got)
	}
	// An answer body: its id, of any type or none, is ignored; the rules
	// are DecodeAnswer's.
	for _, id := range []string{``, `"id":"a",`, `"id":null,`, `"id":1.5,`, `"id":{"x":[1]},`, `"id":99,`} {
		a, err := DecodeAnswerBody([]byte(`{` + id + `"error":{"kind":"shape_mismatch","message":"m"}}`))
		if err != nil || a.ID != 0 || a.Kind != AnswerError || a.Err.Code != scatter.ErrShapeMismatch {
			t.Errorf("body with %q: %+v, %v", id, a, err)
		}
	}
	if _, err := DecodeAnswerBody([]byte(`{"id":"a","error":{"kind":"RuntimeError","message":"m"}}`)); err == nil {
		t.Error("a body with an unknown error kind decoded")
	}
	if _, err := DecodeAnswerBody([]byte(`{}`)); err == nil {
		t.Error("an empty body decoded")
	}
	// A kind outside the protocol's is a malformed answer, not an
	// invalid_argument the judge could accept.
	for _, kind := range []string{"out_of_memory", "RuntimeError", "", "Invalid_Argument"} {
		_, err = DecodeAnswer([]byte(`{"id":1,"error":{"kind":"` + kind + `","message":"boom"}}`))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("unknown error kind %q", kind)) || !strings.Contains(err.Error(), "index_out_of_range") {
			t.Errorf("unknown kind %q: %v, want a malformed answer naming the kinds", kind, err)
		}
	}

	// Results.
	out := sampleTensor(scatter.DTFloat32, 2, 3)
	arg := sampleTensor(scatter.DTInt64, 2, 3)
	line, err := EncodeResult(7, scatter.Result{Out: out})
	if err != nil || !strings.HasPrefix(string(line), `{"id":7,"out":{"dtype":"float32","shape":[2,3],"data":"`) {
		t.Errorf("result: %s, %v", line, err)
	}
	a, err = DecodeAnswer(line)
	if err != nil || a.Kind != AnswerResult || !sameTensor(a.Result.Out, out) || !a.Result.Arg.IsZero() || a.Err != nil {
		t.Errorf("decode result: %+v, %v", a, err)
	}
	line, _ = EncodeResult(8, scatter.Result{Out: out, Arg: arg})
	a, err = DecodeAnswer(line)
	if err != nil || !sameTensor(a.Result.Arg, arg) {
		t.Errorf("decode result with arg: %+v, %v", a, err)
	}
	if _, err := EncodeResult(8, scatter.Result{}); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Errorf("result without out: %v", err)
	}

	// Bench.
	line, _ = EncodeBenchAnswer(9, []float64{0.0123, 0.0119})
	if string(line) != `{"id":9,"seconds":[0.0123,0.0119]}` {
		t.Errorf("bench answer: %s", line)
	}
	a, err = DecodeAnswer(line)
	if err != nil || a.Kind != AnswerBench || !reflect.DeepEqual(a.Seconds, []float64{0.0123, 0.0119}) {
		t.Errorf("decode bench: %+v, %v", a, err)
	}
	if _, err := EncodeBenchAnswer(9, []float64{math.NaN()}); err == nil {
		t.Errorf("bench answer with NaN encoded")
	}

	// Malformed answers.
	for _, bad := range []string{
		``, `{`, `[]`, `null`, `{"out":` + mustJSON(t, mustEnc(out)) + `}`, `{"id":"1","out":1}`,
		`{"id":1}`, `{"id":1,"future":1}`,
		`{"id":1,"out":{"dtype":"float32","shape":[1],"data":""}}`,
		`{"id":1,"arg":` + mustJSON(t, mustEnc(arg)) + `}`,
		`{"id":1,"out":` + mustJSON(t, mustEnc(out)) + `,"error":{"kind":"shape_mismatch","message":""}}`,
		`{"id":1,"unsupported":"x","seconds":[1]}`,
		`{"id":0,"protocol":1}`,
		`{"id":0,"ops":["gather"]}`,
		`{"id":1,"seconds":[1,"x"]}`,
	} {
		if _, err := DecodeAnswer([]byte(bad)); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
			t.Errorf("DecodeAnswer(%.60s): err %v, want invalid_argument", bad, err)
		}
	}
	if _, err := (Limits{MaxTensorBytes: 10}).DecodeAnswer(line); err != nil {
		t.Errorf("bench answer under a small tensor limit: %v", err)
	}
	big, _ := EncodeResult(1, scatter.Result{Out: out, Arg: arg})
	if _, err := (Limits{MaxTensorBytes: 30}).DecodeAnswer(big); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Errorf("result over the tensor limit: %v", err)
	}
}

func mustEnc(t scatter.Tensor) Tensor {
	w, err := EncodeTensor(t)
	if err != nil {
		panic(err)
	}
	return w
}

// TestReduceEmptyIsNotAbsent: "reduce": "" is a reduce given as the empty string (which
// PyTorch rejects), not the argument left out; each round-trips.
func TestReduceEmptyIsNotAbsent(t *testing.T) {
	self := `{"dtype":"float32","shape":[2],"data":"AAAAAAAAAAA="}`
	idx := `{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}`
	for _, tc := range []struct {
		reduce string
		want   scatter.Reduce
	}{
		{``, scatter.ReduceNone},
		{`,"reduce":""`, scatter.ReduceEmpty},
		{`,"reduce":"add"`, scatter.ReduceAdd},
	} {
		line := `{"id":1,"op":"scatter","self":` + self + `,"dim":0,"index":` + idx + `,"value":1.0` + tc.reduce + `}`
		_, c, err := DecodeCall([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if got := c.(scatter.Scatter).Reduce; got != tc.want {
			t.Errorf("%s: reduce %q, want %q", tc.reduce, got, tc.want)
		}
		enc, err := EncodeCall(1, c)
		if err != nil {
			t.Fatal(err)
		}
		if has := bytes.Contains(enc, []byte(`"reduce":""`)); has != (tc.want == scatter.ReduceEmpty) {
			t.Errorf("%s: encoded as %s", tc.reduce, enc)
		}
		if tc.want == scatter.ReduceNone && bytes.Contains(enc, []byte(`"reduce"`)) {
			t.Errorf("absent reduce encoded as %s", enc)
		}
	}
}
