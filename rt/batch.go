package rt

import (
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomicx/atomicx/rt/arm"
)

// A batch run (arm.EnvBatch) runs many experiments, of one test or of
// several, in one process: the test binary runs its tests round after
// round (-test.count), and each run of a test arms the batch file's next
// experiment if it is the test's, and is skipped if not. What every run
// pays once, the process's start and its packages' initialization, the
// batch pays once.
//
// The test main runs each test through RunTest, which arms the next
// experiment, logs an "experiment" event with its index, runs the test,
// then logs "experiment-end" with how the test ended, and disarms. A
// test that calls t.Parallel pauses with its experiment armed while the
// round's other tests run: they are skipped until it ends, so that one
// experiment at a time is armed. Between two experiments the runtime is
// reset to what a fresh process has (the reach and call counts of every
// site, the injection, the failure chains, the sampling), so that an
// experiment counts occurrences and numbers calls as the profile run, a
// process of its own, did. What a test leaves in memory outside of the
// runtime (package-level state, a sync.Once done, a cache filled) carries
// over, to its later runs and to the other tests': the campaign confirms
// in a fresh process what it reports, and runs a test a process per
// experiment when the two disagree.
//
// A test whose injected failure is absorbed ends at once when that
// happens on the test's own goroutine (its t.SkipNow), as a process of
// its own exits (see checkAbsorbed); on another goroutine, the test runs
// on and nothing more is logged for the experiment. A test that panics
// or exits ends the batch: its experiment has no "experiment-end", and
// the campaign runs it, and those after it, again.
//
// Goroutines that a test leaves running past its end may still run
// instrumented code while the next experiment is armed: they read the
// settings as the wrapper writes them, which a test that leaks
// goroutines into instrumented code must not rely on.
var batchRun struct {
	exps []arm.Experiment // the batch file's experiments
	on   bool             // a batch run: the settings name a batch file
	base arm.Arming       // what the experiments share
	next int              // index of the next experiment to run
	// running says that an experiment began and has not ended.
	running bool
	sites   sync.Mutex // guards tables
	// tables are the site tables of the instrumented packages, reset
	// between experiments, and handlers the error handlers whose state
	// a run changed (see touchHandler).
	tables   [][]Site
	handlers map[*Handler]bool
	// testGID is the goroutine of the test in progress, and skip ends
	// the test from it (t.SkipNow).
	testGID uint64
	skip    func()
	// over says that the experiment in progress is over (its failure
	// absorbed): the rest of its test logs nothing.
	over atomic.Bool
}

// readBatch reads the batch file that a names, and returns the settings
// between experiments: a's, nothing injected and no call snapshotted. A
// file that does not read is a problem of the run; its tests then run no
// experiment.
func readBatch(a arm.Arming) (arm.Arming, []string) {
	batchRun.on = true
	var problems []string
	data, err := os.ReadFile(a.Batch)
	if err == nil {
		batchRun.exps, err = arm.ParseBatch(string(data))
	}
	if err != nil {
		problems = append(problems, arm.EnvBatch+": "+err.Error())
	}
	a.Inject, a.SnapshotCalls = arm.Injection{}, ";"
	batchRun.base = a
	return a, problems
}

// registerTable lists a package's sites for the resets between a batch's
// experiments.
func registerTable(sites []Site) {
	if !batchRun.on {
		return
	}
	batchRun.sites.Lock()
	batchRun.tables = append(batchRun.tables, sites)
	batchRun.sites.Unlock()
}

// touchHandler lists h, whose state the run is about to change, for the
// reset after the experiment in progress: handlers are declared in arrays
// that the runtime meets one region at a time.
func touchHandler(h *Handler) {
	batchRun.sites.Lock()
	if batchRun.handlers == nil {
		batchRun.handlers = map[*Handler]bool{}
	}
	batchRun.handlers[h] = true
	batchRun.sites.Unlock()
}

// testingT is what the wrapper needs of a *testing.T, which the runtime
// cannot name: it imports no package of the standard library that a
// program does not.
type testingT interface {
	Name() string
	Failed() bool
	Skipped() bool
	SkipNow()
}

