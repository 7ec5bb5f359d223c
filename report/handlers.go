package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question/handlers"
	"github.com/atomicx/atomicx/rt/arm"
)

// HandlersReport is the report of a handlers campaign (atomicx
// handlers): per error handler, its usages in the tests, what each test
// did with the handler armed, and its verdicts.
type HandlersReport struct {
	Provenance *Provenance       `json:"provenance,omitempty"` // what produced it; nil for an old journal
	Question   string            `json:"question"`             // "handlers"
	Plan       string            `json:"plan,omitempty"`       // the ID of the plan the campaign ran (see campaign.Header)
	Handlers   []*HandlerFinding `json:"handlers"`             // by position
	Summary    HandlersSummary   `json:"summary"`
	Problems   []string          `json:"problems,omitempty"`
	header     *campaign.Header  // for the reproduce commands
	results    map[string]*handlers.HandlerResult

	// Together is the run of the kept widenings all together; nil when
	// none was kept.
	Together *WideningTogether `json:"widened_together,omitempty"`
	// RoutedTogether is the run of the kept routings all together; nil
	// when none was kept.
	RoutedTogether *WideningTogether `json:"routed_together,omitempty"`
}

// HandlerFinding is one handler: one arm of an error check.
type HandlerFinding struct {
	ID        string `json:"id"`     // stable: the function and the arm's file:line:col
	Func      string `json:"func"`   // as the runtime names it
	Pos       string `json:"pos"`    // of the arm: import path/file.go:line:col
	Region    string `json:"region"` // of the call whose error reaches it
	Kind      string `json:"kind"`   // propagate, accumulate, translate, fallback, log-and-continue, ignore, panic or exit
	Predicate string `json:"predicate"`
	// NotInjectable says why no error can be made that the predicate
	// holds for; the handler then has no runs.
	NotInjectable string `json:"not_injectable,omitempty"`
	// Source is source-independent, source-dependent or unknown;
	// Resilience is purely resilient, not purely resilient or unknown.
	Source     string `json:"source"`
	Resilience string `json:"resilience"`
	// Tests is the matrix row: every test that executed the region.
	Tests []HandlerTestRow `json:"tests"`
	// SourceTests are the tests ("package Test") whose armed runs the
	// source verdict rests on: those that had an error reach the arm
	// (white) and whose run passed, or failed in a way tied to it; the
	// others are in Tests with NotCounted.
	SourceTests []string `json:"source_tests,omitempty"`
	// Widening is the validation of a typed arm widened to err != nil;
	// nil for other arms.
	Widening *HandlerWidening `json:"widening,omitempty"`
	// Routing is the validation of routing a panic of the region's call
	// to an err != nil arm; nil for other arms.
	Routing *HandlerRouting `json:"routing,omitempty"`
	// Unchecked are the tests ("package Test") that do not check the
	// error this handler passes on (see uncheckedTests).
	Unchecked []string `json:"unchecked_tests,omitempty"`
}

// stopsError reports whether a handler of this kind stops the error
// where it is: it falls back, logs or ignores it, so whether the
// program is right afterwards is the handler's doing. The other kinds
// pass the error on (propagate, accumulate, translate) or end the run
// (panic, exit): what becomes of it is the caller's.
func stopsError(kind string) bool {
	switch kind {
	case "fallback", "log-and-continue", "ignore":
		return true
	}
	return false
}

// uncheckedTests are the tests that may not check an error that h
// passes on: h propagates, accumulates or translates it, the test's
// profile run saw the handled call succeed (pink, and never white), and
// with h armed, its error injected, the test passed all the same: it
// never looks at the function's error, or a caller handles it. Handlers
// leaves out the tests that had an error reach another handler of the
// function: they expect its errors. Fuzz targets are left out too: run by
// go test on their seed corpus, they look for crashes, not at results.
func uncheckedTests(h *HandlerFinding) []string {
	switch h.Kind {
	case "propagate", "accumulate", "translate":
	default:
		return nil
	}
	var tests []string
	for _, t := range h.Tests {
		if strings.HasPrefix(t.Test, "Fuzz") {
			continue
		}
		if t.Outcome == campaign.Passed && t.Injected && containsUsage(t.Usages, "pink") && !containsUsage(t.Usages, "white") {
			tests = append(tests, t.Package+" "+t.Test)
		}
	}
	return tests
}

// HandlerKinds says what each kind of handler does with its error, for
// the reports' legends (the instrumentation decides the kind: see
// docs/handlers.md).
var HandlerKinds = []Term{
	{"propagate", "the error, or a value made from it (wrapped, in a struct, handed to a call whose result is returned), reaches a return of the function, or a place the caller sees"},
	{"accumulate", "the error is added to a collection of errors (errs = append(errs, err)) that a return returns later, and the function goes on"},
	{"translate", "the handler returns another error"},
	{"fallback", "the handler makes the function's result by other means: returns without an error, or sets a value that is returned"},
	{"log-and-continue", "the handler logs (or calls something else) and goes on; the error goes no further"},
	{"ignore", "the handler does nothing with the error (an empty arm, continue); it goes no further"},
	{"panic", "the handler panics (also through a function of the package that always panics)"},
	{"exit", "the handler ends the program or the test (os.Exit, log.Fatal, t.Fatal)"},
}

