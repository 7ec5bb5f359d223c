package gocmd

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomicx/atomicx/policy"
	"github.com/google/go-cmp/cmp"
)

// TestArgs checks where the keys go on the command line, and that each
// carries the flags that the user's -gcflags values (GOFLAGS first, then
// the command line; the last that matches wins) give its package.
func TestArgs(t *testing.T) {
	k := &Keys{
		cfg:  Config{Atomicx: "/bin/at x/atomicx", Env: []string{"GOFLAGS=-gcflags=all=-dwarf=false -mod=mod"}},
		dir:  "/w/m",
		keys: map[string]string{"m/a": "k1", "m/b": "k2", "m/c": "k3"},
		pkgs: map[string]*pkgInfo{
			"m/a": {ImportPath: "m/a", Dir: "/w/m/a"},
			"m/b": {ImportPath: "m/b", Dir: "/w/m/b", DepOnly: true},
			"m/c": {ImportPath: "m/c", Dir: "/w/m/c", DepOnly: true},
		},
		listed: []string{"./a"},
	}
	cl, err := parseCmdLine([]string{"test", "-gcflags=-N -l", "-gcflags", "m/c=-m", "./a", "-run", "X"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.args(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"test", "-toolexec='/bin/at x/atomicx'",
		"-gcflags=-N -l", "-gcflags=m/c=-m",
		"-gcflags=m/a=-N -l -atomicx=k1",        // named on the command line
		"-gcflags=m/b=-dwarf=false -atomicx=k2", // a dependency: GOFLAGS' all=
		"-gcflags=m/c=-m -atomicx=k3",           // its own pattern
		"./a", "-run", "X"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}

// TestArgsByImportPath: a command line that names listed packages by
// import path needs no go list to tell which packages a -gcflags value
// without a pattern applies to (the environment makes every go list
// fail).
func TestArgsByImportPath(t *testing.T) {
	k := &Keys{
		cfg:  Config{Atomicx: "/bin/atomicx", Env: []string{"GOFLAGS=-mod=nonsense"}},
		dir:  t.TempDir(),
		keys: map[string]string{"m/a": "k1", "m/b": "k2"},
		pkgs: map[string]*pkgInfo{
			"m/a": {ImportPath: "m/a"},
			"m/b": {ImportPath: "m/b", DepOnly: true},
		},
		listed: []string{"./..."},
	}
	cl, err := parseCmdLine([]string{"test", "-c", "-gcflags=-N", "-o", "x.test", "m/b"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.args(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"test", "-toolexec=/bin/atomicx", "-gcflags=-N",
		"-gcflags=m/a=-atomicx=k1",    // not named: the pattern-less value is not its
		"-gcflags=m/b=-N -atomicx=k2", // named by its import path
		"-c", "-o", "x.test", "m/b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}

// TestDeclaredFuncs: the functions of a package are named as function
// patterns match them, methods through aliases by the type they denote;
// a file that does not parse leaves them unknown.
func TestDeclaredFuncs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package a\n\ntype T struct{}\n\ntype A = T\n\ntype S[E any] struct{}\n\nfunc F() {}\n\nfunc (*T) M() {}\n\nfunc (A) N() {}\n\nfunc (s *S[E]) Push(E) {}\n\nfunc Map[K comparable](K) {}\n")
	write("b.go", "package a\n\nfunc init() {}\n")
	write("bad.go", "package a\n\nfunc {")
	got := declaredFuncs(&pkgInfo{Dir: dir, GoFiles: []string{"a.go", "b.go"}})
	want := policy.Funcs{"F": true, "(*T).M": true, "T.N": true, "(*S).Push": true, "Map": true, "init": true}
	if !maps.Equal(got, want) {
		t.Errorf("declaredFuncs = %v, want %v", got, want)
	}
	if got := declaredFuncs(&pkgInfo{Dir: dir, GoFiles: []string{"a.go", "bad.go"}}); got != nil {
		t.Errorf("with a file that does not parse: %v, want nil", got)
	}
}
