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
	"github.com/atomicx/atomicx/question/perturb"
)

// PerturbSchema names the version of the JSON perturbation report's
// format.
const PerturbSchema = "atomicx.perturb/v1"

// PerturbReport is what a perturbation campaign (atomicx perturb) found:
// for each failure point the tests reached, whether they survive it
// failing once (one-shot) and every time (always), who handled the
// failure, and which functions made failure-oblivious would let them.
type PerturbReport struct {
	Provenance *Provenance `json:"provenance,omitempty"`
	Plan       string      `json:"plan,omitempty"` // the ID of the plan the campaign ran (see campaign.Header)
	// OneAtATime says that every run ran on one thread, a test's
	// parallel subtests one at a time, so that the Nth reach of a point
	// is the same reach in every run; TestsPerPoint is the bound on the
	// tests each point ran with (0: every test that reaches it).
	OneAtATime    bool             `json:"one_at_a_time"`
	TestsPerPoint int              `json:"tests_per_point"`
	Points        []*PerturbPoint  `json:"points"` // by class, worst first, then by position
	Summary       PerturbSummary   `json:"summary"`
	Problems      []string         `json:"problems,omitempty"`
	header        *campaign.Header // for reproduce lines
}

// PerturbPoint is one failure point and what its runs showed.
type PerturbPoint struct {
	Site  string `json:"site"`  // the site ID
	Func  string `json:"func"`  // the function it is in, or of (an entry)
	Pos   string `json:"pos"`   // import path/file.go:line:col
	Kind  string `json:"kind"`  // "entry" (callers see the function fail) or "call" (a call site)
	Fault string `json:"fault"` // error or panic
	// Class is the worst of its tests' classes: fragile if one test
	// fails the one-shot run, immunized only if every test passes both.
	// Package, Test, OneShot, Always, Handler and Distance are those of
	// the test that gave it.
	Class        string `json:"class"` // fragile, sensitive, immunized, not injected, not run
	Package      string `json:"package"`
	Test         string `json:"test"`         // the test that gave the class ("exec": the program workload)
	Inconsistent bool   `json:"inconsistent"` // a test's one-shot run failed and its always run passed
	OneShot      string `json:"one_shot"`     // the one-shot run's outcome (pass, fail, crash, timeout)
	Always       string `json:"always"`       // the always run's
	Handler      string `json:"handler"`      // the function that handled the one-shot failure; "" when no instrumented caller did
	Distance     int    `json:"distance"`     // functions that passed it on before
	// Tests are every test the point ran with; Reached counts the tests
	// that reached it in their profile runs (more than len(Tests) when
	// the campaign bounded the tests per point).
	Tests   []*PerturbTest `json:"tests"`
	Reached int            `json:"tests_reached"`
	// OtherPath: a test's one-shot run reached the point through other
	// functions than its profile run: the workload does not run the same
	// way every time, and the class may change from one campaign to the
	// next.
	OtherPath   bool                `json:"other_path"`
	Improvement string              `json:"improvement"` // the best validated effect: "fragile → immunized", ""
	Reproduce   string              `json:"reproduce"`   // the one-shot run again
	ReproAlways string              `json:"reproduce_always"`
	Candidates  []*PerturbCandidate `json:"candidates,omitempty"`
}

// PerturbTest is what one test's runs of a point showed.
type PerturbTest struct {
	Package      string `json:"package"`
	Test         string `json:"test"`
	Class        string `json:"class"`
	Inconsistent bool   `json:"inconsistent"`
	OneShot      string `json:"one_shot"`
	Always       string `json:"always"`
	Handler      string `json:"handler"`
	Distance     int    `json:"distance"`
	// OtherPath: the one-shot run reached the point through other
	// functions than the profile run (see perturb.PointTest).
	OtherPath bool `json:"other_path"`
}

