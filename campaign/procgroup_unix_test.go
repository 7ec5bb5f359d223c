//go:build unix

package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunKillsLeftovers checks that a program workload's processes do not
// outlive its run: neither a child left behind by a script that exited,
// nor the children of a script killed at the time limit.
func TestRunKillsLeftovers(t *testing.T) {
	for _, tc := range []struct {
		name, script, status string
	}{
		{"script exits", "sleep 300 >/dev/null 2>&1 &\necho $! > \"$PIDFILE\"\nexit 0\n", Passed},
		{"script hangs", "sleep 300 &\necho $! > \"$PIDFILE\"\nwait\n", Hung},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "drive.sh")
			if err := os.WriteFile(script, []byte("#!/bin/sh\n"+tc.script), 0o777); err != nil {
				t.Fatal(err)
			}
			pidFile := filepath.Join(dir, "pid")
			c := &runner{cfg: Config{Exec: script, Dir: dir, Journal: dir, Timeout: time.Second},
				extraEnv: []string{"PIDFILE=" + pidFile}}
			rec := &Record{Kind: "experiment"}
			defer c.removeSlots()
			c.runTest(context.Background(), c.slots.take(), &Package{Binary: "/bin/true", Dir: dir}, "", nil, rec)
			if rec.Status != tc.status {
				t.Errorf("status %q, want %q (output %q)", rec.Status, tc.status, rec.Output)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			// The child may take a moment to be reaped by init.
			deadline := time.Now().Add(5 * time.Second)
			for syscall.Kill(pid, 0) == nil {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("the workload's child %d outlived the run", pid)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