// handlerTerms are the other words of the handlers report, explained in
// its legend.
var handlerTerms = []Term{
	{"region", "the call whose error the handler's arm checks; armed, every execution of it is skipped and yields an error the arm's predicate holds for"},
	{"pink / white / blue", "what a test's profile run (nothing armed) saw at the handler: pink, the call returned no error; white, an error came and this arm took it; blue, an error came and another arm took it; executed, the region ran but neither"},
	{"armed", "what the test did with the handler armed: pass, fail, crash, timeout; (region not reached) when the run did not execute the region again"},
	{"source-independent / source-dependent", "every test that had an error reach this arm (white) passes armed / one fails: the handler relies on what the failed call did before failing"},
	{"source verdict from", "the white tests whose armed runs the source verdict rests on. A failed run counts when its failure is tied to an execution of the region where the profile run had an error reach the arm: its output names the armed error of such an execution, or names none and the run skipped only such executions. One that failed on the armed error of a call the profile run saw succeed is listed as not counted: the test expected that call to succeed"},
	{"purely resilient / not purely resilient", "every test that executes the region passes armed, and one had the call succeed (pink) / one fails armed. A handler that passes the error on is rarely purely resilient: its tests expect the call to succeed, and resilience is the caller's"},
	{"unknown", "no test gave the verdict its runs: no white usage (source), no armed run (both), or not injectable"},
	{"widening", "a typed arm (errors.Is, errors.As, err == X, a case) run with its predicate widened to err != nil. Kept when every run passes; rejected when a test fails where another arm handled the error without one; not offered when it cannot be, is not source-independent, or a test expects the error to propagate; not validated when a run is missing"},
	{"reproduce", "the command that repeats one armed run of the handler: the first test that failed armed, else the first test; the JSON and HTML reports have one per test"},
	{"routing", "a panic of the region's call routed to the err != nil arm as an error. Kept, rejected, not validated as for widening; not offered when the call cannot panic, the handler is not source-independent, or a test expects the panic to propagate"},
}

// HandlerRouting is the status of routing a panic of the region's call
// to an err != nil arm (see handlers.Routing): kept, rejected, not
// offered or not validated.
type HandlerRouting struct {
	Status string `json:"status"`
	// Call is the region's call whose panic is routed; "" when it cannot
	// panic.
	Call string `json:"call,omitempty"`
	// Results are the call's results as the result list of the function
	// literal of the suggested rewrite ("_ string, err error").
	Results   string `json:"results,omitempty"`
	Why       string `json:"why,omitempty"`
	Reproduce string `json:"reproduce,omitempty"` // the routed run of the test that failed, by hand
}

// HandlerWidening is the widening status of a typed arm (see
// handlers.Widening): kept, rejected, not offered or not validated.
type HandlerWidening struct {
	Status string `json:"status"`
	// Widened is the predicate it is widened to ("err != nil"); "" when it
	// cannot be.
	Widened string `json:"widened,omitempty"`
	Why     string `json:"why,omitempty"` // what decided a status other than kept
	// Reproduce is the widened run of the test that failed, by hand.
	Reproduce string `json:"reproduce,omitempty"`
}

// WideningTogether is the validation of the kept widenings all at once.
type WideningTogether struct {
	Handlers []string     `json:"handlers"` // IDs
	Status   string       `json:"status"`   // kept, rejected or not validated
	Why      string       `json:"why,omitempty"`
	Tests    []WidenedRun `json:"tests"`
}

// WidenedRun is one test's run with the kept widenings together.
type WidenedRun struct {
	Package string `json:"package"`
	Test    string `json:"test"`
	Outcome string `json:"outcome,omitempty"` // "" when it was not run
}

// HandlerTestRow is one test's cell of a handler's row.
type HandlerTestRow struct {
	Package string   `json:"package"`
	Test    string   `json:"test"`
	Usages  []string `json:"usages"` // pink, white, blue: what the profile run saw
	// Outcome is what the test did with the handler armed: pass, fail,
	// timeout, crash; "" when it was not run. Injected says that the
	// region ran, so the fault was injected.
	Outcome   string `json:"outcome,omitempty"`
	Injected  bool   `json:"injected,omitempty"`
	Reproduce string `json:"reproduce,omitempty"` // the armed run, by hand
	// SourceCounted says that the armed run counts for the source
	// verdict; NotCounted, for a white test whose failure does not, why.
	SourceCounted bool   `json:"source_counted,omitempty"`
	NotCounted    string `json:"not_counted,omitempty"`
	// Widened is what the test did with the arm widened to err != nil
	// (candidates only); "" when it was not run.
	Widened string `json:"widened,omitempty"`
	// Routed is what the test did with the region armed to panic and the
	// panic routed to the arm, Unrouted with the panic going on; "" when
	// not run.
	Routed   string `json:"routed,omitempty"`
	Unrouted string `json:"unrouted,omitempty"`
}

