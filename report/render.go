package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

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
		fmt.Fprintf(w, "%s (%d):\n", paint(v, color), len(fns))
		for _, f := range fns {
			fmt.Fprintf(w, "%s: %s: %s\n", locate(f.Pos), displayName(f), describe(f))
			if f.Evidence != nil && f.Verdict == Pure {
				fmt.Fprintf(w, "\treproduce: %s\n", f.Evidence.Reproduce)
			}
		}
		fmt.Fprintln(w)
	}
	writeTypes(w, r)
	s := r.Summary
	fmt.Fprintf(w, "campaign: %d packages, %d tests, %d experiments (%d faults injected, %d stopped early when the failure was absorbed, %d timed out)",
		s.Packages, s.Tests, s.Experiments, s.Fired, s.Absorbed, s.Timeouts)
	if s.NaturalRuns > 0 {
		fmt.Fprintf(w, ", %d reruns for natural failures", s.NaturalRuns)
	}
	if s.Rechecks > 0 {
		fmt.Fprintf(w, ", %d rechecks with non-atomic callees masked", s.Rechecks)
	}
	fmt.Fprintln(w)
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
}

func describe(f *Function) string {
	switch f.Verdict {
	case Pure, Dependent:
		e := f.Evidence
		how := "natural " + e.Failure
		if e.Injection != "" {
			how = "injected " + e.Injection
		}
		if e.Mask != "" {
			how += " with " + maskedNames(e.Mask) + " masked"
		}
		s := fmt.Sprintf("%s: %s: %s → %s (%d of %d failed calls; %s in %s)", f.Verdict, e.Path, e.Before, e.After, f.NonAtomic, f.Failures, how, e.Test)
		if f.Verdict == Dependent {
			s += "; atomic once its non-atomic callees are"
		}
		return s
	case Atomic:
		return fmt.Sprintf("atomic (%d failed calls: %d natural, %d injected)", f.Failures, f.NaturalFailures, f.InjectedFailures)
	}
	switch {
	case f.Failures == 0:
		return "unknown: never seen failing"
	case f.NoSnapshot == f.Failures:
		return fmt.Sprintf("unknown: %s (%d failed calls)", f.NoSnapshotReason, f.Failures)
	case f.TooLarge == f.Failures:
		return fmt.Sprintf("unknown: %d failed calls, every graph over the snapshot budget", f.Failures)
	}
	s := fmt.Sprintf("unknown: %d failed calls, %d over the snapshot budget, %d not snapshotted (the run took another path than its profile run)",
		f.Failures, f.TooLarge, f.NotSnapshotted)
	if f.NoSnapshot > 0 {
		s += fmt.Sprintf(", %d never snapshotted: %s", f.NoSnapshot, f.NoSnapshotReason)
	}
	return s
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
	fmt.Fprintf(w, "functions: %d pure, %d dependent, %d atomic, %d unknown\n", fns[Pure], fns[Dependent], fns[Atomic], fns[Unknown])
	fmt.Fprintf(w, "types:     %d pure, %d dependent, %d atomic, %d unknown\n", counts[Pure], counts[Dependent], counts[Atomic], counts[Unknown])
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
