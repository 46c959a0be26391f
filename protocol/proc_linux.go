package protocol

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
)

// groupsListable reports whether Processes lists this process (a /proc
// mounted and readable): only then does the group's guard ignore SIGTERM
// (GuardGroup), since only then can groupMembers tell it from the rest
// of the group. Asked once.
var groupsListable = sync.OnceValue(func() bool {
	ps, err := Processes()
	if err != nil {
		return false
	}
	for _, p := range ps {
		if p.PID == os.Getpid() {
			return true
		}
	}
	return false
})

// Processes lists every process, from /proc/*/stat: the one home of the
// listing, for the Client's group (groupMembers) and for the tools that
// walk an implementation's process tree (scattercheck bench's RSS). A
// process that exits while the list is read is left out.
func Processes() ([]Process, error) {
	var ps []Process
	err := eachProcessFile("stat", func(pid int, b []byte) {
		if p, ok := parseStat(b); ok {
			p.PID = pid
			ps = append(ps, p)
		}
	})
	return ps, err
}

// eachProcessFile calls f with the id and the contents of /proc/PID/name
// of every process listed in /proc whose file can be read (one that has
// exited since the listing, or another user's environ, is left out).
func eachProcessFile(name string, f func(pid int, b []byte)) error {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/" + name); err == nil {
			f(pid, b)
		}
	}
	return nil
}

// parseStat reads the state, the parent and the process group from the
// text of /proc/PID/stat: the third, fourth and fifth fields, after the
// command name in parentheses (which may itself hold spaces and
// parentheses, hence the last one).
func parseStat(stat []byte) (Process, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return Process{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 3 {
		return Process{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	return Process{PPID: ppid, PGID: pgid, Zombie: f[0] == "Z"}, err1 == nil && err2 == nil
}

// groupMembers lists the processes of process group pgid that have not
// exited (zombies left out); ok is false when they cannot be listed.
func groupMembers(pgid int) (pids []int, ok bool) {
	ps, err := Processes()
	if err != nil {
		return nil, false
	}
	for _, p := range ps {
		if p.PGID == pgid && !p.Zombie {
			pids = append(pids, p.PID)
		}
	}
	return pids, true
}

// markedProcesses lists the processes (this one left out) whose
// environment holds MarkEnv=mark, read from /proc/PID/environ: a zombie's
// is empty, and another user's cannot be read, so neither is listed.
func markedProcesses(mark string) []int {
	want := []byte("\x00" + MarkEnv + "=" + mark + "\x00")
	self := os.Getpid()
	var pids []int
	eachProcessFile("environ", func(pid int, b []byte) {
		if pid != self && len(b) > 0 && bytes.Contains(append(append([]byte{0}, b...), 0), want) {
			pids = append(pids, pid)
		}
	})
	return pids
}
