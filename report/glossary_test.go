package report

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
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

// TestREADMEExplainsTheReport checks that the README's section on reading
// the report names every term of the glossary.
func TestREADMEExplainsTheReport(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Reading the report\n")
	if !ok {
		t.Fatal(`README.md has no "## Reading the report" section`)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	for _, term := range Glossary {
		if !strings.Contains(section, "**"+term.Name+"**") {
			t.Errorf("README's \"Reading the report\" does not explain **%s**", term.Name)
		}
	}
	if !strings.Contains(section, "\n### Verdicts\n") {
		t.Error(`no "### Verdicts" heading: the SARIF rules' helpUri points at it`)
	}
}
