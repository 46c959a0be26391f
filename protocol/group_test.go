//go:build unix

package protocol

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scatterconf/scatter"
)

// Tests that nothing an implementation starts outlives the Client: the
// implementation spawns a grandchild (a sleep in the background, which
// ignores SIGTERM in one case), and whichever way the Client ends the
// process, the grandchild is gone too.

// spawning returns a command that starts a grandchild writing its pid to
// a file, then runs the helper in mode; and a function that waits for the
// pid file.
func spawning(t *testing.T, mode string, ignoreTerm bool) (string, func() int) {
	return spawningAs(t, mode, ignoreTerm, "")
}

// spawningAs is spawning with the grandchild started by prefix: "setsid "
// puts it in a session (and a process group) of its own.
func spawningAs(t *testing.T, mode string, ignoreTerm bool, prefix string) (string, func() int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	trap := ""
	if ignoreTerm {
		trap = `trap "" TERM; `
	}
	// the grandchild writes its own pid, then becomes a sleep
	cmd := prefix + "sh -c '" + trap + "echo $$ > " + pidFile + "; exec sleep 300' & " +
		"export " + helperEnv + "=" + mode + "; " + helperCommand()
	return cmd, func() int {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			b, err := os.ReadFile(pidFile)
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && pid > 0 {
				return pid
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("the grandchild did not write its pid")
		return 0
	}
}

// alive reports whether pid is a process that has not exited (a zombie
// waiting for its parent counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: kill says it is there
	}
	// the state is the field after the command's closing parenthesis
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("%s (pid %d) outlived the Client", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestClientEndsTheProcessGroup(t *testing.T) {
	gather := scatter.Gather{Input: scatter.FromSlice([]float32{1, 2}, 2), Index: scatter.FromSlice([]int64{1}, 1)}
	for _, c := range []struct {
		name       string
		mode       string
		ignoreTerm bool
		end        func(t *testing.T, c *Client)
		prefix     string // of the grandchild's command
	}{
		{"close", "serve", false, func(t *testing.T, c *Client) { c.Close() }, ""},
		{"close, grandchild ignores SIGTERM", "serve", true, func(t *testing.T, c *Client) { c.Close() }, ""},
		// a grandchild that left the group: only its mark (MarkEnv) finds it
		{"close, grandchild in a session of its own", "serve", false, func(t *testing.T, c *Client) { c.Close() }, "setsid "},
		{"close, grandchild in a session of its own ignores SIGTERM", "serve", true, func(t *testing.T, c *Client) { c.Close() }, "setsid "},
		{"terminate", "serve", false, func(t *testing.T, c *Client) { c.Terminate() }, ""},
		{"timeout", "stall", false, func(t *testing.T, c *Client) {
			if _, err := c.Run(gather); !isKind(err, KindTimeout) {
				t.Errorf("a stalled request: %v, want a timeout", err)
			}
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.prefix != "" && !groupsListable() {
				t.Skip("the marked processes are listed on Linux only")
			}
			cmd, pid := spawningAs(t, c.mode, c.ignoreTerm, c.prefix)
			cl, err := NewClient(cmd, ClientOptions{Timeout: 300 * time.Millisecond, KillGrace: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			gpid := pid()
			leader := cl.live.Load().cmd.Process.Pid
			c.end(t, cl)
			waitGone(t, "the implementation", leader)
			waitGone(t, "its grandchild", gpid)
		})
	}
}

// startHolder starts this test binary as a process that holds a Client
// of impl (the helper's mode: "client" or "client-terminating"), killed
// when the test ends, and returns it, its standard output past the first
// line, its standard input, and the implementation's pid, which that
// line gives.
func startHolder(t *testing.T, mode, impl string) (*exec.Cmd, *bufio.Reader, io.Writer, int) {
	t.Helper()
	holder := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	holder.Env = append(os.Environ(), helperEnv+"="+mode, "PROTOCOL_TEST_IMPL="+impl)
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	br := bufio.NewReader(out)
	line, err := br.ReadString('\n')
	leader, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("the Client's holder did not print its implementation's pid: %q, %v", line, err)
	}
	return holder, br, in, leader
}

// TestClientKilledOutright: when the process that holds the Client dies
// without ending the implementation (SIGKILL here; a crash or the
// out-of-memory killer alike), the implementation's group goes with it,
// even an implementation that never reads its standard input again (so
// never sees it close) and its grandchild.
// A grandchild in a session of its own goes too, where the guard can
// list the marked processes (Linux).
func TestClientKilledOutright(t *testing.T) {
	for _, prefix := range []string{"", "setsid "} {
		t.Run("grandchild started by "+strings.TrimSpace(prefix+" sh"), func(t *testing.T) {
			if prefix != "" && !groupsListable() {
				t.Skip("the marked processes are listed on Linux only")
			}
			impl, pid := spawningAs(t, "stall", false, prefix)
			holder, _, _, leader := startHolder(t, "client", impl)
			gpid := pid()
			time.Sleep(100 * time.Millisecond)
			if !alive(leader) || !alive(gpid) {
				t.Fatal("the implementation or its grandchild ended before the holder was killed")
			}
			holder.Process.Kill()
			holder.Wait()
			waitGone(t, "the implementation", leader)
			waitGone(t, "its grandchild", gpid)
		})
	}
}

// TestClientKilledDuringGrace: when the process that holds the Client
// dies while the implementation's group has its grace after SIGTERM, a
// process of the group that ignores SIGTERM (the grandchild here) goes
// too: the guard outlasts SIGTERM where the group's members can be
// listed (Linux).
func TestClientKilledDuringGrace(t *testing.T) {
	if !groupsListable() {
		t.Skip("the guard ends with the group's SIGTERM here")
	}
	impl, pid := spawning(t, "serve", true)
	holder, br, in, leader := startHolder(t, "client-terminating", impl)
	gpid := pid() // the grandchild ignores SIGTERM from here on
	io.WriteString(in, "terminate\n")
	if line, err := br.ReadString('\n'); err != nil || line != "terminating\n" {
		t.Fatalf("the holder did not begin to terminate: %q, %v", line, err)
	}
	waitGone(t, "the implementation", leader) // it takes SIGTERM
	if !alive(gpid) {
		t.Fatal("the grandchild, which ignores SIGTERM, ended within the grace")
	}
	holder.Process.Kill()
	holder.Wait()
	waitGone(t, "its grandchild", gpid)
}

// TestClientContextEndsAStart: a context done while the implementation
// has not answered its hello ends it and its grandchild; NewClient fails
// with KindClosed.
func TestClientContextEndsAStart(t *testing.T) {
	cmd, pid := spawning(t, "silent", false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := NewClient(cmd, ClientOptions{Context: ctx, KillGrace: 200 * time.Millisecond})
		done <- err
	}()
	gpid := pid()
	cancel()
	select {
	case err := <-done:
		if !isKind(err, KindClosed) {
			t.Errorf("NewClient: %v, want %s", err, KindClosed)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("NewClient did not return after the context was done")
	}
	waitGone(t, "its grandchild", gpid)
}

// TestGuardGroupRelease: GuardGroup's release kills whatever is left of
// the group it guards (here a command that outlived its leader's wait: a
// sleep in the background).
func TestGuardGroupRelease(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "bg.pid")
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $! > "+pidFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	release := GuardGroup(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil {
		t.Fatalf("no pid of the background sleep: %v %v", err, perr)
	}
	if !alive(pid) {
		t.Fatal("the background sleep ended before the release")
	}
	release()
	waitGone(t, "the background sleep", pid)
}

// TestClientWriteToAClosedInput: an implementation that answers the
// hello and then closes its standard input makes the Client's next write
// fail (a broken pipe): the implementation leaves a marker once its input
// is closed, and the request is sent only then. When it exits too, the
// failure reads as an exit seen on the read does ("closed its standard
// output", with the exit status); when it keeps its output open, the
// failure says that it closed its standard input.
func TestClientWriteToAClosedInput(t *testing.T) {
	gather := scatter.Gather{Input: scatter.FromSlice([]float32{1, 2}, 2), Index: scatter.FromSlice([]int64{1}, 1)}
	for _, c := range []struct {
		then, detail, status string
	}{
		{"sleep 0.3; exit 3", "closed its standard output", "exit status 3"},
		{"sleep 30", "closed its standard input", "broken pipe"},
	} {
		marker := filepath.Join(t.TempDir(), "closed")
		command := `read -r line; echo '{"id":0,"protocol":1,"ops":["gather"]}'; exec 0<&-; : > '` + marker + `'; ` + c.then
		cl, err := NewClient(command, ClientOptions{StartTimeout: 5 * time.Second, KillGrace: 200 * time.Millisecond})
		if err != nil {
			t.Fatalf("%q: %v", command, err)
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%q: no marker after 5 s", command)
			}
		}
		_, err = cl.Run(gather)
		cl.Close()
		pe := processError(t, err, KindCrash)
		if !strings.Contains(pe.Detail, c.detail) || !strings.Contains(pe.Detail, c.status) {
			t.Errorf("%q: detail %q lacks %q or %q", command, pe.Detail, c.detail, c.status)
		}
	}
}
