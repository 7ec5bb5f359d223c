package perturb

import (
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/internal/armtest"
	"github.com/atomicx/atomicx/rt/arm"
)

// TestArming: every environment perturbation arms a run with parses
// back to the arming it meant.
func TestArming(t *testing.T) {
	const site, call, a = "m.F#entry", "m.F#call:m/f.go:3:4", "m.A#entry"
	armtest.Check(t, PerturbEnv(&campaign.Record{Kind: "experiment", Arming: arm.Arming{Inject: arm.Injection{Site: call, Occurrence: 3, Fault: "error"}}}),
		arm.Arming{Inject: arm.Injection{Fault: arm.FaultError, Occurrence: 3, Site: call}, Snapshots: arm.SnapshotsNone})
	armtest.Check(t, PerturbEnv(&campaign.Record{Kind: "experiment", Arming: arm.Arming{Inject: arm.Injection{Site: site, Occurrence: 1, Always: true, Fault: "panic"}, Oblivious: arm.SplitIDs(a), Mask: arm.SplitIDs(a)}}),
		arm.Arming{Inject: arm.Injection{Fault: arm.FaultPanic, Always: true, Site: site}, Oblivious: []string{a}, Mask: []string{a},
			Snapshots: arm.SnapshotsNone})
}
