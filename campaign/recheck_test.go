package campaign

import (
	"encoding/json"
	"testing"
)

// TestRecheckOf checks which failures get replayed with a function masked,
// and what the replay asks.
func TestRecheckOf(t *testing.T) {
	ev := func(s string) json.RawMessage { return json.RawMessage(s) }
	v := func(site, verdict string, chain int, masked bool) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"event": "verdict", "site": site, "verdict": verdict, "chain": chain, "injected": true, "masked": masked})
		return b
	}
	base := Record{Kind: "experiment", Package: "p", Test: "T", Site: "p.F#call:strconv.Atoi#1", Occurrence: 1, Fault: "error", Fired: true, Snapshot: "1@p.P#entry;1@p.D#entry"}
	tests := []struct {
		name         string
		rec          Record
		events       []json.RawMessage
		wantMask     string // "" : no recheck
		wantQuestion string
	}{
		{
			name:     "two non-atomic functions: mask the first, ask about the second",
			rec:      base,
			events:   []json.RawMessage{ev(`{"event":"inject","site":"x"}`), v("p.P#entry", "non-atomic", 1, false), v("p.A#entry", "atomic", 1, false), v("p.D#entry", "non-atomic", 1, false)},
			wantMask: "p.P#entry", wantQuestion: "question\x00p.P#entry\x00p.D#entry",
		},
		{
			name:   "one non-atomic function: nothing to ask",
			rec:    base,
			events: []json.RawMessage{v("p.P#entry", "non-atomic", 1, false), v("p.D#entry", "atomic", 1, false)},
		},
		{
			name:   "recursion: the same function twice",
			rec:    base,
			events: []json.RawMessage{v("p.P#entry", "non-atomic", 1, false), v("p.P#entry", "non-atomic", 1, false)},
		},
		{
			name:   "another chain does not count",
			rec:    base,
			events: []json.RawMessage{v("p.P#entry", "non-atomic", 1, false), v("p.D#entry", "non-atomic", 2, false)},
		},
		{
			name: "a recheck still finding two: mask one more",
			rec: func() Record {
				r := base
				r.Kind, r.Mask = "recheck", "p.P#entry"
				return r
			}(),
			events:   []json.RawMessage{v("p.P#entry", "non-atomic", 1, true), v("p.D#entry", "non-atomic", 1, false), v("p.E#entry", "non-atomic", 1, false)},
			wantMask: "p.D#entry;p.P#entry", wantQuestion: "question\x00p.D#entry;p.P#entry\x00p.E#entry",
		},
		{
			name: "a fault that did not fire",
			rec: func() Record {
				r := base
				r.Fired = false
				return r
			}(),
			events: []json.RawMessage{v("p.P#entry", "non-atomic", 1, false), v("p.D#entry", "non-atomic", 1, false)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tt.rec
			rec.Events = tt.events
			got, question := recheckOf(&rec)
			if tt.wantMask == "" {
				if got != nil {
					t.Fatalf("recheck %+v, want none", got)
				}
				return
			}
			if got == nil {
				t.Fatal("no recheck")
			}
			if got.Kind != "recheck" || got.Mask != tt.wantMask || got.Site != rec.Site || got.Snapshot != rec.Snapshot || question != tt.wantQuestion {
				t.Errorf("recheck %+v, question %q; want mask %q, question %q", got, question, tt.wantMask, tt.wantQuestion)
			}
			if got.Key() == rec.Key() {
				t.Error("the recheck has the key of the record it replays")
			}
		})
	}
}
