//go:build !unix

package campaign

import "os/exec"

// ownGroup leaves cmd as it is: without process groups, only the process
// started is killed at the time limit.
func ownGroup(cmd *exec.Cmd) {}

// killGroup does nothing: see ownGroup.
func killGroup(cmd *exec.Cmd) error { return nil }
