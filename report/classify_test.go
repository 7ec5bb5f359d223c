package report

import (
	"encoding/json"
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
		// Function literals belong to no type, even in a method.
		{"example.com/m.(*T).M.func1", "(*T).M.func1", "", "example.com/m"},
		{"example.com/m.T.M.func2.1", "T.M.func2.1", "", "example.com/m"},
		{"example.com/m.init.func1", "init.func1", "", "example.com/m"},
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

// TestDisplayName checks how reports name functions for people: function
// literals as "closure in X, file:line", after what the events say they
// are written in, or else after their runtime name.
func TestDisplayName(t *testing.T) {
	for _, tt := range []struct {
		f    Function
		want string
	}{
		{Function{Name: "example.com/m.(*T).M", Pos: "example.com/m/t.go:3:6"}, "(*T).M"},
		{Function{Name: "example.com/m.init.func1", Pos: "example.com/m/store.go:16:12", In: "save"}, "closure in save, store.go:16"},
		{Function{Name: "example.com/m.(*T).M.func2.1", Pos: "example.com/m/t.go:9:3", In: "(*T).M"}, "closure in (*T).M, t.go:9"},
		{Function{Name: "example.com/m.(*T).M.func2.1", Pos: "example.com/m/t.go:9:3"}, "closure in (*T).M, t.go:9"},
		{Function{Name: "gopkg.in/ini%2ev1.Load.func1", Pos: "gopkg.in/ini.v1/ini.go:20:7"}, "closure in Load, ini.go:20"},
	} {
		if got := displayName(&tt.f); got != tt.want {
			t.Errorf("displayName(%s) = %q, want %q", tt.f.Name, got, tt.want)
		}
	}
}
