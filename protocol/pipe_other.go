//go:build !windows

package protocol

import (
	"errors"
	"syscall"
)

// brokenPipe reports whether err is a write to a pipe whose reader has gone
// (EPIPE).
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
