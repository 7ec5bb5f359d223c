package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/coverage"
	"github.com/atomicx/atomicx/internal/funcname"
	"github.com/atomicx/atomicx/question/detect"
	"github.com/atomicx/atomicx/rt/arm"
)

// Verdicts of functions and types.
const (
	Pure      = "pure non-atomic"
	Dependent = "dependent non-atomic"
	Atomic    = "atomic"
	Unknown   = "unknown" // no failed call compared: see the kinds below
)

// What the failed calls of a non-atomic function changed, from the most
// visible to a caller to the least (Function.Visibility).
const (
	// CallerVisible: state the caller holds through the receiver and the
	// arguments, other than stream positions and scratch fields.
	CallerVisible = "caller-visible"
	// Stream: only the inside of readers and writers the function reads
	// from or writes to: consumed input, partial output.
	Stream = "stream"
	// Scratch: only fields the policy declares scratch.
	Scratch = "scratch"
	// Normalization: only nil slices or maps made empty ones, or the
	// other way (a constructor that replaces a nil slice by an empty one
	// before the failure): only a caller that compares them with nil
	// sees it.
	Normalization = "normalization"
)

// visibilityRank orders visibilities, most visible first. A verdict event
// written before the runtime told them apart counts as caller-visible.
func visibilityRank(v string) int {
	switch v {
	case Stream:
		return 1
	case Scratch:
		return 2
	case Normalization:
		return 3
	}
	return 0
}

// Kinds of unknown verdicts (Function.UnknownKind).
const (
	CannotFail     = "cannot fail"      // no error result, and panics are not injected into it
	NotMadeToFail  = "not made to fail" // reached, but no failed call of it was seen
	NotSnapshotted = "not snapshotted"  // its failed calls were not snapshotted
	OverBudget     = "over budget"      // its failed calls' graphs were over the snapshot budget
)

// UnknownKinds lists the kinds of unknown verdicts in the order reports
// show them.
var UnknownKinds = []string{CannotFail, NotMadeToFail, NotSnapshotted, OverBudget}

// Evidence is one failed call that shows a function non-atomic: the first
// path that differs, and how to make it happen again.
type Evidence struct {
	Path      string `json:"path"`
	Before    string `json:"before"`
	After     string `json:"after"`
	Changes   string `json:"changes,omitempty"`   // what the path leads into: caller-visible, stream or scratch
	Failure   string `json:"failure"`             // error or panic
	Error     string `json:"error,omitempty"`     // the error's text
	Package   string `json:"package"`             // the test's package
	Test      string `json:"test"`                // the test that showed it ("exec" for a program workload)
	Exec      string `json:"exec,omitempty"`      // the program workload's script
	Binary    string `json:"binary,omitempty"`    // the program workload's instrumented binary
	Injection string `json:"injection,omitempty"` // FAULT:OCCURRENCE:SITE armed, "" for a natural failure
	Mask      string `json:"mask,omitempty"`      // functions rolled back in the replay that showed it (ATOMICX_MASK)
	Reproduce string `json:"reproduce"`           // one command that shows it again
	// AtomicxReproduce is the atomicx reproduce command that runs it
	// again as the campaign did: same policy, build flags and binary.
	AtomicxReproduce string `json:"atomicx_reproduce,omitempty"`
	// CallSite is the position of the call, in instrumented code, whose
	// injected fault started the failure; "" for a fault at a function's
	// entry or a natural failure.
	CallSite string `json:"call_site,omitempty"`
	// EndLine is the line, in the function's file, of the return
	// statement that ended the failing call, or of the function's frame
	// when a panic ended it; 0 when the runtime did not say.
	EndLine int `json:"end_line,omitempty"`
	// Callback names the function value, passed in by the function's
	// caller, that made the change while the function changed nothing
	// itself (d.config.DecodeHook); "" for the function's own change.
	Callback string `json:"callback,omitempty"`

	first bool // the failed call was non-atomic by itself
	// batched says that a batch of experiments found it, in a process
	// that ran other experiments of the test before (and no fresh
	// process confirmed it: see campaign.Record.Fresh).
	batched bool
	// inject is the fault that Injection writes out; zero for a natural
	// failure.
	inject arm.Injection
}

// injected records that a run with inj armed gave the evidence.
func (e *Evidence) injected(inj arm.Injection) {
	e.inject, e.Injection = inj, inj.String()
}

// Arming is the arming of the run that gave the evidence, as far as a
// run again needs it: its fault and the functions it rolled back, whose
// writes to files were undone with their memory, as the campaign's
// recheck did them (see detect's planner).
func (e *Evidence) Arming() arm.Arming {
	mask := arm.SplitIDs(e.Mask)
	return arm.Arming{Inject: e.inject, Mask: mask, UndoFiles: mask}
}

// OutsideWrite is a call that wrote outside memory inside a failed call.
type OutsideWrite struct {
	Call string `json:"call"`           // the callee: "(*os.File).Write", "os.Rename"
	File string `json:"file,omitempty"` // the file it wrote to, when known
	Pos  string `json:"pos"`            // of the call: import path/file.go:line:col
}

