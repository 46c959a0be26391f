package protocol

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
)

// The strides extension (doc.go): views written with their strides and
// storage, decoded as views, validated without panicking.

// stridedViews are views of a 24-element base, and whether
// EncodeOptions{Strides: true} keeps their strides.
func stridedViews(base scatter.Tensor) []struct {
	name    string
	view    scatter.Tensor
	strided bool
} {
	v := func(shape, strides []int, off int) scatter.Tensor {
		return scatter.Tensor{Shape: shape, Strides: strides, Offset: off, Data: base.Data}
	}
	return []struct {
		name    string
		view    scatter.Tensor
		strided bool
	}{
		{"expanded rows", v([]int{4, 3}, []int{1, 0}, 0), true},
		{"expanded rows at an offset", v([]int{4, 3}, []int{1, 0}, 5), true},
		{"broadcast everywhere", v([]int{3, 4}, []int{0, 0}, 23), true},
		{"expanded leading dim", v([]int{5, 4}, []int{0, 1}, 2), true},
		{"transposed", v([]int{4, 6}, []int{1, 4}, 0), true},
		{"overlapping windows", v([]int{5, 3}, []int{1, 1}, 0), true},
		{"size-1 dims with odd strides", v([]int{1, 4, 1}, []int{99, 0, 7}, 3), true},
		{"contiguous with strides", v([]int{2, 3}, []int{3, 1}, 4), false},
		{"contiguous, size-1 stride free", v([]int{2, 1, 3}, []int{3, 50, 1}, 0), false},
		{"contiguous", v([]int{6}, nil, 2), false},
		{"every other element", v([]int{6}, []int{2}, 0), false}, // the span (11) is more than the 6 elements
		{"no elements", v([]int{3, 0}, []int{1, 0}, 0), false},
		{"0-d", v([]int{}, []int{}, 7), false},
	}
}

func TestStridedTensorRoundTrip(t *testing.T) {
	for _, dt := range scatter.DTypes {
		base := sampleTensor(dt, 24)
		for _, c := range stridedViews(base) {
			if err := c.view.Validate(); err != nil {
				t.Fatalf("%s: the test's view is invalid: %v", c.name, err)
			}
			w, err := EncodeOptions{Strides: true}.EncodeTensor(c.view)
			if err != nil {
				t.Fatalf("%v %s: %v", dt, c.name, err)
			}
			if (w.Strides != nil) != c.strided {
				t.Errorf("%v %s: strides %v, want strided %v", dt, c.name, w.Strides, c.strided)
			}
			// through JSON, as on the wire
			var w2 Tensor
			if err := json.Unmarshal([]byte(mustJSON(t, w)), &w2); err != nil {
				t.Fatal(err)
			}
			got, err := DecodeTensor(w2)
			if err != nil {
				t.Fatalf("%v %s: decode %s: %v", dt, c.name, mustJSON(t, w), err)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("%v %s: decoded an invalid view: %v", dt, c.name, err)
			}
			if !sameTensor(got, c.view) {
				t.Errorf("%v %s: got %v, want %v", dt, c.name, got, c.view)
			}
			if c.strided && (!reflect.DeepEqual(got.Strides, c.view.Strides) || got.Offset != 0 || scatter.DataLen(got.Data) > got.NumEl()) {
				t.Errorf("%v %s: decoded strides %v at offset %d over %d elements", dt, c.name, got.Strides, got.Offset, scatter.DataLen(got.Data))
			}
			// The plain encoding of the same view is the same tensor.
			plain, err := EncodeTensor(c.view)
			if err != nil || plain.Strides != nil {
				t.Fatalf("%v %s: plain encoding %+v, %v", dt, c.name, plain, err)
			}
			if back, err := DecodeTensor(plain); err != nil || !sameTensor(back, got) {
				t.Errorf("%v %s: plain and strided encodings differ: %v", dt, c.name, err)
			}
		}
	}
}

