package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixtureJournal is a small campaign over example.com/m/store, one record
// a line as the journal holds them.
const fixtureJournal = `
{"v":3,"kind":"profile","pkg":"example.com/m/store","test":"TestAdd","status":"pass","ms":12,"events":[
 {"event":"reach","site":"example.com/m/store.(*Store).Add#entry","func":"example.com/m/store.(*Store).Add","pos":"example.com/m/store/store.go:26:17"},
 {"event":"reach","site":"example.com/m/store.(*Store).add#entry","func":"example.com/m/store.(*Store).add","pos":"example.com/m/store/store.go:16:17"},
 {"event":"verdict","site":"example.com/m/store.(*Store).add#entry","func":"example.com/m/store.(*Store).add","pos":"example.com/m/store/store.go:16:17","verdict":"non-atomic","failure":"error","path":"s.count","before":"1","after":"2","error":"negative <-1> & \"worse\"","chain":1,"first":true,"end":18},
 {"event":"verdict","site":"example.com/m/store.(*Store).Add#entry","func":"example.com/m/store.(*Store).Add","pos":"example.com/m/store/store.go:26:17","verdict":"non-atomic","failure":"error","path":"s.count","before":"1","after":"2","error":"negative","chain":1}]}
{"v":3,"kind":"profile","pkg":"example.com/m/store","test":"TestParse","status":"pass","ms":3,"events":[
 {"event":"reach","site":"example.com/m/store.Parse#entry","func":"example.com/m/store.Parse","pos":"example.com/m/store/parse.go:5:6"},
 {"event":"verdict","site":"example.com/m/store.Parse#entry","func":"example.com/m/store.Parse","pos":"example.com/m/store/parse.go:5:6","verdict":"atomic","failure":"error","error":"bad"},
 {"event":"reach","site":"example.com/m/store.(*Store).Len#entry","func":"example.com/m/store.(*Store).Len","pos":"example.com/m/store/store.go:60:17"}]}
{"v":3,"kind":"experiment","pkg":"example.com/m/store","test":"TestAddAll","site":"example.com/m/store.(*Store).add#entry","occurrence":2,"fault":"error","status":"absorbed","fired":true,"ms":40,"events":[
 {"event":"inject","kind":"entry","site":"example.com/m/store.(*Store).add#entry","func":"example.com/m/store.(*Store).add","pos":"example.com/m/store/store.go:16:17","fault":"error","occurrence":2,"chain":7},
 {"event":"verdict","site":"example.com/m/store.(*Store).AddAll#entry","func":"example.com/m/store.(*Store).AddAll","pos":"example.com/m/store/store.go:35:17","verdict":"non-atomic","failure":"error","path":"s.items","before":"nil","after":"len=1","error":"injected","injected":true,"chain":7,"first":true}]}
{"v":3,"kind":"experiment","pkg":"example.com/m/store","test":"TestParse","site":"example.com/m/store.Parse#entry","occurrence":1,"fault":"error","status":"timeout","fired":true,"ms":1000,"events":[
 {"event":"inject","kind":"entry","site":"example.com/m/store.Parse#entry","func":"example.com/m/store.Parse","pos":"example.com/m/store/parse.go:5:6","fault":"error","occurrence":1,"chain":3}]}
`

// fixtureReport classifies fixtureJournal.
func fixtureReport(t *testing.T) *Report {
	t.Helper()
	problems := []campaign.Problem{{Path: "j/journal.jsonl", Line: 9, Err: errors.New("unexpected end of JSON input")}}
	return Classify(fixtureRecords(t), problems)
}

// fixtureRecords are the records of fixtureJournal.
func fixtureRecords(t *testing.T) []*campaign.Record {
	t.Helper()
	var recs []*campaign.Record
	dec := json.NewDecoder(strings.NewReader(fixtureJournal))
	for {
		var r campaign.Record
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("fixture: %v", err)
		}
		recs = append(recs, &r)
	}
	return recs
}

// fixtureSource serves store.go's functions; parse.go is missing.
func fixtureSource(pos string) (string, []string, int, error) {
	file, line, _ := splitPos(pos)
	if !strings.HasSuffix(file, "/store.go") {
		return "", nil, 0, errors.New("no such file")
	}
	lines := []string{
		"// doc comment of the function at line " + itoa(line),
		"func (s *Store) f(x int) error {",
		"\tif x < 0 && x != -2 {",
		"\t\treturn errors.New(\"<negative>\")",
		"\t}",
		"\treturn nil",
		"}",
	}
	return "store/store.go", lines, line - 1, nil
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it); got:\n%s", file, got)
	}
}