// Function is what the campaign learnt about one function.
type Function struct {
	Name    string `json:"-"`   // runtime.Func.Name() form
	Pos     string `json:"pos"` // import path/file.go:line:col
	Verdict string `json:"verdict"`
	// Visibility, for a non-atomic function, is the most visible kind of
	// state that its failed calls changed: CallerVisible, Stream or
	// Scratch. Its evidence shows a change of that kind.
	Visibility string `json:"visibility,omitempty"`
	// UnknownKind says, for an unknown verdict, which kind of unknown it
	// is: CannotFail, NotMadeToFail, NotSnapshotted or OverBudget.
	UnknownKind string `json:"unknown_kind,omitempty"`
	// UnknownReason says, for NotMadeToFail, why no injection made it fail.
	UnknownReason string `json:"unknown_reason,omitempty"`

	Reached          int `json:"reached"`           // profile runs that reached its entry
	Failures         int `json:"failures"`          // failed calls seen
	NaturalFailures  int `json:"natural_failures"`  // in runs of failures that were not injected
	InjectedFailures int `json:"injected_failures"` // propagating an injected fault
	NonAtomic        int `json:"non_atomic"`        // failed calls that changed the graph
	FirstInChain     int `json:"first_in_chain"`    // times it was the first non-atomic call of a failure's propagation
	// PureWhenMasked counts its non-atomic failed calls that were
	// non-atomic by themselves: nothing non-atomic ran inside them, or
	// they stayed non-atomic when replayed with the non-atomic functions
	// that ran inside them masked. One makes the function pure.
	PureWhenMasked int `json:"pure_when_masked"`
	// DependentWhenMasked counts its non-atomic failed calls that were
	// atomic when replayed with the non-atomic functions that ran inside
	// them masked.
	DependentWhenMasked int `json:"dependent_when_masked"`
	// PracticalRule, when set, says why its verdict rests on the practical
	// rule (pure when it was the first non-atomic call of a failure's
	// propagation, else dependent) rather than on replays.
	PracticalRule  string `json:"practical_rule,omitempty"`
	TooLarge       int    `json:"too_large"`       // failed calls whose graph was over the snapshot budget
	NotSnapshotted int    `json:"not_snapshotted"` // failed calls the profile run did not foresee on the stack
	// NoSnapshot counts failed calls that are never snapshotted because
	// reading their graph could race with the program (the function takes
	// a lock other than by the lock idiom); NoSnapshotReason says why.
	NoSnapshot       int    `json:"no_snapshot"`
	NoSnapshotReason string `json:"no_snapshot_reason,omitempty"`
	// UnnumberedFailures counts the natural failures that its profile
	// runs saw past the calls they number (a function's first 65536):
	// no run can snapshot them, so they have no verdict and are not among
	// Failures. A function without an error result is not traced past
	// them: a panic that goes through such a call counts only for the
	// traced calls it goes through further out.
	UnnumberedFailures int `json:"unnumbered_failures,omitempty"`

	// InjectionsInto counts experiments whose fault was injected at its
	// entry (its callers then fail without it running).
	InjectionsInto int `json:"injections_into"`
	// FalseNegatives counts, for a non-atomic function, the failed calls
	// that still compared equal: the paper's false negatives, failures
	// that did not expose the function's non-atomicity.
	FalseNegatives int       `json:"false_negatives"`
	Evidence       *Evidence `json:"evidence,omitempty"`
	// DependsOn names, for a dependent function, the non-atomic functions
	// that failed inside its non-atomic calls: fixing or masking them
	// makes it atomic.
	DependsOn []string `json:"depends_on,omitempty"`

	// AsWritten says that detection compiled the function as written,
	// having checked at build time that no failure can leave a change
	// behind (no error result, no panic injected, nothing called, one
	// change at most, made last): it is atomic without a test making it
	// fail, and has no injection point or snapshot.
	AsWritten bool `json:"as_written,omitempty"`

	// In is, for a function literal, what it is written in: a function
	// ("(*Store).Put") or package-level variables ("save"). Name stays
	// the runtime's ("example.com/m.init.func1").
	In string `json:"in,omitempty"`

	// WroteOutside is, when failed calls of the function (or of its
	// callees, inside them) wrote outside memory before failing — to a
	// file, a connection, another process — the first such write of the
	// first of them: a rollback of memory cannot undo it, so masking the
	// function would put its memory and the file out of step.
	// WroteOutsideCalls counts those failed calls.
	WroteOutside      *OutsideWrite `json:"wrote_outside,omitempty"`
	WroteOutsideCalls int           `json:"wrote_outside_calls,omitempty"`

	maskedEvidence *Evidence       // the first replay that found it pure
	inside         map[string]bool // non-atomic functions that failed inside its non-atomic calls
	// non-atomic failed calls that replays did not settle
	overBound, noAnswer, unsettled int

	// Its entry is an injection point (canFail), or it was logged as a
	// function whose entry is none (enterOnly).
	canFail, enterOnly bool
	// wholeType: it is a method, and every method of its receiver type
	// was left as written (AsWritten).
	wholeType bool
}

