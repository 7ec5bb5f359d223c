package report

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/atomicx/atomicx/campaign"
)

// TestClassifyRunEvents checks that events about a run (absorbed, fail)
// make no function appear in the report: they carry no position, and
// say nothing of the function's atomicity.
func TestClassifyRunEvents(t *testing.T) {
	ev := func(s string) json.RawMessage { return json.RawMessage(s) }
	recs := []*campaign.Record{
		{Kind: "profile", Package: "p", Test: "T", Events: []json.RawMessage{
			ev(`{"event":"reach","site":"p.F#entry","func":"p.F","pos":"p/f.go:3:6"}`),
			ev(`{"event":"fail","site":"p.G#entry","func":"p.G","pos":"p/f.go:9:6","call":1}`),
		}},
		{Kind: "experiment", Package: "p", Test: "T", Site: "p.F#entry", Occurrence: 1, Fault: "error", Fired: true, Status: "absorbed", Events: []json.RawMessage{
			ev(`{"event":"inject","site":"p.F#entry","func":"p.F","pos":"p/f.go:3:6","kind":"entry"}`),
			ev(`{"event":"absorbed","site":"p.H#entry","func":"p.H"}`),
		}},
	}
	r := Classify(recs, nil)
	if len(r.Functions) != 1 || r.Functions["p.F"] == nil || r.Functions["p.F"].Pos != "p/f.go:3:6" {
		t.Errorf("functions %v, want p.F only, with its position", r.Functions)
	}
	if r.Summary.Absorbed != 1 || r.Summary.Experiments != 1 || r.Summary.ProfileRuns != 1 {
		t.Errorf("summary %+v", r.Summary)
	}
}

// TestEvidenceOrder checks that the evidence of a function does not depend
// on the order in which parallel experiments reached the journal.
func TestEvidenceOrder(t *testing.T) {
	exp := func(occ uint64, after string) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "p", Test: "T", Site: "p.F#call:strconv.Atoi#1", Occurrence: occ, Fault: "error", Fired: true,
			Events: []json.RawMessage{json.RawMessage(`{"event":"verdict","site":"p.F#entry","func":"p.F","pos":"p/f.go:3:6","verdict":"non-atomic","failure":"error","path":"c.n","before":"0","after":"` + after + `","injected":true,"first":true}`)}}
	}
	a, b, c := exp(2, "1"), exp(3, "2"), exp(1, "3")
	for _, order := range [][]*campaign.Record{{a, b, c}, {c, b, a}, {b, a, c}} {
		ev := Classify(order, nil).Functions["p.F"].Evidence
		if ev == nil || ev.Injection != "error:1:p.F#call:strconv.Atoi#1" {
			t.Errorf("evidence %+v, want the experiment of occurrence 1 whatever the order", ev)
		}
	}
}

// TestNamesOfDottedPackages checks the parts of runtime names that the
// report shows: the dots of a package path's last element are escaped in
// the name, and the package shown is the import path.
func TestNamesOfDottedPackages(t *testing.T) {
	for _, tt := range []struct{ fn, short, typ, pkg string }{
		{"example.com/m.(*T).M", "(*T).M", "example.com/m.T", "example.com/m"},
		{"example.com/m.T.M", "T.M", "example.com/m.T", "example.com/m"},
		{"example.com/m.F", "F", "", "example.com/m"},
		{"gopkg.in/ini%2ev1.(*File).Reload", "(*File).Reload", "gopkg.in/ini%2ev1.File", "gopkg.in/ini.v1"},
		{"gopkg.in/ini%2ev1.Key.String", "Key.String", "gopkg.in/ini%2ev1.Key", "gopkg.in/ini.v1"},
		{"gopkg.in/ini%2ev1.Load", "Load", "", "gopkg.in/ini.v1"},
	} {
		if got := shortName(tt.fn); got != tt.short {
			t.Errorf("shortName(%q) = %q, want %q", tt.fn, got, tt.short)
		}
		if got := typeOf(tt.fn); got != tt.typ {
			t.Errorf("typeOf(%q) = %q, want %q", tt.fn, got, tt.typ)
		}
		if got := packageOf(&Function{Name: tt.fn}); got != tt.pkg {
			t.Errorf("packageOf(%q) = %q, want %q", tt.fn, got, tt.pkg)
		}
	}
}