// HandlersSummary is the campaign's table, as the paper's Table 1: the
// handlers its tests executed, and how many have each verdict.
type HandlersSummary struct {
	Handlers          int   `json:"handlers"`           // seen by a profile run
	Executed          int   `json:"executed"`           // whose region a test executed
	NotInjectable     int   `json:"not_injectable"`     // executed, but no fault could be made for them
	PurelyResilient   int   `json:"purely_resilient"`   // of the executed
	NotPurely         int   `json:"not_purely"`         // not purely resilient
	SourceIndependent int   `json:"source_independent"` // of the executed
	SourceDependent   int   `json:"source_dependent"`
	Unknown           int   `json:"unknown"` // executed, and both verdicts unknown
	ProfileRuns       int   `json:"profile_runs"`
	Runs              int   `json:"runs"` // with a handler armed
	WallMs            int64 `json:"wall_ms"`
	// Widenable: executed typed arms that can be widened to err != nil;
	// WideningKept: of them, those whose widening was kept.
	Widenable    int `json:"widenable"`
	WideningKept int `json:"widening_kept"`
	WidenRuns    int `json:"widen_runs"` // with arms widened
	// Routable: executed err != nil arms of regions whose call can
	// panic; RoutingKept: of them, those whose routing was kept.
	Routable    int `json:"routable"`
	RoutingKept int `json:"routing_kept"`
	RouteRuns   int `json:"route_runs"` // with a region's panic routed or not
	// Stopping: executed handlers that stop the error (fallback,
	// log-and-continue, ignore: see stopsError); PassingOn: the others,
	// whose resilience is the caller's; Unchecked: the tests, summed over
	// the handlers, that do not check an error passed on.
	Stopping  int `json:"stopping"`
	PassingOn int `json:"passing_on"`
	Unchecked int `json:"unchecked_tests"`
}

// Handlers builds the report of a handlers campaign's records.
func Handlers(recs []*campaign.Record, problems []campaign.Problem) *HandlersReport {
	r := &HandlersReport{Question: handlers.Handlers.Name, header: campaign.HeaderOf(recs)}
	if r.header != nil {
		r.Plan = r.header.Plan
	}
	r.Provenance = provenanceOf(r.header)
	for _, p := range problems {
		r.Problems = append(r.Problems, p.String())
	}
	for _, rec := range recs {
		switch rec.Kind {
		case "profile":
			r.Summary.ProfileRuns++
		case "experiment":
			switch rec.Arming.Inject.Fault {
			case handlers.WidenFaultWord:
				r.Summary.WidenRuns++
			case handlers.RouteFaultWord, handlers.RoutePanicFaultWord:
				r.Summary.RouteRuns++
			default:
				r.Summary.Runs++
			}
		}
	}
	r.Summary.WallMs, _ = wallTime(recs)
	results := handlers.HandlerResults(recs)
	for _, res := range results {
		h := &HandlerFinding{ID: res.ID, Func: res.Func, Pos: res.Pos, Region: res.Region, Kind: res.Kind,
			Predicate: res.Predicate, NotInjectable: res.NotInjectable, Source: res.Source, Resilience: res.Resilience,
			Tests: []HandlerTestRow{}}
		for _, t := range res.Tests {
			row := HandlerTestRow{Package: t.Package, Test: t.Test, Outcome: t.Outcome, Injected: t.Fired, Usages: []string{},
				SourceCounted: t.SourceCounted(), NotCounted: t.NotCounted}
			if row.SourceCounted {
				h.SourceTests = append(h.SourceTests, t.Package+" "+t.Test)
			}
			for _, u := range []struct {
				on   bool
				name string
			}{{t.Pink, "pink"}, {t.White, "white"}, {t.Blue, "blue"}} {
				if u.on {
					row.Usages = append(row.Usages, u.name)
				}
			}
			if t.Run != nil {
				ev := &Evidence{Package: t.Package, Test: t.Test, Exec: t.Run.Exec, Binary: t.Run.Binary}
				ev.injected(arm.HandlerInjection(res.ID))
				row.Reproduce = reproduce(ev, r.header)
			}
			if t.Widened != nil {
				row.Widened = t.Widened.Status
			}
			if t.Routed != nil {
				row.Routed = t.Routed.Status
			}
			if t.Unrouted != nil {
				row.Unrouted = t.Unrouted.Status
			}
			h.Tests = append(h.Tests, row)
		}
		if w := res.Widening; w != nil {
			h.Widening = &HandlerWidening{Status: w.Status, Widened: res.Widened, Why: w.Why}
			if w.Test != nil {
				h.Widening.Reproduce = r.widenReproduce(res.ID, w.Test)
			}
		}
		if rt := res.Routing; rt != nil {
			h.Routing = &HandlerRouting{Status: rt.Status, Call: res.Route, Results: res.RouteResults, Why: rt.Why}
			if rt.Test != nil && rt.Test.Routed != nil {
				ev := &Evidence{Package: rt.Test.Package, Test: rt.Test.Test, Exec: rt.Test.Routed.Exec, Binary: rt.Test.Routed.Binary}
				// The handler's arming first, then the test's.
				route := armingWords(arm.Arming{Route: []string{res.ID}})
				h.Routing.Reproduce = strings.Join(append(route, reproduce(ev, r.header)), " ")
			}
		}
		r.Handlers = append(r.Handlers, h)
	}
	// A test that had an error reach a handler of the function expects
	// errors from it: an injected one passing is no sign it checks none.
	sawError := map[string]bool{} // function and test
	for _, h := range r.Handlers {
		for _, t := range h.Tests {
			if containsUsage(t.Usages, "white") || containsUsage(t.Usages, "blue") {
				sawError[h.Func+" "+t.Package+" "+t.Test] = true
			}
		}
	}
	for _, h := range r.Handlers {
		for _, t := range uncheckedTests(h) {
			if !sawError[h.Func+" "+t] {
				h.Unchecked = append(h.Unchecked, t)
			}
		}
		r.Summary.count(h)
	}
	sort.SliceStable(r.Handlers, func(i, j int) bool { return posKey(r.Handlers[i].Pos) < posKey(r.Handlers[j].Pos) })
	if w := handlers.WideningsTogether(recs, results); w != nil {
		r.Together = &WideningTogether{Handlers: w.IDs, Status: w.Status, Why: w.Why}
		for _, t := range w.Tests {
			r.Together.Tests = append(r.Together.Tests, WidenedRun{t.Package, t.Test, t.Outcome})
		}
	}
	if w := handlers.RoutingsTogether(recs, results); w != nil {
		r.RoutedTogether = &WideningTogether{Handlers: w.IDs, Status: w.Status, Why: w.Why}
		for _, t := range w.Tests {
			r.RoutedTogether.Tests = append(r.RoutedTogether.Tests, WidenedRun{t.Package, t.Test, t.Outcome})
		}
	}
	return r
}

