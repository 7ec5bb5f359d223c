//go:build !unix

package campaign

import "os/exec"

// ownGroup leaves cmd as it is: without process groups, only the process
// started is killed at the time limit.
func ownGroup(cmd *exec.Cmd) {}

// killGroup does nothing: see ownGroup.
func killGroup(cmd *exec.Cmd) error { return nil }

// quitForStacks kills the process: there is no SIGQUIT to ask for its
// goroutines.
func quitForStacks(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
