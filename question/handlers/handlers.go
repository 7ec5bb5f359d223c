package handlers

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// Short-circuit testing of error handlers (after Cornu, Seinturier and
// Monperrus): the profile run of each test logs, per handler (one arm of
// an error check, see rt.Handler), whether the test executed its region
// and the usages it saw; then each handler whose region a test executes
// is armed in one run of that test: every execution of the region is
// skipped and yields an error the arm's predicate holds for. What the
// tests do with that error gives the handler's verdicts.

// The fault word of the arming string of a handler run (arm.EnvInject):
// "handler:always:ID".
const handlerFault = arm.FaultHandler

// Handlers asks which error handlers are resilient: one run per handler
// and test that executes its region, with the handler armed.
var Handlers = &campaign.Planner{
	Name: "handlers",
	Runs: func(prof *campaign.Record, opt campaign.Options) []*campaign.PlannedRun {
		var runs []*campaign.PlannedRun
		for _, h := range handlersOf(prof) {
			if !h.Executed || h.NotInjectable != "" {
				continue
			}
			e := handlerRun(prof, h.ID)
			runs = append(runs, &campaign.PlannedRun{Key: e.Key(), CostMs: prof.Millis, Env: HandlerEnv(h.ID), Run: e})
		}
		return runs
	},
	FollowUps: func(recs []*campaign.Record, opt campaign.Options) []*campaign.PlannedRun {
		var runs []*campaign.PlannedRun
		for _, r := range widenFollowUps(recs) {
			runs = append(runs, &campaign.PlannedRun{Key: r.Key(), Env: WidenEnv(r.Arming.Inject.Site), Run: r})
		}
		for _, r := range routeFollowUps(recs) {
			ids := r.Arming.Inject.Site
			env := RouteEnv(ids)
			if r.Arming.Inject.Fault == routePanicFault {
				env = RoutePanicEnv(ids)
			}
			runs = append(runs, &campaign.PlannedRun{Key: r.Key(), Env: env, Run: r})
		}
		return runs
	},
	// Whether a failed run counts for the source verdict is read in
	// its output (see sourceCount).
	FailureOutput: true,
	// The widened and routed runs of each candidate; the runs with all
	// the kept widenings together, and those of the tests that failed
	// routed with the panic not routed; the runs with all the kept
	// routings together.
	Rounds:        3,
	FollowUpsText: "validating handler widenings: %d runs with typed arms widened to err != nil or panics routed to err != nil arms",
	// A widening or a routing is validated once the verdict runs of
	// every test that executes the arm's region are in.
	WholeFollowUps: true,
	// A shard runs none of them: the merge's count of a shard's is 0.
	FollowUpsName: "rechecks",
	Recognizes:    armsHandlers,
}

// armsHandlers reports whether a journal is a handlers campaign's: its
// runs arm, widen or route handlers.
func armsHandlers(recs []*campaign.Record) bool {
	for _, r := range recs {
		if r.Kind == "experiment" {
			f := r.Arming.Inject.Fault
			return f == handlerFault || f == widenFault || f == routeFault || f == routePanicFault
		}
	}
	return false
}

// HandlerFaultWord is the Fault of the records of handler runs.
const HandlerFaultWord = handlerFault

// handlerRun is the record of the run of prof's test with handler id
// armed.
func handlerRun(prof *campaign.Record, id string) *campaign.Record {
	return &campaign.Record{Kind: "experiment", Package: prof.Package, Test: prof.Test, Arming: arm.Arming{Inject: arm.Injection{Site: id, Fault: handlerFault}}}
}

// HandlerEnv is the environment that arms a handler. Nothing is
// snapshotted: the question is the test's outcome.
func HandlerEnv(id string) []string {
	return arm.Arming{Inject: arm.HandlerInjection(id), Snapshots: arm.SnapshotsNone}.Env()
}

// HandlerInjection is the arming string of a handler.
func HandlerInjection(id string) string {
	return arm.HandlerInjection(id).String()
}

