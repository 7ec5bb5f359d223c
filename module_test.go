package atomicx

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGoModTidy checks that go mod tidy would change neither go.mod nor
// go.sum: no requirement missing or unused, none marked indirect that is
// direct, no go line raised by a dependency. It runs offline, from the
// module cache that building the tests filled; where that cache lacks a
// module that only tidy needs (a dependency of a dependency's tests on
// another platform), it skips.
func TestGoModTidy(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	// Read by the test process itself, so that go test's cache knows that
	// the result depends on them.
	for _, name := range []string{"go.mod", "go.sum"} {
		if _, err := os.ReadFile(name); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "mod", "tidy", "-diff")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case err == nil:
	case stdout.Len() > 0:
		t.Errorf("go mod tidy would change the module files; run go mod tidy and commit the result:\n%s", stdout.Bytes())
	case strings.Contains(stderr.String(), "GOPROXY=off"):
		t.Skipf("go mod tidy needs modules that are not in the module cache, and this test does not download:\n%s", stderr.Bytes())
	default:
		t.Fatalf("go mod tidy -diff: %v\n%s", err, stderr.Bytes())
	}
}
