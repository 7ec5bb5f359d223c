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
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

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
func SourceFiles(locate Locator) SourceReader { return SourceFilesIn("", locate) }

// SourceFilesIn is SourceFiles for a locate that gives paths relative to
// root (the module's root, whatever the working directory): they are
// read there and shown as they are.
func SourceFilesIn(root string, locate Locator) SourceReader {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	return func(pos string) (string, []string, int, error) {
		file, line, _ := splitPos(locate(pos))
		if line == 0 {
			return file, nil, 0, fmt.Errorf("position %q has no line", pos)
		}
		read := file
		if root != "" && !filepath.IsAbs(file) {
			read = filepath.Join(root, file)
		}
		data, err := os.ReadFile(read)
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
// (file, then line and column as numbers) and name.
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
		if ka, kb := posKey(a.Pos), posKey(b.Pos); ka != kb {
			return ka < kb
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
		Provenance    *Provenance
		Plan          string // the ID of the plan the campaign ran
		Summary       Summary
		ExperimentsIn string // the experiments' summed time
		Runs          string // the runs by kind, as on detect's stderr
		Times         string // wall time and experiment time
		Outcomes      string // the experiments by outcome
		Glossary      []Term
		Counts        []htmlCountRow
		Functions     []htmlFunction
		Types         []htmlType
		Sections      []htmlSection // findings whose changes a caller sees (or not ranked)
		// Folded are the findings about functions that changed only stream
		// positions or scratch: they go in a closed <details>.
		Folded   []htmlSection
		FoldText string        // the fold's summary
		Verdicts []htmlVerdict // the verdicts present, for the filter
		Problems []string
		Crashes  []*Crash
		Coverage *htmlCoverage // nil without -cover
	}
	htmlCountRow struct {
		What                                    string
		Total, Pure, Dependent, Atomic, Unknown int
	}
	htmlVerdict struct {
		Name, Class string
		Count       int
	}
	htmlFunction struct {
		*Function
		ID          string // anchor of its section, "" when it has none
		Package     string
		Short       string
		ShortPos    string // file:line, relative to the directory of all positions
		PosKey      string // sorts positions by file, then line and column as numbers
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
		// FoldedVisibility says that the function changed only stream
		// positions or scratch.
		FoldedVisibility bool
		CallSite         string    // the injected call the failure came through, file:line
		EndLine          int       // line of the return or panic that ended the failing call
		Panicked         bool      // a panic ended it
		DependsOn        []htmlRef // the non-atomic callees it depends on
		// WroteOutsideText says that failed calls wrote outside memory
		// before failing (see wroteOutsideText), or is "".
		WroteOutsideText string
	}
	htmlRef struct {
		ID, Package, Short string // ID "" when the function has no section
	}
	htmlLine struct {
		N     int
		Text  string
		Decl  bool
		Call  bool // the call site the failure came through
		End   bool // the return or panic that ended the failing call
		Class string
	}
)

var verdictClass = map[string]string{Pure: "pure", Dependent: "dependent", Atomic: "atomic", Unknown: "unknown"}

// WriteHTML writes the report as one self-contained HTML page. It opens
// on the findings — the non-atomic functions, those whose changes callers
// see first, each with its source, the call the failure came through, the
// return that ended it, the first differing path and the command that
// shows it again — with a list to jump to them and a filter by verdict;
// the campaign's counts and sortable tables of all functions and types
// follow. src reads the functions' source; nil leaves it out. The page
// loads nothing: its style and its few lines of script are inline, and
// it reads without the script.
func WriteHTML(w io.Writer, r *Report, src SourceReader) error {
	page := htmlPage{
		Provenance:    r.Provenance,
		Plan:          r.Plan,
		Summary:       r.Summary,
		ExperimentsIn: durationText(r.Summary.ExperimentsMs),
		Runs:          runCounts(r.Summary),
		Times:         timeText(r.Summary),
		Outcomes:      outcomeText(r.Summary),
		Glossary:      Glossary,
		Problems:      r.Problems,
		Crashes:       r.Crashes,
	}
	fc, tc := htmlCountRow{What: "functions"}, htmlCountRow{What: "types"}
	base := commonDir(r)
	var findings []htmlFunction
	byName := map[string]*htmlFunction{}
	for _, f := range sortedFunctions(r) {
		hf := htmlFunction{Function: f, Package: packageOf(f), Short: displayName(f),
			ShortPos: shortPos(f.Pos, base), PosKey: posKey(f.Pos),
			VerdictRank: verdictRank(f.Verdict), Class: verdictClass[f.Verdict]}
		fc.add(f.Verdict)
		if (f.Verdict == Pure || f.Verdict == Dependent) && f.Evidence != nil {
			findings = append(findings, hf)
		}
		page.Functions = append(page.Functions, hf)
	}
	// Findings: caller-visible first, those shown only through callbacks
	// last of their visibility; within a rank, as the table.
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i].Function, findings[j].Function
		if ra, rb := visibilityRank(a.Visibility), visibilityRank(b.Visibility); ra != rb {
			return ra < rb
		}
		return !onlyThroughCallbacks(a) && onlyThroughCallbacks(b)
	})
	for i := range findings {
		findings[i].ID = fmt.Sprintf("f%d", i+1)
		byName[findings[i].Name] = &findings[i]
	}
	for i := range page.Functions {
		if hf := byName[page.Functions[i].Name]; hf != nil {
			page.Functions[i].ID = hf.ID
		}
	}
	for _, hf := range findings {
		s := newSection(hf, src, base)
		for _, name := range hf.DependsOn {
			ref := htmlRef{Short: shortName(name)}
			if g := byName[name]; g != nil {
				ref.ID, ref.Package = g.ID, g.Package
			} else if g := r.Functions[name]; g != nil {
				ref.Package = packageOf(g)
			}
			s.DependsOn = append(s.DependsOn, ref)
		}
		if s.FoldedVisibility = visibilityRank(hf.Visibility) > 0; s.FoldedVisibility {
			page.Folded = append(page.Folded, s)
		} else {
			page.Sections = append(page.Sections, s)
		}
	}
	if n := len(page.Folded); n > 0 {
		what := "findings touch"
		if n == 1 {
			what = "finding touches"
		}
		page.FoldText = fmt.Sprintf("%d more %s only stream position / scratch / nil versus empty", n, what)
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
	if r.Coverage != nil {
		page.Coverage = newHTMLCoverage(r.Coverage, src, base)
	}
	page.Counts = []htmlCountRow{fc, tc}
	for _, v := range []htmlVerdict{{Pure, "pure", fc.Pure}, {Dependent, "dependent", fc.Dependent}, {Atomic, "atomic", fc.Atomic}, {Unknown, "unknown", fc.Unknown}} {
		if v.Count > 0 {
			page.Verdicts = append(page.Verdicts, v)
		}
	}
	return htmlTemplate().Execute(w, page)
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

// commonDir returns the longest directory that holds the files of every
// function's position, so that positions can be shown relative to it.
func commonDir(r *Report) string {
	base, first := "", true
	for _, f := range r.Functions {
		file, _, _ := splitPos(f.Pos)
		if f.Pos == "" || !strings.Contains(file, "/") {
			continue
		}
		dir := path.Dir(file)
		if first {
			base, first = dir, false
			continue
		}
		for base != "." && base != "/" && dir != base && !strings.HasPrefix(dir, base+"/") {
			base = path.Dir(base)
		}
	}
	return base
}

// shortPos is "file:line" of pos with the file relative to base.
func shortPos(pos, base string) string {
	file, line, _ := splitPos(pos)
	if base != "" && base != "." && strings.HasPrefix(file, base+"/") {
		file = file[len(base)+1:]
	}
	if line == 0 {
		return file
	}
	return file + ":" + strconv.Itoa(line)
}

// posKey is pos with its numbers padded, so that positions sort by file,
// then line and column as numbers ("f.go:980" before "f.go:1116").
func posKey(pos string) string {
	file, line, col := splitPos(pos)
	return fmt.Sprintf("%s:%09d:%06d", file, line, col)
}

func newSection(hf htmlFunction, src SourceReader, base string) htmlSection {
	ev := hf.Evidence
	s := htmlSection{htmlFunction: hf, How: failureText(ev), IsPure: hf.Verdict == Pure,
		EndLine: ev.EndLine, Panicked: ev.Failure == "panic"}
	if hf.WroteOutside != nil {
		s.WroteOutsideText = wroteOutsideText(hf.Function, func(pos string) string { return shortPos(pos, base) })
	}
	file, line, _ := splitPos(hf.Pos)
	s.File, s.Line = file, line
	callLine := 0
	if ev.CallSite != "" {
		s.CallSite = shortPos(ev.CallSite, base)
		if callFile, n, _ := splitPos(ev.CallSite); callFile == file {
			callLine = n
		}
	}
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
		l := htmlLine{N: n, Text: strings.ReplaceAll(text, "\t", "    "), Decl: n == line, Call: n == callLine, End: n == s.EndLine}
		var class []string
		for _, c := range []struct {
			on   bool
			name string
		}{{l.Decl, "decl"}, {l.Call, "call"}, {l.End, "end"}} {
			if c.on {
				class = append(class, c.name)
			}
		}
		l.Class = strings.Join(class, " ")
		s.Lines = append(s.Lines, l)
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

// htmlTemplate is parsed on first use (see handlersPage).
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{"percent": percent, "help": help, "unknownKinds": unknownBreakdown}).Parse(htmlSource))
})

