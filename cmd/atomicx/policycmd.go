package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	"github.com/atomicx/atomicx/internal/funcname"
	"github.com/atomicx/atomicx/policy"
)

func policyCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "suggest" {
		return policySuggestCmd(args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintf(stderr, "usage: atomicx policy check [packages]\n       atomicx policy suggest [journal-or-report]\n")
		return 2
	}
	fs := flag.NewFlagSet("policy check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	return policyCheck(fs.Args(), stdout, stderr)
}

// listedPackage is what policy check needs of `go list -json`.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	DepOnly    bool
	GoFiles    []string
	CgoFiles   []string
	Error      *struct{ Err string }
}

// policyCheck prints the effective mode of the named packages and of the
// dependencies the policy instruments, and the patterns that match
// nothing. It exits 1 on a bad policy or an unused pattern.
func policyCheck(patterns []string, stdout, stderr io.Writer) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	path, err := policy.Find(wd, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	if path == "" {
		fmt.Fprintf(stdout, "no atomicheck.toml applies here (looked from %s up to the module root): nothing is instrumented\n", wd)
		return 0
	}
	pol, err := policy.Load(path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	pkgs, err := goList(patterns)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "policy %s (hash %s)\n", relPath(wd, pol.Path), pol.Hash()[:16])
	funcs := map[string][]string{}
	structs := map[string]map[string][]string{}
	for _, p := range pkgs {
		m := pol.ForPackage(p.ImportPath, p.Standard)
		if p.DepOnly && m.Mode == policy.Off {
			continue
		}
		if p.Error != nil {
			fmt.Fprintf(stderr, "atomicx: package %s: %s\n", p.ImportPath, p.Error.Err)
		}
		funcs[p.ImportPath] = packageFuncs(p)
		if m.Rule != nil && len(m.Rule.Scratch) > 0 {
			structs[p.ImportPath] = packageStructs(p)
		}
		where := "no rule"
		if m.Rule != nil {
			where = "rule at " + relPos(wd, m.Rule.Pos)
		}
		fmt.Fprintf(stdout, "%-7s %s  (%s%s)\n", m.Mode, p.ImportPath, where, optionSummary(m))
	}
	// The packages that never_fail and error_constructors name, left
	// alone or not.
	declared := map[string][]string{}
	for _, path := range pol.DeclaredPackages() {
		for _, p := range pkgs {
			if p.ImportPath == path {
				declared[path] = packageFuncs(p)
			}
		}
	}
	// The packages that success_errors name, for their variables.
	vars := map[string][]string{}
	for _, path := range pol.SuccessErrorPackages() {
		for _, p := range pkgs {
			if p.ImportPath == path {
				vars[path] = packageVars(p)
			}
		}
	}
	code := 0
	for _, w := range pol.Unused(funcs) {
		fmt.Fprintf(stderr, "%s\n", w)
		code = 1
	}
	for _, w := range pol.UnusedDeclared(declared) {
		fmt.Fprintf(stderr, "%s\n", w)
		code = 1
	}
	for _, w := range pol.UnknownScratch(structs) {
		fmt.Fprintf(stderr, "%s\n", w)
		code = 1
	}
	for _, w := range pol.UnusedSuccessErrors(vars) {
		fmt.Fprintf(stderr, "%s\n", w)
		code = 1
	}
	return code
}

// packageVars returns the names of a package's package-level variables.
func packageVars(p listedPackage) []string {
	var names []string
	fset := token.NewFileSet()
	for _, f := range append(append([]string(nil), p.GoFiles...), p.CgoFiles...) {
		af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if id.Name != "_" {
						names = append(names, id.Name)
					}
				}
			}
		}
	}
	return names
}

// packageStructs returns the struct types a package declares, with the
// names of their fields (an embedded field by its type's name).
func packageStructs(p listedPackage) map[string][]string {
	structs := map[string][]string{}
	fset := token.NewFileSet()
	for _, f := range append(append([]string(nil), p.GoFiles...), p.CgoFiles...) {
		af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		ast.Inspect(af, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			fields := []string{}
			for _, fl := range st.Fields.List {
				for _, id := range fl.Names {
					fields = append(fields, id.Name)
				}
				if len(fl.Names) == 0 {
					fields = append(fields, embeddedName(fl.Type))
				}
			}
			structs[ts.Name.Name] = append(structs[ts.Name.Name], fields...)
			return true
		})
	}
	return structs
}

// embeddedName is the field name of an embedded type: T, *T, pkg.T, T[X].
func embeddedName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.SelectorExpr:
			return t.Sel.Name
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

func optionSummary(m policy.Match) string {
	if m.Mode == policy.Off {
		return ""
	}
	s := ""
	if m.Options.Panics {
		s += ", panics"
	}
	if m.Options.Globals {
		s += ", globals"
	}
	if m.Options.OnTypeCheckFailure != policy.TypeCheckFailureByMode {
		s += ", on_type_check_failure=" + m.Options.OnTypeCheckFailure.String()
	}
	return s
}

// goList lists the packages matched by patterns and their dependencies.
func goList(patterns []string) ([]listedPackage, error) {
	args := append([]string{"list", "-e", "-deps", "-json=ImportPath,Dir,Standard,DepOnly,GoFiles,CgoFiles,Error", "--"}, patterns...)
	cmd := exec.Command("go", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(&stdout)
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	sort.SliceStable(pkgs, func(i, j int) bool { return pkgs[i].ImportPath < pkgs[j].ImportPath })
	return pkgs, nil
}

// packageFuncs returns the functions a package declares, by name.
func packageFuncs(p listedPackage) []string {
	var files []*ast.File
	fset := token.NewFileSet()
	for _, f := range append(append([]string(nil), p.GoFiles...), p.CgoFiles...) {
		af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		files = append(files, af)
	}
	aliases := funcname.LocalAliases(files)
	var names []string
	for _, af := range files {
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				names = append(names, funcname.Decl(fd, aliases))
			}
		}
	}
	for _, lit := range funcname.Literals(files, nil) {
		names = append(names, lit.Name)
	}
	return names
}

func relPath(wd, path string) string {
	if r, err := filepath.Rel(wd, path); err == nil && !filepath.IsAbs(r) && len(r) < len(path) {
		return r
	}
	return path
}

func relPos(wd string, pos policy.Position) string {
	pos.File = relPath(wd, pos.File)
	return pos.String()
}
