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