// widenReproduce is the command that runs t's test (or program workload)
// with the handlers ids ("ID;ID") widened.
func (r *HandlersReport) widenReproduce(ids string, t *handlers.HandlerTest) string {
	ev := &Evidence{Package: t.Package, Test: t.Test}
	if t.Widened != nil {
		ev.Exec, ev.Binary = t.Widened.Exec, t.Widened.Binary
	}
	widen := armingWords(arm.Arming{Widen: arm.SplitIDs(ids)})
	return strings.Join(append(widen, reproduce(ev, r.header)), " ")
}

func (s *HandlersSummary) count(h *HandlerFinding) {
	s.Handlers++
	if len(h.Tests) == 0 {
		return
	}
	s.Executed++
	if stopsError(h.Kind) {
		s.Stopping++
	} else {
		s.PassingOn++
	}
	s.Unchecked += len(h.Unchecked)
	if h.NotInjectable != "" {
		s.NotInjectable++
	}
	switch h.Resilience {
	case handlers.PurelyResilient:
		s.PurelyResilient++
	case handlers.NotPurelyResilient:
		s.NotPurely++
	}
	switch h.Source {
	case handlers.SourceIndependent:
		s.SourceIndependent++
	case handlers.SourceDependent:
		s.SourceDependent++
	}
	if h.Source == handlers.HandlerUnknown && h.Resilience == handlers.HandlerUnknown {
		s.Unknown++
	}
	if w := h.Widening; w != nil && w.Widened != "" {
		s.Widenable++
		if w.Status == handlers.WidenKept {
			s.WideningKept++
		}
	}
	if rt := h.Routing; rt != nil && rt.Call != "" {
		s.Routable++
		if rt.Status == handlers.WidenKept {
			s.RoutingKept++
		}
	}
}

