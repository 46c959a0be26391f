package main

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/scatterconf/scatter/protocol"
)

// expandedAdd is a scatter_add request whose self, index and src are
// strides:[0] views of shape [n]: a few hundred bytes that stand for 3n
// elements.
func expandedAdd(id, n int) string {
	f32 := make([]byte, 4)
	binary.LittleEndian.PutUint32(f32, math.Float32bits(1))
	i64 := make([]byte, 8)
	view := func(dt string, b []byte) string {
		return fmt.Sprintf(`{"dtype":%q,"shape":[%d],"strides":[0],"data":%q}`, dt, n, base64.StdEncoding.EncodeToString(b))
	}
	return fmt.Sprintf(`{"id":%d,"op":"scatter_add","self":%s,"dim":0,"index":%s,"src":%s}`,
		id, view("float32", f32), view("int64", i64), view("float32", f32))
}

// allocatedBy returns the bytes f allocated: an upper bound of the most it
// held at once.
func allocatedBy(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestOracleBudget: a call over the budget is declined before anything of
// its size is allocated, naming the figures and the flag that raises the
// budget; one within it is answered.
func TestOracleBudget(t *testing.T) {
	big := expandedAdd(1, 1<<27) // the views of 2^27 elements: 28 GiB by the estimate
	if len(big) > 400 {
		t.Fatalf("the request is %d bytes", len(big))
	}
	var answers []protocol.Answer
	n := allocatedBy(func() { answers, _ = oracleSession(t, nil, big, expandedAdd(2, 1000)) })
	if n > 256<<20 {
		t.Errorf("the oracle allocated %d MiB for a call it declines", n>>20)
	}
	if a := answers[0]; a.Kind != protocol.AnswerUnsupported ||
		!strings.Contains(a.Err.Error(), "-max-request-memory") || !strings.Contains(a.Err.Error(), "GiB") {
		t.Errorf("the call over the budget: %v %v", a.Kind, a.Err)
	}
	if a := answers[1]; a.Kind != protocol.AnswerResult || a.Result.Out.NumEl() != 1000 {
		t.Errorf("the call within the budget: %v %v", a.Kind, a.Err)
	}
	// the budget's flags
	answers, _ = oracleSession(t, []string{"-max-request-memory", "1000000"}, expandedAdd(1, 10000))
	if a := answers[0]; a.Kind != protocol.AnswerUnsupported || !strings.Contains(a.Err.Error(), "976.6 KiB") {
		t.Errorf("under -max-request-memory 1000000: %v %v", a.Kind, a.Err)
	}
	answers, _ = oracleSession(t, []string{"-max-request-time", "1ms"}, expandedAdd(1, 10000))
	if a := answers[0]; a.Kind != protocol.AnswerUnsupported || !strings.Contains(a.Err.Error(), "-max-request-time") {
		t.Errorf("under -max-request-time 1ms: %v %v", a.Kind, a.Err)
	}
}

// FuzzOracleRequest feeds the oracle request lines, the seeds among them
// calls whose views stand for far more than their bytes (strides:[0],
// torch_scatter's dim_size from a huge index value), and asserts that
// what it allocates stays within a generous bound of its budget.
func FuzzOracleRequest(f *testing.F) {
	f.Add(expandedAdd(1, 1<<27))
	f.Add(expandedAdd(1, 1<<20))
	f.Add(expandedAdd(1, 100))
	f.Add(`{"id":1,"op":"torch_scatter.scatter","src":{"dtype":"float32","shape":[2],"strides":[0],"data":"AACAPw=="},` +
		`"index":{"dtype":"int64","shape":[2],"strides":[0],"data":"AAAAAAAAAEA="},"dim":0}`) // index value 2^62
	f.Add(`{"id":1,"op":"gather","input":{"dtype":"float64","shape":[1],"data":"AAAAAAAA8D8="},` +
		`"index":{"dtype":"int64","shape":[65536,65536],"strides":[0,0],"data":"AAAAAAAAAAA="},"dim":0}`)
	f.Add(`{"id":1,"op":"judge","call":{"op":"scatter_add",` +
		`"self":{"dtype":"float32","shape":[134217728],"strides":[0],"data":"AACAPw=="},"dim":0,` +
		`"index":{"dtype":"int64","shape":[134217728],"strides":[0],"data":"AAAAAAAAAAA="},` +
		`"src":{"dtype":"float32","shape":[134217728],"strides":[0],"data":"AACAPw=="}},` +
		`"answer":{"error":{"kind":"invalid_argument","message":"x"}}}`)
	o := &oracle{allowed: true, allowedMax: defaultAllowedMax,
		budget: &requestBudget{maxBytes: 64 << 20, maxTime: defaultMaxRequestSeconds * 1e9}}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 1<<16 {
			return
		}
		n := allocatedBy(func() { o.answer([]byte(line)) })
		// the budget, twice over for what the estimate may miss, and the
		// line's own decoding
		if bound := uint64(2*o.budget.maxBytes) + 64*uint64(len(line)) + 16<<20; n > bound {
			t.Errorf("the oracle allocated %d MiB (bound %d MiB) for %q", n>>20, bound>>20, line)
		}
	})
}