// PerturbCandidate is a failure-oblivious candidate of a point: a
// function that passed the failure on, and what wrapping it did in
// every test the point ran with.
type PerturbCandidate struct {
	Func string `json:"func"`
	Site string `json:"site"` // entry site ID, as ATOMICX_OBLIVIOUS takes it
	// OnlyAlways says that it passed on only the always run's failure:
	// the one-shot failure was handled before it.
	OnlyAlways bool `json:"only_always"`
	// Plain and Atomic are the point's class with the function made
	// failure-oblivious, and atomic failure-oblivious ("" not run).
	Plain  string `json:"plain"`
	Atomic string `json:"atomic"`
	// Works says which wrapping made the point better: "plain" (then
	// atomic too, or not: see Atomic), "only atomic", "none", or "not
	// run".
	Works string `json:"works"`
	// Swallowed counts the failures the wrappers swallowed in the
	// validating runs that ended by themselves, MaxSwallowed in the run
	// that swallowed the most (SwallowedUntilHung: a run swallowed
	// failures until it hit the time limit, and is not counted);
	// NotRolledBack the atomic wrapper's that it could not roll back.
	Swallowed     int `json:"swallowed"`
	MaxSwallowed  int `json:"max_swallowed"`
	NotRolledBack int `json:"not_rolled_back"`
	// SwallowedUntilHung: see Swallowed.
	SwallowedUntilHung bool `json:"swallowed_until_hung"`
	// Unchecked: a test passed with every reach of the point failing and
	// the wrapper swallowing the failures; it does not check what those
	// calls should have produced.
	Unchecked bool `json:"data_unchecked"`
	// Hazards say why the wrapper may do harm the tests do not show (a
	// flood of swallowed failures, a failed write, sync or close); a
	// hazardous candidate's improvement is counted apart.
	Hazards   []string `json:"hazards,omitempty"`
	Reproduce string   `json:"reproduce"` // the one-shot run with the atomic wrapper
}

// PerturbSummary counts the points by class and the improvements, as
// TripleAgent's tables do.
type PerturbSummary struct {
	Points       int            `json:"points"`
	ByClass      map[string]int `json:"by_class"`
	ByFault      map[string]int `json:"by_fault"` // points per fault injected there: error, or panic where no error can be
	Inconsistent int            `json:"inconsistent"`
	OtherPath    int            `json:"other_path"` // points a test reached by another path than in its profile run
	// Improved counts the points by their best validated improvement
	// ("fragile → sensitive", "fragile → immunized", "sensitive →
	// immunized").
	Improved map[string]int `json:"improved"`
	// ImprovedHazardous counts the points that only hazardous candidates
	// improve, by that improvement.
	ImprovedHazardous map[string]int `json:"improved_hazardous"`
	Candidates        int            `json:"candidates"`
	Hazardous         int            `json:"hazardous"` // candidates with hazards
	// WorkPlain and WorkOnlyAtomic count the candidates whose plain
	// wrapper improves their point, and those only the atomic one does.
	WorkPlain      int   `json:"work_plain"`
	WorkOnlyAtomic int   `json:"work_only_atomic"`
	ProfileRuns    int   `json:"profile_runs"`
	PointRuns      int   `json:"point_runs"`      // one-shot and always runs
	Validations    int   `json:"validation_runs"` // runs with a wrapper
	RunMs          int64 `json:"run_ms"`          // the runs' times, summed
	WallMs         int64 `json:"wall_ms"`
	Sessions       int   `json:"sessions"`
}

// The order of the classes in reports, worst first.
var perturbClasses = []string{perturb.Fragile, perturb.Sensitive, perturb.Immunized, perturb.PointNotInjected, perturb.PointNotRun}

