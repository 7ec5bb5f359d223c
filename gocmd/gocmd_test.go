package gocmd

import (
	"context"
	"testing"

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
