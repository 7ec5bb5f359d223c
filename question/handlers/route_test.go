package handlers

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
)

// routeProfile is the profile run of test with the err != nil arm of one
// region, whose call can panic when route is set (else notRoutable says
// why not), and usages.
func routeProfile(test, usages, route, notRoutable string) *campaign.Record {
	p := &campaign.Record{Kind: "profile", Package: "m", Test: test, Status: campaign.Passed}
	for _, u := range append([]string{"executed"}, strings.Fields(usages)...) {
		p.Events = append(p.Events, json.RawMessage(fmt.Sprintf(`{"event":"handler","pid":1,"site":%q,"func":"m.F","pos":"m/f.go:5:9","region":%q,"usage":%q,"handler_kind":"propagate","predicate":"err != nil","route":%q,"not_routable":%q}`,
			wNil, wRegion, u, route, notRoutable)))
	}
	return p
}

func TestRoutingStatus(t *testing.T) {
	tests := []struct {
		name                    string
		route, notRoutable      string
		armed, routed, unrouted string // outcomes; "" for no run
		status, why             string
		wantFollowUp            string // the fault word of the next run planned, "" for none
		wantTogether            bool
	}{
		{name: "kept: the routed run passes", route: "load(name)", armed: campaign.Passed, routed: campaign.Passed,
			status: WidenKept, wantTogether: true}, // one kept routing together is its own run
		{name: "rejected: fails routed, and with the panic going on", route: "load(name)", armed: campaign.Passed, routed: campaign.Failed, unrouted: campaign.Crashed,
			status: WidenRejected, why: "m TestA fails with the panic routed"},
		{name: "not offered: the test expects the panic to propagate", route: "load(name)", armed: campaign.Passed, routed: campaign.Failed, unrouted: campaign.Passed,
			status: WidenNotOffered, why: "m TestA expects the panic to propagate: routed, it fails"},
		{name: "not validated: the run with the panic going on is missing", route: "load(name)", armed: campaign.Passed, routed: campaign.Failed,
			status: WidenNotValidated, why: "not routed is missing", wantFollowUp: routePanicFault},
		{name: "not validated: the routed run is missing", route: "load(name)", armed: campaign.Passed,
			status: WidenNotValidated, why: "the routed run of TestA is missing", wantFollowUp: routeFault},
		{name: "not offered: the call cannot panic", notRoutable: "the call is to the standard library (os.Open)", armed: campaign.Passed,
			status: WidenNotOffered, why: "standard library"},
		{name: "not offered: source-dependent", route: "load(name)", armed: campaign.Failed,
			status: WidenNotOffered, why: "not source-independent (source-dependent)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prof := routeProfile("TestA", "white", tt.route, tt.notRoutable)
			recs := []*campaign.Record{prof}
			add := func(r *campaign.Record, status string) {
				if status != "" {
					r.Status = status
					recs = append(recs, r)
				}
			}
			add(handlerRun(prof, wNil), tt.armed)
			add(routeRun(prof, wNil, routeFault), tt.routed)
			add(routeRun(prof, wNil, routePanicFault), tt.unrouted)
			results := HandlerResults(recs)
			if len(results) != 1 || results[0].Routing == nil {
				t.Fatalf("results %+v", results)
			}
			r := results[0].Routing
			if r.Status != tt.status || !strings.Contains(r.Why, tt.why) {
				t.Errorf("routing %s (%s), want %s (%s)", r.Status, r.Why, tt.status, tt.why)
			}
			if got := RoutingsTogether(recs, results) != nil; got != tt.wantTogether {
				t.Errorf("together %v, want %v", got, tt.wantTogether)
			}
			next := routeFollowUps(recs)
			switch {
			case tt.wantFollowUp == "" && len(next) > 0:
				t.Errorf("follow-ups %+v, want none", next[0])
			case tt.wantFollowUp != "" && (len(next) != 1 || next[0].Arming.Inject.Fault != tt.wantFollowUp || next[0].Arming.Inject.Site != wNil):
				t.Errorf("follow-ups %v, want one %s run of %s", next, tt.wantFollowUp, wNil)
			}
		})
	}
}
