package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// oracleSession feeds request lines to scattercheck oracle and returns its
// answer lines, decoded both as protocol answers and as JSON objects.
func oracleSession(t *testing.T, args []string, lines ...string) ([]protocol.Answer, []map[string]json.RawMessage) {
	t.Helper()
	code, out, errb := runCmd(t, strings.NewReader(strings.Join(lines, "\n")+"\n"), append([]string{"oracle"}, args...)...)
	if code != 0 {
		t.Fatalf("oracle: exit %d: %s", code, errb)
	}
	var answers []protocol.Answer
	var raws []map[string]json.RawMessage
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		raws = append(raws, m)
		a, err := protocol.DecodeAnswer(sc.Bytes())
		if err != nil {
			// judge answers are the oracle's own kind
			a = protocol.Answer{ID: -1}
		}
		answers = append(answers, a)
	}
	if len(answers) != len(lines) {
		t.Fatalf("%d answers to %d requests:\n%s", len(answers), len(lines), out)
	}
	return answers, raws
}

func request(t *testing.T, id int64, c scatter.Call, extra string) string {
	t.Helper()
	line, err := protocol.EncodeCall(id, c)
	if err != nil {
		t.Fatal(err)
	}
	if extra != "" {
		return string(line[:len(line)-1]) + "," + extra + "}"
	}
	return string(line)
}

type elemJSON struct {
	Values     []json.RawMessage `json:"values"`
	Lo, Hi     json.RawMessage
	Any        bool   `json:"any"`
	Note       string `json:"note"`
	Unverified bool   `json:"unverified"`
}

func parseNum(t *testing.T, raw json.RawMessage) float64 {
	t.Helper()
	var s string
	if json.Unmarshal(raw, &s) == nil {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("value %s", raw)
		}
		return f
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		t.Fatalf("value %s", raw)
	}
	return f
}