// WriteHandlersJSON writes the report as one JSON object.
func WriteHandlersJSON(w io.Writer, r *HandlersReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// summaryRows are the summary table's rows, as every format shows them.
func (s HandlersSummary) rows() [][2]string {
	n := func(v int) string { return fmt.Sprint(v) }
	return [][2]string{
		{"handlers seen", n(s.Handlers)},
		{"executed by the tests", n(s.Executed)},
		{"purely resilient", n(s.PurelyResilient)},
		{"not purely resilient", n(s.NotPurely)},
		{"source-independent", n(s.SourceIndependent)},
		{"source-dependent", n(s.SourceDependent)},
		{"unknown (both verdicts)", n(s.Unknown)},
		{"not injectable", n(s.NotInjectable)},
		{"widenable (typed arms)", n(s.Widenable)},
		{"widening kept", n(s.WideningKept)},
		{"routable (err != nil arms)", n(s.Routable)},
		{"routing kept", n(s.RoutingKept)},
		{"stopping the error", n(s.Stopping)},
		{"passing the error on", n(s.PassingOn)},
		{"tests not checking it", n(s.Unchecked)},
	}
}

// runsText says what the campaign ran.
func (s HandlersSummary) runsText() string {
	widened := ""
	if s.WidenRuns > 0 {
		widened = fmt.Sprintf(", %d runs with arms widened", s.WidenRuns)
	}
	if s.RouteRuns > 0 {
		widened += fmt.Sprintf(", %d runs with panics routed", s.RouteRuns)
	}
	return fmt.Sprintf("%d profile runs, %d runs with a handler armed%s, %s (wall time)", s.ProfileRuns, s.Runs, widened, durationText(s.WallMs))
}

// WriteHandlersText writes the report for a terminal: the summary
// table, then what a maintainer can act on (the handlers that stop the
// error, the tests that do not check an error passed on), then the
// handlers that pass it on, and a legend of the words used. Each handler
// has its row of tests and one reproduce command (the JSON and HTML
// reports have one per test). locate maps import-path positions to file
// paths.
func WriteHandlersText(w io.Writer, r *HandlersReport, locate Locator) {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	writeProvenance(w, r.Provenance)
	if r.Plan != "" {
		fmt.Fprintf(w, "plan %s\n\n", r.Plan)
	}
	fmt.Fprintf(w, "error handlers: %s\n", r.Summary.runsText())
	for _, row := range r.Summary.rows() {
		fmt.Fprintf(w, "  %-26s %s\n", row[0], row[1])
	}
	var stopping, passing, unchecked []*HandlerFinding
	for _, h := range r.Handlers {
		switch {
		case len(h.Tests) == 0:
		case stopsError(h.Kind):
			stopping = append(stopping, h)
		default:
			passing = append(passing, h)
		}
		if len(h.Unchecked) > 0 {
			unchecked = append(unchecked, h)
		}
	}
	used := map[string]bool{}
	if len(stopping) > 0 {
		fmt.Fprintf(w, "\nHandlers that stop the error (%d): they fall back, log or ignore it, so whether the program is right afterwards is theirs to ensure.\n", len(stopping))
		for _, h := range stopping {
			writeHandlerText(w, h, locate, used)
		}
	}
	if len(unchecked) > 0 {
		fmt.Fprintf(w, "\nTests that do not check an error passed on (%d): the handler passed an injected error on, the test had seen the call succeed (pink) and passed all the same: it does not look at the error, or a caller handles it (fuzz targets, which look for crashes, are left out).\n", r.Summary.Unchecked)
		for _, h := range unchecked {
			fmt.Fprintf(w, "%s: %s: %s handler of %s: %s\n", locate(h.Pos), h.Func, h.Kind, h.Predicate, strings.Join(h.Unchecked, ", "))
			used[h.Kind] = true
		}
	}
	if len(passing) > 0 {
		fmt.Fprintf(w, "\nHandlers that pass the error on (%d): they propagate, accumulate or translate it, or end the run; resilience is the caller's, and a test that fails armed expected the call to succeed.\n", len(passing))
		for _, h := range passing {
			writeHandlerText(w, h, locate, used)
		}
	}
	if t := r.Together; t != nil {
		fmt.Fprintf(w, "\nkept widenings together (%d handlers, %d tests): %s\n", len(t.Handlers), len(t.Tests), wideningText(&HandlerWidening{Status: t.Status, Why: t.Why}))
	}
	if t := r.RoutedTogether; t != nil {
		fmt.Fprintf(w, "\nkept routings together (%d handlers, %d tests): %s\n", len(t.Handlers), len(t.Tests), wideningText(&HandlerWidening{Status: t.Status, Why: t.Why}))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if len(stopping)+len(passing) > 0 {
		fmt.Fprintf(w, "\nWords used above:\n")
		for _, k := range HandlerKinds {
			if used[k.Name] {
				fmt.Fprintf(w, "  %s: %s\n", k.Name, k.Text)
			}
		}
		for _, t := range handlerTerms {
			switch t.Name {
			case "widening", "routing", "reproduce", "source verdict from":
				if !used[t.Name] {
					continue
				}
			}
			fmt.Fprintf(w, "  %s: %s\n", t.Name, t.Text)
		}
	}
}

// writeHandlerText writes one handler: its line, its row of tests, one
// reproduce command (the first failed run's, else the first run's), its
// widening and routing. used collects the kinds and words it shows.
func writeHandlerText(w io.Writer, h *HandlerFinding, locate Locator, used map[string]bool) {
	used[h.Kind] = true
	fmt.Fprintf(w, "\n%s: %s: %s handler of %s: %s; %s\n", locate(h.Pos), h.Func, h.Kind, h.Predicate, h.Source, h.Resilience)
	if h.NotInjectable != "" {
		fmt.Fprintf(w, "\tnot injectable: %s\n", h.NotInjectable)
	}
	repro, failed := "", false
	for _, t := range h.Tests {
		outcome := t.Outcome
		if outcome == "" {
			outcome = "not run"
		} else if !t.Injected {
			outcome += " (region not reached)"
		}
		widened := ""
		if t.Widened != "" {
			widened = "; widened: " + t.Widened
		}
		if t.Routed != "" {
			widened += "; routed: " + t.Routed
		}
		if t.Unrouted != "" {
			widened += "; not routed: " + t.Unrouted
		}
		fmt.Fprintf(w, "\t%s %s: %s; armed: %s%s\n", t.Package, t.Test, usagesText(t.Usages), outcome, widened)
		if t.NotCounted != "" {
			used["source verdict from"] = true
			fmt.Fprintf(w, "\t\tnot counted for the source verdict: %s\n", t.NotCounted)
		}
		switch {
		case t.Reproduce == "":
		case t.Outcome != "" && t.Outcome != campaign.Passed:
			if !failed {
				repro, failed = t.Reproduce, true
			}
		case repro == "":
			repro = t.Reproduce
		}
	}
	if len(h.SourceTests) > 0 || h.hasNotCounted() {
		used["source verdict from"] = true
		from := "no test"
		if len(h.SourceTests) > 0 {
			from = strings.Join(h.SourceTests, ", ")
		}
		fmt.Fprintf(w, "\tsource verdict from: %s\n", from)
	}
	if repro != "" {
		used["reproduce"] = true
		fmt.Fprintf(w, "\t\treproduce: %s\n", repro)
	}
	if wd := h.Widening; wd != nil {
		used["widening"] = true
		fmt.Fprintf(w, "\twidening to %s: %s\n", widenedText(wd), wideningText(wd))
		if wd.Reproduce != "" {
			fmt.Fprintf(w, "\t\treproduce: %s\n", wd.Reproduce)
		}
	}
	if rt := h.Routing; rt != nil {
		used["routing"] = true
		fmt.Fprintf(w, "\trouting a panic of %s to the arm: %s\n", routedText(rt), wideningText(&HandlerWidening{Status: rt.Status, Why: rt.Why}))
		if rt.Reproduce != "" {
			fmt.Fprintf(w, "\t\treproduce: %s\n", rt.Reproduce)
		}
	}
}

// hasNotCounted reports whether a white test's failure does not count
// for h's source verdict.
func (h *HandlerFinding) hasNotCounted() bool {
	for _, t := range h.Tests {
		if t.NotCounted != "" {
			return true
		}
	}
	return false
}

// routedText is the call a routing routes the panic of.
func routedText(r *HandlerRouting) string {
	if r.Call == "" {
		return "the region's call"
	}
	return r.Call
}

// widenedText is the predicate a widening widens to.
func widenedText(w *HandlerWidening) string {
	if w.Widened == "" {
		return "err != nil"
	}
	return w.Widened
}

// wideningText is a widening's status and why.
func wideningText(w *HandlerWidening) string {
	if w.Why == "" {
		return w.Status
	}
	return w.Status + " (" + w.Why + ")"
}

func usagesText(u []string) string {
	if len(u) == 0 {
		return "executed"
	}
	return strings.Join(u, ", ")
}

// handlerRules are the SARIF rules of a handlers report: its two
// violations, each shown by a test that failed with the handler armed.
var handlerRules = []sarifRule{
	{
		ID:               "atomicx/source-dependent-handler",
		Name:             "SourceDependentHandler",
		ShortDescription: sarifText{"Error handler works only for the errors the tests give it"},
		FullDescription: sarifText{"A test whose error reaches this handler fails when the handled call is skipped and yields " +
			"another error the handler's predicate holds for: the handler depends on where its error comes from."},
		Help: sarifHelp{
			Text:     "Read the test's failure with the reproduce command: the handler (or its caller) relies on what the failed call had done before it failed.",
			Markdown: "Read the test's failure with the reproduce command: the handler (or its caller) relies on what the failed call had done before it failed.",
		},
		HelpURI:              InformationURI + "#error-handlers-atomicx-handlers",
		DefaultConfiguration: sarifConfiguration{"warning"},
		Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling"}, Precision: "high", Severity: "warning"},
	},
	{
		ID:               "atomicx/not-purely-resilient-handler",
		Name:             "NotPurelyResilientHandler",
		ShortDescription: sarifText{"A test fails when this handler's region fails"},
		FullDescription:  sarifText{"A test that executes the handled call fails when the call is skipped and yields an error the handler's predicate holds for."},
		Help: sarifHelp{
			Text:     "The test may rightly expect the call to succeed; where it does not, the handler does not recover from the failure.",
			Markdown: "The test may rightly expect the call to succeed; where it does not, the handler does not recover from the failure.",
		},
		HelpURI:              InformationURI + "#error-handlers-atomicx-handlers",
		DefaultConfiguration: sarifConfiguration{"note"},
		Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling"}, Precision: "high", Severity: "note"},
	},
	{
		ID:               "atomicx/widenable-handler",
		Name:             "WidenableHandler",
		ShortDescription: sarifText{"This typed error handler could take any error"},
		FullDescription: sarifText{"The handler's arm checks for one kind of error, does not use the typed value, and every test " +
			"that executes it passes with its predicate widened to err != nil (and with all such widenings together)."},
		Help: sarifHelp{
			Text:     "Consider widening the predicate to err != nil: atomicx handlers -widen-diff FILE writes the change as a diff.",
			Markdown: "Consider widening the predicate to `err != nil`: `atomicx handlers -widen-diff FILE` writes the change as a diff.",
		},
		HelpURI:              InformationURI + "#handler-widening",
		DefaultConfiguration: sarifConfiguration{"note"},
		Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling"}, Precision: "medium", Severity: "note"},
	},
	{
		ID:               "atomicx/routable-handler",
		Name:             "RoutableHandler",
		ShortDescription: sarifText{"This error handler could take a panic of its call too"},
		FullDescription: sarifText{"The call whose error this err != nil handler takes can panic, and every test that executes it " +
			"passes when the call panics and the panic reaches the handler as an error (and with all such routings together)."},
		Help: sarifHelp{
			Text:     "Consider recovering a panic of the call into its error: atomicx handlers -widen-diff FILE writes the change as a diff.",
			Markdown: "Consider recovering a panic of the call into its error: `atomicx handlers -widen-diff FILE` writes the change as a diff.",
		},
		HelpURI:              InformationURI + "#handler-widening",
		DefaultConfiguration: sarifConfiguration{"note"},
		Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling"}, Precision: "medium", Severity: "note"},
	},
}

// WriteHandlersSARIF writes the handlers' violations as a SARIF 2.1.0
// log: one result per source-dependent handler, and one per handler that
// is not purely resilient otherwise, at the handler's arm.
func WriteHandlersSARIF(w io.Writer, r *HandlersReport, locate Locator, opt SARIFOptions, roots ...SourceRoot) error {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	used := map[string]sarifURIBase{}
	results := []sarifResult{}
	for _, h := range r.Handlers {
		// add adds a result of rule idx at the handler's arm.
		add := func(idx int, msg, fingerprint string) {
			results = append(results, sarifResult{
				RuleID: handlerRules[idx].ID, RuleIndex: idx, Level: handlerRules[idx].DefaultConfiguration.Level,
				Message:             sarifText{msg},
				Locations:           []sarifLocation{sarifLocate(&Function{Name: h.Func, Pos: h.Pos}, locate, roots, used)},
				PartialFingerprints: map[string]string{"atomicxHandler/v1": fingerprint},
			})
		}
		idx := -1
		switch {
		case h.Source == handlers.SourceDependent:
			idx = 0
		case h.Resilience == handlers.NotPurelyResilient:
			idx = 1
		}
		if w := h.Widening; w != nil && w.Status == handlers.WidenKept && r.Together != nil && r.Together.Status == handlers.WidenKept {
			add(2, fmt.Sprintf("The %s handler of %s in %s can be widened to %s: every test that executes it passes.", h.Kind, h.Predicate, h.Func, w.Widened), h.ID+"#widen")
		}
		if rt := h.Routing; rt != nil && rt.Status == handlers.WidenKept && r.RoutedTogether != nil && r.RoutedTogether.Status == handlers.WidenKept {
			add(3, fmt.Sprintf("A panic of %s in %s can be routed to its %s handler of %s as an error: every test that executes it passes.", rt.Call, h.Func, h.Kind, h.Predicate), h.ID+"#route")
		}
		if idx < 0 {
			continue
		}
		var failed *HandlerTestRow
		for i := range h.Tests {
			if t := &h.Tests[i]; t.Outcome != "" && t.Outcome != campaign.Passed && (idx == 1 || t.SourceCounted) {
				failed = t
				break
			}
		}
		msg := fmt.Sprintf("The %s handler of %s in %s is %s and %s.", h.Kind, h.Predicate, h.Func, h.Source, h.Resilience)
		if failed != nil {
			msg += fmt.Sprintf("\nWith it armed, %s of %s: %s.\nReproduce: %s", failed.Test, failed.Package, failed.Outcome, failed.Reproduce)
		}
		add(idx, msg, h.ID)
	}
	return writeSARIFLog(w, opt, sarifEnvelope{question: handlers.Handlers.Name, rules: handlerRules, used: used, prov: r.Provenance, wallMs: r.Summary.WallMs}, results)
}

func containsUsage(usages []string, u string) bool {
	for _, x := range usages {
		if x == u {
			return true
		}
	}
	return false
}

// handlersPage is parsed on first use: every tool run of a build starts
// atomicx, which has no page to write then.
var handlersPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("handlers").Funcs(template.FuncMap{"kindText": kindText}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>atomicx handlers</title>
<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; margin-bottom: 1.5em; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
code { font-size: 0.95em; }
.fail { background: #fdd; } .pass { background: #dfd; }
.pink { color: #c06; } .white { color: #555; } .blue { color: #06c; }
</style></head><body>
<h1>Error handlers</h1>
{{with .Provenance}}<p>atomicx {{.Atomicx}}, {{.Go}}, module {{.Module}}: <code>{{.Command}}</code>, {{.Date}}, journal {{.Journal}}</p>{{end}}
<p>{{if .Plan}}Plan {{.Plan}}: {{end}}{{.Runs}}.</p>
<table><tr><th>handlers</th><th>count</th></tr>
{{range .Rows}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table>
<p>Handlers that stop the error (fallback, log-and-continue, ignore) are the maintainer's to check: whether the program is right afterwards is theirs to ensure. The others pass it on or end the run: their resilience is the caller's.</p>
{{if .Summary.Unchecked}}<h2 id="unchecked">Tests that do not check an error passed on</h2>
<p>The handler passed an injected error on, the test had seen the call succeed (pink) and passed all the same: it does not look at the error, or a caller handles it (fuzz targets, which look for crashes, are left out).</p>
<ul>{{range .Handlers}}{{if .Unchecked}}<li><a href="#{{.ID}}"><code>{{.Pos}}</code></a> {{.Func}}, {{.Kind}} handler of <code>{{.Predicate}}</code>: {{range $i, $t := .Unchecked}}{{if $i}}, {{end}}{{$t}}{{end}}</li>
{{end}}{{end}}</ul>{{end}}
{{range $h := .Handlers}}{{if .Tests}}
<h2 id="{{.ID}}"><code>{{.Pos}}</code> {{.Func}}</h2>
<p><span title="{{kindText .Kind}}">{{.Kind}}</span> handler of <code>{{.Predicate}}</code>: <b>{{.Source}}</b>, <b>{{.Resilience}}</b>.{{if .NotInjectable}} Not injectable: {{.NotInjectable}}.{{end}}{{if .SourceTests}} Source verdict from: {{range $i, $t := .SourceTests}}{{if $i}}, {{end}}{{$t}}{{end}}.{{end}}</p>
<table><tr><th>test</th><th>usages</th><th>armed</th><th>reproduce</th>{{if .Widening}}<th>widened</th>{{end}}</tr>
{{range .Tests}}<tr><td>{{.Package}} {{.Test}}</td><td>{{range .Usages}}<span class="{{.}}">{{.}}</span> {{end}}</td>
<td class="{{if eq .Outcome "pass"}}pass{{else if .Outcome}}fail{{end}}">{{if .Outcome}}{{.Outcome}}{{else}}not run{{end}}{{if .NotCounted}}<br>not counted for the source verdict: {{.NotCounted}}{{end}}</td><td>{{if .Reproduce}}<code>{{.Reproduce}}</code>{{end}}</td>{{if $h.Widening}}<td class="{{if eq .Widened "pass"}}pass{{else if .Widened}}fail{{end}}">{{if .Widened}}{{.Widened}}{{else}}not run{{end}}</td>{{end}}</tr>
{{end}}</table>
{{with .Widening}}<p>Widening to <code>{{if .Widened}}{{.Widened}}{{else}}err != nil{{end}}</code>: <b>{{.Status}}</b>{{if .Why}} ({{.Why}}){{end}}.{{if .Reproduce}} <code>{{.Reproduce}}</code>{{end}}</p>{{end}}
{{with .Routing}}<p>Routing a panic of {{if .Call}}<code>{{.Call}}</code>{{else}}the region's call{{end}} to the arm: <b>{{.Status}}</b>{{if .Why}} ({{.Why}}){{end}}.{{if .Reproduce}} <code>{{.Reproduce}}</code>{{end}}</p>{{end}}
{{end}}{{end}}
{{with .Together}}<h2 id="widened-together">Kept widenings together</h2>
<p>{{len .Handlers}} handlers widened at once: <b>{{.Status}}</b>{{if .Why}} ({{.Why}}){{end}}.</p>
<table><tr><th>test</th><th>widened</th></tr>
{{range .Tests}}<tr><td>{{.Package}} {{.Test}}</td><td class="{{if eq .Outcome "pass"}}pass{{else if .Outcome}}fail{{end}}">{{if .Outcome}}{{.Outcome}}{{else}}not run{{end}}</td></tr>
{{end}}</table>{{end}}
{{with .RoutedTogether}}<h2 id="routed-together">Kept routings together</h2>
<p>{{len .Handlers}} handlers routed at once: <b>{{.Status}}</b>{{if .Why}} ({{.Why}}){{end}}.</p>
<table><tr><th>test</th><th>routed</th></tr>
{{range .Tests}}<tr><td>{{.Package}} {{.Test}}</td><td class="{{if eq .Outcome "pass"}}pass{{else if .Outcome}}fail{{end}}">{{if .Outcome}}{{.Outcome}}{{else}}not run{{end}}</td></tr>
{{end}}</table>{{end}}
{{range .Problems}}<p>problem: {{.}}</p>{{end}}
<h2 id="legend">Words</h2>
<dl>{{range .Kinds}}<dt>{{.Name}}</dt><dd>{{.Text}}</dd>
{{end}}{{range .Terms}}<dt>{{.Name}}</dt><dd>{{.Text}}</dd>
{{end}}</dl>
</body></html>
`))
})

// WriteHandlersHTML writes the report as one HTML page.
func WriteHandlersHTML(w io.Writer, r *HandlersReport) error {
	return handlersPage().Execute(w, struct {
		*HandlersReport
		Rows         [][2]string
		Runs         string
		Kinds, Terms []Term
	}{r, r.Summary.rows(), r.Summary.runsText(), HandlerKinds, handlerTerms})
}

// kindText is what a kind of handler does with its error.
func kindText(kind string) string {
	for _, k := range HandlerKinds {
		if k.Name == kind {
			return k.Text
		}
	}
	return ""
}
