//go:build !linux

package main

import "os"

// selfPID is this process.
var selfPID = os.Getpid()

func procMemory(pid int) (peak, rss int64, err error) { return 0, 0, errRSSUnsupported }

func resetPeak(pid int) error { return errRSSUnsupported }

func procCmdline(pid int) []string { return nil }