// Type is the verdict of a type, from those of its methods. A type is
// atomic only when every method seen is atomic: one method never seen
// failing (unknown) makes the type unknown, since the campaign cannot
// vouch for it. A non-atomic method makes it non-atomic whatever the
// others are.
type Type struct {
	Name      string   `json:"-"`
	Verdict   string   `json:"verdict"`
	Methods   []string `json:"methods"`
	Pure      int      `json:"pure"`
	Dependent int      `json:"dependent"`
	Atomic    int      `json:"atomic"`
	Unknown   int      `json:"unknown"`
	// CannotFail counts the methods that no fault can make fail (no
	// error result, panics not injected): they leave a type's verdict as
	// its other methods make it, as they cannot leave it half updated.
	CannotFail int `json:"cannot_fail"`
	// AsWritten counts the methods among Atomic that were left as
	// written (Function.AsWritten). Being listed without a test reaching
	// them, they make the type atomic only when every method of it is
	// one (wholeAsWritten): else an untested method could be missing.
	AsWritten      int `json:"as_written,omitempty"`
	wholeAsWritten bool
}

// Summary counts what a campaign did. Runs are of four kinds, named the
// same on stderr and in every format: profile runs (one per test, nothing
// injected), natural reruns (a test rerun to snapshot the failures its
// profile run saw), experiments (one fault injected) and rechecks (an
// experiment replayed with non-atomic callees masked).
type Summary struct {
	Packages    int `json:"packages"`
	Tests       int `json:"tests"`
	ProfileRuns int `json:"profile_runs"`
	NaturalRuns int `json:"natural_runs"` // reruns of a test to snapshot the failures its profile run saw
	Rechecks    int `json:"rechecks"`     // replays of a failure with the non-atomic functions that ran inside it masked
	Experiments int `json:"experiments"`
	Fired       int `json:"fired"` // experiments in which the armed fault was injected
	// The outcome of each experiment, one of: the test failed (the
	// expected outcome of an injected fault; an injected panic that the
	// test does not recover included, since the testing package reports
	// the test failed before it stops), the test passed (the fault was
	// handled, or not injected), absorbed (ended early, without a test
	// verdict, once the failure stopped propagating), a hang (over the
	// time limit), a crash (the binary died without a test verdict: a
	// fatal error, os.Exit, a panic on a goroutine of its own) or not
	// started (the run could not be started).
	TestFailed int `json:"test_failed"`
	TestPassed int `json:"test_passed"`
	Absorbed   int `json:"absorbed"`
	Timeouts   int `json:"timeouts"`
	Crashed    int `json:"crashed"`
	NotStarted int `json:"not_started,omitempty"`
	// ExperimentsMs is the time of the experiments summed: with several
	// jobs it exceeds the wall time.
	ExperimentsMs int64 `json:"experiments_ms"`
	// WallMs is the campaign's wall time, from the start of each detect
	// command (or plan, or shard's run) to the end of its last run,
	// summed over the Sessions that made the journal (more than one when
	// a campaign was resumed or sharded); 0 for a journal that did not
	// record it.
	WallMs   int64 `json:"wall_ms"`
	Sessions int   `json:"sessions"`
	// AsWritten counts the atomic functions that were left as written
	// (Function.AsWritten): atomic by a check at build time, not by a
	// failed call compared.
	AsWritten int `json:"as_written,omitempty"`
	// UnknownKinds counts the functions of each kind of unknown verdict.
	UnknownKinds map[string]int `json:"unknown_kinds,omitempty"`
	// InBatches counts the experiments run in batches, many of a test in
	// one process, and Confirmed those a batch ran that ran again, each
	// in a fresh process, to confirm what the report shows of them;
	// FellBack are the tests ("package Test") whose batches a fresh
	// process did not confirm, whose experiments all ran again, a
	// process each (see campaign.Planner.InProcess).
	InBatches    int      `json:"in_batches,omitempty"`
	Confirmed    int      `json:"confirmed,omitempty"`
	FellBack     []string `json:"fell_back,omitempty"`
	FellBackRuns int      `json:"fell_back_runs,omitempty"`
}

// Report is the classification of a campaign.
type Report struct {
	Provenance *Provenance          `json:"provenance,omitempty"` // what produced it; nil for an old journal
	Plan       string               `json:"plan,omitempty"`       // the ID of the plan the campaign ran (see campaign.Header)
	Functions  map[string]*Function `json:"functions"`
	Types      map[string]*Type     `json:"types"`
	Summary    Summary              `json:"summary"`
	// Findings are the non-atomic functions in the order a reader should
	// take them: caller-visible changes first, then stream positions,
	// scratch and normalizations; pure before dependent; then by the
	// strength of their evidence (evidenceRank); then by position.
	Findings []string `json:"findings,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// Crashes are the ways the test binary died in experiments, most
	// frequent first.
	Crashes []*Crash `json:"crashes,omitempty"`
	// Coverage is what the tests alone ran against what the tests plus
	// injection ran, for a campaign run with -cover; nil otherwise.
	Coverage *coverage.Model `json:"coverage,omitempty"`
}

// event is the part of the runtime's events the report reads.
type event struct {
	Event      string `json:"event"`
	Kind       string `json:"kind"` // of an injection point: entry or call
	Site       string `json:"site"`
	Func       string `json:"func"`
	Pos        string `json:"pos"`
	Verdict    string `json:"verdict"`
	Reason     string `json:"reason"`
	Failure    string `json:"failure"`
	Path       string `json:"path"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Error      string `json:"error"`
	Injected   bool   `json:"injected"`
	First      bool   `json:"first"`
	Masked     bool   `json:"masked"`
	Seq        uint64 `json:"seq"`        // 0: the verdict does not say where its call ran
	Faults     uint64 `json:"faults"`     // of a reach event
	Occurrence uint64 `json:"occurrence"` // of a reach event
	Stack      string `json:"stack"`      // of a reach event: calls in progress, "N@SITE;..."
	Changes    string `json:"changes"`
	Chain      uint64 `json:"chain"`
	End        int    `json:"end"` // line of the return or panic that ended the call
	In         string `json:"in"`
	// Of a non-atomic verdict: the callback that the change came
	// through, when the call changed nothing itself.
	Callback string `json:"callback"`
	// Of a verdict: the first write outside memory made inside the call,
	// its file when known, and its position.
	Wrote   string `json:"wrote"`
	WroteTo string `json:"wrote_to"`
	WroteAt string `json:"wrote_at"`

	// Of a fail event: the call came after the ones the profile run
	// numbers (see campaign's event).
	BeyondCall uint64 `json:"beyond_call"`
	// Of an as_written event: every method of the function's receiver
	// type was left as written.
	WholeType bool `json:"whole_type"`
}

