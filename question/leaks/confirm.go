package leaks

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question/detect"
	"github.com/atomicx/atomicx/rt/arm"
)

// A LeakTarget is a finding of the errleak analysis to confirm by
// injection: the function whose path returns with a resource open, the
// call whose failure opens the path, and the return the path reaches.
type LeakTarget struct {
	ID   string `json:"id"`   // the caller's name for the finding
	Func string `json:"func"` // the function, as the runtime names it
	// CallPos is the opening failure's call, as sites give positions
	// (import path/file.go:line:col of its opening parenthesis): the
	// call-site point there, when the callee is not instrumented.
	CallPos string `json:"call_pos"`
	// Callee is the function called, as the runtime names it: its entry
	// point, when it is instrumented, reached from a call of Func. ""
	// when not known statically.
	Callee     string `json:"callee,omitempty"`
	ReturnLine int    `json:"return_line"`
	// AcquirePos is the acquire call, as sites give positions: the
	// campaign's build probes its resource when Func returns an error
	// (see rt.Probes). "" when not probed.
	AcquirePos string `json:"acquire_pos,omitempty"`
	// IsClosed is the resource's method that the probe calls, from its
	// [[leak.resource]] table; "" for the runtime's own probes.
	IsClosed string `json:"is_closed,omitempty"`
}

// options are leak confirmation's own options: the findings it asks
// about (campaign.Options.QuestionData).
type options struct {
	Confirm []LeakTarget `json:"confirm"`
}

// EncodeTargets are the findings as a campaign's configuration and plan
// carry them (campaign.Config.QuestionData, campaign.Options.QuestionData).
func EncodeTargets(targets []LeakTarget) json.RawMessage {
	b, err := json.Marshal(options{Confirm: targets})
	if err != nil {
		panic(err) // strings and ints only
	}
	return b
}

// maxConfirmOccurrences bounds the experiments per finding and test: the
// first reaches of the opening failure's point from the function.
const maxConfirmOccurrences = 3

// Confirm asks whether the tests take the paths that errleak reports:
// for each finding (see EncodeTargets), one error
// experiment per reach of the point where its opening failure can be
// injected, at most maxConfirmOccurrences per test. ConfirmLeaks reads
// the answers.
//
// Its experiments run in batches: an answer that a batched experiment
// gives is the finding's answer only once a fresh process gives it too
// (confirmBatched, sameAnswers).
var Confirm = &campaign.Planner{
	Name:          "confirm",
	FollowUpsName: "rechecks",
	InProcess:     true,
	Confirm:       confirmBatched,
	Agrees:        sameAnswers,
	// The header keeps the findings, for confirmBatched.
	HeaderData: func(options json.RawMessage) json.RawMessage { return options },
	Runs: func(prof *campaign.Record, opt campaign.Options) []*campaign.PlannedRun {
		var recs []*campaign.Record
		seen := map[string]bool{}
		// The plan's own data, checked by its ID: it decodes.
		var o options
		json.Unmarshal(opt.QuestionData, &o)
		for _, t := range o.Confirm {
			for _, e := range confirmRuns(prof, t) {
				if !seen[e.Key()] {
					seen[e.Key()] = true
					recs = append(recs, e)
				}
			}
		}
		return detect.PlannedRuns(recs, prof.Millis, opt)
	},
}

// confirmRuns plans the experiments that inject t's opening failure in
// the test of prof: at the call site at t.CallPos, or at the entry of
// t.Callee while the innermost instrumented call in progress is one of
// t.Func. The calls on the stack are snapshotted, as a detection
// experiment's are, so that t.Func's failure gets a verdict that says
// where it returned.
func confirmRuns(prof *campaign.Record, t LeakTarget) []*campaign.Record {
	var out []*campaign.Record
	for _, r := range campaign.Reaches(prof) {
		if r.Faults&campaign.FaultError == 0 || !injectsFor(r, t) {
			continue
		}
		if len(out) == maxConfirmOccurrences {
			break
		}
		out = append(out, &campaign.Record{Kind: "experiment", Package: prof.Package, Test: prof.Test,
			Arming: arm.Arming{Inject: arm.Injection{Site: r.Site, Occurrence: r.Occurrence, Fault: "error"}, SnapshotCalls: detect.SnapshotList(r.Stack)}})
	}
	return out
}

// injectsFor reports whether a reach is of a point that injects t's
// opening failure.
func injectsFor(r campaign.Reach, t LeakTarget) bool {
	if strings.Contains(r.Site, "#call:") {
		return r.Pos == t.CallPos
	}
	if t.Callee == "" || r.Site != t.Callee+"#entry" {
		return false
	}
	first, _, _ := strings.Cut(r.Stack, ";")
	_, innermost, _ := strings.Cut(first, "@")
	return innermost == t.Func+"#entry"
}

