package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// handlerverdicts REPORT.json DIR IMPORTPATH checks a handlers campaign's
// JSON report against the expectations written beside the handlers of the
// package in DIR: a comment "// verdict: SOURCE, RESILIENCE" at the end
// of the line of each arm (if err != nil { // verdict: source-dependent,
// not purely resilient), followed, for a typed arm whose widening the
// report gives, by its status: "; widen: kept" (rejected, not offered,
// not validated), and, for an err != nil arm whose routing is not "not
// offered" (or whose comment says it is), by "; route: kept" (the same
// statuses). Every handler the report has of the package must carry
// one, and every comment must have its handler in the report.
func cmdHandlerVerdicts(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: handlerverdicts REPORT.json DIR IMPORTPATH")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var rep struct {
		Handlers []struct {
			Pos, Source, Resilience string
			Widening                *struct{ Status string }
			Routing                 *struct{ Status string }
		}
	}
	ts.Check(json.Unmarshal(data, &rep))
	want := expectedHandlerVerdicts(ts, ts.MkAbs(args[1]))
	got := map[string]string{}
	for _, h := range rep.Handlers {
		file, rest, _ := strings.Cut(h.Pos, ":")
		if path.Dir(file) != args[2] {
			continue
		}
		line, _, _ := strings.Cut(rest, ":")
		key := path.Base(file) + ":" + line
		g := h.Source + ", " + h.Resilience
		if h.Widening != nil {
			g += "; widen: " + h.Widening.Status
		}
		if r := h.Routing; r != nil && (r.Status != "not offered" || strings.Contains(want[key], "; route: ")) {
			g += "; route: " + r.Status
		}
		got[key] = g
	}
	checkExpectations(ts, "handler verdicts", got, want)
}

// expectedHandlerVerdicts reads the "// verdict:" comments of the
// package's files that end a line of code, by file:line.
func expectedHandlerVerdicts(ts *testscript.TestScript, dir string) map[string]string {
	want := map[string]string{}
	fset, files := fixtureFiles(ts, dir)
	for _, af := range files {
		for _, cg := range af.Comments {
			for _, c := range cg.List {
				v, ok := strings.CutPrefix(c.Text, "// verdict: ")
				if !ok {
					continue
				}
				pos := fset.Position(c.Pos())
				if pos.Column == 1 {
					continue // a doc comment: a function's verdict
				}
				want[fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)] = strings.TrimSpace(v)
			}
		}
	}
	if len(want) == 0 {
		ts.Fatalf("no \"// verdict:\" comment at the end of a line in %s", dir)
	}
	return want
}
