//go:build unix && !linux

package protocol

// guardOutlastsTerm: the group's guard ends with the group's SIGTERM
// (GuardGroup): the members of a group are not listed here.
const guardOutlastsTerm = false

// Processes cannot list the processes here.
func Processes() ([]Process, error) { return nil, ErrNoProcessList }

func groupMembers(pgid int) ([]int, bool) { return nil, false }