// The answers ConfirmLeaks gives for a finding.
const (
	// LeakConfirmedOpen: an experiment injected the opening failure, the
	// function failed at the reported return, and the resource acquired
	// was still open then, after the function's deferred calls.
	LeakConfirmedOpen = "confirmed, open at return"
	// LeakConfirmedClosed: the same path, and the resource was closed at
	// the return: the analysis was wrong, or something it does not see
	// (a helper, another name for the resource) released it.
	LeakConfirmedClosed = "confirmed, closed at return"
	// LeakConfirmedUnchecked: the same path, and whether the resource was
	// still open is not known: no probe tells without an effect (a timer,
	// a compressed reader, a resource type of the user's), the probe could
	// not tell (LeakConfirmation.Why says why), or the resource was not
	// registered (see instrument's probedAcquisitions).
	LeakConfirmedUnchecked = "confirmed, openness not checked"
	// LeakConfirmedHangs: the failure was injected, and the run hit its
	// time limit (or the runtime found every goroutine asleep) with the
	// function, or a closure of it such as a deferred one, on a blocked
	// goroutine's stack: the path is taken and never returns, as when an
	// error return leaves a lock held that a deferred call takes again.
	// LeakConfirmation.Why says what it waited for.
	LeakConfirmedHangs = "confirmed: hangs"
	// LeakHung: the failure was injected, and the run hit its time limit
	// elsewhere than in the function.
	LeakHung = "reached, timed out"
	// LeakOtherReturn: the failure was injected, and the function
	// returned elsewhere, or without failing.
	LeakOtherReturn = "reached, other return"
	// LeakCrashed: the failure was injected, and the test binary died
	// before the function's end was logged (a fatal error such as an
	// unlock of an unlocked mutex, os.Exit).
	LeakCrashed = "reached, crashed"
	// LeakNotInjected: a test reached the point in its profile run, but
	// no experiment injected there (the test did not reach it again).
	LeakNotInjected = "reached, not injected"
	// LeakNotReached: no test reached the point from the function.
	LeakNotReached = "not reached by the tests"
)

// A LeakConfirmation is the answer for one finding, with the experiment
// that gave it (nil when none did).
type LeakConfirmation struct {
	Target LeakTarget
	Answer string
	// End is the line the function failed at in Run, 0 if it returned
	// without failing or was not injected.
	End int
	// Why says why the openness was not checked (LeakConfirmedUnchecked).
	Why string
	Run *campaign.Record
}

// ConfirmLeaks reads the answers of a confirm campaign's records (the
// profile runs and the experiments): for each target, the best answer
// any experiment gave, confirmed open first, in the order of the records'
// keys.
func ConfirmLeaks(targets []LeakTarget, recs []*campaign.Record) []LeakConfirmation {
	byKey := map[string]*campaign.Record{}
	var profiles []*campaign.Record
	for _, r := range recs {
		switch r.Kind {
		case "profile":
			profiles = append(profiles, r)
		case "experiment":
			byKey[r.Key()] = r
		}
	}
	sort.Slice(profiles, func(i, j int) bool { return profiles[i].Key() < profiles[j].Key() })
	rank := map[string]int{LeakNotReached: 0, LeakNotInjected: 1, LeakOtherReturn: 2, LeakHung: 3, LeakCrashed: 4,
		LeakConfirmedUnchecked: 5, LeakConfirmedClosed: 6, LeakConfirmedOpen: 7, LeakConfirmedHangs: 8}
	out := make([]LeakConfirmation, len(targets))
	for i, t := range targets {
		best := LeakConfirmation{Target: t, Answer: LeakNotReached}
		for _, prof := range profiles {
			for _, planned := range confirmRuns(prof, t) {
				c := LeakConfirmation{Target: t, Answer: LeakNotInjected}
				if e := byKey[planned.Key()]; e != nil && e.Fired {
					c.Run = e
					c.Answer, c.Why, c.End = returnedAt(e, t)
				}
				if rank[c.Answer] > rank[best.Answer] {
					best = c
				}
			}
		}
		out[i] = best
	}
	return out
}

