package gobuild

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func TestAbsPGOFlag(t *testing.T) {
	in := []string{"-race", "-pgo=cpu.pprof", "-pgo=auto", "-pgo=off", "-pgo=/abs/p.pprof", "-tags=x"}
	want := []string{"-race", "-pgo=" + filepath.Join("/work/m", "cpu.pprof"), "-pgo=auto", "-pgo=off", "-pgo=/abs/p.pprof", "-tags=x"}
	if got := absPGOFlag(in, "/work/m"); !reflect.DeepEqual(got, want) {
		t.Errorf("absPGOFlag = %q, want %q", got, want)
	}
}

func TestGoPackageArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"build", "-o", "app", "."}, []string{"."}},
		{[]string{"-C", "sub", "build", "-pgo", "x.pprof", "./cmd/a", "./cmd/b"}, []string{"./cmd/a", "./cmd/b"}},
		{[]string{"test", "-run", "TestX", "-count=1", "./lib", "-args", "-v"}, []string{"./lib"}},
		{[]string{"run", ".", "arg1"}, []string{"."}},
		{[]string{"run", "a.go", "b.go", "arg1"}, []string{"a.go", "b.go", "arg1"}},
		{[]string{"build"}, nil},
	} {
		if got := goPackageArgs(tc.args); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("goPackageArgs(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestAutoPGOFile(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"cmd/a", "cmd/b", "lib"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"default.pgo", "cmd/a/default.pgo", "cmd/b/default.pgo"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("profile"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"build"}, "default.pgo"},
		{[]string{"build", "-o", "x", "."}, "default.pgo"},
		{[]string{"build", "./cmd/a"}, "cmd/a/default.pgo"},
		{[]string{"build", "./lib"}, ""},
		{[]string{"build", "./cmd/a", "./cmd/b"}, ""}, // two profiles: the go command forks
		{[]string{"build", "./..."}, ""},
		{[]string{"build", "example.com/m/cmd/a"}, ""},
		{[]string{"run", "./cmd/a/main.go"}, "cmd/a/default.pgo"},
	} {
		want := tc.want
		if want != "" {
			want = filepath.Join(dir, want)
		}
		if got := AutoPGOFile(tc.args, dir); got != want {
			t.Errorf("AutoPGOFile(%q) = %q, want %q", tc.args, got, want)
		}
	}
}

// TestRuntimeKeyProfileContent: a profile rewritten under the same name
// gives another runtime build.
func TestRuntimeKeyProfileContent(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	rb := Runtime{
		Source: fstest.MapFS{"rt.go": {Data: []byte("package rt\n")}},
		GOROOT: t.TempDir(),
		Flags:  []string{"-pgo=" + prof},
	}
	key := func() string {
		k, err := rb.key()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	os.WriteFile(prof, []byte("one"), 0o666)
	k1 := key()
	if k := key(); k != k1 {
		t.Fatalf("key not stable: %s, %s", k1, k)
	}
	os.WriteFile(prof, []byte("two"), 0o666)
	if k := key(); k == k1 {
		t.Errorf("key %s did not change with the profile's content", k)
	}
}

// TestRuntimeKeyBuildCache: a build with another go build cache gets a
// runtime build of its own, whose manifest names archives in that cache.
func TestRuntimeKeyBuildCache(t *testing.T) {
	rb := Runtime{
		Source: fstest.MapFS{"rt.go": {Data: []byte("package rt\n")}},
		GOROOT: t.TempDir(),
	}
	keys := map[string]string{}
	for _, env := range [][]string{
		{"HOME=/home/a"},
		{"HOME=/home/a", "GOCACHE=/tmp/c1"},
		{"HOME=/home/a", "GOCACHE=/tmp/c2"},
		{"HOME=/home/b"},
		{"HOME=/home/a", "XDG_CACHE_HOME=/tmp/x"},
	} {
		rb.Env = env
		k, err := rb.key()
		if err != nil {
			t.Fatal(err)
		}
		if other, ok := keys[k]; ok {
			t.Errorf("environments %q and %q give the same runtime key", other, strings.Join(env, " "))
		}
		keys[k] = strings.Join(env, " ")
	}
	// With GOCACHE set, where the default would be does not matter.
	rb.Env = []string{"HOME=/home/b", "GOCACHE=/tmp/c1"}
	if k, _ := rb.key(); keys[k] != "HOME=/home/a GOCACHE=/tmp/c1" {
		t.Errorf("GOCACHE=/tmp/c1 with another HOME gives another runtime key")
	}
}
