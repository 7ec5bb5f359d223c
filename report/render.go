package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atomicx/atomicx/internal/funcname"
)

// Schema names the version of the JSON report's format. A change that
// removes or renames a field gets a new version.
const Schema = "atomicx.report/v1"

// Locator maps a position in import-path form ("example.com/m/f.go:3:4")
// to a path the user can open; nil leaves positions as they are.
type Locator func(pos string) string

// WriteJSON writes the report as one JSON document: functions keyed by
// their runtime.Func.Name() form.
func WriteJSON(w io.Writer, r *Report) error {
	doc := struct {
		Schema string `json:"schema"`
		*Report
	}{Schema, r}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// verdictOrder is the order of the text report's groups.
var verdictOrder = []string{Pure, Dependent, Atomic, Unknown}

// WriteText writes the report as file:line:col: message lines grouped by
// verdict, then the per-type table and a summary. color adds terminal
// colours to the verdicts.
func WriteText(w io.Writer, r *Report, locate Locator, color bool) {
	if locate == nil {
		locate = func(pos string) string { return pos }
	}
	writeProvenance(w, r.Provenance)
	if r.Plan != "" {
		fmt.Fprintf(w, "plan %s\n\n", r.Plan)
	}
	byVerdict := map[string][]*Function{}
	for _, f := range r.Functions {
		byVerdict[f.Verdict] = append(byVerdict[f.Verdict], f)
	}
	for _, v := range verdictOrder {
		fns := byVerdict[v]
		if len(fns) == 0 {
			continue
		}
		sort.Slice(fns, func(i, j int) bool {
			return fns[i].Pos < fns[j].Pos || fns[i].Pos == fns[j].Pos && fns[i].Name < fns[j].Name
		})
		sort.SliceStable(fns, func(i, j int) bool { return !onlyThroughCallbacks(fns[i]) && onlyThroughCallbacks(fns[j]) })
		fmt.Fprintf(w, "%s (%d):\n", paint(v, color), len(fns))
		if v == Atomic {
			// Functions left as written are many (getters, setters)
			// and atomic by construction: counted, not listed.
			sort.SliceStable(fns, func(i, j int) bool { return fns[i].AsWritten && !fns[j].AsWritten })
			n := 0
			for n < len(fns) && fns[n].AsWritten {
				n++
			}
			if n > 0 {
				fmt.Fprintf(w, "%d functions left as written (no failure can leave a change, checked at build time): -format json or html lists them\n", n)
			}
			fns = fns[n:]
		}
		if v == Unknown {
			// By kind. Functions that cannot fail are many
			// (constructors, helpers without an error result; detection
			// leaves getters and setters as written) and say nothing to
			// act on: counted, not listed.
			sort.SliceStable(fns, func(i, j int) bool { return kindRank(fns[i].UnknownKind) < kindRank(fns[j].UnknownKind) })
			n := 0
			for n < len(fns) && fns[n].UnknownKind == CannotFail {
				n++
			}
			if n > 0 {
				fmt.Fprintf(w, "%d functions cannot fail (no error result, and panics are not injected): -format json or html lists them\n", n)
			}
			fns = fns[n:]
		}
		var folded []*Function
		for _, f := range fns {
			if visibilityRank(f.Visibility) > 0 {
				folded = append(folded, f)
				continue
			}
			fmt.Fprintf(w, "%s: %s: %s\n", locate(f.Pos), displayName(f), describe(f))
			if f.WroteOutside != nil {
				fmt.Fprintf(w, "\t%s\n", wroteOutsideText(f, locate))
			}
			if f.Evidence != nil && f.Verdict == Pure {
				writeReproduce(w, f.Evidence)
			}
		}
		writeFolded(w, folded)
		fmt.Fprintln(w)
	}
	writeTypes(w, r)
	writeCrashes(w, r.Crashes)
	s := r.Summary
	fmt.Fprintf(w, "campaign: %d packages, %d tests; %s; %s\n", s.Packages, s.Tests, runCounts(s), timeText(s))
	fmt.Fprintf(w, "experiments: %s\n", outcomeText(s))
	if line := inProcessText(s); line != "" {
		fmt.Fprintf(w, "in-process: %s\n", line)
	}
	if r.Coverage != nil {
		writeCoverage(w, r.Coverage, locate)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
}

// runCounts counts the runs of a campaign by kind, with the names that
// detect's own summary on stderr uses.
func runCounts(s Summary) string {
	return fmt.Sprintf("%d profile runs, %d experiments, %d natural reruns, %d rechecks", s.ProfileRuns, s.Experiments, s.NaturalRuns, s.Rechecks)
}

// timeText gives the campaign's wall time and the experiments' summed
// time, each labelled: with several jobs the sum exceeds the wall time.
func timeText(s Summary) string {
	sum := durationText(s.ExperimentsMs)
	switch {
	case s.Sessions == 0:
		return fmt.Sprintf("wall time not recorded, experiment time %s (summed)", sum)
	case s.Sessions > 1:
		return fmt.Sprintf("wall time %s summed over %d sessions (resumed or sharded), experiment time %s (summed)", durationText(s.WallMs), s.Sessions, sum)
	}
	return fmt.Sprintf("wall time %s, experiment time %s (summed)", durationText(s.WallMs), sum)
}

func durationText(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).String()
}

// outcomeText counts the experiments by outcome. The outcomes count every
// experiment, those that crashed or hung before their fault was injected
// too: they add up to the experiments, not to the faults injected.
func outcomeText(s Summary) string {
	t := fmt.Sprintf("%d faults injected in %d; %d test failed, %d test passed, %d absorbed (ended early: the failure stopped propagating), %d hang (timeout), %d crash (no test verdict)",
		s.Fired, s.Experiments, s.TestFailed, s.TestPassed, s.Absorbed, s.Timeouts, s.Crashed)
	if s.NotStarted > 0 {
		t += fmt.Sprintf(", %d not started", s.NotStarted)
	}
	return t
}

// injectedText is the text of an injected fault (rt.InjectedFault) in an
// error that wraps it, or the start of it where the runtime cut a long
// error short.
var injectedText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`atomicx: injected (error|panic) at \S+ \([^()]*\), occurrence \d+|atomicx: injected .*…$`)
})