// returnedAt says where, in an experiment, t's function ended after the
// fault: its first verdict after the injection is of the innermost call
// the failure went through. The state of t's resource at that return is
// the last probe of it logged before that verdict: a call's probes are
// logged right before its verdict.
func returnedAt(e *campaign.Record, t LeakTarget) (answer, why string, end int) {
	injected := false
	var probe *event
	for _, v := range eventsOf(e) {
		switch {
		case v.Event == "inject":
			injected = true
		case injected && v.Event == "probe" && v.Site == t.Func+"#entry" && t.AcquirePos != "" && v.Acquire == t.AcquirePos:
			probe = &v
		case injected && v.Event == "verdict" && v.Site == t.Func+"#entry":
			if v.End == t.ReturnLine && v.Failure == "error" {
				answer, why := confirmedState(probe, v.End)
				return answer, why, v.End
			}
			return LeakOtherReturn, "", v.End
		}
	}
	if e.Status == campaign.Hung || e.Status == campaign.Crashed {
		if state, ok := stuckIn(e.Stacks, t.Func); ok && injected {
			why := "it waits for " + state + " and never returns"
			if lockWait(state) {
				why = "the lock is never released"
			}
			return LeakConfirmedHangs, why, 0
		}
	}
	switch e.Status {
	case campaign.Crashed:
		return LeakCrashed, "", 0
	case campaign.Hung:
		return LeakHung, "", 0
	}
	return LeakOtherReturn, "", 0
}

// confirmedState is the answer for a confirmed path whose return at line
// end the probe (nil if none) saw, and why openness was not checked.
func confirmedState(probe *event, end int) (answer, why string) {
	if probe == nil || probe.End != end {
		return LeakConfirmedUnchecked, "the build does not register this acquisition's resource"
	}
	switch probe.State {
	case "open":
		return LeakConfirmedOpen, ""
	case "closed":
		return LeakConfirmedClosed, ""
	}
	why = probe.Why
	if why == "" {
		why = "the probe could not tell"
	}
	return LeakConfirmedUnchecked, why
}

// stuckIn finds, among the goroutines of a dump, one with fn, or a
// function literal of fn, on its stack, and says what it waited for.
func stuckIn(stacks []campaign.GoroutineStack, fn string) (state string, ok bool) {
	for _, g := range stacks {
		for _, f := range g.Funcs {
			if f == fn || strings.HasPrefix(f, fn+".func") || strings.HasPrefix(f, fn+".deferwrap") {
				return g.State, true
			}
		}
	}
	return "", false
}

// lockWait reports whether a goroutine state is a wait for a mutex.
func lockWait(state string) bool {
	switch state {
	case "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock", "semacquire":
		return true
	}
	return false
}

// confirmBatched picks, for each finding of the campaign's header, the
// experiment whose answer ConfirmLeaks gives, when a batch ran it: the
// engine runs it again in a fresh process, whose record then replaces
// the batch's. Without the findings or the profile runs (a shard of a
// plan, whose profile runs are the plan's), it cannot tell which answer
// rests on which experiment, and picks every batched one.
func confirmBatched(recs []*campaign.Record) []*campaign.Record {
	var o options
	h := campaign.HeaderOf(recs)
	if h == nil || json.Unmarshal(h.QuestionData, &o) != nil || !slices.ContainsFunc(recs, func(r *campaign.Record) bool { return r.Kind == "profile" }) {
		var all []*campaign.Record
		for _, r := range recs {
			if r.Kind == "experiment" && r.Batched && !r.Fresh {
				all = append(all, r)
			}
		}
		return all
	}
	var out []*campaign.Record
	seen := map[*campaign.Record]bool{}
	for _, c := range ConfirmLeaks(o.Confirm, recs) {
		if r := c.Run; r != nil && r.Batched && !r.Fresh && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// sameAnswers reports whether a fresh rerun of a batched experiment
// gives every finding the answer the batch gave: the same end of each
// function's first failure after the injection, the same probes of the
// resources open then, and the same hang or crash.
func sameAnswers(batched, fresh *campaign.Record) bool {
	hungOrCrashed := func(r *campaign.Record) string {
		if r.Status == campaign.Hung || r.Status == campaign.Crashed {
			return r.Status
		}
		return ""
	}
	return hungOrCrashed(batched) == hungOrCrashed(fresh) && slices.Equal(answerTrace(batched), answerTrace(fresh))
}

// answerTrace is what returnedAt reads of a run, for any finding: after
// the injection, each function's first verdict (its failure and end
// line), and the probes logged before it.
func answerTrace(r *campaign.Record) []event {
	var out []event
	injected := false
	ended := map[string]bool{}
	for _, v := range eventsOf(r) {
		switch {
		case v.Event == "inject":
			injected = true
		case !injected || ended[v.Site]:
		case v.Event == "probe":
			out = append(out, v)
		case v.Event == "verdict":
			ended[v.Site] = true
			out = append(out, event{Event: v.Event, Site: v.Site, Failure: v.Failure, End: v.End})
		}
	}
	return out
}

// eventsOf decodes a run's events, leaving out those that do not decode.
func eventsOf(r *campaign.Record) []event {
	evs := make([]event, 0, len(r.Events))
	for _, raw := range r.Events {
		var v event
		if json.Unmarshal(raw, &v) == nil {
			evs = append(evs, v)
		}
	}
	return evs
}
