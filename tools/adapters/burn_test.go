package adapters_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// burnBinary is the adapter over Burn as `tools/adapters/install burn`
// builds it, or "" when it is not built.
func burnBinary() string {
	return frameworkFile("burn", "target", "release", "burn-scatter")
}

// TestBurnAdapter: the Rust adapter over Burn's NdArray backend, where it
// is built, says hello with its claims, and answers a float32 scatter_add
// with a duplicate index (exact: 1 + 2 = 3), an index out of range (Burn
// panics; the adapter answers PyTorch's error), an amax whose NaN Burn
// drops (by design: [5], where PyTorch gives [nan]), a bool scatter that
// Burn cannot express (unsupported), and a dim out of range (the adapter's
// rule). The gate itself runs it: docs/conformance.
func TestBurnAdapter(t *testing.T) {
	bin := burnBinary()
	if bin == "" {
		t.Skip("the burn adapter is not built (tools/adapters/install burn)")
	}
	// self [1] float32, index [0 0], src [nan 5]: PyTorch's amax gives [nan]
	amax := `"op":"scatter_reduce","reduce":"amax","dim":0,"self":{"dtype":"float32","shape":[1],"data":"AACAPw=="},` +
		`"index":{"dtype":"int64","shape":[2],"data":"AAAAAAAAAAAAAAAAAAAAAA=="},"src":{"dtype":"float32","shape":[2],"data":"AADAfwAAoEA="}`
	// bool self [F F], index [1], src [T]: a set, which Burn's bool scatter lacks
	set := `"op":"scatter","dim":0,"self":{"dtype":"bool","shape":[2],"data":"AAA="},` +
		`"index":{"dtype":"int64","shape":[1],"data":"AQAAAAAAAAA="},"src":{"dtype":"bool","shape":[1],"data":"AQ=="}`
	requests := []string{
		`{"id":0,"op":"hello","protocol":1}`,
		scatterAddRequest("1", 0, indexDuplicate),
		scatterAddRequest("2", 0, indexOutOfRange),
		`{"id":3,` + amax + `}`,
		`{"id":4,` + set + `}`,
		scatterAddRequest("5", 1, indexDuplicate),
	}
	ans := adapterAnswers(t, bin, nil, requests)

	t.Run("hello", func(t *testing.T) {
		h := ans[0]
		if n, _ := h["name"].(string); !strings.Contains(strings.ToLower(n), "burn") {
			t.Errorf("hello names %v, want Burn", h["name"])
		}
		ops, _ := json.Marshal(h["ops"])
		if string(ops) != `["scatter","scatter_add","scatter_reduce","index_reduce","gather"]` {
			t.Errorf("hello ops %s", ops)
		}
		for _, d := range h["dtypes"].([]any) {
			if d == "float16" || d == "bfloat16" {
				t.Errorf("hello claims %v; the NdArray backend has no 16-bit floats", d)
			}
		}
	})
	checkScatterAddBasics(t, ans[1], ans[2], ans[5])
	t.Run("scatter_reduce/amax/src=[nan,5]", func(t *testing.T) {
		if o, _ := ans[3]["out"].(map[string]any); o == nil || o["data"] != "AACgQA==" { // [5]: Burn drops the NaN
			t.Errorf("got %v, want out [5] (Burn's Max drops a NaN; PyTorch gives nan)", ans[3])
		}
	})
	t.Run("scatter/bool", func(t *testing.T) {
		if ans[4]["unsupported"] == nil {
			t.Errorf("got %v, want unsupported (Burn's bool scatter is an or only)", ans[4])
		}
	})
}
