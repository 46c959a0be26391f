package adapters_test

import (
	"strings"
	"testing"
)

// The requests and checks the Rust adapters' tests (candle_test.go,
// burn_test.go) share: a float32 scatter_add of src [1 2] into [0 0 0]
// with a duplicate index (exact: 1 + 2 = 3), with an index out of range,
// and along a dim out of range.

// scatterAddRequest is the scatter_add request with that id, dim, and index
// (the base64 of two int64s).
func scatterAddRequest(id string, dim int, index string) string {
	add := `"op":"scatter_add","dim":0,"self":{"dtype":"float32","shape":[3],"data":"AAAAAAAAAAAAAAAA"},` +
		`"src":{"dtype":"float32","shape":[2],"data":"AACAPwAAAEA="},"index":{"dtype":"int64","shape":[2],"data":`
	if dim != 0 {
		add = strings.Replace(add, `"dim":0`, `"dim":1`, 1)
	}
	return `{"id":` + id + `,` + add + `"` + index + `"}}`
}

// The indices of the shared requests.
const (
	indexDuplicate  = "AQAAAAAAAAABAAAAAAAAAA==" // [1 1]
	indexOutOfRange = "AQAAAAAAAAADAAAAAAAAAA==" // [1 3]
)

// checkScatterAddBasics checks the answers to scatterAddRequest(dup, 0,
// indexDuplicate), (oob, 0, indexOutOfRange) and (badDim, 1,
// indexDuplicate).
func checkScatterAddBasics(t *testing.T, dup, oob, badDim map[string]any) {
	t.Run("scatter_add/float32/index=[1,1]/src=[1,2]", func(t *testing.T) {
		if o, _ := dup["out"].(map[string]any); o == nil || o["data"] != "AAAAAAAAQEAAAAAA" { // [0 3 0]
			t.Errorf("got %v, want out [0 3 0]", dup)
		}
	})
	t.Run("scatter_add/index=[1,3]/size=3", func(t *testing.T) {
		if e, _ := oob["error"].(map[string]any); e == nil || e["kind"] != "index_out_of_range" {
			t.Errorf("got %v, want error index_out_of_range", oob)
		}
	})
	t.Run("scatter_add/dim=1/self=1-d", func(t *testing.T) {
		if e, _ := badDim["error"].(map[string]any); e == nil || e["kind"] != "dim_out_of_range" {
			t.Errorf("got %v, want error dim_out_of_range", badDim)
		}
	})
}
