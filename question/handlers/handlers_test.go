package handlers

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
)

// handlerEvent is a handler event as rt logs it.
func handlerEvent(id, region, usage string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"event":"handler","pid":1,"site":%q,"func":"m.F","pos":"m/f.go:1:2","region":%q,"usage":%q,"handler_kind":"fallback","predicate":"err != nil"}`, id, region, usage))
}

func TestHandlersPlanner(t *testing.T) {
	prof := &campaign.Record{Kind: "profile", Package: "m", Test: "TestA", Status: campaign.Passed, Millis: 7, Events: []json.RawMessage{
		handlerEvent("m.F#handler:f.go:3:2", "m/f.go:2:9", "executed"),
		handlerEvent("m.F#handler:f.go:3:2", "m/f.go:2:9", "pink"),
		// Seen in a usage only, its region not executed: not a handler this
		// test can arm (a usage without the region is not logged by rt, but
		// the planner must not count on it).
		handlerEvent("m.G#handler:g.go:3:2", "m/g.go:2:9", "pink"),
		json.RawMessage(`{"event":"handler","pid":1,"site":"m.H#handler:h.go:3:2","region":"m/h.go:2:9","usage":"executed","not_injectable":"why"}`),
		json.RawMessage(`{"event":"reach","pid":1,"site":"m.F#entry","occurrence":1,"faults":1}`),
	}}
	runs := Handlers.Runs(prof, campaign.Options{})
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1: %+v", len(runs), runs)
	}
	r := runs[0]
	if got := strings.Join(r.Env, " "); got != "ATOMICX_INJECT=handler:always:m.F#handler:f.go:3:2 ATOMICX_SNAPSHOTS=none" {
		t.Errorf("environment %q", got)
	}
	if r.Run.Arming.Inject.Site != "m.F#handler:f.go:3:2" || r.Run.Test != "TestA" || r.Run.Kind != "experiment" || r.CostMs != 7 || r.Key != r.Run.Key() {
		t.Errorf("run %+v", r.Run)
	}
}

func TestHandlerVerdicts(t *testing.T) {
	row := func(usages, outcome string) *HandlerTest {
		return &HandlerTest{Pink: strings.Contains(usages, "p"), White: strings.Contains(usages, "w"), Blue: strings.Contains(usages, "b"), Outcome: outcome}
	}
	tests := []struct {
		name               string
		rows               []*HandlerTest
		source, resilience string
	}{
		{"no test executes the region", nil, HandlerUnknown, HandlerUnknown},
		{"white, passes", []*HandlerTest{row("w", campaign.Passed)}, SourceIndependent, HandlerUnknown},
		{"white and pink tests pass", []*HandlerTest{row("w", campaign.Passed), row("p", campaign.Passed)}, SourceIndependent, PurelyResilient},
		{"pink passes", []*HandlerTest{row("p", campaign.Passed)}, HandlerUnknown, PurelyResilient},
		{"white fails", []*HandlerTest{row("pw", campaign.Failed), row("p", campaign.Passed)}, SourceDependent, NotPurelyResilient},
		{"a crash fails", []*HandlerTest{row("w", campaign.Crashed)}, SourceDependent, NotPurelyResilient},
		{"a timeout fails", []*HandlerTest{row("p", campaign.Hung)}, HandlerUnknown, NotPurelyResilient},
		{"pink fails, white passes", []*HandlerTest{row("w", campaign.Passed), row("p", campaign.Failed)}, SourceIndependent, NotPurelyResilient},
		{"one of two white fails", []*HandlerTest{row("w", campaign.Passed), row("w", campaign.Failed)}, SourceDependent, NotPurelyResilient},
		{"blue only, passes", []*HandlerTest{row("b", campaign.Passed)}, HandlerUnknown, HandlerUnknown},
		{"a run missing", []*HandlerTest{row("w", ""), row("p", campaign.Passed)}, HandlerUnknown, HandlerUnknown},
		{"a run not started", []*HandlerTest{row("pw", campaign.NotRun)}, HandlerUnknown, HandlerUnknown},
		// A white test whose failure is not tied to its white usage
		// tells nothing of the source; another's failure still does.
		{"white fails, not counted", []*HandlerTest{{White: true, Outcome: campaign.Failed, NotCounted: "why"}, row("w", campaign.Passed)}, HandlerUnknown, NotPurelyResilient},
		{"white fails, not counted, another counted", []*HandlerTest{{White: true, Outcome: campaign.Failed, NotCounted: "why"}, row("w", campaign.Failed)}, SourceDependent, NotPurelyResilient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			source, resilience := HandlerVerdicts(tt.rows)
			if source != tt.source || resilience != tt.resilience {
				t.Errorf("verdicts %q, %q; want %q, %q", source, resilience, tt.source, tt.resilience)
			}
		})
	}
}

func TestHandlerResults(t *testing.T) {
	const isArm, nilArm, region = "m.F#handler:f.go:3:2", "m.F#handler:f.go:5:9", "m/f.go:2:9"
	profA := &campaign.Record{Kind: "profile", Package: "m", Test: "TestA", Status: campaign.Passed, Events: []json.RawMessage{
		handlerEvent(isArm, region, "executed"), handlerEvent(nilArm, region, "executed"),
		// The Is arm took the error: the other arm's predicate never ran.
		handlerEvent(isArm, region, "white"),
	}}
	profB := &campaign.Record{Kind: "profile", Package: "m", Test: "TestB", Status: campaign.Passed, Events: []json.RawMessage{
		handlerEvent(isArm, region, "executed"), handlerEvent(nilArm, region, "executed"),
		handlerEvent(isArm, region, "pink"), handlerEvent(nilArm, region, "pink"),
	}}
	failedProf := &campaign.Record{Kind: "profile", Package: "m", Test: "TestC", Status: campaign.Failed, Events: []json.RawMessage{
		handlerEvent(isArm, region, "executed"),
	}}
	recs := []*campaign.Record{profA, profB, failedProf}
	for _, arm := range []struct {
		id string
		a  string // TestA's outcome
		b  string
	}{{isArm, campaign.Passed, campaign.Passed}, {nilArm, campaign.Failed, campaign.Passed}} {
		ra, rb := handlerRun(profA, arm.id), handlerRun(profB, arm.id)
		ra.Status, rb.Status, ra.Fired, rb.Fired = arm.a, arm.b, true, true
		recs = append(recs, ra, rb)
	}
	res := HandlerResults(recs)
	if len(res) != 2 {
		t.Fatalf("%d handlers, want 2", len(res))
	}
	is, other := res[0], res[1]
	if is.ID != isArm || len(is.Tests) != 2 || is.Source != SourceIndependent || is.Resilience != PurelyResilient {
		t.Errorf("Is arm: %+v, %s, %s", is.HandlerSeen, is.Source, is.Resilience)
	}
	if !other.Tests[0].Blue || other.Tests[0].White {
		t.Errorf("the err != nil arm in TestA: %+v, want blue (the error went to the Is arm)", other.Tests[0])
	}
	if other.Source != HandlerUnknown || other.Resilience != NotPurelyResilient {
		t.Errorf("err != nil arm: %s, %s", other.Source, other.Resilience)
	}
}

func TestFaultOccurrences(t *testing.T) {
	const site = "m.(*T).F#handler:f.go:3:2"
	tests := []struct {
		name, output string
		want         string
	}{
		{"none", "--- FAIL: TestA\n    a_test.go:9: bad: 3\n", "[]"},
		{"wrapped, with its parentheses", "    a_test.go:9: err: sub 0: atomicx: injected error at " + site + " (m/f.go:3:2), occurrence 2\n", "[2]"},
		{"an Is arm's fault names its target after", "x: atomicx: injected error at " + site + " (m/f.go:3:2), occurrence 12: EOF\n", "[12]"},
		{"a panic, twice, out of order", "panic: atomicx: injected panic at " + site + " (m/f.go:3:2), occurrence 3\n" +
			"a: atomicx: injected error at " + site + " (m/f.go:3:2), occurrence 1\nb: atomicx: injected error at " + site + " (m/f.go:3:2), occurrence 3\n", "[1 3]"},
		{"another site's fault", "atomicx: injected error at m.G#handler:g.go:1:1 (m/g.go:1:1), occurrence 1\n", "[]"},
		{"cut before its occurrence", "atomicx: injected error at " + site + " (m/f.go:3:2)\n, occurrence 4", "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fmt.Sprint(FaultOccurrences(tt.output, site)); got != tt.want {
				t.Errorf("occurrences %s, want %s", got, tt.want)
			}
		})
	}
}

// TestHandlerSourceCount: a failed armed run of a white test counts for
// the source verdict only when its failure is tied to an execution of
// the region where the profile run had an error reach the arm.
func TestHandlerSourceCount(t *testing.T) {
	const id, region = "m.F#handler:f.go:5:9", "m/f.go:2:9"
	white := func(at uint64) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"event":"white","pid":1,"site":%q,"at":%d}`, id, at))
	}
	armed := func(at uint64) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"event":"armed","pid":2,"site":%q,"at":%d}`, id, at))
	}
	more := func(event string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"event":%q,"pid":1,"site":%q,"more":true}`, event, id))
	}
	fault := func(n int) string {
		return fmt.Sprintf("    a_test.go:9: err: atomicx: injected error at %s (m/f.go:5:9), occurrence %d\n", id, n)
	}
	base := []json.RawMessage{handlerEvent(id, region, "executed"), handlerEvent(id, region, "white"), handlerEvent(id, region, "pink")}
	tests := []struct {
		name    string
		whites  []json.RawMessage // the profile run's white executions
		status  string
		output  string
		armed   []json.RawMessage
		counted bool
		why     string // part of NotCounted
		source  string
	}{
		{"passes", []json.RawMessage{white(1)}, campaign.Passed, "", []json.RawMessage{armed(1), armed(2)}, true, "", SourceIndependent},
		{"fails on the error it expected", []json.RawMessage{white(1)}, campaign.Failed, fault(1), []json.RawMessage{armed(1), armed(2)}, true, "", SourceDependent},
		{"fails on a call it expected to succeed", []json.RawMessage{white(1)}, campaign.Failed, fault(2), []json.RawMessage{armed(1), armed(2)}, false, "failed on the armed error of execution 2", HandlerUnknown},
		{"names both: tied", []json.RawMessage{white(2)}, campaign.Failed, fault(1) + fault(2), nil, true, "", SourceDependent},
		{"names none, skipped only white executions", []json.RawMessage{white(1), white(2)}, campaign.Failed, "bad: 3\n", []json.RawMessage{armed(1), armed(2)}, true, "", SourceDependent},
		{"names none, skipped a pink one", []json.RawMessage{white(1)}, campaign.Failed, "bad: 3\n", []json.RawMessage{armed(1), armed(2), armed(3)}, false, "skipped executions 2, 3", HandlerUnknown},
		{"a crash names it in its death line", []json.RawMessage{white(1)}, campaign.Crashed, "", []json.RawMessage{armed(1)}, true, "", SourceDependent},
		{"past the whites logged, more came", []json.RawMessage{white(1), more("white")}, campaign.Failed, fault(90), nil, true, "", SourceDependent},
		{"armed past the log, whites all logged", []json.RawMessage{white(1)}, campaign.Failed, "bad\n", []json.RawMessage{armed(1), more("armed")}, false, "executions past the 1 the run logs", HandlerUnknown},
		{"armed past the log, and whites", []json.RawMessage{white(1), more("white")}, campaign.Failed, "bad\n", []json.RawMessage{armed(1), more("armed")}, true, "", SourceDependent},
		// A journal that predates the numbering: every failure counts.
		{"no white executions numbered", nil, campaign.Failed, fault(2), nil, true, "", SourceDependent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prof := &campaign.Record{Kind: "profile", Package: "m", Test: "TestA", Status: campaign.Passed, Events: append(append([]json.RawMessage(nil), base...), tt.whites...)}
			run := handlerRun(prof, id)
			run.Status, run.Fired, run.Output, run.Events = tt.status, true, tt.output, tt.armed
			if tt.status == campaign.Crashed {
				run.Died = strings.TrimSpace(strings.Replace(fault(1), "a_test.go:9: err:", "panic:", 1))
			}
			res := HandlerResults([]*campaign.Record{prof, run})
			if len(res) != 1 || len(res[0].Tests) != 1 {
				t.Fatalf("results %+v", res)
			}
			ht := res[0].Tests[0]
			if ht.SourceCounted() != tt.counted || !strings.Contains(ht.NotCounted, tt.why) || tt.counted != (ht.NotCounted == "") {
				t.Errorf("counted %t (%q), want %t (%q)", ht.SourceCounted(), ht.NotCounted, tt.counted, tt.why)
			}
			if res[0].Source != tt.source {
				t.Errorf("source %s, want %s", res[0].Source, tt.source)
			}
		})
	}
}
