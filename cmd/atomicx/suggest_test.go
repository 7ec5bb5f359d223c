package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/policy"
	"github.com/atomicx/atomicx/report"
)

// suggestJournal: store has two pure and one dependent function, api one
// dependent function only, and Parse is atomic.
const suggestJournal = `{"v":3,"kind":"profile","pkg":"example.com/m/store","test":"TestAdd","status":"pass","ms":1,"events":[` +
	`{"event":"verdict","func":"example.com/m/store.(*Store).add","pos":"example.com/m/store/store.go:16:17","verdict":"non-atomic","failure":"error","path":"s.count","before":"1","after":"2","chain":1,"first":true},` +
	`{"event":"verdict","func":"example.com/m/store.(*Store).Add","pos":"example.com/m/store/store.go:26:17","verdict":"non-atomic","failure":"error","path":"s.count","before":"1","after":"2","chain":1},` +
	`{"event":"verdict","func":"example.com/m/api.Put","pos":"example.com/m/api/api.go:9:6","verdict":"non-atomic","failure":"error","path":"db.n","before":"0","after":"1\n2","chain":1},` +
	`{"event":"verdict","func":"example.com/m/store.Parse","pos":"example.com/m/store/parse.go:5:6","verdict":"atomic","failure":"error"}]}
{"v":3,"kind":"experiment","pkg":"example.com/m/store","test":"TestAddAll","site":"example.com/m/store.(*Store).add#entry","occurrence":2,"fault":"error","status":"absorbed","fired":true,"ms":4,"events":[` +
	`{"event":"verdict","func":"example.com/m/store.(*Stack[...]).AddAll","pos":"example.com/m/store/store.go:35:17","verdict":"non-atomic","failure":"error","path":"s.items","before":"nil","after":"len=1","injected":true,"chain":7,"first":true}]}
`

func runSuggest(t *testing.T, arg string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run([]string{"policy", "suggest", arg}, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// parseSuggestion checks that the suggestion is a valid policy and
// returns its rules.
func parseSuggestion(t *testing.T, text string) []policy.Rule {
	t.Helper()
	pol, err := policy.Parse(filepath.Join(t.TempDir(), "atomicheck.toml"), []byte(text))
	if err != nil {
		t.Fatalf("the suggestion is not a valid policy: %v\n%s", err, text)
	}
	return pol.Rules
}

func TestPolicySuggest(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(suggestJournal), 0o666); err != nil {
		t.Fatal(err)
	}
	fromJournal, stderr, code := runSuggest(t, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rules := parseSuggestion(t, fromJournal)
	if len(rules) != 1 {
		t.Fatalf("%d rules, want 1 (api has no pure function):\n%s", len(rules), fromJournal)
	}
	r := rules[0]
	if r.Mode != policy.Mask || !slices.Equal(r.Packages, []string{"example.com/m/store"}) ||
		!slices.Equal(r.Functions, []string{"(*Stack[...]).AddAll", "(*Store).add"}) || len(r.Ignore) != 0 {
		t.Errorf("rule %+v", r)
	}
	for _, want := range []string{
		"\t# s.count: 1 → 2 (natural error in TestAdd; 1 of 1 failed calls)\n\t\"(*Store).add\",\n",
		"\t# s.items: nil → len=1 (injected error:2:example.com/m/store.(*Store).add#entry in TestAddAll; 1 of 1 failed calls)\n\t\"(*Stack[...]).AddAll\",\n",
		"# dependent: atomic once its callees are masked; not masked: (*Store).Add\n#   s.count: 1 → 2 (natural error in TestAdd; 1 of 1 failed calls)\n",
		"# example.com/m/api: no pure non-atomic function, no rule.\n# dependent: atomic once its callees are masked; not masked: Put\n#   db.n: 0 → 1 2 ",
		"# It found 2 pure non-atomic functions in 1 package.\n",
		"io.EOF",
		"ignore = [",
	} {
		if !strings.Contains(fromJournal, want) {
			t.Errorf("suggestion lacks %q:\n%s", want, fromJournal)
		}
	}

	// A JSON report gives the same suggestion, apart from its source.
	recs, problems, err := campaign.ReadJournal(filepath.Join(dir, "journal.jsonl"))
	if err != nil || len(problems) != 0 {
		t.Fatal(err, problems)
	}
	var js bytes.Buffer
	if err := report.WriteJSON(&js, report.Classify(recs, problems)); err != nil {
		t.Fatal(err)
	}
	jsonFile := filepath.Join(dir, "report.json")
	if err := os.WriteFile(jsonFile, js.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	fromReport, stderr, code := runSuggest(t, jsonFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, body1, _ := strings.Cut(fromJournal, "\n")
	_, body2, _ := strings.Cut(fromReport, "\n")
	if body1 != body2 {
		t.Errorf("from the journal:\n%s\nfrom the report:\n%s", fromJournal, fromReport)
	}
}

func TestPolicySuggestNothing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "journal.jsonl")
	rec := `{"v":3,"kind":"profile","pkg":"p","test":"T","status":"pass","ms":1}` + "\n"
	if err := os.WriteFile(file, []byte(rec), 0o666); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runSuggest(t, file)
	if code != 0 || !strings.Contains(out, "nothing to mask") {
		t.Fatalf("exit %d, %q, %q", code, out, stderr)
	}
	if rules := parseSuggestion(t, out); len(rules) != 0 {
		t.Errorf("rules %v", rules)
	}
}

func TestPolicySuggestErrors(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runSuggest(t, filepath.Join(dir, "missing")); code != 1 || !strings.Contains(stderr, "no journal or report") {
		t.Errorf("missing: exit %d, %q", code, stderr)
	}
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(`{"schema": "atomicx.report/v0", "functions": {}}`), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runSuggest(t, old); code != 1 || !strings.Contains(stderr, `"atomicx.report/v0"`) {
		t.Errorf("old schema: exit %d, %q", code, stderr)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"policy", "suggest", "a", "b"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage: atomicx policy suggest") {
		t.Errorf("two arguments: exit %d, %q", code, stderr.String())
	}
}

func TestReportFormatFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", "-format", "xml", "j"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "text, json, html, sarif or github") {
		t.Errorf("report -format xml: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"detect", "-format", "xml"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "text, json, html, sarif or github") {
		t.Errorf("detect -format xml: exit %d, %q", code, stderr.String())
	}
}

func TestReportToFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(suggestJournal), 0o666); err != nil {
		t.Fatal(err)
	}
	for format, want := range map[string]string{
		"text":  "pure non-atomic (2):",
		"json":  `"schema": "atomicx.report/v1"`,
		"html":  "<!DOCTYPE html>",
		"sarif": `"ruleId": "atomicx/pure-non-atomic"`,
	} {
		out := filepath.Join(dir, "out."+format)
		var stdout, stderr bytes.Buffer
		if code := run([]string{"report", "-format", format, "-o", out, dir}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: -o, yet %q on stdout", format, stdout.String())
		}
		data, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s: %v; file lacks %q:\n%s", format, err, want, data)
		}
	}
}

