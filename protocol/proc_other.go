//go:build !unix

package protocol

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup ends the child (there are no process groups to signal here).
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func groupAlive(cmd *exec.Cmd) bool { return false }
