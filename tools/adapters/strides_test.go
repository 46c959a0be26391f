package adapters_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/workload"
)

// The strides extension (protocol/doc.go) in the Python adapters: both
// claim it, decode a strided tensor to the same call as its contiguous
// form, reject bad strides, and the PyTorch adapter benches the expanded
// index of W2 as a view.

// stridedCalls are calls with views: each is sent strided and contiguous.
func stridedCalls() []scatter.Call {
	ids := []int64{2, 0, 1, 2}
	expanded := scatter.Tensor{Shape: []int{4, 3}, Strides: []int{1, 0}, Data: ids}
	base := make([]float32, 12)
	for i := range base {
		base[i] = float32(i) - 5.5
	}
	transposed := scatter.Tensor{Shape: []int{4, 3}, Strides: []int{1, 4}, Data: base}
	return []scatter.Call{
		scatter.ScatterAdd{Self: scatter.FromSlice(make([]float32, 9), 3, 3), Index: expanded, Src: transposed},
		scatter.ScatterReduce{Self: scatter.FromSlice(make([]float32, 9), 3, 3), Index: expanded,
			Src: scatter.FromSlice(base, 4, 3), Reduce: scatter.ReduceAmax, ExcludeSelf: true},
		scatter.Gather{Input: transposed, Dim: 0, Index: scatter.Tensor{Shape: []int{2, 3}, Strides: []int{0, 0}, Data: []int64{3}}},
		scatter.IndexReduce{Self: scatter.Tensor{Shape: []int{3, 3}, Strides: []int{0, 1}, Data: []float32{1, -2, 3}},
			Index: scatter.FromSlice(ids), Source: transposed, Reduce: scatter.ReduceAmin},
	}
}

// exchange runs an adapter on the request lines and returns its answers.
func exchange(t *testing.T, py, script string, lines []string) []protocol.Answer {
	t.Helper()
	cmd := exec.Command(py, script)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(got) != len(lines) {
		t.Fatalf("%s: %d answers to %d requests:\n%s\nstderr:\n%s", script, len(got), len(lines), out, stderr.String())
	}
	answers := make([]protocol.Answer, len(got))
	for i, l := range got {
		a, err := protocol.DecodeAnswer([]byte(l))
		if err != nil {
			t.Fatalf("%s: answer %d: %v: %s", script, i, err, l)
		}
		answers[i] = a
	}
	return answers
}

func testAdapterStrides(t *testing.T, py, script string) {
	lines := []string{string(protocol.EncodeHello(0))}
	strided := protocol.EncodeOptions{Strides: true}
	calls := stridedCalls()
	for i, c := range calls {
		s, err := strided.EncodeCall(int64(2*i+1), c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(s), `"strides"`) {
			t.Fatalf("call %d is not sent strided: %s", i, s)
		}
		p, err := protocol.EncodeCall(int64(2*i+2), c)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(s), string(p))
	}
	bad := []string{
		`{"id":100,"op":"gather","input":{"dtype":"float32","shape":[3],"strides":[1],"data":"AACAPw=="},"dim":0,"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}}`,
		`{"id":101,"op":"gather","input":{"dtype":"float32","shape":[3],"strides":[-1],"data":"AACAPw=="},"dim":0,"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}}`,
		`{"id":102,"op":"gather","input":{"dtype":"float32","shape":[3],"strides":[0,0],"data":"AACAPw=="},"dim":0,"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}}`,
		`{"id":103,"op":"gather","input":{"dtype":"float32","shape":[3],"strides":"x","data":"AACAPw=="},"dim":0,"index":{"dtype":"int64","shape":[1],"data":"AAAAAAAAAAA="}}`,
	}
	lines = append(lines, bad...)
	answers := exchange(t, py, script, lines)
	if answers[0].Kind != protocol.AnswerHello || !answers[0].Extensions.Strides {
		t.Fatalf("the hello does not claim strides: %+v", answers[0])
	}
	for i, c := range calls {
		s, p := answers[2*i+1], answers[2*i+2]
		if s.Kind != protocol.AnswerResult || p.Kind != protocol.AnswerResult {
			t.Fatalf("%s: strided %v %v, contiguous %v %v", c.Op(), s.Kind, s.Err, p.Kind, p.Err)
		}
		ws, _ := protocol.EncodeTensor(s.Result.Out)
		wp, _ := protocol.EncodeTensor(p.Result.Out)
		if fmt.Sprint(ws) != fmt.Sprint(wp) {
			t.Errorf("%s: strided gave %v, contiguous %v", c.Op(), s.Result.Out, p.Result.Out)
		}
	}
	for i := range bad {
		a := answers[1+2*len(calls)+i]
		if a.Kind != protocol.AnswerError || a.Err.Code != scatter.ErrInvalidArgument {
			t.Errorf("bad strides %d answered %v %v, want invalid_argument", i, a.Kind, a.Err)
		}
	}
}

func TestTorchAdapterStrides(t *testing.T) {
	testAdapterStrides(t, torchPython(t), "torch_adapter.py")
	// The bench of W2, scaled down: its index goes as an expanded view.
	c := startAdapter(t)
	if !c.Extensions().Strides {
		t.Fatal("the Client does not see the claim")
	}
	w2 := workload.MustGet(2, 1000)
	secs, err := c.Bench(w2.Call, 3)
	if err != nil || len(secs) != 3 {
		t.Fatalf("bench W2/1000: %v %v", secs, err)
	}
}

func TestNumpyAdapterStrides(t *testing.T) {
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import numpy").CombinedOutput(); err != nil {
		t.Skipf("skipping: %s cannot import numpy: %v %s", py, err, out)
	}
	testAdapterStrides(t, py, "numpy_adapter.py")
}
