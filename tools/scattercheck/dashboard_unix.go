//go:build unix

package main

import (
	"os/exec"
	"syscall"

	"github.com/scatterconf/scatter/protocol"
)

// inGroup runs cmd in a process group of its own and makes its context's
// end kill the whole group (an install's cargo, a repro's python), not
// only the shell.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// runGrouped runs a command that inGroup prepared, with the protocol
// Client's guard in its group: if the dashboard dies outright (SIGKILL,
// a crash), the group dies with it, and what the command left running
// when it exited is killed too.
func runGrouped(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	release := protocol.GuardGroup(cmd.Process.Pid)
	defer release()
	return cmd.Wait()
}
