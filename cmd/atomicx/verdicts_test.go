package main

import (
	"encoding/json"
	"go/ast"
	"os"
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
	got := map[string]string{}
	for name, f := range rep.Functions {
		if rel, ok := strings.CutPrefix(name, args[2]+"."); ok {
			got[rel] = strings.TrimSuffix(f.Verdict, " non-atomic")
		}
	}
	checkExpectations(ts, "verdicts", got, expectedVerdicts(ts, ts.MkAbs(args[1])))
}

func expectedVerdicts(ts *testscript.TestScript, dir string) map[string]string {
	want := map[string]string{}
	fset, files := fixtureFiles(ts, dir)
	for _, af := range files {
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := funcname.Decl(fd, nil)
			verdicts := docValues(fd, "verdict: ")
			if len(verdicts) == 0 {
				ts.Fatalf("%s: %s has no \"verdict:\" comment", fset.Position(fd.Pos()), name)
			}
			want[name] = verdicts[len(verdicts)-1]
		}
	}
	return want
}