// htmlSource is the page. It is also well-formed XML (void elements
// closed, no "<" or "&" in the script), so that a test can check its
// structure with encoding/xml.
const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>atomicx report{{with .Provenance}}: {{.Module}}{{end}}</title>
<style>
*, *::before, *::after { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 1em auto; max-width: 80em; padding: 0 1em; color: #222; line-height: 1.4; }
h1, h2, h3 { font-weight: 600; }
h1 { margin: 0.3em 0; }
h3, p, li, dd, summary { overflow-wrap: anywhere; }
code, pre, td.pos { font-family: ui-monospace, monospace; font-size: 0.9em; }
code { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; margin: 0.5em 0 1.5em; }
table { border-collapse: collapse; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; }
td.name { overflow-wrap: anywhere; min-width: 14em; }
td.pos { white-space: nowrap; }
table.sortable th button { font: inherit; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; text-align: inherit; }
table.sortable th button:focus-visible { outline: 2px solid #36c; outline-offset: 2px; }
table.sortable th button::after { content: "\00a0\2195"; color: #aaa; }
table.sortable th[aria-sort=ascending] button::after { content: "\00a0\2191"; color: #222; }
table.sortable th[aria-sort=descending] button::after { content: "\00a0\2193"; color: #222; }
.pkg { color: #777; }
.verdict { border-radius: 0.3em; padding: 0 0.35em; white-space: nowrap; font-size: 0.9em; }
.pure { background: #fdd; color: #900; }
.dependent { background: #fec; color: #740; }
.atomic { background: #dfd; color: #060; }
.unknown { background: #eee; color: #555; }
.vis { color: #555; font-size: 0.8em; font-weight: normal; }
nav.jump ol { margin: 0.3em 0; padding-left: 2.5em; max-height: 14em; overflow-y: auto; display: grid; grid-template-columns: repeat(auto-fill, minmax(min(24em, 100%), 1fr)); gap: 0 2.5em; }
nav.jump li { overflow-wrap: anywhere; }
#filter { border: 1px solid #ddd; margin: 0.5em 0; padding: 0.2em 0.6em; }
#filter label { margin-right: 1em; white-space: nowrap; }
section.fn { border-top: 2px solid #ccc; margin-top: 1em; }
section.fn h3 { margin: 0.5em 0; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.2em 1em; }
dt { color: #555; }
dd { margin: 0; min-width: 0; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; max-width: 100%; }
pre.src span { display: block; }
pre.src span.decl { background: #fe9; }
pre.src span.call { background: #cdf; }
pre.src span.end { background: #fcc; }
pre.src span.call::after { content: "  \2190 the failure came through this call"; color: #036; font-family: system-ui, sans-serif; }
pre.src span.end::after { content: "  \2190 the failing call ended here"; color: #900; font-family: system-ui, sans-serif; }
pre.src i { color: #999; font-style: normal; display: inline-block; width: 4em; user-select: none; }
details.folded > summary { cursor: pointer; margin: 1em 0; font-weight: 600; }
@media (max-width: 40em) {
	body { padding: 0 0.5em; }
	dl { display: block; }
	dt { margin-top: 0.4em; }
	pre.src i { width: 3em; }
}
</style>
</head>
<body>
<h1>atomicx report{{with .Provenance}}: {{.Module}}{{end}}</h1>
{{- with .Provenance}}
<p class="provenance">atomicx {{.Atomicx}}, {{.Go}}: <code>{{.Command}}</code>{{if and .Dir (ne .Dir ".")}} in <code>{{.Dir}}</code>{{end}}, started {{.Date}}; journal <code>{{.Journal}}</code></p>
{{- end}}
<p>Functions that fail (return an error or panic) after changing what they could reach from their receiver and arguments are <em>non-atomic</em>.
A non-atomic function is <em>pure</em> when a failed call of it is non-atomic by itself: nothing non-atomic ran inside it, or it stayed non-atomic when replayed with the non-atomic functions that ran inside it masked (fix or mask it). It is <em>dependent</em> when every such replay made it atomic (it becomes atomic when its callees are).</p>

<nav class="jump" aria-label="findings">
<p><a href="#non-atomic">Non-atomic functions</a> ({{len .Sections}}{{with .Folded}} + {{len .}} that touch only stream position / scratch / nil versus empty{{end}}) · <a href="#summary">Summary</a> · <a href="#functions">Functions</a> · <a href="#types">Types</a>{{if .Coverage}} · <a href="#coverage">Coverage</a>{{end}}</p>
{{- if or .Sections .Folded}}
<ol>
{{- range .Sections}}
<li data-verdict="{{.Class}}"><a href="#{{.ID}}">{{.Short}}</a> <span class="verdict {{.Class}}">{{.Verdict}}</span></li>
{{- end}}
{{- range .Folded}}
<li data-verdict="{{.Class}}"><a href="#{{.ID}}">{{.Short}}</a> <span class="verdict {{.Class}}">{{.Verdict}}</span> <span class="vis">{{.Visibility}}</span></li>
{{- end}}
</ol>
{{- end}}
</nav>
<fieldset id="filter" hidden="hidden">
<legend>Show verdicts</legend>
{{- range .Verdicts}}
<label><input type="checkbox" value="{{.Class}}" checked="checked"/> <span class="verdict {{.Class}}">{{.Name}}</span> ({{.Count}})</label>
{{- end}}
</fieldset>

<h2 id="non-atomic">Non-atomic functions</h2>
{{- if not (or .Sections .Folded)}}
<p>None found.</p>
{{- end}}
{{- range .Sections}}
{{template "section" .}}
{{- end}}
{{- with .Folded}}
<details class="folded"><summary>{{$.FoldText}}</summary>
{{- range .}}
{{template "section" .}}
{{- end}}
</details>
{{- end}}

<h2 id="summary">Summary</h2>
<div class="scroll">
<table>
<thead><tr><th></th><th class="n">total</th><th class="n">pure non-atomic</th><th class="n">dependent non-atomic</th><th class="n">atomic</th><th class="n">unknown</th></tr></thead>
<tbody>
{{- range .Counts}}
<tr><th>{{.What}}</th><td class="n">{{.Total}}</td><td class="n">{{.Pure}} ({{percent .Pure .Total}})</td><td class="n">{{.Dependent}} ({{percent .Dependent .Total}})</td><td class="n">{{.Atomic}} ({{percent .Atomic .Total}})</td><td class="n">{{.Unknown}} ({{percent .Unknown .Total}})</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{with .Summary -}}
{{if .AsWritten}}<p>Atomic functions left as written: {{.AsWritten}} ({{help "as written"}})</p>
{{end -}}
{{if .UnknownKinds}}<p>Unknown functions by kind{{unknownKinds .UnknownKinds}}: <em>cannot fail</em> (no error result, and panics are not injected), <em>not made to fail</em> (reached, but no failed call seen), <em>not snapshotted</em>, <em>over budget</em> (the graph was larger than the snapshot budget).</p>
{{end -}}
<p>Campaign{{if $.Plan}} (plan {{$.Plan}}){{end}}: {{.Packages}} packages, {{.Tests}} tests; {{$.Runs}}; {{$.Times}}.</p>
<p>Experiments: {{$.Outcomes}}.</p>
{{- end}}
<details id="legend">
<summary>What the words and columns mean</summary>
<dl>
{{- range .Glossary}}
<dt>{{.Name}}</dt><dd>{{.Text}}</dd>
{{- end}}
</dl>
</details>
{{- if .Crashes}}
<details id="crashes">
<summary>Crashes: experiments whose test binary died without a test verdict, by the line it died on</summary>
<ul>
{{- range .Crashes}}
<li>{{.Experiments}}× <code>{{.Message}}</code>, in {{range $i, $t := .Tests}}{{if $i}}, {{end}}<code>{{$t}}</code>{{end}}
<pre><code>{{.Reproduce}}</code></pre></li>
{{- end}}
</ul>
</details>
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
<p>Sort by a column with the button in its header.</p>
<div class="scroll">
<table class="sortable" id="function-table">
<thead><tr><th>name</th><th title="{{help "position"}}">position</th><th title="The function's verdict: pure non-atomic, dependent non-atomic, atomic or unknown (see the legend).">verdict</th><th class="n" title="{{help "failures"}}">failures</th><th class="n" title="{{help "non-atomic"}}">non-atomic</th><th class="n" title="{{help "first in chain"}}">first in chain</th><th class="n" title="{{help "injections into"}}">injections into</th><th class="n" title="{{help "false negatives"}}">false negatives</th></tr></thead>
<tbody>
{{- range .Functions}}
<tr data-verdict="{{.Class}}"><td class="name" data-k="{{.Name}}"><span class="pkg">{{.Package}}.</span>{{if .ID}}<a href="#{{.ID}}">{{.Short}}</a>{{else}}{{.Short}}{{end}}</td><td class="pos" data-k="{{.PosKey}}" title="{{.Pos}}">{{.ShortPos}}</td><td data-k="{{.VerdictRank}}"><span class="verdict {{.Class}}">{{.Verdict}}</span>{{if .UnknownKind}} <span class="kind"{{if .UnknownReason}} title="{{.UnknownReason}}"{{end}}>{{.UnknownKind}}</span>{{end}}{{if .AsWritten}} <span class="kind" title="{{help "as written"}}">as written</span>{{end}}</td><td class="n">{{.Failures}}</td><td class="n">{{.NonAtomic}}</td><td class="n">{{.FirstInChain}}</td><td class="n">{{.InjectionsInto}}</td><td class="n">{{.FalseNegatives}}</td></tr>
{{- end}}
</tbody>
</table>
</div>

<h2 id="types">Types</h2>
<p>{{help "type verdict"}}</p>
<div class="scroll">
<table class="sortable" id="type-table">
<thead><tr><th>name</th><th title="{{help "type verdict"}}">verdict</th><th class="n" title="{{help "methods"}}">methods</th><th class="n" title="Methods that are pure non-atomic.">pure</th><th class="n" title="Methods that are dependent non-atomic.">dependent</th><th class="n" title="Methods that are atomic.">atomic</th><th class="n" title="Methods whose verdict is unknown: never made to fail, or never compared.">unknown</th><th class="n" title="Methods that cannot fail (no error result, panics not injected): they do not make the type unknown.">cannot fail</th></tr></thead>
<tbody>
{{- range .Types}}
<tr data-verdict="{{.Class}}"><td class="name" data-k="{{.Name}}"><span class="pkg">{{.Package}}.</span>{{.Short}}</td><td data-k="{{.VerdictRank}}"><span class="verdict {{.Class}}">{{.Verdict}}</span></td><td class="n">{{len .Methods}}</td><td class="n">{{.Pure}}</td><td class="n">{{.Dependent}}</td><td class="n">{{.Atomic}}</td><td class="n">{{.Unknown}}</td><td class="n">{{.CannotFail}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- with .Coverage}}

<h2 id="coverage">Coverage gained by injection</h2>
<style>
pre.src span.new { background: #dfd; }
pre.src span.errpath { background: #9e9; }
</style>
<p>Statements run by the tests alone (the profile runs) and by the tests plus injection (every run), and the same for the statements of error paths: bodies of the ifs and cases taken when an error is not nil (or matches errors.Is or errors.As), deferred functions, and blocks that handle a recovered panic.</p>
<div class="scroll">
<table class="sortable" id="coverage-table">
<thead><tr><th>package</th><th class="n">statements</th><th class="n">tests alone</th><th class="n">with injection</th><th class="n">error-path statements</th><th class="n">tests alone</th><th class="n">with injection</th></tr></thead>
<tbody>
{{- range .Packages}}
<tr><td class="name">{{.ImportPath}}</td><td class="n">{{.Statements}}</td><td class="n">{{.Tests}} ({{percent .Tests .Statements}})</td><td class="n">{{.WithInjection}} ({{percent .WithInjection .Statements}})</td><td class="n">{{.ErrorPath}}</td><td class="n">{{.ErrorPathTests}} ({{percent .ErrorPathTests .ErrorPath}})</td><td class="n">{{.ErrorPathWithInjection}} ({{percent .ErrorPathWithInjection .ErrorPath}})</td></tr>
{{- end}}
</tbody>
{{- with .Total}}
<tfoot><tr><th>total</th><td class="n">{{.Statements}}</td><td class="n">{{.Tests}} ({{percent .Tests .Statements}})</td><td class="n">{{.WithInjection}} ({{percent .WithInjection .Statements}})</td><td class="n">{{.ErrorPath}}</td><td class="n">{{.ErrorPathTests}} ({{percent .ErrorPathTests .ErrorPath}})</td><td class="n">{{.ErrorPathWithInjection}} ({{percent .ErrorPathWithInjection .ErrorPath}})</td></tr></tfoot>
{{- end}}
</table>
</div>
{{- if .Functions}}
<p>Functions with lines that only the runs with a fault injected reached; those lines are marked, error paths in a stronger colour.</p>
{{- end}}
{{- range .Functions}}
<section class="cov">
<h3><span class="pkg">{{.Package}}.</span>{{.Short}} <code>{{.Pos}}</code></h3>
<p>Statements {{.Counts.Tests}} → {{.Counts.WithInjection}} of {{.Counts.Statements}}; error-path statements {{.Counts.ErrorPathTests}} → {{.Counts.ErrorPathWithInjection}} of {{.Counts.ErrorPath}}. Newly covered: {{range $i, $s := .Spans}}{{if $i}}; {{end}}{{$s}}{{end}}.</p>
{{- template "source" .}}
</section>
{{- end}}
{{- end}}
<script>
(function () {
	var filter = document.getElementById("filter");
	var apply = function () {
		var shown = {};
		filter.querySelectorAll("input").forEach(function (box) { shown[box.value] = box.checked; });
		document.querySelectorAll("[data-verdict]").forEach(function (el) {
			el.hidden = shown[el.dataset.verdict] === false;
		});
	};
	filter.hidden = false;
	filter.addEventListener("change", apply);
	apply();

	document.querySelectorAll("table.sortable th").forEach(function (th) {
		var button = document.createElement("button");
		button.type = "button";
		while (th.firstChild) { button.appendChild(th.firstChild); }
		th.appendChild(button);
		button.addEventListener("click", function () {
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

	// A finding folded away opens when the address names it.
	var reveal = function () {
		var el = location.hash ? document.getElementById(location.hash.slice(1)) : null;
		var folded = el ? el.closest("details") : null;
		if (folded) {
			folded.open = true;
			el.scrollIntoView();
		}
	};
	window.addEventListener("hashchange", reveal);
	reveal();
})();
</script>
</body>
</html>
{{define "section"}}
{{- $s := . -}}
<section class="fn" id="{{.ID}}" data-verdict="{{.Class}}">
<h3><span class="pkg">{{.Package}}.</span>{{.Short}} <span class="verdict {{.Class}}">{{.Verdict}}</span>{{with .Visibility}} <span class="vis">{{.}}</span>{{end}}</h3>
{{- with .Evidence}}
<dl>
<dt>position</dt><dd><code title="{{$s.File}}{{if $s.Line}}:{{$s.Line}}{{end}}">{{$s.ShortPos}}</code></dd>
<dt>differing path</dt><dd><code>{{.Path}}</code>: <code>{{.Before}}</code> → <code>{{.After}}</code>{{with .Callback}} through a callback (<code>{{.}}</code>){{end}}{{if $s.FoldedVisibility}} (only {{$s.Visibility}}){{end}}</dd>
<dt>failure</dt><dd>{{$s.How}}</dd>
{{- if $s.CallSite}}
<dt>came through</dt><dd>the call at <code title="{{.CallSite}}">{{$s.CallSite}}</code>, whose fault was injected</dd>
{{- end}}
{{- if $s.EndLine}}
<dt>ended</dt><dd>{{if $s.Panicked}}panicking through line {{$s.EndLine}}{{else}}by the return at line {{$s.EndLine}}{{end}}</dd>
{{- end}}
{{- with $s.WroteOutsideText}}
<dt>outside memory</dt><dd>{{.}}</dd>
{{- end}}
{{- if $s.DependsOn}}
<dt>depends on</dt><dd>{{range $i, $d := $s.DependsOn}}{{if $i}}, {{end}}{{if $d.ID}}<a href="#{{$d.ID}}">{{$d.Short}}</a>{{else}}{{$d.Short}}{{end}}{{end}}</dd>
{{- end}}
<dt>test</dt><dd><code>{{.Test}}</code> in <code>{{.Package}}</code></dd>
<dt>failed calls</dt><dd>{{$s.NonAtomic}} of {{$s.Failures}} changed the state; non-atomic by itself: {{$s.PureWhenMasked}}, atomic with the non-atomic functions inside masked: {{$s.DependentWhenMasked}}{{if $s.PracticalRule}}; verdict by the practical rule: {{$s.PracticalRule}}{{end}}</dd>
</dl>
{{- if not $s.IsPure}}
<p>Dependent: it becomes atomic once its non-atomic callees are.</p>
{{- end}}
<p>Reproduce (in the module's directory):</p>
<pre><code>{{with .AtomicxReproduce}}{{.}}</code></pre>
<p>or, by hand:</p>
<pre><code>{{end}}{{.Reproduce}}</code></pre>
{{- end}}
{{- template "source" .}}
</section>
{{- end}}
{{- define "source"}}
{{- if .Lines}}
<pre class="src">
{{- range .Lines}}<span{{with .Class}} class="{{.}}"{{end}}><i>{{.N}}</i>{{.Text}}</span>{{end -}}
</pre>
{{- else if .SourceErr}}
<p>Source not available: <code>{{.SourceErr}}</code></p>
{{- end}}
{{- end}}
`