// unprofiledProblem says that a test failed its profile run, so that no
// experiment ran it: the functions only it reaches are missing from the
// report, and a reader must know why.
func unprofiledProblem(rec *campaign.Record) string {
	s := fmt.Sprintf("%s %s: %s in its profile run, so no experiment runs it", rec.Package, rec.Test, rec.Status)
	if died := rec.Died; died != "" {
		s += " (" + died + ")"
	}
	return s
}

// Classify builds the report of a campaign's records.
func Classify(recs []*campaign.Record, problems []campaign.Problem) *Report {
	r := &Report{Functions: map[string]*Function{}, Types: map[string]*Type{}}
	for _, p := range problems {
		r.Problems = append(r.Problems, p.String())
	}
	pkgs, tests := map[string]bool{}, map[string]bool{}
	hdr := campaign.HeaderOf(recs)
	r.Provenance = provenanceOf(hdr)
	if hdr != nil {
		r.Plan = hdr.Plan
	}
	r.Crashes = crashes(recs, hdr)
	blame := detect.NewBlame(recs)
	inside := r.pointsInside(recs)
	var unprofiled []string
	for _, rec := range recs {
		if rec.Kind == "campaign" {
			continue
		}
		pkgs[rec.Package] = true
		tests[rec.Package+"\x00"+rec.Test] = true
		switch rec.Kind {
		case "profile":
			r.Summary.ProfileRuns++
			if rec.Status != campaign.Passed {
				unprofiled = append(unprofiled, unprofiledProblem(rec))
			}
		case "natural":
			r.Summary.NaturalRuns++
		case "recheck":
			r.Summary.Rechecks++
			continue // read through blame
		default:
			r.countExperiment(rec)
		}
		asks := map[int]detect.Failure{}
		for _, f := range detect.Failures(rec) {
			asks[f.Event] = f
		}
		reached := map[string]bool{}
		// The non-atomic calls of each failure chain so far: a failed
		// call's chain holds the failures that happened inside it.
		inside := map[uint64][]string{}
		for i, raw := range rec.Events {
			var e event
			if json.Unmarshal(raw, &e) != nil || e.Func == "" {
				continue
			}
			if e.Event == "as_written" {
				// Listed when its package was initialized: the verdict
				// was settled at build time.
				f := r.function(e.Func, e.Pos)
				f.AsWritten, f.wholeType = true, e.WholeType
				continue
			}
			if e.Event == "fail" && e.BeyondCall != 0 {
				// A natural failure that no run can snapshot: say so
				// rather than let the function look as if it never
				// failed by itself.
				r.function(e.Func, e.Pos).UnnumberedFailures++
				continue
			}
			if e.Event != "reach" && e.Event != "enter" && e.Event != "inject" && e.Event != "verdict" {
				continue // absorbed, fail, problem: about runs, not functions
			}
			if e.Reason == reasonBeforeFault {
				continue // a natural failure that the profile run saw; only blame reads it
			}
			f := r.function(e.Func, e.Pos)
			if e.In != "" {
				f.In = e.In
			}
			switch e.Event {
			case "reach", "enter":
				if rec.Kind == "profile" && !reached[e.Func] {
					reached[e.Func] = true
					f.Reached++
				}
				if e.Event == "enter" {
					f.enterOnly = true
				} else if e.Site == e.Func+"#entry" && e.Faults != 0 {
					f.canFail = true
				}
			case "inject":
				if e.Kind == "entry" {
					f.InjectionsInto++
				}
			case "verdict":
				pure := false
				if e.Verdict == "non-atomic" && !e.Masked {
					pure = r.blame(f, e, rec, asks, i, blame)
				}
				r.addVerdict(f, e, rec, pure)
				if e.Verdict == "non-atomic" && !e.Masked && e.Chain != 0 {
					f.noteInside(inside[e.Chain])
					inside[e.Chain] = append(inside[e.Chain], e.Func)
				}
			}
		}
	}
	// In the order of the tests, not of the journal: the same report
	// whatever -jobs was.
	sort.Strings(unprofiled)
	r.Problems = append(r.Problems, unprofiled...)
	r.Summary.Packages, r.Summary.Tests = len(pkgs), len(tests)
	r.Summary.WallMs, r.Summary.Sessions = wallTime(recs)
	for _, f := range r.Functions {
		compared := f.Failures - f.TooLarge - f.NotSnapshotted - f.NoSnapshot
		if f.NonAtomic > 0 {
			f.FalseNegatives = compared - f.NonAtomic
		}
		if f.maskedEvidence != nil && (f.Evidence == nil ||
			!f.Evidence.first && visibilityRank(f.maskedEvidence.Changes) <= visibilityRank(f.Evidence.Changes) &&
				(f.Evidence.Callback != "" || f.maskedEvidence.Callback == "")) {
			// No call was non-atomic by itself in a plain run: the replay
			// is what shows it (unless it shows a less visible change).
			f.Evidence = f.maskedEvidence
		}
		switch {
		case f.NonAtomic > 0 && f.PureWhenMasked > 0:
			f.Verdict = Pure
		case f.NonAtomic > 0 && f.DependentWhenMasked == 0 && f.overBound+f.noAnswer+f.unsettled > 0:
			f.Verdict = Dependent
			if f.FirstInChain > 0 {
				f.Verdict = Pure
			}
			f.PracticalRule = practicalRule(f)
		case f.NonAtomic > 0:
			f.Verdict = Dependent
		case compared > 0:
			f.Verdict = Atomic
		case f.AsWritten:
			f.Verdict = Atomic
			r.Summary.AsWritten++
		default:
			f.Verdict = Unknown
			f.UnknownKind, f.UnknownReason = unknownKind(f, inside[f.Name])
			if r.Summary.UnknownKinds == nil {
				r.Summary.UnknownKinds = map[string]int{}
			}
			r.Summary.UnknownKinds[f.UnknownKind]++
		}
		if f.Verdict != Pure && f.Verdict != Dependent {
			f.Visibility = ""
		}
	}
	for _, f := range r.Functions {
		if f.Verdict != Dependent {
			continue
		}
		for name := range f.inside {
			if g := r.Functions[name]; name != f.Name && g != nil && (g.Verdict == Pure || g.Verdict == Dependent) {
				f.DependsOn = append(f.DependsOn, name)
			}
		}
		sort.Strings(f.DependsOn)
	}
	r.classifyTypes()
	for _, f := range Findings(r) {
		r.Findings = append(r.Findings, f.Name)
	}
	for name, f := range r.Functions {
		if f.Evidence != nil {
			f.Evidence.Reproduce = reproduce(f.Evidence, hdr)
			f.Evidence.AtomicxReproduce = atomicxReproduce(name, hdr)
		}
	}
	return r
}

