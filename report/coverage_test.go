package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/coverage"
)

// coverageFixture: Put's error check (lines 20-22 of store.go, in the
// function at line 18) ran only with injection; Get gained a plain block.
func coverageFixture() *coverage.Model {
	put := &coverage.Function{Name: "example.com/m/store.(*Store).Put", Pos: "example.com/m/store/store.go:18",
		Counts:       coverage.Counts{Statements: 5, Tests: 3, WithInjection: 5, ErrorPath: 2, ErrorPathWithInjection: 2},
		NewlyCovered: []coverage.Span{{File: "example.com/m/store/store.go", Line: 20, EndLine: 22, Statements: 2, ErrorPath: coverage.KindErrorCheck}}}
	get := &coverage.Function{Name: "example.com/m/store.(*Store).Get", Pos: "example.com/m/store/store.go:30",
		Counts:       coverage.Counts{Statements: 3, Tests: 2, WithInjection: 3},
		NewlyCovered: []coverage.Span{{File: "example.com/m/store/store.go", Line: 32, EndLine: 32, Statements: 1}}}
	p := &coverage.Package{ImportPath: "example.com/m/store", Functions: []*coverage.Function{put, get},
		Counts: coverage.Counts{Statements: 8, Tests: 5, WithInjection: 8, ErrorPath: 2, ErrorPathWithInjection: 2}}
	return &coverage.Model{Total: p.Counts, Packages: []*coverage.Package{p}}
}

func TestWriteTextCoverage(t *testing.T) {
	r := fixtureReport(t)
	locate := func(pos string) string { return strings.TrimPrefix(pos, "example.com/m/") }
	var plain bytes.Buffer
	WriteText(&plain, r, locate, false)
	if strings.Contains(plain.String(), "coverage") {
		t.Errorf("a report without coverage mentions it:\n%s", plain.String())
	}
	r.Coverage = coverageFixture()
	var buf bytes.Buffer
	WriteText(&buf, r, locate, false)
	out := buf.String()
	for _, want := range []string{
		"\ncoverage: statements covered by the tests alone → with injection\n",
		"\nexample.com/m/store  5 → 8 of 8 (62.5% → 100.0%)  0 → 2 of 2 (0.0% → 100.0%)\n",
		"\nerror paths run only with injection (1 blocks):\nstore/store.go:20: (*Store).Put: error check, lines 20-22, 2 statements\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "store.go:32") {
		t.Errorf("the text report lists a block that is no error path:\n%s", out)
	}
	if !strings.HasPrefix(out, plain.String()[:strings.Index(plain.String(), "problem:")]) {
		t.Errorf("coverage changed the report before it")
	}
}

func TestWriteHTMLCoverage(t *testing.T) {
	r := fixtureReport(t)
	r.Coverage = coverageFixture()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, fixtureSource); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	checkWellFormed(t, page)
	// fixtureSource serves the lines from the function's line - 1 on:
	// for Put (18), lines 17 to 23.
	for _, want := range []string{
		`<a href="#coverage">Coverage</a>`,
		`<h2 id="coverage">Coverage gained by injection</h2>`,
		`<td class="name">example.com/m/store</td><td class="n">8</td><td class="n">5 (62%)</td><td class="n">8 (100%)</td>`,
		`<span><i>19</i>`,
		`<span class="new errpath"><i>20</i>`,
		`<span class="new errpath"><i>22</i>`,
		`<span class="new"><i>32</i>`,
		`Newly covered: lines 20-22, 2 statements, error check.`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
