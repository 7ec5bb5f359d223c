package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"

	"github.com/atomicx/atomicx/internal/funcname"
)

// Verdicts of functions and types.
const (
	Pure      = "pure non-atomic"
	Dependent = "dependent non-atomic"
	Atomic    = "atomic"
	Unknown   = "unknown" // never seen failing, or only with graphs over budget or not snapshotted
)

// Evidence is one failed call that shows a function non-atomic: the first
// path that differs, and how to make it happen again.
type Evidence struct {
	Path      string `json:"path"`
	Before    string `json:"before"`
	After     string `json:"after"`
	Failure   string `json:"failure"`             // error or panic
	Error     string `json:"error,omitempty"`     // the error's text
	Package   string `json:"package"`             // the test's package
	Test      string `json:"test"`                // the test that showed it ("exec" for a program workload)
	Exec      string `json:"exec,omitempty"`      // the program workload's script
	Binary    string `json:"binary,omitempty"`    // the program workload's instrumented binary
	Injection string `json:"injection,omitempty"` // FAULT:OCCURRENCE:SITE armed, "" for a natural failure
	Mask      string `json:"mask,omitempty"`      // functions rolled back in the replay that showed it (ATOMICX_MASK)
	Reproduce string `json:"reproduce"`           // one command that shows it again

	first bool // the first non-atomic call of its chain
}

// Function is what the campaign learnt about one function.
type Function struct {
	Name    string `json:"-"`   // runtime.Func.Name() form
	Pos     string `json:"pos"` // import path/file.go:line:col
	Verdict string `json:"verdict"`

	Reached          int `json:"reached"`           // profile runs that reached its entry
	Failures         int `json:"failures"`          // failed calls seen
	NaturalFailures  int `json:"natural_failures"`  // in runs of failures that were not injected
	InjectedFailures int `json:"injected_failures"` // propagating an injected fault
	NonAtomic        int `json:"non_atomic"`        // failed calls that changed the graph
	FirstInChain     int `json:"first_in_chain"`    // times it was the first non-atomic call of a failure's propagation
	// PureWhenMasked counts rechecks in which it was still non-atomic
	// with the non-atomic functions it called masked: non-atomic by
	// itself, so pure although never first in a plain run.
	PureWhenMasked int `json:"pure_when_masked"`
	TooLarge       int `json:"too_large"`       // failed calls whose graph was over the snapshot budget
	NotSnapshotted int `json:"not_snapshotted"` // failed calls the profile run did not foresee on the stack
	// NoSnapshot counts failed calls that are never snapshotted because
	// reading their graph could race with the program (the function takes
	// a lock other than by the lock idiom); NoSnapshotReason says why.
	NoSnapshot       int    `json:"no_snapshot"`
	NoSnapshotReason string `json:"no_snapshot_reason,omitempty"`

	// InjectionsInto counts experiments whose fault was injected at its
	// entry (its callers then fail without it running).
	InjectionsInto int `json:"injections_into"`
	// FalseNegatives counts, for a non-atomic function, the failed calls
	// that still compared equal: the paper's false negatives, failures
	// that did not expose the function's non-atomicity.
	FalseNegatives int       `json:"false_negatives"`
	Evidence       *Evidence `json:"evidence,omitempty"`

	// In is, for a function literal, what it is written in: a function
	// ("(*Store).Put") or package-level variables ("save"). Name stays
	// the runtime's ("example.com/m.init.func1").
	In string `json:"in,omitempty"`

	maskedEvidence *Evidence // the first recheck that found it pure
}

// Type is the verdict of a type, from those of its methods.
type Type struct {
	Name      string   `json:"-"`
	Verdict   string   `json:"verdict"`
	Methods   []string `json:"methods"`
	Pure      int      `json:"pure"`
	Dependent int      `json:"dependent"`
	Atomic    int      `json:"atomic"`
}

