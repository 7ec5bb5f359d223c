package handlers

import (
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// Handler widening (the catch stretching of short-circuit testing, in
// Go): a typed arm (errors.Is, errors.As, err == X, a type switch's case)
// that the tests show
// to be source-independent, and whose body does not use the typed value,
// could take any error: its predicate widened to err != nil. A handlers
// campaign validates each such candidate after the verdict runs: every
// test that executes the arm's region runs once with the arm widened
// (arm.EnvWiden); then the arms whose widening was kept are widened all
// together, in one run of every test that executes one of their regions.
//
// The status of an arm's widening (Widening.Status):
//
//   - kept: every widened run passed;
//   - rejected: a widened run failed (failed, crashed or timed out), and
//     not as below: widening changed how an error was handled (another
//     arm handled it without an error, or none took it), and the test
//     noticed;
//   - not offered: the arm cannot be widened (Widened is empty, and
//     NotWidenable says why), it is not source-independent, or a widened
//     run failed in a test whose profile run had an error that the arm
//     did not take (blue) taken by another arm of the region that
//     passes it on, translates it, panics or exits: the error left the
//     function as an error and the test expects it to propagate;
//     widening would swallow it;
//   - not validated: a widened run is missing (the campaign was
//     interrupted, or runs as shards: a shard has the verdict runs of some
//     tests only, and widening needs them all).
//
// A test whose profile run had no error reach the arm other than the
// ones it takes runs as before with it widened, so only the tests with a
// blue usage can fail; the others are run all the same, as the paper
// runs the suite.

// The fault word of widened runs (Record.Fault); their Site is the
// widened handlers' IDs, separated by ";".
const widenFault = "widen"

// WidenFaultWord is the Fault of the records of widened runs.
const WidenFaultWord = widenFault

// The statuses of a widening (Widening.Status).
const (
	WidenKept         = "kept"
	WidenRejected     = "rejected"
	WidenNotOffered   = "not offered"
	WidenNotValidated = "not validated"
)

// A Widening is the validation of one arm widened to err != nil.
type Widening struct {
	Status string
	// Why says what decided a status other than kept: the reason it
	// cannot be widened, the verdict, or the test that failed.
	Why string
	// Test is the failing widened run of a rejected or not offered
	// widening, nil otherwise.
	Test *HandlerTest
}

// WidenEnv is the environment that widens the handlers ids ("ID;ID").
func WidenEnv(ids string) []string {
	return arm.Arming{Widen: arm.SplitIDs(ids), Snapshots: arm.SnapshotsNone}.Env()
}

// widenRun is the record of the run of prof's test with the handlers ids
// ("ID;ID") widened.
func widenRun(prof *campaign.Record, ids string) *campaign.Record {
	return &campaign.Record{Kind: "experiment", Package: prof.Package, Test: prof.Test, Arming: arm.Arming{Inject: arm.Injection{Site: ids, Fault: widenFault}}}
}

// widening gives the status of res's widening; arms are the handlers of
// its region, res among them. nil for an arm that is not typed.
func widening(res *HandlerResult, arms []*HandlerResult) *Widening {
	return validate(res, res.Widened, res.NotWidenable, change{
		run:  func(t *HandlerTest) *campaign.Record { return t.Widened },
		name: "widened", with: "with the arm widened",
		expected: func(t *HandlerTest) *Widening {
			if t.Blue && errorLeftRegion(res, arms, t) {
				return &Widening{Status: WidenNotOffered, Why: t.Package + " " + t.Test + " expects the error to propagate: widened, it " + outcomeVerb(t.Widened.Status), Test: t}
			}
			return nil
		},
	})
}

// change is a change to a handler that its tests' runs validate: a
// widening or a routing.
type change struct {
	run        func(t *HandlerTest) *campaign.Record // t's run with the change
	name, with string                                // "widened"; "with the arm widened"
	// expected says, of a test that failed with the change, why that
	// failure is what the test expects (the change is then not offered)
	// or that a run that would tell is missing; nil when it is not.
	expected func(t *HandlerTest) *Widening
}

// validate gives the status of a change to res: offered is what it
// changes res into ("" when it cannot be made, notOffered saying why).
// It is kept when every test of res passes with it; rejected when one
// fails and does not expect to.
func validate(res *HandlerResult, offered, notOffered string, c change) *Widening {
	switch {
	case offered == "" && notOffered == "":
		return nil
	case offered == "":
		return &Widening{Status: WidenNotOffered, Why: notOffered}
	case res.Source != SourceIndependent:
		return &Widening{Status: WidenNotOffered, Why: "the handler is not source-independent (" + res.Source + ")"}
	}
	for _, t := range res.Tests {
		if r := c.run(t); r == nil || !(&HandlerTest{Outcome: r.Status}).known() {
			return &Widening{Status: WidenNotValidated, Why: "the " + c.name + " run of " + t.Test + " is missing"}
		}
	}
	var rejected *Widening
	for _, t := range res.Tests {
		status := c.run(t).Status
		if status == campaign.Passed {
			continue
		}
		if w := c.expected(t); w != nil {
			return w
		}
		if rejected == nil {
			rejected = &Widening{Status: WidenRejected, Why: t.Package + " " + t.Test + " " + outcomeVerb(status) + " " + c.with, Test: t}
		}
	}
	if rejected != nil {
		return rejected
	}
	return &Widening{Status: WidenKept}
}

// errorLeftRegion reports whether, in t's profile run, another arm of
// res's region that passes the error on, returns another or ends the
// run (see leavesAsError) took an error: the error went on as an error. An error that no
// arm took may have been dropped: it does not count.
func errorLeftRegion(res *HandlerResult, arms []*HandlerResult, t *HandlerTest) bool {
	for _, o := range arms {
		if o == res || !leavesAsError(o.Kind) {
			continue
		}
		for _, ot := range o.Tests {
			if ot.Package == t.Package && ot.Test == t.Test && ot.White {
				return true
			}
		}
	}
	return false
}

// leavesAsError reports whether a handler of this kind lets the error
// go on as an error: it propagates it (at once, or accumulated with
// others and returned later), translates it, panics or ends the program.
func leavesAsError(kind string) bool {
	switch kind {
	case "propagate", "accumulate", "translate", "panic", "exit":
		return true
	}
	return false
}

// A WideningTogether is the validation of all the kept widenings at once.
type WideningTogether struct {
	IDs   []string       // the widened handlers, kept each on its own
	Tests []*HandlerTest // every test that executes one of their regions; Outcome and Run are the run's
	// Status is kept when every run passed, rejected when one failed,
	// not validated when one is missing; Why names the failed or missing
	// run.
	Status, Why string
}

// WideningsTogether reads the run of the kept widenings together from a
// handlers campaign's records; nil when no widening was kept.
func WideningsTogether(recs []*campaign.Record, results []*HandlerResult) *WideningTogether {
	return keptTogether(recs, results, func(res *HandlerResult) *Widening { return res.Widening }, widenFault, "widened")
}

// keptTogether reads the runs of the kept changes of one kind (which picks
// a handler's validation of it: its widening or its routing) applied
// together, armed by fault, from a handlers campaign's records; nil when
// none was kept. done says what was done to them, in a rejection's why.
func keptTogether(recs []*campaign.Record, results []*HandlerResult, which func(*HandlerResult) *Widening, fault, done string) *WideningTogether {
	var ids []string
	tests := map[string]*HandlerTest{}
	var order []string
	for _, res := range results {
		if v := which(res); v == nil || v.Status != WidenKept {
			continue
		}
		ids = append(ids, res.ID)
		for _, t := range res.Tests {
			k := t.Package + "\x00" + t.Test
			if tests[k] == nil {
				tests[k] = &HandlerTest{Package: t.Package, Test: t.Test}
				order = append(order, k)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sort.Strings(ids)
	sort.Strings(order)
	w := &WideningTogether{IDs: ids, Status: WidenKept}
	site := strings.Join(ids, ";")
	byKey := map[string]*campaign.Record{}
	for _, r := range recs {
		if r.Kind == "experiment" && r.Arming.Inject.Fault == fault && r.Arming.Inject.Site == site {
			byKey[r.Package+"\x00"+r.Test] = r
		}
	}
	for _, k := range order {
		t := tests[k]
		w.Tests = append(w.Tests, t)
		r := byKey[k]
		if r == nil {
			if w.Status == WidenKept {
				w.Status, w.Why = WidenNotValidated, "the run of "+t.Test+" is missing"
			}
			continue
		}
		t.Outcome, t.Run = r.Status, r
		if !t.passed() && w.Status != WidenRejected {
			w.Status, w.Why = WidenRejected, t.Package+" "+t.Test+" "+outcomeVerb(r.Status)+" with them all "+done
		}
	}
	return w
}

// followUps collects the runs that a round of follow-ups wants and the
// campaign's records do not have yet.
type followUps struct {
	have  map[string]bool
	profs map[string]*campaign.Record // passed profile runs, by package and test
	out   []*campaign.Record
}

func newFollowUps(recs []*campaign.Record) *followUps {
	f := &followUps{have: map[string]bool{}, profs: map[string]*campaign.Record{}}
	for _, r := range recs {
		f.have[r.Key()] = true
		if r.Kind == "profile" && r.Status == campaign.Passed {
			f.profs[r.Package+"\x00"+r.Test] = r
		}
	}
	return f
}

// profile is the passed profile run of a handler's test.
func (f *followUps) profile(t *HandlerTest) *campaign.Record { return f.profs[t.Package+"\x00"+t.Test] }

// want adds r unless the records or an earlier want have it.
func (f *followUps) want(r *campaign.Record) {
	if !f.have[r.Key()] {
		f.have[r.Key()] = true
		f.out = append(f.out, r)
	}
}

// widenFollowUps plans, from a campaign's records, the widened runs that
// it does not have: those of each candidate (a typed arm that can be
// widened and is source-independent), once every verdict run is in;
// then, once every candidate has a status, those of the kept ones
// together.
func widenFollowUps(recs []*campaign.Record) []*campaign.Record {
	f := newFollowUps(recs)
	results := HandlerResults(recs)
	for _, res := range results {
		if res.Widened == "" || res.Source != SourceIndependent {
			continue
		}
		for _, t := range res.Tests {
			f.want(widenRun(f.profile(t), res.ID))
		}
	}
	if len(f.out) > 0 {
		return f.out
	}
	for _, res := range results {
		if res.Widening != nil && res.Widening.Status == WidenNotValidated {
			return nil // a widened run could not be started: nothing more to ask
		}
	}
	if w := WideningsTogether(recs, results); w != nil {
		for _, t := range w.Tests {
			f.want(widenRun(f.profile(t), strings.Join(w.IDs, ";")))
		}
	}
	return f.out
}

// outcomeVerb says what a run that did not pass did.
func outcomeVerb(status string) string {
	switch status {
	case campaign.Failed:
		return "fails"
	case campaign.Crashed:
		return "crashes"
	case campaign.Hung:
		return "times out"
	}
	return "ends with " + status
}
