package rt

import (
	"os"
	"syscall"
	"testing"
)

// The probe leaves a non-blocking descriptor non-blocking, as the program
// made it (os.File.Fd would put it into blocking mode).
func TestProbeStateKeepsNonBlocking(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	nonblocking := func() bool {
		raw, err := r.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var flags uintptr
		raw.Control(func(fd uintptr) {
			flags, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		})
		return flags&syscall.O_NONBLOCK != 0
	}
	if !nonblocking() {
		t.Skip("os.Pipe made a blocking pipe")
	}
	if got, _ := probeState(r); got != ProbeOpen {
		t.Fatalf("probeState = %q, want %q", got, ProbeOpen)
	}
	if !nonblocking() {
		t.Error("after the probe, the pipe is in blocking mode")
	}
}
