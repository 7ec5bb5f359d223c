package handlers

import (
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// Routing a panic to a handler (the second widening of short-circuit
// testing, in Go): the err != nil arm of a region whose call can panic
// (see rt.Handler.Route) could handle the panic too, if the call were
// wrapped so that a panic becomes its error. A handlers campaign validates
// each such arm that the tests show to be source-independent: every test
// that executes its region runs once with the region armed to panic and
// the panic routed to the arm (arm.EnvRoute). A test that fails routed
// runs once more with the panic armed and not routed: if it passes so,
// the test expects the panic to propagate (it recovers it, or checks
// that the call panics). Then the kept ones are routed all together, in
// one run of every test that executes one of their regions.
//
// The status of an arm's routing (Widening.Status) is one of the
// widening's:
//
//   - kept: every routed run passed;
//   - rejected: a routed run failed, and the same test fails with the
//     panic not routed too;
//   - not offered: the region's call cannot panic (NotRoutable says why),
//     the arm is not source-independent, or a test that fails routed
//     passes with the panic going on: it expects the panic to propagate;
//   - not validated: a run is missing.

// The fault words of the routed runs and of the runs with the panic not
// routed (Record.Fault); their Site is the handlers' IDs, separated by
// ";".
const (
	routeFault      = "route"
	routePanicFault = "route-panic"
)

// RouteFaultWord and RoutePanicFaultWord are the Fault of the records of
// routed runs and of the runs with the panic not routed.
const (
	RouteFaultWord      = routeFault
	RoutePanicFaultWord = routePanicFault
)

// RouteEnv is the environment that arms the regions of the handlers ids
// ("ID;ID") to panic, the panic routed to them.
func RouteEnv(ids string) []string {
	return arm.Arming{Route: arm.SplitIDs(ids), Snapshots: arm.SnapshotsNone}.Env()
}

// RoutePanicEnv is the environment that arms the regions of the handlers
// ids to panic, the panic not routed.
func RoutePanicEnv(ids string) []string {
	return arm.Arming{Route: arm.SplitIDs(ids), RouteUnrouted: true, Snapshots: arm.SnapshotsNone}.Env()
}

// routeRun is the record of the run of prof's test with the regions of
// the handlers ids ("ID;ID") armed to panic, routed when fault is
// routeFault.
func routeRun(prof *campaign.Record, ids, fault string) *campaign.Record {
	return &campaign.Record{Kind: "experiment", Package: prof.Package, Test: prof.Test, Arming: arm.Arming{Inject: arm.Injection{Site: ids, Fault: fault}}}
}

// routing gives the status of routing a panic of res's region to res;
// nil for an arm that is not an err != nil arm of a region.
func routing(res *HandlerResult) *Widening {
	return validate(res, res.Route, res.NotRoutable, change{
		run:  func(t *HandlerTest) *campaign.Record { return t.Routed },
		name: "routed", with: "with the panic routed",
		expected: func(t *HandlerTest) *Widening {
			switch {
			case t.Unrouted == nil || !(&HandlerTest{Outcome: t.Unrouted.Status}).known():
				return &Widening{Status: WidenNotValidated, Why: "the run of " + t.Test + " with the panic not routed is missing"}
			case t.Unrouted.Status == campaign.Passed:
				return &Widening{Status: WidenNotOffered, Why: t.Package + " " + t.Test + " expects the panic to propagate: routed, it " + outcomeVerb(t.Routed.Status), Test: t}
			}
			return nil
		},
	})
}

// RoutingsTogether reads the run of the kept routings together from a
// handlers campaign's records; nil when no routing was kept.
func RoutingsTogether(recs []*campaign.Record, results []*HandlerResult) *WideningTogether {
	return keptTogether(recs, results, func(res *HandlerResult) *Widening { return res.Routing }, routeFault, "routed")
}

// routeFollowUps plans, from a campaign's records, the routing runs that
// it does not have: the routed runs of each candidate (an err != nil arm
// whose region's call can panic, source-independent), once every verdict
// run is in; then the runs with the panic not routed of the tests that
// failed routed; then, once every candidate has a status, the runs of the
// kept ones together.
func routeFollowUps(recs []*campaign.Record) []*campaign.Record {
	f := newFollowUps(recs)
	results := HandlerResults(recs)
	for _, res := range results {
		if res.Route == "" || res.Source != SourceIndependent {
			continue
		}
		for _, t := range res.Tests {
			f.want(routeRun(f.profile(t), res.ID, routeFault))
		}
	}
	if len(f.out) > 0 {
		return f.out
	}
	for _, res := range results {
		if res.Route == "" || res.Source != SourceIndependent {
			continue
		}
		for _, t := range res.Tests {
			if t.Routed != nil && t.Routed.Status != campaign.Passed {
				f.want(routeRun(f.profile(t), res.ID, routePanicFault))
			}
		}
	}
	if len(f.out) > 0 {
		return f.out
	}
	for _, res := range results {
		if res.Routing != nil && res.Routing.Status == WidenNotValidated {
			return nil // a run could not be started: nothing more to ask
		}
	}
	if w := RoutingsTogether(recs, results); w != nil {
		for _, t := range w.Tests {
			f.want(routeRun(f.profile(t), strings.Join(w.IDs, ";"), routeFault))
		}
	}
	return f.out
}
