package perturb

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// Perturb asks which failure points the workload survives, after
// TripleAgent (Zhang and Monperrus): every point that a test reaches is
// run twice with that test, failing its first reach (one-shot) and every
// reach (always), and classified by the test's outcome (PointClass).
// The class of a point is the workload's: each point is run with every
// test whose profile run reached it (or the first TestsPerPoint of them
// (Options), the tests that reached the fewest points first, ties to the
// smaller key), and is fragile if one of them fails the one-shot run,
// immunized only if every one passes both runs.
// The fault is an error where the point can return one, else a panic.
//
// The plan holds the one-shot runs; the always runs are the first round
// of follow-ups. The second round validates the failure-oblivious
// candidates of the points that the workload does not survive (the
// functions that passed the one-shot or the always failure on, see
// Monitor), in every test the point was run with: both runs again with
// the candidate made failure-oblivious (arm.EnvOblivious), then with it
// atomic failure-oblivious (rolled back first: arm.EnvMask too). A
// point's runs may fall into several shards: the follow-ups are planned
// from the whole campaign.
//
// Every run runs its test one goroutine at a time (OneAtATime): a point
// is identified by its site and the number of its reach, which parallel
// subtests and goroutines would number differently from run to run.
//
// Runs take no snapshot and are not ended early: the test's outcome is
// the answer, and the failed calls the runtime logs ("fail" events)
// tell how far the failure went.
var Perturb = &campaign.Planner{
	Name: "perturb",
	AllRuns: func(profs []*campaign.Record, opt campaign.Options) []*campaign.PlannedRun {
		return perturbRuns(perturbPoints(profs, TestsPerPoint(opt.QuestionData)))
	},
	FollowUps: func(recs []*campaign.Record, opt campaign.Options) []*campaign.PlannedRun {
		return perturbRuns(perturbFollowUps(recs))
	},
	Rounds:         2,
	WholeFollowUps: true,
	OneAtATime:     true,
	FollowUpsText:  "running %d perturbation runs: points failed at every reach, or failure-oblivious candidates",
	FollowUpsName:  "always and validation runs",
	// The report says how many tests ran each point.
	HeaderData: func(options json.RawMessage) json.RawMessage { return options },
}

// options are perturbation's own options (campaign.Options.QuestionData,
// and the header's).
type options struct {
	// TestsPerPoint bounds the tests each point runs with; 0 runs it
	// with every test that reaches it.
	TestsPerPoint int `json:"tests_per_point,omitempty"`
}

// Options are perturbation's options as a campaign carries them
// (campaign.Config.QuestionData): at most testsPerPoint tests run each
// point, 0 for every test that reaches it.
func Options(testsPerPoint int) json.RawMessage {
	if testsPerPoint == 0 {
		return nil
	}
	b, _ := json.Marshal(options{TestsPerPoint: testsPerPoint})
	return b
}

// TestsPerPoint is the bound on the tests each point runs with, from a
// perturbation campaign's options or its header's data
// (campaign.Header.QuestionData); 0 when there is none.
func TestsPerPoint(data json.RawMessage) int {
	var o options
	if len(data) > 0 {
		json.Unmarshal(data, &o)
	}
	return o.TestsPerPoint
}

// runData is perturbation's own data about a run
// (campaign.Record.QuestionData).
type runData struct {
	// Stack is where the profile run reached the point, the calls in
	// progress ("N@SITE;..."), for monitoring.
	Stack string `json:"stack,omitempty"`
}

// withStack is the data of a run of a point that the profile run
// reached with stack.
func withStack(stack string) json.RawMessage {
	if stack == "" {
		return nil
	}
	b, _ := json.Marshal(runData{Stack: stack})
	return b
}

// stackOf is where the profile run reached the point of a perturbation
// run (runData.Stack).
func stackOf(r *campaign.Record) string {
	var d runData
	if len(r.QuestionData) > 0 {
		json.Unmarshal(r.QuestionData, &d)
	}
	return d.Stack
}

