package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteGitHubAnnotations(t *testing.T) {
	// A detection report: one line a result, located in the repository.
	var sarif bytes.Buffer
	locate := func(pos string) string { return strings.TrimPrefix(pos, "example.com/m/") }
	if err := WriteSARIF(&sarif, fixtureReport(t), locate, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteGitHubAnnotations(&out, sarif.Bytes()); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.github", out.Bytes())
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if n := strings.Count(sarif.String(), `"ruleId"`); len(lines) != n {
		t.Errorf("%d annotations for %d results:\n%s", len(lines), n, out.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "::error file=") && !strings.HasPrefix(l, "::warning file=") {
			t.Errorf("not an annotation on a file: %q", l)
		}
	}

	tests := []struct {
		name, sarif, want string
	}{{
		name: "levels, escapes and a location outside the repository",
		sarif: `{"runs": [{"tool": {"driver": {"rules": [{"id": "r/a", "shortDescription": {"text": "Title: a, b"}}]}},
			"results": [
				{"ruleId": "r/a", "level": "note", "message": {"text": "50% done\nnext line"},
				 "locations": [{"physicalLocation": {"artifactLocation": {"uri": "dir/my%20file.go", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 3}}}]},
				{"ruleId": "r/b", "level": "warning", "message": {"text": "in the module cache"},
				 "locations": [{"physicalLocation": {"artifactLocation": {"uri": "example.com/x@v1/x.go", "uriBaseId": "GOMODCACHE"}, "region": {"startLine": 9}}}]},
				{"ruleId": "r/a", "level": "error", "message": {"text": "absolute"},
				 "locations": [{"physicalLocation": {"artifactLocation": {"uri": "file:///src/x.go"}, "region": {"startLine": 1}}}]}
			]}]}`,
		want: "::notice file=dir/my file.go,line=3,title=Title%3A a%2C b::50%25 done%0Anext line\n" +
			"::warning title=r/b::in the module cache\n" +
			"::error title=Title%3A a%2C b::absolute\n",
	}, {
		name:  "no results",
		sarif: `{"runs": [{"tool": {"driver": {}}, "results": []}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := WriteGitHubAnnotations(&out, []byte(tt.sarif)); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tt.want)
			}
		})
	}
	if err := WriteGitHubAnnotations(&out, []byte("{")); err == nil {
		t.Error("a truncated log gave no error")
	}
}
