package detect

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// evidenceToConfirm picks, for each function found non-atomic, the run
// whose verdict a report would show as its evidence, as the report ranks
// evidence (a change a caller sees first, one the function made itself,
// the first of its chain, a fault at a call before one at an entry, the
// shorter path, then by test and injection), batched or not; when that
// run is a batch's, the engine runs it again in a fresh process. The
// report prefers the evidence of a fresh process to a batch's, and the
// confirmed pick outranks every other fresh run, so a function shows the
// evidence that a campaign of a process per experiment shows.
func evidenceToConfirm(recs []*campaign.Record) []*campaign.Record {
	type pick struct {
		rec *campaign.Record
		ev  event
	}
	best := map[string]*pick{}
	for _, r := range recs {
		if r.Kind != "experiment" {
			continue
		}
		for _, v := range nonAtomicVerdicts(r) {
			if b := best[v.Site]; b == nil || strongerEvidence(v, r, b.ev, b.rec) {
				best[v.Site] = &pick{r, v}
			}
		}
	}
	sites := make([]string, 0, len(best))
	for s, b := range best {
		if b.rec.Batched && !b.rec.Fresh {
			sites = append(sites, s)
		}
	}
	sort.Strings(sites)
	out := make([]*campaign.Record, 0, len(sites))
	seen := map[*campaign.Record]bool{}
	for _, s := range sites {
		if r := best[s].rec; !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// changesRank orders the kinds of change as the report does: what a
// caller sees first.
func changesRank(c string) int {
	switch c {
	case "stream":
		return 1
	case "scratch":
		return 2
	case "normalization":
		return 3
	}
	return 0
}

// strongerEvidence reports whether the verdict a of run ra is stronger
// evidence than b of rb (see evidenceToConfirm).
func strongerEvidence(a event, ra *campaign.Record, b event, rb *campaign.Record) bool {
	injRank := func(r *campaign.Record) int {
		if strings.HasSuffix(r.Arming.Inject.Site, "#entry") {
			return 1
		}
		return 0
	}
	switch {
	case changesRank(a.Changes) != changesRank(b.Changes):
		return changesRank(a.Changes) < changesRank(b.Changes)
	case (a.Callback == "") != (b.Callback == ""):
		return a.Callback == ""
	case a.First != b.First:
		return a.First
	case injRank(ra) != injRank(rb):
		return injRank(ra) < injRank(rb)
	case len(a.Path) != len(b.Path):
		return len(a.Path) < len(b.Path)
	case ra.Test != rb.Test:
		return ra.Test < rb.Test
	}
	// Then by the injection as the report writes it (Evidence.Injection):
	// the confirmed pick must be the report's.
	return injectionText(ra) < injectionText(rb)
}

// injectionText is a run's fault as the report's evidence writes it.
func injectionText(r *campaign.Record) string {
	inj := r.Arming.Inject
	return arm.Injection{Fault: inj.Fault, Occurrence: inj.Occurrence, Site: inj.Site}.String()
}

// sameNonAtomic reports whether a fresh rerun of a batched experiment
// found non-atomic every function that the batch did.
func sameNonAtomic(batched, fresh *campaign.Record) bool {
	found := nonAtomicSites(fresh)
	for s := range nonAtomicSites(batched) {
		if !found[s] {
			return false
		}
	}
	return true
}

// nonAtomicSites are the functions that a run's verdicts found non-atomic.
func nonAtomicSites(r *campaign.Record) map[string]bool {
	sites := map[string]bool{}
	for _, v := range nonAtomicVerdicts(r) {
		sites[v.Site] = true
	}
	return sites
}

// nonAtomicVerdicts are a run's verdicts of non-atomic calls.
func nonAtomicVerdicts(r *campaign.Record) []event {
	var vs []event
	for _, raw := range r.Events {
		var v event
		if campaign.MayBeEvent(raw, "verdict") && json.Unmarshal(raw, &v) == nil && v.Event == "verdict" && v.Verdict == "non-atomic" {
			vs = append(vs, v)
		}
	}
	return vs
}