// TestPolicySuggestOutsideWrites checks that a pure function whose
// failed calls wrote outside memory is not proposed, but listed with the
// write, its evidence and the repair.
func TestPolicySuggestOutsideWrites(t *testing.T) {
	const journal = `{"v":3,"kind":"experiment","pkg":"example.com/wal","test":"TestRetry","site":"example.com/wal.(*Log).writeBatch#call:(*os.File).Sync#1","occurrence":1,"fault":"error","status":"fail","fired":true,"ms":4,"events":[` +
		`{"event":"verdict","func":"example.com/wal.(*Log).writeBatch","pos":"example.com/wal/wal.go:30:16","verdict":"non-atomic","failure":"error","path":"l.lastIndex","before":"143","after":"144","injected":true,"chain":7,"first":true,"wrote":"(*os.File).Write","wrote_to":"/tmp/w/00001","wrote_at":"example.com/wal/wal.go:34:21"},` +
		`{"event":"verdict","func":"example.com/wal.(*Log).setName","pos":"example.com/wal/wal.go:50:16","verdict":"non-atomic","failure":"error","path":"l.name","before":"a","after":"b","injected":true,"chain":8,"first":true},` +
		`{"event":"verdict","func":"example.com/wal/other.Put","pos":"example.com/wal/other/other.go:5:6","verdict":"non-atomic","failure":"error","path":"m.n","before":"0","after":"1","injected":true,"chain":9,"first":true,"wrote":"os.Rename","wrote_at":"example.com/wal/other/other.go:7:11"}]}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(journal), 0o666); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runSuggest(t, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rules := parseSuggestion(t, out)
	if len(rules) != 1 || !slices.Equal(rules[0].Functions, []string{"(*Log).setName"}) {
		t.Fatalf("rules %+v, want one that masks (*Log).setName only:\n%s", rules, out)
	}
	for _, want := range []string{
		"# It found 1 pure non-atomic function in 1 package, and 2 more that wrote outside memory before failing.\n",
		"# not masked: (*Log).writeBatch wrote to /tmp/w/00001 before failing: a rollback of memory cannot undo it ((*os.File).Write at example.com/wal/wal.go:34:21; 1 failed call)\n" +
			"#   l.lastIndex: 143 → 144 (injected error:1:example.com/wal.(*Log).writeBatch#call:(*os.File).Sync#1 in TestRetry; 1 of 1 failed calls)\n" +
			"#   repair it (write last, or undo the write on failure); to undo its writes to files with its memory, list it in functions and in undo_files = [\"(*Log).writeBatch\"]; to mask its memory anyway, list it in functions and in outside_writes = [\"(*Log).writeBatch\"]\n",
		"# example.com/wal/other: no pure non-atomic function to mask, no rule.\n# not masked: Put wrote outside memory before failing",
		"Repair it instead: write last",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("suggestion lacks %q:\n%s", want, out)
		}
	}
}
