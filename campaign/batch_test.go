package campaign

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
	"github.com/google/go-cmp/cmp"
)

func experimentRun(test, site string, occ uint64, extra ...string) *PlannedRun {
	r := &Record{V: JournalVersion, Kind: "experiment", Package: "m", Test: test,
		Arming: arm.Arming{Inject: arm.Injection{Fault: arm.FaultError, Occurrence: occ, Site: site}}}
	a := arm.Arming{Inject: r.Arming.Inject, Snapshots: arm.SnapshotsBeforeFault, StopAbsorbed: true, SnapshotCalls: "1@" + site}
	return &PlannedRun{Key: r.Key(), Env: append(a.Env(), extra...), Run: r}
}

func TestUnits(t *testing.T) {
	var todo []*PlannedRun
	for i := range 5 {
		todo = append(todo, experimentRun("TestA", "m.F#entry", uint64(i+1)))
	}
	todo = append(todo, experimentRun("TestB", "m.F#entry", 1), experimentRun("TestB", "m.G#entry", 1))
	// Another mask: another batch. A natural rerun runs alone.
	todo = append(todo, experimentRun("TestB", "m.H#entry", 1, arm.EnvMask+"=m.G#entry"))
	todo = append(todo, &PlannedRun{Key: "natural", Run: &Record{Kind: "natural", Package: "m", Test: "TestA"}})

	size := func(units [][]*PlannedRun) []int {
		var n []int
		for _, u := range units {
			n = append(n, len(u))
		}
		return n
	}
	c := &runner{cfg: Config{Jobs: 2, Planner: &Planner{InProcess: true}},
		res: &Result{Packages: []*Package{{ImportPath: "m", Tests: []string{"TestB", "TestA"}}}}}
	// The natural rerun alone; the seven of TestA and TestB shared by the
	// two jobs, in the order a binary runs them; the masked one alone.
	units := c.units(todo)
	if got, want := size(units), []int{1, 4, 3, 1}; !cmp.Equal(got, want) {
		t.Errorf("units of 2 jobs: %v, want %v", got, want)
	}
	var order []string
	for _, u := range units[1:3] {
		for _, r := range u {
			order = append(order, r.Run.Test+"/"+r.Run.Arming.Inject.String())
		}
	}
	want := []string{"TestB/error:1:m.F#entry", "TestA/error:1:m.F#entry", "TestB/error:1:m.G#entry", "TestA/error:2:m.F#entry",
		"TestA/error:3:m.F#entry", "TestA/error:4:m.F#entry", "TestA/error:5:m.F#entry"}
	if !cmp.Equal(order, want) {
		t.Errorf("batched in the order\n%q\nwant round by round, TestB first as the binary lists it\n%q", order, want)
	}
	c.cfg.Jobs = 1
	if got, want := size(c.units(todo)), []int{1, 7, 1}; !cmp.Equal(got, want) {
		t.Errorf("units of 1 job: %v, want %v", got, want)
	}
	c.cfg.Fresh = true
	if got := size(c.units(todo)); len(got) != len(todo) {
		t.Errorf("with Fresh, units %v: want one per run", got)
	}
	c.cfg.Fresh, c.cfg.Planner.InProcess = false, false
	if got := size(c.units(todo)); len(got) != len(todo) {
		t.Errorf("for a question that runs none in-process, units %v: want one per run", got)
	}
}

func TestBatchKeyExperiment(t *testing.T) {
	run := experimentRun("TestA", "m.F#entry", 2)
	_, exp, ok := batchKey(run)
	if !ok {
		t.Fatal("an experiment is not batchable")
	}
	want := arm.Experiment{Test: "TestA", Inject: run.Run.Arming.Inject, SnapshotCalls: "1@m.F#entry"}
	if exp != want {
		t.Errorf("experiment %+v, want %+v", exp, want)
	}
	k1, _, _ := batchKey(experimentRun("TestA", "m.G#entry", 1))
	k2, _, _ := batchKey(experimentRun("TestA", "m.G#entry", 1, arm.EnvOblivious+"=m.G#entry"))
	k3, _, _ := batchKey(experimentRun("TestB", "m.G#entry", 1))
	if k1 != mustKey(t, run) || k1 == k2 || k1 != k3 {
		t.Errorf("keys: the experiments of a package's tests that share their arming must share one, others not: %q %q %q", k1, k2, k3)
	}
	if _, _, ok := batchKey(experimentRun("ExampleA", "m.G#entry", 1)); ok {
		t.Error("an example's experiment is batchable: its test main does not run it through the runtime")
	}
}

