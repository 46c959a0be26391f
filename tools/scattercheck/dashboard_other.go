//go:build !unix

package main

import "os/exec"

// inGroup leaves cmd as it is: without process groups, its context's end
// kills the process alone.
func inGroup(cmd *exec.Cmd) {}

// runGrouped runs cmd (there are no process groups to guard here).
func runGrouped(cmd *exec.Cmd) error { return cmd.Run() }
