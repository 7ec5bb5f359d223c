package leaks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
	"github.com/google/go-cmp/cmp"
)

// confirmTargets are two findings: in m.Load, os.ReadFile (not
// instrumented: a call site) fails at load.go:12; in m.Save, m.check
// (instrumented: its entry) fails.
var confirmTargets = []LeakTarget{
	{ID: "load", Func: "m.Load", CallPos: "m/load.go:12:20", Callee: "os.ReadFile", ReturnLine: 13},
	{ID: "save", Func: "m.Save", CallPos: "m/save.go:30:10", Callee: "m.check", ReturnLine: 31},
}

func rawEvents(t *testing.T, evs ...map[string]any) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func reach(site, pos string, occ int, stack string) map[string]any {
	return map[string]any{"event": "reach", "site": site, "pos": pos, "occurrence": occ, "faults": campaign.FaultError, "stack": stack}
}

func confirmProfile(t *testing.T) *campaign.Record {
	var evs []map[string]any
	// Four reaches of Load's call site: only three get experiments.
	for occ := 1; occ <= 4; occ++ {
		evs = append(evs, reach("m.Load#call:os.ReadFile#1", "m/load.go:12:20", occ, "1@m.Load#entry;1@m.TestLoad#entry"))
	}
	evs = append(evs,
		// Another call site of Load: not the opening failure.
		reach("m.Load#call:os.ReadFile#2", "m/load.go:20:20", 1, "1@m.Load#entry"),
		// check's entry, called from Save, then from Other: only the
		// first is Save's opening failure.
		reach("m.check#entry", "m/check.go:5:6", 1, "2@m.Save#entry;1@m.TestLoad#entry"),
		reach("m.check#entry", "m/check.go:5:6", 2, "1@m.Other#entry;2@m.Save#entry"),
		// A reach that allows only panics.
		map[string]any{"event": "reach", "site": "m.Load#call:os.ReadFile#1", "pos": "m/load.go:12:20", "occurrence": 9, "faults": campaign.FaultPanic},
	)
	return &campaign.Record{Kind: "profile", Package: "m", Test: "TestLoad", Status: campaign.Passed, Events: rawEvents(t, evs...)}
}

