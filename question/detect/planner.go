package detect

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// Detect asks which functions are not failure atomic: one experiment
// per reached point, occurrence and fault, a natural rerun for the
// profile run's own failures, then rechecks that tell pure from
// dependent non-atomic functions.
var Detect = &campaign.Planner{
	Name: "detect",
	Runs: func(prof *campaign.Record, opt campaign.Options) []*campaign.PlannedRun {
		var recs []*campaign.Record
		if n := naturalRunOf(prof, opt.MaxOccur); n != nil {
			recs = append(recs, n)
		}
		recs = append(recs, experimentsOf(prof, opt.MaxOccur, !opt.AllSnaps)...)
		return PlannedRuns(recs, prof.Millis, opt)
	},
	FollowUps: func(recs []*campaign.Record, opt campaign.Options) []*campaign.PlannedRun {
		// In the order of their keys, not of the journal, so that which
		// of several runs asking one question gets the replay does not
		// depend on which finished first.
		recs = append([]*campaign.Record(nil), recs...)
		sort.SliceStable(recs, func(i, j int) bool { return recs[i].Key() < recs[j].Key() })
		return PlannedRuns(replaysOf(recs, askedBy(recs)), 0, opt)
	},
	InProcess:     true,
	Confirm:       evidenceToConfirm,
	Agrees:        sameNonAtomic,
	Rounds:        MaxMasks,
	FollowUpsText: "replaying %d failures with the non-atomic functions that ran inside them masked",
	FollowUpsName: "rechecks",
	Unnamed:       true,
}

// askedBy returns the questions that the journaled replays among recs
// answer: asked already.
func askedBy(recs []*campaign.Record) map[Question]bool {
	asked := map[Question]bool{}
	for _, r := range recs {
		if r.Kind != "recheck" {
			continue
		}
		for _, raw := range r.Events {
			var v event
			if campaign.MayBeEvent(raw, "verdict") && json.Unmarshal(raw, &v) == nil && v.Event == "verdict" {
				asked[Question{Site: v.Site, Mask: strings.Join(r.Arming.Mask, ";")}] = true
			}
		}
	}
	return asked
}

// PlannedRuns gives each detection run its arming environment and cost:
// the planned runs of records that arm faults as Detect's do.
func PlannedRuns(recs []*campaign.Record, cost int64, opt campaign.Options) []*campaign.PlannedRun {
	runs := make([]*campaign.PlannedRun, len(recs))
	for i, r := range recs {
		runs[i] = &campaign.PlannedRun{Key: r.Key(), CostMs: cost, Env: detectEnv(r, opt), Run: r}
	}
	return runs
}

// detectEnv is the environment that arms a detection run: the fault, the
// calls snapshotted, the functions masked.
func detectEnv(e *campaign.Record, opt campaign.Options) []string {
	var a arm.Arming
	if (e.Kind == "experiment" || e.Kind == "recheck") && e.Arming.Inject.Site != "" {
		a.Inject = e.Arming.Inject
		a.StopAbsorbed = opt.EarlyStop
		a.Snapshots = arm.SnapshotsBeforeFault
		if opt.AllSnaps {
			a.Snapshots = arm.SnapshotsAll
		}
	}
	a.SnapshotCalls = e.Arming.SnapshotCalls
	if len(e.Arming.Mask) > 0 {
		// Rolled back as masking can at best: with their writes to
		// files undone too, where that is sound (UndoFiles), so that
		// what runs after the rollback reads the files the memory is
		// in step with.
		a.Mask = e.Arming.Mask
		a.UndoFiles = a.Mask
	}
	return a.Env()
}
