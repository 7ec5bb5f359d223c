package main

import (
	"encoding/json"
	"go/ast"
	"os"
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
	got := map[string]string{}
	for _, p := range rep.Points {
		name, ok := strings.CutSuffix(p.Site, "#entry")
		if rel, in := strings.CutPrefix(name, prefix); ok && in {
			var candidates []string
			for _, c := range p.Candidates {
				candidates = append(candidates, strings.TrimPrefix(c.Func, prefix)+" "+c.Works)
			}
			got[rel] = pointExpectation(p.Class, candidates)
		}
	}
	checkExpectations(ts, "points", got, expectedPerturbations(ts, ts.MkAbs(args[1])))
}

// pointExpectation is a point's class and its candidates, in the words
// both sides of the comparison use.
func pointExpectation(class string, candidates []string) string {
	if class == notReported || len(candidates) == 0 {
		return class
	}
	sort.Strings(candidates)
	return class + "; candidates " + strings.Join(candidates, "; ")
}

func expectedPerturbations(ts *testscript.TestScript, dir string) map[string]string {
	want := map[string]string{}
	fset, files := fixtureFiles(ts, dir)
	for _, af := range files {
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := funcname.Decl(fd, nil)
			classes := docValues(fd, "perturb: ")
			if len(classes) == 0 {
				ts.Fatalf("%s: %s has no \"perturb:\" comment", fset.Position(fd.Pos()), name)
			}
			want[name] = pointExpectation(classes[len(classes)-1], docValues(fd, "candidate: "))
		}
	}
	return want
}

// samereport A B checks that two text reports of identical campaigns say
// the same, line for line, but for the lines that name when and where
// the campaign ran: the first line (atomicx's version, the command, the
// date and the journal), the plan's ID (a hash that covers the profile
// runs' times), the campaign's times and how many experiments ran in
// batches.
func cmdSameReport(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: samereport A B")
	}
	read := func(name string) []string {
		lines := strings.Split(ts.ReadFile(name), "\n")
		if len(lines) > 0 && strings.HasPrefix(lines[0], "atomicx ") {
			lines = lines[1:]
		}
		var kept []string
		for _, l := range lines {
			if !strings.HasPrefix(l, "plan ") && !strings.HasPrefix(l, "campaign: ") && !strings.HasPrefix(l, "in-process: ") {
				kept = append(kept, l)
			}
		}
		return kept
	}
	a, b := read(args[0]), read(args[1])
	for i := range max(len(a), len(b)) {
		var la, lb string
		if i < len(a) {
			la = a[i]
		}
		if i < len(b) {
			lb = b[i]
		}
		if la != lb {
			ts.Fatalf("the reports differ at line %d (times and paths aside):\n%s: %s\n%s: %s", i+1, args[0], la, args[1], lb)
		}
	}
}