// Summary counts what a campaign did.
type Summary struct {
	Packages      int   `json:"packages"`
	Tests         int   `json:"tests"`
	ProfileRuns   int   `json:"profile_runs"`
	NaturalRuns   int   `json:"natural_runs"` // reruns of a test to snapshot the failures its profile run saw
	Rechecks      int   `json:"rechecks"`     // replays of a failure with its first non-atomic function masked
	Experiments   int   `json:"experiments"`
	Fired         int   `json:"fired"`    // experiments in which the armed fault was injected
	Absorbed      int   `json:"absorbed"` // experiments ended early: the failure stopped propagating
	Timeouts      int   `json:"timeouts"`
	Crashed       int   `json:"crashed"` // experiments whose test binary failed (an injected panic included)
	ExperimentsMs int64 `json:"experiments_ms"`
}

// Report is the classification of a campaign.
type Report struct {
	Functions map[string]*Function `json:"functions"`
	Types     map[string]*Type     `json:"types"`
	Summary   Summary              `json:"summary"`
	Problems  []string             `json:"problems,omitempty"`
}

// event is the part of the runtime's events the report reads.
type event struct {
	Event    string `json:"event"`
	Kind     string `json:"kind"` // of an injection point: entry or call
	Site     string `json:"site"`
	Func     string `json:"func"`
	Pos      string `json:"pos"`
	In       string `json:"in"`
	Verdict  string `json:"verdict"`
	Reason   string `json:"reason"`
	Failure  string `json:"failure"`
	Path     string `json:"path"`
	Before   string `json:"before"`
	After    string `json:"after"`
	Error    string `json:"error"`
	Injected bool   `json:"injected"`
	First    bool   `json:"first"`
	Masked   bool   `json:"masked"`
}

// Classify builds the report of a campaign's records.
func Classify(recs []*campaign.Record, problems []campaign.Problem) *Report {
	r := &Report{Functions: map[string]*Function{}, Types: map[string]*Type{}}
	for _, p := range problems {
		r.Problems = append(r.Problems, p.String())
	}
	pkgs, tests := map[string]bool{}, map[string]bool{}
	for _, rec := range recs {
		pkgs[rec.Package] = true
		tests[rec.Package+"\x00"+rec.Test] = true
		switch rec.Kind {
		case "profile":
			r.Summary.ProfileRuns++
		case "natural":
			r.Summary.NaturalRuns++
		case "recheck":
			r.Summary.Rechecks++
			r.addRecheck(rec)
			continue
		default:
			r.countExperiment(rec)
		}
		reached := map[string]bool{}
		for _, raw := range rec.Events {
			var e event
			if json.Unmarshal(raw, &e) != nil || e.Func == "" {
				continue
			}
			if e.Event != "reach" && e.Event != "inject" && e.Event != "verdict" {
				continue // absorbed, fail, problem: about runs, not functions
			}
			f := r.function(e.Func, e.Pos)
			if e.In != "" {
				f.In = e.In
			}
			switch e.Event {
			case "reach":
				if rec.Kind == "profile" && !reached[e.Func] {
					reached[e.Func] = true
					f.Reached++
				}
			case "inject":
				if e.Kind == "entry" {
					f.InjectionsInto++
				}
			case "verdict":
				r.addVerdict(f, e, rec)
			}
		}
	}
	r.Summary.Packages, r.Summary.Tests = len(pkgs), len(tests)
	for _, f := range r.Functions {
		compared := f.Failures - f.TooLarge - f.NotSnapshotted - f.NoSnapshot
		if f.NonAtomic > 0 {
			f.FalseNegatives = compared - f.NonAtomic
		}
		if f.FirstInChain == 0 && f.maskedEvidence != nil {
			// Never first in a plain run: the replay is what shows it
			// non-atomic by itself.
			f.Evidence = f.maskedEvidence
		}
		switch {
		case f.NonAtomic > 0 && (f.FirstInChain > 0 || f.PureWhenMasked > 0):
			f.Verdict = Pure
		case f.NonAtomic > 0:
			f.Verdict = Dependent
		case compared > 0:
			f.Verdict = Atomic
		default:
			f.Verdict = Unknown
		}
	}
	r.classifyTypes()
	return r
}

