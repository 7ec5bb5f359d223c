package handlers

import (
	"testing"

	"github.com/atomicx/atomicx/internal/armtest"
	"github.com/atomicx/atomicx/rt/arm"
)

// TestArming: every environment the handlers question arms a run with
// parses back to the arming it meant.
func TestArming(t *testing.T) {
	const h1, h2 = "m.F#handler:f.go:3:2", "m.G#handler:g.go:8:2"
	armtest.Check(t, HandlerEnv(h1), arm.Arming{Inject: arm.Injection{Fault: arm.FaultHandler, Always: true, Site: h1}, Snapshots: arm.SnapshotsNone})
	armtest.Check(t, WidenEnv(h1+";"+h2), arm.Arming{Widen: []string{h1, h2}, Snapshots: arm.SnapshotsNone})
	armtest.Check(t, RouteEnv(h1), arm.Arming{Route: []string{h1}, Snapshots: arm.SnapshotsNone})
	armtest.Check(t, RoutePanicEnv(h1+";"+h2), arm.Arming{Route: []string{h1, h2}, RouteUnrouted: true, Snapshots: arm.SnapshotsNone})
	if got, want := HandlerInjection(h1), "handler:always:"+h1; got != want {
		t.Errorf("HandlerInjection = %q, want %q", got, want)
	}
}
