package protocol

import (
	"os"
	"syscall"
	"testing"
)

func TestParseStat(t *testing.T) {
	// the command name may hold spaces and parentheses
	p, ok := parseStat([]byte("4242 (a) b (c)) S 17 4242 4242 0 -1 4194560 99 0 0 0\n"))
	if !ok || p.PPID != 17 || p.PGID != 4242 || p.Zombie {
		t.Errorf("parseStat: %+v, %v", p, ok)
	}
	if p, ok := parseStat([]byte("4243 (z) Z 1 4243 4243 0 -1\n")); !ok || !p.Zombie {
		t.Errorf("parseStat of a zombie: %+v, %v", p, ok)
	}
	for _, bad := range []string{"4242 no parentheses S 1 2", "4242 (x) S", "4242 (x) S one 2"} {
		if _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("parseStat(%q) ok", bad)
		}
	}
}

// TestProcessesListsThisOne: the list holds this process, with its
// parent and its group.
func TestProcessesListsThisOne(t *testing.T) {
	ps, err := Processes()
	if err != nil {
		t.Fatal(err)
	}
	pgid, _ := syscall.Getpgid(0)
	for _, p := range ps {
		if p.PID == os.Getpid() {
			if p.PPID != os.Getppid() || p.PGID != pgid || p.Zombie {
				t.Errorf("this process: %+v, want parent %d, group %d", p, os.Getppid(), pgid)
			}
			return
		}
	}
	t.Errorf("this process (%d) is not among the %d listed", os.Getpid(), len(ps))
}