func TestStridedGolden(t *testing.T) {
	ids := scatter.FromSlice([]int64{7, 0, 2})
	expanded := scatter.Tensor{Shape: []int{3, 2}, Strides: []int{1, 0}, Data: ids.Data}
	w, err := EncodeOptions{Strides: true}.EncodeTensor(expanded)
	if err != nil {
		t.Fatal(err)
	}
	// Python: base64.b64encode(struct.pack('<3q', 7, 0, 2))
	const want = `{"dtype":"int64","shape":[3,2],"strides":[1,0],"data":"BwAAAAAAAAAAAAAAAAAAAAIAAAAAAAAA"}`
	if got := mustJSON(t, w); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	var w2 Tensor
	json.Unmarshal([]byte(want), &w2)
	got, err := DecodeTensor(w2)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := scatter.Values[int64](got); !reflect.DeepEqual(v, []int64{7, 7, 0, 0, 2, 2}) {
		t.Fatalf("decoded %v", v)
	}
	// Without the option the view is materialised, as PROTOCOL.md has it.
	plain, _ := EncodeTensor(expanded)
	if s := mustJSON(t, plain); strings.Contains(s, "strides") {
		t.Fatalf("plain encoding %s", s)
	}
	// A whole call: only the expanded index carries strides.
	call := scatter.ScatterAdd{Self: scatter.FromSlice(make([]float32, 16), 8, 2), Index: expanded,
		Src: scatter.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2)}
	line, err := EncodeOptions{Strides: true}.EncodeBench(3, call, 2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(line), `"strides"`) != 1 || !strings.Contains(string(line), `"index":{"dtype":"int64","shape":[3,2],"strides":[1,0]`) {
		t.Fatalf("bench line %s", line)
	}
	req, err := DecodeRequest(line)
	if err != nil {
		t.Fatal(err)
	}
	c, err := req.Call.ToCall()
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := scatter.Values[int64](c.(scatter.ScatterAdd).Index); !reflect.DeepEqual(v, []int64{7, 7, 0, 0, 2, 2}) {
		t.Fatalf("decoded index %v", v)
	}
}

func TestDecodeStridedRejects(t *testing.T) {
	i64 := func(n int) string { return base64.StdEncoding.EncodeToString(make([]byte, 8*n)) }
	cases := []struct {
		name string
		w    Tensor
	}{
		{"fewer strides than dims", Tensor{DType: "int64", Shape: []int{3, 2}, Strides: []int{1}, Data: i64(3)}},
		{"more strides than dims", Tensor{DType: "int64", Shape: []int{3}, Strides: []int{1, 0}, Data: i64(3)}},
		{"strides for a 0-d", Tensor{DType: "int64", Shape: []int{}, Strides: []int{1}, Data: i64(1)}},
		{"negative stride", Tensor{DType: "int64", Shape: []int{3, 2}, Strides: []int{-1, 0}, Data: i64(3)}},
		{"negative stride, no elements", Tensor{DType: "int64", Shape: []int{0, 2}, Strides: []int{1, -1}, Data: ""}},
		{"storage short", Tensor{DType: "int64", Shape: []int{3, 2}, Strides: []int{1, 0}, Data: i64(2)}},
		{"storage long", Tensor{DType: "int64", Shape: []int{3, 2}, Strides: []int{1, 0}, Data: i64(4)}},
		{"the materialised data", Tensor{DType: "int64", Shape: []int{3, 2}, Strides: []int{1, 0}, Data: i64(6)}},
		{"data for no elements", Tensor{DType: "int64", Shape: []int{3, 0}, Strides: []int{1, 0}, Data: i64(1)}},
		{"span overflows", Tensor{DType: "uint8", Shape: []int{3, 2}, Strides: []int{math.MaxInt / 2, 1}, Data: ""}},
		{"span at the largest int", Tensor{DType: "uint8", Shape: []int{2}, Strides: []int{math.MaxInt}, Data: ""}},
		{"span over the byte limit", Tensor{DType: "float64", Shape: []int{1 << 20, 1 << 20}, Strides: []int{1 << 20, 1}, Data: "AAAA"}},
		{"huge view, tiny storage, bad data", Tensor{DType: "float32", Shape: []int{1 << 30, 1 << 30}, Strides: []int{0, 0}, Data: "AAAA"}},
		{"bad base64", Tensor{DType: "int64", Shape: []int{4}, Strides: []int{0}, Data: "!!!!!!!!!!!!"}},
	}
	for _, c := range cases {
		_, err := DecodeTensor(c.w)
		if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
			t.Errorf("%s: err %v, want invalid_argument", c.name, err)
		}
	}
	// A view of 2^20 elements over one stored element: only the storage
	// is allocated and counts against the line's budget, but the view
	// itself must be within the limit too (a backend may materialise it).
	big := Tensor{DType: "float32", Shape: []int{1 << 10, 1 << 10}, Strides: []int{0, 0}, Data: "AACAPw=="}
	got, err := (Limits{MaxTensorBytes: 4 << 20}).DecodeTensor(big)
	if err != nil || scatter.DataLen(got.Data) != 1 || got.NumEl() != 1<<20 {
		t.Fatalf("broadcast scalar: %v (%v)", got.Shape, err)
	}
	if _, err := (Limits{MaxTensorBytes: 4<<20 - 1}).DecodeTensor(big); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Fatalf("a view of 4 MiB under a smaller limit: %v", err)
	}
	huge := Tensor{DType: "float32", Shape: []int{1 << 30, 1 << 30}, Strides: []int{0, 0}, Data: "AACAPw=="}
	if _, err := DecodeTensor(huge); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Fatalf("a view of 2^60 elements over one: %v", err)
	}
	// The storage counts against the byte budget of the line.
	w := Tensor{DType: "int64", Shape: []int{4, 2}, Strides: []int{1, 0}, Data: i64(4)}
	line := []byte(`{"id":1,"op":"scatter_add","self":` + mustJSON(t, w) + `,"dim":0,"index":` + mustJSON(t, w) + `,"src":` + mustJSON(t, w) + `}`)
	if _, _, err := (Limits{MaxTensorBytes: 95}).DecodeCall(line); scatter.CodeOf(err) != scatter.ErrInvalidArgument {
		t.Fatalf("3 storages of 32 bytes under a 95-byte limit: %v", err)
	}
	if _, _, err := (Limits{MaxTensorBytes: 96}).DecodeCall(line); err != nil {
		t.Fatalf("3 storages of 32 bytes (views of 64) under a 96-byte limit: %v", err)
	}
}

