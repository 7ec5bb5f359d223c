package gobuild

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/atomicx/atomicx"
)

func TestRewriteImports(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{
			name: "arm",
			src:  "package rt\n\nimport (\n\t\"os\"\n\n\t\"github.com/atomicx/atomicx/rt/arm\"\n)\n\nvar _ = arm.EnvLog // \"github.com/atomicx/atomicx/rt/arm\"\n",
			want: "package rt\n\nimport (\n\t\"os\"\n\n\t\"atomicx/rt/arm\"\n)\n\nvar _ = arm.EnvLog // \"github.com/atomicx/atomicx/rt/arm\"\n",
		},
		{
			name: "one import, named",
			src:  "package rt\n\nimport a \"github.com/atomicx/atomicx/rt/arm\"\n",
			want: "package rt\n\nimport a \"atomicx/rt/arm\"\n",
		},
		{
			name: "raw string",
			src:  "package rt\n\nimport `github.com/atomicx/atomicx/rt/arm`\n",
			want: "package rt\n\nimport \"atomicx/rt/arm\"\n",
		},
		{
			name: "another module's rt, and a longer name",
			src:  "package rt\n\nimport (\n\t\"example.com/rt/arm\"\n\t\"github.com/atomicx/atomicx/rtx\"\n)\n",
			want: "package rt\n\nimport (\n\t\"example.com/rt/arm\"\n\t\"github.com/atomicx/atomicx/rtx\"\n)\n",
		},
		{
			name: "std only",
			src:  "package arm\n\nimport \"strings\"\n",
			want: "package arm\n\nimport \"strings\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rewriteImports("f.go", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if bytes.Count(got, []byte("\n")) != strings.Count(tt.src, "\n") {
				t.Errorf("the line count changed")
			}
		})
	}
	if _, err := rewriteImports("f.go", []byte("package rt\n\nimport (\n")); err == nil {
		t.Error("no error for a file that does not parse")
	}
}

// TestWriteSource: the runtime's source is written as a module with its
// packages where their import paths say, tests left out.
func TestWriteSource(t *testing.T) {
	rb := Runtime{
		Source: fstest.MapFS{
			"rt/rt.go":           {Data: []byte("package rt\n\nimport \"github.com/atomicx/atomicx/rt/arm\"\n\nvar _ = arm.X\n")},
			"rt/rt_test.go":      {Data: []byte("package rt\n")},
			"rt/arm/arm.go":      {Data: []byte("package arm\n\nconst X = 1\n")},
			"rt/arm/arm_test.go": {Data: []byte("package arm\n")},
		},
		Cache: t.TempDir(),
	}
	os.MkdirAll(filepath.Join(rb.Cache, "rt"), 0o777) // as Ensure does
	src, err := rb.writeSource()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(src, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	want := []string{".complete", "go.mod", "rt/arm/arm.go", "rt/rt.go"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("wrote %q, want %q", files, want)
	}
	if b, _ := os.ReadFile(filepath.Join(src, "rt", "rt.go")); !bytes.Contains(b, []byte(`import "atomicx/rt/arm"`)) {
		t.Errorf("rt.go imports arm under its source path:\n%s", b)
	}

	empty := Runtime{Source: fstest.MapFS{"rt/doc.txt": {}}, Cache: rb.Cache}
	if _, err := empty.writeSource(); err == nil {
		t.Error("no error for a source without Go files")
	}
}

// TestRuntimeKeySubpackage: the key of a runtime build changes with the
// source of the arming contract, not only with rt's.
func TestRuntimeKeySubpackage(t *testing.T) {
	src := fstest.MapFS{
		"rt/rt.go":      {Data: []byte("package rt\n")},
		"rt/arm/arm.go": {Data: []byte("package arm\n\nconst X = 1\n")},
	}
	rb := Runtime{Source: src, GOROOT: t.TempDir()}
	k1, err := rb.key()
	if err != nil {
		t.Fatal(err)
	}
	src["rt/arm/arm.go"] = &fstest.MapFile{Data: []byte("package arm\n\nconst X = 2\n")}
	if k2, _ := rb.key(); k2 == k1 {
		t.Errorf("key %s did not change with rt/arm's source", k1)
	}
}

// TestBuildRuntimeSource builds the runtime that atomicx carries: its
// archives are rt's and arm's, under the paths instrumented code and
// the link see.
func TestBuildRuntimeSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the runtime with the go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	_, goroot, err := goToolEnv(context.Background(), t.TempDir(), os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	rb := Runtime{Source: atomicx.RuntimeSource, GOROOT: goroot, Cache: t.TempDir(), Env: append(os.Environ(), "GOFLAGS=")}
	a, err := rb.Ensure()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{RuntimeImportPath, RuntimeImportPath + "/arm"} {
		if a[path] == "" {
			t.Errorf("no archive for %s in %v", path, a)
		}
	}
	if _, ok := a[sourceRuntime+"/arm"]; ok {
		t.Errorf("the runtime was built against arm under its source path: %v", a)
	}
}
