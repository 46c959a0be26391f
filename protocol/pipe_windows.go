package protocol

import (
	"errors"
	"syscall"
)

// errorNoData is Windows' ERROR_NO_DATA, "The pipe is being closed": what a
// write to a pipe whose reader has closed its end returns there.
const errorNoData = syscall.Errno(232)

// brokenPipe reports whether err is a write to a pipe whose reader has gone:
// ERROR_NO_DATA or ERROR_BROKEN_PIPE on Windows.
func brokenPipe(err error) bool {
	return errors.Is(err, errorNoData) || errors.Is(err, syscall.ERROR_BROKEN_PIPE) || errors.Is(err, syscall.EPIPE)
}
