package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/internal/funcname"
	"github.com/rogpeppe/go-internal/testscript"
)

// perturbed REPORT.json DIR IMPORTPATH checks a perturbation
// campaign's JSON report against the expectations written beside the
// functions of the package in DIR: a doc comment line "perturb: fragile"
// (or sensitive, immunized, or none for a function whose entry must not
// be a point) gives the class of the function's entry point, and lines
// "candidate: NAME WORKS" the candidates of that point and which wrapping
// of each improves it (plain, only atomic, none). Every function of the
// package must carry a "perturb:" line, and the report must agree
// exactly, in both directions.
func cmdPerturbed(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: perturbed REPORT.json DIR IMPORTPATH")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var rep struct {
		Points []struct {
			Site, Class string
			Candidates  []struct{ Func, Works string }
		}
	}
	ts.Check(json.Unmarshal(data, &rep))
	prefix := args[2] + "."
	type point struct {
		class      string
		candidates []string // "NAME WORKS", sorted
	}
	got := map[string]point{}
	for _, p := range rep.Points {
		name, ok := strings.CutSuffix(p.Site, "#entry")
		if rel, in := strings.CutPrefix(name, prefix); ok && in {
			pt := point{class: p.Class}
			for _, c := range p.Candidates {
				pt.candidates = append(pt.candidates, strings.TrimPrefix(c.Func, prefix)+" "+c.Works)
			}
			sort.Strings(pt.candidates)
			got[rel] = pt
		}
	}
	var problems []string
	for name, want := range expectedPerturbations(ts, ts.MkAbs(args[1])) {
		g, ok := got[name]
		delete(got, name)
		switch {
		case want.class == "none" && ok:
			problems = append(problems, name+": a point, "+g.class+", want none")
		case want.class == "none":
		case !ok:
			problems = append(problems, name+": not a point, want "+want.class)
		case g.class != want.class:
			problems = append(problems, name+": "+g.class+", want "+want.class)
		case strings.Join(g.candidates, "; ") != strings.Join(want.candidates, "; "):
			problems = append(problems, name+": candidates "+strings.Join(g.candidates, "; ")+", want "+strings.Join(want.candidates, "; "))
		}
	}
	for name := range got {
		problems = append(problems, name+": a point, but has no perturb comment")
	}
	sort.Strings(problems)
	for _, p := range problems {
		ts.Logf("%s", p)
	}
	if len(problems) > 0 {
		ts.Fatalf("%d points differ from the expectations", len(problems))
	}
}

type expectedPoint struct {
	class      string
	candidates []string
}

func expectedPerturbations(ts *testscript.TestScript, dir string) map[string]expectedPoint {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	ts.Check(err)
	want := map[string]expectedPoint{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		ts.Check(err)
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			var p expectedPoint
			if fd.Doc != nil {
				for _, line := range strings.Split(fd.Doc.Text(), "\n") {
					line = strings.TrimSpace(line)
					if v, ok := strings.CutPrefix(line, "perturb: "); ok {
						p.class = strings.TrimSpace(v)
					}
					if v, ok := strings.CutPrefix(line, "candidate: "); ok {
						p.candidates = append(p.candidates, strings.TrimSpace(v))
					}
				}
			}
			name := funcname.Decl(fd, nil)
			if p.class == "" {
				ts.Fatalf("%s: %s has no \"perturb:\" comment", fset.Position(fd.Pos()), name)
			}
			sort.Strings(p.candidates)
			want[name] = p
		}
	}
	return want
}