// TestClassifyUnknownReasons checks that each reason the runtime gives
// for an unknown verdict is counted as what it is, and said so.
func TestClassifyUnknownReasons(t *testing.T) {
	const locked = "takes a lock at line 4, not by opening with x.Lock(); defer x.Unlock(): not snapshotted, as other goroutines may write what the lock guards"
	verdict := func(fn, reason string) json.RawMessage {
		return json.RawMessage(`{"event":"verdict","site":"` + fn + `#entry","func":"` + fn + `","pos":"p/f.go:3:6","verdict":"unknown","reason":"` + reason + `","failure":"error"}`)
	}
	recs := []*campaign.Record{{Kind: "natural", Package: "p", Test: "T", Events: []json.RawMessage{
		verdict("p.Locked", locked),
		verdict("p.Locked", locked),
		verdict("p.Mixed", locked),
		verdict("p.Mixed", "not snapshotted"),
		verdict("p.Mixed", "graph too large"),
		verdict("p.Sampled", "not snapshotted: sampled out"),
		verdict("p.Big", "graph too large"),
	}}}
	r := Classify(recs, nil)
	tests := []struct {
		fn                                   string
		tooLarge, notSnapshotted, noSnapshot int
		text                                 string
	}{
		{"p.Locked", 0, 0, 2, "unknown: " + locked + " (2 failed calls)"},
		{"p.Mixed", 1, 1, 1, "unknown: 3 failed calls, 1 over the snapshot budget, 1 not snapshotted (the run took another path than its profile run), 1 never snapshotted: " + locked},
		{"p.Sampled", 0, 1, 0, "unknown: 1 failed calls, 0 over the snapshot budget, 1 not snapshotted (the run took another path than its profile run)"},
		{"p.Big", 1, 0, 0, "unknown: 1 failed calls, every graph over the snapshot budget"},
	}
	for _, tt := range tests {
		f := r.Functions[tt.fn]
		if f == nil {
			t.Errorf("%s: not in the report", tt.fn)
			continue
		}
		if f.Verdict != Unknown || f.TooLarge != tt.tooLarge || f.NotSnapshotted != tt.notSnapshotted || f.NoSnapshot != tt.noSnapshot {
			t.Errorf("%s: verdict %s, too large %d, not snapshotted %d, never snapshotted %d; want unknown, %d, %d, %d",
				tt.fn, f.Verdict, f.TooLarge, f.NotSnapshotted, f.NoSnapshot, tt.tooLarge, tt.notSnapshotted, tt.noSnapshot)
		}
		if got := describe(f); got != tt.text {
			t.Errorf("%s: describe = %q\nwant %q", tt.fn, got, tt.text)
		}
	}
}

// TestClassifyFailureMarks checks what a finding says about its failing
// call: the injected call site the failure came through, the line that
// ended the call, and the non-atomic callees that failed inside it (in
// the same failure chain, before it; not those of another chain, nor a
// masked one).
func TestClassifyFailureMarks(t *testing.T) {
	verdict := func(fn string, chain int, extra string) json.RawMessage {
		return json.RawMessage(`{"event":"verdict","site":"` + fn + `#entry","func":"` + fn + `","pos":"p/f.go:3:6","verdict":"non-atomic","failure":"error","path":"x.n","before":"0","after":"1","injected":true,"chain":` + itoa(chain) + extra + `}`)
	}
	recs := []*campaign.Record{{Kind: "experiment", Package: "p", Test: "T", Site: "p.Inner#call:os.Open#1", Occurrence: 1, Fault: "error", Fired: true,
		Events: []json.RawMessage{
			json.RawMessage(`{"event":"inject","site":"p.Inner#call:os.Open#1","func":"p.Inner","pos":"p/f.go:12:9","kind":"call","chain":1}`),
			verdict("p.Inner", 1, `,"first":true,"end":13`),
			verdict("p.Masked", 1, `,"masked":true`),
			verdict("p.Elsewhere", 2, `,"first":true`),
			verdict("p.Outer", 1, `,"end":30`),
		}}}
	r := Classify(recs, nil)
	tests := []struct {
		fn, verdict, callSite string
		end                   int
		dependsOn             []string
	}{
		{"p.Inner", Pure, "p/f.go:12:9", 13, nil},
		{"p.Outer", Dependent, "p/f.go:12:9", 30, []string{"p.Inner"}},
		{"p.Elsewhere", Pure, "p/f.go:12:9", 0, nil},
	}
	for _, tt := range tests {
		f := r.Functions[tt.fn]
		if f == nil || f.Evidence == nil {
			t.Errorf("%s: no evidence", tt.fn)
			continue
		}
		if f.Verdict != tt.verdict || f.Evidence.CallSite != tt.callSite || f.Evidence.EndLine != tt.end || !slices.Equal(f.DependsOn, tt.dependsOn) {
			t.Errorf("%s: %s, call site %q, end line %d, depends on %q; want %s, %q, %d, %q", tt.fn,
				f.Verdict, f.Evidence.CallSite, f.Evidence.EndLine, f.DependsOn, tt.verdict, tt.callSite, tt.end, tt.dependsOn)
		}
	}
}