// addRecheck reads a replay of a failure with non-atomic callees masked:
// a function that is the first non-atomic call of the replay is pure.
// Nothing else is counted again.
func (r *Report) addRecheck(rec *campaign.Record) {
	for _, raw := range rec.Events {
		var e event
		if json.Unmarshal(raw, &e) != nil || e.Event != "verdict" || e.Masked || !e.Injected || !e.First || e.Verdict != "non-atomic" {
			continue
		}
		f := r.function(e.Func, e.Pos)
		f.PureWhenMasked++
		if f.maskedEvidence == nil {
			f.maskedEvidence = newEvidence(e, rec)
		}
	}
}

// newEvidence is the evidence that a verdict event of rec gives.
func newEvidence(e event, rec *campaign.Record) *Evidence {
	ev := &Evidence{Path: e.Path, Before: e.Before, After: e.After, Failure: e.Failure, Error: e.Error,
		Package: rec.Package, Test: rec.Test, Exec: rec.Exec, Binary: rec.Binary, Mask: rec.Mask, first: e.First}
	if rec.Kind == "experiment" || rec.Kind == "recheck" {
		ev.Injection = fmt.Sprintf("%s:%d:%s", rec.Fault, rec.Occurrence, rec.Site)
	}
	ev.Reproduce = reproduce(ev)
	return ev
}

func (r *Report) countExperiment(rec *campaign.Record) {
	s := &r.Summary
	s.Experiments++
	s.ExperimentsMs += rec.Millis
	if rec.Fired {
		s.Fired++
	}
	switch rec.Status {
	case "absorbed":
		s.Absorbed++
	case "timeout":
		s.Timeouts++
	case "fail", "error":
		s.Crashed++
	}
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

func (r *Report) addVerdict(f *Function, e event, rec *campaign.Record) {
	f.Failures++
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
		ev := newEvidence(e, rec)
		if f.Evidence == nil || betterEvidence(ev, f.Evidence) {
			f.Evidence = ev
		}
	}
}

// betterEvidence reports whether a is easier to act on than b: natural
// before injected, the first non-atomic call of its chain before a later
// one, the shorter path; then by test and injection, so that the choice
// does not depend on the order in which parallel runs were journaled.
func betterEvidence(a, b *Evidence) bool {
	switch {
	case (a.Injection == "") != (b.Injection == ""):
		return a.Injection == ""
	case a.first != b.first:
		return a.first
	case len(a.Path) != len(b.Path):
		return len(a.Path) < len(b.Path)
	case a.Test != b.Test:
		return a.Test < b.Test
	}
	return a.Injection < b.Injection
}

// reproduce is the command that runs the test again with the same fault.
// It snapshots every call: a run by hand samples them, and the failed
// call could be one it leaves out.
func reproduce(ev *Evidence) string {
	inject := ""
	if ev.Injection != "" {
		inject = "ATOMICX_INJECT='" + ev.Injection + "' "
	}
	if ev.Mask != "" {
		inject += "ATOMICX_MASK='" + ev.Mask + "' "
	}
	inject += "ATOMICX_SNAPSHOTS=all "
	if ev.Exec != "" {
		return fmt.Sprintf("%sATOMICX_LOG=events.jsonl ATOMICX_BINARY=%s %s", inject, ev.Binary, ev.Exec)
	}
	return fmt.Sprintf("%sATOMICX_LOG=events.jsonl go test -count=1 -toolexec atomicx -run '^%s$' %s",
		inject, ev.Test, ev.Package)
}

// classifyTypes gives each receiver type the worst verdict of its methods.
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
		}
	}
	for _, t := range r.Types {
		sort.Strings(t.Methods)
		switch {
		case t.Pure > 0:
			t.Verdict = Pure
		case t.Dependent > 0:
			t.Verdict = Dependent
		case t.Atomic > 0:
			t.Verdict = Atomic
		default:
			t.Verdict = Unknown
		}
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
