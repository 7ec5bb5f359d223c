package rt

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// armPath is the import path of the arming contract, the one package
// outside the standard library that the runtime may import: the nested
// build of the runtime carries it along (see internal/gobuild).
const armPath = "github.com/atomicx/atomicx/rt/arm"

// TestImports: the runtime is compiled into users' programs, so rt
// imports the standard library and arm only, and arm the standard
// library only, on every platform (build tags are not looked at).
func TestImports(t *testing.T) {
	for _, tt := range []struct {
		dir     string
		allowed map[string]bool
	}{
		{".", map[string]bool{armPath: true}},
		{"arm", nil},
	} {
		names, err := filepath.Glob(filepath.Join(tt.dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			seen++
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if first, _, _ := strings.Cut(path, "/"); !strings.Contains(first, ".") || tt.allowed[path] {
					continue
				}
				t.Errorf("%s imports %s: the runtime may import only the standard library and %s", name, path, armPath)
			}
		}
		if seen == 0 {
			t.Fatalf("no Go files in %s", tt.dir)
		}
	}
}
