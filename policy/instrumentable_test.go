package policy

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRuntimeDepsNotInstrumentable checks runtimeDeps against the
// dependencies of the runtime's source as the go command lists them, on
// the platforms whose standard library imports differ: a dependency left
// out would be instrumented, import the runtime, and break the build with
// an import cycle.
func TestRuntimeDepsNotInstrumentable(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	platforms := []struct {
		goos, goarch string
		flags        []string
	}{
		{"linux", "amd64", nil},
		{"linux", "amd64", []string{"-race"}},
		{"linux", "arm64", []string{"-asan"}},
		{"darwin", "arm64", nil},
		{"windows", "amd64", nil},
		{"freebsd", "amd64", nil},
		{"plan9", "amd64", nil},
		{"js", "wasm", nil},
		{"wasip1", "wasm", nil},
	}
	for _, p := range platforms {
		args := append([]string{"list", "-deps", "-f", "{{if .Standard}}{{.ImportPath}}{{end}}"}, p.flags...)
		args = append(args, "github.com/atomicx/atomicx/rt")
		cmd := exec.Command("go", args...)
		cmd.Env = append(cmd.Environ(), "GOOS="+p.goos, "GOARCH="+p.goarch, "CGO_ENABLED=1", "GOFLAGS=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s GOARCH=%s go %s: %v\n%s", p.goos, p.goarch, strings.Join(args, " "), err, stderrOf(err))
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("GOOS=%s GOARCH=%s: go list found only %q", p.goos, p.goarch, deps)
		}
		for _, dep := range deps {
			if Instrumentable(dep, true) {
				t.Errorf("GOOS=%s GOARCH=%s %s: the runtime depends on %s, but Instrumentable says it may be rewritten: add it to runtimeDeps",
					p.goos, p.goarch, strings.Join(p.flags, " "), dep)
			}
		}
	}
}

// TestInstrumentableStdLeaves covers entries that only some platforms'
// runtimes depend on.
func TestInstrumentableStdLeaves(t *testing.T) {
	for _, path := range []string{"structs", "syscall/js", "syscall", "sort", "path/filepath"} {
		if Instrumentable(path, true) {
			t.Errorf("Instrumentable(%q) = true, want false", path)
		}
	}
}

func stderrOf(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}

// TestOwnPolicyLeavesRuntimeAlone: atomicx's own policy, which detects in
// the whole module, leaves the runtime and its arming contract as
// written, under their source paths as under the paths they are built
// under.
func TestOwnPolicyLeavesRuntimeAlone(t *testing.T) {
	p, err := Load("../atomicheck.toml")
	if err != nil {
		t.Fatal(err)
	}
	if m := p.ForPackage("github.com/atomicx/atomicx/campaign", false); m.Mode != Detect {
		t.Fatalf("the campaign package is %v, want detect: the policy no longer detects in the module", m.Mode)
	}
	for _, path := range []string{
		"github.com/atomicx/atomicx/rt", "github.com/atomicx/atomicx/rt/arm",
		"atomicx/rt", "atomicx/rt/arm",
	} {
		if m := p.ForPackage(path, false); m.Mode != Off {
			t.Errorf("%s is %v, want off", path, m.Mode)
		}
	}
}
