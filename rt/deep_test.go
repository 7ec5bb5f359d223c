package rt

import (
	"errors"
	"testing"
)

// deepTree fails at the bottom of a recursion, after each level has
// changed it: every level is non-atomic.
type deepTree struct {
	depth   int
	payload []byte // makes each snapshot cost about len(payload)/8 words
}

var deepSites = [...]Site{
	{ID: "github.com/atomicx/atomicx/rt.(*deepTree).descend#entry", Func: "github.com/atomicx/atomicx/rt.(*deepTree).descend", Pos: "rt/deep_test.go:1:1", Roots: "d,n", Kind: EntrySite, Faults: FaultError, Ends: []int32{1, 2}},
}

var errBottom = errors.New("bottom")

func (d *deepTree) descend(n int) (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&deepSites[0]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&deepSites[0], d, n).Exit(&_atx_done, &_atx_r0)
	}
	d.depth++
	if n == 0 {
		_atx_r0, _atx_done = errBottom, 1
		return
	}
	_atx_r0, _atx_done = d.descend(n-1), 2
	return
}

// deepRun runs descend levels deep, times one after the other, with the
// campaign settings given, and returns the events logged.
func deepRun(t *testing.T, levels, times int, snapshots, calls string, payload int) []map[string]any {
	t.Helper()
	logPath := useRun(t, "", [5]string{"", "", snapshots, calls, ""})
	deepSites[0].calls.Store(0)
	deepSites[0].targets.store(nil)
	d := &deepTree{payload: make([]byte, payload)}
	for range times {
		if err := d.descend(levels - 1); !errors.Is(err, errBottom) {
			t.Fatalf("descend = %v, want the bottom's error", err)
		}
	}
	resetEventLog()
	return readEvents(t, logPath)
}

// TestLiveSnapshotBudget checks that the calls of a deep recursion are
// snapshotted while the snapshots in progress hold less than the budget,
// that the calls past it say why they have no verdict, and that the
// budget is given back when the calls end.
func TestLiveSnapshotBudget(t *testing.T) {
	saved := liveSnapshotBudget
	t.Cleanup(func() { liveSnapshotBudget = saved })
	liveSnapshotBudget = 10_000 // words: about 10 snapshots of 8 KB

	const levels = 50
	got := deepRun(t, levels, 1, "all", "", 8<<10)
	if len(got) != levels {
		t.Fatalf("%d events, want one verdict per level (%d)", len(got), levels)
	}
	snapped := 0
	for i, e := range got {
		// Logged innermost first: the outer calls, entered first, hold
		// the budget.
		switch e["verdict"] {
		case "non-atomic":
			snapped++
		case "unknown":
			if snapped > 0 {
				t.Errorf("event %d: unknown after a snapshotted verdict; the outer calls should hold the budget", i)
			}
			if e["reason"] != ReasonLiveBudget {
				t.Errorf("event %d: reason %q, want %q", i, e["reason"], ReasonLiveBudget)
			}
		default:
			t.Errorf("event %d: verdict %v", i, e["verdict"])
		}
	}
	if snapped < 5 || snapped > 12 {
		t.Errorf("%d calls snapshotted, want about 10 (the budget holds about 10)", snapped)
	}
	if w := liveSnapshotWords.Load(); w != 0 {
		t.Errorf("after the calls ended, their snapshots still hold %d words", w)
	}
}

// TestBeforeFaultCovered checks that a recursion that fails, not
// snapshotted, before the fault logs its innermost level only: every
// call the others ran inside, it ran inside too. A second recursion,
// inside none of the first's calls, logs its own.
func TestBeforeFaultCovered(t *testing.T) {
	got := deepRun(t, 5000, 2, "before-fault", ";", 0)
	if len(got) != 2 {
		t.Fatalf("%d events, want 2 (the innermost level of each recursion): %v", len(got), got[:min(len(got), 3)])
	}
	for i, e := range got {
		if e["reason"] != ReasonBeforeFault || e["seq"] == nil {
			t.Errorf("event %d %v: want a placed verdict with reason %q", i, e, ReasonBeforeFault)
		}
	}
	if got[1]["seq"].(float64) <= got[0]["seq"].(float64) {
		t.Errorf("seq %v then %v: want the second recursion's innermost call entered after the first's", got[0]["seq"], got[1]["seq"])
	}
}
