package properties

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/reference"
	"github.com/scatterconf/scatter/repro"
)

// TestPyTorchOneLiners runs the PyTorch reproductions of drawn calls in
// real PyTorch (Debian's 1.13 at /usr/bin/python3, or $SCATTER_TORCH_PYTHON;
// skipped without it): each must run, fail exactly when the judge says the
// call fails, and give the reference's result bit for bit where the
// reference's canonical fold is PyTorch's (the torch-1.13 profile; the F#
// forms for integer dtypes, whose sums are exact).
func TestPyTorchOneLiners(t *testing.T) {
	py := torchPython(t)
	prof := scatter.Torch113
	info := reference.New(prof).Info()
	n := 60
	if testing.Short() {
		n = 15
	}
	var calls []scatter.Call
	for _, op := range []scatter.Op{scatter.OpScatter, scatter.OpScatterAdd, scatter.OpScatterReduce, scatter.OpIndexReduce,
		scatter.OpGather, scatter.OpTensorScatter, scatter.OpTensorGather} {
		for i := range n {
			c := rapid.Custom(func(rt *rapid.T) drawn {
				o := TierShort.params().cfg
				o.Profile, o.Claims = prof, info
				g := callgen.New(callgen.Rapid(rt), o)
				return drawn{g.Call(op)}
			}).Example(i)
			calls = append(calls, c.c)
		}
	}
	var script strings.Builder
	script.WriteString("import sys, torch\nt = torch.tensor\n")
	for i, c := range calls {
		_, e, _ := repro.Expr(c)
		fmt.Fprintf(&script, "try:\n    r = %s\nexcept Exception as x:\n    print(%d, 'ERR', type(x).__name__, str(x).splitlines()[0][:200])\nelse:\n    r = r.reshape(-1).contiguous()\n    print(%d, 'OK', (r.to(torch.uint8) if r.dtype == torch.bool else r.view(torch.uint8)).tolist())\n", e, i, i)
	}
	cmd := exec.Command(py, "-")
	cmd.Stdin = strings.NewReader(script.String())
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(calls) {
		t.Fatalf("python printed %d lines for %d calls:\n%s", len(lines), len(calls), stderr.String())
	}
	compared := 0
	for i, line := range lines {
		c := calls[i]
		f := strings.SplitN(line, " ", 3)
		exp := reference.Expect(scatter.CloneCall(c), prof)
		fails := exp.Codes() != nil
		switch {
		case f[1] == "ERR" && !fails:
			t.Errorf("PyTorch raises %s where the judge expects success: %s\n  %s", f[2], reference.DescribeCall(c), repro.OneLiner(c))
			continue
		case f[1] == "OK" && fails:
			_, fsharp := c.(scatter.TensorScatter)
			_, fsharp2 := c.(scatter.TensorGather)
			if !fsharp && !fsharp2 { // PyTorch's indexing wraps negative indices where F# raises
				t.Errorf("PyTorch succeeds where the judge expects %v: %s\n  %s", exp.Codes(), reference.DescribeCall(c), repro.OneLiner(c))
			}
			continue
		case fails:
			continue
		}
		res := exp.Result().Out.Contiguous()
		if _, fs := c.(scatter.TensorScatter); fs && res.DType().IsFloat() {
			continue // the F# scatter sums in another order than index_put_
		}
		want := rawBytes(res)
		got := parseBytes(t, f[2])
		if !bytes.Equal(got, want) && !sameNaNs(res, got) {
			t.Errorf("PyTorch's bytes %v differ from the reference's %v for %s\n  %s", got, want, reference.DescribeCall(c), repro.OneLiner(c))
		}
		compared++
	}
	t.Logf("%d calls run in PyTorch, %d results compared bit for bit", len(calls), compared)
}

// torchPython returns a python3 that imports torch, or skips.
func torchPython(t *testing.T) string {
	py := "/usr/bin/python3"
	if p := strings.TrimSpace(getenv("SCATTER_TORCH_PYTHON")); p != "" {
		py = p
	}
	if out, err := exec.Command(py, "-c", "import torch").CombinedOutput(); err != nil {
		t.Skipf("no PyTorch (%s: %v: %s)", py, err, strings.TrimSpace(string(out)))
	}
	return py
}

// rawBytes is a contiguous tensor's data, little-endian.
func rawBytes(t scatter.Tensor) []byte {
	var b bytes.Buffer
	if d, ok := t.Data.([]bool); ok {
		for _, x := range d {
			if x {
				b.WriteByte(1)
			} else {
				b.WriteByte(0)
			}
		}
		return b.Bytes()
	}
	_ = binary.Write(&b, binary.LittleEndian, t.Data)
	return b.Bytes()
}

// parseBytes reads Python's list of byte values.
func parseBytes(t *testing.T, s string) []byte {
	s = strings.Trim(strings.TrimSpace(s), "[]")
	if s == "" {
		return []byte{}
	}
	var out []byte
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("parsing %q: %v", s, err)
		}
		out = append(out, byte(v))
	}
	return out
}

// sameNaNs reports whether got differs from t's bytes only in NaN
// payloads.
func sameNaNs(t scatter.Tensor, got []byte) bool {
	size := t.DType().Size()
	want := rawBytes(t)
	if len(got) != len(want) {
		return false
	}
	for i := 0; i < t.NumEl(); i++ {
		a, b := want[i*size:(i+1)*size], got[i*size:(i+1)*size]
		if bytes.Equal(a, b) {
			continue
		}
		if !isNaNAt(t.Data, i) || !isNaNBytes(t.DType(), b) {
			return false
		}
	}
	return true
}

func isNaNBytes(dt scatter.DType, b []byte) bool {
	switch dt {
	case scatter.DTFloat16:
		return scatter.Float16(binary.LittleEndian.Uint16(b)).IsNaN()
	case scatter.DTBFloat16:
		return scatter.BFloat16(binary.LittleEndian.Uint16(b)).IsNaN()
	case scatter.DTFloat32:
		return math.IsNaN(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
	case scatter.DTFloat64:
		return math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return false
}

func getenv(k string) string { return os.Getenv(k) }
