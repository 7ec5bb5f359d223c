package report

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestEveryColumnExplained checks that each column header of the HTML
// page has a tooltip, and that the legend lists every term.
func TestEveryColumnExplained(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, fixtureReport(t), nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, table := range []string{"function-table", "type-table"} {
		i := strings.Index(page, `id="`+table+`"`)
		if i < 0 {
			t.Fatalf("no table %s", table)
		}
		head := page[i : i+strings.Index(page[i:], "</thead>")]
		for _, th := range regexp.MustCompile(`<th[^>]*>[^<]*</th>`).FindAllString(head, -1) {
			if strings.HasSuffix(th, ">name</th>") {
				continue
			}
			if !regexp.MustCompile(`title="[^"]{10,}"`).MatchString(th) {
				t.Errorf("%s: header without a tooltip: %s", table, th)
			}
		}
	}
	for _, term := range Glossary {
		if !strings.Contains(page, "<dt>"+term.Name+"</dt>") {
			t.Errorf("the legend lacks %q", term.Name)
		}
	}
}

// TestDocsExplainTheReport checks that the page on reading the report
// names every term of the glossary, and that the headings the SARIF
// rules' helpUri points at are in the README.
func TestDocsExplainTheReport(t *testing.T) {
	data, err := os.ReadFile("../docs/reports.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, term := range Glossary {
		if !strings.Contains(page, "**"+term.Name+"**") {
			t.Errorf("docs/reports.md does not explain **%s**", term.Name)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// GitHub's anchors of the README's headings.
	anchors := map[string]bool{}
	for _, line := range strings.Split(string(readme), "\n") {
		if title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
			anchors[strings.Map(func(r rune) rune {
				switch {
				case r == ' ':
					return '-'
				case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
					return unicode.ToLower(r)
				}
				return -1
			}, title)] = true
		}
	}
	rules := append(append(append(slices.Clone(sarifRules), perturbRules...), handlerRules...), leakRule)
	for _, r := range rules {
		frag, ok := strings.CutPrefix(r.HelpURI, InformationURI+"#")
		if !ok || !anchors[frag] {
			t.Errorf("rule %s: helpUri %s names no heading of the README", r.ID, r.HelpURI)
		}
	}
}
