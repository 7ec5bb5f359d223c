package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoVet runs the real go vet with this command as its -vettool: the
// finding reaches go vet's output and its exit status.
func TestGoVet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the vet tool and runs go vet; skipped in -short mode")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	tool := filepath.Join(dir, "atomicx-vet")
	if out, err := exec.Command(goBin, "build", "-o", tool, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mod := filepath.Join(dir, "m")
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"m.go": `package m

import (
	"errors"
	"os"
)

func load(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	if _, err := f.Stat(); err != nil {
		return errors.New("stat")
	}
	return f.Close()
}

func classic(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Stat()
	return err
}
`,
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "vet", "-vettool="+tool, "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local", "ATOMICX_POLICY=off")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("go vet exited %d (%v), want 1:\n%s", code, err, out)
	}
	want := "m.go:9:19: file from os.Open is not released (Close) on the path to the return at line 14; branches at lines 10 (false), 13 (true)"
	if !strings.Contains(string(out), want) {
		t.Errorf("go vet output lacks %q:\n%s", want, out)
	}
	if strings.Count(string(out), "is not released") != 1 {
		t.Errorf("want exactly one finding (the classic pattern is not one):\n%s", out)
	}
}