// FuzzStridedTensor decodes a two-dimensional strided tensor of any
// shape, strides and storage length: never a panic; a rejection is
// invalid_argument; an accepted tensor is a valid view within the limit
// whose elements are the storage's at Σ i_k·strides[k].
func FuzzStridedTensor(f *testing.F) {
	f.Add(4, 3, 1, 0, 4)
	f.Add(2, 3, 3, 1, 6)
	f.Add(0, 3, 1, 0, 0)
	f.Add(1, 1, -1, 5, 1)
	f.Add(3, 3, 0, 0, 1)
	f.Add(1<<40, 1<<30, 0, 0, 1)
	f.Add(1<<10, 1<<10, 0, 0, 1)
	f.Add(5, 5, math.MaxInt/3, 1, 2)
	f.Fuzz(func(t *testing.T, rows, cols, s0, s1, storage int) {
		if storage < 0 || storage > 1<<12 {
			return
		}
		raw := make([]byte, 4*storage)
		for i := 0; i < storage; i++ {
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(i*7+1))
		}
		w := Tensor{DType: "int32", Shape: []int{rows, cols}, Strides: []int{s0, s1}, Data: base64.StdEncoding.EncodeToString(raw)}
		got, err := fuzzLimits.DecodeTensor(w)
		if err != nil {
			if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
				t.Fatalf("rejected with %v: %v", scatter.CodeOf(err), err)
			}
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("accepted an invalid view %v %v over %d: %v", got.Shape, got.Strides, storage, err)
		}
		if int64(got.NumEl())*4 > fuzzLimits.maxTensor() {
			t.Fatalf("accepted a view of %d elements over the limit", got.NumEl())
		}
		data := got.Data.([]int32)
		vals, _ := scatter.Values[int32](got)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				if want := data[i*s0+j*s1]; vals[i*cols+j] != want {
					t.Fatalf("element (%d, %d) = %d, want storage[%d] = %d", i, j, vals[i*cols+j], i*s0+j*s1, want)
				}
			}
		}
	})
}

