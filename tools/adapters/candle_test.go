package adapters_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// candleBinary is the adapter over candle-core as `tools/adapters/install
// candle` builds it, or "" when it is not built.
func candleBinary() string {
	return frameworkFile("candle", "target", "release", "candle-scatter")
}

// TestCandleAdapter: the Rust adapter over candle-core, where it is built,
// says hello with candle-core's version and its claims, and answers a
// float32 scatter_add with a duplicate index (exact: 1 + 2 = 3), an index
// out of range (candle's own check), candle's padding id i64::MAX
// (unsupported, by design), a dim out of range (the adapter's rule), and,
// with --narrow-gather, a gather whose index is smaller than the input in
// a middle dimension. The gate itself runs it: docs/conformance.
func TestCandleAdapter(t *testing.T) {
	bin := candleBinary()
	if bin == "" {
		t.Skip("the candle adapter is not built (tools/adapters/install candle)")
	}
	// input arange(4) float32 [2,2,1], index zeros int64 [2,1,1], dim 2: PyTorch gives [0, 2]
	gather := `"op":"gather","dim":2,"input":{"dtype":"float32","shape":[2,2,1],"data":"AAAAAAAAgD8AAABAAABAQA=="},` +
		`"index":{"dtype":"int64","shape":[2,1,1],"data":"AAAAAAAAAAAAAAAAAAAAAA=="}`
	requests := []string{
		`{"id":0,"op":"hello","protocol":1}`,
		scatterAddRequest("1", 0, indexDuplicate),
		scatterAddRequest("2", 0, indexOutOfRange),
		scatterAddRequest("3", 0, "AQAAAAAAAAD/////////fw=="), // [1 i64::MAX]
		scatterAddRequest("4", 1, indexDuplicate),
		`{"id":5,` + gather + `}`,
	}
	ans := adapterAnswers(t, bin, []string{"--narrow-gather"}, requests)

	t.Run("hello/name=candle-core", func(t *testing.T) {
		h := ans[0]
		if h["name"] != "candle-core" {
			t.Errorf("hello names %v, want candle-core", h["name"])
		}
		if v, _ := h["version"].(string); !strings.HasPrefix(v, "0.") {
			t.Errorf("hello version %q, want candle-core's (0.x)", v)
		}
		ops, _ := json.Marshal(h["ops"])
		if string(ops) != `["scatter","scatter_add","scatter_reduce","gather"]` {
			t.Errorf("hello ops %s", ops)
		}
		dts, _ := h["dtypes"].([]any)
		if len(dts) == 0 {
			t.Errorf("hello claims no dtypes: %v", h["dtypes"])
		}
		for _, d := range dts {
			if d == "bool" || d == "int8" {
				t.Errorf("hello claims %v; candle has no bool and no int8", d)
			}
		}
	})
	checkScatterAddBasics(t, ans[1], ans[2], ans[4])
	t.Run("scatter_add/index=[1,i64max]", func(t *testing.T) {
		if ans[3]["unsupported"] == nil {
			t.Errorf("got %v, want unsupported (candle's padding id)", ans[3])
		}
	})
	t.Run("gather/narrow-gather/dim=2/input=[2,2,1]/index=[2,1,1]", func(t *testing.T) {
		o, _ := ans[5]["out"].(map[string]any)
		if o == nil || o["data"] != "AAAAAAAAAEA=" { // [0 2]
			t.Errorf("got %v, want out [0 2]", ans[5])
		}
		if sh, _ := json.Marshal(o["shape"]); o != nil && string(sh) != "[2,1,1]" {
			t.Errorf("out shape %s, want [2,1,1]", sh)
		}
	})
}