// perturbPoints plans the one-shot runs of every point the profile runs
// reached: one with each test that reached it, at most bound of them (0:
// no bound), the smallest tests first.
func perturbPoints(profs []*campaign.Record, bound int) []*campaign.Record {
	order := append([]*campaign.Record(nil), profs...)
	points := map[*campaign.Record][]campaign.Reach{}
	for _, prof := range order {
		points[prof] = campaign.Reaches(prof)
	}
	sort.SliceStable(order, func(i, j int) bool {
		if a, b := len(points[order[i]]), len(points[order[j]]); a != b {
			return a < b
		}
		return order[i].Key() < order[j].Key()
	})
	taken := map[string]int{}
	var out []*campaign.Record
	for _, prof := range order {
		for _, r := range points[prof] {
			fault := pointFault(r.Faults)
			if r.Occurrence != 1 || fault == "" || bound > 0 && taken[r.Site] >= bound {
				continue
			}
			taken[r.Site]++
			out = append(out, &campaign.Record{Kind: "experiment", Package: prof.Package, Test: prof.Test,
				Arming: arm.Arming{Inject: arm.Injection{Site: r.Site, Occurrence: 1, Fault: fault}}, QuestionData: withStack(r.Stack), Millis: prof.Millis})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

// pointFault is the fault a perturbation run injects at a point that
// allows faults: an error where it can return one, else a panic.
func pointFault(faults uint64) string {
	switch {
	case faults&campaign.FaultError != 0:
		return "error"
	case faults&campaign.FaultPanic != 0:
		return "panic"
	}
	return ""
}

// perturbRuns gives each run its arming and cost: the profile run's time,
// which a planned record carries in Millis until it runs.
func perturbRuns(recs []*campaign.Record) []*campaign.PlannedRun {
	runs := make([]*campaign.PlannedRun, len(recs))
	for i, r := range recs {
		cost := r.Millis
		r.Millis = 0
		runs[i] = &campaign.PlannedRun{Key: r.Key(), CostMs: cost, Env: PerturbEnv(r), Run: r}
	}
	return runs
}

// PerturbEnv is the environment that arms a perturbation run.
func PerturbEnv(r *campaign.Record) []string {
	return PerturbArming(r).Env()
}

// PerturbArming is the arming of a perturbation run.
func PerturbArming(r *campaign.Record) arm.Arming {
	return arm.Arming{
		Inject:    r.Arming.Inject,
		Oblivious: r.Arming.Oblivious,
		// The runtime snapshots every call of a function that it rolls
		// back before swallowing its failure, and nothing else.
		Mask:      r.Arming.Mask,
		Snapshots: arm.SnapshotsNone,
	}
}

// perturbFollowUps plans, from the campaign's records, the runs that its
// finished runs call for and that it does not have: the always run of
// each one-shot run, and, once a point has all of them, the validation
// runs of each point that the workload does not survive, four per
// candidate and test.
func perturbFollowUps(recs []*campaign.Record) []*campaign.Record {
	have := map[string]*campaign.Record{}
	for _, r := range recs {
		have[r.Key()] = r
	}
	var out []*campaign.Record
	want := func(r *campaign.Record) {
		if have[r.Key()] == nil {
			have[r.Key()] = r
			out = append(out, r)
		}
	}
	for _, p := range PointsOf(recs) {
		complete := true
		for _, t := range p.Tests {
			if t.Always == nil {
				want(t.alwaysRun())
				complete = false
			}
		}
		if !complete || p.Class != Fragile && p.Class != Sensitive {
			continue
		}
		for _, c := range p.Candidates {
			for _, t := range p.Tests {
				if t.Class == PointNotInjected || t.Class == PointNotRun {
					continue
				}
				for _, atomic := range []bool{false, true} {
					for _, always := range []bool{false, true} {
						want(t.validationRun(p, c.Site, atomic, always))
					}
				}
			}
		}
	}
	return out
}

// The classes of a perturbation point (Point.Class).
const (
	Fragile   = "fragile"   // the one-shot run fails
	Sensitive = "sensitive" // the one-shot run passes, the always run fails
	Immunized = "immunized" // both pass
	// PointNotInjected: the test did not reach the point again (or not the
	// fault the policy allows there) in the one-shot run.
	PointNotInjected = "not injected"
	// PointNotRun: a run is missing (the campaign was interrupted), or could
	// not start.
	PointNotRun = "not run"
)

// classRank orders the classes from the worst for the program.
func classRank(c string) int {
	switch c {
	case Fragile:
		return 0
	case Sensitive:
		return 1
	case Immunized:
		return 2
	}
	return -1
}

// Improves reports whether class after is better for the program than
// class before: fragile to sensitive or immunized, sensitive to
// immunized.
func Improves(before, after string) bool {
	return classRank(before) >= 0 && classRank(after) > classRank(before)
}

// A Point is what a perturbation campaign learnt about one point.
type Point struct {
	Site  string // the point's site ID
	Func  string // the function the point is in (a call site) or of (an entry)
	Pos   string // the point's position, import path/file.go:line:col
	Fault string // error or panic
	// Class is the workload's: the worst of its tests' classes (see
	// pointClass). Package, Test, OneShot, Always, Inconsistent and
	// Monitor are those of the test that gave it, the first of
	// Tests with that class.
	Class   string
	Package string
	Test    string
	// OneShot and Always are the two runs, nil when not run.
	OneShot, Always *campaign.Record
	// Inconsistent: a test's one-shot run failed and its always run
	// passed.
	Inconsistent bool
	Monitor
	// Tests are the tests the point was run with, by package and name;
	// Reached counts the tests whose profile runs reached it, more than
	// len(Tests) when the campaign bounded the tests per point.
	Tests   []*PointTest
	Reached int
	// Candidates are the fragile or sensitive point's functions that
	// passed the one-shot or the always failure on in one of its tests
	// (Monitor.Passed), with their validations in every test.
	Candidates []*Candidate
}

// PointTest is what one test's runs of a point showed.
type PointTest struct {
	Package, Test   string
	OneShot, Always *campaign.Record
	Class           string
	Inconsistent    bool
	// Monitor is where the one-shot failure stopped; AlwaysMonitor where
	// the always run's first failure did.
	Monitor, AlwaysMonitor Monitor
	// OtherPath says that the one-shot run reached the point through
	// other functions than the profile run did: the workload does not run
	// the same way every time (a map's order, the clock, its own
	// goroutines), and the reach failed may not be the one profiled.
	OtherPath bool
	// validations by candidate site and atomic, then always
	validations map[string][2][2]*campaign.Record
}

// Monitor is where a run's injected failure stopped: the function that
// handled it (the first on the stack that did not pass it on; "" when
// every instrumented caller passed it on, to the test or to code that is
// not instrumented), and how many functions passed it on before.
type Monitor struct {
	Handler  string
	Distance int
	// Passed are the entry site IDs of the functions that passed the
	// failure on, innermost first: the failure-oblivious candidates.
	Passed []string
}

// A Candidate is a function to make failure-oblivious at a point, and
// what that did to the point's class.
type Candidate struct {
	Site string // entry site ID
	Func string
	// OnlyAlways says that the function passed on the always run's
	// failure only: the one-shot failure was handled before it.
	OnlyAlways bool
	// Plain and Atomic are the point's runs with the function made
	// failure-oblivious, and atomic failure-oblivious, in every test.
	Plain, Atomic Validation
	// Hazards say why making the function failure-oblivious may do
	// harm that the tests do not show (see hazardsOf); none when nothing
	// is known against it.
	Hazards []string
}

// HazardousSwallows is how many failures a wrapper may swallow in one
// validating run before the candidate is marked hazardous: a function
// that fails that often and is told to go on (a read in a loop
// returning no data) is not surviving a failure but ignoring one that
// lasts.
const HazardousSwallows = 1000

// hazardousNames are the functions whose failures mean that data the
// program believes written or durable is not: swallowing such a
// failure, in the function or in a call of it, loses the data silently.
var hazardousNames = map[string]bool{"Sync": true, "Close": true, "Flush": true, "Write": true, "WriteString": true,
	"WriteAt": true, "WriteTo": true, "WriteFile": true}

// hazardsOf says why candidate c of point p may do harm that its
// validation does not show: it swallowed too many failures in one run,
// or it, or the point's call, writes or syncs.
func hazardsOf(p *Point, c *Candidate) []string {
	var out []string
	if n := max(c.Plain.MaxSwallowed, c.Atomic.MaxSwallowed); n >= HazardousSwallows {
		out = append(out, fmt.Sprintf("swallowed %d failures in one run", n))
	}
	if c.Plain.SwallowedUntilHung || c.Atomic.SwallowedUntilHung {
		out = append(out, "swallowed failures until a run hit the time limit")
	}
	if name := lastName(c.Func); hazardousNames[name] {
		out = append(out, "swallows failures of "+name+": what it should write or make durable may be lost")
	}
	callee := p.Func
	if _, rest, ok := strings.Cut(p.Site, "#call:"); ok {
		callee, _, _ = strings.Cut(rest, "#")
	}
	if name := lastName(callee); hazardousNames[name] && name != lastName(c.Func) {
		out = append(out, "swallows a failed "+name+": what it should write or make durable may be lost")
	}
	return out
}

// lastName is the last element of a function's name: "Sync" of
// "os.(*File).Sync" and of "f.Sync".
func lastName(fn string) string {
	return fn[strings.LastIndex(fn, ".")+1:]
}

// Validation is a point's runs with a candidate wrapped, in every test
// the point was run with, and the class they give (the worst, as for
// the point).
type Validation struct {
	// OneShot and Always are the runs of the test that gave the class.
	OneShot, Always *campaign.Record
	Class           string
	Inconsistent    bool
	// Swallowed counts the failures the wrapper swallowed in the runs
	// that ended by themselves, MaxSwallowed in the one that swallowed
	// the most; NotRolledBack the atomic wrapper's failed calls that
	// could not be rolled back (not snapshotted, or over budget), whose
	// failures went on. A run that hit the time limit swallowing failures
	// sets SwallowedUntilHung instead: how many it swallowed depends on
	// the machine's speed, and a report must not.
	Swallowed, MaxSwallowed, NotRolledBack int
	SwallowedUntilHung                     bool
	// Unchecked says that a test passed its always run with the wrapper
	// swallowing failures: every reach of the point failed, and the test
	// did not notice what those calls did not produce.
	Unchecked bool
}

// countWrapped counts what the wrapper did in the runs.
func (v *Validation) countWrapped(runs ...*campaign.Record) {
	for _, r := range runs {
		if r == nil {
			continue
		}
		n := 0
		for _, raw := range r.Events {
			var e event
			if json.Unmarshal(raw, &e) != nil || e.Event != "oblivious" {
				continue
			}
			if e.Swallowed {
				n++
			}
			if e.Atomic && !e.RolledBack {
				v.NotRolledBack++
			}
		}
		if r.Status == campaign.Hung {
			v.SwallowedUntilHung = v.SwallowedUntilHung || n > 0
			continue
		}
		v.Swallowed += n
		v.MaxSwallowed = max(v.MaxSwallowed, n)
		if r.Arming.Inject.Always && r.Status == campaign.Passed && n > 0 {
			v.Unchecked = true
		}
	}
}

// Works reports whether wrapping the candidate made the point better.
func (v Validation) Works(before string) bool { return Improves(before, v.Class) }

func (t *PointTest) alwaysRun() *campaign.Record {
	r := t.OneShot
	return &campaign.Record{Kind: r.Kind, Package: r.Package, Test: r.Test, Arming: arm.Arming{Inject: arm.Injection{Site: r.Arming.Inject.Site, Fault: r.Arming.Inject.Fault, Always: true}},
		QuestionData: r.QuestionData, Millis: r.Millis}
}

func (t *PointTest) validationRun(p *Point, candidate string, atomic, always bool) *campaign.Record {
	r := &campaign.Record{Kind: "experiment", Package: t.Package, Test: t.Test, Arming: arm.Arming{Inject: arm.Injection{Site: p.Site, Fault: p.Fault, Occurrence: 1}, Oblivious: arm.SplitIDs(candidate)},
		QuestionData: t.OneShot.QuestionData, Millis: t.OneShot.Millis}
	if always {
		r.Arming.Inject.Occurrence, r.Arming.Inject.Always = 0, true
	}
	if atomic {
		r.Arming.Mask = r.Arming.Oblivious
	}
	return r
}

// PointsOf reads the points of a perturbation campaign from its
// records, in the order of their site IDs, each with its tests in the
// order of their packages and names.
func PointsOf(recs []*campaign.Record) []*Point {
	byKey := map[string]*campaign.Record{}
	bySite := map[string]*Point{}
	var points []*Point
	posOf := map[string]string{} // from the profile runs' reach events
	reached := map[string]int{}
	for _, r := range recs {
		if r.Kind == "profile" {
			for _, e := range campaign.Reaches(r) {
				posOf[e.Site] = e.Pos
				if e.Occurrence == 1 && r.Status == campaign.Passed {
					reached[e.Site]++ // a test whose profile run failed runs no point
				}
			}
		}
		if r.Kind != "experiment" || r.Arming.Inject.Site == "" {
			continue
		}
		byKey[r.Key()] = r
		if r.Arming.Inject.Always || len(r.Arming.Oblivious) > 0 || r.Arming.Inject.Occurrence != 1 {
			continue
		}
		p := bySite[r.Arming.Inject.Site]
		if p == nil {
			p = &Point{Site: r.Arming.Inject.Site, Fault: r.Arming.Inject.Fault}
			bySite[r.Arming.Inject.Site] = p
			points = append(points, p)
		}
		p.Tests = append(p.Tests, &PointTest{Package: r.Package, Test: r.Test, OneShot: r})
	}
	sort.Slice(points, func(i, j int) bool { return points[i].Site < points[j].Site })
	for _, p := range points {
		sort.Slice(p.Tests, func(i, j int) bool {
			a, b := p.Tests[i], p.Tests[j]
			return a.Package < b.Package || a.Package == b.Package && a.Test < b.Test
		})
		p.Func = siteFunc(p.Site)
		for _, t := range p.Tests {
			if p.Pos = siteName(t.OneShot, p.Site); p.Pos != "" {
				break
			}
		}
		if p.Pos == "" {
			p.Pos = posOf[p.Site]
		}
		p.Reached = max(reached[p.Site], len(p.Tests))
		for _, t := range p.Tests {
			t.Always = byKey[t.alwaysRun().Key()]
			t.Class, t.Inconsistent = classify(t.OneShot, t.Always)
			if t.Class != PointNotInjected && t.Class != PointNotRun {
				t.OtherPath = otherPath(t.OneShot)
				t.Monitor = Monitored(t.OneShot)
				if t.Always != nil {
					t.AlwaysMonitor = Monitored(t.Always)
				}
			}
		}
		p.Class = pointClass(p.Tests, func(t *PointTest) (string, bool) { return t.Class, t.Inconsistent })
		decider := p.Tests[0]
		for _, t := range p.Tests {
			if t.Class == p.Class {
				decider = t
				break
			}
		}
		p.Package, p.Test, p.OneShot, p.Always, p.Monitor = decider.Package, decider.Test, decider.OneShot, decider.Always, decider.Monitor
		for _, t := range p.Tests {
			p.Inconsistent = p.Inconsistent || t.Inconsistent
		}
		if p.Class != Fragile && p.Class != Sensitive {
			continue // survived, or not known: nothing to validate
		}
		p.Candidates = candidatesOf(p.Tests)
		for _, c := range p.Candidates {
			for _, atomic := range []bool{false, true} {
				v := validateCandidate(p, c.Site, atomic, byKey)
				if atomic {
					c.Atomic = v
				} else {
					c.Plain = v
				}
			}
			c.Hazards = hazardsOf(p, c)
		}
	}
	return points
}

// candidatesOf are the functions that passed a point's failure on in
// one of its tests, the one-shot's before the always run's, in the order
// of the tests.
func candidatesOf(tests []*PointTest) []*Candidate {
	var out []*Candidate
	seen := map[string]bool{}
	for _, always := range []bool{false, true} {
		for _, t := range tests {
			m := t.Monitor
			if always {
				m = t.AlwaysMonitor
			}
			for _, site := range m.Passed {
				if !seen[site] {
					seen[site] = true
					out = append(out, &Candidate{Site: site, Func: siteFunc(site), OnlyAlways: always})
				}
			}
		}
	}
	return out
}

// validateCandidate reads the runs of point p with the candidate wrapped in every
// test that reached the point again.
func validateCandidate(p *Point, candidate string, atomic bool, byKey map[string]*campaign.Record) Validation {
	var v Validation
	type runs struct{ oneShot, always *campaign.Record }
	var all []runs
	for _, t := range p.Tests {
		if t.Class == PointNotInjected || t.Class == PointNotRun {
			continue
		}
		r := runs{byKey[t.validationRun(p, candidate, atomic, false).Key()], byKey[t.validationRun(p, candidate, atomic, true).Key()]}
		all = append(all, r)
		v.countWrapped(r.oneShot, r.always)
	}
	v.Class = pointClass(all, func(r runs) (string, bool) { return classify(r.oneShot, r.always) })
	for _, r := range all {
		class, inconsistent := classify(r.oneShot, r.always)
		v.Inconsistent = v.Inconsistent || inconsistent
		if class == v.Class && v.OneShot == nil {
			v.OneShot, v.Always = r.oneShot, r.always
		}
	}
	if len(all) == 0 {
		v.Class = PointNotRun
	}
	return v
}

// pointClass is the class of a point in a workload of several tests,
// each with its class: fragile if one test is; not run if a test's runs
// are missing (a missing one might be fragile); sensitive if one test is;
// immunized if every test that reached the point again passed both runs;
// not injected if none reached it again.
func pointClass[T any](tests []T, classOf func(T) (string, bool)) string {
	has := map[string]bool{}
	for _, t := range tests {
		c, _ := classOf(t)
		has[c] = true
	}
	for _, c := range []string{Fragile, PointNotRun, Sensitive, Immunized} {
		if has[c] {
			return c
		}
	}
	return PointNotInjected
}

// classify gives the class of a point from its one-shot and always runs.
func classify(oneShot, always *campaign.Record) (class string, inconsistent bool) {
	switch {
	case oneShot == nil || oneShot.Status == campaign.NotRun:
		return PointNotRun, false
	case !oneShot.Fired:
		return PointNotInjected, false
	case runFailed(oneShot):
		return Fragile, always != nil && always.Status == campaign.Passed
	case always == nil || always.Status == campaign.NotRun:
		return PointNotRun, false
	case runFailed(always):
		return Sensitive, false
	}
	return Immunized, false
}

// runFailed reports whether a run failed: the test failed, the program
// crashed or exited non-zero, or the run hung past the time limit.
func runFailed(r *campaign.Record) bool {
	return r.Status == campaign.Failed || r.Status == campaign.Crashed || r.Status == campaign.Hung
}

// siteFunc is the function of a site ID: "pkg.F" of "pkg.F#entry" and of
// "pkg.F#call:pos".
func siteFunc(site string) string {
	fn, _, _ := strings.Cut(site, "#")
	return fn
}

// siteName is the position of a point, from the one-shot run's inject
// event, or the call site's ID.
func siteName(r *campaign.Record, site string) string {
	for _, raw := range r.Events {
		var e event
		if json.Unmarshal(raw, &e) == nil && e.Event == "inject" && e.Site == site && e.Pos != "" {
			return e.Pos
		}
	}
	if _, pos, ok := strings.Cut(site, "#call:"); ok {
		return pos
	}
	return ""
}

// Monitored reads, from a one-shot or always run, how far the (first)
// injected failure went: the calls in progress where the run injected
// it (innermost first) that failed on its goroutine after the injection
// passed it on, up to the first that did not, which handled it. A
// function with several calls in progress (recursion) counts once.
//
// The calls are those that the run's own inject event lists, by the
// run's own numbers, the numbers of its "fail" events; a run of an older
// runtime, which does not list them, is read against where the profile
// run reached the point (stackOf), whose numbers are the run's only
// when nothing ran concurrently.
func Monitored(r *campaign.Record) Monitor {
	var m Monitor
	failed := map[string]map[uint64]bool{}
	injected := false
	stack, gid := stackOf(r), uint64(0)
	for _, raw := range r.Events {
		var e event
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		switch {
		case e.Event == "inject" && !injected:
			injected = true
			if e.G != 0 {
				stack, gid = e.Stack, e.G
			}
		case injected && e.Event == "fail" && e.Call != 0 && e.G == gid:
			if failed[e.Site] == nil {
				failed[e.Site] = map[uint64]bool{}
			}
			failed[e.Site][e.Call] = true
		}
	}
	for _, frame := range strings.Split(stack, ";") {
		nums, site, ok := strings.Cut(frame, "@")
		if !ok {
			continue
		}
		if !anyFailed(nums, failed[site]) {
			m.Handler = siteFunc(site)
			return m
		}
		m.Distance++
		m.Passed = append(m.Passed, site)
	}
	return m
}

// otherPath reports whether a one-shot run reached its point through
// other functions than its profile run (stackOf): the functions of
// the calls in progress that its inject event lists, call numbers aside.
// A run of an older runtime, which lists none, is taken at its word.
func otherPath(r *campaign.Record) bool {
	for _, raw := range r.Events {
		var e event
		if json.Unmarshal(raw, &e) != nil || e.Event != "inject" {
			continue
		}
		return e.G != 0 && !slices.Equal(stackSites(e.Stack), stackSites(stackOf(r)))
	}
	return false
}

// stackSites are the functions of the calls in progress "N@SITE;...".
func stackSites(stack string) []string {
	var sites []string
	for _, frame := range strings.Split(stack, ";") {
		if _, site, ok := strings.Cut(frame, "@"); ok {
			sites = append(sites, site)
		}
	}
	return sites
}

// anyFailed reports whether one of the calls nums ("3", "1-4,7" as the
// runtime writes calls in progress) is among failed.
func anyFailed(nums string, failed map[uint64]bool) bool {
	if len(failed) == 0 {
		return false
	}
	for _, span := range strings.Split(nums, ",") {
		lo, hi, isSpan := strings.Cut(span, "-")
		first, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			continue
		}
		last := first
		if isSpan {
			if last, err = strconv.ParseUint(hi, 10, 64); err != nil {
				continue
			}
		}
		for n := range failed {
			if n >= first && n <= last {
				return true
			}
		}
	}
	return false
}