func TestOracleService(t *testing.T) {
	// a float32 sum of self and nine terms: beyond the groups whose results
	// are enumerated (reference/enumerate.go), conformant allows an interval
	sum := scatter.ScatterAdd{Self: scatter.FromSlice([]float32{0, 5}), Dim: 0,
		Index: scatter.FromSlice([]int64{0, 0, 0, 0, 0, 0, 0, 0, 0}),
		Src:   scatter.FromSlice([]float32{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9})}
	dup := scatter.Scatter{Self: scatter.FromSlice([]float32{0, 0}), Dim: 0,
		Index: scatter.FromSlice([]int64{1, 1}), Src: scatter.FromSlice([]float32{1, 2})}
	bad := scatter.Gather{Input: scatter.FromSlice([]float32{1, 2}), Dim: 0, Index: scatter.FromSlice([]int64{5})}
	tsmax := scatter.TorchScatter{Src: scatter.FromSlice([]float32{1, 3, 3}), Index: scatter.FromSlice([]int64{0, 0, 0}),
		Reduce: scatter.ReduceMax}
	gather := scatter.Gather{Input: scatter.FromSlice([]float32{1, 2}), Dim: 0, Index: scatter.FromSlice([]int64{1})}
	gatherReq := request(t, 0, gather, "")
	gatherReq = `{"op":"gather"` + gatherReq[strings.Index(gatherReq, `"op":"gather"`)+len(`"op":"gather"`):]
	answers, raws := oracleSession(t, nil,
		`{"id":0,"op":"hello","protocol":1}`,
		request(t, 1, sum, ""),
		request(t, 2, sum, `"level":"strict"`),
		request(t, 3, dup, ""),
		request(t, 4, bad, ""),
		request(t, 5, tsmax, ""),
		`{"id":6,"op":"judge","call":`+gatherReq+`,"answer":{"out":{"dtype":"float32","shape":[1],"data":"AAAAQA=="}}}`,
		`{"id":7,"op":"judge","call":`+gatherReq+`,"answer":{"out":{"dtype":"float32","shape":[1],"data":"AACAPw=="}}}`,
		`{"id":8,"op":"judge","call":`+gatherReq+`,"answer":{"error":{"kind":"index_out_of_range","message":"x"}}}`,
		`{"id":9,"op":"bench","repeat":1,"call":`+gatherReq+`}`,
		`{"id":10, not json`,
		request(t, 11, sum, `"profile":"torch-3"`),
		request(t, 12, sum, `"allowed":false`),
		`{"id":13,"op":"judge","call":`+gatherReq+`,"answer":{"out":{"dtype":"float32","shape":[1],"data":"`+strings.Repeat("A", 200000)+`"}}}`,
		`{"id":14,"op":"judge","call":`+gatherReq+`,"answer":{}}`,
		`{"id":15,"op":"judge","call":`+gatherReq+`,"answer":{"id":5, "out":{"dtype":"float32","shape":[1],"data":"AAAAQA=="}}}`,
		`{"id":16,"op":"judge","call":`+gatherReq+`,"answer":[1]}`,
		`{"id":17,"op":"judge","call":`+gatherReq+`,"answer":{"id":"a", "out":{"dtype":"float32","shape":[1],"data":"AAAAQA=="}}}`,
		`{"id":18,"op":"judge","call":`+gatherReq+`,"answer":{"out":{"dtype":"float32","shape":[1],"data":"AAAAQA=="},"id":null }}`,
		request(t, 19, sum, `"allowed":"true"`),
		request(t, 20, sum, `"profile":5`),
		`{"id":21,"op":"judge","call":`+gatherReq[:len(gatherReq)-1]+`,"level":"strict"},"answer":{"out":{"dtype":"float32","shape":[1],"data":"AAAAQA=="}}}`,
		`{"id":22,"op":"judge","call":`+gatherReq[:len(gatherReq)-1]+`,"Profile":"torch-2.6"},"answer":{"out":{"dtype":"float32","shape":[1],"data":"AAAAQA=="}}}`,
	)
	if a := answers[0]; a.Kind != protocol.AnswerHello || a.Name != "scattercheck-oracle" || len(a.Ops) != len(scatter.Ops) || !a.Deterministic {
		t.Errorf("hello: %+v", a)
	}
	if string(raws[0]["profile"]) != `"torch-2"` || !strings.Contains(string(raws[0]["extensions"]), "judge") {
		t.Errorf("hello extensions: %s %s", raws[0]["profile"], raws[0]["extensions"])
	}

	// 1: the reference result and an interval around it
	if answers[1].Kind != protocol.AnswerResult {
		t.Fatalf("answer 1: %+v", answers[1])
	}
	got, _ := scatter.Values[float32](answers[1].Result.Out)
	var allowed struct {
		Out []elemJSON `json:"out"`
	}
	if err := json.Unmarshal(raws[1]["allowed"], &allowed); err != nil || len(allowed.Out) != 2 {
		t.Fatalf("allowed: %s (%v)", raws[1]["allowed"], err)
	}
	if e := allowed.Out[0]; e.Lo == nil || e.Hi == nil || !(parseNum(t, e.Lo) < parseNum(t, e.Hi)) ||
		float64(got[0]) < parseNum(t, e.Lo) || float64(got[0]) > parseNum(t, e.Hi) || !strings.Contains(e.Note, "exact sum") {
		t.Errorf("out[0]: %+v for %v", e, got[0])
	}
	if e := allowed.Out[1]; len(e.Values) != 1 || parseNum(t, e.Values[0]) != 5 || e.Note != "untouched" {
		t.Errorf("out[1] (untouched): %+v", e)
	}
	// 2: strict: exactly the canonical result
	var strict struct {
		Out []elemJSON `json:"out"`
	}
	json.Unmarshal(raws[2]["allowed"], &strict)
	if string(raws[2]["level"]) != `"strict"` || len(strict.Out) != 2 || len(strict.Out[0].Values) != 1 ||
		float32(parseNum(t, strict.Out[0].Values[0])) != got[0] || strict.Out[0].Lo != nil {
		t.Errorf("strict allowed: %s", raws[2]["allowed"])
	}
	// 3: duplicates: both candidates
	var dupA struct {
		Out []elemJSON `json:"out"`
	}
	json.Unmarshal(raws[3]["allowed"], &dupA)
	if len(dupA.Out) != 2 || len(dupA.Out[1].Values) != 2 {
		t.Errorf("duplicates: %s", raws[3]["allowed"])
	}
	// 4: an error with the kinds that conform
	if answers[4].Kind != protocol.AnswerError || answers[4].Err.Code != scatter.ErrIndexOutOfRange ||
		string(raws[4]["allowed_errors"]) != `["index_out_of_range"]` {
		t.Errorf("error answer: %+v %s", answers[4], raws[4]["allowed_errors"])
	}
	// 5: torch_scatter max: arg's allowed set is every tied position
	var ts struct {
		Out, Arg []elemJSON
	}
	json.Unmarshal(raws[5]["allowed"], &ts)
	if answers[5].Result.Arg.IsZero() || len(ts.Arg) != 1 || len(ts.Arg[0].Values) != 2 {
		t.Errorf("torch_scatter max allowed: %s", raws[5]["allowed"])
	}
	// 6-8: judge
	if string(raws[6]["conforms"]) != "true" {
		t.Errorf("judge of the right answer: %v", raws[6])
	}
	if string(raws[7]["conforms"]) != "false" || !strings.Contains(string(raws[7]["report"]), "allowed exactly 2.0") {
		t.Errorf("judge of a wrong answer: %v", raws[7])
	}
	if string(raws[8]["conforms"]) != "false" || !strings.Contains(string(raws[8]["reason"]), "want success") {
		t.Errorf("judge of a wrong error: %v", raws[8])
	}
	// 9-11: unsupported, malformed, bad profile
	if answers[9].Kind != protocol.AnswerUnsupported || answers[9].ID != 9 {
		t.Errorf("bench: %+v", answers[9])
	}
	if answers[10].Kind != protocol.AnswerError || answers[10].ID != 10 {
		t.Errorf("malformed: %+v", answers[10])
	}
	// 19, 20: an extension field of the wrong type is an error, not ignored
	for _, k := range []int{19, 20} {
		if a := answers[k]; a.Kind != protocol.AnswerError || a.Err.Code != scatter.ErrInvalidArgument || !strings.Contains(a.Err.Error(), "must be a JSON") {
			t.Errorf("answer %d (a field of the wrong type): %+v", k, a)
		}
	}
	if answers[11].Kind != protocol.AnswerError || answers[11].Err.Code != scatter.ErrInvalidArgument {
		t.Errorf("bad profile: %+v", answers[11])
	}
	if _, ok := raws[12]["allowed"]; ok || answers[12].Kind != protocol.AnswerResult {
		t.Errorf("allowed:false still has allowed: %v", raws[12])
	}
	// 13-16: judge: an answer longer than any answer to the call is
	// refused before it is decoded; an empty or non-object answer is an
	// error; the answer's own id is ignored
	if answers[13].Kind != protocol.AnswerError || !strings.Contains(answers[13].Err.Msg, "longer than any answer to this call") {
		t.Errorf("judge of an oversized answer: %+v", answers[13])
	}
	if answers[14].Kind != protocol.AnswerError || answers[14].ID != 14 {
		t.Errorf("judge of an empty answer: %+v", answers[14])
	}
	if string(raws[15]["conforms"]) != "true" || string(raws[15]["id"]) != "15" {
		t.Errorf("judge of an answer with an id of its own: %v", raws[15])
	}
	if answers[16].Kind != protocol.AnswerError || !strings.Contains(answers[16].Err.Msg, "not a JSON object") {
		t.Errorf("judge of an array: %+v", answers[16])
	}
	for _, i := range []int{17, 18} {
		if string(raws[i]["conforms"]) != "true" {
			t.Errorf("judge of an answer with an id of its own, not an integer: %v %+v", raws[i], answers[i])
		}
	}
	// 21, 22: a judge's level or profile inside its call would be
	// ignored: refused, naming it
	for i, field := range map[int]string{21: `"level"`, 22: `"profile"`} {
		if a := answers[i]; a.Kind != protocol.AnswerError || a.Err.Code != scatter.ErrInvalidArgument || !strings.Contains(a.Err.Msg, field+" is a field of the judge request") {
			t.Errorf("answer %d (%s inside the call): %+v", i, field, a)
		}
	}
}

