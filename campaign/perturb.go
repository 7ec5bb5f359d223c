package campaign

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// OccurrenceAlways is the OCCURRENCE of an arming (ATOMICX_INJECT) that
// makes every reach of the point fail, from the first.
const OccurrenceAlways = "always"

// Perturb asks which failure points the workload survives, after
// TripleAgent (Zhang and Monperrus): every point that a test reaches is
// run twice with that test, failing its first reach (one-shot) and every
// reach (always), and classified by the test's outcome (PointClass).
// Each point is run with one test: of the tests whose profile run reached
// it, the one whose profile run reached the fewest points (the smallest
// test; a profile run's time would be cheaper still, but it varies from
// one campaign to the next, and so would the answers), ties to the
// smaller key.
// The fault is an error where the point can return one, else a panic.
//
// The plan holds the one-shot runs; the always runs are the first round
// of follow-ups, so that a shard holds both runs of its points. The
// second round validates the failure-oblivious candidates of the points
// that the test does not survive (the functions that passed the one-shot
// failure on, see Monitor): both runs again with the candidate made
// failure-oblivious (ATOMICX_OBLIVIOUS), then with it atomic
// failure-oblivious (rolled back first: ATOMICX_MASK too).
//
// Runs take no snapshot and are not ended early: the test's outcome is
// the answer, and the failed calls the runtime logs ("fail" events)
// tell how far the failure went.
var Perturb = &Planner{
	Name: "perturb",
	AllRuns: func(profs []*Record, opt Options) []*PlannedRun {
		return perturbRuns(perturbPoints(profs))
	},
	FollowUps: func(recs []*Record, opt Options) []*PlannedRun {
		return perturbRuns(perturbFollowUps(recs))
	},
	Rounds:        2,
	FollowUpsText: "running %d perturbation runs: points failed at every reach, or failure-oblivious candidates",
}