func TestConfirmPlanner(t *testing.T) {
	runs := Confirm.Runs(confirmProfile(t), campaign.Options{QuestionData: EncodeTargets(confirmTargets)})
	var got []string
	for _, r := range runs {
		e := r.Run
		got = append(got, fmt.Sprintf("%s %s #%d %s snap=%s", e.Kind, e.Arming.Inject.Site, e.Arming.Inject.Occurrence, e.Arming.Inject.Fault, e.Arming.SnapshotCalls))
		if !strings.Contains(strings.Join(r.Env, " "), fmt.Sprintf("ATOMICX_INJECT=error:%d:%s", e.Arming.Inject.Occurrence, e.Arming.Inject.Site)) {
			t.Errorf("run %s: environment %q does not arm it", r.Key, r.Env)
		}
	}
	want := []string{
		"experiment m.Load#call:os.ReadFile#1 #1 error snap=1@m.Load#entry;1@m.TestLoad#entry",
		"experiment m.Load#call:os.ReadFile#1 #2 error snap=1@m.Load#entry;1@m.TestLoad#entry",
		"experiment m.Load#call:os.ReadFile#1 #3 error snap=1@m.Load#entry;1@m.TestLoad#entry",
		"experiment m.check#entry #1 error snap=2@m.Save#entry;1@m.TestLoad#entry",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
}

func TestConfirmLeaks(t *testing.T) {
	prof := confirmProfile(t)
	inject := map[string]any{"event": "inject", "site": "x"}
	verdict := func(site string, end int) map[string]any {
		return map[string]any{"event": "verdict", "site": site, "failure": "error", "end": end}
	}
	probe := func(acquire string, end int, state string) map[string]any {
		return map[string]any{"event": "probe", "site": "m.Load#entry", "acquire": acquire, "end": end, "state": state}
	}
	probed := []LeakTarget{confirmTargets[0]}
	probed[0].AcquirePos = "m/load.go:10:17"
	exp := func(site string, occ int, fired bool, evs ...map[string]any) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "m", Test: "TestLoad", Arming: arm.Arming{Inject: arm.Injection{Site: site, Occurrence: uint64(occ), Fault: "error"}},
			Status: campaign.Failed, Fired: fired, Events: rawEvents(t, evs...)}
	}
	tests := []struct {
		name    string
		targets []LeakTarget
		recs    []*campaign.Record
		want    []string // answer, end line, occurrence and why, per target
	}{{
		name:    "confirmed by one occurrence of three",
		targets: confirmTargets[:1],
		recs: []*campaign.Record{prof,
			exp("m.Load#call:os.ReadFile#1", 1, true, inject, verdict("m.Load#entry", 20)),
			exp("m.Load#call:os.ReadFile#1", 2, true, verdict("m.Load#entry", 13), inject, verdict("m.Load#entry", 13), verdict("m.TestLoad#entry", 40)),
			exp("m.Load#call:os.ReadFile#1", 3, false)},
		want: []string{"confirmed, openness not checked 13 #2 (the build does not register this acquisition's resource)"},
	}, {
		name:    "probed open at the return",
		targets: probed,
		recs: []*campaign.Record{prof,
			exp("m.Load#call:os.ReadFile#1", 1, true, inject, probe("m/load.go:10:17", 13, "open"), verdict("m.Load#entry", 13))},
		want: []string{"confirmed, open at return 13 #1"},
	}, {
		name:    "probed closed; open in another occurrence: open wins",
		targets: probed,
		recs: []*campaign.Record{prof,
			exp("m.Load#call:os.ReadFile#1", 1, true, inject, probe("m/load.go:10:17", 13, "closed"), verdict("m.Load#entry", 13)),
			exp("m.Load#call:os.ReadFile#1", 2, true, inject, probe("m/load.go:10:17", 13, "open"), verdict("m.Load#entry", 13))},
		want: []string{"confirmed, open at return 13 #2"},
	}, {
		name:    "probed closed at the return",
		targets: probed,
		recs: []*campaign.Record{prof,
			exp("m.Load#call:os.ReadFile#1", 1, true, inject, probe("m/load.go:10:17", 13, "closed"), verdict("m.Load#entry", 13))},
		want: []string{"confirmed, closed at return 13 #1"},
	}, {
		name:    "the probe could not tell",
		targets: probed,
		recs: []*campaign.Record{prof,
			exp("m.Load#call:os.ReadFile#1", 1, true, inject, func() map[string]any {
				p := probe("m/load.go:10:17", 13, "unknown")
				p["why"] = "timers: stopping one to probe it would change the program"
				return p
			}(), verdict("m.Load#entry", 13))},
		want: []string{"confirmed, openness not checked 13 #1 (timers: stopping one to probe it would change the program)"},
	}, {
		name:    "the probe could not tell, and an older runtime did not say why",
		targets: probed,
		recs: []*campaign.Record{prof,
			exp("m.Load#call:os.ReadFile#1", 1, true, inject, probe("m/load.go:10:17", 13, "unknown"), verdict("m.Load#entry", 13))},
		want: []string{"confirmed, openness not checked 13 #1 (the probe could not tell)"},
	}, {
		name:    "probes of another acquire, before the fault, at another return: not this one's",
		targets: probed,
		recs: []*campaign.Record{prof,
			exp("m.Load#call:os.ReadFile#1", 1, true, probe("m/load.go:10:17", 13, "open"), inject,
				probe("m/load.go:11:17", 13, "open"), probe("m/load.go:10:17", 20, "open"), verdict("m.Load#entry", 13))},
		want: []string{"confirmed, openness not checked 13 #1 (the build does not register this acquisition's resource)"},
	}, {
		name:    "a verdict before the fault does not count; another return does",
		targets: confirmTargets[:1],
		recs: []*campaign.Record{prof,
			exp("m.Load#call:os.ReadFile#1", 1, true, verdict("m.Load#entry", 13), inject, verdict("m.Load#entry", 20))},
		want: []string{"reached, other return 20 #1"},
	}, {
		name:    "returned without failing",
		targets: confirmTargets[1:],
		recs:    []*campaign.Record{prof, exp("m.check#entry", 1, true, inject, verdict("m.check#entry", 6))},
		want:    []string{"reached, other return 0 #1"},
	}, {
		name:    "crashed after the fault, before the function's end",
		targets: confirmTargets[1:],
		recs: []*campaign.Record{prof, func() *campaign.Record {
			e := exp("m.check#entry", 1, true, inject)
			e.Status = campaign.Crashed
			return e
		}()},
		want: []string{"reached, crashed 0 #1"},
	}, {
		name:    "hit the time limit with the function blocked on a lock in a deferred closure",
		targets: confirmTargets[1:],
		recs: []*campaign.Record{prof, func() *campaign.Record {
			e := exp("m.check#entry", 1, true, inject, verdict("m.check#entry", 6))
			e.Status = campaign.Hung
			e.Stacks = []campaign.GoroutineStack{
				{State: "chan receive", Funcs: []string{"testing.(*T).Run"}},
				{State: "sync.Mutex.Lock", Funcs: []string{"sync.(*Mutex).Lock", "m.Save.func1", "m.Save", "m.TestLoad"}},
			}
			return e
		}()},
		want: []string{"confirmed: hangs 0 #1 (the lock is never released)"},
	}, {
		name:    "deadlocked, as the runtime found every goroutine asleep, on a channel in the function",
		targets: confirmTargets[1:],
		recs: []*campaign.Record{prof, func() *campaign.Record {
			e := exp("m.check#entry", 1, true, inject)
			e.Status = campaign.Crashed
			e.Stacks = []campaign.GoroutineStack{{State: "chan receive", Funcs: []string{"m.Save", "m.TestLoad"}}}
			return e
		}()},
		want: []string{"confirmed: hangs 0 #1 (it waits for chan receive and never returns)"},
	}, {
		name:    "hit the time limit elsewhere",
		targets: confirmTargets[1:],
		recs: []*campaign.Record{prof, func() *campaign.Record {
			e := exp("m.check#entry", 1, true, inject)
			e.Status = campaign.Hung
			e.Stacks = []campaign.GoroutineStack{{State: "sync.Mutex.Lock", Funcs: []string{"sync.(*Mutex).Lock", "m.Saver", "m.TestLoad"}}}
			return e
		}()},
		want: []string{"reached, timed out 0 #1"},
	}, {
		name:    "reached in the profile, never injected",
		targets: confirmTargets[1:],
		recs:    []*campaign.Record{prof, exp("m.check#entry", 1, false)},
		want:    []string{"reached, not injected 0 -"},
	}, {
		name: "not reached",
		targets: []LeakTarget{{ID: "x", Func: "m.X", CallPos: "m/x.go:1:1", ReturnLine: 2},
			{ID: "y", Func: "m.Elsewhere", CallPos: "m/other.go:1:1", Callee: "m.check", ReturnLine: 2}},
		recs: []*campaign.Record{prof},
		want: []string{"not reached by the tests 0 -", "not reached by the tests 0 -"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range ConfirmLeaks(tt.targets, tt.recs) {
				run := "-"
				if c.Run != nil {
					run = fmt.Sprintf("#%d", c.Run.Arming.Inject.Occurrence)
				}
				a := fmt.Sprintf("%s %d %s", c.Answer, c.End, run)
				if c.Why != "" {
					a += " (" + c.Why + ")"
				}
				got = append(got, a)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStuckIn: a hung run's goroutine with the function, or a function
// literal of it, on its stack, and whether it waits for a lock.
func TestStuckIn(t *testing.T) {
	const fn = "example.com/m.(*DB).Get"
	tests := []struct {
		name     string
		stacks   []campaign.GoroutineStack
		state    string
		ok, lock bool
	}{
		{"a deferred closure of the function blocked on a mutex",
			[]campaign.GoroutineStack{{State: "idle", Funcs: []string{"runtime.mcall"}}, {State: "sync.Mutex.Lock", Funcs: []string{fn + ".func1"}}},
			"sync.Mutex.Lock", true, true},
		{"the function waiting on a channel", []campaign.GoroutineStack{{State: "chan receive", Funcs: []string{"runtime.gopark", fn}}}, "chan receive", true, false},
		{"another function with the same prefix", []campaign.GoroutineStack{{State: "semacquire", Funcs: []string{fn + "All"}}}, "", false, false},
	}
	for _, tt := range tests {
		state, ok := stuckIn(tt.stacks, fn)
		if state != tt.state || ok != tt.ok || lockWait(state) != tt.lock {
			t.Errorf("%s: stuckIn = %q, %v, lockWait %v; want %q, %v, %v", tt.name, state, ok, lockWait(state), tt.state, tt.ok, tt.lock)
		}
	}
}

// TestConfirmBatched: the experiment whose answer a finding gets is
// confirmed when a batch ran it, and a fresh rerun agrees when it gives
// every finding the batch's answer.
func TestConfirmBatched(t *testing.T) {
	prof := confirmProfile(t)
	inject := map[string]any{"event": "inject", "site": "x"}
	verdict := func(site string, end int) map[string]any {
		return map[string]any{"event": "verdict", "site": site, "failure": "error", "end": end}
	}
	exp := func(occ int, batched bool, evs ...map[string]any) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "m", Test: "TestLoad", Arming: arm.Arming{Inject: arm.Injection{Site: "m.Load#call:os.ReadFile#1", Occurrence: uint64(occ), Fault: "error"}},
			Status: campaign.Failed, Fired: true, Batched: batched, Events: rawEvents(t, evs...)}
	}
	hdr := &campaign.Record{Kind: "campaign", Campaign: &campaign.Header{QuestionData: EncodeTargets(confirmTargets)}}
	other := exp(1, true, inject, verdict("m.Load#entry", 20)) // another return: not the answer
	answer := exp(2, true, inject, verdict("m.Load#entry", 13))
	got := confirmBatched([]*campaign.Record{hdr, prof, other, answer})
	if len(got) != 1 || got[0] != answer {
		t.Errorf("confirmBatched picked %v, want the experiment of occurrence 2", got)
	}
	fresh := *answer
	fresh.Batched, fresh.Fresh = false, true
	if !sameAnswers(answer, &fresh) {
		t.Error("a rerun with the same events does not agree")
	}
	if got := confirmBatched([]*campaign.Record{hdr, prof, other, &fresh}); len(got) != 0 {
		t.Errorf("the answer is a fresh process's already, yet confirmBatched picked %v", got)
	}
	elsewhere := exp(2, false, inject, verdict("m.Load#entry", 20))
	if sameAnswers(answer, elsewhere) {
		t.Error("a rerun in which Load fails at another line agrees")
	}
	hung := exp(2, false, inject, verdict("m.Load#entry", 13))
	hung.Status = campaign.Hung
	if sameAnswers(answer, hung) {
		t.Error("a rerun that hangs agrees")
	}
	// Without the header's findings, or without the profile runs, every
	// batched experiment is confirmed.
	for _, recs := range [][]*campaign.Record{{prof, other, answer}, {hdr, other, answer}} {
		if got := confirmBatched(recs); len(got) != 2 {
			t.Errorf("without the findings or the profiles, confirmBatched picked %d runs, want both batched ones", len(got))
		}
	}
}
