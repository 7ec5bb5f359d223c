package detect

import (
	"encoding/json"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

func verdictRun(test, inject string, batched, fresh bool, verdicts ...string) *campaign.Record {
	r := &campaign.Record{Kind: "experiment", Package: "m", Test: test, Batched: batched, Fresh: fresh,
		Arming: arm.Arming{Inject: arm.Injection{Fault: arm.FaultError, Occurrence: 1, Site: inject}}}
	for _, v := range verdicts {
		r.Events = append(r.Events, json.RawMessage(v))
	}
	return r
}

func TestEvidenceToConfirm(t *testing.T) {
	const (
		fNonAtomic       = `{"event":"verdict","site":"m.F#entry","verdict":"non-atomic","path":"f.a.b","changes":"caller-visible"}`
		fShorter         = `{"event":"verdict","site":"m.F#entry","verdict":"non-atomic","path":"f.a","changes":"caller-visible"}`
		fStream          = `{"event":"verdict","site":"m.F#entry","verdict":"non-atomic","path":"f","changes":"stream"}`
		gNonAtomic       = `{"event":"verdict","site":"m.G#entry","verdict":"non-atomic","path":"g.x"}`
		hAtomic          = `{"event":"verdict","site":"m.H#entry","verdict":"atomic"}`
		kNonAtomicCallee = `{"event":"verdict","site":"m.K#entry","verdict":"non-atomic","path":"k","callback":"k.fn"}`
		kNonAtomicOwn    = `{"event":"verdict","site":"m.K#entry","verdict":"non-atomic","path":"k.long.path"}`
		lNonAtomic       = `{"event":"verdict","site":"m.L#entry","verdict":"non-atomic","path":"l"}`
	)
	longer := verdictRun("TestA", "m.X#call:x.go:1:1", true, false, fNonAtomic)
	shorter := verdictRun("TestB", "m.X#call:x.go:1:1", true, false, fShorter)
	stream := verdictRun("TestA", "m.X#call:x.go:2:1", true, false, fStream)
	// G's best evidence is a fresh process's already: nothing to confirm.
	gFresh := verdictRun("TestA", "m.Y#entry", false, false, gNonAtomic)
	gBatched := verdictRun("TestA", "m.Z#entry", true, false, gNonAtomic)
	atomic := verdictRun("TestA", "m.Z#call:z.go:1:1", true, false, hAtomic)
	callee := verdictRun("TestA", "m.W#call:w.go:1:1", true, false, kNonAtomicCallee)
	own := verdictRun("TestC", "m.W#entry", true, false, kNonAtomicOwn)
	// L's fresh evidence is weaker than a batch's (a fault at an entry,
	// not at a call): the batch's is what a report shows, and is confirmed.
	lFresh := verdictRun("TestA", "m.V#entry", false, false, lNonAtomic)
	lBatched := verdictRun("TestB", "m.V#call:v.go:1:1", true, false, lNonAtomic)
	got := evidenceToConfirm([]*campaign.Record{longer, stream, gFresh, shorter, gBatched, atomic, callee, own, lFresh, lBatched})
	want := []*campaign.Record{shorter, own, lBatched} // F, K, L: by site
	if len(got) != len(want) {
		t.Fatalf("picked %d runs, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pick %d: %s %s, want %s %s", i, got[i].Test, got[i].Arming.Inject.Site, want[i].Test, want[i].Arming.Inject.Site)
		}
	}
}

// TestEvidenceTieBreak: between runs that rank alike, the pick is the
// one whose injection, as the report writes it, comes first, as the
// report's evidence is: a panic at m.A's call after an error at m.B's.
func TestEvidenceTieBreak(t *testing.T) {
	const v = `{"event":"verdict","site":"m.F#entry","verdict":"non-atomic","path":"f"}`
	panicAtA := verdictRun("TestA", "m.A#call:a.go:1:1", true, false, v)
	panicAtA.Arming.Inject.Fault = arm.FaultPanic
	errorAtB := verdictRun("TestA", "m.B#call:b.go:1:1", true, false, v)
	for _, recs := range [][]*campaign.Record{{panicAtA, errorAtB}, {errorAtB, panicAtA}} {
		if got := evidenceToConfirm(recs); len(got) != 1 || got[0] != errorAtB {
			t.Errorf("picked %v, want the error at m.B's call", got)
		}
	}
}

func TestSameNonAtomic(t *testing.T) {
	f := `{"event":"verdict","site":"m.F#entry","verdict":"non-atomic"}`
	g := `{"event":"verdict","site":"m.G#entry","verdict":"non-atomic"}`
	fAtomic := `{"event":"verdict","site":"m.F#entry","verdict":"atomic"}`
	tests := []struct {
		name         string
		batch, fresh []string
		want         bool
	}{
		{"same", []string{f}, []string{f}, true},
		{"more in the fresh process", []string{f}, []string{f, g}, true},
		{"atomic in the fresh process", []string{f}, []string{fAtomic}, false},
		{"missing in the fresh process", []string{f, g}, []string{g}, false},
		{"none", nil, nil, true},
	}
	for _, tt := range tests {
		b := verdictRun("TestA", "m.X#entry", true, false, tt.batch...)
		fr := verdictRun("TestA", "m.X#entry", false, true, tt.fresh...)
		if got := sameNonAtomic(b, fr); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
