// Command misbehave is a deliberately broken implementation of the
// protocol, for testing that the gate survives the implementation under
// test. It answers the hello and most requests correctly (with the
// reference backend), and misbehaves on every Nth operation request:
//
//	misbehave -mode hang              never answers (the gate's -timeout kills it)
//	misbehave -mode crash             exits with status 3 (the gate restarts it)
//	misbehave -mode garbage           prints a line that is not JSON
//	misbehave -mode slow -delay 2s    answers correctly, after the delay
//	misbehave -mode wrong-shape       answers an out with an extra dimension
//	misbehave -mode wrong-dtype       answers an out of another dtype
//	misbehave -mode truncated-base64  answers an out whose data is cut short
//	misbehave -mode huge-size         answers an out claiming 2^80 elements
//	misbehave -mode wrong-id          answers with another request's id
//	misbehave -mode no-hello          exits before answering the hello
//	misbehave -mode own-error-kind    rejects every call it rejects with a kind of
//	                                  its own ("RuntimeError"), not one of the protocol's
//
// or answers with a known bug, a class of the mutant zoo of package
// properties (bugs.go), for the gate's "looks like" report:
//
//	misbehave -mode nan-dropped             amax/amin drop NaNs
//	misbehave -mode negative-index-wrapped  negative indices count from the end
//	misbehave -mode bool-sum-as-and         bool sums are logical ands
//	misbehave -mode half-truncated          16-bit sums, means and products truncate
//	misbehave -mode half-per-step           16-bit sums round every step to the dtype
//	misbehave -mode half-round-half-away    16-bit sums stored rounding ties away from zero
//	misbehave -mode half-round-to-odd       16-bit sums stored rounding to odd
//	misbehave -mode mean-of-accumulator     16-bit means divide the float32 accumulator
//	misbehave -mode subnormals-flushed      scatter_add and scatter_reduce flush subnormals to zero
//	misbehave -mode index-clamped           scatter, scatter_add and scatter_reduce clamp an out-of-range index
//	misbehave -mode first-writer-wins       plain scatter keeps the first of duplicate writers along dim
//
// -every N (default 1) picks which requests misbehave: the Nth, 2Nth, ...
// operation request of each process (a restarted process counts afresh).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// faultModes break the protocol; the bug modes (bugs.go) answer it with a
// known bug.
var faultModes = []string{"hang", "crash", "garbage", "slow", "wrong-shape", "wrong-dtype", "truncated-base64",
	"huge-size", "wrong-id", "no-hello", "own-error-kind"}

// modes are every -mode: the fault modes, then the bug modes by name.
var modes = append(slices.Clone(faultModes), slices.Sorted(maps.Keys(bugModes))...)

func main() {
	mode := flag.String("mode", "", fmt.Sprintf("how to misbehave: one of %q", modes))
	every := flag.Int("every", 1, "misbehave on every Nth operation request")
	delay := flag.Duration("delay", 2*time.Second, "how long slow waits")
	flag.Parse()
	if !slices.Contains(modes, *mode) || *every < 1 {
		fmt.Fprintf(os.Stderr, "misbehave: -mode must be one of %q and -every positive\n", modes)
		os.Exit(2)
	}
	if *mode == "no-hello" {
		fmt.Fprintln(os.Stderr, "misbehave: exiting before the hello")
		os.Exit(3)
	}
	backend := reference.New(scatter.Torch2)
	bug, isBug := bugModes[*mode]
	br := bufio.NewReaderSize(os.Stdin, 1<<20)
	w := bufio.NewWriter(os.Stdout)
	say := func(line []byte) {
		w.Write(line)
		w.WriteByte('\n')
		w.Flush()
	}
	n := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return
		}
		req, err := protocol.DecodeRequest(line)
		if err != nil {
			say(protocol.EncodeError(req.ID, err))
			continue
		}
		if req.Op == protocol.OpHello {
			say(protocol.EncodeHelloAnswer(req.ID, scatter.Info{Name: "misbehave-" + *mode, Version: "1"}))
			continue
		}
		c, err := req.ToCall()
		if err != nil {
			say(protocol.EncodeError(req.ID, err))
			continue
		}
		n++
		bad := n%*every == 0
		if bad {
			switch *mode {
			case "hang":
				fmt.Fprintf(os.Stderr, "misbehave: hanging on request %d\n", req.ID)
				time.Sleep(math.MaxInt64) // (select{} would be caught as a deadlock)
			case "crash":
				fmt.Fprintf(os.Stderr, "misbehave: crashing on request %d\n", req.ID)
				os.Exit(3)
			case "garbage":
				say([]byte("this is not JSON {"))
				continue
			case "slow":
				time.Sleep(*delay)
			}
		}
		run := backend.Run
		if isBug && bad {
			run = func(c scatter.Call) (scatter.Result, error) { return bug(backend, c) }
		}
		res, err := run(c)
		if err != nil && *mode == "own-error-kind" {
			b, _ := json.Marshal(map[string]any{"id": req.ID, "error": map[string]string{"kind": "RuntimeError", "message": err.Error()}})
			say(b)
			continue
		}
		if err != nil {
			say(protocol.EncodeError(req.ID, err))
			continue
		}
		if !bad || *mode == "slow" || isBug {
			ans, err := protocol.EncodeResult(req.ID, res)
			if err != nil {
				ans = protocol.EncodeError(req.ID, err)
			}
			say(ans)
			continue
		}
		out, _ := protocol.EncodeTensor(res.Out)
		id := req.ID
		switch *mode {
		case "wrong-shape":
			out.Shape = append(out.Shape, 1)
		case "wrong-dtype":
			vals := make([]float64, res.Out.NumEl())
			for i, p := range res.Out.Positions() {
				vals[i] = scatter.Float64At(res.Out.Data, p)
			}
			var t scatter.Tensor
			if res.Out.DType() == scatter.DTFloat64 {
				iv := make([]int64, len(vals))
				for i, v := range vals {
					iv[i] = int64(v)
				}
				t = scatter.FromSlice(iv, res.Out.Shape...)
			} else {
				t = scatter.FromSlice(vals, res.Out.Shape...)
			}
			out, _ = protocol.EncodeTensor(t)
		case "truncated-base64":
			if len(out.Data) >= 4 {
				out.Data = out.Data[:len(out.Data)-3]
			} else {
				out.Data = "A"
			}
		case "huge-size":
			out.Shape = []int{1 << 40, 1 << 40}
		case "wrong-id":
			id = req.ID + 1000
		}
		b, _ := json.Marshal(map[string]any{"id": id, "out": out})
		say(b)
	}
}
