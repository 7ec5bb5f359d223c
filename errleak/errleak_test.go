package errleak_test

import (
	"testing"

	"github.com/atomicx/atomicx/errleak"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/analysis/analysistest"
)

func TestAnalyzer(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), errleak.Analyzer, "leaks", "opener", "useopener", "pooluse")
	// Each filter removes what the fixtures say it should: one finding
	// per acquire and return (or end of path) it applies to.
	want := map[string]errleak.Stats{
		"leaks": {Reported: 23, Removed: map[string]int{
			errleak.FilterNilCheck:   2, // unchecked, nilChecked
			errleak.FilterEscape:     3, // stored, sent, passed (captured: the goroutine releases it)
			errleak.FilterReturned:   2, // openChecked, newTimer
			errleak.FilterSuppressed: 2, // suppressed, ignored
			errleak.FilterExit:       1, // exits: os.Exit (log.Fatal is on the failure edge)
			errleak.FilterBorrowed:   2, // slow: both returns
			errleak.FilterHeld:       3, // begin, lock, journal.begin
			errleak.FilterCollected:  3, // timerCollected, tickerCollected, timerFromFunc (ticker: before Go 1.23, reported)
		}},
		"opener":    {Removed: map[string]int{errleak.FilterReturned: 1}},
		"useopener": {Reported: 1, Removed: map[string]int{}},
		"pooluse":   {Reported: 1, Removed: map[string]int{}},
	}
	for _, r := range results {
		path := r.Pass.Pkg.Path()
		got, ok := r.Result.(*errleak.Stats)
		if !ok {
			t.Fatalf("%s: result %T, want *errleak.Stats", path, r.Result)
		}
		if diff := cmp.Diff(want[path], *got); diff != "" {
			t.Errorf("%s: stats (-want +got):\n%s", path, diff)
		}
	}
}