// Perturbation reads a perturbation campaign's records into its report.
func Perturbation(recs []*campaign.Record, problems []campaign.Problem) *PerturbReport {
	h := campaign.HeaderOf(recs)
	r := &PerturbReport{Provenance: provenanceOf(h), header: h,
		Summary: PerturbSummary{ByClass: map[string]int{}, ByFault: map[string]int{}, Improved: map[string]int{}, ImprovedHazardous: map[string]int{}}}
	if h != nil {
		r.Plan, r.OneAtATime, r.TestsPerPoint = h.Plan, h.OneAtATime, perturb.TestsPerPoint(h.QuestionData)
	}
	for _, p := range problems {
		r.Problems = append(r.Problems, p.String())
	}
	for _, rec := range recs {
		switch {
		case rec.Kind == "profile":
			r.Summary.ProfileRuns++
		case rec.Kind == "experiment" && len(rec.Arming.Oblivious) > 0:
			r.Summary.Validations++
		case rec.Kind == "experiment":
			r.Summary.PointRuns++
		default:
			continue
		}
		r.Summary.RunMs += rec.Millis
	}
	r.Summary.WallMs, r.Summary.Sessions = wallTime(recs)
	for _, p := range perturb.PointsOf(recs) {
		r.Points = append(r.Points, r.point(p))
	}
	rank := map[string]int{}
	for i, c := range perturbClasses {
		rank[c] = i
	}
	sort.SliceStable(r.Points, func(i, j int) bool {
		a, b := r.Points[i], r.Points[j]
		if rank[a.Class] != rank[b.Class] {
			return rank[a.Class] < rank[b.Class]
		}
		return a.Pos < b.Pos || a.Pos == b.Pos && a.Site < b.Site
	})
	return r
}

func (r *PerturbReport) point(p *perturb.Point) *PerturbPoint {
	out := &PerturbPoint{Site: p.Site, Func: p.Func, Pos: p.Pos, Kind: "entry", Fault: p.Fault, Package: p.Package, Test: p.Test,
		Class: p.Class, Inconsistent: p.Inconsistent, Handler: p.Handler, Distance: p.Distance,
		OneShot: status(p.OneShot), Always: status(p.Always), Reached: p.Reached}
	if strings.Contains(p.Site, "#call:") {
		out.Kind = "call"
	}
	for _, t := range p.Tests {
		out.Tests = append(out.Tests, &PerturbTest{Package: t.Package, Test: t.Test, Class: t.Class, Inconsistent: t.Inconsistent,
			OneShot: status(t.OneShot), Always: status(t.Always), Handler: t.Monitor.Handler, Distance: t.Monitor.Distance,
			OtherPath: t.OtherPath})
		out.OtherPath = out.OtherPath || t.OtherPath
	}
	out.Reproduce = r.reproduce(p.OneShot)
	out.ReproAlways = r.reproduce(p.Always)
	s := &r.Summary
	s.Points++
	s.ByClass[p.Class]++
	s.ByFault[p.Fault]++
	if p.Inconsistent {
		s.Inconsistent++
	}
	if out.OtherPath {
		s.OtherPath++
	}
	best, bestHazardous := -1, -1
	for _, c := range p.Candidates {
		pc := &PerturbCandidate{Func: c.Func, Site: c.Site, OnlyAlways: c.OnlyAlways, Plain: c.Plain.Class, Atomic: c.Atomic.Class,
			Swallowed: c.Plain.Swallowed + c.Atomic.Swallowed, MaxSwallowed: max(c.Plain.MaxSwallowed, c.Atomic.MaxSwallowed),
			NotRolledBack: c.Atomic.NotRolledBack, SwallowedUntilHung: c.Plain.SwallowedUntilHung || c.Atomic.SwallowedUntilHung, Unchecked: c.Plain.Unchecked || c.Atomic.Unchecked, Hazards: c.Hazards,
			Reproduce: r.reproduce(c.Atomic.OneShot)}
		s.Candidates++
		if len(c.Hazards) > 0 {
			s.Hazardous++
		}
		switch {
		case c.Plain.Works(p.Class):
			pc.Works = "plain"
			s.WorkPlain++
		case c.Atomic.Works(p.Class):
			pc.Works = "only atomic"
			s.WorkOnlyAtomic++
		case c.Plain.Class == perturb.PointNotRun || c.Atomic.Class == perturb.PointNotRun:
			pc.Works = "not run"
		default:
			pc.Works = "none"
		}
		for _, v := range []perturb.Validation{c.Plain, c.Atomic} {
			switch {
			case !v.Works(p.Class):
			case len(c.Hazards) > 0:
				bestHazardous = max(bestHazardous, classIndex(v.Class))
			default:
				best = max(best, classIndex(v.Class))
			}
		}
		out.Candidates = append(out.Candidates, pc)
	}
	switch {
	case best >= 0:
		out.Improvement = p.Class + " → " + perturbClasses[best]
		s.Improved[out.Improvement]++
	case bestHazardous >= 0:
		// Never an improvement without its mark.
		improvement := p.Class + " → " + perturbClasses[bestHazardous]
		out.Improvement = improvement + " " + hazardousMark
		s.ImprovedHazardous[improvement]++
	}
	return out
}

