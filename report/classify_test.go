package report

import (
	"encoding/json"
	"html/template"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
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
		{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.F#entry", Occurrence: 1, Fault: "error"}}, Fired: true, Status: "absorbed", Events: []json.RawMessage{
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
		return &campaign.Record{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.F#call:strconv.Atoi#1", Occurrence: occ, Fault: "error"}}, Fired: true,
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
		kind, text                           string
	}{
		{"p.Locked", 0, 0, 2, NotSnapshotted, "unknown (not snapshotted): " + locked + " (2 failed calls)"},
		{"p.Mixed", 1, 1, 1, NotSnapshotted, "unknown (not snapshotted): 3 failed calls, 1 over the snapshot budget, 1 not snapshotted (the run took another path than its profile run), 1 never snapshotted: " + locked},
		{"p.Sampled", 0, 1, 0, NotSnapshotted, "unknown (not snapshotted): 1 failed calls, 0 over the snapshot budget, 1 not snapshotted (the run took another path than its profile run)"},
		{"p.Big", 1, 0, 0, OverBudget, "unknown (over budget): 1 failed calls, every graph over the snapshot budget"},
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
		if f.UnknownKind != tt.kind {
			t.Errorf("%s: kind %q, want %q", tt.fn, f.UnknownKind, tt.kind)
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
	recs := []*campaign.Record{{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.Inner#call:os.Open#1", Occurrence: 1, Fault: "error"}}, Fired: true,
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
		return &campaign.Record{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.F#entry", Occurrence: uint64(began), Fault: "error"}},
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
	if s.UnknownKinds = nil; !reflect.DeepEqual(s, want) {
		t.Errorf("summary\n%+v, want\n%+v", s, want)
	}
}

// TestClassifyBlame checks pure and dependent by replays: a function is
// dependent when its failed calls were atomic with the non-atomic
// functions that ran inside them masked, whatever helper passed the error
// on; when no replay settles it, the practical rule decides and the
// report says why.
func TestClassifyBlame(t *testing.T) {
	v := func(fn, verdict string, seq int, first, masked bool) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"event": "verdict", "pid": 1, "site": fn + "#entry", "func": fn, "pos": "p/f.go:3:6",
			"verdict": verdict, "failure": "error", "path": "x", "before": "0", "after": "1", "injected": true,
			"first": first, "masked": masked, "g": 1, "seq": seq, "chain": 1})
		return b
	}
	exp := func(occ uint64, events ...json.RawMessage) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.X#call:strconv.Atoi#1", Occurrence: occ, Fault: "error"}}, Fired: true, Events: events}
	}
	replay := func(occ uint64, mask string, events ...json.RawMessage) *campaign.Record {
		r := exp(occ, events...)
		r.Kind, r.Arming.Mask = "recheck", arm.SplitIDs(mask)
		return r
	}
	recs := []*campaign.Record{
		// Set changes the flag and fails inside parseLongArg; fail (a
		// pass-through helper) starts a new chain, in which parseLongArg
		// is first.
		exp(1, v("p.Set", "non-atomic", 3, true, false), v("p.fail", "atomic", 4, false, false), v("p.parseLongArg", "non-atomic", 2, true, false)),
		replay(1, "p.Set#entry", v("p.Set", "non-atomic", 3, true, true), v("p.fail", "atomic", 4, false, false), v("p.parseLongArg", "atomic", 2, false, false)),
		// Load changes its own state after Read changed its: pure.
		exp(2, v("p.Read", "non-atomic", 3, true, false), v("p.Load", "non-atomic", 2, false, false)),
		replay(2, "p.Read#entry", v("p.Read", "non-atomic", 3, true, true), v("p.Load", "non-atomic", 2, true, false)),
		// A Set call that failed before the fault, not snapshotted: this
		// call of parseLongArg is unsettled, and the one above decides.
		exp(4, json.RawMessage(`{"event":"verdict","pid":1,"site":"p.Set#entry","func":"p.Set","verdict":"unknown","reason":"not snapshotted: failed before the fault","g":1,"seq":3}`),
			v("p.parseLongArg", "non-atomic", 2, true, false)),
		// Deep has four non-atomic functions inside: over the bound.
		exp(3, v("p.A", "non-atomic", 6, true, false), v("p.B", "non-atomic", 5, false, false), v("p.C", "non-atomic", 4, false, false),
			v("p.D", "non-atomic", 3, false, false), v("p.Deep", "non-atomic", 2, false, false)),
	}
	r := Classify(recs, nil)
	tests := []struct {
		fn, verdict, practical string
		pure, dependent        int
	}{
		{"p.Set", Pure, "", 1, 0},
		{"p.parseLongArg", Dependent, "", 0, 1},
		{"p.Read", Pure, "", 1, 0},
		{"p.Load", Pure, "", 1, 0},
		{"p.Deep", Dependent, "1 non-atomic failed calls had more than 3 non-atomic functions inside them to mask", 0, 0},
		// C's replay (A and B masked) is not in the journal: no answer.
		{"p.C", Dependent, "1 non-atomic failed calls were not made to fail again by a replay", 0, 0},
	}
	for _, tt := range tests {
		f := r.Functions[tt.fn]
		if f == nil {
			t.Errorf("%s: not in the report", tt.fn)
			continue
		}
		if f.Verdict != tt.verdict || f.PracticalRule != tt.practical || f.PureWhenMasked != tt.pure || f.DependentWhenMasked != tt.dependent {
			t.Errorf("%s: %s (practical rule %q), pure calls %d, dependent calls %d; want %s (%q), %d, %d",
				tt.fn, f.Verdict, f.PracticalRule, f.PureWhenMasked, f.DependentWhenMasked, tt.verdict, tt.practical, tt.pure, tt.dependent)
		}
	}
	if ev := r.Functions["p.Load"].Evidence; ev == nil || ev.Mask != "p.Read#entry" {
		t.Errorf("Load's evidence %+v, want the replay with Read masked", ev)
	}
	if ev := r.Functions["p.Set"].Evidence; ev == nil || ev.Mask != "" || ev.Injection != "error:1:p.X#call:strconv.Atoi#1" {
		t.Errorf("Set's evidence %+v, want the plain experiment", ev)
	}
}

// TestClassifyUnknownKinds checks the kinds of unknown verdicts of
// functions that never failed: one that no fault can make fail, and ones
// that injection did not make fail, each with its reason; and the
// summary's count of each kind.
func TestClassifyUnknownKinds(t *testing.T) {
	ev := func(s string) json.RawMessage { return json.RawMessage(s) }
	reach := func(site, fn, stack string, faults int) json.RawMessage {
		return ev(`{"event":"reach","site":"` + site + `","func":"` + fn + `","pos":"p/f.go:3:6","occurrence":1,"faults":` + string(rune('0'+faults)) + `,"stack":"` + stack + `"}`)
	}
	recs := []*campaign.Record{
		{Kind: "profile", Package: "p", Test: "T", Status: "pass", Events: []json.RawMessage{
			// Len: no error result, panics off; its call-site point does
			// not make it a function that can fail.
			ev(`{"event":"enter","site":"p.(*S).Len#entry","func":"p.(*S).Len","pos":"p/f.go:3:6"}`),
			reach("p.(*S).Len#call:os.Stat#1", "p.(*S).Len", "1@p.(*S).Len#entry", 1),
			// Leaf: its entry is a point, but nothing inside it is.
			reach("p.Leaf#entry", "p.Leaf", "", 1),
			// Armed: a point inside it, armed by an experiment that fired.
			reach("p.Armed#entry", "p.Armed", "", 1),
			reach("p.Armed#call:os.Open#1", "p.Armed", "1@p.Armed#entry", 1),
			// Missed: a point inside it, armed, never fired.
			reach("p.Missed#entry", "p.Missed", "", 1),
			reach("p.Missed#call:os.Open#1", "p.Missed", "1@p.Missed#entry", 1),
		}},
		{Kind: "profile", Package: "p", Test: "U", Status: "fail", Events: []json.RawMessage{
			// Broken: reached only by a test that fails by itself.
			reach("p.Broken#entry", "p.Broken", "", 1),
			reach("p.Broken#call:os.Open#1", "p.Broken", "1@p.Broken#entry", 1),
		}},
		{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.Armed#call:os.Open#1", Occurrence: 1, Fault: "error"}}, Fired: true},
		{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.Missed#call:os.Open#1", Occurrence: 1, Fault: "error"}}},
	}
	r := Classify(recs, nil)
	tests := []struct{ fn, kind, reason string }{
		{"p.(*S).Len", CannotFail, ""},
		{"p.Leaf", NotMadeToFail, "no injection point was reached while a call of it was running"},
		{"p.Armed", NotMadeToFail, "1 faults fired inside it; it handled every one without failing"},
		{"p.Missed", NotMadeToFail, "1 experiments armed a point inside it, but the fault never fired (the runs took another path than the profile run)"},
		{"p.Broken", NotMadeToFail, "1 injection points were reached inside it, but no experiment armed one (the tests that reach them fail without a fault, or were not run)"},
	}
	for _, tt := range tests {
		f := r.Functions[tt.fn]
		if f == nil {
			t.Errorf("%s: not in the report", tt.fn)
			continue
		}
		if f.Verdict != Unknown || f.UnknownKind != tt.kind || f.UnknownReason != tt.reason {
			t.Errorf("%s: %s (%q: %q), want unknown (%q: %q)", tt.fn, f.Verdict, f.UnknownKind, f.UnknownReason, tt.kind, tt.reason)
		}
	}
	if got := r.Summary.UnknownKinds; got[CannotFail] != 1 || got[NotMadeToFail] != 4 || len(got) != 2 {
		t.Errorf("summary counts %v, want 1 cannot fail, 4 not made to fail", got)
	}
	if got := describe(r.Functions["p.(*S).Len"]); got != "unknown (cannot fail): no error result, and panics are not injected (panics = true in the policy injects them)" {
		t.Errorf("(*S).Len: %q", got)
	}
	var text strings.Builder
	WriteText(&text, r, nil, false)
	if !strings.Contains(text.String(), "functions: 0 pure, 0 dependent, 0 atomic, 5 unknown (1 cannot fail, 4 not made to fail, 0 not snapshotted, 0 over budget)") {
		t.Errorf("text report has no count of each kind:\n%s", text.String())
	}
	if !strings.Contains(text.String(), "\n1 functions cannot fail (no error result, and panics are not injected): -format json or html lists them\n") ||
		strings.Contains(text.String(), "(*S).Len") || !strings.Contains(text.String(), "Leaf: unknown (not made to fail): no failed call seen: no injection point") {
		t.Errorf("text report: functions that cannot fail are counted, not listed, and the others listed with their kind:\n%s", text.String())
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

// TestTypeVerdictIgnoresMethodsThatCannotFail checks that a method no
// fault can make fail does not make its type unknown: a type whose only
// other method is atomic is atomic.
func TestTypeVerdictIgnoresMethodsThatCannotFail(t *testing.T) {
	r := Classify([]*campaign.Record{{Kind: "profile", Package: "p", Test: "T", Status: "pass", Events: []json.RawMessage{
		json.RawMessage(`{"event":"verdict","site":"p.(*S).Set#entry","func":"p.(*S).Set","pos":"p/f.go:3:6","verdict":"atomic","failure":"error"}`),
		json.RawMessage(`{"event":"enter","site":"p.(*S).Len#entry","func":"p.(*S).Len","pos":"p/f.go:9:6"}`),
	}}}, nil)
	if f := r.Functions["p.(*S).Len"]; f == nil || f.UnknownKind != CannotFail {
		t.Fatalf("Len: %+v, want unknown (cannot fail)", f)
	}
	if typ := r.Types["p.S"]; typ == nil || typ.Verdict != Atomic || typ.Atomic != 1 || typ.CannotFail != 1 || typ.Unknown != 0 {
		t.Errorf("type p.S: %+v, want atomic with 1 atomic method and 1 that cannot fail", typ)
	}
}

// TestClassifyUnnumberedFailures: a natural failure that a profile run
// logged past the calls it numbers has no verdict; the function says how
// many it had, rather than look as if it never failed by itself.
func TestClassifyUnnumberedFailures(t *testing.T) {
	ev := func(s string) json.RawMessage { return json.RawMessage(s) }
	fail := `{"event":"fail","site":"p.Hot#entry","func":"p.Hot","pos":"p/f.go:3:6","beyond_call":65536,"failure":"error"}`
	recs := []*campaign.Record{
		{Kind: "profile", Package: "p", Test: "T", Status: "pass", Events: []json.RawMessage{
			ev(`{"event":"reach","site":"p.Hot#entry","func":"p.Hot","pos":"p/f.go:3:6","occurrence":1,"faults":1}`),
			ev(fail), ev(fail),
			ev(`{"event":"fail","site":"p.Hot#entry","func":"p.Hot","pos":"p/f.go:3:6","call":7,"failure":"error"}`),
		}},
	}
	r := Classify(recs, nil)
	f := r.Functions["p.Hot"]
	if f == nil {
		t.Fatal("p.Hot: not in the report")
	}
	if f.UnnumberedFailures != 2 || f.Failures != 0 {
		t.Errorf("unnumbered failures %d, failures %d; want 2, 0 (a numbered fail event waits for its natural run)", f.UnnumberedFailures, f.Failures)
	}
	if got, want := describe(f), "2 natural failures past its first calls not compared"; !strings.Contains(got, want) {
		t.Errorf("describe = %q, want it to say %q", got, want)
	}
}

// TestAsWritten checks that functions left as written are listed as
// atomic from the events that list them, counted apart, and that they
// make a type atomic alone only when they are all its methods.
func TestAsWritten(t *testing.T) {
	ev := func(s string) json.RawMessage { return json.RawMessage(s) }
	recs := []*campaign.Record{
		{Kind: "profile", Package: "p", Test: "T", Events: []json.RawMessage{
			// Grid: every method left as written.
			ev(`{"event":"as_written","func":"p.(*Grid).At","pos":"p/g.go:3:16","whole_type":true}`),
			ev(`{"event":"as_written","func":"p.(*Grid).Len","pos":"p/g.go:5:16","whole_type":true}`),
			// Cell: one left as written, one that no test reached.
			ev(`{"event":"as_written","func":"p.(*Cell).Get","pos":"p/c.go:3:16","whole_type":false}`),
			// Box: one left as written, one atomic by a compared failure.
			ev(`{"event":"as_written","func":"p.(*Box).Get","pos":"p/b.go:3:16","whole_type":false}`),
			ev(`{"event":"reach","site":"p.(*Box).Put#entry","func":"p.(*Box).Put","pos":"p/b.go:5:16","faults":1}`),
		}},
		// Listed again by another test binary of the same package.
		{Kind: "profile", Package: "p", Test: "TestOther", Events: []json.RawMessage{
			ev(`{"event":"as_written","func":"p.(*Grid).At","pos":"p/g.go:3:16","whole_type":true}`),
		}},
		{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.(*Box).Put#entry", Occurrence: 1, Fault: "error"}}, Fired: true, Status: "fail", Events: []json.RawMessage{
			ev(`{"event":"verdict","site":"p.(*Box).Put#entry","func":"p.(*Box).Put","pos":"p/b.go:5:16","verdict":"atomic","failure":"error","injected":true}`),
		}},
	}
	r := Classify(recs, nil)
	for _, name := range []string{"p.(*Grid).At", "p.(*Grid).Len", "p.(*Cell).Get", "p.(*Box).Get"} {
		f := r.Functions[name]
		if f == nil || f.Verdict != Atomic || !f.AsWritten || f.UnknownKind != "" {
			t.Errorf("%s: %+v, want atomic as written", name, f)
		}
	}
	if f := r.Functions["p.(*Box).Put"]; f.AsWritten || f.Verdict != Atomic {
		t.Errorf("(*Box).Put: %+v, want atomic by its failed call", f)
	}
	if r.Summary.AsWritten != 4 {
		t.Errorf("summary counts %d as written, want 4", r.Summary.AsWritten)
	}
	for typ, want := range map[string]string{"p.Grid": Atomic, "p.Cell": Unknown, "p.Box": Atomic} {
		if got := r.Types[typ]; got == nil || got.Verdict != want {
			t.Errorf("type %s: %+v, want %s", typ, got, want)
		}
	}
	var text, js strings.Builder
	WriteText(&text, r, nil, false)
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"atomic (5):\n4 functions left as written (no failure can leave a change, checked at build time): -format json or html lists them\np/b.go:5:16: (*Box).Put: atomic (1 failed calls",
		"functions: 0 pure, 0 dependent, 5 atomic (4 as written), 0 unknown",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.Contains(js.String(), `"as_written": true`) || !strings.Contains(js.String(), `"as_written": 4`) {
		t.Errorf("JSON does not mark them:\n%s", js.String())
	}
}

// TestEvidenceStrength checks that a function's evidence is its strongest
// failed call, and that findings of one visibility and verdict come in
// the order of their evidence's strength: the function's own change, a
// natural failure, a fault at a call, a fault at a helper's entry.
func TestEvidenceStrength(t *testing.T) {
	verdict := func(fn, path string, first bool) json.RawMessage {
		// A call whose verdict says where it ran (seq), with nothing
		// non-atomic inside it, is non-atomic by itself.
		own := `,"first":false`
		if first {
			own = `,"first":true,"g":1,"seq":7`
		}
		return json.RawMessage(`{"event":"verdict","site":"` + fn + `#entry","func":"` + fn + `","pos":"p/f.go:3:6","verdict":"non-atomic","failure":"error","path":"` + path + `","before":"0","after":"1"` + own + `}`)
	}
	exp := func(site string, evs ...json.RawMessage) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: site, Occurrence: 1, Fault: "error"}}, Fired: true, Status: "fail", Events: evs}
	}
	recs := []*campaign.Record{
		// A: a helper's entry fault (the shortest path), a call's fault,
		// and a natural failure after a callee failed non-atomic.
		exp("p.helper#entry", verdict("p.A", "a", true)),
		exp("p.A#call:os.Open#1", verdict("p.A", "a.long", true)),
		{Kind: "profile", Package: "p", Test: "T", Events: []json.RawMessage{verdict("p.A", "a.other", false)}},
		// B: only a helper's entry fault; C: a natural failure; D: a call's.
		exp("p.helper#entry", verdict("p.B", "b", true)),
		{Kind: "profile", Package: "p", Test: "T2", Events: []json.RawMessage{verdict("p.C", "c", true)}},
		exp("p.D#call:os.Open#1", verdict("p.D", "d", true)),
	}
	r := Classify(recs, nil)
	if e := r.Functions["p.A"].Evidence; e.Injection != "error:1:p.A#call:os.Open#1" || e.Path != "a.long" {
		t.Errorf("A's evidence: %s at %s, want the call's fault at a.long", e.Injection, e.Path)
	}
	var got []string
	for _, name := range r.Findings {
		got = append(got, name)
	}
	if want := []string{"p.C", "p.A", "p.D", "p.B"}; !slices.Equal(got, want) {
		t.Errorf("findings in order %v, want %v", got, want)
	}
}

// TestClassifyFailedProfileRuns checks that a test whose profile run did
// not pass, and that no experiment therefore ran, is a problem of the
// report, in the order of the tests whatever the journal's.
func TestClassifyFailedProfileRuns(t *testing.T) {
	pass := &campaign.Record{Kind: "profile", Package: "p", Test: "TestA", Status: campaign.Passed}
	fail := &campaign.Record{Kind: "profile", Package: "p", Test: "TestB", Status: campaign.Failed}
	crash := &campaign.Record{Kind: "profile", Package: "p", Test: "TestC", Status: campaign.Crashed,
		Died: "panic: rename testlog/START.TEMP testlog/START: no such file or directory"}
	want := []string{
		"p TestB: fail in its profile run, so no experiment runs it",
		"p TestC: crash in its profile run, so no experiment runs it (panic: rename testlog/START.TEMP testlog/START: no such file or directory)",
	}
	for _, recs := range [][]*campaign.Record{{pass, fail, crash}, {crash, pass, fail}} {
		if got := Classify(recs, nil).Problems; !slices.Equal(got, want) {
			t.Errorf("problems\n%q\nwant\n%q", got, want)
		}
	}
	if got := Classify([]*campaign.Record{pass}, nil).Problems; len(got) != 0 {
		t.Errorf("a campaign whose profile runs passed has problems %q", got)
	}
}

// TestEvidenceThroughCallback checks that a change made inside a callback
// the function's caller passed in is weaker evidence than one the
// function made itself, that a pure finding shown only through callbacks
// comes after the other pure ones of its visibility, and that every
// format says which callback.
func TestEvidenceThroughCallback(t *testing.T) {
	verdict := func(fn, path, callback string, first bool) json.RawMessage {
		extra := `,"first":false`
		if first {
			extra = `,"first":true,"g":1,"seq":7`
		}
		if callback != "" {
			extra += `,"callback":"` + callback + `"`
		}
		return json.RawMessage(`{"event":"verdict","site":"` + fn + `#entry","func":"` + fn + `","pos":"p/f.go:3:6","verdict":"non-atomic","failure":"error","path":"` + path + `","before":"nil","after":"&Struct{…}"` + extra + `}`)
	}
	profile := func(test string, evs ...json.RawMessage) *campaign.Record {
		return &campaign.Record{Kind: "profile", Package: "p", Test: test, Events: evs}
	}
	exp := func(site string, evs ...json.RawMessage) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: site, Occurrence: 1, Fault: "error"}}, Fired: true, Status: "fail", Events: evs}
	}
	recs := []*campaign.Record{
		// Decode: a natural failure whose change came through the hook,
		// and a fault at a helper's entry after which it changed its own
		// keys: the weakest failure, but its own change.
		profile("T1", verdict("p.Decode", `input[\"struct\"]`, "d.config.DecodeHook", true)),
		exp("p.helper#entry", verdict("p.Decode", "d.keys", "", false)),
		// Hooked: only through its callback, by a natural failure.
		profile("T2", verdict("p.Hooked", `m[\"k\"]`, "cfg.Hook", true)),
		// Own: its own change, after a helper's entry fault, the weakest
		// failure that makes a pure finding.
		exp("p.helper#entry", verdict("p.Own", "o.n", "", true)),
	}
	r := Classify(recs, nil)
	if e := r.Functions["p.Decode"].Evidence; e.Path != "d.keys" || e.Callback != "" {
		t.Errorf("Decode's evidence: %s through %q, want its own d.keys", e.Path, e.Callback)
	}
	if e := r.Functions["p.Hooked"].Evidence; e.Callback != "cfg.Hook" {
		t.Errorf("Hooked's evidence: through %q, want cfg.Hook", e.Callback)
	}
	var got []string
	for _, name := range r.Findings {
		got = append(got, name)
	}
	if want := []string{"p.Own", "p.Decode", "p.Hooked"}; !slices.Equal(got, want) {
		t.Errorf("findings in order %v, want %v", got, want)
	}

	const says = `m["k"]: nil → &Struct{…} through a callback (cfg.Hook)`
	var text, js, html, sarif strings.Builder
	WriteText(&text, r, nil, false)
	if !strings.Contains(text.String(), says) {
		t.Errorf("text report lacks %q:\n%s", says, text.String())
	}
	if i, j := strings.Index(text.String(), "Own: pure"), strings.Index(text.String(), "Hooked: pure"); i < 0 || j < i {
		t.Errorf("text report lists Hooked before Own:\n%s", text.String())
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"callback": "cfg.Hook"`) || strings.Count(js.String(), `"callback"`) != 1 {
		t.Errorf("JSON report does not mark Hooked's evidence, and only it, with its callback:\n%s", js.String())
	}
	if err := WriteHTML(&html, r, nil); err != nil {
		t.Fatal(err)
	}
	if want := `through a callback (<code>cfg.Hook</code>)`; !strings.Contains(html.String(), want) {
		t.Errorf("HTML report lacks %q", want)
	}
	if i, j := strings.Index(html.String(), `</span>Own <span`), strings.Index(html.String(), `</span>Hooked <span`); i < 0 || j < i {
		t.Errorf("HTML report has Hooked's section before Own's")
	}
	if err := WriteSARIF(&sarif, r, nil, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := `m[\"k\"] changed through a callback (cfg.Hook): nil → &Struct{…}.\nThe change was made inside cfg.Hook`; !strings.Contains(sarif.String(), want) {
		t.Errorf("SARIF report lacks %q:\n%s", want, sarif.String())
	}
}

