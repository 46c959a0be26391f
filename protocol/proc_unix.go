//go:build unix

package protocol

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// signalMarked sends sig to every process that carries mark (MarkEnv)
// and reports whether there was any.
func signalMarked(mark string, sig syscall.Signal) bool {
	pids := markedProcesses(mark)
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
	return len(pids) > 0
}

// termMarked sends SIGTERM to every process that carries mark.
func termMarked(mark string) { signalMarked(mark, syscall.SIGTERM) }

// markedAlive reports whether a process that carries mark is left.
func markedAlive(mark string) bool { return len(markedProcesses(mark)) > 0 }

// killMarked kills every process that carries mark, again while one is
// found (a process may fork between the listing and the kill; its child
// carries the mark too), for up to a second.
func killMarked(mark string) {
	deadline := time.Now().Add(time.Second)
	for signalMarked(mark, syscall.SIGKILL) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

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
// memory). Where no guard could be started (the group is already gone),
// release does nothing.
//
// Where the members of a group can be listed (Linux, groupsListable),
// the guard ignores SIGTERM, so that it still stands while the group is
// given its grace after SIGTERM: a process of the group that ignores
// SIGTERM is killed even if this process dies during that grace. The
// Client then tells the guard from the rest of the group (groupAlive).
// Elsewhere, SIGTERM to the group ends the guard too.
func GuardGroup(pgid int) (release func()) {
	g := startGuard(pgid, "")
	return g.release
}

// guard is a started GuardGroup guard (nil: none).
type guard struct {
	cmd    *exec.Cmd
	w      *os.File
	marked bool // it kills the marked processes unless release says it need not
}

// With a mark (MarkEnv; Linux only), a guard whose pipe ends without a
// line (this process died: release writes one) first kills every process
// that carries the mark, then its group.
func startGuard(pgid int, mark string) *guard {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	script := "read guard; kill -KILL 0"
	if mark != "" && groupsListable() {
		script = "read guard || for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -qxF " + MarkEnv + "=" + mark +
			" && kill -KILL ${p#/proc/} 2>/dev/null; done; kill -KILL 0"
	}
	var ready, said *os.File
	if groupsListable() {
		// it says when it ignores SIGTERM, and is waited for: a SIGTERM
		// to the group before then would end it
		script = "trap '' TERM; echo; " + script
		if ready, said, err = os.Pipe(); err != nil {
			r.Close()
			w.Close()
			return nil
		}
		defer ready.Close()
	}
	g := exec.Command("sh", "-c", script)
	g.Stdin = r // standard error (and output, without ready): the null device
	if said != nil {
		g.Stdout = said
	}
	g.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	err = g.Start()
	r.Close()
	if said != nil {
		said.Close() // the guard's end
	}
	if err != nil {
		w.Close()
		return nil
	}
	go g.Wait()
	if ready != nil {
		ready.SetReadDeadline(time.Now().Add(guardReady))
		var b [1]byte
		ready.Read(b[:]) // silence (or exit) past the deadline: a guard still, only not past SIGTERM
	}
	return &guard{cmd: g, w: w, marked: mark != ""}
}

// guardReady is how long startGuard waits for a guard to say that it
// ignores SIGTERM.
const guardReady = 5 * time.Second

// release closes the guard's pipe: it kills its group, itself included.
func (g *guard) release() {
	if g != nil {
		if g.marked {
			g.w.Write([]byte("released\n")) // the marked processes are gone: no need to look for them
		}
		g.w.Close()
	}
}

// pid is the guard's process id (0: no guard).
func (g *guard) pid() int {
	if g == nil {
		return 0
	}
	return g.cmd.Process.Pid
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

// groupAlive reports whether any process of the child's group is left
// but its guard (pid guardPid; 0: none) and zombies, which can do no
// more harm. Only where groupMembers can list a group is the guard told
// apart; elsewhere it has ended with the group's SIGTERM.
func groupAlive(cmd *exec.Cmd, guardPid int) bool {
	if cmd.Process == nil || syscall.Kill(-cmd.Process.Pid, 0) != nil {
		return false
	}
	if !groupsListable() {
		return true
	}
	members, ok := groupMembers(cmd.Process.Pid)
	if !ok {
		return true
	}
	for _, pid := range members {
		if pid != guardPid {
			return true
		}
	}
	return false
}
