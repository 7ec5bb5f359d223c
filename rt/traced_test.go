package rt

import "testing"

// TestTraced: an experiment skips the calls of a leaf that cannot return
// an error and that it neither arms, snapshots nor masks; every other run
// and every other function goes through the runtime.
func TestTraced(t *testing.T) {
	const (
		leafID  = "example.com/m.leaf#entry"
		errID   = "example.com/m.leafErr#entry"
		outerID = "example.com/m.outer#entry"
		armedID = "example.com/m.armed#entry"
	)
	sites := func() map[string]*Site {
		return map[string]*Site{
			leafID:  {ID: leafID, Func: "example.com/m.leaf", Leaf: true},
			errID:   {ID: errID, Func: "example.com/m.leafErr", Leaf: true, Faults: FaultError},
			outerID: {ID: outerID, Func: "example.com/m.outer"},
			armedID: {ID: armedID, Func: "example.com/m.armed", Leaf: true, Faults: FaultPanic},
		}
	}
	experiment := [5]string{"", "", "before-fault", "3@" + outerID, ""}
	tests := []struct {
		name     string
		inject   string
		campaign [5]string // profile, stop, snapshots, calls, masks
		quiet    []string  // the sites whose calls skip the runtime
	}{
		{"experiment", "panic:1:" + armedID, experiment, []string{leafID}},
		{"experiment that snapshots a call of the leaf", "panic:1:" + armedID, [5]string{"", "", "before-fault", "3@" + outerID + ";1@" + leafID, ""}, nil},
		{"experiment that masks the leaf", "panic:1:" + armedID, [5]string{"", "", "before-fault", "3@" + outerID, leafID}, nil},
		{"experiment without a list of calls to snapshot", "panic:1:" + armedID, [5]string{"", "", "before-fault", "", ""}, nil},
		{"profile run", "", [5]string{"3", "", "none", "", ""}, nil},
		{"natural rerun", "", [5]string{"", "", "", "1@" + outerID, ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useRun(t, tt.inject, tt.campaign)
			quiet := map[string]bool{}
			for _, id := range tt.quiet {
				quiet[id] = true
			}
			for id, s := range sites() {
				gate := true
				s.Gate = &gate
				s.resolveTracing() // as SiteTable does
				for range 2 {
					if got := s.Traced(); got == quiet[id] {
						t.Errorf("%s: Traced() = %t, want %t", id, got, !quiet[id])
					}
				}
				// A quiet function's calls skip its twin, but under the
				// race detector (see Site.Gate).
				if want := !quiet[id] || raceEnabled; gate != want {
					t.Errorf("%s: gate %t, want %t", id, gate, want)
				}
			}
		})
	}
	useSettings(t, parseSettings("", ""))
	if (&Site{ID: leafID, Leaf: true}).Traced() {
		t.Error("verdicts off: Traced() = true")
	}
}

// TestSitesResolved: a table of sites is resolved when it is read
// (SiteTable) or, declared as composite literals, by ResolveSites: an
// experiment's quiet leaf is untraced before its first call.
func TestSitesResolved(t *testing.T) {
	const leafID, armedID = "m.leaf#entry", "m.armed#entry"
	useRun(t, "panic:1:"+armedID, [5]string{"", "", "before-fault", "3@m.outer#entry", ""})
	gate := true
	read := SiteTable(2, "f\t"+leafID+"\tm.leaf\tm/a.go:1:6\t\t0\t\t\t\t\t\n"+
		"-\tm.outer#entry\tm.outer\tm/a.go:2:6\t\t0\t\t\t\t\t\n")
	declared := [2]Site{{ID: leafID, Func: "m.leaf", Leaf: true, Gate: &gate}, {ID: "m.outer#entry", Func: "m.outer"}}
	ResolveSites(declared[:])
	for name, sites := range map[string][]Site{"SiteTable": read, "ResolveSites": declared[:]} {
		if sites[0].Traced() {
			t.Errorf("%s: the quiet leaf is traced", name)
		}
		if !sites[1].Traced() {
			t.Errorf("%s: the function that calls others is not traced", name)
		}
	}
	if gate != raceEnabled {
		t.Errorf("the quiet leaf's gate is %v, want %v", gate, raceEnabled)
	}
}
