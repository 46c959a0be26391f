package optimized

import "github.com/scatterconf/scatter"

// Test hooks.

// ForcePath makes every call that can take path ("serial", "private" or
// "owner") take it, and parallelises calls of any size.
func ForcePath(path string) Option {
	return func(b *backend) {
		b.force = path
		b.serialMax = 0
	}
}

// Fast runs c on a fast path only; ok is false when c would go to the
// reference.
func Fast(b scatter.Backend, c scatter.Call) (scatter.Result, bool) {
	return b.(*backend).fast(c)
}

// Ahead sets the read-ahead window of serial folds to chunks chunks of
// aheadChunk units (0: none).
func Ahead(chunks int) Option {
	return func(b *backend) {
		b.ahead = -1
		if chunks > 0 {
			b.ahead = chunks
		}
	}
}

// AheadSmall reads ahead the streams of every serial fold into a small
// output on two or more workers, whatever their size, in chunks of unit
// units with a window of chunks chunks: the read-ahead's bookkeeping on
// calls the size of the tests'. With late, the reader starts once the
// fold has passed two chunks (it catches up); else the fold waits for
// the reader to start (it runs ahead and waits).
func AheadSmall(chunks, unit int, late bool) Option {
	return func(b *backend) {
		b.ahead, b.aheadUnit = chunks, unit
		b.serialMax = 0
		b.aheadTest = aheadTestReaderFirst
		if late {
			b.aheadTest = aheadTestReaderLate
		}
	}
}

// AheadCounts are the read-ahead's counts: the folds that took it, the
// readers that started, waited for the fold, and caught up with it.
type AheadCounts struct{ Folds, Reads, Waits, CatchUps int64 }

// AheadCounted returns the read-ahead's counts so far.
func AheadCounted() AheadCounts {
	return AheadCounts{aheadFolds.Load(), aheadReads.Load(), aheadWaits.Load(), aheadCatchUps.Load()}
}