// noteInside records the non-atomic calls that failed inside one of f's
// non-atomic calls.
func (f *Function) noteInside(names []string) {
	for _, name := range names {
		if f.inside == nil {
			f.inside = map[string]bool{}
		}
		f.inside[name] = true
	}
}

// Findings returns the non-atomic functions of the report in the order
// of Report.Findings.
func Findings(r *Report) []*Function {
	var fns []*Function
	for _, f := range r.Functions {
		if f.Verdict == Pure || f.Verdict == Dependent {
			fns = append(fns, f)
		}
	}
	sort.Slice(fns, func(i, j int) bool {
		a, b := fns[i], fns[j]
		if ra, rb := visibilityRank(a.Visibility), visibilityRank(b.Visibility); ra != rb {
			return ra < rb
		}
		if a.Verdict != b.Verdict {
			return a.Verdict == Pure
		}
		if ra, rb := evidenceRank(a), evidenceRank(b); ra != rb {
			return ra < rb
		}
		if ka, kb := posKey(a.Pos), posKey(b.Pos); ka != kb {
			return ka < kb
		}
		return a.Name < b.Name
	})
	return fns
}

// evidenceRank orders findings of one visibility and verdict by the
// strength of their evidence (betterEvidence): a change the function made
// itself before one that came through a callback only, the function's own
// change before one made after a callee failed, then by the failure that
// showed it (failureRank).
func evidenceRank(f *Function) int {
	e := f.Evidence
	if e == nil {
		return 12
	}
	rank := failureRank(e)
	if !e.first {
		rank += 3
	}
	if e.Callback != "" {
		rank += 6
	}
	return rank
}

// injection counts, for a function, the points reached with a call of it
// on the stack, and the experiments that armed one of them.
type injection struct{ points, armed, fired, crashed int }

// pointsInside reads the profile runs' reach events (the calls on the
// stack at each point) and the experiments: which points could make each
// function fail, and whether experiments armed and fired them.
func (r *Report) pointsInside(recs []*campaign.Record) map[string]*injection {
	out := map[string]*injection{}
	stacks := map[string][]string{} // package, test, site, occurrence → functions on the stack
	get := func(fn string) *injection {
		if out[fn] == nil {
			out[fn] = &injection{}
		}
		return out[fn]
	}
	for _, rec := range recs {
		if rec.Kind != "profile" {
			continue
		}
		for _, raw := range rec.Events {
			var e event
			if !campaign.MayBeEvent(raw, "reach") || json.Unmarshal(raw, &e) != nil || e.Event != "reach" || e.Stack == "" {
				continue
			}
			var fns []string
			seen := map[string]bool{}
			for _, call := range strings.Split(e.Stack, ";") {
				_, site, _ := strings.Cut(call, "@")
				fn, ok := strings.CutSuffix(site, "#entry")
				if ok && !seen[fn] {
					seen[fn] = true
					fns = append(fns, fn)
					get(fn).points++
				}
			}
			stacks[fmt.Sprintf("%s\x00%s\x00%s\x00%d", rec.Package, rec.Test, e.Site, e.Occurrence)] = fns
		}
	}
	for _, rec := range recs {
		if rec.Kind != "experiment" {
			continue
		}
		for _, fn := range stacks[fmt.Sprintf("%s\x00%s\x00%s\x00%d", rec.Package, rec.Test, rec.Arming.Inject.Site, rec.Arming.Inject.Occurrence)] {
			in := get(fn)
			in.armed++
			if rec.Fired {
				in.fired++
				if rec.Status == campaign.Crashed {
					in.crashed++
				}
			}
		}
	}
	return out
}