// hazardousMark follows an improvement that only hazardous candidates
// make.
const hazardousMark = "(hazardous candidate only)"

func classIndex(c string) int {
	for i, k := range perturbClasses[:3] {
		if k == c {
			return i
		}
	}
	return -1
}

func status(r *campaign.Record) string {
	if r == nil {
		return ""
	}
	return r.Status
}

// reproduce is the command that runs a perturbation run again: its
// arming, then the test with atomicx go test, or the program workload's
// script. "" for a run not done.
func (r *PerturbReport) reproduce(rec *campaign.Record) string {
	if rec == nil {
		return ""
	}
	var words []string
	if h := r.header; h != nil && h.Policy != "" {
		words = append(words, "ATOMICX_POLICY="+shellQuote(h.Policy))
	}
	// Snapshots as a run by hand takes them: the run was armed without.
	a := perturb.PerturbArming(rec)
	a.Snapshots, a.Log = "", reproduceLog
	words = append(words, armingWords(a)...)
	if r.OneAtATime {
		words = append(words, "GOMAXPROCS=1")
	}
	if rec.Exec != "" {
		return strings.Join(append(words, "ATOMICX_BINARY="+shellQuote(rec.Binary), shellQuote(rec.Exec)), " ")
	}
	atomicx := "atomicx"
	var buildArgs []string
	if h := r.header; h != nil {
		atomicx, buildArgs = h.Atomicx, h.BuildArgs
	}
	words = append(words, shellQuote(atomicx), "go", "test", "-count=1")
	if r.OneAtATime {
		words = append(words, "-parallel=1")
	}
	for _, a := range buildArgs {
		words = append(words, shellQuote(a))
	}
	return strings.Join(append(words, "-run", "'^"+rec.Test+"$'", rec.Package), " ")
}

