package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// The fixtures of the campaign scripts write what a report must say
// beside the code it is about, in comments; a script command per question
// (verdicts, handlerverdicts, perturbed) reads them and the campaign's
// JSON report into maps keyed alike, and checkExpectations compares them.

// notReported is the expectation of a thing that the report must not
// have.
const notReported = "none"

// checkExpectations compares what a report says (got) with what the
// fixture's comments expect (want), both in both directions, logs every
// difference and fails the script if there is one. what names the things
// compared, in the failure message.
func checkExpectations(ts *testscript.TestScript, what string, got, want map[string]string) {
	var problems []string
	for key, w := range want {
		g, ok := got[key]
		switch {
		case w == notReported && ok:
			problems = append(problems, key+": reported as "+g+", want not reported")
		case w == notReported:
		case !ok:
			problems = append(problems, key+": not reported, want "+w)
		case g != w:
			problems = append(problems, key+": "+g+", want "+w)
		}
	}
	for key, g := range got {
		if _, ok := want[key]; !ok {
			problems = append(problems, key+": reported as "+g+", but has no comment saying what to expect")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		ts.Logf("%s", p)
	}
	if len(problems) > 0 {
		ts.Fatalf("%d %s differ from the expectations", len(problems), what)
	}
}

// fixtureFiles parses the package's non-test files in dir, with their
// comments.
func fixtureFiles(ts *testscript.TestScript, dir string) (*token.FileSet, []*ast.File) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	ts.Check(err)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		ts.Check(err)
		files = append(files, f)
	}
	return fset, files
}

// docValues returns the values of the lines "KEY: VALUE" of the function's
// doc comment that start with prefix ("verdict: "), in order.
func docValues(fd *ast.FuncDecl, prefix string) []string {
	if fd.Doc == nil {
		return nil
	}
	var values []string
	for _, line := range strings.Split(fd.Doc.Text(), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			values = append(values, strings.TrimSpace(v))
		}
	}
	return values
}
