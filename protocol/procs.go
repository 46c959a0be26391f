package protocol

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
)

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

// MarkEnv is the environment variable that marks every process an
// implementation starts: the Client sets it to a value of its own for the
// implementation's command, and its processes inherit it, those that
// leave the process group (setsid, a daemon's double fork) included. When
// the Client ends the group, it also ends every process that still
// carries the mark (Linux, where /proc lists the environments), and so
// does the group's guard when the Client's process dies without ending
// it. A process that clears its environment escapes.
const MarkEnv = "SCATTER_PROTOCOL_MARK"

// newMark returns a value for MarkEnv no other Client has.
func newMark() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