func TestWriteHTML(t *testing.T) {
	r := fixtureReport(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, fixtureSource); err != nil {
		t.Fatal(err)
	}
	out := buf.String()

	checkWellFormed(t, out)
	if strings.Contains(out, "http://") || strings.Contains(out, "https://") {
		t.Errorf("the page refers to the network")
	}
	for name := range r.Functions {
		short := shortName(name)
		if !strings.Contains(out, `data-k="`+name+`"`) || !strings.Contains(out, ">"+short+"<") {
			t.Errorf("function %s missing from the page", name)
		}
	}
	for _, want := range []string{
		`<td class="n">5</td><td class="n">2 (40%)</td><td class="n">1 (20%)</td><td class="n">1 (20%)</td><td class="n">1 (20%)</td>`,
		`<dd>natural error &#34;negative &lt;-1&gt; &amp; \&#34;worse\&#34;&#34;</dd>`,
		`<code>s.items</code>: <code>nil</code> → <code>len=1</code>`,
		`injected error at example.com/m/store.(*Store).add#entry (occurrence 2)`,
		`ATOMICX_INJECT=&#39;error:2:example.com/m/store.(*Store).add#entry&#39;`,
		`<span class="decl"><i>16</i>func (s *Store) f(x int) error {</span>`,
		`    return errors.New(&#34;&lt;negative&gt;&#34;)`,
		`Dependent: it becomes atomic once its non-atomic callees are.`,
		`j/journal.jsonl:9: skipped`,
		`<table class="sortable" id="function-table">`,
		`<span class="end"><i>18</i>        return errors.New(&#34;&lt;negative&gt;&#34;)</span>`,
		`<dt>ended</dt><dd>by the return at line 18</dd>`,
		`<dt>depends on</dt><dd><a href="#f1">(*Store).add</a></dd>`,
		`<td class="pos" data-k="example.com/m/store/store.go:000000016:000017" title="example.com/m/store/store.go:16:17">store.go:16</td>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(out, "<-1>") || strings.Contains(out, `"<negative>"`) {
		t.Errorf("unescaped text in the page")
	}
	golden(t, "report.html", buf.Bytes())

	// The same report renders the same page.
	var again bytes.Buffer
	if err := WriteHTML(&again, fixtureReport(t), fixtureSource); err != nil {
		t.Fatal(err)
	}
	if again.String() != out {
		t.Errorf("WriteHTML is not deterministic")
	}
}

// TestWriteHTMLFindings checks the order of the findings and what each
// marks: caller-visible ones first, the others folded; the call the
// failure came through and the return that ended it; the callees a
// dependent finding depends on.
func TestWriteHTMLFindings(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, manyFunctionsReport(), longSource); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	checkWellFormed(t, out)
	// Sections in page order, and where the folded ones start.
	var order []string
	for _, m := range regexp.MustCompile(`<section class="fn" id="(f\d+)"[^>]*>\n<h3><span class="pkg">[^<]*</span>([^ ]+) `).FindAllStringSubmatch(out, -1) {
		order = append(order, m[1]+" "+m[2])
	}
	want := []string{
		"f1 (*FlagSet).parseArgs", "f2 (*FlagSet).set", "f3 (*FlagSet).Parse", "f4 (*Writer).writeSectionNumber3",
		"f5 (*Writer).writeSectionNumber0", "f6 (*Writer).writeSectionNumber2", "f7 (*Writer).writeSectionNumber4", "f8 (*Writer).writeSectionNumber1",
	}
	if !slices.Equal(order, want) {
		t.Errorf("findings in order %q, want %q", order, want)
	}
	folded := strings.Index(out, `<details class="folded">`)
	if folded < 0 || strings.Index(out, `id="f4"`) > folded || strings.Index(out, `id="f5"`) < folded {
		t.Errorf("stream and scratch findings are not the folded ones")
	}
	for _, want := range []string{
		`<li data-verdict="pure"><a href="#f1">(*FlagSet).parseArgs</a>`,
		`<span class="decl"><i>980</i>`,
		`<span class="call"><i>985</i>`,
		`<span class="end"><i>987</i>`,
		`<dt>came through</dt><dd>the call at <code title="github.com/example/a-module-with-a-rather-long-name/internal/configuration/flag.go:985:12">flag.go:985</code>`,
		`<dt>ended</dt><dd>panicking through line 2004</dd>`,
		`<dt>depends on</dt><dd><a href="#f1">(*FlagSet).parseArgs</a></dd>`,
		`<fieldset id="filter" hidden="hidden">`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestPosKeyOrder(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"m/flag.go:980:2", "m/flag.go:1116:2"},
		{"m/flag.go:12:2", "m/flag.go:12:10"},
		{"m/a.go:900:1", "m/b.go:1:1"},
	} {
		if posKey(c.a) >= posKey(c.b) {
			t.Errorf("posKey(%q) does not sort before posKey(%q)", c.a, c.b)
		}
	}
}

func TestShortPos(t *testing.T) {
	r := &Report{Functions: map[string]*Function{
		"a": {Pos: "example.com/m/store/store.go:16:17"},
		"b": {Pos: "example.com/m/parse.go:5:6"},
		"c": {Pos: ""},
	}}
	base := commonDir(r)
	if base != "example.com/m" {
		t.Fatalf("commonDir = %q", base)
	}
	for pos, want := range map[string]string{
		"example.com/m/store/store.go:16:17": "store/store.go:16",
		"example.com/m/parse.go:5:6":         "parse.go:5",
		"other.org/x/y.go:3:1":               "other.org/x/y.go:3",
	} {
		if got := shortPos(pos, base); got != want {
			t.Errorf("shortPos(%q) = %q, want %q", pos, got, want)
		}
	}
}

func TestWriteHTMLWithoutSource(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, fixtureReport(t), nil); err != nil {
		t.Fatal(err)
	}
	checkWellFormed(t, buf.String())
	if strings.Contains(buf.String(), `<pre class="src">`) {
		t.Errorf("source shown without a SourceReader")
	}
	buf.Reset()
	if err := WriteHTML(&buf, &Report{Functions: map[string]*Function{}, Types: map[string]*Type{}}, nil); err != nil {
		t.Fatal(err)
	}
	checkWellFormed(t, buf.String())
	if !strings.Contains(buf.String(), "None found.") {
		t.Errorf("empty report does not say so")
	}
}

// checkWellFormed parses the page as XML, HTML entities allowed: every
// element closed, attributes quoted, the script free of markup.
func checkWellFormed(t *testing.T, page string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	depth, elements := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line, _ := d.InputPos()
			t.Fatalf("page is not well formed at line %d: %v", line, err)
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
			elements++
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 || elements == 0 {
		t.Fatalf("page has %d elements, %d unclosed", elements, depth)
	}
}

func TestSourceFiles(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\n// F does it.\n// Twice.\nfunc F() error {\n\treturn nil\n}\n\nvar v = func() {}\n"
	file := filepath.Join(dir, "p.go")
	if err := os.WriteFile(file, []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
	locate := func(pos string) string { return strings.Replace(pos, "example.com/p/p.go", file, 1) }
	read := SourceFiles(locate)

	name, lines, first, err := read("example.com/p/p.go:5:6")
	if err != nil || name != file || first != 3 || len(lines) != 5 || lines[2] != "func F() error {" || lines[4] != "}" {
		t.Errorf("F: %q %q %d %v", name, lines, first, err)
	}
	// No declaration on the line: the lines around it.
	_, lines, first, err = read("example.com/p/p.go:9:9")
	if err != nil || first != 6 || lines[3] != "var v = func() {}" {
		t.Errorf("literal: %q %d %v", lines, first, err)
	}
	if _, _, _, err := read("example.com/p/nope.go:1:1"); err == nil {
		t.Errorf("missing file: no error")
	}
}

func TestSplitPos(t *testing.T) {
	for _, c := range []struct {
		pos       string
		file      string
		line, col int
	}{
		{"example.com/m/f.go:3:4", "example.com/m/f.go", 3, 4},
		{"f.go:3", "f.go", 3, 0},
		{"f.go", "f.go", 0, 0},
		{`C:\src\f.go:10:2`, `C:\src\f.go`, 10, 2},
		{"", "", 0, 0},
	} {
		file, line, col := splitPos(c.pos)
		if file != c.file || line != c.line || col != c.col {
			t.Errorf("splitPos(%q) = %q, %d, %d; want %q, %d, %d", c.pos, file, line, col, c.file, c.line, c.col)
		}
	}
}
