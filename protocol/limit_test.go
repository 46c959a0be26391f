package protocol

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
)

// allocated runs f and returns the bytes it allocated (all goroutines'
// allocations over the time: a generous upper bound of what f held).
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// The bounds are generous: a bounded read allocates well under a
// megabyte here; an unbounded one reads gigabytes (the line limit is
// 1.4 GB) in the seconds given.
const boundedReadBytes = 64 << 20

// TestHelloReadIsBounded: an implementation that answers the hello with
// bytes that never end a line is garbage at once, and the Client holds
// no more than the hello may take.
func TestHelloReadIsBounded(t *testing.T) {
	var err error
	t0 := time.Now()
	n := allocated(func() {
		_, err = NewClient("exec cat /dev/zero", ClientOptions{StartTimeout: 20 * time.Second})
	})
	if !isKind(err, KindStart) || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("NewClient: %v, want a start failure for a too long hello", err)
	}
	if n > boundedReadBytes {
		t.Errorf("reading the hello allocated %d MB", n>>20)
	}
	if d := time.Since(t0); d > 15*time.Second {
		t.Errorf("the start failed after %v", d)
	}
}

// TestAnswerReadIsBounded: an answer far longer than the call's result
// can be is garbage, read no further, and the process is restarted for
// the next request.
func TestAnswerReadIsBounded(t *testing.T) {
	// answers the hello, then every request with zeros and no newline
	cmd := `read l; echo '{"id":0,"protocol":1,"ops":["gather"]}'; read l; exec cat /dev/zero`
	c, err := NewClient(cmd, ClientOptions{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	call := scatter.Gather{Input: scatter.FromSlice([]float64{1, 2}, 2), Index: scatter.FromSlice([]int64{1}, 1)}
	t0 := time.Now()
	n := allocated(func() { _, err = c.Run(call) })
	if !isKind(err, KindGarbage) || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("Run: %v, want garbage for a too long answer", err)
	}
	if n > boundedReadBytes {
		t.Errorf("reading the answer allocated %d MB", n>>20)
	}
	if d := time.Since(t0); d > 15*time.Second {
		t.Errorf("the request failed after %v", d)
	}
	if _, err := c.Run(call); !isKind(err, KindGarbage) {
		t.Errorf("the restarted process: %v", err)
	}
	if c.Restarts() != 1 {
		t.Errorf("%d restarts, want 1", c.Restarts())
	}
}

// TestAnswerLimits: the limit follows the call's result.
func TestAnswerLimits(t *testing.T) {
	small := scatter.Gather{Input: scatter.FromSlice([]float64{1, 2}, 2), Index: scatter.FromSlice([]int64{1}, 1)}
	big := scatter.Gather{Input: scatter.FromSlice([]float64{1, 2}, 2), Index: scatter.FromSlice(make([]int64, 1<<20), 1<<20)}
	var l Limits
	if got := l.AnswerLimit(small); got > answerSlack+64 {
		t.Errorf("one element: limit %d", got)
	}
	// 2^20 float64 (or arg) elements as base64, twice, and the slack
	if got, want := l.AnswerLimit(big), answerSlack+2*(8<<20)/3*4; got < want {
		t.Errorf("2^20 elements: limit %d, want at least %d", got, want)
	}
	ds := 5
	ts := scatter.TorchScatter{Src: scatter.FromSlice(make([]float32, 6), 2, 3), Index: scatter.FromSlice([]int64{0, 9, 1}, 3), DimSize: &ds}
	if got := ResultElements(ts); got != 10 {
		t.Errorf("torch_scatter with dim_size 5: %d elements, want 10", got)
	}
	ts.DimSize = nil
	if got := ResultElements(ts); got != 20 {
		t.Errorf("torch_scatter up to index 9: %d elements, want 20", got)
	}
	if got := (Limits{MaxLineBytes: 1000}).AnswerLimit(big); got != 1000 {
		t.Errorf("within MaxLineBytes 1000: %d", got)
	}
}

func isKind(err error, kind string) bool {
	var pe *ProcessError
	return errors.As(err, &pe) && pe.Kind == kind
}