// TestOracleUnderGate: the oracle is itself a protocol implementation, and
// the reference: it passes the gate at the strict level.
func TestOracleUnderGate(t *testing.T) {
	gate := buildTool(t, "tools/scattercheck")
	js := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(gate, "-impl", shQuote(gate)+" oracle -profile torch-1.13 -allowed-max 64",
		"-profile", "torch-1.13", "-level", "strict", "-suites", "spec,random", "-checks", "10", "-json", js)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r := readJSONReport(t, js)
	if !r.Conforms || r.Runs[0].Implementation.Name != "scattercheck-oracle" || r.Runs[0].Summary["pass"] == 0 {
		t.Errorf("report: %+v", r.Runs[0].Summary)
	}
}

func TestValueJSON(t *testing.T) {
	for _, c := range []struct {
		dt   scatter.DType
		v    scatter.Scalar
		want string
	}{
		{scatter.DTFloat32, scatter.Float(float64(float32(0.1))), "0.1"},
		{scatter.DTFloat32, scatter.Float(math.Copysign(0, -1)), "-0.0"},
		{scatter.DTFloat64, scatter.Float(2), "2.0"},
		{scatter.DTFloat16, scatter.Float(math.NaN()), `"nan"`},
		{scatter.DTBFloat16, scatter.Float(math.Inf(-1)), `"-inf"`},
		{scatter.DTInt64, scatter.Int(-7), "-7"},
		{scatter.DTBool, scatter.Bool(true), "true"},
	} {
		if got := string(valueJSON(c.dt, c.v)); got != c.want {
			t.Errorf("%v %v: %s, want %s", c.dt, c.v, got, c.want)
		}
	}
}

