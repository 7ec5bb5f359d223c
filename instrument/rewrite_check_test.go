package instrument

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Golden files whose rewrite is known to be wrong: the checks below skip
// them with this reason.
var knownBadRewrites = map[string]string{}

// goldenParts splits a golden file into the rewritten source file and the
// generated file ("" when nothing was instrumented), which holds the
// generated init file when there is one.
func goldenParts(t *testing.T, golden string) (rewritten, generated string) {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	rewritten, rest, ok := strings.Cut(string(data), "\n-- generated --\n")
	if !ok {
		t.Fatalf("%s: no -- generated -- section", golden)
	}
	generated, _, ok = strings.Cut(rest, "-- skipped --\n")
	if !ok {
		t.Fatalf("%s: no -- skipped -- section", golden)
	}
	return rewritten, generated
}

// generatedFiles splits the generated part of a golden file into the
// site table's file and the init file ("" when there is none).
func generatedFiles(generated string) (sites, init string) {
	sites, init, _ = strings.Cut(generated, "-- generated init --\n")
	return sites, init
}

func goldenFiles(t *testing.T) []string {
	t.Helper()
	goldens, err := filepath.Glob("testdata/rewrite/*.golden")
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	return goldens
}

// stubImporter imports the runtime's stub (testdata/rtstub) under the
// runtime path of testOptions, and everything else from source.
type stubImporter struct {
	std types.Importer
	rt  *types.Package
}

// loadStub type-checks testdata/rtstub as the runtime's import path,
// importing the standard library with std: the rewritten files that it
// checks must import the same, for its *os.File to be theirs.
func loadStub(fset *token.FileSet, std types.Importer) (*types.Package, error) {
	f, err := parser.ParseFile(fset, "testdata/rtstub/rt.go", nil, 0)
	if err != nil {
		return nil, err
	}
	conf := types.Config{Importer: std}
	return conf.Check(testOptions().RuntimePath, fset, []*ast.File{f}, nil)
}

func (s stubImporter) Import(path string) (*types.Package, error) {
	if path == testOptions().RuntimePath {
		return s.rt, nil
	}
	return s.std.Import(path)
}

