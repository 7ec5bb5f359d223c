package funcname

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRuntimeNames compiles and runs testdata/runtimenames, a module
// whose path and one of whose package directories have dotted last
// elements, with methods on aliases and generic types, and checks that
// the names computed from its source (with type information, and from
// the syntax alone) are those runtime.FuncForPC gives.
func TestRuntimeNames(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/runtimenames")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "go.mod.txt"), filepath.Join(dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "./cmd/probe")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	got := strings.Fields(string(out))
	slices.Sort(got)
	got = slices.Compact(got) // generic functions run once per instantiation

	var want []string
	fset := token.NewFileSet()
	checked := map[string]*types.Package{}
	imp := importerFunc(func(path string) (*types.Package, error) {
		if p := checked[path]; p != nil {
			return p, nil
		}
		return importer.Default().Import(path)
	})
	for _, pkg := range []struct{ path, dir string }{
		{"example.com/x.v2", "."},
		{"example.com/x.v2/yaml.v3", "yaml.v3"},
		{"main", "cmd/probe"},
	} {
		files := parseDir(t, fset, filepath.Join(dir, pkg.dir))
		info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp}
		tp, err := conf.Check(pkg.path, fset, files, info)
		if err != nil {
			t.Fatalf("type-checking %s: %v", pkg.path, err)
		}
		checked[pkg.path] = tp
		aliases := LocalAliases(files)
		for _, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || !recordsItself(fd) {
					continue
				}
				name := Join(pkg.path, Relative(info.Defs[fd.Name].(*types.Func)))
				if fromSyntax := Join(pkg.path, Decl(fd, aliases)); fromSyntax != name {
					t.Errorf("%s: Decl gives %q, Relative %q", fset.Position(fd.Pos()), fromSyntax, name)
				}
				want = append(want, name)
			}
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("runtime names:\n\t%s\ncomputed from the source:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// recordsItself reports whether fd's body is "x.Record()" or "Record()":
// a function whose runtime name the probe prints.
func recordsItself(fd *ast.FuncDecl) bool {
	if fd.Body == nil || len(fd.Body.List) != 1 {
		return false
	}
	es, ok := fd.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name == "Record"
	case *ast.SelectorExpr:
		return f.Sel.Name == "Record"
	}
	return false
}

func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