// failureText describes, once, the failure that showed the evidence: a
// natural failure with its error's text; an injected fault with where it
// was injected and, when the function failed with another text than the
// fault's own (a wrapping, a different error), that text with the fault's
// part elided.
func failureText(e *Evidence) string {
	if e.Injection == "" {
		if e.Error == "" {
			return "natural " + e.Failure
		}
		return fmt.Sprintf("natural %s %q", e.Failure, e.Error)
	}
	how := howFailed(e)
	fault, _, _ := strings.Cut(e.Injection, ":")
	elided := "<injected " + fault + ">"
	if rest := injectedText().ReplaceAllString(e.Error, elided); rest != "" && rest != elided {
		how += fmt.Sprintf(", returned as %q", rest)
	}
	return how
}

// onlyThroughCallbacks reports whether a finding's evidence, its
// strongest, is a change made inside a callback: the function changed
// nothing itself in any failed call. Such findings come after the others
// of their verdict and visibility in every format.
func onlyThroughCallbacks(f *Function) bool {
	return f.Evidence != nil && f.Evidence.Callback != ""
}

// throughCallback says, after a change, that it came through a callback
// the function's caller passed in, not from the function's own code.
func throughCallback(e *Evidence) string {
	if e.Callback == "" {
		return ""
	}
	return " through a callback (" + e.Callback + ")"
}

// wroteOutsideText says that failed calls of f wrote outside memory
// before failing, which a rollback of memory cannot undo: the words of
// every format.
func wroteOutsideText(f *Function, locate Locator) string {
	w := f.WroteOutside
	to := "outside memory"
	if w.File != "" {
		to = "to " + w.File
	}
	calls := "1 failed call"
	if f.WroteOutsideCalls != 1 {
		calls = fmt.Sprintf("%d failed calls", f.WroteOutsideCalls)
	}
	return fmt.Sprintf("wrote %s before failing: a rollback of memory cannot undo it (%s at %s; %s)", to, w.Call, locate(w.Pos), calls)
}