// unknownKind says which kind of unknown f's verdict is, and for
// NotMadeToFail, why.
func unknownKind(f *Function, in *injection) (kind, reason string) {
	switch {
	case f.Failures > 0 && f.TooLarge >= f.NotSnapshotted+f.NoSnapshot:
		return OverBudget, ""
	case f.Failures > 0:
		return NotSnapshotted, ""
	case f.enterOnly && !f.canFail:
		return CannotFail, ""
	}
	if in == nil {
		in = &injection{}
	}
	switch {
	case in.points == 0:
		return NotMadeToFail, "no injection point was reached while a call of it was running"
	case in.armed == 0:
		return NotMadeToFail, fmt.Sprintf("%d injection points were reached inside it, but no experiment armed one (the tests that reach them fail without a fault, or were not run)", in.points)
	case in.fired == 0:
		return NotMadeToFail, fmt.Sprintf("%d experiments armed a point inside it, but the fault never fired (the runs took another path than the profile run)", in.armed)
	}
	switch {
	case in.crashed == in.fired:
		return NotMadeToFail, fmt.Sprintf("%d faults fired inside it; the test binary crashed each time before it could end (see crashes)", in.fired)
	case in.crashed > 0:
		return NotMadeToFail, fmt.Sprintf("%d faults fired inside it; the test binary crashed %d times before it could end (see crashes), and it handled the others without failing", in.fired, in.crashed)
	}
	return NotMadeToFail, fmt.Sprintf("%d faults fired inside it; it handled every one without failing", in.fired)
}

// blame settles whether the non-atomic failed call of f that the
// verdict event e (the ith event of rec) reports was non-atomic by itself,
// and reports whether it was (a replay that shows it becomes f's evidence
// when no plain run does).
func (r *Report) blame(f *Function, e event, rec *campaign.Record, asks map[int]detect.Failure, i int, b *detect.Blame) bool {
	q, asked := asks[i]
	switch {
	case !asked && e.Seq != 0:
		f.PureWhenMasked++ // nothing non-atomic ran inside it
		return true
	case !asked:
		f.noAnswer++ // the verdict does not say where its call ran
		return false
	}
	what, replay, at := b.Resolve(q)
	switch what {
	case detect.OutcomePure:
		f.PureWhenMasked++
		if replay != nil && f.maskedEvidence == nil {
			var re event
			if json.Unmarshal(replay.Events[at], &re) == nil {
				f.maskedEvidence = newEvidence(re, replay)
			}
		}
	case detect.OutcomeDependent:
		f.DependentWhenMasked++
	case detect.OutcomeOverBound:
		f.overBound++
	case detect.OutcomeUnsettled:
		f.unsettled++
	default:
		f.noAnswer++
	}
	return false
}

// reasonBeforeFault is rt.ReasonBeforeFault.
const reasonBeforeFault = "not snapshotted: failed before the fault"

// practicalRule says why replays did not settle f's verdict.
func practicalRule(f *Function) string {
	var why []string
	if f.overBound > 0 {
		why = append(why, fmt.Sprintf("%d non-atomic failed calls had more than %d non-atomic functions inside them to mask", f.overBound, detect.MaxMasks))
	}
	if f.noAnswer > 0 {
		why = append(why, fmt.Sprintf("%d non-atomic failed calls were not made to fail again by a replay", f.noAnswer))
	}
	if f.unsettled > 0 {
		why = append(why, fmt.Sprintf("%d non-atomic failed calls had a call fail inside them before the fault, not snapshotted", f.unsettled))
	}
	return strings.Join(why, "; ")
}

// newEvidence is the evidence that a verdict event of rec gives.
func newEvidence(e event, rec *campaign.Record) *Evidence {
	ev := &Evidence{Path: e.Path, Before: e.Before, After: e.After, Changes: changesOf(e), Failure: e.Failure, Error: e.Error,
		Package: rec.Package, Test: rec.Test, Exec: rec.Exec, Binary: rec.Binary, Mask: strings.Join(rec.Arming.Mask, ";"), first: e.First,
		batched: rec.Batched && !rec.Fresh}
	if (rec.Kind == "experiment" || rec.Kind == "recheck") && rec.Arming.Inject.Site != "" {
		ev.injected(arm.Injection{Fault: rec.Arming.Inject.Fault, Occurrence: rec.Arming.Inject.Occurrence, Site: rec.Arming.Inject.Site})
	}
	ev.EndLine, ev.Callback = e.End, e.Callback
	ev.CallSite = injectedCallSite(rec)
	return ev
}