// TestServeStrides: Serve claims the extension and decodes strided
// tensors as views, in operation and bench requests.
func TestServeStrides(t *testing.T) {
	expanded := scatter.Gather{Input: scatter.Tensor{Shape: []int{3}, Strides: []int{0}, Offset: 1, Data: []float64{5, 6, 7}},
		Index: scatter.FromSlice([]int64{2, 0})}
	op, err := EncodeOptions{Strides: true}.EncodeCall(1, expanded)
	if err != nil {
		t.Fatal(err)
	}
	bench, err := EncodeOptions{Strides: true}.EncodeBench(2, expanded, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(op), `"strides":[0]`) || !strings.Contains(string(bench), `"strides":[0]`) {
		t.Fatalf("not strided: %s %s", op, bench)
	}
	bad := `{"id":3,"op":"gather","input":{"dtype":"float64","shape":[3],"strides":[1],"data":"AAAAAAAA8D8="},"dim":0,"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}}`
	in := strings.Join([]string{`{"id":0,"op":"hello","protocol":1}`, string(op), string(bench), bad}, "\n") + "\n"
	var out strings.Builder
	if err := (&Server{Backend: helperBackend{}}).Serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("answers %q", lines)
	}
	hello, err := DecodeAnswer([]byte(lines[0]))
	if err != nil || !hello.Extensions.Strides || !strings.Contains(lines[0], `"strides":true`) {
		t.Fatalf("hello %s (%v): does not claim strides", lines[0], err)
	}
	res, err := DecodeAnswer([]byte(lines[1]))
	if v, _ := scatter.Values[float64](res.Result.Out); err != nil || !reflect.DeepEqual(v, []float64{6, 6}) {
		t.Fatalf("strided gather answered %s (%v)", lines[1], err)
	}
	if b, err := DecodeAnswer([]byte(lines[2])); err != nil || b.Kind != AnswerBench || len(b.Seconds) != 2 {
		t.Fatalf("strided bench answered %s (%v)", lines[2], err)
	}
	if e, err := DecodeAnswer([]byte(lines[3])); err != nil || e.Err == nil || e.Err.Code != scatter.ErrInvalidArgument {
		t.Fatalf("storage of 1 for a span of 3 answered %s (%v)", lines[3], err)
	}
	// A hello without the claim decodes as claiming nothing.
	plain, err := DecodeAnswer(EncodeHelloAnswer(0, helperBackend{}.Info()))
	if err != nil || plain.Extensions != (Extensions{}) || strings.Contains(string(EncodeHelloAnswer(0, helperBackend{}.Info())), "strides") {
		t.Fatalf("plain hello: %+v (%v)", plain, err)
	}
}

// TestClientBenchStrides: the Client sees the claim of a Go server and
// benches a strided call on it.
func TestClientBenchStrides(t *testing.T) {
	c := newHelper(t, "serve", ClientOptions{Timeout: 20 * time.Second})
	if !c.Extensions().Strides {
		t.Fatal("the Go server does not claim strides")
	}
	call := scatter.Gather{Input: scatter.Tensor{Shape: []int{4}, Strides: []int{0}, Data: []float64{5}},
		Index: scatter.FromSlice([]int64{3, 0})}
	secs, err := c.Bench(call, 3)
	if err != nil || len(secs) != 3 {
		t.Fatalf("bench: %v %v", secs, err)
	}
	res, err := c.Run(call)
	if v, _ := scatter.Values[float64](res.Out); err != nil || !reflect.DeepEqual(v, []float64{5, 5}) {
		t.Fatalf("run: %v %v", res.Out, err)
	}
}

// TestClientBenchNegative: a negative time, a zero, or times that add up
// to more than the request took are garbage answers, not measurements.
func TestClientBenchNegative(t *testing.T) {
	for _, mode := range []string{"negative-bench", "zero-bench", "long-bench"} {
		c := newHelper(t, mode, ClientOptions{Timeout: 20 * time.Second})
		if c.Extensions().Strides {
			t.Fatal("a hello without strides claims them")
		}
		_, err := c.Bench(gatherCall(1, 2, 3), 2)
		processError(t, err, KindGarbage)
	}
}
