package detect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// verdictAt is a verdict event of a call entered at seq on goroutine g.
func verdictAt(site, verdict string, g, seq int, masked bool) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"event": "verdict", "pid": 1, "site": site, "verdict": verdict,
		"injected": true, "masked": masked, "g": g, "seq": seq})
	return b
}

// TestFailures checks which failed calls ask whether they are non-atomic
// by themselves, and with which functions masked.
func TestFailures(t *testing.T) {
	v := verdictAt
	base := campaign.Record{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.F#call:strconv.Atoi#1", Occurrence: 1, Fault: "error"}}, Fired: true}
	tests := []struct {
		name   string
		mask   string
		events []json.RawMessage
		want   []string // "event:site:mask", "event:site:over bound"
	}{
		{
			name: "a non-atomic call inside another, through any helper: mask the inner one",
			// Set (seq 3) failed inside Parse (seq 1); the atomic helper
			// between them (seq 2) does not matter.
			events: []json.RawMessage{v("p.Set#entry", "non-atomic", 1, 3, false), v("p.fail#entry", "atomic", 1, 2, false), v("p.Parse#entry", "non-atomic", 1, 1, false)},
			want:   []string{"2:p.Parse#entry:p.Set#entry"},
		},
		{
			name:   "an earlier call that ended before the outer one began is not inside it",
			events: []json.RawMessage{v("p.Set#entry", "non-atomic", 1, 1, false), v("p.Parse#entry", "non-atomic", 1, 2, false)},
		},
		{
			name:   "another goroutine's call is not inside",
			events: []json.RawMessage{v("p.Set#entry", "non-atomic", 2, 3, false), v("p.Parse#entry", "non-atomic", 1, 1, false)},
		},
		{
			name:   "an atomic call inside asks nothing",
			events: []json.RawMessage{v("p.Set#entry", "atomic", 1, 3, false), v("p.Parse#entry", "non-atomic", 1, 1, false)},
		},
		{
			name:   "recursion: the function itself inside asks nothing",
			events: []json.RawMessage{v("p.Walk#entry", "non-atomic", 1, 3, false), v("p.Walk#entry", "non-atomic", 1, 1, false)},
		},
		{
			name: "every non-atomic function inside, sorted, once each",
			events: []json.RawMessage{v("p.C#entry", "non-atomic", 1, 4, false), v("p.B#entry", "non-atomic", 1, 3, false),
				v("p.C#entry", "non-atomic", 1, 5, false), v("p.A#entry", "non-atomic", 1, 1, false)},
			want: []string{"1:p.B#entry:p.C#entry", "3:p.A#entry:p.B#entry;p.C#entry"},
		},
		{
			name: "a replay adds what is newly non-atomic inside to its own mask",
			mask: "p.B#entry",
			events: []json.RawMessage{v("p.B#entry", "non-atomic", 1, 3, true), v("p.C#entry", "non-atomic", 1, 2, false),
				v("p.A#entry", "non-atomic", 1, 1, false)},
			want: []string{"2:p.A#entry:p.B#entry;p.C#entry"},
		},
		{
			name: "more functions inside than a replay may mask",
			events: []json.RawMessage{v("p.E#entry", "non-atomic", 1, 5, false), v("p.D#entry", "non-atomic", 1, 4, false),
				v("p.C#entry", "non-atomic", 1, 3, false), v("p.B#entry", "non-atomic", 1, 2, false), v("p.A#entry", "non-atomic", 1, 1, false)},
			want: []string{"1:p.D#entry:p.E#entry", "2:p.C#entry:p.D#entry;p.E#entry",
				"3:p.B#entry:p.C#entry;p.D#entry;p.E#entry", "4:p.A#entry:over bound"},
		},
		{
			name: "a call that failed inside before the fault, not snapshotted: unsettled",
			events: []json.RawMessage{
				json.RawMessage(`{"event":"verdict","pid":1,"site":"p.Set#entry","verdict":"unknown","reason":"not snapshotted: failed before the fault","g":1,"seq":2}`),
				v("p.Parse#entry", "non-atomic", 1, 1, false)},
			want: []string{"1:p.Parse#entry:unsettled"},
		},
		{
			name:   "a verdict that does not say where it ran (an older runtime) asks nothing",
			events: []json.RawMessage{v("p.Set#entry", "non-atomic", 0, 0, false), v("p.Parse#entry", "non-atomic", 0, 0, false)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := base
			rec.Arming.Mask, rec.Events = arm.SplitIDs(tt.mask), tt.events
			if tt.mask != "" {
				rec.Kind = "recheck"
			}
			var got []string
			for _, f := range Failures(&rec) {
				m := f.Mask
				switch {
				case f.OverBound:
					m = "over bound"
				case f.Unsettled:
					m = "unsettled"
				}
				got = append(got, fmt.Sprintf("%d:%s:%s", f.Event, f.Site, m))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("failures %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReplaysOf checks that a question is replayed once, whichever runs
// ask it, and that a replay asks again only about what is new.
func TestReplaysOf(t *testing.T) {
	v := verdictAt
	exp := func(site string, events ...json.RawMessage) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: site, Occurrence: 1, Fault: "error"}}, Fired: true, Events: events}
	}
	nested := []json.RawMessage{v("p.Set#entry", "non-atomic", 1, 2, false), v("p.Parse#entry", "non-atomic", 1, 1, false)}
	recs := []*campaign.Record{
		exp("p.X#entry", nested...),
		exp("p.Y#entry", nested...), // the same question
		{Kind: "natural", Package: "p", Test: "U", Arming: arm.Arming{SnapshotCalls: "1@p.Parse#entry"}, Events: nested},
		{Kind: "profile", Package: "p", Test: "T", Events: nested},
	}
	asked := map[Question]bool{}
	plan := replaysOf(recs, asked)
	if len(plan) != 1 || plan[0].Kind != "recheck" || plan[0].Arming.Inject.Site != "p.X#entry" || !slices.Equal(plan[0].Arming.Mask, []string{"p.Set#entry"}) {
		t.Fatalf("plan %+v, want one replay of the first experiment with Set masked", plan)
	}
	if again := replaysOf(recs, asked); len(again) != 0 {
		t.Errorf("asked again: %+v", again)
	}
	if plan[0].Key() == recs[0].Key() {
		t.Error("the replay has the key of the record it replays")
	}
	// A natural failure is replayed without a fault.
	plan = replaysOf(recs[2:], map[Question]bool{})
	if len(plan) != 1 || plan[0].Arming.Inject.Site != "" || plan[0].Test != "U" || plan[0].Arming.SnapshotCalls != "1@p.Parse#entry" {
		t.Errorf("plan %+v, want one replay of the natural run", plan)
	}
}

// TestBlameResolve checks the outcome of questions from their replays.
func TestBlameResolve(t *testing.T) {
	v := verdictAt
	replay := func(mask string, events ...json.RawMessage) *campaign.Record {
		return &campaign.Record{Kind: "recheck", Package: "p", Test: "T", Arming: arm.Arming{Inject: arm.Injection{Site: "p.X#entry", Occurrence: 1, Fault: "error"}, Mask: arm.SplitIDs(mask)}, Fired: true, Events: events}
	}
	recs := []*campaign.Record{
		// Parse is atomic once Set is masked: dependent.
		replay("p.Set#entry", v("p.Set#entry", "non-atomic", 1, 2, true), v("p.Parse#entry", "atomic", 1, 1, false)),
		// Load stays non-atomic with Read masked: pure.
		replay("p.Read#entry", v("p.Read#entry", "non-atomic", 1, 2, true), v("p.Load#entry", "non-atomic", 1, 1, false)),
		// Run stays non-atomic, but Step is now non-atomic inside it: ask
		// again with both masked; then atomic.
		replay("p.Exec#entry", v("p.Exec#entry", "non-atomic", 1, 3, true), v("p.Step#entry", "non-atomic", 1, 2, false), v("p.Run#entry", "non-atomic", 1, 1, false)),
		replay("p.Exec#entry;p.Step#entry", v("p.Step#entry", "non-atomic", 1, 2, true), v("p.Run#entry", "atomic", 1, 1, false)),
		// Loop's replay did not make it fail.
		replay("p.Next#entry", v("p.Next#entry", "non-atomic", 1, 2, true)),
	}
	b := NewBlame(recs)
	tests := []struct {
		f    Failure
		want string
	}{
		{Failure{Question: Question{"p.Parse#entry", "p.Set#entry"}}, OutcomeDependent},
		{Failure{Question: Question{"p.Load#entry", "p.Read#entry"}}, OutcomePure},
		{Failure{Question: Question{"p.Run#entry", "p.Exec#entry"}}, OutcomeDependent},
		{Failure{Question: Question{"p.Loop#entry", "p.Next#entry"}}, OutcomeNoAnswer},
		{Failure{Question: Question{"p.Parse#entry", "p.Other#entry"}}, OutcomeNoAnswer},
		{Failure{Question: Question{Site: "p.Big#entry"}, OverBound: true}, OutcomeOverBound},
	}
	for _, tt := range tests {
		got, rec, event := b.Resolve(tt.f)
		if got != tt.want {
			t.Errorf("%s with %s masked: %s, want %s", tt.f.Site, tt.f.Mask, got, tt.want)
		}
		if got == OutcomePure && (rec != recs[1] || event != 1) {
			t.Errorf("%s: pure shown by %+v event %d, want the second replay's event 1", tt.f.Site, rec, event)
		}
	}
}
