//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// selfPID is this process.
var selfPID = os.Getpid()

// procMemory returns the peak RSS (VmHWM) and the current RSS (VmRSS) of
// process pid, in bytes.
func procMemory(pid int) (peak, rss int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	return parseStatus(b)
}

// parseStatus reads VmHWM and VmRSS (in kB, as the kernel writes them)
// from the text of /proc/PID/status.
func parseStatus(b []byte) (peak, rss int64, err error) {
	found := 0
	for line := range bytes.Lines(b) {
		key, val, ok := strings.Cut(string(line), ":")
		if !ok || (key != "VmHWM" && key != "VmRSS") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("/proc status: %s: %q", key, strings.TrimSpace(val))
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("/proc status: %s: %q", key, f[0])
		}
		if key == "VmHWM" {
			peak = n << 10
		} else {
			rss = n << 10
		}
		found++
	}
	if found != 2 {
		return 0, 0, fmt.Errorf("/proc status: no VmHWM and VmRSS (a kernel thread, or a process that has exited)")
	}
	return peak, rss, nil
}

// resetPeak sets the peak RSS of process pid back to its current RSS
// (Linux 4.0 and later: "5" written to clear_refs).
func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// procCmdline returns the arguments of process pid, or nil.
func procCmdline(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}