func describe(f *Function) string {
	switch f.Verdict {
	case Pure, Dependent:
		e := f.Evidence
		how := failureText(e)
		if e.Mask != "" {
			how += " with " + maskedNames(e.Mask) + " masked"
		}
		s := fmt.Sprintf("%s: %s: %s → %s%s (%d of %d failed calls non-atomic; %s in %s)", f.Verdict, e.Path, e.Before, e.After, throughCallback(e), f.NonAtomic, f.Failures, how, e.Test)
		switch {
		case f.PracticalRule != "":
			s += "; by the practical rule (" + f.PracticalRule + ")"
		case f.Verdict == Dependent:
			s += "; atomic once its non-atomic callees are"
		}
		return s
	case Atomic:
		if f.AsWritten {
			return "atomic (left as written: no failure can leave a change, checked at build time)"
		}
		return fmt.Sprintf("atomic (%d failed calls: %d natural, %d injected)", f.Failures, f.NaturalFailures, f.InjectedFailures) + unnumberedNote(f)
	}
	kind := "unknown (" + f.UnknownKind + ")"
	switch {
	case f.UnknownKind == CannotFail:
		return kind + ": no error result, and panics are not injected (panics = true in the policy injects them)"
	case f.Failures == 0 && f.UnknownReason != "":
		return kind + ": no failed call seen: " + f.UnknownReason + unnumberedNote(f)
	case f.Failures == 0:
		return kind + ": no failed call seen" + unnumberedNote(f)
	case f.NoSnapshot == f.Failures:
		return fmt.Sprintf("%s: %s (%d failed calls)", kind, f.NoSnapshotReason, f.Failures)
	case f.TooLarge == f.Failures:
		return fmt.Sprintf("%s: %d failed calls, every graph over the snapshot budget", kind, f.Failures)
	}
	s := fmt.Sprintf("%s: %d failed calls, %d over the snapshot budget, %d not snapshotted (the run took another path than its profile run)",
		kind, f.Failures, f.TooLarge, f.NotSnapshotted)
	if f.NoSnapshot > 0 {
		s += fmt.Sprintf(", %d never snapshotted: %s", f.NoSnapshot, f.NoSnapshotReason)
	}
	return s
}

// unnumberedNote says how many natural failures of f had no verdict
// because they came past the calls a profile run numbers.
func unnumberedNote(f *Function) string {
	if f.UnnumberedFailures == 0 {
		return ""
	}
	return fmt.Sprintf("; %d natural failures past its first calls not compared (the profile run numbers only those)", f.UnnumberedFailures)
}

// writeTypes writes the per-type counts, as in Table II of the paper.
func writeTypes(w io.Writer, r *Report) {
	if len(r.Types) == 0 {
		return
	}
	counts := map[string]int{}
	for _, t := range r.Types {
		counts[t.Verdict]++
	}
	fns := map[string]int{}
	for _, f := range r.Functions {
		fns[f.Verdict]++
	}
	atomic := strconv.Itoa(fns[Atomic]) + " atomic"
	if n := r.Summary.AsWritten; n > 0 {
		atomic += fmt.Sprintf(" (%d as written)", n)
	}
	fmt.Fprintf(w, "functions: %d pure, %d dependent, %s, %d unknown%s\n", fns[Pure], fns[Dependent], atomic, fns[Unknown], unknownBreakdown(r.Summary.UnknownKinds))
	if n := fns[Pure] + fns[Dependent]; n > 0 {
		vis := map[string]int{}
		for _, f := range r.Functions {
			if f.Verdict == Pure || f.Verdict == Dependent {
				vis[f.Visibility]++
			}
		}
		fmt.Fprintf(w, "non-atomic functions by what they changed: %d caller-visible, %d only stream position, %d only scratch, %d only nil versus empty\n",
			n-vis[Stream]-vis[Scratch]-vis[Normalization], vis[Stream], vis[Scratch], vis[Normalization])
	}
	fmt.Fprintf(w, "types:     %d pure, %d dependent, %d atomic, %d unknown\n", counts[Pure], counts[Dependent], counts[Atomic], counts[Unknown])
}

