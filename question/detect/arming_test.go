package detect

import (
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/internal/armtest"
	"github.com/atomicx/atomicx/rt/arm"
)

// TestArming: every environment detection arms a run with parses back to
// the arming it meant.
func TestArming(t *testing.T) {
	const site, call, a, b = "m.F#entry", "m.F#call:m/f.go:3:4", "m.A#entry", "m.B#entry"
	armtest.Check(t, detectEnv(&campaign.Record{Kind: "experiment", Arming: arm.Arming{Inject: arm.Injection{Site: call, Occurrence: 2, Fault: "error"}, SnapshotCalls: "1-3@" + a}}, campaign.Options{EarlyStop: true}),
		arm.Arming{Inject: arm.Injection{Fault: arm.FaultError, Occurrence: 2, Site: call}, StopAbsorbed: true,
			Snapshots: arm.SnapshotsBeforeFault, SnapshotCalls: "1-3@" + a})
	armtest.Check(t, detectEnv(&campaign.Record{Kind: "recheck", Arming: arm.Arming{Inject: arm.Injection{Site: site, Occurrence: 1, Fault: "panic"}, SnapshotCalls: ";", Mask: arm.SplitIDs(a + ";" + b)}}, campaign.Options{AllSnaps: true}),
		arm.Arming{Inject: arm.Injection{Fault: arm.FaultPanic, Occurrence: 1, Site: site}, Snapshots: arm.SnapshotsAll,
			SnapshotCalls: ";", Mask: []string{a, b}, UndoFiles: []string{a, b}})
	armtest.Check(t, detectEnv(&campaign.Record{Kind: "natural", Arming: arm.Arming{SnapshotCalls: "4@" + a}}, campaign.Options{}),
		arm.Arming{SnapshotCalls: "4@" + a})
}
