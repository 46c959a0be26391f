//go:build linux

package main

import (
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"syscall"
	"testing"
	"time"
)

func TestParseStatus(t *testing.T) {
	status := "Name:\tpython3\nVmPeak:\t  999 kB\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\nThreads:\t3\n"
	peak, rss, err := parseStatus([]byte(status))
	if err != nil || peak != 2048<<10 || rss != 1024<<10 {
		t.Errorf("parseStatus: %d, %d, %v", peak, rss, err)
	}
	for _, bad := range []string{
		"Name:\tkthreadd\nThreads:\t1\n", // a kernel thread: no memory lines
		"VmHWM:\t  2048 kB\n",            // one of the two
		"VmHWM:\t  2048 MB\nVmRSS:\t  1 kB\n",
		"VmHWM:\t  -1 kB\nVmRSS:\t  1 kB\n",
	} {
		if _, _, err := parseStatus([]byte(bad)); err == nil {
			t.Errorf("parseStatus(%q): no error", bad)
		}
	}
}

// TestPeakRSSSelf reads and resets the peak RSS of this process: 64 MiB
// touched raise the RSS by at least half that (the margin covers what
// the runtime returns to the system meanwhile); once they are freed and given
// back to the system, a reset brings the peak down to the current RSS
// (clear_refs "5"), which the 64 MiB no longer hold.
func TestPeakRSSSelf(t *testing.T) {
	const size = 64 << 20
	debug.FreeOSMemory() // free pages still resident would be reused, not faulted in
	peak0, cur0, err := procMemory(selfPID)
	if err != nil || peak0 <= 0 || cur0 <= 0 || peak0 < cur0 {
		t.Fatalf("procMemory(self): %d, %d, %v", peak0, cur0, err)
	}
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = 1
	}
	peak1, cur1, err := procMemory(selfPID)
	runtime.KeepAlive(buf)
	if err != nil || cur1 < cur0+size/2 || peak1 < cur1 {
		t.Fatalf("after touching 64 MiB: peak %d, RSS %d (before: %d), %v", peak1, cur1, cur0, err)
	}
	buf = nil
	debug.FreeOSMemory()
	r, err := resetTree(selfPID)
	if err != nil {
		t.Fatalf("reset: %v", err)
	}
	peak2, cur2, err := procMemory(selfPID)
	if err != nil || r.Procs != 1 || peak2 > peak1-size/2 || peak2 < cur2 {
		t.Errorf("after freeing and a reset: peak %d (before %d), RSS %d, %+v, %v", peak2, peak1, cur2, r, err)
	}
}

// TestImplRoots: a child started as protocol clients start theirs (a
// process group of its own) is found, with its own children in its tree;
// a child in this process's group is not an implementation.
func TestImplRoots(t *testing.T) {
	before, err := implRoots()
	if err != nil {
		t.Fatal(err)
	}
	lead := exec.Command("sh", "-c", "sleep 30 & sleep 30; wait")
	lead.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	plain := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{lead, plain} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if c == lead {
				syscall.Kill(-c.Process.Pid, syscall.SIGKILL) // the group: the shell and its sleeps
			}
			c.Process.Kill()
			c.Wait()
		}()
	}
	root, err := newImplRoot("sleep 30 & sleep 30; wait", before, nil)
	if err != nil || root != lead.Process.Pid {
		t.Fatalf("newImplRoot: %d, %v; want %d", root, err, lead.Process.Pid)
	}
	if _, err := newImplRoot("x", before, map[int]bool{root: true}); err == nil {
		t.Error("a root taken by another target is found again")
	}
	// the shell's two sleeps appear once started
	for range 100 {
		if pids, err := treeOf(root); err == nil && len(pids) == 3 {
			r, err := readTree(pids)
			if err != nil || r.Procs != 3 || r.Peak <= 0 || r.Current <= 0 {
				t.Errorf("readTree(%v): %+v, %v", pids, r, err)
			}
			if slices.Contains(pids, plain.Process.Pid) {
				t.Errorf("tree %v holds the other child", pids)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Error("the shell's children never appeared in its tree")
}
