package protocol

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/scatterconf/scatter"
)

// fuzzLimits keep the fuzzer's allocations small.
var fuzzLimits = Limits{MaxLineBytes: 1 << 20, MaxTensorBytes: 1 << 20}

// allocBound is what decoding one line may allocate: a multiple of the
// line (JSON, slices of tensors and ints) and a constant.
func allocBound(line []byte) uint64 { return 64*uint64(len(line)) + 4<<20 }

func fuzzSeeds(f *testing.F) {
	for i, c := range sampleCalls() {
		line, err := EncodeCall(int64(i), c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(line)
	}
	for _, s := range []string{
		`{"id":0,"op":"hello","protocol":1}`,
		`{"id":9,"op":"bench","repeat":20,"call":{"op":"gather"}}`,
		`{"id":1,"op":"gather","input":{"dtype":"float32","shape":[1099511627776,1099511627776],"data":""},"dim":0,"index":{"dtype":"int64","shape":[0],"data":""}}`,
		`{"id":1,"op":"gather","input":{"dtype":"uint8","shape":[4611686018427387904],"data":"AAAA"},"dim":0,"index":{"dtype":"int64","shape":[0],"data":""}}`,
		`{"id":1,"op":"tensor.gather","indices":[null,null,null],"src":{"dtype":"bool","shape":[1],"data":"AQ=="}}`,
		`{"id":1,"op":"scatter","self":{"dtype":"bool","shape":[],"data":"AQ=="},"dim":0,"index":{"dtype":"int64","shape":[],"data":"AAAAAAAAAAA="},"value":"-inf"}`,
		`{"id":-1,"op":"scatter","value":1e999}`,
		`{"id":1,"op":"torch_scatter.scatter","src":{"dtype":"float16","shape":[-1],"data":""}}`,
		"\xff\xfe{\"id\":1}",
		`{"id":1,"op":"gather","input":{"dtype":"int8","shape":[2],"data":"AA\nAA=="},"dim":0,"index":{"dtype":"int64","shape":[0],"data":""}}`,
		// the strides extension
		`{"id":1,"op":"gather","input":{"dtype":"int8","shape":[2,3],"strides":[1,0],"data":"AQI="},"dim":1,"index":{"dtype":"int64","shape":[2,1],"strides":[0,0],"data":"AAAAAAAAAAA="}}`,
		`{"id":1,"op":"gather","input":{"dtype":"int8","shape":[1099511627776,1099511627776],"strides":[0,0],"data":"AQ=="},"dim":0,"index":{"dtype":"int64","shape":[1],"strides":[-1],"data":""}}`,
		`{"id":1,"op":"gather","input":{"dtype":"uint8","shape":[3,3],"strides":[4611686018427387904,4611686018427387904],"data":""},"dim":0,"index":{"dtype":"int64","shape":[0],"strides":[1,2],"data":""}}`,
	} {
		f.Add([]byte(s))
	}
}

// FuzzDecodeCall checks that no line makes DecodeCall panic or allocate
// beyond a bound, that every rejection is invalid_argument, and that every
// accepted call re-encodes to a line that decodes to the same call.
func FuzzDecodeCall(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		id, c, err := fuzzLimits.DecodeCall(line)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > allocBound(line) {
			t.Fatalf("decoding %d bytes allocated %d bytes", len(line), alloc)
		}
		if err != nil {
			if code := scatter.CodeOf(err); code != scatter.ErrInvalidArgument {
				t.Fatalf("rejected with %v, want invalid_argument: %v", code, err)
			}
			return
		}
		line2, err := EncodeCall(id, c)
		if err != nil {
			t.Fatalf("decoded call %#v does not encode: %v", c, err)
		}
		id2, c2, err := Limits{}.DecodeCall(line2)
		if err != nil || id2 != id || c2.Op() != c.Op() {
			t.Fatalf("re-encoded line %s: id %d, %v", line2, id2, err)
		}
		line3, err := EncodeCall(id2, c2)
		if err != nil || !bytes.Equal(line3, line2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", line2, line3)
		}
	})
}

// FuzzDecodeAnswer checks DecodeAnswer the same way: no panic, bounded
// allocation, and rejections are invalid_argument.
func FuzzDecodeAnswer(f *testing.F) {
	out := sampleTensor(scatter.DTFloat32, 2, 3)
	res, _ := EncodeResult(7, scatter.Result{Out: out, Arg: sampleTensor(scatter.DTInt64, 2, 3)})
	bench, _ := EncodeBenchAnswer(9, []float64{1e-3, 2})
	for _, s := range [][]byte{
		res, bench,
		EncodeHelloAnswer(0, scatter.Info{Name: "x", DTypes: []scatter.DType{scatter.DTBool}}),
		EncodeError(7, scatter.Errorf(scatter.ErrShapeMismatch, "x")),
		EncodeUnsupported(7, "no"),
		[]byte(`{"id":1,"out":{"dtype":"float64","shape":[1152921504606846976],"data":"AAAA"}}`),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		a, err := fuzzLimits.DecodeAnswer(line)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > allocBound(line) {
			t.Fatalf("decoding %d bytes allocated %d bytes", len(line), alloc)
		}
		if err != nil {
			if code := scatter.CodeOf(err); code != scatter.ErrInvalidArgument {
				t.Fatalf("rejected with %v, want invalid_argument: %v", code, err)
			}
			return
		}
		if a.Kind == AnswerInvalid {
			t.Fatalf("accepted an answer of no kind: %+v", a)
		}
		if (a.Kind == AnswerError || a.Kind == AnswerUnsupported) != (a.Err != nil) {
			t.Fatalf("kind %v with Err %v", a.Kind, a.Err)
		}
	})
}
