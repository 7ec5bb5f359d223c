package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGoldenKeepsLiteralNames checks that the rewrite leaves the names
// the compiler gives the user's function literals as they are: the
// compiler numbers the literals of a function in the order they appear
// (F.func1, F.func2, nested F.func1.1), and those of package-level
// initializers across the package (glob..func1), so a literal the rewrite
// adds before one of the user's would rename it in stack traces, in
// runtime.FuncForPC and in the site table. Every function of the
// original, and its twin when it has one, must have in the rewrite the
// literals it has in the original, in the same tree, and no other.
func TestGoldenKeepsLiteralNames(t *testing.T) {
	for _, golden := range goldenFiles(t) {
		t.Run(filepath.Base(golden), func(t *testing.T) {
			in := strings.TrimSuffix(golden, ".golden") + ".go"
			orig, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			rewritten, _ := goldenParts(t, golden)
			fset := token.NewFileSet()
			want := literalNames(parseOrFatal(t, fset, in, string(orig)))
			got := literalNames(parseOrFatal(t, fset, in, rewritten))
			for fn, names := range want {
				if diff := cmp.Diff(names, got[fn]); diff != "" {
					t.Errorf("%s: the rewrite changes the names of the function literals (-original +rewrite):\n%s", fn, diff)
				}
				if twin, ok := got[twinKey(fn)]; ok {
					if diff := cmp.Diff(names, twin); diff != "" {
						t.Errorf("%s: its twin's function literals are not the function's (-original +twin):\n%s", fn, diff)
					}
				}
			}
		})
	}
}

// literalNames returns, for each function declared in f (by receiver and
// name) and for the package-level initializers ("glob."), the names the
// compiler gives the function literals in it, relative to it: func1,
// func1.1, func2…
func literalNames(f *ast.File) map[string][]string {
	names := map[string][]string{}
	var walk func(key, prefix string, n ast.Node)
	walk = func(key, prefix string, n ast.Node) {
		count := 0
		ast.Inspect(n, func(m ast.Node) bool {
			lit, ok := m.(*ast.FuncLit)
			if !ok {
				return true
			}
			count++
			name := fmt.Sprintf("%s%d", prefix, count)
			names[key] = append(names[key], name)
			walk(key, name+".", lit.Body)
			return false
		})
	}
	var globals []ast.Node
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			key := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				key = "(" + types.ExprString(d.Recv.List[0].Type) + ")." + key
			}
			names[key] = nil
			walk(key, "func", d.Body)
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				globals = append(globals, d)
			}
		}
	}
	// The literals of package-level initializers are numbered across
	// them, in the order of the file.
	names["glob."] = nil
	walk("glob.", "func", &ast.File{Decls: declsOf(globals)})
	return names
}

func declsOf(nodes []ast.Node) []ast.Decl {
	var ds []ast.Decl
	for _, n := range nodes {
		ds = append(ds, n.(ast.Decl))
	}
	return ds
}

// twinKey is the key of a function's twin in literalNames.
func twinKey(fn string) string {
	if i := strings.LastIndex(fn, "."); i >= 0 && strings.HasPrefix(fn, "(") {
		return fn[:i+1] + twinPrefix + fn[i+1:]
	}
	return twinPrefix + fn
}
