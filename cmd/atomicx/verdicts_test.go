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

// verdicts REPORT.json DIR IMPORTPATH checks a campaign's JSON report
// against the expectations written beside the functions of the package in
// DIR: a comment line "verdict: pure" (or dependent, atomic, unknown, or
// none for a function that must not be reported) in each function's doc
// comment. Every function of the package must carry one, and the report
// must agree exactly, in both directions.
func cmdVerdicts(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: verdicts REPORT.json DIR IMPORTPATH")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var rep struct {
		Functions map[string]struct{ Verdict string }
	}
	ts.Check(json.Unmarshal(data, &rep))
	want := expectedVerdicts(ts, ts.MkAbs(args[1]))
	prefix := args[2] + "."
	var problems []string
	for name, verdict := range want {
		got, ok := rep.Functions[prefix+name]
		switch {
		case verdict == "none" && ok:
			problems = append(problems, name+": reported as "+got.Verdict+", want not reported")
		case verdict != "none" && !ok:
			problems = append(problems, name+": not reported, want "+verdict)
		case ok && shortVerdict(got.Verdict) != verdict:
			problems = append(problems, name+": "+shortVerdict(got.Verdict)+", want "+verdict)
		}
	}
	for name := range rep.Functions {
		if rel, ok := strings.CutPrefix(name, prefix); ok {
			if _, known := want[rel]; !known {
				problems = append(problems, rel+": reported, but has no verdict comment")
			}
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		ts.Logf("%s", p)
	}
	if len(problems) > 0 {
		ts.Fatalf("%d verdicts differ from the expectations", len(problems))
	}
}

func shortVerdict(v string) string {
	return strings.TrimSuffix(v, " non-atomic")
}

func expectedVerdicts(ts *testscript.TestScript, dir string) map[string]string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	ts.Check(err)
	want := map[string]string{}
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
			name := funcname.Decl(fd, nil)
			verdict := ""
			if fd.Doc != nil {
				for _, line := range strings.Split(fd.Doc.Text(), "\n") {
					if v, ok := strings.CutPrefix(strings.TrimSpace(line), "verdict: "); ok {
						verdict = strings.TrimSpace(v)
					}
				}
			}
			if verdict == "" {
				ts.Fatalf("%s: %s has no \"verdict:\" comment", fset.Position(fd.Pos()), name)
			}
			want[name] = verdict
		}
	}
	return want
}