// TestAllowedSetsSizeFirst: a result past -allowed-max is refused before
// its sets are built. Building them for this 1,000,000-element sum
// allocates 384 MB (conformant) and 264 MB (strict), which the oracle used
// to do and then drop; refused, it allocates next to nothing. A result
// without arg counts out's elements only (it used to count one more).
func TestAllowedSetsSizeFirst(t *testing.T) {
	const n = 1_000_000
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i / 2)
	}
	c := scatter.ScatterAdd{Self: scatter.FromSlice(make([]float32, n)), Dim: 0,
		Index: scatter.FromSlice(idx), Src: scatter.FromSlice(make([]float32, n))}
	exp := reference.Expect(c, scatter.Torch2)
	for _, lvl := range []scatter.Level{scatter.Conformant, scatter.Strict} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := allowedSets(exp, lvl, 64)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "given up to 64") {
			t.Errorf("%v: err %v, want the size refusal", lvl, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%v: refusing the sets allocated %d bytes; they were built first", lvl, alloc)
		}
	}
	// within the bound, the sets come back
	if a, err := allowedSets(exp, scatter.Conformant, n); err != nil || len(a.Out.Elems) != n {
		t.Errorf("within the bound: %d sets, %v", len(a.Out.Elems), err)
	}
}

// TestOracleLayoutNote: an answer to a request whose own views lay its
// index out as torch 2.14's expanded-index path takes one carries
// "layout", saying that the answer is the contiguous copy's (PROFILES.md,
// "Views"); the same call sent contiguous, or under torch-2.6, does not,
// nor does a view that path does not take.
func TestOracleLayoutNote(t *testing.T) {
	// int32 row ids expanded along dim 1: an error on torch 2.14's
	// expanded-index path, a sum on the contiguous copy
	expanded := scatter.Tensor{Shape: []int{2, 16}, Strides: []int{1, 0}, Data: []int32{0, 1}}
	call := scatter.ScatterAdd{Self: scatter.Tensor{Shape: []int{2, 16}, Data: make([]float32, 32)}, Dim: 0, Index: expanded,
		Src: scatter.Tensor{Shape: []int{2, 16}, Data: make([]float32, 32)}}
	flat := call
	flat.Index = expanded.Contiguous()
	transposed := call
	transposed.Self = scatter.Tensor{Shape: []int{2, 16}, Strides: []int{1, 2}, Data: make([]float32, 32)}
	transposed.Index = flat.Index
	views, err := protocol.EncodeOptions{Strides: true}.EncodeCall(1, call)
	if err != nil {
		t.Fatal(err)
	}
	tviews, err := protocol.EncodeOptions{Strides: true}.EncodeCall(4, transposed)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := protocol.EncodeResult(0, scatter.Result{Out: scatter.Tensor{Shape: []int{2, 16}, Data: make([]float32, 32)}})
	if err != nil {
		t.Fatal(err)
	}
	judged := `{"id":5,"op":"judge","call":` + strings.Replace(string(views), `"id":1,`, "", 1) +
		`,"answer":` + strings.Replace(string(answer), `"id":0,`, "", 1) + `}`
	_, raws := oracleSession(t, nil, `{"id":0,"op":"hello","protocol":1}`, string(views), request(t, 2, flat, ""),
		string(views[:len(views)-1])+`,"profile":"torch-2.6"}`, string(tviews), judged)
	for i, want := range []bool{false, true, false, false, false, true} {
		if got := raws[i]["layout"] != nil; got != want {
			t.Errorf("answer %d: layout %s, want it %v", i, raws[i]["layout"], want)
		}
	}
	if !strings.Contains(string(raws[1]["layout"]), "expanded-index path") {
		t.Errorf("layout: %s", raws[1]["layout"])
	}
}
