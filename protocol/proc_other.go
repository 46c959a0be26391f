//go:build !unix

package protocol

import "os/exec"

// groupCommand returns the command that runs command with sh (there are
// no process groups here).
func groupCommand(command string) *exec.Cmd { return exec.Command("sh", "-c", command) }

// signalGroup ends the child (there are no process groups to signal here).
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func groupAlive(cmd *exec.Cmd) bool { return false }

// GuardGroup starts no guard (there are no process groups to end).
func GuardGroup(pgid int) (release func()) { return func() {} }
