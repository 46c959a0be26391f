package protocol

import (
	"os"
	"strconv"
	"strings"
)

// guardOutlastsTerm: the group's guard ignores SIGTERM (GuardGroup),
// since groupMembers can tell it from the rest of the group.
const guardOutlastsTerm = true

// groupMembers lists the processes of process group pgid that have not
// exited (zombies left out), read from /proc; ok is false when /proc
// cannot be read.
func groupMembers(pgid int) (pids []int, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	want := strconv.Itoa(pgid)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone since the listing
		}
		// after the command's closing parenthesis: state ppid pgrp ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[2] == want && f[0] != "Z" {
			pids = append(pids, pid)
		}
	}
	return pids, true
}
