package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/atomicx/atomicx/internal/docsample"
	"github.com/rogpeppe/go-internal/testscript"
)

// docsample PAGE:NAME stdout|stderr|FILE checks that the output block of
// docs/PAGE.md marked NAME shows the last command's output (or FILE).
func cmdDocSample(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: docsample PAGE:NAME stdout|stderr|FILE")
	}
	s, err := docsample.Find(args[0])
	ts.Check(err)
	if err := s.Check(ts.ReadFile(args[1])); err != nil {
		ts.Fatalf("%v", err)
	}
}

var docsampleLine = regexp.MustCompile(`(?m)^\s*docsample\s+(\S+)`)

// TestDocSamplesAreChecked: every output block of the docs is checked by
// a test script.
func TestDocSamplesAreChecked(t *testing.T) {
	samples, err := docsample.All()
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]string{}
	for _, f := range scripts {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docsampleLine.FindAllStringSubmatch(string(data), -1) {
			checked[m[1]] = f
		}
	}
	for _, s := range samples {
		if checked[s.ID()] == "" {
			t.Errorf("docs/%s.md:%d: no test script checks the output block %s (docsample %s stdout)", s.Page, s.Line, s.ID(), s.ID())
		}
	}
}
