package protocol

import (
	"bytes"
	"testing"

	"github.com/scatterconf/scatter"
)

// EncodeRequest splices the tensors' data into a line marshalled without
// it: the line must be byte for byte what encoding/json writes.
func TestEncodeSplicedMatchesJSON(t *testing.T) {
	var reqs []Request
	for i, c := range sampleCalls() {
		for _, o := range []EncodeOptions{{}, {Strides: true}} {
			r, err := o.NewRequest(int64(i), c)
			if err != nil {
				t.Fatal(err)
			}
			inner := r
			inner.ID = 0
			reqs = append(reqs, r, Request{ID: 99, Op: OpBench, Repeat: scatter.Ptr(3), Call: &inner})
		}
	}
	ten := func(data string) *Tensor { return &Tensor{DType: "uint8", Shape: []int{1}, Data: data} }
	odd := []Request{
		// data that is not base64 goes through JSON's escaping
		{ID: 1, Op: "gather", Input: ten("AA\nAA=="), Index: ten(`"data":""`), Dim: scatter.Ptr(0)},
		{ID: 2, Op: "scatter_add", Self: ten("<&>\u2028"), Src: ten(""), Index: ten("AQ==")},
		// an op and a reduce that look like the data key
		{ID: 3, Op: `"data":"`, Reduce: scatter.Ptr(`"data":""`), Self: ten("AQ==")},
		// F# indices with a null
		{ID: 4, Op: "tensor.gather", Indices: []*Tensor{nil, ten("Ag=="), ten("")}, Src: ten("Aw==")},
		// a bench of a bench is left to encoding/json
		{ID: 5, Op: OpBench, Repeat: scatter.Ptr(1), Call: &Request{Op: OpBench, Call: &Request{Op: "gather", Input: ten("AQ==")}}},
		{ID: 6, Op: OpHello, Protocol: scatter.Ptr(1)},
	}
	reqs = append(reqs, odd...)
	for _, r := range reqs {
		want, err := encodeRequest(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeRequest(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("request %d (%s):\ngot  %s (%v)\nwant %s", r.ID, r.Op, got, err, want)
		}
		nested := r.Call != nil && r.Call.Call != nil
		if _, ok := encodeSpliced(r); ok == nested {
			t.Errorf("request %d (%s): spliced %v", r.ID, r.Op, ok)
		}
	}
	// The request is not changed by the encoding.
	r := odd[1]
	EncodeRequest(r)
	if r.Self.Data != "<&>\u2028" || r.Src.Data != "" {
		t.Errorf("EncodeRequest changed its argument: %+v", r)
	}
}
