package coverage

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"sort"

	"github.com/atomicx/atomicx/internal/funcname"
	"golang.org/x/tools/go/packages"
)

// Sources is what the model needs of the workload's sources, by file in
// the import-path form that coverage profiles use ("example.com/m/f.go").
type Sources map[string]*FileInfo

// FileInfo is one source file: its package, where it is on disk, its
// functions and its error paths.
type FileInfo struct {
	Package    string // import path
	Path       string // on disk
	Functions  []FuncExtent
	ErrorPaths []Region
	// Statements are where the file's statements (other than blocks)
	// begin, in order: a coverage block that begins at an opening brace
	// shows its lines from its first statement's.
	Statements []Position
}

// firstStatement returns the line of the first statement of b, b's first
// line when there is none (or no sources).
func (f *FileInfo) firstStatement(b Block) int {
	i := sort.Search(len(f.Statements), func(i int) bool { return !f.Statements[i].before(b.Start) })
	if i < len(f.Statements) && f.Statements[i].before(b.End) {
		return f.Statements[i].Line
	}
	return b.Start.Line
}

// FuncExtent is a declared function, from its func keyword to its
// closing brace; the function literals in it count as part of it.
type FuncExtent struct {
	Name       string // as the runtime names it: "example.com/m.(*T).M"
	Start, End Position
}

// funcAt returns the function whose extent holds p, nil when none does
// (a function literal in a package-level variable's initializer).
func (f *FileInfo) funcAt(p Position) *FuncExtent {
	for i, fn := range f.Functions {
		if !p.before(fn.Start) && !fn.End.before(p) {
			return &f.Functions[i]
		}
	}
	return nil
}

// LoadSources loads the packages that patterns name, in dir, with the go
// build flags given (tags), and finds their functions and error paths.
func LoadSources(ctx context.Context, dir string, buildFlags, patterns []string) (Sources, error) {
	cfg := &packages.Config{
		Context:    ctx,
		Dir:        dir,
		BuildFlags: buildFlags,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading the sources of %v: %w", patterns, err)
	}
	src := Sources{}
	for _, p := range pkgs {
		if p.TypesInfo == nil {
			continue
		}
		for _, f := range p.Syntax {
			name := p.Fset.Position(f.Package).Filename
			src[path.Join(p.PkgPath, filepath.Base(name))] = fileInfo(p.Fset, f, p.TypesInfo, p.PkgPath, name)
		}
	}
	return src, nil
}

func fileInfo(fset *token.FileSet, f *ast.File, info *types.Info, pkgPath, name string) *FileInfo {
	fi := &FileInfo{Package: pkgPath, Path: name, ErrorPaths: ErrorPaths(fset, f, info)}
	pos := func(p token.Pos) Position {
		q := fset.Position(p)
		return Position{q.Line, q.Column}
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		rel := funcname.Decl(fd, nil)
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			rel = funcname.Relative(fn)
		}
		fi.Functions = append(fi.Functions, FuncExtent{Name: funcname.Join(pkgPath, rel), Start: pos(fd.Pos()), End: pos(fd.End())})
	}
	sort.Slice(fi.Functions, func(i, j int) bool { return fi.Functions[i].Start.before(fi.Functions[j].Start) })
	ast.Inspect(f, func(n ast.Node) bool {
		if st, ok := n.(ast.Stmt); ok {
			if _, block := st.(*ast.BlockStmt); !block {
				fi.Statements = append(fi.Statements, pos(st.Pos()))
			}
		}
		return true
	})
	sort.Slice(fi.Statements, func(i, j int) bool { return fi.Statements[i].before(fi.Statements[j]) })
	return fi
}
