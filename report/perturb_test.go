package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question/perturb"
	"github.com/atomicx/atomicx/rt/arm"
)

// perturbRecords is a perturbation campaign's journal: a fragile point
// whose candidate works only atomic, a sensitive point handled one frame
// up, an immunized one, and one the test did not reach again.
func perturbRecords() []*campaign.Record {
	ev := func(lines ...string) []json.RawMessage {
		var out []json.RawMessage
		for _, l := range lines {
			out = append(out, json.RawMessage(l))
		}
		return out
	}
	inject := func(site, pos string) string {
		return `{"event":"inject","site":"` + site + `","pos":"` + pos + `","chain":1}`
	}
	const persist, attempt, cache, gone = "m/s.(*Log).persist#entry", "m/s.(*Sender).attempt#entry", "m/s.readCache#entry", "m/s.gone#entry"
	run := func(site, test, status string, fired, always bool, stack string, events []json.RawMessage) *campaign.Record {
		r := &campaign.Record{Kind: "experiment", Package: "m/s", Test: test, Arming: arm.Arming{Inject: arm.Injection{Site: site, Fault: "error", Occurrence: 1}},
			Status: status, Fired: fired, QuestionData: stackData(stack), Events: events, Millis: 10}
		if always {
			r.Arming.Inject.Occurrence, r.Arming.Inject.Always = 0, true
		}
		return r
	}
	validation := func(site, cand string, atomic, always bool, status string) *campaign.Record {
		r := run(site, "TestAppend", status, true, always, "1@m/s.(*Log).Append#entry", nil)
		r.Arming.Oblivious = []string{cand}
		if atomic {
			r.Arming.Mask = []string{cand}
		}
		return r
	}
	const appendSite = "m/s.(*Log).Append#entry"
	return []*campaign.Record{
		{Kind: "campaign", Campaign: &campaign.Header{Module: "m", Version: "v1.2.3", GoVersion: "go1.26", Command: []string{"/bin/atomicx", "perturb", "./..."},
			Atomicx: "/bin/atomicx", Policy: "/m/atomicheck.toml", Date: "2026-01-02T03:04:05Z", Question: "perturb"}},
		{Kind: "profile", Package: "m/s", Test: "TestAppend", Status: "pass", Millis: 5,
			Events: ev(`{"event":"reach","site":"` + gone + `","pos":"m/s/s.go:90:6","occurrence":1,"faults":1}`)},
		run(persist, "TestAppend", campaign.Failed, true, false, "1@"+appendSite, ev(inject(persist, "m/s/s.go:30:6"), `{"event":"fail","site":"`+appendSite+`","call":1}`)),
		run(persist, "TestAppend", campaign.Failed, true, true, "1@"+appendSite, nil),
		validation(persist, appendSite, false, false, campaign.Failed),
		validation(persist, appendSite, false, true, campaign.Failed),
		validation(persist, appendSite, true, false, campaign.Passed),
		validation(persist, appendSite, true, true, campaign.Passed),
		run(attempt, "TestSend", campaign.Passed, true, false, "1@m/s.(*Sender).Send#entry", ev(inject(attempt, "m/s/s.go:50:6"))),
		run(attempt, "TestSend", campaign.Hung, true, true, "1@m/s.(*Sender).Send#entry", nil),
		run(cache, "TestLookup", campaign.Passed, true, false, "", ev(inject(cache, "m/s/s.go:70:6"))),
		run(cache, "TestLookup", campaign.Passed, true, true, "", nil),
		run(gone, "TestGone", campaign.Passed, false, false, "", nil),
	}
}