// A HandlerSeen is what one run logged of one handler.
type HandlerSeen struct {
	ID, Func, Pos, Region, Kind, Predicate string
	NotInjectable                          string
	Executed                               bool // the region ran
	Pink, White, Blue                      bool // the usages

	// Widened is the arm's predicate widened to any error, for a typed
	// arm that can be widened; NotWidenable says why a typed arm cannot
	// be. Both are empty for other arms.
	Widened, NotWidenable string
	// Route is, for the err != nil arm of a region whose call can panic,
	// the call; NotRoutable says why the err != nil arm's region cannot
	// have its panic routed to it.
	Route, NotRoutable string
	// RouteResults are the Route call's results as the result list of a
	// function literal ("_ string, err error"); "" when not known.
	RouteResults string

	// WhiteAt are the executions of the region, numbered from 1 as an
	// armed run numbers its faults, at which an error reached the arm
	// and its predicate held (white); WhiteMore says that more came than
	// the run logged. Both are empty for a run that did not number them
	// (a journal older than the numbering).
	WhiteAt   []uint64
	WhiteMore bool
}

// handlersOf returns what a run logged of each handler, by ID order.
func handlersOf(rec *campaign.Record) []*HandlerSeen {
	byID := map[string]*HandlerSeen{}
	for _, raw := range rec.Events {
		var v event
		if json.Unmarshal(raw, &v) != nil || v.Event != "handler" && v.Event != "white" {
			continue
		}
		h := byID[v.Site]
		if h == nil && v.Event == "white" {
			continue // its handler event comes first
		}
		if h == nil {
			h = &HandlerSeen{ID: v.Site, Func: v.Func, Pos: v.Pos, Region: v.Region, Kind: v.HandlerKind,
				Predicate: v.Predicate, NotInjectable: v.NotInjectable, Widened: v.Widened, NotWidenable: v.NotWidenable,
				Route: v.Route, NotRoutable: v.NotRoutable, RouteResults: v.RouteResults}
			byID[v.Site] = h
		}
		if v.Event == "white" {
			if v.More {
				h.WhiteMore = true
			} else {
				h.WhiteAt = append(h.WhiteAt, v.At)
			}
			continue
		}
		switch v.Usage {
		case "executed":
			h.Executed = true
		case "pink":
			h.Pink = true
		case "white":
			h.White = true
		case "blue":
			h.Blue = true
		}
	}
	out := make([]*HandlerSeen, 0, len(byID))
	for _, h := range byID {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// The verdicts of a handler. The first pair is about the tests whose
// profile run had an error reach the handler (white usage), the second
// about every test that executes its region. A violation is sound: a
// test failed with the handler armed.
const (
	SourceIndependent  = "source-independent" // every test with a white usage passes when it is armed
	SourceDependent    = "source-dependent"   // a test with a white usage fails when it is armed
	PurelyResilient    = "purely resilient"   // every test that executes the region passes, and one has a pink usage
	NotPurelyResilient = "not purely resilient"
	HandlerUnknown     = "unknown"
)

// A HandlerTest is one test's row of a handler: its usages in the profile
// run and the outcome of its run with the handler armed.
type HandlerTest struct {
	Package, Test     string
	Pink, White, Blue bool
	// Outcome is the armed run's status ("" when it was not run: not
	// planned, or not finished yet); Fired says the fault was injected.
	Outcome string
	Fired   bool
	Run     *campaign.Record // the armed run, nil if none
	// NotCounted, for a test with a white usage whose armed run failed,
	// says why that failure does not count for the source verdict (see
	// sourceCount); "" when it counts.
	NotCounted string
	// Widened is the run with the handler widened (see Widening), nil if
	// none.
	Widened *campaign.Record
	// Routed and Unrouted are the runs with the region armed to panic,
	// the panic routed to the handler and not (see Routing), nil if none.
	Routed, Unrouted *campaign.Record
}

// passed reports whether the armed run passed. A test that fails,
// crashes or times out does not; one whose run is missing is not known.
func (t *HandlerTest) passed() bool { return t.Outcome == campaign.Passed }
func (t *HandlerTest) known() bool  { return t.Outcome != "" && t.Outcome != campaign.NotRun }

// A HandlerResult is what a handlers campaign found of one handler.
type HandlerResult struct {
	HandlerSeen
	Tests []*HandlerTest // the tests that executed its region, by package and test
	// Source is source-independent, source-dependent or unknown; Resilience
	// is purely resilient, not purely resilient or unknown.
	Source, Resilience string
	// Widening is the validation of the arm widened to err != nil; nil
	// for an arm that is not typed.
	Widening *Widening
	// Routing is the validation of routing a panic of the region's call
	// to the arm; nil for an arm that is not the err != nil arm of a
	// region.
	Routing *Widening
}

// HandlerResults reads a handlers campaign's records: for each handler
// that a profile run saw, its tests and its verdicts, by ID.
func HandlerResults(recs []*campaign.Record) []*HandlerResult {
	runs, widened, routed := map[string]*campaign.Record{}, map[string]*campaign.Record{}, map[string]*campaign.Record{}
	var profiles []*campaign.Record
	for _, r := range recs {
		switch r.Kind {
		case "profile":
			if r.Status == campaign.Passed {
				profiles = append(profiles, r)
			}
		case "experiment":
			switch r.Arming.Inject.Fault {
			case handlerFault:
				runs[r.Key()] = r
			case widenFault:
				widened[r.Key()] = r
			case routeFault, routePanicFault:
				routed[r.Key()] = r
			}
		}
	}
	sort.Slice(profiles, func(i, j int) bool { return profiles[i].Key() < profiles[j].Key() })
	byID := map[string]*HandlerResult{}
	for _, prof := range profiles {
		for _, h := range handlersOf(prof) {
			res := byID[h.ID]
			if res == nil {
				res = &HandlerResult{HandlerSeen: HandlerSeen{ID: h.ID, Func: h.Func, Pos: h.Pos, Region: h.Region,
					Kind: h.Kind, Predicate: h.Predicate, NotInjectable: h.NotInjectable, Widened: h.Widened, NotWidenable: h.NotWidenable,
					Route: h.Route, NotRoutable: h.NotRoutable, RouteResults: h.RouteResults}}
				byID[h.ID] = res
			}
			if !h.Executed {
				continue
			}
			t := &HandlerTest{Package: prof.Package, Test: prof.Test, Pink: h.Pink, White: h.White, Blue: h.Blue}
			if run := runs[handlerRun(prof, h.ID).Key()]; run != nil {
				t.Outcome, t.Fired, t.Run = run.Status, run.Fired, run
				if t.White && t.known() && !t.passed() {
					t.NotCounted = sourceCount(h, run)
				}
			}
			t.Widened = widened[widenRun(prof, h.ID).Key()]
			t.Routed = routed[routeRun(prof, h.ID, routeFault).Key()]
			t.Unrouted = routed[routeRun(prof, h.ID, routePanicFault).Key()]
			res.Tests = append(res.Tests, t)
		}
	}
	// An error that an earlier arm of the region handled came by this
	// arm too, which did not take it: blue, although its predicate was
	// never evaluated.
	byRegion := map[string][]*HandlerResult{}
	for _, res := range byID {
		byRegion[res.Region] = append(byRegion[res.Region], res)
	}
	for _, arms := range byRegion {
		for _, res := range arms {
			for _, t := range res.Tests {
				t.Blue = t.Blue || !t.White && otherArmSawError(arms, res, t)
			}
		}
	}
	out := make([]*HandlerResult, 0, len(byID))
	for _, res := range byID {
		res.Source, res.Resilience = HandlerVerdicts(res.Tests)
		out = append(out, res)
	}
	for _, res := range out {
		res.Widening = widening(res, byRegion[res.Region])
		res.Routing = routing(res)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// otherArmSawError reports whether another arm of the region had an
// error reach it in t's test.
func otherArmSawError(arms []*HandlerResult, self *HandlerResult, t *HandlerTest) bool {
	for _, o := range arms {
		if o == self {
			continue
		}
		for _, ot := range o.Tests {
			if ot.Package == t.Package && ot.Test == t.Test && (ot.White || ot.Blue) {
				return true
			}
		}
	}
	return false
}

// SourceCounted reports whether t's armed run counts for its handler's
// source verdict: the test had an error reach the arm (white) and its
// run is in, passed, or failed in a way tied to an error where the test
// expected one.
func (t *HandlerTest) SourceCounted() bool { return t.White && t.known() && t.NotCounted == "" }

// sourceCount says why the failed armed run of a test that had an error
// reach h (white) does not count for h's source verdict, or "" when it
// counts. The verdict asks whether the handler copes with an error from
// another source where the test expects one; the run skips every
// execution of the region, also those the test expects to succeed. A
// failure counts when it can be tied to an execution at which the
// profile run saw an error reach the arm: the test's output names the
// armed error of such an execution, or names none and every execution
// the run skipped was such a one. A failure that names only the errors
// of other executions, or none after the run skipped others, shows that
// the test expected those calls to succeed, and says nothing of where
// the handler's error comes from. A journal that predates the numbering
// of the executions has every failure count, as before.
func sourceCount(h *HandlerSeen, run *campaign.Record) string {
	if len(h.WhiteAt) == 0 && !h.WhiteMore {
		return ""
	}
	white := map[uint64]bool{}
	var last uint64
	for _, n := range h.WhiteAt {
		white[n], last = true, max(last, n)
	}
	isWhite := func(n uint64) bool { return white[n] || h.WhiteMore && n > last }
	named := FaultOccurrences(run.Output+"\n"+run.Died, h.ID)
	if len(named) > 0 {
		for _, n := range named {
			if isWhite(n) {
				return ""
			}
		}
		return fmt.Sprintf("it failed on the armed error of %s of the region, where the profile run had no error reach the arm: the test expected that call to succeed", executionsText(named))
	}
	var others []uint64
	armed, more := false, false
	for _, raw := range run.Events {
		var v event
		if json.Unmarshal(raw, &v) != nil || v.Event != "armed" || v.Site != h.ID {
			continue
		}
		armed = true
		switch {
		case v.More:
			more = true
		case !isWhite(v.At):
			others = append(others, v.At)
		}
	}
	if !armed || more && h.WhiteMore {
		return "" // which executions it skipped is not known
	}
	if len(others) == 0 && !more {
		return ""
	}
	what := executionsText(others)
	if more {
		if what != "" {
			what += " and "
		}
		what += fmt.Sprintf("executions past the %d the run logs", len(h.WhiteAt))
	}
	return fmt.Sprintf("its output names no armed error, and it skipped %s of the region, where the profile run had no error reach the arm: the test may have failed expecting those calls to succeed", what)
}

// executionsText names executions of a region: "execution 2",
// "executions 2, 5".
func executionsText(ns []uint64) string {
	if len(ns) == 0 {
		return ""
	}
	word := "execution "
	if len(ns) > 1 {
		word = "executions "
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.FormatUint(n, 10)
	}
	return word + strings.Join(parts, ", ")
}

// FaultOccurrences returns the occurrences of the fault armed at site
// that output names, in the words of the runtime's InjectedFault
// ("atomicx: injected error at SITE (POS), occurrence N"), in order,
// each once.
func FaultOccurrences(output, site string) []uint64 {
	var out []uint64
	seen := map[uint64]bool{}
	for _, kind := range []string{"error", "panic"} {
		needle := "atomicx: injected " + kind + " at " + site + " ("
		for rest := output; ; {
			i := strings.Index(rest, needle)
			if i < 0 {
				break
			}
			rest = rest[i+len(needle):]
			line := rest
			if j := strings.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			const occ = "), occurrence "
			k := strings.Index(line, occ)
			if k < 0 {
				continue
			}
			digits := line[k+len(occ):]
			end := 0
			for end < len(digits) && digits[end] >= '0' && digits[end] <= '9' {
				end++
			}
			if n, err := strconv.ParseUint(digits[:end], 10, 64); err == nil && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// HandlerVerdicts gives a handler's two verdicts from its tests' rows.
// Source: source-dependent as soon as a test with a white usage failed
// armed in a way that counts (see sourceCount); source-independent when
// there are such tests and every one passed; unknown otherwise (no white
// usage, a run missing, or a failure that does not count).
// Resilience: not purely resilient as soon as a test that executes the
// region failed armed; purely resilient when every one passed and one
// has a pink usage; unknown otherwise.
func HandlerVerdicts(tests []*HandlerTest) (source, resilience string) {
	source, resilience = HandlerUnknown, HandlerUnknown
	whites, whitesPassed, all, allPassed, pink := 0, 0, 0, 0, false
	for _, t := range tests {
		all++
		if t.known() && t.passed() {
			allPassed++
		}
		pink = pink || t.Pink
		if t.White {
			whites++
			if t.known() && t.passed() {
				whitesPassed++
			}
		}
		if t.known() && !t.passed() {
			resilience = NotPurelyResilient
			if t.White && t.NotCounted == "" {
				source = SourceDependent
			}
		}
	}
	if source == HandlerUnknown && whites > 0 && whitesPassed == whites {
		source = SourceIndependent
	}
	if resilience == HandlerUnknown && all > 0 && allPassed == all && pink {
		resilience = PurelyResilient
	}
	return source, resilience
}
