package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/scatterconf/scatter/protocol"
)

// Peak resident memory (RSS) of the bench's targets, read from the
// kernel's per-process accounting where there is one (Linux: VmHWM and
// VmRSS in /proc/PID/status; writing "5" to /proc/PID/clear_refs sets a
// process's peak back to its current RSS). Elsewhere every reading fails
// with errRSSUnsupported and the bench shows no RSS.

// errRSSUnsupported: no peak RSS can be read on this system.
var errRSSUnsupported = errors.New("peak RSS is read from /proc/PID/status, which this system lacks")

// rssReading is the memory of a process tree: the sum over its processes
// of the peak RSS since their last reset (or their start) and of the
// current RSS.
type rssReading struct {
	Peak, Current int64 // bytes
	Procs         int   // processes read
}

// processTree returns root and every process below it, by the parent ids
// of children (parent -> children), root first, then in breadth-first
// order.
func processTree(root int, children map[int][]int) []int {
	tree := []int{root}
	seen := map[int]bool{root: true}
	for i := 0; i < len(tree); i++ {
		kids := slices.Clone(children[tree[i]])
		slices.Sort(kids)
		for _, k := range kids {
			if !seen[k] {
				seen[k] = true
				tree = append(tree, k)
			}
		}
	}
	return tree
}

// resetTree resets the peak RSS of every process in the tree of root and
// returns the tree's memory just after.
func resetTree(root int) (rssReading, error) {
	pids, err := treeOf(root)
	if err != nil {
		return rssReading{}, err
	}
	for _, p := range pids {
		if err := resetPeak(p); err != nil && p == root {
			return rssReading{}, err
		}
	}
	return readTree(pids)
}

// peakOfTree reads the memory of the tree of root as it is now (a process
// started since the reset counts with its whole peak).
func peakOfTree(root int) (rssReading, error) {
	pids, err := treeOf(root)
	if err != nil {
		return rssReading{}, err
	}
	return readTree(pids)
}

// procList lists every process (protocol.Processes), or fails with
// errRSSUnsupported where they cannot be listed.
func procList() ([]protocol.Process, error) {
	ps, err := protocol.Processes()
	if errors.Is(err, protocol.ErrNoProcessList) {
		return nil, errRSSUnsupported
	}
	return ps, err
}

// childrenOf maps every process of ps to its children.
func childrenOf(ps []protocol.Process) map[int][]int {
	children := map[int][]int{}
	for _, p := range ps {
		children[p.PPID] = append(children[p.PPID], p.PID)
	}
	return children
}

func treeOf(root int) ([]int, error) {
	if root == selfPID {
		return []int{root}, nil // this process alone: its own children are the implementations
	}
	ps, err := procList()
	if err != nil {
		return nil, err
	}
	return processTree(root, childrenOf(ps)), nil
}

// readTree sums the memory of pids; a process that has exited since it
// was listed is left out, but the first (the root) must be there.
func readTree(pids []int) (rssReading, error) {
	var r rssReading
	for i, p := range pids {
		peak, cur, err := procMemory(p)
		if err != nil {
			if i == 0 {
				return rssReading{}, err
			}
			continue
		}
		r.Peak += peak
		r.Current += cur
		r.Procs++
	}
	return r, nil
}

// implRoots returns the processes that protocol clients of this process
// have started: its children that lead a process group of their own (a
// Client starts sh -c CMD so, and ends the whole group).
func implRoots() (map[int]bool, error) {
	ps, err := procList()
	if err != nil {
		return nil, err
	}
	roots := map[int]bool{}
	for _, p := range ps {
		if p.PPID == selfPID && p.PGID == p.PID {
			roots[p.PID] = true
		}
	}
	return roots, nil
}

// newImplRoot returns the one process of implRoots that is neither in
// known (there before the implementation started) nor in taken (another
// target's); when there are several, the one that still runs sh -c
// command (a shell that has not replaced itself with the command).
func newImplRoot(command string, known, taken map[int]bool) (int, error) {
	roots, err := implRoots()
	if err != nil {
		return 0, err
	}
	var cands []int
	for p := range roots {
		if !known[p] && !taken[p] {
			cands = append(cands, p)
		}
	}
	slices.Sort(cands)
	if len(cands) == 1 {
		return cands[0], nil
	}
	var bySh []int
	for _, p := range cands {
		if slices.Equal(procCmdline(p), []string{"sh", "-c", command}) {
			bySh = append(bySh, p)
		}
	}
	if len(bySh) == 1 {
		return bySh[0], nil
	}
	if len(cands) == 0 {
		return 0, fmt.Errorf("no process of the implementation found")
	}
	return 0, fmt.Errorf("%d processes could be the implementation's", len(cands))
}
