package protocol

import "errors"

// Process is a process as the system lists it: its id, its parent's, its
// process group's, and whether it has exited and waits to be reaped (a
// zombie).
type Process struct {
	PID, PPID, PGID int
	Zombie          bool
}

// ErrNoProcessList is Processes' error where the system's processes
// cannot be listed (anywhere but Linux).
var ErrNoProcessList = errors.New("protocol: the processes cannot be listed here (Linux's /proc only)")