// Batched reports whether the run is a batch run: the test main then
// runs each test through RunTest.
func Batched() bool { return batchRun.on }

// RunTest runs one experiment of the batch: the next one, armed, then
// test, a run of the test function with t. The test main calls it in a
// batch run only (see Batched), for each run of each test.
func RunTest(t testingT, test func()) {
	i, ok := beginExperiment(t.Name(), t.SkipNow)
	if !ok {
		t.SkipNow() // not the test's turn, or past the batch's last experiment
	}
	returned := false
	defer func() {
		// A test that neither returned nor stopped by FailNow or
		// SkipNow is panicking: the process dies, and the experiment
		// gets no end.
		if returned || t.Failed() || t.Skipped() {
			endExperiment(i, t.Failed(), t.Skipped() && !batchRun.over.Load())
		}
	}()
	test()
	returned = true
}

// beginExperiment arms the next experiment of the batch for test and
// reports its index; false when none is left, when the next is another
// test's, or while another test's experiment is in progress.
func beginExperiment(test string, skip func()) (int, bool) {
	if batchRun.running || batchRun.next >= len(batchRun.exps) || batchRun.exps[batchRun.next].Test != test {
		return 0, false
	}
	i := batchRun.next
	batchRun.next++
	resetRun()
	a := batchRun.base
	a.Inject, a.SnapshotCalls = batchRun.exps[i].Inject, batchRun.exps[i].SnapshotCalls
	applyArming(a)
	batchRun.testGID, batchRun.skip = goroutineID(), skip
	batchRun.running = true
	batchRun.over.Store(false)
	writeLine(event("experiment").num("index", uint64(i)).num("t", uint64(time.Now().UnixMilli())).end())
	return i, true
}

// endExperiment logs how experiment i's test ended, and disarms.
func endExperiment(i int, failed, skipped bool) {
	batchRun.over.Store(false)
	e := event("experiment-end").num("index", uint64(i)).num("t", uint64(time.Now().UnixMilli()))
	e.boolean("failed", failed)
	e.boolean("skipped", skipped)
	writeLine(e.end())
	batchRun.skip, batchRun.running = nil, false
	applyArming(batchRun.base)
}

// absorbedInBatch ends the experiment in progress, whose injected failure
// was absorbed on goroutine gid (the one it was injected on): its test
// stops there if that is the test's goroutine, and logs nothing more.
func absorbedInBatch(gid uint64) {
	batchRun.over.Store(true)
	if gid == batchRun.testGID && batchRun.skip != nil {
		batchRun.skip()
	}
}

// resetRun puts the runtime's counts back where a fresh process has
// them: between the experiments of a batch, no call of the test is in
// progress.
func resetRun() {
	batchRun.sites.Lock()
	for _, t := range batchRun.tables {
		for i := range t {
			t[i].reset()
		}
	}
	for h := range batchRun.handlers {
		h.reset()
	}
	batchRun.handlers = nil
	batchRun.sites.Unlock()
	injected.fired.Store(false)
	injected.seq, injected.gid = 0, 0
	afterFault.Store(0)
	afterFaultChecks.Store(0)
	chains.Lock()
	chains.byGID = nil
	chains.Unlock()
	outsideWrites.Lock()
	outsideWrites.byGID = nil
	outsideWrites.Unlock()
	snapshotTime.start = time.Now()
	snapshotTime.spent.Store(0)
}

// reset clears what a run counted at s (see resetRun).
func (s *Site) reset() {
	s.hits.Store(0)
	s.calls.Store(0)
	s.targets.store(nil)
	s.retryUntil.Store(0)
	s.retries.Store(0)
	s.armed.Store(0)
	s.unnumbered.Store(false)
	s.beforeFaultMu.Lock()
	s.lastBeforeFault.gid, s.lastBeforeFault.seq = 0, 0
	s.beforeFaultMu.Unlock()
}

// reset clears what a run changed of h (see resetRun).
func (h *Handler) reset() {
	h.logged.Store(0)
	h.quiet = false
	h.armed.Store(0)
	h.hits.Store(0)
	h.execs.Store(0)
	h.whites.Store(0)
	h.wide.Store(0)
}
