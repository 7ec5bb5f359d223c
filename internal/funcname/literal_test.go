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

// TestLiteralRuntimeNames compiles and runs testdata/literalnames with
// inlining off, as instrumented code is compiled for literals (an
// instrumented function defers a call, which the compiler never
// inlines), and checks that Literals names every literal that records
// itself as runtime.FuncForPC does.
func TestLiteralRuntimeNames(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/literalnames")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "go.mod.txt"), filepath.Join(dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "-gcflags=all=-l", "./cmd/probe")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	got := strings.Fields(string(out))
	slices.Sort(got)
	got = slices.Compact(got) // generic literals run once per instantiation

	fset := token.NewFileSet()
	files := parseDir(t, fset, dir)
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importer.Default()}
	if _, err := conf.Check("example.com/lits", fset, files, info); err != nil {
		t.Fatal(err)
	}
	var want []string
	for lit, name := range Literals(files, info) {
		if recordsFirst(lit) {
			want = append(want, Join("example.com/lits", name.Name))
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("runtime names:\n\t%s\ncomputed from the source:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// recordsFirst reports whether a literal's body opens with Record().
func recordsFirst(lit *ast.FuncLit) bool {
	if len(lit.Body.List) == 0 {
		return false
	}
	es, ok := lit.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	return ok && id.Name == "Record"
}

func TestLiteralIn(t *testing.T) {
	src := `package p

var save, other = func() {}, func() int { return 1 }()

func (s *S) M() { _ = func() { _ = func() {} } }

type S struct{}

func init() { _ = func() {} }
`
	fset := token.NewFileSet()
	f := parseSource(t, fset, src)
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	want := []string{"(*S).M.func1 in (*S).M", "(*S).M.func1.1 in (*S).M", "init.0.func1 in init.0", "init.func1 in save", "init.func2 in other"}
	for _, info := range []*types.Info{info, nil} {
		var got []string
		for _, l := range Literals([]*ast.File{f}, info) {
			got = append(got, l.Name+" in "+l.In)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("with info %v: got %q, want %q", info != nil, got, want)
		}
	}
}

func TestEnclosing(t *testing.T) {
	tests := []struct {
		rel, enclosing string
		enclosers      []string
	}{
		{"Outer.func1", "Outer", []string{"Outer"}},
		{"Outer.func2.1", "Outer", []string{"Outer.func2", "Outer"}},
		{"(*T).M.func2.1.3", "(*T).M", []string{"(*T).M.func2.1", "(*T).M.func2", "(*T).M"}},
		{"(*Stack[...]).Push.func1", "(*Stack[...]).Push", []string{"(*Stack[...]).Push"}},
		{"(*Stack[go.shape.int]).Push.func1", "(*Stack[go.shape.int]).Push", []string{"(*Stack[go.shape.int]).Push"}},
		{"Map[...].func1", "Map[...]", []string{"Map[...]"}},
		{"init.func3", "init", []string{"init"}},
		{"init.0.func1", "init.0", []string{"init.0"}},
		{"init.1.func2.1", "init.1", []string{"init.1.func2", "init.1"}},
		{"Outer", "", nil},
		{"(*T).M", "", nil},
		{"T.function", "", nil},
		{"T.func", "", nil},
		{"Outer.1", "", nil},
		{"Outer.func1x", "", nil},
	}
	for _, tt := range tests {
		got, ok := Enclosing(tt.rel)
		if got != tt.enclosing || ok != (tt.enclosing != "") {
			t.Errorf("Enclosing(%q) = %q, %t; want %q", tt.rel, got, ok, tt.enclosing)
		}
		if got := Enclosers(tt.rel); !slices.Equal(got, tt.enclosers) {
			t.Errorf("Enclosers(%q) = %q, want %q", tt.rel, got, tt.enclosers)
		}
	}
}

func parseSource(t *testing.T, fset *token.FileSet, src string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