func TestPerturbation(t *testing.T) {
	r := Perturbation(perturbRecords(), nil)
	var text bytes.Buffer
	WritePerturbText(&text, r, nil)
	for _, want := range []string{
		"atomicx v1.2.3, go1.26, module m: atomicx perturb ./..., 2026-01-02T03:04:05Z, journal \n",
		"fragile (1):\nm/s/s.go:30:6: (*Log).persist: error at entry; TestAppend: fail once, fail always; handled outside the instrumented code at distance 1; fragile → immunized with a failure-oblivious candidate\n" +
			"\tcandidate (*Log).Append: fragile → immunized only atomic (plain fragile); swallowed 0 failures (at most 0 in one run)\n" +
			"\treproduce: ATOMICX_POLICY=/m/atomicheck.toml ATOMICX_INJECT='error:1:m/s.(*Log).persist#entry' ATOMICX_LOG=$PWD/events.jsonl /bin/atomicx go test -count=1 -run '^TestAppend$' m/s\n",
		"sensitive (1):\nm/s/s.go:50:6: (*Sender).attempt: error at entry; TestSend: pass once, timeout always; handled by (*Sender).Send at distance 0\n" +
			"\treproduce: ATOMICX_POLICY=/m/atomicheck.toml ATOMICX_INJECT='error:always:m/s.(*Sender).attempt#entry' ATOMICX_LOG=$PWD/events.jsonl /bin/atomicx go test -count=1 -run '^TestSend$' m/s\n",
		"immunized (1):\nm/s/s.go:70:6: readCache: error at entry; TestLookup: pass once, pass always; handled outside the instrumented code at distance 0\n",
		"not injected (1):\nm/s/s.go:90:6: gone: error at entry; TestGone did not reach it again\n",
		"points: 4, fragile 1, sensitive 1, immunized 1, not injected 1, not run 0; 0 inconsistent\n" +
			"faults: error 4, panic 0 (where no error can be injected)\n",
		"improved by a failure-oblivious candidate: fragile → sensitive 0, fragile → immunized 1, sensitive → immunized 0\n",
		"candidates: 1, working plain 0, only atomic 1; hazardous 0\n" +
			"a test that passes proves only what it checks: ",
		"campaign: 1 profile runs, 7 point runs, 4 validation runs; wall time not recorded, run time 115ms (summed)\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report lacks\n%s\nreport:\n%s", want, text.String())
		}
	}

	if strings.Contains(text.String(), "\nplan ") {
		t.Errorf("the report of a journal whose header names no plan (an earlier atomicx's) has a plan line:\n%s", text.String())
	}

	var js bytes.Buffer
	if err := WritePerturbJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string
		Points []struct {
			Site, Class, Improvement string
			Candidates               []struct{ Works, Plain, Atomic string }
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != PerturbSchema || len(doc.Points) != 4 || doc.Points[0].Improvement != "fragile → immunized" ||
		len(doc.Points[0].Candidates) != 1 || doc.Points[0].Candidates[0].Works != "only atomic" {
		t.Errorf("JSON report: %s", js.String())
	}

	var html bytes.Buffer
	if err := WritePerturbHTML(&html, r, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `<tr class="sensitive"><td>m/s/s.go:50:6</td>`) {
		t.Errorf("HTML report lacks the sensitive point:\n%s", html.String())
	}

	var sarif bytes.Buffer
	if err := WritePerturbSARIF(&sarif, r, nil, SARIFOptions{Version: "v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string
				Level  string
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || len(log.Runs[0].Results) != 2 || log.Runs[0].Results[0].RuleID != "atomicx/fragile-point" ||
		log.Runs[0].Results[1].Level != "note" {
		t.Errorf("SARIF log: %s", sarif.String())
	}
}

// TestPerturbationPanic checks that a point where no error can be
// injected, failed by a panic, shows its fault in every format and is
// counted by fault in the summary.
func TestPerturbationPanic(t *testing.T) {
	const tick, lookup = "m/s.(*Counter).Tick#entry", "m/s.Lookup#entry"
	inject := func(site, pos string) []json.RawMessage {
		return []json.RawMessage{json.RawMessage(`{"event":"inject","site":"` + site + `","pos":"` + pos + `","chain":1}`)}
	}
	recs := []*campaign.Record{
		{Kind: "campaign", Campaign: &campaign.Header{Module: "m", Question: "perturb", Atomicx: "/bin/atomicx", Plan: "0123456789abcdef"}},
		{Kind: "profile", Package: "m/s", Test: "TestTick", Status: campaign.Passed},
		{Kind: "experiment", Package: "m/s", Test: "TestTick", Arming: arm.Arming{Inject: arm.Injection{Site: tick, Fault: "panic", Occurrence: 1}}, Status: campaign.Crashed, Fired: true,
			Events: inject(tick, "m/s/s.go:9:19")},
		{Kind: "experiment", Package: "m/s", Test: "TestTick", Arming: arm.Arming{Inject: arm.Injection{Site: tick, Fault: "panic", Always: true}}, Status: campaign.Crashed, Fired: true},
		{Kind: "experiment", Package: "m/s", Test: "TestTick", Arming: arm.Arming{Inject: arm.Injection{Site: lookup, Fault: "error", Occurrence: 1}}, Status: campaign.Passed, Fired: true,
			Events: inject(lookup, "m/s/s.go:20:6")},
		{Kind: "experiment", Package: "m/s", Test: "TestTick", Arming: arm.Arming{Inject: arm.Injection{Site: lookup, Fault: "error", Always: true}}, Status: campaign.Passed, Fired: true},
	}
	r := Perturbation(recs, nil)
	if got := r.Summary.ByFault; got["panic"] != 1 || got["error"] != 1 {
		t.Errorf("points by fault %v, want one error and one panic", got)
	}
	var text, js, html, sarif bytes.Buffer
	WritePerturbText(&text, r, nil)
	if err := WritePerturbJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if err := WritePerturbHTML(&html, r, nil); err != nil {
		t.Fatal(err)
	}
	if err := WritePerturbSARIF(&sarif, r, nil, SARIFOptions{Version: "v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format string
		out    *bytes.Buffer
		wants  []string
	}{
		{"text", &text, []string{
			"\nplan 0123456789abcdef\n\n",
			"fragile (1):\nm/s/s.go:9:19: (*Counter).Tick: panic at entry; TestTick: crash once, crash always; ",
			"\treproduce: ATOMICX_INJECT='panic:1:m/s.(*Counter).Tick#entry' ",
			"immunized (1):\nm/s/s.go:20:6: Lookup: error at entry; ",
			"faults: error 1, panic 1 (where no error can be injected)\n",
		}},
		{"JSON", &js, []string{`"plan": "0123456789abcdef"`, `"fault": "panic"`, `"by_fault": {`, `"panic": 1`}},
		{"HTML", &html, []string{"<code>m/s.(*Counter).Tick</code> (entry, panic)", "Faults: error 1, panic 1"}},
		{"SARIF", &sarif, []string{"(*Counter).Tick panic at entry; TestTick: crash once, crash always"}},
	} {
		for _, want := range tc.wants {
			if !strings.Contains(tc.out.String(), want) {
				t.Errorf("the %s report lacks %q:\n%s", tc.format, want, tc.out.String())
			}
		}
	}
}

// TestPerturbationTests: a point run with several tests names each
// test's class and handler on a line of its own, says how many tests
// reach it when the campaign bounded them, and the summary says how the
// runs ran.
func TestPerturbationTests(t *testing.T) {
	const site, caller = "m/s.load#entry", "m/s.Open#entry"
	reach := json.RawMessage(`{"event":"reach","site":"` + site + `","pos":"m/s/s.go:10:6","occurrence":1,"faults":1}`)
	run := func(test, status string, always bool, events ...string) *campaign.Record {
		r := &campaign.Record{Kind: "experiment", Package: "m/s", Test: test, Arming: arm.Arming{Inject: arm.Injection{Site: site, Fault: "error", Occurrence: 1}}, Status: status, Fired: true,
			QuestionData: stackData("1@" + caller)}
		if always {
			r.Arming.Inject.Occurrence, r.Arming.Inject.Always = 0, true
		}
		for _, e := range events {
			r.Events = append(r.Events, json.RawMessage(e))
		}
		return r
	}
	inject := `{"event":"inject","site":"` + site + `","pos":"m/s/s.go:10:6","chain":1,"g":1,"stack":"1@` + caller + `"}`
	recs := []*campaign.Record{
		{Kind: "campaign", Campaign: &campaign.Header{Module: "m", Atomicx: "atomicx", Question: "perturb", OneAtATime: true, QuestionData: perturb.Options(2)}},
	}
	for _, test := range []string{"TestA", "TestB", "TestC"} {
		recs = append(recs, &campaign.Record{Kind: "profile", Package: "m/s", Test: test, Status: campaign.Passed, Events: []json.RawMessage{reach}})
	}
	// TestA's one-shot run reached the point from another caller than
	// its profile run did.
	otherInject := `{"event":"inject","site":"` + site + `","pos":"m/s/s.go:10:6","chain":1,"g":1,"stack":"1@m/s.Other#entry"}`
	recs = append(recs,
		run("TestA", campaign.Passed, false, otherInject), run("TestA", campaign.Passed, true, inject),
		run("TestB", campaign.Failed, false, inject, `{"event":"fail","site":"`+caller+`","call":1,"g":1}`), run("TestB", campaign.Failed, true, inject))
	var text bytes.Buffer
	WritePerturbText(&text, Perturbation(recs, nil), nil)
	for _, want := range []string{
		"m/s/s.go:10:6: load: error at entry; fragile in 2 tests of the 3 that reach it (TestB)\n" +
			"\tTestA: immunized, pass once, pass always; handled by Other at distance 0 (reached by another path than in its profile run)\n" +
			"\tTestB: fragile, fail once, fail always; handled outside the instrumented code at distance 1\n" +
			"\tcandidate Open: validation runs missing\n" +
			"\treproduce: ATOMICX_INJECT='error:1:m/s.load#entry' ATOMICX_LOG=$PWD/events.jsonl GOMAXPROCS=1 atomicx go test -count=1 -parallel=1 -run '^TestB$' m/s\n",
		"each point ran with at most 2 of the tests that reach it (-tests-per-point 2)",
		"\n1 points reached by another path than in their profile runs: ",
		"every run ran on one thread, a test's parallel subtests one at a time (GOMAXPROCS=1, -test.parallel=1)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report lacks\n%s\nreport:\n%s", want, text.String())
		}
	}
}

// TestPerturbationHazard: a candidate that swallows a failed Sync is
// marked hazardous, with its cost, and the improvement it makes carries
// the mark and is counted apart.
func TestPerturbationHazard(t *testing.T) {
	const site, closeSite = "m/s.(*WAL).Close#call:f.Sync#1", "m/s.(*WAL).Close#entry"
	swallowed := json.RawMessage(`{"event":"oblivious","site":"` + closeSite + `","swallowed":true}`)
	run := func(status string, always bool, oblivious, mask string, events ...json.RawMessage) *campaign.Record {
		r := &campaign.Record{Kind: "experiment", Package: "m/s", Test: "TestClose", Arming: arm.Arming{Inject: arm.Injection{Site: site, Fault: "error", Occurrence: 1}, Oblivious: arm.SplitIDs(oblivious), Mask: arm.SplitIDs(mask)},
			Status: status, Fired: true, Events: events}
		if always {
			r.Arming.Inject.Occurrence, r.Arming.Inject.Always = 0, true
		}
		return r
	}
	inject := json.RawMessage(`{"event":"inject","site":"` + site + `","pos":"m/s/wal.go:9:2","chain":1,"g":1,"stack":"1@` + closeSite + `"}`)
	fail := json.RawMessage(`{"event":"fail","site":"` + closeSite + `","call":1,"g":1}`)
	recs := []*campaign.Record{
		run(campaign.Failed, false, "", "", inject, fail), run(campaign.Failed, true, "", "", inject, fail),
		run(campaign.Passed, false, closeSite, "", swallowed), run(campaign.Passed, true, closeSite, "", swallowed),
		run(campaign.Passed, false, closeSite, closeSite, swallowed), run(campaign.Passed, true, closeSite, closeSite, swallowed),
	}
	r := Perturbation(recs, nil)
	var text bytes.Buffer
	WritePerturbText(&text, r, nil)
	for _, want := range []string{
		"fragile → immunized (hazardous candidate only) with a failure-oblivious candidate\n",
		"\tcandidate (*WAL).Close: fragile → immunized plain, immunized atomic; swallowed 4 failures (at most 1 in one run); " +
			"a test passed with every reach failing: it does not check what the calls should have produced; " +
			"HAZARDOUS: swallows failures of Close: what it should write or make durable may be lost; swallows a failed Sync: what it should write or make durable may be lost\n",
		"improved by a failure-oblivious candidate: fragile → sensitive 0, fragile → immunized 0, sensitive → immunized 0\n" +
			"improved only by a hazardous candidate, not counted above: fragile → sensitive 0, fragile → immunized 1, sensitive → immunized 0\n" +
			"candidates: 1, working plain 1, only atomic 0; hazardous 1\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report lacks\n%s\nreport:\n%s", want, text.String())
		}
	}
}

// stackData is a perturbation run's data, where its profile run reached
// the point, as its journal line has it.
func stackData(stack string) json.RawMessage {
	if stack == "" {
		return nil
	}
	b, _ := json.Marshal(map[string]string{"stack": stack})
	return b
}
