package report

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"html/template"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/atomicx/atomicx/internal/funcname"
)

// SourceReader returns the source of the function declared at pos (an
// import-path position, "example.com/m/f.go:3:4"): the file's name as the
// user knows it, its lines that hold the function, and the number of the
// first of them.
type SourceReader func(pos string) (file string, lines []string, first int, err error)

// maxSourceLines caps the source shown for one function, so that one
// generated or very long function does not swamp the page.
const maxSourceLines = 400

// SourceFiles returns a SourceReader that finds a position's file with
// locate (nil: positions are file paths already) and reads the lines of
// the function declared there: from its doc comment to its closing brace,
// or a few lines around the position when no declaration starts on its
// line (a function literal, a file that no longer parses).
func SourceFiles(locate Locator) SourceReader {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	return func(pos string) (string, []string, int, error) {
		file, line, _ := splitPos(locate(pos))
		if line == 0 {
			return file, nil, 0, fmt.Errorf("position %q has no line", pos)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return file, nil, 0, err
		}
		all := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
		first, last := funcExtent(file, data, line)
		if first == 0 {
			first, last = line-3, line+10
		}
		first, last = max(first, 1), min(last, len(all), first+maxSourceLines-1)
		if first > last {
			return file, nil, 0, fmt.Errorf("%s has no line %d", file, line)
		}
		return file, all[first-1 : last], first, nil
	}
}

// funcExtent returns the first and last lines of the function declared
// on line, doc comment included; 0, 0 if there is none.
func funcExtent(file string, src []byte, line int) (first, last int) {
	fset := token.NewFileSet()
	// A file with a syntax error still yields the declarations before it.
	f, _ := parser.ParseFile(fset, file, src, parser.ParseComments|parser.SkipObjectResolution)
	if f == nil {
		return 0, 0
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fset.Position(fd.Name.Pos()).Line != line {
			continue
		}
		start := fd.Pos()
		if fd.Doc != nil {
			start = fd.Doc.Pos()
		}
		return fset.Position(start).Line, fset.Position(fd.End()).Line
	}
	return 0, 0
}

// splitPos splits "file:line:col" (or "file:line", or "file") into its
// parts; line and col are 0 when absent.
func splitPos(pos string) (file string, line, col int) {
	file = pos
	var nums []int
	for range 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(file[i+1:])
		if err != nil || n <= 0 {
			break
		}
		nums = append([]int{n}, nums...)
		file = file[:i]
	}
	switch len(nums) {
	case 2:
		return file, nums[0], nums[1]
	case 1:
		return file, nums[0], 0
	}
	return pos, 0, 0
}

// verdictRank orders verdicts from the most to the least urgent.
func verdictRank(v string) int {
	for i, w := range verdictOrder {
		if v == w {
			return i
		}
	}
	return len(verdictOrder)
}

// sortedFunctions returns the functions with one of the verdicts (every
// function if none is given), most urgent verdict first, then by position
// and name.
func sortedFunctions(r *Report, verdicts ...string) []*Function {
	var fns []*Function
	for _, f := range r.Functions {
		if len(verdicts) == 0 || slices.Contains(verdicts, f.Verdict) {
			fns = append(fns, f)
		}
	}
	sort.Slice(fns, func(i, j int) bool {
		a, b := fns[i], fns[j]
		if ra, rb := verdictRank(a.Verdict), verdictRank(b.Verdict); ra != rb {
			return ra < rb
		}
		if a.Pos != b.Pos {
			return a.Pos < b.Pos
		}
		return a.Name < b.Name
	})
	return fns
}

// packageOf returns the import path of a function: the directory of its
// position, or what precedes the name's first dot after its last slash.
func packageOf(f *Function) string {
	if file, _, _ := splitPos(f.Pos); f.Pos != "" && strings.Contains(file, "/") {
		return path.Dir(file)
	}
	if pkg, _, ok := funcname.Split(f.Name); ok {
		return pkg
	}
	return f.Name
}

