package coverage

import (
	"fmt"
	"path"
	"sort"
)

// Model is the coverage of a campaign: what the tests alone ran (its
// profile runs) against what the tests plus injection ran (all its runs),
// in total, per package and per function, and the lines that only the
// runs with a fault injected reached.
type Model struct {
	Total    Counts     `json:"total"`
	Packages []*Package `json:"packages"`
}

// Counts counts statements: all of them, those the tests alone ran, those
// the tests plus injection ran; and the same for the statements of error
// paths.
type Counts struct {
	Statements    int `json:"statements"`
	Tests         int `json:"covered_by_tests"`
	WithInjection int `json:"covered_with_injection"`

	ErrorPath              int `json:"error_path_statements"`
	ErrorPathTests         int `json:"error_path_covered_by_tests"`
	ErrorPathWithInjection int `json:"error_path_covered_with_injection"`
}

func (c *Counts) add(d Counts) {
	c.Statements += d.Statements
	c.Tests += d.Tests
	c.WithInjection += d.WithInjection
	c.ErrorPath += d.ErrorPath
	c.ErrorPathTests += d.ErrorPathTests
	c.ErrorPathWithInjection += d.ErrorPathWithInjection
}

// Gained is the number of statements that only injection ran.
func (c Counts) Gained() int { return c.WithInjection - c.Tests }

// Package is the coverage of one package.
type Package struct {
	ImportPath string `json:"import_path"`
	Counts
	Functions []*Function `json:"functions"`
}

// Function is the coverage of one declared function (function literals
// in it included). Name is as the runtime names it; "" gathers the
// function literals of package-level variables' initializers.
type Function struct {
	Name string `json:"name"`
	Pos  string `json:"pos,omitempty"` // of its first line, "example.com/m/f.go:12"
	Counts
	// NewlyCovered lists the blocks that the tests alone never ran and
	// an injected fault did, in order.
	NewlyCovered []Span `json:"newly_covered,omitempty"`

	file string // where it is, for ordering
	line int
}

// Span is a coverage block: lines Line (its first statement's) to
// EndLine (its last, or the closing brace of the block it ends) of File.
type Span struct {
	File       string `json:"file"` // import-path form, "example.com/m/f.go"
	Line       int    `json:"line"`
	EndLine    int    `json:"end_line"`
	Statements int    `json:"statements"`
	// ErrorPath is the kind of error path the block is in, "" when none
	// (KindErrorCheck, KindDeferred, KindRecover).
	ErrorPath string `json:"error_path,omitempty"`
}

// Pos is the span's first line, "example.com/m/f.go:12".
func (s Span) Pos() string { return fmt.Sprintf("%s:%d", s.File, s.Line) }

// Build makes the model from the profile of the tests alone, the profile
// of all the runs (tests plus injection), and the sources. A block of all
// that the tests' profile does not have counts as not run by the tests; a
// block of a file that src lacks counts as no error path, in a function
// named "".
func Build(tests, all []Block, src Sources) *Model {
	ranInTests := map[blockKey]bool{}
	for _, b := range tests {
		if b.Count > 0 {
			ranInTests[b.key()] = true
		}
	}
	type fnKey struct{ pkg, name string }
	pkgs := map[string]*Package{}
	fns := map[fnKey]*Function{}
	for _, b := range all {
		fi := src[b.File]
		pkgPath := path.Dir(b.File)
		name, kind, line, first := "", "", 0, b.Start.Line
		if fi != nil {
			first = fi.firstStatement(b)
			pkgPath = fi.Package
			var fn *FuncExtent
			if fn = fi.funcAt(b.Start); fn != nil {
				name, line = fn.Name, fn.Start.Line
			}
			kind = errorPathOf(fi.ErrorPaths, b)
		}
		p := pkgs[pkgPath]
		if p == nil {
			p = &Package{ImportPath: pkgPath}
			pkgs[pkgPath] = p
		}
		f := fns[fnKey{pkgPath, name}]
		if f == nil {
			f = &Function{Name: name, file: b.File, line: line}
			if line > 0 {
				f.Pos = fmt.Sprintf("%s:%d", b.File, line)
			}
			fns[fnKey{pkgPath, name}] = f
			p.Functions = append(p.Functions, f)
		}
		var c Counts
		before, after := ranInTests[b.key()], b.Count > 0 || ranInTests[b.key()]
		c.Statements = b.Statements
		if before {
			c.Tests = b.Statements
		}
		if after {
			c.WithInjection = b.Statements
		}
		if kind != "" {
			c.ErrorPath, c.ErrorPathTests, c.ErrorPathWithInjection = c.Statements, c.Tests, c.WithInjection
		}
		f.add(c)
		if after && !before && b.Statements > 0 {
			f.NewlyCovered = append(f.NewlyCovered, Span{File: b.File, Line: first, EndLine: b.End.Line,
				Statements: b.Statements, ErrorPath: kind})
		}
	}
	m := &Model{}
	for _, p := range pkgs {
		sort.Slice(p.Functions, func(i, j int) bool {
			a, b := p.Functions[i], p.Functions[j]
			if a.file != b.file {
				return a.file < b.file
			}
			return a.line < b.line || a.line == b.line && a.Name < b.Name
		})
		for _, f := range p.Functions {
			sort.Slice(f.NewlyCovered, func(i, j int) bool {
				a, b := f.NewlyCovered[i], f.NewlyCovered[j]
				return a.File < b.File || a.File == b.File && a.Line < b.Line
			})
			p.add(f.Counts)
		}
		m.Total.add(p.Counts)
		m.Packages = append(m.Packages, p)
	}
	sort.Slice(m.Packages, func(i, j int) bool { return m.Packages[i].ImportPath < m.Packages[j].ImportPath })
	return m
}

// errorPathOf returns the kind of the innermost error path that holds b,
// "" when none does.
func errorPathOf(regions []Region, b Block) string {
	kind := ""
	var inner Region
	for _, r := range regions {
		if r.contains(b) && (kind == "" || inner.Start.before(r.Start)) {
			kind, inner = r.Kind, r
		}
	}
	return kind
}
