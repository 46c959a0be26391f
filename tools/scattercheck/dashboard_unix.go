//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// inGroup runs cmd in a process group of its own and makes its context's
// end kill the whole group (an install's cargo, a repro's python), not
// only the shell.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
