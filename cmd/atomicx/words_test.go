package main

import (
	"testing"
	"time"

	"github.com/atomicx/atomicx/campaign"
)

func TestRanLine(t *testing.T) {
	res := &campaign.Result{ProfileRuns: 3, Experiments: 8, NaturalRuns: 2, Elapsed: 15200 * time.Millisecond, Resumed: map[string]int{}}
	if got, want := ranLine(res), "ran 3 profile runs, 8 experiments, 2 natural reruns and 0 rechecks in 15.2s (wall time)"; got != want {
		t.Errorf("ranLine = %q\nwant     %q", got, want)
	}
	res = &campaign.Result{Experiments: 4, Elapsed: time.Second, Resumed: map[string]int{"profile": 3, "experiment": 8, "natural": 2, "recheck": 1}}
	want := "ran 0 profile runs, 4 experiments, 0 natural reruns and 0 rechecks in 1s (wall time); resumed from the journal: 3 profile runs, 8 experiments, 2 natural reruns and 1 rechecks"
	if got := ranLine(res); got != want {
		t.Errorf("ranLine = %q\nwant     %q", got, want)
	}
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