// howFailed says what failure showed the evidence: "natural error" or
// "injected error at SITE (occurrence N)".
func howFailed(e *Evidence) string {
	if e.Injection == "" {
		return "natural " + e.Failure
	}
	fault, rest, _ := strings.Cut(e.Injection, ":")
	occ, site, _ := strings.Cut(rest, ":")
	return fmt.Sprintf("injected %s at %s (occurrence %s)", fault, site, occ)
}

// The HTML page's data.
type (
	htmlPage struct {
		Summary       Summary
		ExperimentsIn string
		Counts        []htmlCountRow
		Functions     []htmlFunction
		Types         []htmlType
		Sections      []htmlSection
		Problems      []string
	}
	htmlCountRow struct {
		What                                    string
		Total, Pure, Dependent, Atomic, Unknown int
	}
	htmlFunction struct {
		*Function
		ID          string // anchor of its section, "" when it has none
		Package     string
		Short       string
		VerdictRank int
		Class       string
	}
	htmlType struct {
		*Type
		Package, Short string
		VerdictRank    int
		Class          string
	}
	htmlSection struct {
		htmlFunction
		File       string // where its source is, as the user knows it
		Line       int
		Lines      []htmlLine
		SourceErr  string
		How        string
		IsPure     bool
		Dependency string
	}
	htmlLine struct {
		N    int
		Text string
		Decl bool
	}
)

var verdictClass = map[string]string{Pure: "pure", Dependent: "dependent", Atomic: "atomic", Unknown: "unknown"}

// WriteHTML writes the report as one self-contained HTML page: the
// campaign's counts, the functions and types per verdict (as in Table II
// of Fetzer et al.), sortable tables of functions and types, and for each
// non-atomic function its source, the first differing path, the failure
// that showed it and the command that shows it again. src reads the
// functions' source; nil leaves it out. The page loads nothing: its style
// and its few lines of script are inline.
func WriteHTML(w io.Writer, r *Report, src SourceReader) error {
	page := htmlPage{
		Summary:       r.Summary,
		ExperimentsIn: (time.Duration(r.Summary.ExperimentsMs) * time.Millisecond).String(),
		Problems:      r.Problems,
	}
	fc, tc := htmlCountRow{What: "functions"}, htmlCountRow{What: "types"}
	sections := 0
	for _, f := range sortedFunctions(r) {
		hf := htmlFunction{Function: f, Package: packageOf(f), Short: displayName(f),
			VerdictRank: verdictRank(f.Verdict), Class: verdictClass[f.Verdict]}
		fc.add(f.Verdict)
		if (f.Verdict == Pure || f.Verdict == Dependent) && f.Evidence != nil {
			sections++
			hf.ID = fmt.Sprintf("f%d", sections)
			page.Sections = append(page.Sections, newSection(hf, src))
		}
		page.Functions = append(page.Functions, hf)
	}
	tnames := make([]string, 0, len(r.Types))
	for name := range r.Types {
		tnames = append(tnames, name)
	}
	sort.Strings(tnames)
	for _, name := range tnames {
		t := r.Types[name]
		tc.add(t.Verdict)
		pkg, short := name, name
		if i := strings.LastIndex(name, "."); i >= 0 {
			pkg, short = name[:i], name[i+1:]
		}
		page.Types = append(page.Types, htmlType{Type: t, Package: pkg, Short: short,
			VerdictRank: verdictRank(t.Verdict), Class: verdictClass[t.Verdict]})
	}
	page.Counts = []htmlCountRow{fc, tc}
	return htmlTemplate.Execute(w, page)
}

func (c *htmlCountRow) add(verdict string) {
	c.Total++
	switch verdict {
	case Pure:
		c.Pure++
	case Dependent:
		c.Dependent++
	case Atomic:
		c.Atomic++
	default:
		c.Unknown++
	}
}