// injectedCallSite returns the position of the call site whose fault an
// experiment injected, or "" (a fault at a function's entry, a run with
// nothing injected).
func injectedCallSite(rec *campaign.Record) string {
	if rec.Kind != "experiment" && rec.Kind != "recheck" {
		return ""
	}
	for _, raw := range rec.Events {
		// Every verdict of the run asks: only a line that can be the
		// inject event is decoded.
		if !campaign.MayBeEvent(raw, "inject") {
			continue
		}
		var e event
		if json.Unmarshal(raw, &e) == nil && e.Event == "inject" {
			if e.Kind == "call" {
				return e.Pos
			}
			return ""
		}
	}
	return ""
}

func (r *Report) countExperiment(rec *campaign.Record) {
	s := &r.Summary
	s.Experiments++
	s.ExperimentsMs += rec.Millis
	switch {
	case rec.Batched:
		s.InBatches++
	case rec.FellBack:
		s.FellBackRuns++
		if t := rec.Package + " " + rec.Test; !slices.Contains(s.FellBack, t) {
			s.FellBack = append(s.FellBack, t)
			slices.Sort(s.FellBack)
		}
	case rec.Fresh:
		s.Confirmed++
	}
	if rec.Fired {
		s.Fired++
	}
	switch rec.Status {
	case campaign.Passed:
		s.TestPassed++
	case campaign.Failed:
		s.TestFailed++
	case campaign.Absorbed:
		s.Absorbed++
	case campaign.Hung:
		s.Timeouts++
	case campaign.Crashed:
		s.Crashed++
	case campaign.NotRun:
		s.NotStarted++
	}
}

// wallTime is the campaign's wall time in milliseconds, as
// campaign.WallTime defines it, and the sessions it sums over.
func wallTime(recs []*campaign.Record) (ms int64, sessions int) {
	wall, sessions := campaign.WallTime(recs)
	return wall.Milliseconds(), sessions
}

func (r *Report) function(name, pos string) *Function {
	f := r.Functions[name]
	if f == nil {
		f = &Function{Name: name}
		r.Functions[name] = f
	}
	if f.Pos == "" {
		f.Pos = pos
	}
	return f
}

// addVerdict counts a verdict event of rec; pure says that the failed
// call was non-atomic by itself.
func (r *Report) addVerdict(f *Function, e event, rec *campaign.Record, pure bool) {
	f.Failures++
	if e.Wrote != "" {
		f.WroteOutsideCalls++
		w := &OutsideWrite{Call: e.Wrote, File: campaign.RunPath(e.WroteTo), Pos: e.WroteAt}
		if f.WroteOutside == nil || outsideWriteBefore(w, f.WroteOutside) {
			f.WroteOutside = w
		}
	}
	if e.Injected {
		f.InjectedFailures++
	} else {
		f.NaturalFailures++
	}
	switch e.Verdict {
	case "unknown":
		switch {
		case e.Reason == "graph too large" || e.Reason == "":
			f.TooLarge++
		case e.Reason == "not snapshotted" || strings.HasPrefix(e.Reason, "not snapshotted:"):
			f.NotSnapshotted++
		default:
			// The site's own reason (rt.Site.NoSnapshot).
			f.NoSnapshot++
			if f.NoSnapshotReason == "" {
				f.NoSnapshotReason = e.Reason
			}
		}
	case "non-atomic":
		f.NonAtomic++
		if e.First {
			f.FirstInChain++
		}
		if v := changesOf(e); f.Visibility == "" || visibilityRank(v) < visibilityRank(f.Visibility) {
			f.Visibility = v
		}
		ev := newEvidence(e, rec)
		ev.first = pure
		if f.Evidence == nil || betterEvidence(ev, f.Evidence) {
			f.Evidence = ev
		}
	}
}

// outsideWriteBefore orders the writes outside memory that a function's
// failed calls made, so that the report names the same one whatever the
// order in which parallel runs were journaled: by position, then callee,
// then file.
func outsideWriteBefore(a, b *OutsideWrite) bool {
	if a.Pos != b.Pos {
		return a.Pos < b.Pos
	}
	if a.Call != b.Call {
		return a.Call < b.Call
	}
	return a.File < b.File
}

// changesOf is what a non-atomic verdict event changed; events of a
// runtime that did not say count as caller-visible.
func changesOf(e event) string {
	switch e.Changes {
	case Stream, Scratch, Normalization:
		return e.Changes
	}
	return CallerVisible
}

// betterEvidence reports whether a is stronger evidence than b, the
// one a maintainer acts on first: a change a caller sees before a stream
// position, scratch or a normalization; a change the function made
// itself before one made inside a callback its caller passed in; the
// first non-atomic call of its chain (or one non-atomic by itself in a
// replay) before one made after a callee failed non-atomic; a failure
// the program meets (natural) before an injected fault, and a fault at a
// call that can fail before one at the entry of a helper of the module;
// the shorter path; then by test and injection, so that the choice does
// not depend on the order in which parallel runs were journaled. Right
// after the kind of change, what a process of its own showed comes
// before what a batch of experiments did: the campaign confirmed the one
// and not the other (it confirms, for each function, a batched run of
// the strongest kind of change: see detect's evidenceToConfirm).
func betterEvidence(a, b *Evidence) bool {
	switch {
	case a.Changes != b.Changes:
		return visibilityRank(a.Changes) < visibilityRank(b.Changes)
	case a.batched != b.batched:
		return !a.batched
	case (a.Callback == "") != (b.Callback == ""):
		return a.Callback == ""
	case a.first != b.first:
		return a.first
	case failureRank(a) != failureRank(b):
		return failureRank(a) < failureRank(b)
	case len(a.Path) != len(b.Path):
		return len(a.Path) < len(b.Path)
	case a.Test != b.Test:
		return a.Test < b.Test
	}
	return a.Injection < b.Injection
}

