package handlers

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
)

// The arms of one region, as in
//
//	if errors.Is(err, ErrX) { fallback } else if err != nil { KIND }
const (
	wIs, wNil, wRegion = "m.F#handler:f.go:3:2", "m.F#handler:f.go:5:9", "m/f.go:2:9"
)

// widenEvent is a handler event of one of the two arms.
func widenEvent(id, usage, kind, widened, notWidenable string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"event":"handler","pid":1,"site":%q,"func":"m.F","pos":"m/f.go:1:2","region":%q,"usage":%q,"handler_kind":%q,"predicate":"p","widened":%q,"not_widenable":%q}`,
		id, wRegion, usage, kind, widened, notWidenable))
}

// widenProfile is the profile run of test: the Is arm saw isUsages, the
// err != nil arm (of kind nilKind) nilUsages.
func widenProfile(test, isUsages, nilKind, nilUsages, widened, notWidenable string) *campaign.Record {
	p := &campaign.Record{Kind: "profile", Package: "m", Test: test, Status: campaign.Passed}
	for _, u := range append([]string{"executed"}, strings.Fields(isUsages)...) {
		p.Events = append(p.Events, widenEvent(wIs, u, "fallback", widened, notWidenable))
	}
	for _, u := range append([]string{"executed"}, strings.Fields(nilUsages)...) {
		p.Events = append(p.Events, widenEvent(wNil, u, nilKind, "", ""))
	}
	return p
}

func TestWideningStatus(t *testing.T) {
	type test struct {
		name                       string
		isUsages, nilUsages        string
		armed, widened             string // outcomes of the Is arm's runs; "" for none
		nilKind, widen, notWiden   string
		status, why                string
		wantTogether, wantFollowUp bool
	}
	tests := []test{
		{name: "kept: every widened run passes", isUsages: "white blue", nilUsages: "white", nilKind: "propagate",
			armed: campaign.Passed, widened: campaign.Passed, widen: "err != nil", status: WidenKept},
		{name: "rejected: another arm handled the error without one", isUsages: "white blue", nilUsages: "white", nilKind: "fallback",
			armed: campaign.Passed, widened: campaign.Failed, widen: "err != nil", status: WidenRejected, why: "m TestA fails with the arm widened"},
		{name: "not offered: the error propagated, and the test expects it", isUsages: "white blue", nilUsages: "white", nilKind: "propagate",
			armed: campaign.Passed, widened: campaign.Failed, widen: "err != nil", status: WidenNotOffered, why: "m TestA expects the error to propagate"},
		{name: "not offered: the error was translated", isUsages: "white blue", nilUsages: "white", nilKind: "translate",
			armed: campaign.Passed, widened: campaign.Crashed, widen: "err != nil", status: WidenNotOffered, why: "widened, it crashes"},
		{name: "not offered: the error was accumulated, and returned later", isUsages: "white blue", nilUsages: "white", nilKind: "accumulate",
			armed: campaign.Passed, widened: campaign.Failed, widen: "err != nil", status: WidenNotOffered, why: "m TestA expects the error to propagate"},
		{name: "not offered: the program exited", isUsages: "white blue", nilUsages: "white", nilKind: "exit",
			armed: campaign.Passed, widened: campaign.Failed, widen: "err != nil", status: WidenNotOffered, why: "m TestA expects the error to propagate"},
		{name: "rejected: another arm logged the error", isUsages: "white blue", nilUsages: "white", nilKind: "log-and-continue",
			armed: campaign.Passed, widened: campaign.Failed, widen: "err != nil", status: WidenRejected, why: "m TestA fails with the arm widened"},
		{name: "rejected: no other arm took the error", isUsages: "white blue", nilKind: "propagate",
			armed: campaign.Passed, widened: campaign.Hung, widen: "err != nil", status: WidenRejected, why: "m TestA times out with the arm widened"},
		{name: "not offered: cannot be widened", isUsages: "white", nilKind: "propagate",
			armed: campaign.Passed, notWiden: "the arm uses the typed value pe", status: WidenNotOffered, why: "the arm uses the typed value pe"},
		{name: "not offered: source-dependent", isUsages: "white", nilKind: "propagate",
			armed: campaign.Failed, widen: "err != nil", status: WidenNotOffered, why: "not source-independent (source-dependent)"},
		{name: "not validated: the widened run is missing", isUsages: "white", nilKind: "propagate",
			armed: campaign.Passed, widen: "err != nil", status: WidenNotValidated, why: "missing", wantFollowUp: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prof := widenProfile("TestA", tt.isUsages, tt.nilKind, tt.nilUsages, tt.widen, tt.notWiden)
			recs := []*campaign.Record{prof}
			if tt.armed != "" {
				r := handlerRun(prof, wIs)
				r.Status, r.Fired = tt.armed, true
				recs = append(recs, r)
				n := handlerRun(prof, wNil)
				n.Status = campaign.Passed
				recs = append(recs, n)
			}
			if tt.widened != "" {
				r := widenRun(prof, wIs)
				r.Status = tt.widened
				recs = append(recs, r)
			}
			var is *HandlerResult
			for _, res := range HandlerResults(recs) {
				switch res.ID {
				case wIs:
					is = res
				case wNil:
					if res.Widening != nil {
						t.Errorf("the err != nil arm has a widening: %+v", res.Widening)
					}
				}
			}
			w := is.Widening
			if w == nil || w.Status != tt.status || !strings.Contains(w.Why, tt.why) {
				t.Fatalf("widening %+v, want %s (%s)", w, tt.status, tt.why)
			}
			if (w.Status == WidenRejected || w.Status == WidenNotOffered && tt.widened != "") != (w.Test != nil) {
				t.Errorf("failing test %+v", w.Test)
			}
			follow := widenFollowUps(recs)
			if tt.wantFollowUp {
				if len(follow) != 1 || follow[0].Key() != widenRun(prof, wIs).Key() {
					t.Errorf("follow-ups %+v, want the widened run of TestA", follow)
				}
			} else if len(follow) != 0 {
				// One kept arm: its widened runs are the runs of the kept
				// ones together.
				t.Errorf("follow-ups %+v, want none", follow)
			}
			if got := WideningsTogether(recs, HandlerResults(recs)); (got != nil) != (tt.status == WidenKept) {
				t.Errorf("together %+v", got)
			}
		})
	}
}

func TestWideningsTogether(t *testing.T) {
	const wG = "m.G#handler:g.go:3:2"
	profA := widenProfile("TestA", "white blue", "propagate", "white", "err != nil", "")
	profB := widenProfile("TestB", "pink", "propagate", "pink", "err != nil", "")
	// TestB also executes G's region, whose Is arm can be widened.
	gEvent := func(usage string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"event":"handler","pid":1,"site":%q,"func":"m.G","pos":"m/g.go:3:2","region":"m/g.go:2:9","usage":%q,"handler_kind":"fallback","predicate":"p","widened":"err != nil"}`, wG, usage))
	}
	profB.Events = append(profB.Events, gEvent("executed"), gEvent("white"))
	recs := []*campaign.Record{profA, profB}
	for _, r := range []*campaign.Record{handlerRun(profA, wIs), handlerRun(profA, wNil), widenRun(profA, wIs),
		handlerRun(profB, wIs), handlerRun(profB, wNil), widenRun(profB, wIs), handlerRun(profB, wG)} {
		r.Status = campaign.Passed
		recs = append(recs, r)
	}
	follow := widenFollowUps(recs)
	if len(follow) != 1 || follow[0].Arming.Inject.Site != wG || follow[0].Test != "TestB" {
		t.Fatalf("follow-ups %+v, want G's widened run first", follow)
	}
	follow[0].Status = campaign.Passed
	recs = append(recs, follow...)
	w := WideningsTogether(recs, HandlerResults(recs))
	if w == nil || strings.Join(w.IDs, ";") != wIs+";"+wG || len(w.Tests) != 2 || w.Status != WidenNotValidated {
		t.Fatalf("together before its runs: %+v", w)
	}
	follow = widenFollowUps(recs)
	if len(follow) != 2 || follow[0].Arming.Inject.Site != wIs+";"+wG {
		t.Fatalf("follow-ups %+v, want the two tests widened together", follow)
	}
	follow[0].Status, follow[1].Status = campaign.Passed, campaign.Hung
	recs = append(recs, follow...)
	w = WideningsTogether(recs, HandlerResults(recs))
	if w.Status != WidenRejected || !strings.Contains(w.Why, "m TestB times out with them all widened") {
		t.Errorf("together %+v", w)
	}
	if follow := widenFollowUps(recs); len(follow) != 0 {
		t.Errorf("follow-ups %+v once all ran, want none", follow)
	}
	if env := strings.Join(WidenEnv(wIs), " "); env != "ATOMICX_WIDEN="+wIs+" ATOMICX_SNAPSHOTS=none" {
		t.Errorf("environment %q", env)
	}
}
