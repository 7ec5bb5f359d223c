package detect

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// experimentsOf plans one experiment per point, occurrence and fault that
// the profile run reached; targeted ones snapshot only the calls that the
// profile run saw on the stack there.
func experimentsOf(prof *campaign.Record, maxOccur int, targeted bool) []*campaign.Record {
	var plan []*campaign.Record
	for _, r := range campaign.Reaches(prof) {
		if r.Occurrence > uint64(maxOccur) {
			continue
		}
		for _, fault := range r.FaultNames() {
			e := &campaign.Record{Kind: "experiment", Package: prof.Package, Test: prof.Test,
				Arming: arm.Arming{Inject: arm.Injection{Site: r.Site, Occurrence: r.Occurrence, Fault: fault}}}
			if targeted {
				e.Arming.SnapshotCalls = SnapshotList(r.Stack)
			}
			plan = append(plan, e)
		}
	}
	return plan
}

// naturalRunOf plans the run that gets the verdicts of the profile run's
// natural failures: the test runs again, snapshotting only the calls
// that failed (the first maxOccur of each function). It returns nil when
// the profile run saw no failure, or snapshotted everything itself.
// A failure beyond the calls the profile run numbers (BeyondCall) has no
// number to snapshot by: it is not planned.
func naturalRunOf(prof *campaign.Record, maxOccur int) *campaign.Record {
	var calls []string
	perSite := map[string]int{}
	seen := map[string]bool{}
	for _, raw := range prof.Events {
		var f event
		if !campaign.MayBeEvent(raw, "fail") || json.Unmarshal(raw, &f) != nil || f.Event != "fail" || f.Call == 0 {
			continue
		}
		call := fmt.Sprintf("%d@%s", f.Call, f.Site)
		if seen[call] || perSite[f.Site] >= maxOccur {
			continue
		}
		seen[call] = true
		perSite[f.Site]++
		calls = append(calls, call)
	}
	if len(calls) == 0 {
		return nil
	}
	return &campaign.Record{Kind: "natural", Package: prof.Package, Test: prof.Test, Arming: arm.Arming{SnapshotCalls: strings.Join(calls, ";")}}
}

// SnapshotList is the value of arm.Arming.SnapshotCalls for a list of
// calls ("N@SITE;...", as campaign.Reach.Stack lists them); ";" stands
// for none, as an empty variable would mean "all".
func SnapshotList(calls string) string {
	if calls == "" {
		return ";"
	}
	return calls
}