// perturbPoints plans the one-shot run of every point the profile runs
// reached, each with the smallest test that reached it.
func perturbPoints(profs []*Record) []*Record {
	order := append([]*Record(nil), profs...)
	points := map[*Record][]event{}
	for _, prof := range order {
		points[prof] = reaches(prof)
	}
	sort.SliceStable(order, func(i, j int) bool {
		if a, b := len(points[order[i]]), len(points[order[j]]); a != b {
			return a < b
		}
		return order[i].Key() < order[j].Key()
	})
	taken := map[string]bool{}
	var out []*Record
	for _, prof := range order {
		for _, r := range points[prof] {
			fault := pointFault(r.Faults)
			if r.Occurrence != 1 || fault == "" || taken[r.Site] {
				continue
			}
			taken[r.Site] = true
			out = append(out, &Record{Kind: "experiment", Package: prof.Package, Test: prof.Test,
				Site: r.Site, Occurrence: 1, Fault: fault, Stack: r.Stack, Millis: prof.Millis})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

// pointFault is the fault a perturbation run injects at a point that
// allows faults: an error where it can return one, else a panic.
func pointFault(faults uint64) string {
	switch {
	case faults&faultError != 0:
		return "error"
	case faults&faultPanic != 0:
		return "panic"
	}
	return ""
}

// perturbRuns gives each run its arming and cost: the profile run's time,
// which a planned record carries in Millis until it runs.
func perturbRuns(recs []*Record) []*PlannedRun {
	runs := make([]*PlannedRun, len(recs))
	for i, r := range recs {
		cost := r.Millis
		r.Millis = 0
		runs[i] = &PlannedRun{Key: r.Key(), CostMs: cost, Env: PerturbEnv(r), Run: r}
	}
	return runs
}

// PerturbEnv is the environment that arms a perturbation run.
func PerturbEnv(r *Record) []string {
	occ := strconv.FormatUint(r.Occurrence, 10)
	if r.Always {
		occ = OccurrenceAlways
	}
	env := []string{"ATOMICX_INJECT=" + r.Fault + ":" + occ + ":" + r.Site}
	if r.Oblivious != "" {
		env = append(env, "ATOMICX_OBLIVIOUS="+r.Oblivious)
	}
	if r.Mask != "" {
		// The runtime snapshots every call of a function that it rolls
		// back before swallowing its failure, and nothing else.
		env = append(env, "ATOMICX_MASK="+r.Mask)
	}
	return append(env, "ATOMICX_SNAPSHOTS=none")
}

// perturbFollowUps plans, from a shard's records, the runs that its
// finished runs call for and that it does not have: the always run of
// each one-shot run, and the validation runs of each point that the test
// does not survive, four per candidate.
func perturbFollowUps(recs []*Record) []*Record {
	have := map[string]*Record{}
	for _, r := range recs {
		have[r.Key()] = r
	}
	var out []*Record
	want := func(r *Record) {
		if have[r.Key()] == nil {
			have[r.Key()] = r
			out = append(out, r)
		}
	}
	for _, p := range PerturbPointsOf(recs) {
		if p.Always == nil {
			want(p.alwaysRun())
			continue
		}
		if p.Class != Fragile && p.Class != Sensitive {
			continue
		}
		for _, c := range p.Candidates {
			for _, atomic := range []bool{false, true} {
				for _, always := range []bool{false, true} {
					want(p.validationRun(c.Site, atomic, always))
				}
			}
		}
	}
	return out
}

// The classes of a perturbation point (PerturbPoint.Class).
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

// A PerturbPoint is what a perturbation campaign learnt about one point.
type PerturbPoint struct {
	Site    string // the point's site ID
	Func    string // the function the point is in (a call site) or of (an entry)
	Pos     string // the point's position, import path/file.go:line:col
	Fault   string // error or panic
	Package string // the test that ran it
	Test    string
	// OneShot and Always are the two runs, nil when not run.
	OneShot, Always *Record
	Class           string
	// Inconsistent: the one-shot run failed and the always run passed.
	Inconsistent bool
	Monitor
	// Candidates are the fragile or sensitive point's functions that
	// passed the failure on (Monitor.Passed), with their validations.
	Candidates []*Candidate
}

// Monitor is where the one-shot run's failure stopped: the function that
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
	// Plain and Atomic are the point's runs with the function made
	// failure-oblivious, and atomic failure-oblivious.
	Plain, Atomic Validation
}

// Validation is a point's two runs with a candidate wrapped, and the
// class they give.
type Validation struct {
	OneShot, Always *Record
	Class           string
	Inconsistent    bool
	// Swallowed counts the failures the wrapper swallowed in the two
	// runs; NotRolledBack the atomic wrapper's failed calls that could
	// not be rolled back (not snapshotted, or over budget), whose failures
	// went on.
	Swallowed, NotRolledBack int
}

// countWrapped counts what the wrapper did in the validation's runs.
func (v *Validation) countWrapped() {
	for _, r := range []*Record{v.OneShot, v.Always} {
		if r == nil {
			continue
		}
		for _, raw := range r.Events {
			var e event
			if json.Unmarshal(raw, &e) != nil || e.Event != "oblivious" {
				continue
			}
			if e.Swallowed {
				v.Swallowed++
			}
			if e.Atomic && !e.RolledBack {
				v.NotRolledBack++
			}
		}
	}
}

// Works reports whether wrapping the candidate made the point better.
func (v Validation) Works(before string) bool { return Improves(before, v.Class) }

func (p *PerturbPoint) alwaysRun() *Record {
	r := *p.OneShot
	return &Record{Kind: r.Kind, Package: r.Package, Test: r.Test, Site: r.Site, Fault: r.Fault, Always: true, Stack: r.Stack,
		Millis: r.Millis}
}

func (p *PerturbPoint) validationRun(candidate string, atomic, always bool) *Record {
	r := &Record{Kind: "experiment", Package: p.Package, Test: p.Test, Site: p.Site, Fault: p.Fault, Occurrence: 1,
		Oblivious: candidate, Stack: p.OneShot.Stack, Millis: p.OneShot.Millis}
	if always {
		r.Occurrence, r.Always = 0, true
	}
	if atomic {
		r.Mask = candidate
	}
	return r
}

// PerturbPointsOf reads the points of a perturbation campaign from its
// records, in the order of their site IDs.
func PerturbPointsOf(recs []*Record) []*PerturbPoint {
	byKey := map[string]*Record{}
	var points []*PerturbPoint
	posOf := map[string]string{} // from the profile runs' reach events
	for _, r := range recs {
		if r.Kind == "profile" {
			for _, e := range reaches(r) {
				posOf[e.Site] = e.Pos
			}
		}
		if r.Kind != "experiment" || r.Site == "" {
			continue
		}
		byKey[r.Key()] = r
		if !r.Always && r.Oblivious == "" && r.Occurrence == 1 {
			points = append(points, &PerturbPoint{Site: r.Site, Fault: r.Fault, Package: r.Package, Test: r.Test, OneShot: r})
		}
	}
	sort.Slice(points, func(i, j int) bool { return points[i].Site < points[j].Site })
	for _, p := range points {
		p.Func, p.Pos = siteFunc(p.Site), siteName(p.OneShot, p.Site)
		if p.Pos == "" {
			p.Pos = posOf[p.Site]
		}
		p.Always = byKey[p.alwaysRun().Key()]
		p.Class, p.Inconsistent = classify(p.OneShot, p.Always)
		if p.Class == PointNotInjected {
			continue
		}
		p.Monitor = Monitored(p.OneShot)
		if p.Class != Fragile && p.Class != Sensitive {
			continue // survived: nothing to validate
		}
		for _, site := range p.Passed {
			c := &Candidate{Site: site, Func: siteFunc(site)}
			for _, atomic := range []bool{false, true} {
				v := Validation{OneShot: byKey[p.validationRun(site, atomic, false).Key()], Always: byKey[p.validationRun(site, atomic, true).Key()]}
				v.Class, v.Inconsistent = classify(v.OneShot, v.Always)
				v.countWrapped()
				if atomic {
					c.Atomic = v
				} else {
					c.Plain = v
				}
			}
			p.Candidates = append(p.Candidates, c)
		}
	}
	return points
}

// classify gives the class of a point from its one-shot and always runs.
func classify(oneShot, always *Record) (class string, inconsistent bool) {
	switch {
	case oneShot == nil || oneShot.Status == NotRun:
		return PointNotRun, false
	case !oneShot.Fired:
		return PointNotInjected, false
	case runFailed(oneShot):
		return Fragile, always != nil && always.Status == Passed
	case always == nil || always.Status == NotRun:
		return PointNotRun, false
	case runFailed(always):
		return Sensitive, false
	}
	return Immunized, false
}

// runFailed reports whether a run failed: the test failed, the program
// crashed or exited non-zero, or the run hung past the time limit.
func runFailed(r *Record) bool {
	return r.Status == Failed || r.Status == Crashed || r.Status == Hung
}

// siteFunc is the function of a site ID: "pkg.F" of "pkg.F#entry" and of
// "pkg.F#call:pos".
func siteFunc(site string) string {
	fn, _, _ := strings.Cut(site, "#")
	return fn
}

// siteName is the position of a point, from the one-shot run's inject
// event, or the call site's ID.
func siteName(r *Record, site string) string {
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

// Monitored reads, from a one-shot run, how far the injected failure
// went: the calls in progress where the profile run reached the point
// (Record.Stack, innermost first) that failed after the injection passed
// it on, up to the first that did not, which handled it. A function with
// several calls in progress (recursion) counts once.
func Monitored(r *Record) Monitor {
	var m Monitor
	failed := map[string]map[uint64]bool{}
	injected := false
	for _, raw := range r.Events {
		var e event
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		switch {
		case e.Event == "inject":
			injected = true
		case injected && e.Event == "fail" && e.Call != 0:
			if failed[e.Site] == nil {
				failed[e.Site] = map[uint64]bool{}
			}
			failed[e.Site][e.Call] = true
		}
	}
	for _, frame := range strings.Split(r.Stack, ";") {
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
