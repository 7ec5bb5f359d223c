package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/atomicx/atomicx/coverage"
)

// coverageLineCap bounds the newly covered error-path blocks the text
// report lists; JSON and HTML list them all.
const coverageLineCap = 20

// writeCoverage writes the coverage table of a campaign run with -cover:
// per package, statements covered by the tests alone and with injection,
// and the same for error-path statements; then the error-path blocks that
// only injection ran.
func writeCoverage(w io.Writer, m *coverage.Model, locate Locator) {
	fmt.Fprintf(w, "coverage: statements covered by the tests alone → with injection\n")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "package\tstatements\terror-path statements\n")
	row := func(name string, c coverage.Counts) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, coverageCell(c.Tests, c.WithInjection, c.Statements), coverageCell(c.ErrorPathTests, c.ErrorPathWithInjection, c.ErrorPath))
	}
	for _, p := range m.Packages {
		row(p.ImportPath, p.Counts)
	}
	if len(m.Packages) > 1 {
		row("total", m.Total)
	}
	tw.Flush()
	var lines []string
	n := 0
	for _, p := range m.Packages {
		for _, f := range p.Functions {
			for _, s := range f.NewlyCovered {
				if s.ErrorPath == "" {
					continue
				}
				n++
				if len(lines) < coverageLineCap {
					lines = append(lines, fmt.Sprintf("%s: %s: %s, %s", locate(s.Pos()), coverageFuncName(f.Name), errorPathText(s.ErrorPath), spanText(s)))
				}
			}
		}
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "error paths run only with injection (%d blocks):\n", n)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	if n > len(lines) {
		fmt.Fprintf(w, "%d more: -format json or html lists them\n", n-len(lines))
	}
}

// coverageCell is "before → after of total (+gain)".
func coverageCell(before, after, total int) string {
	cell := fmt.Sprintf("%d → %d of %d", before, after, total)
	if total > 0 {
		cell += fmt.Sprintf(" (%.1f%% → %.1f%%)", 100*float64(before)/float64(total), 100*float64(after)/float64(total))
	}
	return cell
}

// coverageFuncName names a function of the coverage model for people.
func coverageFuncName(name string) string {
	if name == "" {
		return "package-level initializers"
	}
	return shortName(name)
}

var errorPathTexts = map[string]string{
	coverage.KindErrorCheck: "error check",
	coverage.KindDeferred:   "deferred function",
	coverage.KindRecover:    "recovered panic",
}

func errorPathText(kind string) string {
	if t, ok := errorPathTexts[kind]; ok {
		return t
	}
	return kind
}

func spanText(s coverage.Span) string {
	stmts := "statements"
	if s.Statements == 1 {
		stmts = "statement"
	}
	if s.EndLine > s.Line {
		return fmt.Sprintf("lines %d-%d, %d %s", s.Line, s.EndLine, s.Statements, stmts)
	}
	return fmt.Sprintf("line %d, %d %s", s.Line, s.Statements, stmts)
}

// The HTML page's coverage data.
type (
	htmlCoverage struct {
		Total     coverage.Counts
		Packages  []*coverage.Package
		Functions []htmlCoverageFunction // those with newly covered lines
	}
	htmlCoverageFunction struct {
		Package, Short string
		Pos            string
		Counts         coverage.Counts
		Spans          []string // the newly covered blocks, in words
		Lines          []htmlLine
		SourceErr      string
	}
)

// newHTMLCoverage prepares the coverage section: the table, then each
// function that injection made run more of, with its source and the
// newly covered lines marked.
func newHTMLCoverage(m *coverage.Model, src SourceReader, base string) *htmlCoverage {
	hc := &htmlCoverage{Total: m.Total, Packages: m.Packages}
	for _, p := range m.Packages {
		for _, f := range p.Functions {
			if len(f.NewlyCovered) == 0 {
				continue
			}
			hf := htmlCoverageFunction{Package: p.ImportPath, Short: coverageFuncName(f.Name), Pos: shortPos(f.Pos, base), Counts: f.Counts}
			newLine := map[int]string{}
			for _, s := range f.NewlyCovered {
				what := spanText(s)
				class := "new"
				if s.ErrorPath != "" {
					what += ", " + errorPathText(s.ErrorPath)
					class = "new errpath"
				}
				hf.Spans = append(hf.Spans, what)
				for l := s.Line; l <= s.EndLine; l++ {
					if newLine[l] == "" || class != "new" {
						newLine[l] = class
					}
				}
			}
			if src != nil && f.Pos != "" {
				_, lines, first, err := src(f.Pos)
				if err != nil {
					hf.SourceErr = err.Error()
				}
				for i, text := range lines {
					n := first + i
					hf.Lines = append(hf.Lines, htmlLine{N: n, Text: strings.ReplaceAll(text, "\t", "    "), Class: newLine[n]})
				}
			}
			hc.Functions = append(hc.Functions, hf)
		}
	}
	return hc
}
