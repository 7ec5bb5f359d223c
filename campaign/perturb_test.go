package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
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

// TestPerturbPoints: each point reached gets one one-shot run, with the
// test whose profile run reached the fewest points (ties to the smaller
// key, whatever the runs' times), an
// error where the point allows one, else a panic; points that allow no
// fault get none.
func TestPerturbPoints(t *testing.T) {
	const a, b, c, d = "m.A#entry", "m.B#call:m/b.go:3:4", "m.C#entry", "m.D#entry"
	profs := []*Record{
		{Kind: "profile", Package: "m", Test: "TestSlow", Millis: 90, Status: Passed, Events: eventLines(t,
			reachLine(a, 1, 1, "1@m.Outer#entry"), reachLine(a, 2, 1, "2@m.Outer#entry"), reachLine(b, 1, 3, "1@m.B#entry"), reachLine(d, 1, 0, ""))},
		{Kind: "profile", Package: "m", Test: "TestFastB", Millis: 1000, Status: Passed, Events: eventLines(t,
			reachLine(a, 1, 3, "4@m.Other#entry"))},
		{Kind: "profile", Package: "m", Test: "TestFastA", Millis: 10, Status: Passed, Events: eventLines(t,
			reachLine(c, 1, 2, ""))},
	}
	runs := Perturb.AllRuns(profs, Options{})
	var got []string
	for _, r := range runs {
		got = append(got, fmt.Sprintf("%s %s %s:%d stack=%s cost=%d env=%s", r.Run.Test, r.Run.Site, r.Run.Fault, r.Run.Occurrence,
			r.Run.Stack, r.CostMs, strings.Join(r.Env, " ")))
		if r.Key != r.Run.Key() || r.Run.Millis != 0 {
			t.Errorf("run %q: key %q, millis %d", r.Run.Key(), r.Key, r.Run.Millis)
		}
	}
	want := []string{ // in the order of their keys
		"TestFastA m.C#entry panic:1 stack= cost=10 env=ATOMICX_INJECT=panic:1:m.C#entry ATOMICX_SNAPSHOTS=none",
		"TestFastB m.A#entry error:1 stack=4@m.Other#entry cost=1000 env=ATOMICX_INJECT=error:1:m.A#entry ATOMICX_SNAPSHOTS=none",
		"TestSlow m.B#call:m/b.go:3:4 error:1 stack=1@m.B#entry cost=90 env=ATOMICX_INJECT=error:1:m.B#call:m/b.go:3:4 ATOMICX_SNAPSHOTS=none",
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestClassify(t *testing.T) {
	run := func(status string, fired bool) *Record { return &Record{Status: status, Fired: fired} }
	tests := []struct {
		name            string
		oneShot, always *Record
		want            string
		inconsistent    bool
	}{
		{"one-shot fails", run(Failed, true), run(Failed, true), Fragile, false},
		{"one-shot crashes", run(Crashed, true), run(Failed, true), Fragile, false},
		{"one-shot hangs", run(Hung, true), run(Failed, true), Fragile, false},
		{"one-shot fails, always passes", run(Failed, true), run(Passed, true), Fragile, true},
		{"one-shot fails, always not run yet", run(Failed, true), nil, Fragile, false},
		{"always fails", run(Passed, true), run(Failed, true), Sensitive, false},
		{"always hangs", run(Passed, true), run(Hung, true), Sensitive, false},
		{"both pass", run(Passed, true), run(Passed, true), Immunized, false},
		{"not reached again", run(Passed, false), run(Passed, false), PointNotInjected, false},
		{"always missing", run(Passed, true), nil, PointNotRun, false},
		{"one-shot missing", nil, run(Failed, true), PointNotRun, false},
		{"one-shot did not start", run(NotRun, false), nil, PointNotRun, false},
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Monitored(&Record{Stack: stack, Events: eventLines(t, tt.events...)})
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
	oneShots := []*Record{
		{Kind: "experiment", Package: "m", Test: "T1", Site: fragile, Occurrence: 1, Fault: "error", Stack: "1@m.Caller#entry;1@m.Top#entry",
			Status: Failed, Fired: true, Events: eventLines(t, inject(fragile), `{"event":"fail","site":"m.Caller#entry","call":1}`)},
		{Kind: "experiment", Package: "m", Test: "T2", Site: sensitive, Occurrence: 1, Fault: "error", Stack: "2@m.Loop#entry",
			Status: Passed, Fired: true, Events: eventLines(t, inject(sensitive), `{"event":"fail","site":"m.Loop#entry","call":2}`)},
		{Kind: "experiment", Package: "m", Test: "T3", Site: immune, Occurrence: 1, Fault: "error", Stack: "1@m.Safe#entry",
			Status: Passed, Fired: true, Events: eventLines(t, inject(immune))},
	}
	recs := append([]*Record{{Kind: "profile", Package: "m", Test: "T1", Status: Passed}}, oneShots...)
	round1 := perturbFollowUps(recs)
	if len(round1) != 3 {
		t.Fatalf("round 1 planned %d runs, want the 3 always runs", len(round1))
	}
	tests := map[string]string{fragile: "T1", sensitive: "T2", immune: "T3"}
	for i, r := range round1 {
		if !r.Always || r.Test != tests[r.Site] || r.Occurrence != 0 {
			t.Errorf("round 1 run %d: %+v", i, r)
		}
		delete(tests, r.Site)
		r.Fired = true
		r.Status = map[string]string{fragile: Failed, sensitive: Failed, immune: Passed}[r.Site]
	}
	recs = append(recs, round1...)
	round2 := perturbFollowUps(recs)
	var got []string
	for _, r := range round2 {
		env := strings.Join(PerturbEnv(r), " ")
		got = append(got, fmt.Sprintf("%s always=%v %s", r.Site, r.Always, env))
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
		r.Status = Failed
		if r.Site == sensitive || r.Mask != "" {
			r.Status = Passed
		}
		if r.Mask != "" && r.Site == sensitive {
			r.Events = eventLines(t, `{"event":"oblivious","site":"m.Loop#entry","swallowed":false,"atomic":true,"rolled_back":false}`)
		} else {
			r.Events = eventLines(t, fmt.Sprintf(`{"event":"oblivious","site":%q,"swallowed":true,"atomic":%v,"rolled_back":%v}`, r.Oblivious, r.Mask != "", r.Mask != ""))
		}
	}
	recs = append(recs, round2...)
	if more := perturbFollowUps(recs); len(more) != 0 {
		t.Errorf("round 3 planned %d runs, want none", len(more))
	}
	points := PerturbPointsOf(recs)
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

// TestReadEventsBounded: a run's events are read up to maxRunEvents
// bytes; a line cut there is dropped.
func TestReadEventsBounded(t *testing.T) {
	path := t.TempDir() + "/events.jsonl"
	line := `{"event":"fail","site":"m.F#entry","call":1}` + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 100)), 0o666); err != nil {
		t.Fatal(err)
	}
	if got := len(readEvents(path, eventsBound("experiment"))); got != 100 {
		t.Errorf("read %d events, want all 100", got)
	}
	defer func(n int64) { maxRunEvents = n }(maxRunEvents)
	maxRunEvents = int64(10*len(line) + len(line)/2)
	if got := len(readEvents(path, eventsBound("experiment"))); got != 10 {
		t.Errorf("read %d events under a bound of 10.5 lines, want 10", got)
	}
	maxRunEvents = 32 << 20
	defer func(n int64) { maxArmedRunEvents = n }(maxArmedRunEvents)
	maxArmedRunEvents = int64(20 * len(line))
	if got := len(readEvents(path, eventsBound("experiment"))); got != 20 {
		t.Errorf("an armed run kept %d events under a bound of 20 lines, want 20", got)
	}
	if got := len(readEvents(path, eventsBound("profile"))); got != 100 {
		t.Errorf("a profile run kept %d events, want all 100", got)
	}
}
