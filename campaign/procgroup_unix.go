//go:build unix

package campaign

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a process group of its own, and its
// cancellation kill that whole group: a workload's script or test may
// start processes of its own, and an injected failure may leave them
// running (a decompressor looping on a failed read, a server waiting for
// a client that failed), writing into the run's log and output after the
// run was given up.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills every process left in cmd's group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// quitForStacks asks the process started (not its group) to quit as Go
// programs do on SIGQUIT: dumping every goroutine's stack, then exiting.
func quitForStacks(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Signal(syscall.SIGQUIT)
}
