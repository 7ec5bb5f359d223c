package main

import (
	"strings"
	"testing"
	"time"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/report"
)

// TestRanLine checks the words of detect's line on stderr, and that its
// wall time is the report's: worked out from the journal's runs, not
// from the command's own clock (which also counts the report's making).
func TestRanLine(t *testing.T) {
	// A session that started at 10s and whose last run ended at 25.2s.
	one := []*campaign.Record{
		{Kind: "profile", Session: 10000, Began: 10500, Millis: 700},
		{Kind: "experiment", Session: 10000, Began: 20000, Millis: 5200},
		{Kind: "experiment", Session: 10000, Began: 24000, Millis: 300},
	}
	res := &campaign.Result{ProfileRuns: 3, Experiments: 8, NaturalRuns: 2, Elapsed: time.Hour, Resumed: map[string]int{}, Records: one}
	if got, want := ranLine(res), "ran 3 profile runs, 8 experiments, 2 natural reruns and 0 rechecks; wall time 15.2s"; got != want {
		t.Errorf("ranLine = %q\nwant     %q", got, want)
	}
	if ms, sessions := wallTime(one); ms != 15200 || sessions != 1 {
		t.Errorf("the report's wall time = %dms over %d sessions, want 15200ms over 1", ms, sessions)
	}
	// Resumed: a second session, of 1s, that ran 4 experiments.
	two := append(one, &campaign.Record{Kind: "experiment", Session: 90000, Began: 90200, Millis: 800})
	res = &campaign.Result{Experiments: 4, Elapsed: time.Hour, Resumed: map[string]int{"profile": 3, "experiment": 8, "natural": 2, "recheck": 1}, Records: two}
	want := "ran 0 profile runs, 4 experiments, 0 natural reruns and 0 rechecks; resumed from the journal: 3 profile runs, 8 experiments, 2 natural reruns and 1 rechecks; wall time 16.2s summed over 2 sessions (resumed or sharded)"
	if got := ranLine(res); got != want {
		t.Errorf("ranLine = %q\nwant     %q", got, want)
	}
	res.Records = nil
	if got := ranLine(res); !strings.HasSuffix(got, "; wall time not recorded") {
		t.Errorf("ranLine without timed records = %q", got)
	}
}

// wallTime is the report's reading of a journal's wall time.
func wallTime(recs []*campaign.Record) (ms int64, sessions int) {
	r := report.Classify(recs, nil)
	return r.Summary.WallMs, r.Summary.Sessions
}

func TestSemanticVersion(t *testing.T) {
	for _, tc := range []struct{ v, want string }{
		{"devel", "0.0.0-devel"},
		{"v1.2.3", "1.2.3"},
		{"v0.0.0-20240102150405-abcdefabcdef", "0.0.0-20240102150405-abcdefabcdef"},
		{"v1.2.3+dirty", "1.2.3+dirty"},
		{"1.2", ""},
	} {
		if got := semanticVersion(tc.v); got != tc.want {
			t.Errorf("semanticVersion(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
