package gocmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCmdLine(t *testing.T) {
	tests := []struct {
		args []string
		want cmdLine
	}{
		{[]string{"build", "-o", "app", "-tags=x,y", "./..."}, cmdLine{sub: "build",
			args: []string{"-o", "app", "-tags=x,y", "./..."}, pkgs: []string{"./..."}, listFlags: []string{"-tags=x,y"}}},
		{[]string{"-C", "sub", "test", "-gcflags", "all=-N -l", "-run", "X", "./p", "-count=1", "-race", "-args", "-v"}, cmdLine{sub: "test", chdir: "sub",
			gcflags: []string{"all=-N -l"}, args: []string{"-run", "X", "./p", "-count=1", "-race", "-args", "-v"},
			pkgs: []string{"./p"}, listFlags: []string{"-race"}}},
		{[]string{"test", "-C=sub", "--tags", "t", "-gcflags=-m", "p", "q"}, cmdLine{sub: "test", chdir: "sub",
			gcflags: []string{"-m"}, args: []string{"--tags", "t", "p", "q"}, pkgs: []string{"p", "q"}, listFlags: []string{"-tags=t"}}},
		{[]string{"run", "-race", "./cmd/app", "-gcflags", "arg"}, cmdLine{sub: "run",
			args: []string{"-race", "./cmd/app", "-gcflags", "arg"}, pkgs: []string{"./cmd/app"}, listFlags: []string{"-race"}}},
		{[]string{"run", "a.go", "b.go", "x", "y.go"}, cmdLine{sub: "run",
			args: []string{"a.go", "b.go", "x", "y.go"}, pkgs: []string{"a.go", "b.go"}}},
		{[]string{"build", "p", "-o", "x"}, cmdLine{sub: "build", args: []string{"p", "-o", "x"}, pkgs: []string{"p", "-o", "x"}}},
		{[]string{"build", "-n", "."}, cmdLine{sub: "build", args: []string{"-n", "."}, pkgs: []string{"."}, dryRun: true}},
		{[]string{"test", "-n=false", "."}, cmdLine{sub: "test", args: []string{"-n=false", "."}, pkgs: []string{"."}}},
	}
	for _, tt := range tests {
		got, err := parseCmdLine(tt.args)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(&tt.want, got, cmp.AllowUnexported(cmdLine{})); diff != "" {
			t.Errorf("%q: (-want +got)\n%s", tt.args, diff)
		}
	}
	for _, bad := range [][]string{{}, {"vet", "./..."}, {"build", "-toolexec", "x", "."}, {"test", "-run"}} {
		if _, err := parseCmdLine(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestQuoting(t *testing.T) {
	tests := []struct {
		args   []string
		joined string
	}{
		{[]string{"-N", "-l"}, "-N -l"},
		{[]string{"-D", "a b"}, "-D 'a b'"},
		{[]string{"it's", "x"}, `"it's" x`},
		{[]string{""}, "''"},
	}
	for _, tt := range tests {
		j, err := joinQuoted(tt.args)
		if err != nil || j != tt.joined {
			t.Errorf("joinQuoted(%q) = %q, %v; want %q", tt.args, j, err, tt.joined)
			continue
		}
		back, err := splitQuoted(j)
		if err != nil || !cmp.Equal(back, tt.args) {
			t.Errorf("splitQuoted(%q) = %q, %v; want %q", j, back, err, tt.args)
		}
	}
	if _, err := joinQuoted([]string{`a'"b`}); err == nil {
		t.Error("joinQuoted of both quotes: no error")
	}
	for _, bad := range []string{"'open", "'a'b"} {
		if _, err := splitQuoted(bad); err == nil {
			t.Errorf("splitQuoted(%q): no error", bad)
		}
	}
}

func TestMatchPackage(t *testing.T) {
	pkgs := map[string]*pkgInfo{
		"fmt":         {ImportPath: "fmt", Dir: "/goroot/src/fmt", Standard: true},
		"net/http":    {ImportPath: "net/http", Dir: "/goroot/src/net/http", Standard: true},
		"m/a":         {ImportPath: "m/a", Dir: "/w/m/a"},
		"m/a/b":       {ImportPath: "m/a/b", Dir: "/w/m/a/b"},
		"other.org/x": {ImportPath: "other.org/x", Dir: "/mod/x"},
	}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"all", []string{"fmt", "m/a", "m/a/b", "net/http", "other.org/x"}},
		{"std", []string{"fmt", "net/http"}},
		{"m/...", []string{"m/a", "m/a/b"}},
		{"m/a/...", []string{"m/a", "m/a/b"}},
		{"m/a", []string{"m/a"}},
		{"net/...", []string{"net/http"}},
		{"...", []string{"fmt", "m/a", "m/a/b", "net/http", "other.org/x"}},
		{"./...", []string{"m/a", "m/a/b"}},
		{".", nil},
		{"./a", []string{"m/a"}},
		{"./a/...", []string{"m/a", "m/a/b"}},
		{"../m/a/b", []string{"m/a/b"}},
	}
	for _, tt := range tests {
		match := matchPackage(tt.pattern, "/w/m")
		var got []string
		for _, path := range []string{"fmt", "m/a", "m/a/b", "net/http", "other.org/x"} {
			if match(pkgs[path], false) {
				got = append(got, path)
			}
		}
		if !cmp.Equal(got, tt.want) {
			t.Errorf("pattern %q matches %q, want %q", tt.pattern, got, tt.want)
		}
	}
}