// writeFolded writes, after the caller-visible findings of a group, one
// line for the findings whose failed calls changed only stream positions
// or scratch fields: their names, without detail (the JSON and HTML
// reports have it).
func writeFolded(w io.Writer, fns []*Function) {
	if len(fns) == 0 {
		return
	}
	sort.SliceStable(fns, func(i, j int) bool {
		return visibilityRank(fns[i].Visibility) < visibilityRank(fns[j].Visibility)
	})
	names := make([]string, len(fns))
	for i, f := range fns {
		names[i] = shortName(f.Name) + " (" + f.Visibility + ")"
	}
	what := "findings touch"
	if len(fns) == 1 {
		what = "finding touches"
	}
	fmt.Fprintf(w, "%d more %s only stream position / scratch / nil versus empty: %s\n", len(fns), what, strings.Join(names, ", "))
}

// kindRank orders the kinds of unknown verdicts as UnknownKinds does.
func kindRank(kind string) int {
	for i, k := range UnknownKinds {
		if k == kind {
			return i
		}
	}
	return len(UnknownKinds)
}

// unknownBreakdown counts each kind of unknown verdict: " (34 cannot
// fail, 45 not made to fail, 0 not snapshotted, 0 over budget)", or ""
// when there is none.
func unknownBreakdown(kinds map[string]int) string {
	if len(kinds) == 0 {
		return ""
	}
	var parts []string
	for _, k := range UnknownKinds {
		parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// maskedNames turns an ATOMICX_MASK list of entry sites into short
// function names.
func maskedNames(mask string) string {
	var names []string
	for _, id := range strings.Split(mask, ";") {
		names = append(names, shortName(strings.TrimSuffix(id, "#entry")))
	}
	return strings.Join(names, ", ")
}

// shortName drops the package path: example.com/m.(*T).M → (*T).M,
// gopkg.in/ini%2ev1.(*File).Append → (*File).Append.
func shortName(fn string) string {
	_, rel, _ := funcname.Split(fn)
	return rel
}

// displayName names a function for people: its short name, or for a
// function literal "closure in save, store.go:16". A report read from a
// journal whose events do not say what a literal is in names the
// function its runtime name gives.
func displayName(f *Function) string {
	_, rel, _ := funcname.Split(f.Name)
	in := f.In
	if in == "" {
		var literal bool
		if in, literal = funcname.Enclosing(rel); !literal {
			return rel
		}
	}
	file, line, _ := splitPos(f.Pos)
	return funcname.Readable(in, path.Base(file), line)
}

func paint(verdict string, color bool) string {
	if !color {
		return verdict
	}
	code := map[string]string{Pure: "1;31", Dependent: "33", Atomic: "32", Unknown: "2"}[verdict]
	return "\033[" + code + "m" + verdict + "\033[0m"
}

// writeReproduce writes the commands that show a finding again: atomicx
// reproduce when the journal says how the campaign ran, and the go test
// line it runs.
func writeReproduce(w io.Writer, e *Evidence) {
	if e.AtomicxReproduce != "" {
		fmt.Fprintf(w, "\treproduce: %s\n\tor: %s\n", e.AtomicxReproduce, e.Reproduce)
		return
	}
	fmt.Fprintf(w, "\treproduce: %s\n", e.Reproduce)
}

// inProcessText says how many experiments ran in batches and what was
// confirmed in a fresh process; "" for a campaign that ran each in a
// process of its own.
func inProcessText(s Summary) string {
	if s.InBatches == 0 && s.Confirmed == 0 && len(s.FellBack) == 0 {
		return ""
	}
	text := fmt.Sprintf("%d experiments run in batches, many in one process, %d of them confirmed in a fresh process", s.InBatches+s.Confirmed+s.FellBackRuns, s.Confirmed)
	if len(s.FellBack) > 0 {
		text += fmt.Sprintf("; %d tests whose batches a fresh process did not confirm ran their %d experiments again, a process each: %s",
			len(s.FellBack), s.FellBackRuns, strings.Join(s.FellBack, ", "))
	}
	return text
}