// failureRank orders the failures that evidence rests on, the likeliest
// in production first: natural (0), a fault injected at a call (1), at
// the entry of a function (2).
func failureRank(e *Evidence) int {
	switch {
	case e.Injection == "":
		return 0
	case strings.HasSuffix(e.Injection, "#entry"):
		return 2
	}
	return 1
}

// reproduce is the command that runs the test again with the same fault,
// to paste into a shell in the module's directory. With the campaign's
// header, it names the policy file and the atomicx binary by absolute
// path and gives the campaign's build flags, so that it needs neither a
// policy of the module's own nor atomicx on PATH. It snapshots every
// call: a run by hand samples them, and the failed call could be one it
// leaves out.
func reproduce(ev *Evidence, h *campaign.Header) string {
	var words []string
	if h != nil && h.Policy != "" {
		words = append(words, "ATOMICX_POLICY="+shellQuote(h.Policy))
	}
	a := ev.Arming()
	a.Snapshots, a.Log = arm.SnapshotsAll, reproduceLog
	words = append(words, armingWords(a)...)
	if ev.Exec != "" {
		return strings.Join(append(words, "ATOMICX_BINARY="+shellQuote(ev.Binary), shellQuote(ev.Exec)), " ")
	}
	atomicx := "atomicx"
	var buildArgs []string
	if h != nil {
		atomicx, buildArgs = h.Atomicx, h.BuildArgs
	}
	// atomicx go test, not go test -toolexec: the standard library and
	// what the policy leaves alone come from the cache of plain builds.
	words = append(words, shellQuote(atomicx), "go", "test", "-count=1")
	for _, a := range buildArgs {
		words = append(words, shellQuote(a))
	}
	return strings.Join(append(words, "-run", "'^"+ev.Test+"$'", ev.Package), " ")
}

// atomicxReproduce is the atomicx reproduce command for a function's
// evidence, "" without a campaign header.
func atomicxReproduce(fn string, h *campaign.Header) string {
	if h == nil || h.Atomicx == "" {
		return ""
	}
	return ShellJoin([]string{h.Atomicx, "reproduce", "-journal", h.Journal, fn})
}

// typeVerdict is the verdict of a type from the counts of its methods'
// verdicts: the most urgent non-atomic verdict of a method; otherwise
// atomic only if every method is, and unknown as soon as one method is.
// Methods left as written are listed whether or not a test reached them:
// alone, they make a type atomic only when they are all its methods.
func typeVerdict(t *Type) string {
	switch {
	case t.Pure > 0:
		return Pure
	case t.Dependent > 0:
		return Dependent
	case t.Unknown == 0 && (t.Atomic > t.AsWritten || t.Atomic > 0 && t.wholeAsWritten):
		return Atomic
	}
	return Unknown
}

// classifyTypes gives each receiver type a verdict from those of its
// methods (typeVerdict).
func (r *Report) classifyTypes() {
	for name, f := range r.Functions {
		tn := typeOf(name)
		if tn == "" {
			continue
		}
		t := r.Types[tn]
		if t == nil {
			t = &Type{Name: tn}
			r.Types[tn] = t
		}
		t.Methods = append(t.Methods, name)
		switch f.Verdict {
		case Pure:
			t.Pure++
		case Dependent:
			t.Dependent++
		case Atomic:
			t.Atomic++
			if f.AsWritten {
				t.AsWritten++
				t.wholeAsWritten = t.wholeAsWritten || f.wholeType
			}
		default:
			if f.UnknownKind == CannotFail {
				t.CannotFail++
			} else {
				t.Unknown++
			}
		}
	}
	for _, t := range r.Types {
		sort.Strings(t.Methods)
		t.Verdict = typeVerdict(t)
	}
}

// typeOf returns "pkg.T" for a method name "pkg.(*T).M" or "pkg.T.M", and
// "" for a plain function.
func typeOf(fn string) string {
	_, rest, ok := funcname.Split(fn)
	if !ok {
		return ""
	}
	if _, literal := funcname.Enclosing(rest); literal {
		return "" // a function literal is no method, even in one
	}
	pkg := strings.TrimSuffix(fn, "."+rest) // the package's symbol prefix, as in fn
	if strings.HasPrefix(rest, "(*") {
		end := strings.Index(rest, ").")
		if end < 0 {
			return ""
		}
		return pkg + "." + rest[2:end]
	}
	// T.M, or a plain function F (no dot after it) or F.func1 (a closure).
	i := strings.LastIndex(rest, ".")
	if i < 0 || strings.Contains(rest[i:], "func") {
		return ""
	}
	return pkg + "." + rest[:i]
}
