package perturb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

func eventLines(t *testing.T, lines ...string) []json.RawMessage {
	t.Helper()
	var evs []json.RawMessage
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("not JSON: %s", l)
		}
		evs = append(evs, json.RawMessage(l))
	}
	return evs
}

func reachLine(site string, occ, faults int, stack string) string {
	return fmt.Sprintf(`{"event":"reach","site":%q,"occurrence":%d,"faults":%d,"stack":%q}`, site, occ, faults, stack)
}

// TestPerturbPoints: each point reached gets one one-shot run per test
// that reached it, the tests that reached the fewest points first (ties
// to the smaller key, whatever the runs' times), at most the bound of
// them; an error where the point allows one, else a panic; points that
// allow no fault get none.
func TestPerturbPoints(t *testing.T) {
	const a, b, c, d = "m.A#entry", "m.B#call:m/b.go:3:4", "m.C#entry", "m.D#entry"
	profs := []*campaign.Record{
		{Kind: "profile", Package: "m", Test: "TestSlow", Millis: 90, Status: campaign.Passed, Events: eventLines(t,
			reachLine(a, 1, 1, "1@m.Outer#entry"), reachLine(a, 2, 1, "2@m.Outer#entry"), reachLine(b, 1, 3, "1@m.B#entry"), reachLine(d, 1, 0, ""))},
		{Kind: "profile", Package: "m", Test: "TestFastB", Millis: 1000, Status: campaign.Passed, Events: eventLines(t,
			reachLine(a, 1, 3, "4@m.Other#entry"))},
		{Kind: "profile", Package: "m", Test: "TestFastA", Millis: 10, Status: campaign.Passed, Events: eventLines(t,
			reachLine(c, 1, 2, ""))},
	}
	fastA := "TestFastA m.C#entry panic:1 stack= cost=10 env=ATOMICX_INJECT=panic:1:m.C#entry ATOMICX_SNAPSHOTS=none"
	fastB := "TestFastB m.A#entry error:1 stack=4@m.Other#entry cost=1000 env=ATOMICX_INJECT=error:1:m.A#entry ATOMICX_SNAPSHOTS=none"
	slowA := "TestSlow m.A#entry error:1 stack=1@m.Outer#entry cost=90 env=ATOMICX_INJECT=error:1:m.A#entry ATOMICX_SNAPSHOTS=none"
	slowB := "TestSlow m.B#call:m/b.go:3:4 error:1 stack=1@m.B#entry cost=90 env=ATOMICX_INJECT=error:1:m.B#call:m/b.go:3:4 ATOMICX_SNAPSHOTS=none"
	tests := []struct {
		bound int
		want  []string // in the order of their keys
	}{
		{0, []string{fastA, fastB, slowA, slowB}},
		{1, []string{fastA, fastB, slowB}},
		{2, []string{fastA, fastB, slowA, slowB}},
	}
	for _, tt := range tests {
		runs := Perturb.AllRuns(profs, campaign.Options{QuestionData: Options(tt.bound)})
		var got []string
		for _, r := range runs {
			got = append(got, fmt.Sprintf("%s %s %s:%d stack=%s cost=%d env=%s", r.Run.Test, r.Run.Arming.Inject.Site, r.Run.Arming.Inject.Fault, r.Run.Arming.Inject.Occurrence,
				stackOf(r.Run), r.CostMs, strings.Join(r.Env, " ")))
			if r.Key != r.Run.Key() || r.Run.Millis != 0 {
				t.Errorf("run %q: key %q, millis %d", r.Run.Key(), r.Key, r.Run.Millis)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("bound %d: runs:\n%s\nwant:\n%s", tt.bound, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// TestPointClass: a point's class over its tests is the worst, a missing
// run keeps it from being sensitive or immunized, and tests that did not
// reach the point again do not count.
func TestPointClass(t *testing.T) {
	tests := []struct {
		classes []string
		want    string
	}{
		{[]string{Immunized, Immunized}, Immunized},
		{[]string{Immunized, Sensitive}, Sensitive},
		{[]string{Sensitive, Fragile, Immunized}, Fragile},
		{[]string{Immunized, PointNotRun}, PointNotRun},
		{[]string{Fragile, PointNotRun}, Fragile},
		{[]string{PointNotInjected, Immunized}, Immunized},
		{[]string{PointNotInjected}, PointNotInjected},
		{nil, PointNotInjected},
	}
	for _, tt := range tests {
		if got := pointClass(tt.classes, func(c string) (string, bool) { return c, false }); got != tt.want {
			t.Errorf("pointClass(%q) = %q, want %q", tt.classes, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	run := func(status string, fired bool) *campaign.Record {
		return &campaign.Record{Status: status, Fired: fired}
	}
	tests := []struct {
		name            string
		oneShot, always *campaign.Record
		want            string
		inconsistent    bool
	}{
		{"one-shot fails", run(campaign.Failed, true), run(campaign.Failed, true), Fragile, false},
		{"one-shot crashes", run(campaign.Crashed, true), run(campaign.Failed, true), Fragile, false},
		{"one-shot hangs", run(campaign.Hung, true), run(campaign.Failed, true), Fragile, false},
		{"one-shot fails, always passes", run(campaign.Failed, true), run(campaign.Passed, true), Fragile, true},
		{"one-shot fails, always not run yet", run(campaign.Failed, true), nil, Fragile, false},
		{"always fails", run(campaign.Passed, true), run(campaign.Failed, true), Sensitive, false},
		{"always hangs", run(campaign.Passed, true), run(campaign.Hung, true), Sensitive, false},
		{"both pass", run(campaign.Passed, true), run(campaign.Passed, true), Immunized, false},
		{"not reached again", run(campaign.Passed, false), run(campaign.Passed, false), PointNotInjected, false},
		{"always missing", run(campaign.Passed, true), nil, PointNotRun, false},
		{"one-shot missing", nil, run(campaign.Failed, true), PointNotRun, false},
		{"one-shot did not start", run(campaign.NotRun, false), nil, PointNotRun, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, inc := classify(tt.oneShot, tt.always)
			if got != tt.want || inc != tt.inconsistent {
				t.Errorf("classify = %q, inconsistent %v; want %q, %v", got, inc, tt.want, tt.inconsistent)
			}
		})
	}
}

func TestMonitored(t *testing.T) {
	const stack = "3@m.Inner#entry;1-2,5@m.Middle#entry;1@m.Outer#entry"
	inject := `{"event":"inject","site":"m.Inner#call:m/f.go:3:4","chain":1}`
	fail := func(site string, call int) string {
		return fmt.Sprintf(`{"event":"fail","site":%q,"call":%d,"failure":"error"}`, site, call)
	}
	failOn := func(site string, call, g int) string {
		return fmt.Sprintf(`{"event":"fail","site":%q,"call":%d,"failure":"error","g":%d}`, site, call, g)
	}
	tests := []struct {
		name   string
		events []string
		want   Monitor
	}{
		{
			name:   "the innermost handles it",
			events: []string{inject},
			want:   Monitor{Handler: "m.Inner"},
		},
		{
			name:   "two pass it on, the outer handles it",
			events: []string{inject, fail("m.Inner#entry", 3), fail("m.Middle#entry", 5)},
			want:   Monitor{Handler: "m.Outer", Distance: 2, Passed: []string{"m.Inner#entry", "m.Middle#entry"}},
		},
		{
			name:   "every instrumented caller passes it on",
			events: []string{inject, fail("m.Inner#entry", 3), fail("m.Middle#entry", 2), fail("m.Outer#entry", 1)},
			want:   Monitor{Distance: 3, Passed: []string{"m.Inner#entry", "m.Middle#entry", "m.Outer#entry"}},
		},
		{
			name:   "failures before the injection and of other calls do not count",
			events: []string{fail("m.Inner#entry", 3), inject, fail("m.Inner#entry", 4)},
			want:   Monitor{Handler: "m.Inner"},
		},
		{
			name:   "a call outside the spans in progress does not count",
			events: []string{inject, fail("m.Inner#entry", 3), fail("m.Middle#entry", 4)},
			want:   Monitor{Handler: "m.Middle", Distance: 1, Passed: []string{"m.Inner#entry"}},
		},
		{
			// The run numbered its calls otherwise than the profile run
			// (parallel subtests, a map's order): its own numbers count.
			name: "the run's own stack, not the profile run's",
			events: []string{`{"event":"inject","site":"m.Inner#call:m/f.go:3:4","chain":1,"g":7,"stack":"9@m.Lit.func1#entry;4@m.Outer#entry"}`,
				failOn("m.Lit.func1#entry", 9, 7), failOn("m.Inner#entry", 3, 7)},
			want: Monitor{Handler: "m.Outer", Distance: 1, Passed: []string{"m.Lit.func1#entry"}},
		},
		{
			name: "a failure on another goroutine does not count",
			events: []string{`{"event":"inject","site":"m.Inner#call:m/f.go:3:4","chain":1,"g":7,"stack":"9@m.Lit.func1#entry;4@m.Outer#entry"}`,
				failOn("m.Lit.func1#entry", 9, 7), failOn("m.Outer#entry", 4, 8)},
			want: Monitor{Handler: "m.Outer", Distance: 1, Passed: []string{"m.Lit.func1#entry"}},
		},
		{
			name:   "nothing instrumented on the run's stack: handled outside it",
			events: []string{`{"event":"inject","site":"m.Inner#call:m/f.go:3:4","chain":1,"g":7}`, failOn("m.Inner#entry", 3, 7)},
			want:   Monitor{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Monitored(&campaign.Record{QuestionData: withStack(stack), Events: eventLines(t, tt.events...)})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Monitored = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestPerturbFollowUps: the always run of each one-shot run first, then
// four validation runs per candidate of the points the test does not
// survive, and nothing once the journal has them all; the points read
// from the records have their classes and the candidates' effects.
func TestPerturbFollowUps(t *testing.T) {
	inject := func(site string) string {
		return fmt.Sprintf(`{"event":"inject","site":%q,"pos":"m/f.go:3:4","chain":1}`, site)
	}
	const fragile, sensitive, immune = "m.F#entry", "m.S#entry", "m.I#entry"
	oneShots := []*campaign.Record{
		{Kind: "experiment", Package: "m", Test: "T1", Arming: arm.Arming{Inject: arm.Injection{Site: fragile, Occurrence: 1, Fault: "error"}}, QuestionData: withStack("1@m.Caller#entry;1@m.Top#entry"),
			Status: campaign.Failed, Fired: true, Events: eventLines(t, inject(fragile), `{"event":"fail","site":"m.Caller#entry","call":1}`)},
		{Kind: "experiment", Package: "m", Test: "T2", Arming: arm.Arming{Inject: arm.Injection{Site: sensitive, Occurrence: 1, Fault: "error"}}, QuestionData: withStack("2@m.Loop#entry"),
			Status: campaign.Passed, Fired: true, Events: eventLines(t, inject(sensitive), `{"event":"fail","site":"m.Loop#entry","call":2}`)},
		{Kind: "experiment", Package: "m", Test: "T3", Arming: arm.Arming{Inject: arm.Injection{Site: immune, Occurrence: 1, Fault: "error"}}, QuestionData: withStack("1@m.Safe#entry"),
			Status: campaign.Passed, Fired: true, Events: eventLines(t, inject(immune))},
	}
	recs := append([]*campaign.Record{{Kind: "profile", Package: "m", Test: "T1", Status: campaign.Passed}}, oneShots...)
	round1 := perturbFollowUps(recs)
	if len(round1) != 3 {
		t.Fatalf("round 1 planned %d runs, want the 3 always runs", len(round1))
	}
	tests := map[string]string{fragile: "T1", sensitive: "T2", immune: "T3"}
	for i, r := range round1 {
		if !r.Arming.Inject.Always || r.Test != tests[r.Arming.Inject.Site] || r.Arming.Inject.Occurrence != 0 {
			t.Errorf("round 1 run %d: %+v", i, r)
		}
		delete(tests, r.Arming.Inject.Site)
		r.Fired = true
		r.Status = map[string]string{fragile: campaign.Failed, sensitive: campaign.Failed, immune: campaign.Passed}[r.Arming.Inject.Site]
	}
	recs = append(recs, round1...)
	round2 := perturbFollowUps(recs)
	var got []string
	for _, r := range round2 {
		env := strings.Join(PerturbEnv(r), " ")
		got = append(got, fmt.Sprintf("%s always=%v %s", r.Arming.Inject.Site, r.Arming.Inject.Always, env))
	}
	want := []string{
		"m.F#entry always=false ATOMICX_INJECT=error:1:m.F#entry ATOMICX_OBLIVIOUS=m.Caller#entry ATOMICX_SNAPSHOTS=none",
		"m.F#entry always=true ATOMICX_INJECT=error:always:m.F#entry ATOMICX_OBLIVIOUS=m.Caller#entry ATOMICX_SNAPSHOTS=none",
		"m.F#entry always=false ATOMICX_INJECT=error:1:m.F#entry ATOMICX_OBLIVIOUS=m.Caller#entry ATOMICX_MASK=m.Caller#entry ATOMICX_SNAPSHOTS=none",
		"m.F#entry always=true ATOMICX_INJECT=error:always:m.F#entry ATOMICX_OBLIVIOUS=m.Caller#entry ATOMICX_MASK=m.Caller#entry ATOMICX_SNAPSHOTS=none",
		"m.S#entry always=false ATOMICX_INJECT=error:1:m.S#entry ATOMICX_OBLIVIOUS=m.Loop#entry ATOMICX_SNAPSHOTS=none",
		"m.S#entry always=true ATOMICX_INJECT=error:always:m.S#entry ATOMICX_OBLIVIOUS=m.Loop#entry ATOMICX_SNAPSHOTS=none",
		"m.S#entry always=false ATOMICX_INJECT=error:1:m.S#entry ATOMICX_OBLIVIOUS=m.Loop#entry ATOMICX_MASK=m.Loop#entry ATOMICX_SNAPSHOTS=none",
		"m.S#entry always=true ATOMICX_INJECT=error:always:m.S#entry ATOMICX_OBLIVIOUS=m.Loop#entry ATOMICX_MASK=m.Loop#entry ATOMICX_SNAPSHOTS=none",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("round 2:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The fragile point's candidate works only atomic; the sensitive
	// point's works plain.
	for _, r := range round2 {
		r.Fired = true
		r.Status = campaign.Failed
		if r.Arming.Inject.Site == sensitive || len(r.Arming.Mask) > 0 {
			r.Status = campaign.Passed
		}
		if len(r.Arming.Mask) > 0 && r.Arming.Inject.Site == sensitive {
			r.Events = eventLines(t, `{"event":"oblivious","site":"m.Loop#entry","swallowed":false,"atomic":true,"rolled_back":false}`)
		} else {
			r.Events = eventLines(t, fmt.Sprintf(`{"event":"oblivious","site":%q,"swallowed":true,"atomic":%v,"rolled_back":%v}`, ids(r.Arming.Oblivious), len(r.Arming.Mask) > 0, len(r.Arming.Mask) > 0))
		}
	}
	recs = append(recs, round2...)
	if more := perturbFollowUps(recs); len(more) != 0 {
		t.Errorf("round 3 planned %d runs, want none", len(more))
	}
	points := PointsOf(recs)
	var summary []string
	for _, p := range points {
		line := fmt.Sprintf("%s %s %s handler=%q distance=%d", p.Site, p.Pos, p.Class, p.Handler, p.Distance)
		for _, c := range p.Candidates {
			line += fmt.Sprintf(" %s plain=%s/%d atomic=%s/%d/%d", c.Func, c.Plain.Class, c.Plain.Swallowed, c.Atomic.Class, c.Atomic.Swallowed, c.Atomic.NotRolledBack)
		}
		summary = append(summary, line)
	}
	wantPoints := []string{
		`m.F#entry m/f.go:3:4 fragile handler="m.Top" distance=1 m.Caller plain=fragile/2 atomic=immunized/2/0`,
		`m.I#entry m/f.go:3:4 immunized handler="m.Safe" distance=0`,
		`m.S#entry m/f.go:3:4 sensitive handler="" distance=1 m.Loop plain=immunized/2 atomic=immunized/0/2`,
	}
	if !slices.Equal(summary, wantPoints) {
		t.Errorf("points:\n%s\nwant:\n%s", strings.Join(summary, "\n"), strings.Join(wantPoints, "\n"))
	}
}

// TestPerturbPointOverTests: a point reached by two tests is fragile when
// one of them fails its one-shot run, whichever the other does; its
// candidates are the functions that passed the one-shot failure on in
// one test and the always failure in the other, and each is validated in
// both tests.
func TestPerturbPointOverTests(t *testing.T) {
	const site = "m.P#call:m/p.go:3:4"
	inject := func(g int, stack string) string {
		return fmt.Sprintf(`{"event":"inject","site":%q,"pos":"m/p.go:3:4","chain":1,"g":%d,"stack":%q}`, site, g, stack)
	}
	fail := func(s string, call, g int) string {
		return fmt.Sprintf(`{"event":"fail","site":%q,"call":%d,"g":%d}`, s, call, g)
	}
	oneShot := func(test, status string, events ...string) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "m", Test: test, Arming: arm.Arming{Inject: arm.Injection{Site: site, Occurrence: 1, Fault: "error"}},
			Status: status, Fired: true, Events: eventLines(t, events...)}
	}
	recs := []*campaign.Record{
		{Kind: "profile", Package: "m", Test: "TestA", Status: campaign.Passed, Events: eventLines(t, reachLine(site, 1, 1, ""))},
		{Kind: "profile", Package: "m", Test: "TestB", Status: campaign.Passed, Events: eventLines(t, reachLine(site, 1, 1, ""))},
		{Kind: "profile", Package: "m", Test: "TestC", Status: campaign.Passed, Events: eventLines(t, reachLine(site, 1, 1, ""))},
		// A test whose profile run failed runs no point: not counted.
		{Kind: "profile", Package: "m", Test: "TestD", Status: campaign.Failed, Events: eventLines(t, reachLine(site, 1, 1, ""))},
		// TestA survives both runs: the one-shot failure is handled by
		// m.Retry, the always failure goes through it to the test.
		oneShot("TestA", campaign.Passed, inject(1, "2@m.Retry#entry;1@m.Top#entry")),
		// TestB fails once: m.Decode passes the failure on.
		oneShot("TestB", campaign.Failed, inject(5, "3@m.Decode#entry;1@m.Top#entry"), fail("m.Decode#entry", 3, 5)),
	}
	round1 := perturbFollowUps(recs)
	if len(round1) != 2 {
		t.Fatalf("round 1 planned %d runs, want the 2 always runs", len(round1))
	}
	for _, r := range round1 {
		r.Fired, r.Status = true, campaign.Passed
		if r.Test == "TestA" {
			r.Events = eventLines(t, inject(1, "2@m.Retry#entry;1@m.Top#entry"), fail("m.Retry#entry", 2, 1))
		}
	}
	recs = append(recs, round1...)
	points := PointsOf(recs)
	if len(points) != 1 {
		t.Fatalf("%d points, want 1", len(points))
	}
	p := points[0]
	var tests []string
	for _, pt := range p.Tests {
		tests = append(tests, pt.Test+" "+pt.Class)
	}
	if got, want := strings.Join(tests, ", "), "TestA immunized, TestB fragile"; got != want {
		t.Errorf("tests: %s, want %s", got, want)
	}
	if p.Class != Fragile || p.Test != "TestB" || p.Reached != 3 || p.Handler != "m.Top" || p.Distance != 1 {
		t.Errorf("point: class %s by %s, reached by %d tests, handler %q at %d; want fragile by TestB, 3, m.Top at 1",
			p.Class, p.Test, p.Reached, p.Handler, p.Distance)
	}
	var cands []string
	for _, c := range p.Candidates {
		cands = append(cands, fmt.Sprintf("%s only-always=%v", c.Site, c.OnlyAlways))
	}
	if got, want := strings.Join(cands, ", "), "m.Decode#entry only-always=false, m.Retry#entry only-always=true"; got != want {
		t.Errorf("candidates: %s, want %s", got, want)
	}
	round2 := perturbFollowUps(recs)
	var got []string
	for _, r := range round2 {
		got = append(got, fmt.Sprintf("%s %s always=%v mask=%s", r.Test, ids(r.Arming.Oblivious), r.Arming.Inject.Always, ids(r.Arming.Mask)))
	}
	slices.Sort(got)
	var want []string
	for _, test := range []string{"TestA", "TestB"} {
		for _, c := range []string{"m.Decode#entry", "m.Retry#entry"} {
			for _, mask := range []string{"", c} {
				for _, always := range []bool{false, true} {
					want = append(want, fmt.Sprintf("%s %s always=%v mask=%s", test, c, always, mask))
				}
			}
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("round 2:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Wrapping m.Decode immunizes TestB, but makes TestA fail: no
	// improvement for the workload.
	for _, r := range round2 {
		r.Fired, r.Status = true, campaign.Passed
		if r.Test == "TestA" && ids(r.Arming.Oblivious) == "m.Decode#entry" || r.Test == "TestB" && ids(r.Arming.Oblivious) == "m.Retry#entry" {
			r.Status = campaign.Failed
		}
	}
	recs = append(recs, round2...)
	for _, c := range PointsOf(recs)[0].Candidates {
		if c.Plain.Class != Fragile || c.Atomic.Class != Fragile || c.Plain.Works(Fragile) {
			t.Errorf("candidate %s: plain %s, atomic %s; want fragile in the workload", c.Func, c.Plain.Class, c.Atomic.Class)
		}
	}
}

// TestCandidateHazards: a candidate is hazardous when it swallowed
// thousands of failures in one run, or when it or the point's call writes
// or syncs; a test that passes its always run with failures swallowed
// did not check what they should have produced.
func TestCandidateHazards(t *testing.T) {
	swallows := func(n int, always bool, status string) *campaign.Record {
		r := &campaign.Record{Arming: arm.Arming{Inject: arm.Injection{Always: always}}, Status: status}
		for range n {
			r.Events = append(r.Events, json.RawMessage(`{"event":"oblivious","site":"m.F#entry","swallowed":true}`))
		}
		return r
	}
	tests := []struct {
		name, site, candidate string
		runs                  []*campaign.Record
		hazards               []string
		unchecked             bool
	}{
		{"a few swallowed, the always run failed", "m.Parse#call:strconv.Atoi#1", "m.Decode",
			[]*campaign.Record{swallows(1, false, campaign.Passed), swallows(3, true, campaign.Failed)}, nil, false},
		{"the always run passed with failures swallowed", "m.Parse#call:strconv.Atoi#1", "m.Decode",
			[]*campaign.Record{swallows(1, false, campaign.Passed), swallows(3, true, campaign.Passed)}, nil, true},
		{"the always run passed, nothing swallowed", "m.Parse#call:strconv.Atoi#1", "m.Decode",
			[]*campaign.Record{swallows(0, false, campaign.Passed), swallows(0, true, campaign.Passed)}, nil, false},
		{"thousands swallowed", "m.(*WAL).next#call:r.Read#1", "m.(*WAL).Read",
			[]*campaign.Record{swallows(1, false, campaign.Passed), swallows(HazardousSwallows, true, campaign.Passed)},
			[]string{"swallowed 1000 failures in one run"}, true},
		{"a Close that swallows a failed Sync", "m.(*WAL).Close#call:f.Sync#1", "m.(*WAL).Close",
			[]*campaign.Record{swallows(1, false, campaign.Passed), swallows(1, true, campaign.Passed)},
			[]string{"swallows failures of Close: what it should write or make durable may be lost",
				"swallows a failed Sync: what it should write or make durable may be lost"}, true},
		{"a run that hung swallowing failures: not counted, but hazardous", "m.Parse#call:strconv.Atoi#1", "m.Decode",
			[]*campaign.Record{swallows(1, false, campaign.Passed), swallows(40, true, campaign.Hung)},
			[]string{"swallowed failures until a run hit the time limit"}, false},
		{"a failed write at entry", "m.(*Buf).Write#entry", "m.Save",
			[]*campaign.Record{swallows(1, false, campaign.Passed), swallows(1, true, campaign.Failed)},
			[]string{"swallows a failed Write: what it should write or make durable may be lost"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v Validation
			v.countWrapped(tt.runs...)
			p := &Point{Site: tt.site, Func: siteFunc(tt.site)}
			c := &Candidate{Func: tt.candidate, Plain: v}
			if got := hazardsOf(p, c); !slices.Equal(got, tt.hazards) {
				t.Errorf("hazards = %q, want %q", got, tt.hazards)
			}
			if tt.runs[1].Status == campaign.Hung && (v.Swallowed != 1 || v.MaxSwallowed != 1) {
				t.Errorf("swallowed %d, at most %d in one run; want the run that ended by itself only: 1, 1", v.Swallowed, v.MaxSwallowed)
			}
			if v.Unchecked != tt.unchecked {
				t.Errorf("unchecked = %v, want %v", v.Unchecked, tt.unchecked)
			}
		})
	}
}

// TestOtherPath: a one-shot run that reached its point through other
// functions than its profile run did is told apart; other call numbers
// on the same path, or a run that lists no stack, are not.
func TestOtherPath(t *testing.T) {
	tests := []struct {
		name, profile, inject string
		want                  bool
	}{
		{"same path", "3@m.A#entry;1@m.B#entry", `{"event":"inject","g":1,"stack":"3@m.A#entry;1@m.B#entry"}`, false},
		{"same path, other numbers", "3@m.A#entry;1@m.B#entry", `{"event":"inject","g":1,"stack":"7@m.A#entry;2@m.B#entry"}`, false},
		{"another caller", "3@m.A#entry;1@m.B#entry", `{"event":"inject","g":1,"stack":"3@m.A#entry;1@m.C#entry"}`, true},
		{"nothing instrumented on the run's stack", "3@m.A#entry", `{"event":"inject","g":1}`, true},
		{"an older runtime", "3@m.A#entry", `{"event":"inject"}`, false},
	}
	for _, tt := range tests {
		r := &campaign.Record{QuestionData: withStack(tt.profile), Events: eventLines(t, tt.inject)}
		if got := otherPath(r); got != tt.want {
			t.Errorf("%s: otherPath = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// ids is a list of site IDs as a journal writes it.
func ids(list []string) string { return strings.Join(list, ";") }

// TestQuestionData: perturbation's options and a run's stack are its own
// data on the engine's values, with the keys its journals have always
// used, and nothing when there is nothing to say.
func TestQuestionData(t *testing.T) {
	for _, tt := range []struct {
		bound int
		want  string
	}{{0, ""}, {1, `{"tests_per_point":1}`}, {12, `{"tests_per_point":12}`}} {
		got := Options(tt.bound)
		if string(got) != tt.want || TestsPerPoint(got) != tt.bound {
			t.Errorf("Options(%d) = %s, read back as %d; want %s", tt.bound, got, TestsPerPoint(got), tt.want)
		}
	}
	for _, tt := range []struct{ stack, want string }{{"", ""}, {"1@m.F#entry;2@m.G#entry", `{"stack":"1@m.F#entry;2@m.G#entry"}`}} {
		r := &campaign.Record{QuestionData: withStack(tt.stack)}
		if string(r.QuestionData) != tt.want || stackOf(r) != tt.stack {
			t.Errorf("withStack(%q) = %s, read back as %q; want %s", tt.stack, r.QuestionData, stackOf(r), tt.want)
		}
	}
	// The always run and the validation runs of a point keep the one-shot
	// run's stack.
	one := &PointTest{Package: "m", Test: "T", OneShot: &campaign.Record{Kind: "experiment", Package: "m", Test: "T",
		Arming: arm.Arming{Inject: arm.Injection{Site: "m.F#entry", Occurrence: 1, Fault: "error"}}, QuestionData: withStack("1@m.G#entry")}}
	p := &Point{Site: "m.F#entry", Fault: "error"}
	for _, r := range []*campaign.Record{one.alwaysRun(), one.validationRun(p, "m.G#entry", true, true)} {
		if stackOf(r) != "1@m.G#entry" {
			t.Errorf("%s: stack %q", r.Key(), stackOf(r))
		}
	}
}
