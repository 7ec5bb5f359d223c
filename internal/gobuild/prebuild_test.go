package gobuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// TestGoToolEnv: the environment a prebuild keys on is the go command's
// configuration, as its tools get it: set where the environment leaves a
// variable to the go command's defaults, the environment's where it sets
// one, and the C compiler's flags only when the environment sets them.
func TestGoToolEnv(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	goenv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for _, tc := range []struct {
		name string
		env  []string
		want map[string]string // "" for unset
	}{
		{"defaults", nil, map[string]string{
			"GOOS": goenv("GOOS"), "GOARCH": goenv("GOARCH"), "CGO_CFLAGS": "", "CGO_LDFLAGS": "",
		}},
		{"set", []string{"GOFLAGS=-tags=x", "CGO_CFLAGS=-O1", "GOCACHE=/tmp/c1"}, map[string]string{
			"GOFLAGS": "-tags=x", "CGO_CFLAGS": "-O1", "GOCACHE": "/tmp/c1", "CGO_LDFLAGS": "",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := append(append([]string{}, base...), tc.env...)
			got, goroot, err := goToolEnv(context.Background(), t.TempDir(), env)
			if err != nil {
				t.Fatal(err)
			}
			if want := goenv("GOROOT"); goroot != want {
				t.Errorf("GOROOT = %q, want %q", goroot, want)
			}
			for name, want := range tc.want {
				if v := lookupEnv(got, name); v != want {
					t.Errorf("%s = %q, want %q", name, v, want)
				}
			}
			if lookupEnv(got, "GOCACHE") == "" {
				t.Errorf("no GOCACHE: the go command gives its tools one")
			}
		})
	}
}

// TestPrebuild: a prebuild builds the runtime into the cache once, and
// leaves it alone while another process builds it or when the build's
// default.pgo may change it.
func TestPrebuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a package with the go command")
	}
	if runtime.GOOS != "linux" {
		t.Skip("no prebuild where a compile cannot read the go command's arguments")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	src := fstest.MapFS{"rt/rt.go": {Data: []byte("package rt\n\nfunc On() bool { return true }\n")}}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o666)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o666)
	build := func(cache string, goArgs ...string) []string {
		t.Helper()
		env := append(os.Environ(), "ATOMICX_CACHE="+cache, "GOFLAGS=")
		if err := Prebuild(context.Background(), src, goArgs, dir, env); err != nil {
			t.Fatal(err)
		}
		manifests, _ := filepath.Glob(filepath.Join(cache, "rt", "*", "manifest"))
		return manifests
	}

	cache := t.TempDir()
	m := build(cache, "build", ".")
	if len(m) != 1 {
		t.Fatalf("manifests after a prebuild: %q, want one", m)
	}
	a, err := readManifest(m[0])
	if err != nil || a[RuntimeImportPath] == "" {
		t.Fatalf("manifest %s: %v, %v", m[0], a, err)
	}
	// The key ignores the flags that change no std package.
	if m2 := build(cache, "build", "-o", "x", "./..."); len(m2) != 1 {
		t.Errorf("manifests after a second prebuild: %q, want the first", m2)
	}

	// Held by another build: no waiting, nothing built.
	// (The key does not depend on atomicx's cache: m[0]'s is this one's.)
	held := t.TempDir()
	keyDir := filepath.Join(held, "rt", filepath.Base(filepath.Dir(m[0])))
	if err := os.MkdirAll(keyDir, 0o777); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockFile(filepath.Join(keyDir, "lock"))
	if err != nil {
		t.Fatal(err)
	}
	if m := build(held, "build", "."); len(m) != 0 {
		t.Errorf("prebuild built %q while another build held the lock", m)
	}
	unlock()

	// A default.pgo in the main package's directory: the compiles decide.
	os.WriteFile(filepath.Join(dir, "default.pgo"), nil, 0o666)
	if m := build(t.TempDir(), "build", "."); len(m) != 0 {
		t.Errorf("prebuild built %q for a build that default.pgo may change", m)
	}
}