// TestTypeVerdicts checks the rule of a type's verdict: a non-atomic
// method makes it non-atomic; it is atomic only when every method is.
func TestTypeVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name                             string
		pure, dependent, atomic, unknown int
		want                             string
	}{
		{"all atomic", 0, 0, 3, 0, Atomic},
		{"partly tested", 0, 0, 1, 2, Unknown},
		{"never tested", 0, 0, 0, 2, Unknown},
		{"one pure", 1, 1, 1, 1, Pure},
		{"dependent and untested", 0, 1, 0, 1, Dependent},
	} {
		got := typeVerdict(&Type{Pure: tc.pure, Dependent: tc.dependent, Atomic: tc.atomic, Unknown: tc.unknown})
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	// Through Classify: a type with one atomic and two untested methods.
	verdict := func(fn, v string) json.RawMessage {
		return json.RawMessage(`{"event":"verdict","site":"` + fn + `#entry","func":"` + fn + `","pos":"p/f.go:3:6","verdict":"` + v + `","failure":"error"}`)
	}
	reach := func(fn string) json.RawMessage {
		return json.RawMessage(`{"event":"reach","site":"` + fn + `#entry","func":"` + fn + `","pos":"p/f.go:9:6"}`)
	}
	r := Classify([]*campaign.Record{{Kind: "profile", Package: "p", Test: "T", Status: "pass",
		Events: []json.RawMessage{verdict("p.(*T).A", "atomic"), reach("p.(*T).B"), reach("p.T.C")}}}, nil)
	typ := r.Types["p.T"]
	if typ == nil || typ.Verdict != Unknown || typ.Atomic != 1 || typ.Unknown != 2 || len(typ.Methods) != 3 {
		t.Errorf("type p.T: %+v, want unknown with 1 atomic and 2 unknown methods", typ)
	}
}

// TestSummaryOutcomesAndWallTime checks the counts of experiments by
// outcome and the wall time of one or several sessions.
func TestSummaryOutcomesAndWallTime(t *testing.T) {
	exp := func(status string, session, began, ms int64) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "p", Test: "T", Site: "p.F#entry", Occurrence: uint64(began), Fault: "error",
			Status: status, Session: session, Began: began, Millis: ms}
	}
	recs := []*campaign.Record{
		{Kind: "profile", Package: "p", Test: "T", Status: "pass", Session: 1000, Began: 1500, Millis: 100},
		exp(campaign.Failed, 1000, 2000, 300),
		exp(campaign.Failed, 1000, 2100, 2000), // ends last: 4100
		exp(campaign.Passed, 1000, 2200, 10),
		exp(campaign.Crashed, 1000, 2300, 10),
		exp(campaign.Hung, 1000, 2400, 10),
		exp(campaign.Absorbed, 1000, 2500, 10),
		exp(campaign.NotRun, 1000, 2600, 0),
		exp(campaign.Failed, 90000, 91000, 500), // a resumed session: 1500
		{Kind: "natural", Package: "p", Test: "T", Status: "fail"},
	}
	s := Classify(recs, nil).Summary
	want := Summary{Packages: 1, Tests: 1, ProfileRuns: 1, NaturalRuns: 1, Experiments: 8,
		TestFailed: 3, TestPassed: 1, Crashed: 1, Timeouts: 1, Absorbed: 1, NotStarted: 1,
		ExperimentsMs: 300 + 2000 + 10*4 + 500, WallMs: 3100 + 1500, Sessions: 2}
	if s != want {
		t.Errorf("summary\n%+v, want\n%+v", s, want)
	}
}
