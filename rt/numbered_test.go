package rt

import (
	"reflect"
	"testing"
)

var numberedSites = [...]Site{
	{ID: "github.com/atomicx/atomicx/rt.numberedOuter#entry", Func: "github.com/atomicx/atomicx/rt.numberedOuter", Pos: "rt/numbered_test.go:1:1", Roots: "v,inner", Kind: EntrySite, Faults: FaultError, Ends: []int32{101, 102}},
}

// numberedOuter is an instrumented function that calls Check only when
// asked: a point first reached in a late call of its caller.
func numberedOuter(v *eeVec, inner bool) (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&numberedSites[0]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&numberedSites[0], v, inner).Exit(&_atx_done, &_atx_r0)
	}
	if inner {
		_atx_r0 = v.Check(1)
		_atx_done = 1
		return
	}
	_atx_done = 2
	return nil
}

// TestProfilePastNumbered: a profile run numbers the first calls of each
// function (numberedCalls, lowered here to the occurrences it logs); a failure of a later call
// says so instead of giving a number, and a point reached inside a later
// call names the function as unnumbered instead of listing its call.
func TestProfilePastNumbered(t *testing.T) {
	logPath := useProfileNumbering(t)
	sites := []*Site{&numberedSites[0], &eeSites[1]}
	for _, s := range sites {
		s.hits.Store(0)
		s.calls.Store(0)
		s.armed.Store(0)
		s.unnumbered.Store(false)
		s.registered.Store(false)
	}
	t.Cleanup(func() {
		for _, s := range sites {
			s.hits.Store(0)
			s.calls.Store(0)
			s.armed.Store(0)
			s.unnumbered.Store(false)
		}
	})

	v := &eeVec{size: 10}
	numberedOuter(v, false)
	numberedOuter(v, false)
	numberedOuter(v, true) // the third call: not numbered; Check fails inside it
	v.Check(1)             // Check's second call, numbered
	v.Check(1)             // and its third, past the numbered ones
	resetEventLog()

	outer, check := numberedSites[0].ID, eeSites[1].ID
	want := []map[string]any{
		{"event": "reach", "site": outer, "occurrence": 1.0},
		{"event": "reach", "site": outer, "occurrence": 2.0},
		{"event": "reach", "site": check, "occurrence": 1.0, "unnumbered": outer},
		{"event": "fail", "site": check, "call": 1.0, "failure": "error"},
		{"event": "fail", "site": outer, "beyond_call": 2.0, "failure": "error"},
		{"event": "reach", "site": check, "occurrence": 2.0},
		{"event": "fail", "site": check, "call": 2.0, "failure": "error"},
		{"event": "fail", "site": check, "beyond_call": 2.0, "failure": "error"},
	}
	got := readEvents(t, logPath)
	var kept []map[string]any
	for _, e := range got {
		if e["event"] == "enter" {
			continue
		}
		m := map[string]any{}
		for _, k := range []string{"event", "site", "occurrence", "unnumbered", "stack", "call", "beyond_call", "failure"} {
			if x, ok := e[k]; ok {
				m[k] = x
			}
		}
		kept = append(kept, m)
	}
	if !numberedSites[0].unnumbered.Load() || !eeSites[1].unnumbered.Load() {
		t.Error("the sites past their numbered calls are not marked for begin to answer first thing")
	}
	if c := Begin(&eeSites[1]); c.site != &eeSites[1] || c.num != 0 || c.ext != nil {
		t.Errorf("Begin past the numbered calls = %+v, want the site and nothing else", c)
	}
	if !reflect.DeepEqual(kept, want) {
		t.Errorf("events:\n%v\nwant:\n%v", kept, want)
	}
}

// TestProfileUntracedPastNumbered: past its numbered calls, a profile run
// stops tracing a function that has no error result, literal or not (its
// panics are the failures of the traced calls further out), and goes on
// tracing one that has an error result, whose failures it counts.
func TestProfileUntracedPastNumbered(t *testing.T) {
	useProfileNumbering(t)
	t.Cleanup(resetEventLog)
	leafGate, outerGate := true, true
	untraced := []bool{true, true, true, false, false}
	traced := []bool{true, true, true, true, true}
	for _, tc := range []struct {
		name   string
		site   *Site
		traced []bool // Traced before each call
	}{
		{"leaf", &Site{ID: "m.leaf#entry", Func: "m.leaf", Kind: EntrySite, Leaf: true, Gate: &leafGate}, untraced},
		{"leaf with an error result", &Site{ID: "m.leafErr#entry", Func: "m.leafErr", Kind: EntrySite, Leaf: true, Faults: FaultError}, traced},
		{"not a leaf", &Site{ID: "m.outer#entry", Func: "m.outer", Frame: "m._atx_outer", Kind: EntrySite, Gate: &outerGate}, untraced},
		{"not a leaf, with an error result", &Site{ID: "m.outerErr#entry", Func: "m.outerErr", Kind: EntrySite, Faults: FaultError}, traced},
		{"literal, not a leaf", &Site{ID: "m.F.func1#entry", Func: "m.F.func1", Kind: EntrySite, Literal: true}, untraced},
		{"literal leaf", &Site{ID: "m.F.func2#entry", Func: "m.F.func2", Kind: EntrySite, Literal: true, Leaf: true}, untraced},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.site
			var got []bool
			for range tc.traced {
				traced := s.Traced()
				got = append(got, traced)
				if traced {
					var done int32 = 1
					c := Begin(s)
					c.Exit(&done, nil)
				}
			}
			if !reflect.DeepEqual(got, tc.traced) {
				t.Errorf("Traced before each call = %v, want %v", got, tc.traced)
			}
			if g := tc.site.Gate; g != nil && *g != raceEnabled {
				t.Errorf("gate %v once the function is not traced, want %v", *g, raceEnabled)
			}
			// Once its gate is cleared, a function that calls others
			// shows frames of its own name, not its twin's: a point
			// reached inside it finds it by that name.
			activeSites.Lock()
			byName := activeSites.byFunc[s.Func]
			activeSites.Unlock()
			if want := s.Gate != nil && !s.Leaf && !raceEnabled; s.Frame != "" && (byName == s) != want {
				t.Errorf("site listed under its own name %q: %v, want %v", s.Func, byName == s, want)
			}
		})
	}
}

// useProfileNumbering sets up a profile run without snapshots that
// numbers two calls of each function (numberedCalls, lowered), and
// returns the path of its event log.
func useProfileNumbering(t *testing.T) string {
	t.Helper()
	logPath := useRun(t, "", [5]string{"2", "", "none", "", ""})
	campaign.numbered = 2
	config.enabled = true
	return logPath
}
