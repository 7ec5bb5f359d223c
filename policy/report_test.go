package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testReport = `{
  "schema": "atomicx.report/v1",
  "functions": {
    "example.com/m/store.(*Store).add": {"verdict": "pure non-atomic"},
    "example.com/m/store.(*Store).Add": {"verdict": "dependent non-atomic"},
    "example.com/m/store.(*Stack[...]).Push": {"verdict": "pure non-atomic"},
    "example.com/m/store.Parse": {"verdict": "atomic"},
    "example.com/m/store.(*Log).writeBatch": {"verdict": "pure non-atomic", "wrote_outside": {"call": "(*os.File).Write", "pos": "example.com/m/store/log.go:9:20"}},
    "example.com/m/other.Fix": {"verdict": "pure non-atomic"},
    "gopkg.in/ini%2ev1.(*File).Reload": {"verdict": "pure non-atomic"}
  }
}`

// TestFromReport checks that a mask rule's from_report selects exactly the
// report's pure non-atomic functions of each package, together with its
// functions list, and that the hash follows what the report says.
func TestFromReport(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "report.json"), testReport)
	pol := func(extra string) *Policy {
		p, err := Parse(filepath.Join(dir, "atomicheck.toml"), []byte(`[[rule]]
packages = ["example.com/m/store", "example.com/m/other", "gopkg.in/ini.v1"]
mode = "mask"
from_report = "report.json"
`+extra))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := pol("")
	store := p.ForPackage("example.com/m/store", false)
	for name, want := range map[string]bool{
		"(*Store).add":          true,
		"(*Store).Add":          false, // dependent: atomic once add is masked
		"(*Stack[...]).Push":    true,
		"(*Stack[int]).Push":    true,
		"Parse":                 false,
		"Fix":                   false, // another package's
		"(*Store).Unrelated":    false,
		"(*Store).add.func1":    false,
		"(*Log).writeBatch":     false, // wrote outside memory
		"example.com/m/store.F": false,
	} {
		if got := store.Selects(name); got != want {
			t.Errorf("store: Selects(%q) = %v, want %v", name, got, want)
		}
	}
	if !p.ForPackage("example.com/m/other", false).Selects("Fix") {
		t.Error("other: Fix not selected")
	}
	// The report names functions as the runtime does, with the dots of
	// the path's last element escaped; the rule names the import path.
	if !p.ForPackage("gopkg.in/ini.v1", false).Selects("(*File).Reload") {
		t.Error("gopkg.in/ini.v1: (*File).Reload not selected")
	}
	withList := pol(`functions = ["Parse"]` + "\n")
	if m := withList.ForPackage("example.com/m/store", false); !m.Selects("Parse") || !m.Selects("(*Store).add") {
		t.Error("functions and from_report do not add up")
	}
	withExclude := pol(`exclude = ["(*Store).add"]` + "\n")
	if withExclude.ForPackage("example.com/m/store", false).Selects("(*Store).add") {
		t.Error("exclude does not apply to the report's functions")
	}

	withOutside := pol(`outside_writes = ["(*Log).writeBatch"]` + "\n")
	if !withOutside.ForPackage("example.com/m/store", false).Selects("(*Log).writeBatch") {
		t.Error("outside_writes does not select the report's function that wrote outside memory")
	}
	if withOutside.ForPackage("example.com/m/store", false).Hash() == store.Hash() {
		t.Error("the hash did not change with outside_writes")
	}

	h := p.Hash()
	writeFile(t, filepath.Join(dir, "report.json"), strings.Replace(testReport, `"atomic"`, `"pure non-atomic"`, 1))
	if pol("").Hash() == h {
		t.Error("the hash did not change with the report's verdicts")
	}
}

func TestFromReportErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notreport.json"), `{"schema": "other"}`)
	tests := []struct {
		name, rule, want string
	}{
		{"missing file", `mode = "mask"` + "\n" + `from_report = "nope.json"`, `:4:15: from_report "nope.json": cannot read `},
		{"not a report", `mode = "mask"` + "\n" + `from_report = "notreport.json"`, `:4:15: from_report "notreport.json": not a JSON report of atomicx detect`},
		{"detect mode", `mode = "detect"` + "\n" + `from_report = "notreport.json"`, `:4:15: from_report selects functions to mask: it needs mode = "mask"`},
		{"not a string", `mode = "mask"` + "\n" + `from_report = 3`, `:4:15: from_report must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "atomicheck.toml")
			_, err := Parse(path, []byte("[[rule]]\npackages = [\"example.com/m\"]\n"+tt.rule+"\n"))
			if err == nil || !strings.Contains(err.Error(), path+tt.want) {
				t.Errorf("error = %v, want %q", err, path+tt.want)
			}
		})
	}
}

// TestMissingFunctions checks that a mask rule naming a function the
// package does not declare is an error at the name's position, only for
// names without wildcards in rules of exact packages.
func TestMissingFunctions(t *testing.T) {
	declared := []string{"(*Vector).Alloc", "(*Stack[...]).Push", "Transfer"}
	tests := []struct {
		name, src string
		want      []string
	}{
		{
			name: "typo",
			src:  "[[rule]]\npackages = [\"example.com/m\"]\nmode = \"mask\"\nfunctions = [\"(*Vector).Aloc\", \"Transfer\"]\n",
			want: []string{`p.toml:4:14: function "(*Vector).Aloc" is not declared in package example.com/m, so it is not masked; did you mean "(*Vector).Alloc"?`},
		},
		{
			name: "generic written without type parameters",
			src:  "[[rule]]\npackages = [\"example.com/m\"]\nmode = \"mask\"\nfunctions = [\"(*Stack).Push\"]\n",
		},
		{
			name: "wildcards may match nothing",
			src:  "[[rule]]\npackages = [\"example.com/m\"]\nmode = \"mask\"\nfunctions = [\"(*Queue).*\", \"Test*\"]\n",
		},
		{
			name: "a wildcard package rule is not checked",
			src:  "[[rule]]\npackages = [\"example.com/...\"]\nmode = \"mask\"\nfunctions = [\"Gone\"]\n",
		},
		{
			name: "detect rules are not checked",
			src:  "[[rule]]\npackages = [\"example.com/m\"]\nmode = \"detect\"\nfunctions = [\"Gone\"]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := mustParse(t, tt.src)
			if got := pol.ForPackage("example.com/m_test [example.com/m.test]", false).MissingFunctions(nil); got != nil {
				t.Errorf("external test package: %q, want nothing", got)
			}
			got := pol.ForPackage("example.com/m", false).MissingFunctions(declared)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
}
