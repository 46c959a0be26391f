//go:build unix

package protocol

import (
	"os"
	"os/exec"
	"syscall"
)

// groupCommand returns the command that runs command with sh in a process
// group of its own, so that the signals reach whatever it started.
func groupCommand(command string) *exec.Cmd {
	cmd := exec.Command("sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// GuardGroup puts a guard into the process group pgid, which a started
// command leads (groupCommand, or Setpgid), and returns its release: call
// it once the group has ended, or once the command has been waited for,
// to kill whatever is left of the group (SIGKILL). The guard is a shell
// that blocks reading a pipe and, at end of file, kills the whole group.
// Only this process holds the write end, which release closes, so the
// end of file also comes when this process dies without ending the group
// itself (SIGKILL, a crash, the out-of-memory killer): nothing the command
// started outlives it, not even a hung implementation that never reads
// its standard input again. The guard holds none of the command's pipes
// and is no child of its leader (so no part of its process tree's
// memory); ending the group the usual way (SIGTERM) ends it too. Where no
// guard could be started (the group is already gone), release does
// nothing.
func GuardGroup(pgid int) (release func()) {
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	g := exec.Command("sh", "-c", "read guard; kill -KILL 0")
	g.Stdin = r // standard output and error: the null device
	g.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	err = g.Start()
	r.Close()
	if err != nil {
		w.Close()
		return func() {}
	}
	go g.Wait()
	return func() { w.Close() }
}

// signalGroup sends the child's process group SIGTERM (kill false) or
// SIGKILL (kill true).
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// groupAlive reports whether any process of the child's group is left.
func groupAlive(cmd *exec.Cmd) bool {
	return cmd.Process != nil && syscall.Kill(-cmd.Process.Pid, 0) == nil
}