// TestGoldenTypeChecks checks that every rewritten file, with the file the
// rewrite generates, is a package that parses and type-checks against
// the runtime's API.
func TestGoldenTypeChecks(t *testing.T) {
	fset := token.NewFileSet()
	std := importer.ForCompiler(fset, "source", nil)
	rt, err := loadStub(fset, std)
	if err != nil {
		t.Fatalf("runtime stub: %v", err)
	}
	imp := stubImporter{std: std, rt: rt}
	for _, golden := range goldenFiles(t) {
		t.Run(filepath.Base(golden), func(t *testing.T) {
			if reason := knownBadRewrites[filepath.Base(golden)]; reason != "" {
				t.Skip(reason)
			}
			rewritten, generated := goldenParts(t, golden)
			name := "/src/example.com/m/" + strings.TrimSuffix(filepath.Base(golden), ".golden") + ".go"
			files := []*ast.File{parseOrFatal(t, fset, name, rewritten)}
			sites, init := generatedFiles(generated)
			if sites != "" {
				files = append(files, parseOrFatal(t, fset, "/out/_atomicx_sites.go", sites))
			}
			if init != "" {
				files = append(files, parseOrFatal(t, fset, "/out/_atomicx_init.go", init))
			}
			var errs []string
			conf := types.Config{
				Importer: imp,
				Error:    func(err error) { errs = append(errs, err.Error()) },
			}
			if v := langSuffix.FindStringSubmatch(name); v != nil {
				conf.GoVersion = "go1." + v[1] // the version the rewrite was made for
			}
			conf.Check("example.com/m", fset, files, nil)
			if len(errs) > 0 {
				t.Errorf("the rewrite does not type-check:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

func parseOrFatal(t *testing.T, fset *token.FileSet, name, src string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("the rewrite does not parse: %v", err)
	}
	return f
}

// TestGoldenKeepsLines checks that the rewrite moves no user code to
// another line: once the //line header is removed, each line of the
// rewritten file holds every token of the same line of the original.
func TestGoldenKeepsLines(t *testing.T) {
	for _, golden := range goldenFiles(t) {
		t.Run(filepath.Base(golden), func(t *testing.T) {
			orig, err := os.ReadFile(strings.TrimSuffix(golden, ".golden") + ".go")
			if err != nil {
				t.Fatal(err)
			}
			rewritten, _ := goldenParts(t, golden)
			header, body, _ := strings.Cut(rewritten, "\n")
			if !strings.HasPrefix(header, "//line ") && rewritten != string(orig) {
				t.Fatalf("a changed file starts with %q, not a //line header", header)
			}
			if !strings.HasPrefix(header, "//line ") {
				body = rewritten // unchanged file
			}
			newLines := strings.Split(body, "\n")
			for line, toks := range tokensByLine(t, orig) {
				if line > len(newLines) {
					t.Errorf("line %d: missing from the rewrite (it has %d lines)", line, len(newLines))
					continue
				}
				got := newLines[line-1]
				for _, tok := range toks {
					if !strings.Contains(got, tok) {
						t.Errorf("line %d: %q is not on the same line of the rewrite:\n\t%s", line, tok, got)
					}
				}
			}
		})
	}
}

// tokensByLine returns the text of the tokens of src by (physical) line,
// comments included, automatic semicolons left out.
func tokensByLine(t *testing.T, src []byte) map[int][]string {
	t.Helper()
	fset := token.NewFileSet()
	file := fset.AddFile("orig.go", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { t.Fatalf("%v: %s", pos, msg) }, scanner.ScanComments)
	out := map[int][]string{}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		text := lit
		if text == "" {
			text = tok.String()
		}
		p := file.PositionFor(pos, false) // physical lines, not //line ones
		for i, l := range strings.Split(text, "\n") {
			if strings.TrimSpace(l) != "" {
				out[p.Line+i] = append(out[p.Line+i], strings.TrimSpace(l))
			}
		}
	}
}

// TestGoldenKeepsPositions checks what the //line and /*line*/ directives
// are for: every identifier and literal of a function body has, in the
// rewritten file, the position it has in the original, as go/token
// reports it after line directives (the compiler does the same).
func TestGoldenKeepsPositions(t *testing.T) {
	for _, golden := range goldenFiles(t) {
		t.Run(filepath.Base(golden), func(t *testing.T) {
			if reason := knownBadRewrites[filepath.Base(golden)]; reason != "" {
				t.Skip(reason)
			}
			in := strings.TrimSuffix(golden, ".golden") + ".go"
			orig, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			rewritten, _ := goldenParts(t, golden)
			name := "/src/example.com/m/" + filepath.Base(in)
			fset := token.NewFileSet()
			of := parseOrFatal(t, fset, name, string(orig))
			nf := parseOrFatal(t, fset, name, rewritten)

			have := map[string]bool{}
			for _, p := range bodyLeaves(fset, nf) {
				have[p] = true
			}
			var missing []string
			for _, p := range bodyLeaves(fset, of) {
				if !have[p] {
					missing = append(missing, p)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%d identifiers or literals of function bodies are not at their original position in the rewrite:\n%s",
					len(missing), strings.Join(missing, "\n"))
			}
		})
	}
}

// bodyLeaves returns "text@file:line:col" for each identifier and basic
// literal inside a function body, at its position after line directives.
func bodyLeaves(fset *token.FileSet, f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			var text string
			switch n := n.(type) {
			case *ast.Ident:
				text = n.Name
			case *ast.BasicLit:
				text = n.Value
			default:
				return true
			}
			// A call redirected to a clone (see undo.go) names the
			// clone where the original name was.
			text = strings.TrimPrefix(text, "_atx_undo_")
			if strings.HasPrefix(text, "_atx") {
				return true
			}
			p := fset.Position(n.Pos())
			out = append(out, fmt.Sprintf("%s@%s:%d:%d", text, p.Filename, p.Line, p.Column))
			return true
		})
	}
	return out
}

// TestRuntimeStub checks that testdata/rtstub declares what the real
// runtime declares, with the same types.
func TestRuntimeStub(t *testing.T) {
	fset := token.NewFileSet()
	stub, err := loadStub(fset, importer.ForCompiler(fset, "source", nil))
	if err != nil {
		t.Fatalf("runtime stub: %v", err)
	}
	real := checkRealRuntime(t, fset)
	qual := func(*types.Package) string { return "" }
	for _, name := range stub.Scope().Names() {
		so := stub.Scope().Lookup(name)
		ro := real.Scope().Lookup(name)
		if ro == nil {
			t.Errorf("the stub declares %s, the runtime does not", name)
			continue
		}
		if got, want := fmt.Sprintf("%T", so), fmt.Sprintf("%T", ro); got != want {
			t.Errorf("%s: the stub declares a %s, the runtime a %s", name, got, want)
			continue
		}
		switch so := so.(type) {
		case *types.TypeName:
			st, rt := so.Type().Underlying(), ro.Type().Underlying()
			if ss, ok := st.(*types.Struct); ok {
				rs, ok := rt.(*types.Struct)
				if !ok {
					t.Errorf("%s: a struct in the stub, %s in the runtime", name, types.TypeString(rt, qual))
					continue
				}
				for i := 0; i < ss.NumFields(); i++ {
					sf := ss.Field(i)
					rf := fieldByName(rs, sf.Name())
					if rf == nil {
						t.Errorf("%s.%s: not a field of the runtime's %s", name, sf.Name(), name)
					} else if g, w := types.TypeString(sf.Type(), qual), types.TypeString(rf.Type(), qual); g != w {
						t.Errorf("%s.%s: %s in the stub, %s in the runtime", name, sf.Name(), g, w)
					}
				}
			} else if g, w := types.TypeString(st, qual), types.TypeString(rt, qual); g != w {
				t.Errorf("type %s: %s in the stub, %s in the runtime", name, g, w)
			}
			sm, rm := types.NewMethodSet(types.NewPointer(so.Type())), types.NewMethodSet(types.NewPointer(ro.Type()))
			for i := 0; i < sm.Len(); i++ {
				m := sm.At(i).Obj()
				r := rm.Lookup(real, m.Name())
				if r == nil {
					t.Errorf("method %s.%s: not in the runtime", name, m.Name())
				} else if g, w := types.TypeString(m.Type(), qual), types.TypeString(r.Obj().Type(), qual); g != w {
					t.Errorf("method %s.%s: %s in the stub, %s in the runtime", name, m.Name(), g, w)
				}
			}
		case *types.Const:
			rc := ro.(*types.Const)
			if g, w := types.TypeString(so.Type(), qual), types.TypeString(rc.Type(), qual); g != w || so.Val().String() != rc.Val().String() {
				t.Errorf("const %s: %s %s in the stub, %s %s in the runtime", name, g, so.Val(), w, rc.Val())
			}
		default:
			if g, w := types.TypeString(so.Type(), qual), types.TypeString(ro.Type(), qual); g != w {
				t.Errorf("%s: %s in the stub, %s in the runtime", name, g, w)
			}
		}
	}
}

func fieldByName(s *types.Struct, name string) *types.Var {
	for i := 0; i < s.NumFields(); i++ {
		if s.Field(i).Name() == name {
			return s.Field(i)
		}
	}
	return nil
}

// checkRealRuntime type-checks the non-test files of ../rt.
func checkRealRuntime(t *testing.T, fset *token.FileSet) *types.Package {
	t.Helper()
	names, err := filepath.Glob("../rt/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(filepath.Dir(n), filepath.Base(n)); err != nil || !ok {
			continue // another build's (race.go)
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("github.com/atomicx/atomicx/rt", fset, files, nil)
	if err != nil {
		t.Fatalf("type-checking the runtime: %v", err)
	}
	return pkg
}
