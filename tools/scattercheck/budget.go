package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
)

// The oracle's budget per request. A request of a few hundred bytes can
// stand for a call of any size (a strides:[0] view of 2^27 elements is one
// element of storage), and the reference materialises its inputs and
// builds a plan with an entry per contribution. So before anything is
// allocated for a call, the oracle estimates what it will take, and
// declines ("unsupported", naming the figures and the flag that raises
// the budget) a call over the budget.
//
// The estimate counts, for a call with C contributions (the index's
// elements, or the source's where the index broadcasts), R result
// elements and I bytes of input tensors as views (every view
// materialised):
//
//	memory  = 128·C + 128·R + 2·I  (the judge's and the reference's plans,
//	                                 the result and its encoding)
//	seconds = (C + R) / 1e6       (a microsecond per contribution and element)
//
// measured against the oracle's peak resident memory and time on the
// project's 2-core machine (ORACLE.md has the figures): the estimate was
// 1.0x the measured memory for a contiguous scatter_add of 2^22 random
// indices, 2.2x for an expanded one (strides [0]), and 1.1x and 13x the
// time; since the reference keeps its groups compressed (4 bytes a
// contribution), 2.9x and 4.8x the memory. The constants stay as they
// were until every operation's plan is measured again: an estimate may
// be too high, never too low.

// Defaults of the oracle's budget: a few requests in flight at once fit a
// 2-core, 24 GB machine.
const (
	defaultMaxRequestMemory  = 2 << 30
	defaultMaxRequestSeconds = 120
	bytesPerContribution     = 128
	bytesPerResultElement    = 128
	contributionsPerSecond   = 1e6
)

// requestBudget bounds the work of one oracle request.
type requestBudget struct {
	maxBytes int64
	maxTime  time.Duration
}

// budgetFlags adds the budget's flags to fs.
func budgetFlags(fs *flag.FlagSet) *requestBudget {
	b := &requestBudget{}
	fs.Int64Var(&b.maxBytes, "max-request-memory", defaultMaxRequestMemory,
		"decline (unsupported) a call whose estimated memory is more than this many bytes, and a request line of more than a third of it")
	fs.DurationVar(&b.maxTime, "max-request-time", defaultMaxRequestSeconds*time.Second,
		"decline (unsupported) a call whose estimated time is more than this")
	return b
}

// callCost is the estimate of what the oracle needs for a call. Its sums
// are in float64: a request can declare sizes up to 2^63, whose products
// with the per-element costs would wrap an int64 (to 0 or below, and pass).
type callCost struct {
	contributions int64
	results       int64
	inputBytes    float64
}

func (c callCost) bytes() float64 {
	return bytesPerContribution*float64(c.contributions) + bytesPerResultElement*float64(c.results) + 2*c.inputBytes
}

func (c callCost) seconds() float64 {
	return (float64(c.contributions) + float64(c.results)) / contributionsPerSecond
}

// estimate returns the cost of call c, without allocating anything of its
// size.
func estimate(c scatter.Call) callCost {
	var cost callCost
	var indexEls, dataEls int64
	for name, t := range c.Tensors() {
		n := int64(t.NumEl())
		if n < 0 {
			continue
		}
		if dt := t.DType(); dt.Valid() {
			cost.inputBytes += float64(n) * float64(dt.Size())
		}
		if strings.HasPrefix(name, "index") || strings.HasPrefix(name, "indices") {
			indexEls += n
		} else {
			dataEls = max(dataEls, n)
		}
	}
	// the index's elements, or the source's when the index broadcasts
	// over it (torch_scatter, the F# library, index_reduce's slices)
	cost.contributions = max(indexEls, dataEls)
	cost.results = int64(protocol.ResultElements(c))
	return cost
}

// refuse returns why call c is over the budget, or "".
func (b *requestBudget) refuse(c scatter.Call) string {
	if b == nil {
		return ""
	}
	cost := estimate(c)
	var over []string
	if b.maxBytes > 0 && cost.bytes() > float64(b.maxBytes) {
		over = append(over, fmt.Sprintf("about %s of memory, over the budget of %s (-max-request-memory raises it)",
			memSize(cost.bytes()), memSize(float64(b.maxBytes))))
	}
	if s := cost.seconds(); b.maxTime > 0 && s > b.maxTime.Seconds() {
		over = append(over, fmt.Sprintf("about %s, over the budget of %v (-max-request-time raises it)", duration(s), b.maxTime))
	}
	if over == nil {
		return ""
	}
	return fmt.Sprintf("declined by the oracle's budget: the call (%d contributions, %d result elements, %s of inputs as views) needs %s",
		cost.contributions, cost.results, memSize(cost.inputBytes), strings.Join(over, ", and "))
}

// lineSlack is what a request line may hold past its tensors' base64 in a
// call within the budget: the JSON around them, and the 64 KiB a judge's
// answer may hold past its result.
const lineSlack = 1 << 20

// maxLine returns the longest request line the oracle reads under the
// memory budget M: the line counts in the budget. Reading a line holds it
// twice at the peak (its pieces, then the joined line), and decoding it
// adds its tensors' JSON strings and their elements: about 2.85 times the
// line (ORACLE.md), so a line of more than M/lineCost (and lineSlack for
// the JSON around the tensors) is declined as it is read, before it is
// held whole or decoded, and a request costs the oracle about its budget,
// never a few times it. (A call within the budget whose inputs need a
// longer line, up to M/2 of inputs by the 2·I term, is declined so too:
// -max-request-memory raises both.) Without a memory budget the
// protocol's line limit holds (DefaultMaxLineBytes).
func (b *requestBudget) maxLine() int {
	if b == nil || b.maxBytes <= 0 || b.maxBytes/lineCost >= protocol.DefaultMaxLineBytes-lineSlack {
		return protocol.DefaultMaxLineBytes
	}
	return int(b.maxBytes/lineCost) + lineSlack
}

// lineCost is what reading and decoding a request line costs the oracle
// per byte of the line, at most: 2.85 measured (a 320 MB line, 912 MB at
// the peak), rounded up.
const lineCost = 3

// tooLong answers a request line longer than maxLine: declined by the
// budget where the budget set the limit, else the protocol's error.
func (b *requestBudget) tooLong(err *protocol.LineTooLongError) []byte {
	if err.Max == protocol.DefaultMaxLineBytes {
		return err.Answer()
	}
	return protocol.EncodeUnsupported(err.ID(), fmt.Sprintf("declined by the oracle's budget: a request line of more than %d bytes, "+
		"whose reading and decoding alone take about %d times its length, over the memory budget of %s (-max-request-memory raises it)",
		err.Max, lineCost, memSize(float64(b.maxBytes))))
}

// memSize writes a byte count with a binary unit (TiB at most).
func memSize(n float64) string {
	switch {
	case n >= 1<<40:
		return fmt.Sprintf("%.3g TiB", n/(1<<40))
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", n/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", n/(1<<10))
	}
	return fmt.Sprintf("%d bytes", int64(n))
}

// duration writes s seconds as a time.Duration does, or in years past
// what one holds.
func duration(s float64) string {
	if s < 1e9 {
		return time.Duration(s * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%.3g years", s/(365.25*24*3600))
}