// WritePerturbJSON writes the report as one JSON document.
func WritePerturbJSON(w io.Writer, r *PerturbReport) error {
	doc := struct {
		Schema string `json:"schema"`
		*PerturbReport
	}{PerturbSchema, r}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WritePerturbText writes the points as file:line:col lines grouped by
// class, worst first, with their candidates and reproduce commands, then
// the summary table.
func WritePerturbText(w io.Writer, r *PerturbReport, locate Locator) {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	writeProvenance(w, r.Provenance)
	if r.Plan != "" {
		fmt.Fprintf(w, "plan %s\n\n", r.Plan)
	}
	for _, class := range perturbClasses {
		var pts []*PerturbPoint
		for _, p := range r.Points {
			if p.Class == class {
				pts = append(pts, p)
			}
		}
		if len(pts) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s (%d):\n", class, len(pts))
		for _, p := range pts {
			fmt.Fprintf(w, "%s: %s: %s\n", locate(p.Pos), pointName(p), pointText(p))
			if len(p.Tests) > 1 {
				for _, t := range p.Tests {
					fmt.Fprintf(w, "\t%s\n", testText(t))
				}
			}
			for _, c := range p.Candidates {
				fmt.Fprintf(w, "\tcandidate %s: %s\n", shortName(c.Func), candidateText(p, c))
			}
			if p.Class == perturb.Fragile || p.Class == perturb.Sensitive {
				repro := p.Reproduce
				if p.Class == perturb.Sensitive {
					repro = p.ReproAlways
				}
				fmt.Fprintf(w, "\treproduce: %s\n", repro)
			}
		}
		fmt.Fprintln(w)
	}
	writePerturbSummary(w, r)
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
}

func pointName(p *PerturbPoint) string {
	if p.Kind == "call" {
		return "call in " + shortName(p.Func)
	}
	return shortName(p.Func)
}

// pointText says what the runs of a point showed: those of its one
// test, or the class its tests give it, each test's runs following on
// lines of their own (testText).
func pointText(p *PerturbPoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", p.Fault, map[string]string{"entry": "at entry", "call": "of the call"}[p.Kind])
	if len(p.Tests) > 1 {
		fmt.Fprintf(&b, "; %s in %d tests", p.Class, len(p.Tests))
		if p.Reached > len(p.Tests) {
			fmt.Fprintf(&b, " of the %d that reach it", p.Reached)
		}
		switch p.Class {
		case perturb.Fragile, perturb.Sensitive:
			fmt.Fprintf(&b, " (%s)", p.Test)
		}
		if p.Improvement != "" {
			fmt.Fprintf(&b, "; %s with a failure-oblivious candidate", p.Improvement)
		}
		return b.String()
	}
	if p.Reached > len(p.Tests) {
		fmt.Fprintf(&b, "; 1 test of the %d that reach it", p.Reached)
	}
	switch p.Class {
	case perturb.PointNotInjected:
		fmt.Fprintf(&b, "; %s did not reach it again", p.Test)
		return b.String()
	case perturb.PointNotRun:
		fmt.Fprintf(&b, "; runs missing with %s", p.Test)
		return b.String()
	}
	fmt.Fprintf(&b, "; %s: %s once, %s always", p.Test, p.OneShot, p.Always)
	writeHandling(&b, p.Handler, p.Distance, p.Inconsistent, p.OtherPath)
	if p.Improvement != "" {
		fmt.Fprintf(&b, "; %s with a failure-oblivious candidate", p.Improvement)
	}
	return b.String()
}

const otherPathText = " (reached by another path than in its profile run)"

// testText says what one test's runs of a point showed.
func testText(t *PerturbTest) string {
	switch t.Class {
	case perturb.PointNotInjected:
		return t.Test + ": did not reach it again"
	case perturb.PointNotRun:
		return t.Test + ": runs missing"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s once, %s always", t.Test, t.Class, t.OneShot, t.Always)
	writeHandling(&b, t.Handler, t.Distance, t.Inconsistent, t.OtherPath)
	return b.String()
}

// writeHandling says where a point's failure was handled, how far from the
// point, and what made its runs doubtful.
func writeHandling(b *strings.Builder, handler string, distance int, inconsistent, otherPath bool) {
	if handler != "" {
		fmt.Fprintf(b, "; handled by %s", shortName(handler))
	} else {
		b.WriteString("; handled outside the instrumented code")
	}
	fmt.Fprintf(b, " at distance %d", distance)
	if inconsistent {
		b.WriteString(" (inconsistent: fails once, survives always)")
	}
	if otherPath {
		b.WriteString(otherPathText)
	}
}

func candidateText(p *PerturbPoint, c *PerturbCandidate) string {
	var b strings.Builder
	if c.OnlyAlways {
		b.WriteString("(passed on the lasting failure only) ")
	}
	b.WriteString(candidateEffect(p, c))
	if c.Works == "not run" {
		return b.String()
	}
	fmt.Fprintf(&b, "; swallowed %d failures (at most %d in one run)", c.Swallowed, c.MaxSwallowed)
	if c.SwallowedUntilHung {
		b.WriteString(" and more in runs that hit the time limit")
	}
	if c.Unchecked {
		b.WriteString("; a test passed with every reach failing: it does not check what the calls should have produced")
	}
	if len(c.Hazards) > 0 {
		fmt.Fprintf(&b, "; HAZARDOUS: %s", strings.Join(c.Hazards, "; "))
	}
	return b.String()
}

func candidateEffect(p *PerturbPoint, c *PerturbCandidate) string {
	switch c.Works {
	case "not run":
		return "validation runs missing"
	case "none":
		return fmt.Sprintf("no improvement (plain %s, atomic %s)", c.Plain, c.Atomic)
	case "only atomic":
		return fmt.Sprintf("%s → %s only atomic (plain %s)", p.Class, c.Atomic, c.Plain)
	}
	return fmt.Sprintf("%s → %s plain, %s atomic", p.Class, c.Plain, c.Atomic)
}

// writePerturbSummary writes the table of points per class and the
// improvements, and the runs.
func writePerturbSummary(w io.Writer, r *PerturbReport) {
	s := r.Summary
	fmt.Fprintf(w, "points: %d", s.Points)
	for _, c := range perturbClasses {
		fmt.Fprintf(w, ", %s %d", c, s.ByClass[c])
	}
	fmt.Fprintf(w, "; %d inconsistent\n", s.Inconsistent)
	if s.OtherPath > 0 {
		fmt.Fprintf(w, "%d points reached by another path than in their profile runs: the workload does not run the same way every time (a map's order, the clock, its own goroutines), and their classes may change from one campaign to the next\n", s.OtherPath)
	}
	fmt.Fprintf(w, "faults: error %d, panic %d (where no error can be injected)\n", s.ByFault["error"], s.ByFault["panic"])
	fmt.Fprintf(w, "improved by a failure-oblivious candidate: fragile → sensitive %d, fragile → immunized %d, sensitive → immunized %d\n",
		s.Improved["fragile → sensitive"], s.Improved["fragile → immunized"], s.Improved["sensitive → immunized"])
	if n := s.ImprovedHazardous; len(n) > 0 {
		fmt.Fprintf(w, "improved only by a hazardous candidate, not counted above: fragile → sensitive %d, fragile → immunized %d, sensitive → immunized %d\n",
			n["fragile → sensitive"], n["fragile → immunized"], n["sensitive → immunized"])
	}
	fmt.Fprintf(w, "candidates: %d, working plain %d, only atomic %d; hazardous %d\n", s.Candidates, s.WorkPlain, s.WorkOnlyAtomic, s.Hazardous)
	if s.Candidates > 0 {
		fmt.Fprintln(w, "a test that passes proves only what it checks: a candidate that makes the tests pass swallows failures, and what the failed calls should have written or produced may be lost where no test looks")
	}
	wall := "wall time not recorded"
	switch {
	case s.Sessions == 1:
		wall = "wall time " + durationText(s.WallMs)
	case s.Sessions > 1:
		wall = fmt.Sprintf("wall time %s summed over %d sessions", durationText(s.WallMs), s.Sessions)
	}
	fmt.Fprintf(w, "campaign: %d profile runs, %d point runs, %d validation runs; %s, run time %s (summed)\n",
		s.ProfileRuns, s.PointRuns, s.Validations, wall, durationText(s.RunMs))
	fmt.Fprintf(w, "%s\n", testsPerPointText(r.TestsPerPoint))
	if r.OneAtATime {
		fmt.Fprintln(w, "every run ran on one thread, a test's parallel subtests one at a time (GOMAXPROCS=1, -test.parallel=1): the first reach of a point is the same reach in every run")
	}
}

// testsPerPointText says which tests the points ran with.
func testsPerPointText(bound int) string {
	if bound > 0 {
		return fmt.Sprintf("each point ran with at most %d of the tests that reach it (-tests-per-point %d), those that reach the fewest points first; a class is the worst of those tests'", bound, bound)
	}
	return "each point ran with every test that reaches it; a class is the worst of their classes"
}

// perturbHTML is parsed on first use (see handlersPage).
var perturbHTML = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("perturb").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>atomicx perturb</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
.fragile{background:#fdd}.sensitive{background:#ffd}.immunized{background:#dfd}code{font-size:90%}</style></head><body>
<h1>Failure points</h1>
{{with .R.Provenance}}<p>atomicx {{.Atomicx}}, {{.Go}}, module {{.Module}}: <code>{{.Command}}</code>, {{.Date}}, journal {{.Journal}}</p>{{end}}
{{if .R.Plan}}<p>plan {{.R.Plan}}</p>{{end}}
<h2>Summary</h2>
<table><tr><th>points</th>{{range .Classes}}<th>{{.}}</th>{{end}}<th>inconsistent</th></tr>
<tr><td>{{.R.Summary.Points}}</td>{{range .Counts}}<td>{{.}}</td>{{end}}<td>{{.R.Summary.Inconsistent}}</td></tr></table>
<p>Improved by a failure-oblivious candidate: fragile → sensitive {{index .R.Summary.Improved "fragile → sensitive"}},
fragile → immunized {{index .R.Summary.Improved "fragile → immunized"}}, sensitive → immunized {{index .R.Summary.Improved "sensitive → immunized"}}.
Candidates: {{.R.Summary.Candidates}}, working plain {{.R.Summary.WorkPlain}}, only atomic {{.R.Summary.WorkOnlyAtomic}}, hazardous {{.R.Summary.Hazardous}}.
A test that passes proves only what it checks: a candidate that makes the tests pass swallows failures, and what the failed calls should have written or produced may be lost where no test looks.
Faults: error {{index .R.Summary.ByFault "error"}}, panic {{index .R.Summary.ByFault "panic"}} (where no error can be injected).</p>
<p>{{.R.Summary.ProfileRuns}} profile runs, {{.R.Summary.PointRuns}} point runs, {{.R.Summary.Validations}} validation runs; {{.TestsText}}.
{{if .R.OneAtATime}}Every run ran on one thread, a test's parallel subtests one at a time (GOMAXPROCS=1, -test.parallel=1).{{end}}</p>
<h2>Points</h2>
<table><tr><th>position</th><th>point</th><th>class</th><th>test</th><th>one-shot</th><th>always</th><th>handler</th><th>distance</th><th>candidates</th></tr>
{{range .Points}}<tr class="{{.P.Class}}"><td>{{.Pos}}</td><td><code>{{.P.Func}}</code> ({{.P.Kind}}, {{.P.Fault}})</td><td>{{.P.Class}}{{if .P.Inconsistent}} (inconsistent){{end}}</td>
<td>{{range .P.Tests}}{{.Test}}: {{.Class}}<br>{{end}}{{if gt .P.Reached (len .P.Tests)}}({{len .P.Tests}} of {{.P.Reached}} tests){{end}}</td><td>{{.P.OneShot}}</td><td>{{.P.Always}}</td><td>{{if .P.Handler}}<code>{{.P.Handler}}</code>{{else}}outside the instrumented code{{end}}</td><td>{{.P.Distance}}</td>
<td>{{range .P.Candidates}}<code>{{.Func}}</code>: plain {{.Plain}}, atomic {{.Atomic}} ({{.Works}}), swallowed {{.Swallowed}}{{if .Unchecked}}, data unchecked{{end}}{{range .Hazards}}<br><b>hazardous</b>: {{.}}{{end}}<br>{{end}}{{if .P.Improvement}}<b>{{.P.Improvement}}</b>{{end}}</td></tr>
{{end}}</table>
</body></html>
`))
})

// WritePerturbHTML writes the report as one self-contained page.
func WritePerturbHTML(w io.Writer, r *PerturbReport, locate Locator) error {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	type row struct {
		P   *PerturbPoint
		Pos string
	}
	data := struct {
		R         *PerturbReport
		Classes   []string
		Counts    []int
		Points    []row
		TestsText string
	}{R: r, Classes: perturbClasses, TestsText: testsPerPointText(r.TestsPerPoint)}
	for _, c := range perturbClasses {
		data.Counts = append(data.Counts, r.Summary.ByClass[c])
	}
	for _, p := range r.Points {
		data.Points = append(data.Points, row{p, locate(p.Pos)})
	}
	return perturbHTML().Execute(w, data)
}

var perturbRules = []sarifRule{
	{
		ID:               "atomicx/fragile-point",
		Name:             "FragileFailurePoint",
		ShortDescription: sarifText{"The workload does not survive one failure here"},
		FullDescription: sarifText{"A failure injected once at this point (an error returned, or a panic) made the test fail, " +
			"crash or hang: nothing between the point and the test handles it in a way the test accepts."},
		Help: sarifHelp{
			Text:     "Handle the failure closer to where it happens (retry, fall back, or report it without stopping), or make a function it goes through failure-oblivious where the report shows that this works.",
			Markdown: "Handle the failure closer to where it happens (retry, fall back, or report it without stopping), or make a function it goes through failure-oblivious where the report shows that this works.",
		},
		HelpURI:              InformationURI + "#perturbation-campaigns-atomicx-perturb",
		DefaultConfiguration: sarifConfiguration{"warning"},
		Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling", "resilience"}, Precision: "high", Severity: "warning"},
	},
	{
		ID:               "atomicx/sensitive-point",
		Name:             "SensitiveFailurePoint",
		ShortDescription: sarifText{"The workload survives one failure here, not a lasting one"},
		FullDescription:  sarifText{"The test passed with one failure injected at this point, and failed, crashed or hung when every reach of it failed."},
		Help: sarifHelp{
			Text:     "A lasting failure here (a full disk, a dead connection) stops the workload: see whether it should degrade instead.",
			Markdown: "A lasting failure here (a full disk, a dead connection) stops the workload: see whether it should degrade instead.",
		},
		HelpURI:              InformationURI + "#perturbation-campaigns-atomicx-perturb",
		DefaultConfiguration: sarifConfiguration{"note"},
		Properties:           sarifRuleProps{Tags: []string{"reliability", "error-handling", "resilience"}, Precision: "high", Severity: "recommendation"},
	},
}

// PerturbFingerprint is the partialFingerprints key of a point's result.
const PerturbFingerprint = "atomicxPoint/v1"

// WritePerturbSARIF writes the fragile and sensitive points as a SARIF
// 2.1.0 log, located as WriteSARIF locates functions.
func WritePerturbSARIF(w io.Writer, r *PerturbReport, locate Locator, opt SARIFOptions, roots ...SourceRoot) error {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	used := map[string]sarifURIBase{}
	results := []sarifResult{}
	for _, p := range r.Points {
		i := map[string]int{perturb.Fragile: 0, perturb.Sensitive: 1}[p.Class]
		if p.Class != perturb.Fragile && p.Class != perturb.Sensitive {
			continue
		}
		msg := fmt.Sprintf("%s %s: %s", pointName(p), pointText(p), p.Reproduce)
		if p.Class == perturb.Sensitive {
			msg = fmt.Sprintf("%s %s: %s", pointName(p), pointText(p), p.ReproAlways)
		}
		results = append(results, sarifResult{
			RuleID: perturbRules[i].ID, RuleIndex: i, Level: perturbRules[i].DefaultConfiguration.Level,
			Message:             sarifText{msg},
			Locations:           []sarifLocation{sarifLocate(&Function{Name: p.Func, Pos: p.Pos}, locate, roots, used)},
			PartialFingerprints: map[string]string{PerturbFingerprint: p.Site},
		})
	}
	return writeSARIFLog(w, opt, sarifEnvelope{question: perturb.Perturb.Name, rules: perturbRules, used: used, prov: r.Provenance, wallMs: r.Summary.WallMs}, results)
}
