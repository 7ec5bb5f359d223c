package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

func TestShellQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"atomicx", "atomicx"},
		{"/home/u/go/bin/atomicx", "/home/u/go/bin/atomicx"},
		{"-tags=a,b", "-tags=a,b"},
		{"example.com/m.(*T).M", "'example.com/m.(*T).M'"},
		{"/my dir/atomicx", "'/my dir/atomicx'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
		{"$HOME", "'$HOME'"},
	} {
		if got := shellQuote(c.in); got != c.want {
			t.Errorf("shellQuote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestArmingWords: a reproduce line's arming is arm's variables in arm's
// order, each value one shell word, a log under $PWD left to the shell.
func TestArmingWords(t *testing.T) {
	for _, c := range []struct {
		a    arm.Arming
		want string
	}{
		{arm.Arming{}, ""},
		{
			arm.Arming{Inject: arm.Injection{Fault: arm.FaultError, Occurrence: 2, Site: "m.(*T).add#entry"}, Mask: []string{"m.A#entry", "m.B#entry"},
				Snapshots: arm.SnapshotsAll, Log: reproduceLog},
			"ATOMICX_INJECT='error:2:m.(*T).add#entry' ATOMICX_MASK='m.A#entry;m.B#entry' ATOMICX_SNAPSHOTS=all ATOMICX_LOG=$PWD/events.jsonl",
		},
		{arm.Arming{Route: []string{"m.F#handler:f.go:3:2"}}, "ATOMICX_ROUTE='m.F#handler:f.go:3:2'"},
		{arm.Arming{Log: "$PWD/my log's.jsonl"}, `ATOMICX_LOG=$PWD/'my log'\''s.jsonl'`},
		{arm.Arming{Log: "/tmp/$x/events.jsonl"}, "ATOMICX_LOG='/tmp/$x/events.jsonl'"},
	} {
		if got := strings.Join(armingWords(c.a), " "); got != c.want {
			t.Errorf("armingWords(%+v) = %s, want %s", c.a, got, c.want)
		}
	}
}

// withHeader is the fixture campaign with the header a campaign in
// /src/repo/m writes.
func withHeader(t *testing.T, h *campaign.Header) *Report {
	t.Helper()
	recs := append([]*campaign.Record{{Kind: "campaign", Campaign: h}}, fixtureRecords(t)...)
	return Classify(recs, nil)
}

func fixtureHeader() *campaign.Header {
	return &campaign.Header{
		Module: "example.com/m", ModuleRoot: "/src/repo/m", RepoRoot: "/src/repo", Dir: "/src/repo/m/store",
		Journal: "/src/repo/m/.j", Patterns: []string{"./..."}, Policy: "/src/repo/m/.j/atomicheck.toml",
		BuildArgs: []string{"-tags=x y", "-race"}, Atomicx: "/opt/my tools/atomicx", Version: "v1.2.3",
		GoVersion: "go1.24.1", Command: []string{"/opt/my tools/atomicx", "detect", "-tags=x y", "-race", "./..."},
		Date: "2025-01-02T03:04:05Z",
	}
}

func TestReproduceLines(t *testing.T) {
	cases := []struct {
		name        string
		header      *campaign.Header
		fn          string
		raw, subcmd string
	}{
		{
			name:   "no header: atomicx on PATH, the module's own policy",
			fn:     "example.com/m/store.(*Store).AddAll",
			raw:    "ATOMICX_INJECT='error:2:example.com/m/store.(*Store).add#entry' ATOMICX_SNAPSHOTS=all ATOMICX_LOG=$PWD/events.jsonl atomicx go test -count=1 -run '^TestAddAll$' example.com/m/store",
			subcmd: "",
		},
		{
			name:   "header: the journal's policy, flags and binary by absolute path",
			header: fixtureHeader(),
			fn:     "example.com/m/store.(*Store).AddAll",
			raw:    "ATOMICX_POLICY=/src/repo/m/.j/atomicheck.toml ATOMICX_INJECT='error:2:example.com/m/store.(*Store).add#entry' ATOMICX_SNAPSHOTS=all ATOMICX_LOG=$PWD/events.jsonl '/opt/my tools/atomicx' go test -count=1 '-tags=x y' -race -run '^TestAddAll$' example.com/m/store",
			subcmd: "'/opt/my tools/atomicx' reproduce -journal /src/repo/m/.j 'example.com/m/store.(*Store).AddAll'",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := fixtureReport(t)
			if c.header != nil {
				r = withHeader(t, c.header)
			}
			e := r.Functions[c.fn].Evidence
			if e.Reproduce != c.raw {
				t.Errorf("reproduce:\n got %s\nwant %s", e.Reproduce, c.raw)
			}
			if e.AtomicxReproduce != c.subcmd {
				t.Errorf("atomicx reproduce:\n got %s\nwant %s", e.AtomicxReproduce, c.subcmd)
			}
		})
	}
}

func TestProvenanceInEveryFormat(t *testing.T) {
	r := withHeader(t, fixtureHeader())
	if r.Summary.Experiments != fixtureReport(t).Summary.Experiments || r.Summary.Packages != 1 {
		t.Errorf("the header counted as a run: %+v", r.Summary)
	}
	want := Provenance{Atomicx: "v1.2.3", Go: "go1.24.1", Module: "example.com/m", Dir: "store",
		Command: "atomicx detect '-tags=x y' -race ./...", Date: "2025-01-02T03:04:05Z", Journal: ".j"}
	if *r.Provenance != want {
		t.Errorf("provenance %+v, want %+v", *r.Provenance, want)
	}
	text, js, html, sarif := everyFormat(t, r)
	for _, c := range []struct {
		format string
		out    string
		want   []string
	}{
		{"text", text, []string{"atomicx v1.2.3, go1.24.1, module example.com/m: atomicx detect '-tags=x y' -race ./... (in store), 2025-01-02T03:04:05Z, journal .j\n"}},
		{"json", js, []string{`"provenance": {`, `"atomicx": "v1.2.3"`, `"go": "go1.24.1"`, `"module": "example.com/m"`, `"command": "atomicx detect '-tags=x y' -race ./..."`, `"date": "2025-01-02T03:04:05Z"`, `"journal": ".j"`}},
		{"html", html, []string{"<title>atomicx report: example.com/m</title>", "atomicx v1.2.3, go1.24.1", "2025-01-02T03:04:05Z", "<code>.j</code>"}},
		{"sarif", sarif, []string{`"commandLine": "atomicx detect '-tags=x y' -race ./..."`, `"startTimeUtc": "2025-01-02T03:04:05Z"`, `"atomicxVersion": "v1.2.3"`, `"goVersion": "go1.24.1"`, `"module": "example.com/m"`, `"journal": ".j"`}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.out, w) {
				t.Errorf("%s lacks %q:\n%s", c.format, w, c.out)
			}
		}
		if strings.Contains(c.out, "/src/repo/m/store") {
			t.Errorf("%s has the campaign's absolute directory", c.format)
		}
	}
}

func TestSARIFRoots(t *testing.T) {
	r := fixtureReport(t)
	roots := []SourceRoot{
		{ID: "%SRCROOT%", Dir: "/src/repo", Description: "repository"},
		{ID: "GOMODCACHE", Dir: "/home/u/go/pkg/mod", Description: "module cache"},
	}
	for _, c := range []struct {
		name, located, uri, base string
	}{
		{"in the repository", "/src/repo/m/store/store.go:16:17", `"uri": "m/store/store.go"`, `"uriBaseId": "%SRCROOT%"`},
		{"in the module cache", "/home/u/go/pkg/mod/example.com/m@v1.0.0/store/store.go:16:17", `"uri": "example.com/m@v1.0.0/store/store.go"`, `"uriBaseId": "GOMODCACHE"`},
		{"elsewhere", "/elsewhere/store.go:16:17", `"uri": "example.com/m/store/store.go"`, ""},
		{"not found", "example.com/m/store/store.go:16:17", `"uri": "example.com/m/store/store.go"`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteSARIF(&buf, r, func(string) string { return c.located }, SARIFOptions{}, roots...); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !strings.Contains(out, c.uri) {
				t.Errorf("lacks %s:\n%s", c.uri, out)
			}
			if c.base != "" && !strings.Contains(out, c.base) {
				t.Errorf("lacks %s", c.base)
			}
			if c.base == "" && strings.Contains(out, `"uriBaseId"`) {
				t.Errorf("a location outside every root has a base:\n%s", out)
			}
			if strings.Contains(out, "file://") || strings.Contains(out, `"uri": "/`) {
				t.Errorf("absolute URI:\n%s", out)
			}
		})
	}
}

