package main

import (
	"runtime"
	"slices"
	"testing"

	"github.com/scatterconf/scatter/protocol"
)

// rssReadable: the bench reads peak RSS on Linux (and its tests insist
// that it does there).
var rssReadable = runtime.GOOS == "linux"

// TestProcessTree: root, then its descendants breadth first, each level
// in pid order; processes outside the tree and a cycle of parents (a pid
// reused while the table was read) are not followed twice.
func TestProcessTree(t *testing.T) {
	ps := []protocol.Process{
		{PID: 10, PPID: 1}, {PID: 30, PPID: 10}, {PID: 20, PPID: 10}, {PID: 40, PPID: 20},
		{PID: 50, PPID: 1}, {PID: 60, PPID: 50}, // another tree
		{PID: 10, PPID: 40}, // a cycle back to the root
	}
	children := childrenOf(ps)
	if got, want := processTree(10, children), []int{10, 20, 30, 40}; !slices.Equal(got, want) {
		t.Errorf("tree of 10: %v, want %v", got, want)
	}
	if got, want := processTree(60, children), []int{60}; !slices.Equal(got, want) {
		t.Errorf("tree of 60: %v, want %v", got, want)
	}
}

func TestRSSSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0.0 MiB"}, {512 << 10, "0.5 MiB"}, {4 << 20, "4.0 MiB"}, {10 << 20, "10 MiB"}, {787 << 20, "787 MiB"},
		{1 << 30, "1.00 GiB"}, {1648 << 20, "1.61 GiB"}, {10 << 30, "10.0 GiB"},
	} {
		if got := rssSize(c.n); got != c.want {
			t.Errorf("rssSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