// TestRounds: a batch needs a round more each time its next experiment's
// test does not come after the last one's in the binary's order.
func TestRounds(t *testing.T) {
	order := map[string]int{"TestA": 0, "TestB": 1, "TestC": 2}
	exps := func(tests ...string) []arm.Experiment {
		var e []arm.Experiment
		for _, t := range tests {
			e = append(e, arm.Experiment{Test: t})
		}
		return e
	}
	tests := []struct {
		tests []string
		want  int
	}{
		{[]string{"TestA"}, 1},
		{[]string{"TestA", "TestA", "TestA"}, 3},
		{[]string{"TestA", "TestB", "TestC", "TestA", "TestC"}, 2},
		{[]string{"TestB", "TestA", "TestA"}, 3}, // a cut that starts with TestB's turn
		{[]string{"TestC", "TestX", "TestX"}, 3}, // TestX unknown: a round each
	}
	for _, tt := range tests {
		if got := rounds(exps(tt.tests...), order); got != tt.want {
			t.Errorf("rounds(%v) = %d, want %d", tt.tests, got, tt.want)
		}
	}
	if got := testsPattern([]string{"TestA", "TestB.x"}); got != `(TestA|TestB\.x)` {
		t.Errorf("testsPattern = %q", got)
	}
}

func mustKey(t *testing.T, run *PlannedRun) string {
	k, _, ok := batchKey(run)
	if !ok {
		t.Fatal("not batchable")
	}
	return k
}

func TestBatchSplit(t *testing.T) {
	lines := []string{
		`{"event":"problem","pid":1,"message":"ATOMICX_X"}`,
		`{"event":"experiment","pid":1,"index":0,"t":1000}`,
		`{"event":"inject","pid":1,"site":"m.F#entry"}`,
		`{"event":"verdict","pid":1,"site":"m.G#entry","verdict":"non-atomic"}`,
		`{"event":"experiment-end","pid":1,"index":0,"t":1004,"failed":true,"skipped":false}`,
		`{"event":"verdict","pid":1,"site":"m.H#entry","verdict":"atomic"}`, // late: a goroutine of experiment 0
		`{"event":"experiment","pid":1,"index":1,"t":1005}`,
		`{"event":"inject","pid":1,"site":"m.F#entry"}`,
		`{"event":"absorbed","pid":1,"site":"m.G#entry"}`,
		`{"event":"experiment-end","pid":1,"index":1,"t":1006,"failed":false,"skipped":false}`,
		`{"event":"experiment","pid":1,"index":2,"t":1007}`,
		`{"event":"experiment-end","pid":1,"index":2,"t":1009,"failed":false,"skipped":false}`,
		`{"event":"experiment","pid":1,"index":3,"t":1010}`, // the process died in it
		`{"event":"inject","pid":1,"site":"m.F#entry"}`,
	}
	var evs []json.RawMessage
	for _, l := range lines {
		evs = append(evs, json.RawMessage(l))
	}
	b := &batch{}
	for range 5 {
		b.recs = append(b.recs, &Record{Kind: "experiment"})
	}
	b.split(evs, 77)
	if b.ended != 3 {
		t.Fatalf("%d experiments ended, want 3", b.ended)
	}
	type outcome struct {
		Status  string
		Fired   bool
		Millis  int64
		Events  int
		Batched bool
	}
	var got []outcome
	for _, r := range b.recs {
		got = append(got, outcome{r.Status, r.Fired, r.Millis, len(r.Events), r.Batched})
	}
	want := []outcome{
		{Failed, true, 4, 4, true},   // the problem, inject, verdict, and the late verdict
		{Absorbed, true, 1, 3, true}, // the problem, inject, absorbed
		{Passed, false, 2, 1, true},
		{"", false, 0, 0, false}, // to run again: nothing kept
		{"", false, 0, 0, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if b.recs[0].Began != 1000 || b.recs[0].Session != 77 {
		t.Errorf("began %d, session %d", b.recs[0].Began, b.recs[0].Session)
	}
}

// A fresh record replaces the batched one of its key that the journal
// holds before it; records without a fresh twin stay.
func TestReadJournalFreshReplaces(t *testing.T) {
	run := func(occ uint64, batched, fresh bool, status string) *Record {
		return &Record{V: JournalVersion, Kind: "experiment", Package: "m", Test: "TestA", Status: status, Batched: batched, Fresh: fresh,
			Arming: arm.Arming{Inject: arm.Injection{Fault: arm.FaultError, Occurrence: occ, Site: "m.F#entry"}}}
	}
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	var lines []string
	for _, r := range []*Record{run(1, true, false, Failed), run(2, true, false, Passed), run(1, false, true, Absorbed)} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	recs, problems, err := ReadJournal(path)
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Status)
	}
	if want := []string{Passed, Absorbed}; !cmp.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if !recs[1].Fresh || recs[0].Batched != true {
		t.Errorf("flags not kept: %+v %+v", recs[0], recs[1])
	}
}
