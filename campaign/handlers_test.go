package campaign

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// handlerEvent is a handler event as rt logs it.
func handlerEvent(id, region, usage string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"event":"handler","pid":1,"site":%q,"func":"m.F","pos":"m/f.go:1:2","region":%q,"usage":%q,"handler_kind":"fallback","predicate":"err != nil"}`, id, region, usage))
}

func TestHandlersPlanner(t *testing.T) {
	prof := &Record{Kind: "profile", Package: "m", Test: "TestA", Status: Passed, Millis: 7, Events: []json.RawMessage{
		handlerEvent("m.F#handler:f.go:3:2", "m/f.go:2:9", "executed"),
		handlerEvent("m.F#handler:f.go:3:2", "m/f.go:2:9", "pink"),
		// Seen in a usage only, its region not executed: not a handler this
		// test can arm (a usage without the region is not logged by rt, but
		// the planner must not count on it).
		handlerEvent("m.G#handler:g.go:3:2", "m/g.go:2:9", "pink"),
		json.RawMessage(`{"event":"handler","pid":1,"site":"m.H#handler:h.go:3:2","region":"m/h.go:2:9","usage":"executed","not_injectable":"why"}`),
		json.RawMessage(`{"event":"reach","pid":1,"site":"m.F#entry","occurrence":1,"faults":1}`),
	}}
	runs := Handlers.Runs(prof, Options{})
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1: %+v", len(runs), runs)
	}
	r := runs[0]
	if got := strings.Join(r.Env, " "); got != "ATOMICX_INJECT=handler:always:m.F#handler:f.go:3:2 ATOMICX_SNAPSHOTS=none" {
		t.Errorf("environment %q", got)
	}
	if r.Run.Site != "m.F#handler:f.go:3:2" || r.Run.Test != "TestA" || r.Run.Kind != "experiment" || r.CostMs != 7 || r.Key != r.Run.Key() {
		t.Errorf("run %+v", r.Run)
	}
	if PlannerNamed("handlers") != Handlers {
		t.Errorf("the handlers planner is not registered")
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
		{"white, passes", []*HandlerTest{row("w", Passed)}, SourceIndependent, HandlerUnknown},
		{"white and pink tests pass", []*HandlerTest{row("w", Passed), row("p", Passed)}, SourceIndependent, PurelyResilient},
		{"pink passes", []*HandlerTest{row("p", Passed)}, HandlerUnknown, PurelyResilient},
		{"white fails", []*HandlerTest{row("pw", Failed), row("p", Passed)}, SourceDependent, NotPurelyResilient},
		{"a crash fails", []*HandlerTest{row("w", Crashed)}, SourceDependent, NotPurelyResilient},
		{"a timeout fails", []*HandlerTest{row("p", Hung)}, HandlerUnknown, NotPurelyResilient},
		{"pink fails, white passes", []*HandlerTest{row("w", Passed), row("p", Failed)}, SourceIndependent, NotPurelyResilient},
		{"one of two white fails", []*HandlerTest{row("w", Passed), row("w", Failed)}, SourceDependent, NotPurelyResilient},
		{"blue only, passes", []*HandlerTest{row("b", Passed)}, HandlerUnknown, HandlerUnknown},
		{"a run missing", []*HandlerTest{row("w", ""), row("p", Passed)}, HandlerUnknown, HandlerUnknown},
		{"a run not started", []*HandlerTest{row("pw", NotRun)}, HandlerUnknown, HandlerUnknown},
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
	profA := &Record{Kind: "profile", Package: "m", Test: "TestA", Status: Passed, Events: []json.RawMessage{
		handlerEvent(isArm, region, "executed"), handlerEvent(nilArm, region, "executed"),
		// The Is arm took the error: the other arm's predicate never ran.
		handlerEvent(isArm, region, "white"),
	}}
	profB := &Record{Kind: "profile", Package: "m", Test: "TestB", Status: Passed, Events: []json.RawMessage{
		handlerEvent(isArm, region, "executed"), handlerEvent(nilArm, region, "executed"),
		handlerEvent(isArm, region, "pink"), handlerEvent(nilArm, region, "pink"),
	}}
	failedProf := &Record{Kind: "profile", Package: "m", Test: "TestC", Status: Failed, Events: []json.RawMessage{
		handlerEvent(isArm, region, "executed"),
	}}
	recs := []*Record{profA, profB, failedProf}
	for _, arm := range []struct {
		id string
		a  string // TestA's outcome
		b  string
	}{{isArm, Passed, Passed}, {nilArm, Failed, Passed}} {
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
