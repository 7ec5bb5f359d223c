package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
)

func TestFailureTextSaysItOnce(t *testing.T) {
	const site = "example.com/m.(*T).load#entry"
	fault := "atomicx: injected error at " + site + " (example.com/m/t.go:3:4), occurrence 3"
	for _, tc := range []struct {
		name string
		ev   Evidence
		want string
	}{
		{"natural", Evidence{Failure: "error", Error: "no such account"}, `natural error "no such account"`},
		{"natural panic without text", Evidence{Failure: "panic"}, `natural panic`},
		{"injected, returned as it is", Evidence{Failure: "error", Error: fault, Injection: "error:3:" + site},
			"injected error at " + site + " (occurrence 3)"},
		{"injected, wrapped", Evidence{Failure: "error", Error: "open config: " + fault, Injection: "error:3:" + site},
			"injected error at " + site + ` (occurrence 3), returned as "open config: <injected error>"`},
		{"injected, cut short by the runtime", Evidence{Failure: "error", Error: "open config: atomicx: injected error at example.com/m.(*T).lo…", Injection: "error:3:" + site},
			"injected error at " + site + ` (occurrence 3), returned as "open config: <injected error>"`},
		{"injected, replaced by another error", Evidence{Failure: "error", Error: "bad port", Injection: "error:1:" + site},
			"injected error at " + site + ` (occurrence 1), returned as "bad port"`},
		{"injected panic", Evidence{Failure: "panic", Error: strings.Replace(fault, "error", "panic", 1), Injection: "panic:3:" + site},
			"injected panic at " + site + " (occurrence 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := failureText(&tc.ev)
			if got != tc.want {
				t.Errorf("failureText = %s\nwant          %s", got, tc.want)
			}
			if strings.Count(got, site) > 1 {
				t.Errorf("the site is named twice: %s", got)
			}
		})
	}
}

func TestTextSummaryNamesRunsAndTimes(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Summary
		want []string
	}{
		{"one session", Summary{Packages: 1, Tests: 3, ProfileRuns: 3, NaturalRuns: 2, Experiments: 8, Fired: 8, TestFailed: 6, TestPassed: 1, Absorbed: 1,
			ExperimentsMs: 28, WallMs: 15200, Sessions: 1},
			[]string{
				"campaign: 1 packages, 3 tests; 3 profile runs, 8 experiments, 2 natural reruns, 0 rechecks; wall time 15.2s, experiment time 28ms (summed)\n",
				"experiments: 8 faults injected in 8; 6 test failed, 1 test passed, 1 absorbed (ended early: the failure stopped propagating), 0 hang (timeout), 0 crash (no test verdict)\n",
			}},
		{"resumed", Summary{Experiments: 2, ExperimentsMs: 1500, WallMs: 61000, Sessions: 2, Crashed: 1, NotStarted: 1},
			[]string{"wall time 1m1s summed over 2 sessions (resumed or sharded), experiment time 1.5s (summed)", "1 crash (no test verdict), 1 not started\n"}},
		{"crashed before its fault", Summary{Experiments: 3, Fired: 2, TestFailed: 2, Crashed: 1, ExperimentsMs: 9},
			[]string{"experiments: 2 faults injected in 3; 2 test failed, 0 test passed, 0 absorbed (ended early: the failure stopped propagating), 0 hang (timeout), 1 crash (no test verdict)\n"}},
		{"old journal", Summary{ExperimentsMs: 5},
			[]string{"wall time not recorded, experiment time 5ms (summed)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			WriteText(&buf, &Report{Summary: tc.s}, nil, false)
			for _, want := range tc.want {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("text lacks %q:\n%s", want, buf.String())
				}
			}
		})
	}
}

// TestDetectReportNamesPlan: the report names the campaign's plan in
// every format, as the handler and perturbation reports do; the report
// of a journal without one (an older atomicx's) names none.
func TestDetectReportNamesPlan(t *testing.T) {
	const plan = "0123456789abcdef"
	for _, tc := range []struct {
		name string
		plan string
	}{{"a plan", plan}, {"no plan", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			recs := []*campaign.Record{
				{Kind: "campaign", Campaign: &campaign.Header{Module: "m", Question: "detect", Atomicx: "/bin/atomicx", Plan: tc.plan}},
				{Kind: "profile", Package: "m/s", Test: "TestA", Status: campaign.Passed},
			}
			r := Classify(recs, nil)
			var text, js, html bytes.Buffer
			WriteText(&text, r, nil, false)
			if err := WriteJSON(&js, r); err != nil {
				t.Fatal(err)
			}
			if err := WriteHTML(&html, r, nil); err != nil {
				t.Fatal(err)
			}
			for _, out := range []struct {
				format, text, want string
			}{
				{"text", text.String(), "plan " + plan + "\n"},
				{"json", js.String(), `"plan": "` + plan + `"`},
				{"html", html.String(), "(plan " + plan + ")"},
			} {
				if got := strings.Contains(out.text, out.want); got != (tc.plan != "") {
					t.Errorf("%s report contains %q: %v, want %v", out.format, out.want, got, tc.plan != "")
				}
			}
		})
	}
}

func TestInProcessText(t *testing.T) {
	tests := []struct {
		name string
		s    Summary
		want string
	}{
		{"a process per experiment", Summary{Experiments: 9}, ""},
		{"batches", Summary{Experiments: 9, InBatches: 7, Confirmed: 2},
			"9 experiments run in batches, many in one process, 2 of them confirmed in a fresh process"},
		{"fell back", Summary{Experiments: 12, InBatches: 7, Confirmed: 2, FellBack: []string{"m TestA"}, FellBackRuns: 3},
			"12 experiments run in batches, many in one process, 2 of them confirmed in a fresh process; " +
				"1 tests whose batches a fresh process did not confirm ran their 3 experiments again, a process each: m TestA"},
	}
	for _, tt := range tests {
		if got := inProcessText(tt.s); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// What a fresh process showed is stronger evidence than what a batch
// did, of the same kind of change, whatever else tells them apart.
func TestBetterEvidenceFreshFirst(t *testing.T) {
	batched := &Evidence{Path: "a", Changes: CallerVisible, batched: true, first: true}
	fresh := &Evidence{Path: "a.b.c", Changes: CallerVisible}
	if !betterEvidence(fresh, batched) || betterEvidence(batched, fresh) {
		t.Error("a batch's evidence ranks before a fresh process's")
	}
}
