package main

import (
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
)

// TestCatchable: a signal the process ignores (nohup's SIGHUP) is left
// ignored: the run is not cut short by it.
func TestCatchable(t *testing.T) {
	if !slices.Contains(catchable(), os.Signal(syscall.SIGHUP)) {
		t.Skip("SIGHUP is ignored by this test process already")
	}
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	if slices.Contains(catchable(), os.Signal(syscall.SIGHUP)) {
		t.Error("an ignored SIGHUP is caught")
	}
	if !slices.Contains(catchable(), os.Signal(syscall.SIGTERM)) {
		t.Error("SIGTERM is not caught")
	}
}
