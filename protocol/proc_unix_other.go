//go:build unix && !linux

package protocol

// groupsListable: the members of a group are not listed here, so the
// group's guard ends with the group's SIGTERM (GuardGroup).
func groupsListable() bool { return false }

// Processes cannot list the processes here.
func Processes() ([]Process, error) { return nil, ErrNoProcessList }

func groupMembers(pgid int) ([]int, bool) { return nil, false }

// markedProcesses cannot list the processes here.
func markedProcesses(mark string) []int { return nil }
