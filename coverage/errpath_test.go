package coverage

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestErrorPaths checks, for each snippet, which lines hold error-path
// statements: those marked "// ep" must, the others must not.
func TestErrorPaths(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"not nil", `
	err := f()
	if err != nil {
		return err // ep
	}
	return nil`},
		{"init and compound condition", `
	if err := f(); err != nil && true {
		println() // ep
		return err // ep
	}
	return nil`},
		{"nil on the left", `
	if err := f(); nil != err {
		return err // ep
	}
	return nil`},
		{"else of err == nil", `
	if err := f(); err == nil {
		println()
	} else {
		return err // ep
	}
	return nil`},
		{"err == nil without else", `
	if err := f(); err == nil {
		println()
	}
	return nil`},
		{"negated", `
	if err := f(); !(err == nil) {
		return err // ep
	}
	return nil`},
		{"errors.Is and errors.As arms", `
	err := f()
	var pe *myErr
	if errors.Is(err, errSentinel) {
		println() // ep
	} else if errors.As(err, &pe) {
		println() // ep
	}
	return nil`},
		{"switch case", `
	err := f()
	switch {
	case errors.Is(err, errSentinel):
		println() // ep
	case err != nil:
		return err // ep
	default:
		println()
	}
	return nil`},
		{"concrete error type", `
	var pe *myErr
	if pe != nil {
		return pe // ep
	}
	return nil`},
		{"not an error", `
	var p *int
	if p != nil {
		println()
	}
	return nil`},
		{"deferred literal", `
	defer func() {
		println() // ep
	}()
	defer println()
	return nil`},
		{"recover in the if", `
	defer func() {
		if r := recover(); r != nil { // ep: in the deferred literal
			println(r) // ep
		}
	}()
	return nil`},
		{"recover assigned before", `
	go func() {
		r := recover()
		if r != nil {
			println(r) // ep
		}
	}()
	return nil`},
		{"nested in an error check", `
	if err := f(); err != nil {
		for i := 0; i < 2; i++ { // ep: i := 0 and i++
			println(i) // ep
		}
	}
	return nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package p\n\nimport \"errors\"\n\nvar errSentinel = errors.New(\"s\")\n\n" +
				"type myErr struct{}\n\nfunc (*myErr) Error() string { return \"\" }\n\n" +
				"func f() error { return nil }\n\nfunc g() error {" + tt.body + "\n}\n"
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
			conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
			if _, err := conf.Check("p", fset, []*ast.File{file}, info); err != nil {
				t.Fatal(err)
			}
			regions := ErrorPaths(fset, file, info)
			var want []int
			for i, line := range strings.Split(src, "\n") {
				if strings.Contains(line, "// ep") {
					want = append(want, i+1)
				}
			}
			got := errorPathLines(fset, file, regions)
			if !slices.Equal(got, want) {
				t.Errorf("error-path lines %v, want %v", got, want)
			}
		})
	}
}

// errorPathLines lists the lines of the simple statements (no if, for,
// switch or block) that lie in a region, as a coverage block would.
func errorPathLines(fset *token.FileSet, file *ast.File, regions []Region) []int {
	seen := map[int]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.ExprStmt, *ast.ReturnStmt, *ast.AssignStmt, *ast.IncDecStmt:
		default:
			return true
		}
		s, e := fset.Position(n.Pos()), fset.Position(n.End())
		b := Block{Start: Position{s.Line, s.Column}, End: Position{e.Line, e.Column}}
		for _, r := range regions {
			if r.contains(b) {
				seen[s.Line] = true
			}
		}
		return true
	})
	var lines []int
	for l := range seen {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	return lines
}
