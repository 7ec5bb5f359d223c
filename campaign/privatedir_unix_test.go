//go:build unix

package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunInPrivateCopy checks that a program workload's script and its
// oracle run in the slot's copy of the directory the campaign runs in,
// that a run does not see the last run's files, that nothing reaches the
// module, and that what a run writes into the copy counts against the
// disk it may fill.
func TestRunInPrivateCopy(t *testing.T) {
	defer func(n int64) { maxRunDisk = n }(maxRunDisk)
	maxRunDisk = 1 << 20
	for _, tc := range []struct {
		name, script, oracle string
		want                 []string // the statuses of two runs in a row
	}{
		{"the module's files, no leftovers", "test -f go.mod && test ! -e out && echo x > out", "", []string{Passed, Passed}},
		{"the oracle sees the script's files", "echo x > out", "test -f out", []string{Passed, Passed}},
		{"writes into the copy count", "head -c 2097152 /dev/zero > big; sleep 10", "", []string{Crashed, Crashed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, journal := t.TempDir(), t.TempDir()
			writeTree(t, root, map[string]string{"go.mod": "module m\n", "cmd/app/main.go": "package main\n"})
			script := filepath.Join(t.TempDir(), "drive.sh")
			must(t, os.WriteFile(script, []byte("#!/bin/sh\n"+tc.script+"\n"), 0o777))
			cfg := Config{Exec: script, Dir: root, Journal: journal, Timeout: 5 * time.Second}
			if tc.oracle != "" {
				cfg.Oracle = filepath.Join(t.TempDir(), "oracle.sh")
				must(t, os.WriteFile(cfg.Oracle, []byte("#!/bin/sh\n"+tc.oracle+"\n"), 0o777))
			}
			c := &runner{cfg: cfg}
			defer c.removeSlots()
			slot := c.slots.take()
			for i, want := range tc.want {
				rec := &Record{Kind: "experiment"}
				c.runTest(context.Background(), slot, &Package{Binary: "/bin/true", Dir: filepath.Join(root, "cmd", "app")}, "", nil, rec)
				if rec.Status != want {
					t.Errorf("run %d: status %q, want %q (output %q)", i, rec.Status, want, rec.Output)
				}
				if want == Crashed && !strings.Contains(rec.Output, "copy of the module") {
					t.Errorf("run %d: output %q does not say why it was stopped", i, rec.Output)
				}
			}
			for _, name := range []string{"out", "big"} {
				if _, err := os.Stat(filepath.Join(root, name)); err == nil {
					t.Errorf("the run wrote %s into the module", name)
				}
			}
		})
	}
}