// TestWallTimeInEveryFormat checks that every format gives the one wall
// time of the campaign, worked out from its runs' records.
func TestWallTimeInEveryFormat(t *testing.T) {
	recs := append([]*campaign.Record{{Kind: "campaign", Campaign: fixtureHeader()}}, fixtureRecords(t)...)
	for _, rec := range recs[1:] {
		rec.Session, rec.Began = 1_000_000, 0
	}
	// The session started at 1000s; its last run ends at 1015.2s.
	recs[1].Began, recs[1].Millis = 1_000_500, 300
	recs[2].Began, recs[2].Millis = 1_014_000, 1200
	r := Classify(recs, nil)
	if r.Summary.WallMs != 15200 || r.Summary.Sessions != 1 {
		t.Fatalf("wall time %dms over %d sessions, want 15200ms over 1", r.Summary.WallMs, r.Summary.Sessions)
	}
	text, js, html, sarif := everyFormat(t, r)
	for _, c := range []struct{ format, out, want string }{
		{"text", text, "; wall time 15.2s, experiment time"},
		{"json", js, `"wall_ms": 15200,`},
		{"html", html, "wall time 15.2s, experiment time"},
		{"sarif", sarif, `"wallTime": "15.2s",`},
		{"sarif", sarif, `"wallTimeMs": 15200`},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.format, c.want, c.out)
		}
	}
}

// everyFormat writes r in the text, JSON, HTML and SARIF formats.
func everyFormat(t *testing.T, r *Report) (text, js, html, sarif string) {
	t.Helper()
	var tb, jb, hb, sb bytes.Buffer
	WriteText(&tb, r, nil, false)
	if err := WriteJSON(&jb, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&hb, r, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteSARIF(&sb, r, nil, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	return tb.String(), jb.String(), hb.String(), sb.String()
}

// TestReproduceMasked: evidence found in a replay with callees masked is
// run again as the recheck ran it, the masked functions' writes to files
// undone with their memory.
func TestReproduceMasked(t *testing.T) {
	ev := &Evidence{Mask: "example.com/m.(*T).a#entry;example.com/m.(*T).b#entry", Test: "TestX", Package: "example.com/m"}
	got := reproduce(ev, nil)
	for _, want := range []string{
		"ATOMICX_MASK='example.com/m.(*T).a#entry;example.com/m.(*T).b#entry'",
		"ATOMICX_UNDO_FILES='example.com/m.(*T).a#entry;example.com/m.(*T).b#entry'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("reproduce line %s\nlacks %s", got, want)
		}
	}
}
