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

// procList lists every process with its parent and process group, from
// /proc/*/stat.
func procList() ([]procEntry, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var ps []procEntry
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited since
		}
		if p, ok := parseStat(b); ok {
			p.pid = pid
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// parseStat reads the parent id and the process group from the text of
// /proc/PID/stat: the fourth and fifth fields, after the command name in
// parentheses (which may itself hold spaces and parentheses, hence the
// last one).
func parseStat(stat []byte) (procEntry, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return procEntry{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 3 {
		return procEntry{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	return procEntry{ppid: ppid, pgrp: pgrp}, err1 == nil && err2 == nil
}

// procCmdline returns the arguments of process pid, or nil.
func procCmdline(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}
