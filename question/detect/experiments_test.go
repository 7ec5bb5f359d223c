package detect

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
)

// TestExperimentsOf checks the plan made from a profile run: one
// experiment per reached point, occurrence (up to the cap) and allowed
// fault, once each even when the runtime logged a reach twice.
func TestExperimentsOf(t *testing.T) {
	ev := func(s string) json.RawMessage { return json.RawMessage(s) }
	prof := &campaign.Record{Kind: "profile", Package: "p", Test: "T", Events: []json.RawMessage{
		ev(`{"event":"reach","site":"p.F#entry","occurrence":1,"faults":3}`),
		ev(`{"event":"reach","site":"p.F#entry","occurrence":2,"faults":3}`),
		ev(`{"event":"reach","site":"p.F#entry","occurrence":2,"faults":3}`),
		ev(`{"event":"reach","site":"p.F#entry","occurrence":3,"faults":3}`),
		ev(`{"event":"reach","site":"p.G#call:os.Open#1","occurrence":1,"faults":1,"stack":"4@p.G#entry"}`),
		ev(`{"event":"verdict","site":"p.F#entry","func":"p.F"}`),
		ev(`not json`),
	}}
	var got []string
	for _, e := range experimentsOf(prof, 2, true) {
		got = append(got, e.Arming.Inject.Fault+":"+strings.TrimPrefix(e.Key(), "experiment\x00p\x00T\x00")+":"+e.Arming.SnapshotCalls)
	}
	want := []string{
		"error:p.F#entry\x001\x00error:;", "panic:p.F#entry\x001\x00panic:;",
		"error:p.F#entry\x002\x00error:;", "panic:p.F#entry\x002\x00panic:;",
		"error:p.G#call:os.Open#1\x001\x00error:4@p.G#entry",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("plan:\n got %q\nwant %q", got, want)
	}
}

// TestNaturalRunOf checks the rerun planned for a profile run's natural
// failures: each failed call once, at most the cap per function.
func TestNaturalRunOf(t *testing.T) {
	ev := func(s string) json.RawMessage { return json.RawMessage(s) }
	prof := &campaign.Record{Kind: "profile", Package: "p", Test: "T", Events: []json.RawMessage{
		ev(`{"event":"fail","site":"p.F#entry","call":3}`),
		ev(`{"event":"fail","site":"p.G#entry","call":1}`),
		ev(`{"event":"fail","site":"p.F#entry","call":3}`),
		ev(`{"event":"fail","site":"p.F#entry","call":7}`),
		ev(`{"event":"fail","site":"p.F#entry","call":9}`),
		ev(`{"event":"reach","site":"p.F#entry","occurrence":1}`),
	}}
	got := naturalRunOf(prof, 2)
	if got == nil || got.Kind != "natural" || got.Arming.SnapshotCalls != "3@p.F#entry;1@p.G#entry;7@p.F#entry" {
		t.Errorf("natural run = %+v, want the calls 3@p.F, 1@p.G, 7@p.F", got)
	}
	if n := naturalRunOf(&campaign.Record{Kind: "profile", Events: prof.Events[5:]}, 2); n != nil {
		t.Errorf("natural run %+v for a profile run without failures", n)
	}
}