// TestWroteOutside checks that a function whose failed calls wrote
// outside memory says so, with the first write by position whatever the
// journal's order, in every format.
func TestWroteOutside(t *testing.T) {
	verdict := func(fn, wrote, to, at string) json.RawMessage {
		extra := ""
		if wrote != "" {
			extra = `,"wrote":"` + wrote + `","wrote_to":"` + to + `","wrote_at":"` + at + `"`
		}
		return json.RawMessage(`{"event":"verdict","site":"` + fn + `#entry","func":"` + fn + `","pos":"p/wal.go:3:6","verdict":"non-atomic","failure":"error","path":"l.lastIndex","before":"143","after":"144","first":true,"g":1,"seq":7` + extra + `}`)
	}
	exp := func(evs ...json.RawMessage) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.(*Log).writeBatch#call:(*os.File).Sync#1", Occurrence: 1, Fault: "error"}}, Fired: true, Status: "fail", Events: evs}
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}} {
		evs := []json.RawMessage{
			verdict("p.(*Log).writeBatch", "(*os.File).Write", "/tmp/wal/0001", "p/wal.go:20:14"),
			verdict("p.(*Log).writeBatch", "", "", ""),
			verdict("p.(*Log).writeBatch", "os.Rename", "/tmp/wal/0001.tmp", "p/wal.go:12:11"),
		}
		var recs []*campaign.Record
		for _, i := range order {
			recs = append(recs, exp(evs[i]))
		}
		r := Classify(recs, nil)
		f := r.Functions["p.(*Log).writeBatch"]
		want := &OutsideWrite{Call: "os.Rename", File: "/tmp/wal/0001.tmp", Pos: "p/wal.go:12:11"}
		if f.WroteOutside == nil || *f.WroteOutside != *want || f.WroteOutsideCalls != 2 {
			t.Fatalf("journal order %v: wrote %+v in %d calls, want %+v in 2", order, f.WroteOutside, f.WroteOutsideCalls, want)
		}
	}
	plain := Classify([]*campaign.Record{exp(verdict("p.(*Log).Plain", "", "", ""))}, nil)
	if f := plain.Functions["p.(*Log).Plain"]; f.WroteOutside != nil || f.WroteOutsideCalls != 0 {
		t.Errorf("a function that wrote nothing: wrote %+v in %d calls", f.WroteOutside, f.WroteOutsideCalls)
	}

	r := Classify([]*campaign.Record{exp(verdict("p.(*Log).writeBatch", "(*os.File).Write", "/tmp/wal/0001", "p/wal.go:20:14"))}, nil)
	const says = "wrote to /tmp/wal/0001 before failing: a rollback of memory cannot undo it ((*os.File).Write at "
	var text, js, html, sarif strings.Builder
	WriteText(&text, r, nil, false)
	if !strings.Contains(text.String(), "\t"+says+"p/wal.go:20:14; 1 failed call)\n") {
		t.Errorf("text report lacks %q:\n%s", says, text.String())
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if want := `"wrote_outside": {
        "call": "(*os.File).Write",
        "file": "/tmp/wal/0001",
        "pos": "p/wal.go:20:14"
      },
      "wrote_outside_calls": 1`; !strings.Contains(js.String(), want) {
		t.Errorf("JSON report lacks %s:\n%s", want, js.String())
	}
	if err := WriteHTML(&html, r, nil); err != nil {
		t.Fatal(err)
	}
	if want := "<dt>outside memory</dt><dd>" + template.HTMLEscapeString(says); !strings.Contains(html.String(), want) {
		t.Errorf("HTML report lacks %q", want)
	}
	if err := WriteSARIF(&sarif, r, nil, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := `It ` + says + `p/wal.go:20:14; 1 failed call).\n`; !strings.Contains(sarif.String(), want) {
		t.Errorf("SARIF report lacks %q:\n%s", want, sarif.String())
	}
}
