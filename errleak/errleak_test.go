package errleak_test

import (
	"fmt"
	"testing"

	"github.com/atomicx/atomicx/errleak"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/tools/go/analysis/analysistest"
)

func TestAnalyzer(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), errleak.Analyzer, "leaks", "opener", "useopener", "pooluse")
	// Each filter removes what the fixtures say it should: one finding
	// per acquire and return (or end of path) it applies to.
	want := map[string]errleak.Stats{
		"leaks": {Reported: 32, Removed: map[string]int{
			errleak.FilterNilCheck:   3,  // unchecked, nilChecked, openWALClosed
			errleak.FilterEscape:     11, // stored, sent, passed (captured: the goroutine releases it), notifyHandedOff, handedOver, wrapperReturned, wrapperStored, reload; wal.load, wal.loadClean (2 returns): stored in their receiver
			errleak.FilterReturned:   10, // openChecked, newTimer; openStore, openStoreClosed, openStoreCleanup, openLoader, openWAL, openWALClosed, openWALKept, reopenWAL (their holder)
			errleak.FilterSuppressed: 4,  // suppressed, ignored, docSuppressed, declSuppressed
			errleak.FilterExit:       1,  // exits: os.Exit (log.Fatal is on the failure edge)
			errleak.FilterBorrowed:   2,  // slow: both returns
			errleak.FilterHeld:       3,  // begin, lock, journal.begin
			errleak.FilterCollected:  3,  // timerCollected, tickerCollected, timerFromFunc (ticker: before Go 1.23, reported)
		}},
		"opener":    {Removed: map[string]int{errleak.FilterReturned: 1, errleak.FilterEscape: 2}},              // Open; Segment.Load's two returns: stored in its receiver
		"useopener": {Reported: 3, Removed: map[string]int{errleak.FilterEscape: 1, errleak.FilterReturned: 2}}, // leak, borrowedAcross, openSegment; keptAcross; openSegment, openSegmentClosed return the segment
		"pooluse":   {Reported: 2, Removed: map[string]int{}},                                                   // leak, take
	}
	for _, r := range results {
		path := r.Pass.Pkg.Path()
		got, ok := r.Result.(*errleak.Stats)
		if !ok {
			t.Fatalf("%s: result %T, want *errleak.Stats", path, r.Result)
		}
		if diff := cmp.Diff(want[path], *got, cmpopts.IgnoreFields(errleak.Stats{}, "Findings")); diff != "" {
			t.Errorf("%s: stats (-want +got):\n%s", path, diff)
		}
	}
}

// With -panics, a lock held where a function panics is reported; without,
// the same package reports nothing.
func TestPanics(t *testing.T) {
	set := func(v string) {
		if err := errleak.Analyzer.Flags.Set("panics", v); err != nil {
			t.Fatal(err)
		}
	}
	set("true")
	defer set("false")
	results := analysistest.Run(t, analysistest.TestData(), errleak.Analyzer, "panics")
	for _, r := range results {
		want := errleak.Stats{Reported: 1, Removed: map[string]int{errleak.FilterSuppressed: 1}}
		if diff := cmp.Diff(want, *r.Result.(*errleak.Stats), cmpopts.IgnoreFields(errleak.Stats{}, "Findings")); diff != "" {
			t.Errorf("stats (-want +got):\n%s", diff)
		}
		for _, f := range r.Result.(*errleak.Stats).Findings {
			if f.Opening != nil {
				t.Errorf("%s: a panic path has an opening failure %+v, want none (not confirmable)", f.Func, f.Opening)
			}
		}
	}
	set("false")
	var missed errorCount // the fixture's one expectation is not met
	for _, r := range analysistest.Run(&missed, analysistest.TestData(), errleak.Analyzer, "panics") {
		if got := r.Result.(*errleak.Stats).Reported; got != 0 {
			t.Errorf("without -panics: %d reported, want 0", got)
		}
	}
	if missed != 1 {
		t.Errorf("without -panics: %d unmet expectations, want 1", missed)
	}
}

// errorCount counts the errors analysistest reports.
type errorCount int

func (n *errorCount) Errorf(string, ...any) { *n++ }

// TestFindings checks the findings as data against the fixture's
// comments: each function's says which call opens its path, or that none
// does ("not confirmable").
func TestFindings(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), errleak.Analyzer, "confirm")
	want := map[string]string{ // function → opening failure's callee and line
		"confirm.readAll":       "confirm.check:18",
		"confirm.size":          "os.(*File).Stat:33",
		"confirm.named":         "confirm.check:47",
		"confirm.bare":          "not confirmable",
		"confirm.literal.func1": "os.(*File).Stat:73",
	}
	for _, r := range results {
		stats := r.Result.(*errleak.Stats)
		got := map[string]string{}
		for _, f := range stats.Findings {
			fset := r.Pass.Fset
			desc := "not confirmable"
			if o := f.Opening; o != nil {
				desc = fmt.Sprintf("%s:%d", o.Callee, fset.Position(o.Pos).Line)
				if c := fset.Position(o.Pos).Column; c == 0 {
					t.Errorf("%s: the opening failure has no column", f.Func)
				}
			}
			got[f.Func] = desc
			if f.ReturnLine == 0 || fset.Position(f.Return).Line != f.ReturnLine {
				t.Errorf("%s: return line %d, position %v", f.Func, f.ReturnLine, fset.Position(f.Return))
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("findings (-want +got):\n%s", diff)
		}
	}
}

// A finding of a [[leak.resource]] table with is_closed names the method
// that probes it.
func TestFindingIsClosed(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), errleak.Analyzer, "pooluse")
	for _, r := range results {
		got := map[string]string{}
		for _, f := range r.Result.(*errleak.Stats).Findings {
			got[f.Func] = f.IsClosed
		}
		want := map[string]string{"pooluse.leak": "Returned", "pooluse.take": ""}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("IsClosed by function (-want +got):\n%s", diff)
		}
	}
}