// TestBudgetHugeSizes: sizes near 2^63 (a torch_scatter dim_size, an F#
// shape) are declined with positive figures: the estimate's products do
// not wrap around, to a cost of 0 or below that would pass.
func TestBudgetHugeSizes(t *testing.T) {
	b := &requestBudget{maxBytes: defaultMaxRequestMemory}
	src := `"src":{"dtype":"float32","shape":[1],"data":"AACAPw=="},"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="},"dim":0`
	for _, line := range []string{
		`{"id":1,"op":"torch_scatter.scatter",` + src + `,"dim_size":4611686018427387904}`,
		`{"id":2,"op":"torch_scatter.scatter",` + src + `,"dim_size":9223372036854775807}`,
		`{"id":3,"op":"tensor.scatter","src":{"dtype":"float32","shape":[1],"data":"AACAPw=="},"indices":[{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}],"shape":[4611686018427387904]}`,
	} {
		req, err := protocol.DecodeRequest([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		c, err := req.ToCall()
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		why := b.refuse(c)
		if !strings.Contains(why, "TiB of memory") || strings.Contains(why, "about -") {
			t.Errorf("request %d: %q", req.ID, why)
		}
		timed := &requestBudget{maxTime: defaultMaxRequestSeconds * 1e9}
		if why := timed.refuse(c); !strings.Contains(why, "years") {
			t.Errorf("request %d, time budget alone: %q", req.ID, why)
		}
	}
}

// TestOracleDeclinesPastTheReferencesLimit: with the budget raised, a
// torch_scatter output of more than 2^24 elements (the reference's own
// limit; PyTorch allocates it) is answered unsupported, for the call and
// for a judge request, never with an error PyTorch would not raise.
func TestOracleDeclinesPastTheReferencesLimit(t *testing.T) {
	call := `{"op":"torch_scatter.scatter_add","src":{"dtype":"float32","shape":[1],"data":"AACAPw=="},"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="},"dim":0,"dim_size":16777217}`
	answers, _ := oracleSession(t, []string{"-max-request-memory", "8589934592"},
		`{"id":1,`+call[1:],
		`{"id":2,"op":"judge","call":`+call+`,"answer":{"error":{"kind":"invalid_argument","message":"x"}}}`)
	for _, a := range answers {
		if a.Kind != protocol.AnswerUnsupported || !strings.Contains(a.Err.Error(), "declined: the reference does not allocate") {
			t.Errorf("answer %d: %v %v", a.ID, a.Kind, a.Err)
		}
	}
}

// TestOracleLineOverTheBudget: a request line longer than any call within
// the memory budget needs is declined as it is read, with its id, before
// it is held whole or decoded; the next request is answered.
func TestOracleLineOverTheBudget(t *testing.T) {
	const n = 400_000
	src := make([]byte, 4*n)
	line := fmt.Sprintf(`{"id":9,"op":"scatter_add","self":{"dtype":"float32","shape":[1],"data":"AAAAAA=="},"dim":0,`+
		`"index":{"dtype":"int64","shape":[%d],"data":%q},"src":{"dtype":"float32","shape":[%d],"data":%q}}`,
		n, base64.StdEncoding.EncodeToString(make([]byte, 8*n)), n, base64.StdEncoding.EncodeToString(src))
	budget := 100_000
	limit := budget + lineSlack
	args := []string{"-max-request-memory", fmt.Sprint(budget)}
	got := allocatedBy(func() { oracleSession(t, args, line) })
	// the session's copy of its input, and the line up to the limit, twice
	if bound := uint64(len(line) + 2*limit + 1<<20); got > bound {
		t.Errorf("the oracle allocated %d KiB for a line of %d KiB over its limit of %d KiB (bound %d KiB)", got>>10, len(line)>>10, limit>>10, bound>>10)
	}
	answers, _ := oracleSession(t, args, line, expandedAdd(10, 100))
	if a := answers[0]; a.ID != 9 || a.Kind != protocol.AnswerUnsupported || !strings.Contains(a.Err.Error(), "-max-request-memory") {
		t.Errorf("the line over the budget: id %d, %v %v", a.ID, a.Kind, a.Err)
	}
	if a := answers[1]; a.ID != 10 || a.Kind != protocol.AnswerResult {
		t.Errorf("the next request: id %d, %v %v", a.ID, a.Kind, a.Err)
	}
	// without a memory budget the protocol's limit bounds the line
	if got := (&requestBudget{}).maxLine(); got != protocol.DefaultMaxLineBytes {
		t.Errorf("no memory budget: line limit %d, want the protocol's %d", got, protocol.DefaultMaxLineBytes)
	}
}

// TestOracleLineCountsInTheBudget: reading and decoding a request line
// counts in the memory budget. A line of 0.6 times the budget (a call
// within its 2·I term of inputs) is declined as it is read; a line of a
// quarter of it is decoded, its call then declined by its estimate; the
// oracle allocates no more than the budget for either, past the test's own
// copy of the line.
func TestOracleLineCountsInTheBudget(t *testing.T) {
	const budget = 30_000_000
	args := []string{"-max-request-memory", fmt.Sprint(budget)}
	for _, c := range []struct {
		n    int // contributions: the line is about 16n bytes
		want string
	}{
		{1_100_000, "reading and decoding"},
		{400_000, "contributions"},
	} {
		line := fmt.Sprintf(`{"id":3,"op":"scatter_add","self":{"dtype":"float32","shape":[1],"data":"AAAAAA=="},"dim":0,`+
			`"index":{"dtype":"int64","shape":[%d],"data":%q},"src":{"dtype":"float32","shape":[%d],"data":%q}}`,
			c.n, base64.StdEncoding.EncodeToString(make([]byte, 8*c.n)), c.n, base64.StdEncoding.EncodeToString(make([]byte, 4*c.n)))
		var answers []protocol.Answer
		got := allocatedBy(func() { answers, _ = oracleSession(t, args, line) })
		if a := answers[0]; a.Kind != protocol.AnswerUnsupported || !strings.Contains(a.Err.Error(), c.want) {
			t.Errorf("a line of %d bytes: %v %v, want declined saying %q", len(line), a.Kind, a.Err, c.want)
		}
		t.Logf("a line of %d bytes: %d KiB allocated", len(line), got>>10)
		if bound := uint64(len(line) + budget); got > bound {
			t.Errorf("a line of %d bytes: the oracle allocated %d KiB, over the budget of %d KiB and the line", len(line), got>>10, budget>>10)
		}
	}
}