func newSection(hf htmlFunction, src SourceReader) htmlSection {
	s := htmlSection{htmlFunction: hf, How: howFailed(hf.Evidence), IsPure: hf.Verdict == Pure}
	file, line, _ := splitPos(hf.Pos)
	s.File, s.Line = file, line
	if src == nil {
		return s
	}
	name, lines, first, err := src(hf.Pos)
	if name != "" {
		s.File = name
	}
	if err != nil {
		s.SourceErr = err.Error()
		return s
	}
	for i, text := range lines {
		n := first + i
		s.Lines = append(s.Lines, htmlLine{N: n, Text: strings.ReplaceAll(text, "\t", "    "), Decl: n == line})
	}
	return s
}

// percent is n as a share of total, for the summary table.
func percent(n, total int) string {
	if total == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(total))
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"percent": percent}).Parse(htmlSource))

// htmlSource is the page. It is also well-formed XML (void elements
// closed, no "<" or "&" in the script), so that a test can check its
// structure with encoding/xml.
const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>atomicx report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 80em; padding: 0 1em; color: #222; }
h1, h2, h3 { font-weight: 600; }
code, pre, td.pos { font-family: ui-monospace, monospace; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; }
table.sortable th { cursor: pointer; user-select: none; white-space: nowrap; }
table.sortable th::after { content: " \2195"; color: #aaa; }
table.sortable th[aria-sort=ascending]::after { content: " \2191"; color: #222; }
table.sortable th[aria-sort=descending]::after { content: " \2193"; color: #222; }
.pkg { color: #777; }
.verdict { border-radius: 0.3em; padding: 0 0.35em; white-space: nowrap; }
.pure { background: #fdd; color: #900; }
.dependent { background: #fec; color: #740; }
.atomic { background: #dfd; color: #060; }
.unknown { background: #eee; color: #555; }
section.fn { border-top: 2px solid #ccc; margin-top: 2em; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dt { color: #555; }
dd { margin: 0; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
pre.src span { display: block; }
pre.src span.decl { background: #fe9; }
pre.src i { color: #999; font-style: normal; display: inline-block; width: 4em; user-select: none; }
</style>
</head>
<body>
<h1>atomicx report</h1>
<p>Functions that fail (return an error or panic) after changing what they could reach from their receiver and arguments are <em>non-atomic</em>.
A non-atomic function is <em>pure</em> when it was the first non-atomic call along some failure's propagation (fix or mask it), and <em>dependent</em> when it is only non-atomic after a non-atomic callee (it becomes atomic when they are).</p>

<h2 id="summary">Summary</h2>
<table>
<thead><tr><th></th><th class="n">total</th><th class="n">pure non-atomic</th><th class="n">dependent non-atomic</th><th class="n">atomic</th><th class="n">unknown</th></tr></thead>
<tbody>
{{- range .Counts}}
<tr><th>{{.What}}</th><td class="n">{{.Total}}</td><td class="n">{{.Pure}} ({{percent .Pure .Total}})</td><td class="n">{{.Dependent}} ({{percent .Dependent .Total}})</td><td class="n">{{.Atomic}} ({{percent .Atomic .Total}})</td><td class="n">{{.Unknown}} ({{percent .Unknown .Total}})</td></tr>
{{- end}}
</tbody>
</table>
{{with .Summary -}}
<p>Campaign: {{.Packages}} packages, {{.Tests}} tests, {{.ProfileRuns}} profile runs, {{.Experiments}} experiments in {{$.ExperimentsIn}}
({{.Fired}} faults injected, {{.Absorbed}} stopped early when the failure was absorbed, {{.Timeouts}} timed out, {{.Crashed}} crashed).</p>
{{- end}}
{{- if .Problems}}
<p>Problems:</p>
<ul>
{{- range .Problems}}
<li><code>{{.}}</code></li>
{{- end}}
</ul>
{{- end}}

<h2 id="functions">Functions</h2>
<p>Click a column's header to sort by it.</p>
<table class="sortable" id="function-table">
<thead><tr><th>name</th><th>position</th><th>verdict</th><th class="n">failures</th><th class="n">non-atomic</th><th class="n">first in chain</th><th class="n">injections into</th><th class="n">false negatives</th></tr></thead>
<tbody>
{{- range .Functions}}
<tr><td data-k="{{.Name}}"><span class="pkg">{{.Package}}.</span>{{if .ID}}<a href="#{{.ID}}">{{.Short}}</a>{{else}}{{.Short}}{{end}}</td><td class="pos">{{.Pos}}</td><td data-k="{{.VerdictRank}}"><span class="verdict {{.Class}}">{{.Verdict}}</span></td><td class="n">{{.Failures}}</td><td class="n">{{.NonAtomic}}</td><td class="n">{{.FirstInChain}}</td><td class="n">{{.InjectionsInto}}</td><td class="n">{{.FalseNegatives}}</td></tr>
{{- end}}
</tbody>
</table>

<h2 id="types">Types</h2>
<p>A type has the most urgent verdict of its methods.</p>
<table class="sortable" id="type-table">
<thead><tr><th>name</th><th>verdict</th><th class="n">methods</th><th class="n">pure</th><th class="n">dependent</th><th class="n">atomic</th></tr></thead>
<tbody>
{{- range .Types}}
<tr><td data-k="{{.Name}}"><span class="pkg">{{.Package}}.</span>{{.Short}}</td><td data-k="{{.VerdictRank}}"><span class="verdict {{.Class}}">{{.Verdict}}</span></td><td class="n">{{len .Methods}}</td><td class="n">{{.Pure}}</td><td class="n">{{.Dependent}}</td><td class="n">{{.Atomic}}</td></tr>
{{- end}}
</tbody>
</table>

<h2 id="non-atomic">Non-atomic functions</h2>
{{- if not .Sections}}
<p>None found.</p>
{{- end}}
{{- range .Sections}}
{{- $s := .}}
<section class="fn" id="{{.ID}}">
<h3><span class="pkg">{{.Package}}.</span>{{.Short}} <span class="verdict {{.Class}}">{{.Verdict}}</span></h3>
{{- with .Evidence}}
<dl>
<dt>position</dt><dd><code>{{$s.File}}{{if $s.Line}}:{{$s.Line}}{{end}}</code></dd>
<dt>differing path</dt><dd><code>{{.Path}}</code>: <code>{{.Before}}</code> → <code>{{.After}}</code></dd>
<dt>failure</dt><dd>{{$s.How}}{{if .Error}}: <code>{{.Error}}</code>{{end}}</dd>
<dt>test</dt><dd><code>{{.Test}}</code> in <code>{{.Package}}</code></dd>
<dt>failed calls</dt><dd>{{$s.NonAtomic}} of {{$s.Failures}} changed the graph; first non-atomic call of a failure's propagation: {{$s.FirstInChain}} times</dd>
</dl>
{{- if not $s.IsPure}}
<p>Dependent: it becomes atomic once its non-atomic callees are.</p>
{{- end}}
<p>Reproduce:</p>
<pre><code>{{.Reproduce}}</code></pre>
{{- end}}
{{- if .Lines}}
<pre class="src">
{{- range .Lines}}<span{{if .Decl}} class="decl"{{end}}><i>{{.N}}</i>{{.Text}}</span>{{end -}}
</pre>
{{- else if .SourceErr}}
<p>Source not available: <code>{{.SourceErr}}</code></p>
{{- end}}
</section>
{{- end}}
<script>
document.querySelectorAll("table.sortable th").forEach(function (th) {
	th.addEventListener("click", function () {
		var table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
		var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
		table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
		th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
		var key = function (row) {
			var c = row.cells[col];
			return c.dataset.k === undefined ? c.textContent : c.dataset.k;
		};
		Array.from(body.rows).sort(function (a, b) {
			return dir * key(a).localeCompare(key(b), undefined, {numeric: true});
		}).forEach(function (row) { body.appendChild(row); });
	});
});
</script>
</body>
</html>
`
