package instrument

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the tests a temporary directory of their own, removed at
// the end. The tests type-check with the source importer, which runs cgo
// on the standard library's cgo packages (net, os/user) in a directory of
// os.TempDir; cgo (Go 1.26) writes some of its object files beside that
// directory rather than in it, and nothing removes them: every run of the
// tests would leave a score of files in the system's temporary directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "atomicx-instrument-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("TMPDIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
