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

func groupAlive(cmd *exec.Cmd, guardPid int) bool { return false }

// GuardGroup starts no guard (there are no process groups to end).
func GuardGroup(pgid int) (release func()) { return func() {} }

// guard is no guard: nothing to release.
type guard struct{}

func startGuard(pgid int, mark string) *guard { return nil }
func (g *guard) release()                     {}
func (g *guard) pid() int                     { return 0 }

// The marked processes (MarkEnv) cannot be listed here.
func termMarked(mark string)       {}
func markedAlive(mark string) bool { return false }
func killMarked(mark string)       {}

// Processes cannot list the processes here.
func Processes() ([]Process, error) { return nil, ErrNoProcessList }
