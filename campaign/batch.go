package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/atomicx/atomicx/rt/arm"
)

// Experiments in-process. A process per experiment costs its start, the
// runtime's and the packages' initialization and the test's own setup,
// which for most tests is most of the run. The engine instead runs the
// experiments of a package's tests in batches: the test binary runs the
// batch's tests round after round (-test.count), and at each run of a
// test the runtime arms the test's next experiment, if the batch has one
// for it then (see rt's batch runs). A batch lists its experiments in the
// order the binary will run them: round by round, and in a round in the
// order the tests are declared. An experiment that ends its process
// (a crash, os.Exit, a hang) loses the batch only the experiments after
// it, which run again in another batch; it runs again in a process of
// its own, whose outcome is its record.
//
// What a test leaves in memory from one run to the next (package-level
// state, a sync.Once, a cache) can make an experiment in a batch take
// another path than in a process of its own. So what a question reports
// of a batched run is first confirmed in a fresh process (Planner.Confirm
// and Agrees), as is a batched experiment whose fault did not fire; a
// test whose fresh reruns disagree with its batches has all its
// experiments run again, a process each.

// maxBatch is the most experiments one process runs: a crash loses at
// most this many, and the runs of a test are shared among the jobs.
const maxBatch = 64

// A batch is experiments that one process runs in turn.
type batch struct {
	recs   []*Record // the runs' records, filled in as they end
	exps   []arm.Experiment
	rounds int // of the batch's tests, to run exps (-test.count)
	// ended are the experiments that ended within the process, in
	// order: those after them are to run again. begun says that one
	// began at all: a test main that the build did not hand to the
	// runtime runs its test without experiments.
	ended int
	begun bool
	// progress counts an experiment that ended in the running process
	// (see watch), before its record is journaled; nil for none. counted
	// is how many it counted so.
	progress *progress
	counted  int
}

// batchKey says whether run can run in a batch, and with which others:
// the experiments of a package's tests whose environments differ in their
// injection and the calls they snapshot only. It returns the batch's
// key and what the run arms of its own. Examples and fuzz targets are
// not run through the runtime's RunTest: they get no batch.
func batchKey(run *PlannedRun) (string, arm.Experiment, bool) {
	r := run.Run
	if r.Kind != "experiment" || r.Arming.Inject.IsZero() || !strings.HasPrefix(r.Test, "Test") {
		return "", arm.Experiment{}, false
	}
	shared := []string{r.Package}
	for _, kv := range run.Env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case arm.EnvInject, arm.EnvSnapshotCalls:
			continue
		case arm.EnvBatch, arm.EnvLog, arm.EnvProfile:
			return "", arm.Experiment{}, false
		}
		shared = append(shared, kv)
	}
	env := map[string]string{}
	for _, kv := range run.Env {
		name, value, _ := strings.Cut(kv, "=")
		env[name] = value
	}
	a, problems := arm.Parse(func(name string) string { return env[name] })
	if len(problems) > 0 || a.Inject != r.Arming.Inject {
		return "", arm.Experiment{}, false
	}
	return strings.Join(shared, "\x00"), arm.Experiment{Test: r.Test, Inject: a.Inject, SnapshotCalls: a.SnapshotCalls}, true
}

// units groups the runs into what one worker runs at once: a batch of
// experiments, or a single run. A package's experiments are put in the
// order a batch runs them (see roundOrder), then cut into batches of at
// most maxBatch, and into at least as many as there are jobs when they
// are few, so that the jobs share them.
func (c *runner) units(todo []*PlannedRun) [][]*PlannedRun {
	if c.cfg.Fresh || c.cfg.Exec != "" || c.cfg.Planner == nil || !c.cfg.Planner.InProcess {
		units := make([][]*PlannedRun, len(todo))
		for i, r := range todo {
			units[i] = []*PlannedRun{r}
		}
		return units
	}
	var units [][]*PlannedRun
	groups := map[string]int{} // key: index in keys
	var keys []string
	var members [][]*PlannedRun
	for _, r := range todo {
		key, _, ok := batchKey(r)
		if !ok {
			units = append(units, []*PlannedRun{r})
			continue
		}
		i, seen := groups[key]
		if !seen {
			i = len(keys)
			groups[key] = i
			keys = append(keys, key)
			members = append(members, nil)
		}
		members[i] = append(members[i], r)
	}
	jobs := max(c.cfg.Jobs, 1)
	for _, m := range members {
		m = roundOrder(m, c.testOrder(m[0].Run.Package))
		size := min(maxBatch, max((len(m)+jobs-1)/jobs, 1))
		for len(m) > 0 {
			n := min(size, len(m))
			units = append(units, m[:n])
			m = m[n:]
		}
	}
	return units
}

// roundOrder orders a package's experiments as a batch of them runs: the
// first experiment of each test, in the order of the tests' declaration
// (order, the package's -test.list), then the second of each, and so on.
// A cut of that order is in that order too, so any run of them can be a
// batch. A test that order does not know comes after the others.
func roundOrder(runs []*PlannedRun, order map[string]int) []*PlannedRun {
	type test struct {
		name string
		runs []*PlannedRun
	}
	var tests []*test
	byName := map[string]*test{}
	for _, r := range runs {
		t := byName[r.Run.Test]
		if t == nil {
			t = &test{name: r.Run.Test}
			byName[r.Run.Test] = t
			tests = append(tests, t)
		}
		t.runs = append(t.runs, r)
	}
	rank := func(name string) int {
		if i, ok := order[name]; ok {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(tests, func(a, b *test) int { return rank(a.name) - rank(b.name) })
	out := make([]*PlannedRun, 0, len(runs))
	for round := 0; len(out) < len(runs); round++ {
		for _, t := range tests {
			if round < len(t.runs) {
				out = append(out, t.runs[round])
			}
		}
	}
	return out
}

// testOrder gives each test of the package its place in the package's
// -test.list, the order in which a binary runs its tests.
func (c *runner) testOrder(pkg string) map[string]int {
	order := map[string]int{}
	if c.res == nil {
		return order
	}
	for _, p := range c.res.Packages {
		if p.ImportPath == pkg {
			for i, t := range p.Tests {
				order[t] = i
			}
		}
	}
	return order
}

// rounds is how many rounds of its tests a binary runs to run exps in
// their order: a test runs once a round, in its place in order (see
// testOrder), so a round ends where the next experiment's test does not
// come after the last one's. Tests that order does not know are each
// given a round of their own.
func rounds(exps []arm.Experiment, order map[string]int) int {
	n := 1
	for i := 1; i < len(exps); i++ {
		prev, known := order[exps[i-1].Test]
		next, nextKnown := order[exps[i].Test]
		if !known || !nextKnown || next <= prev {
			n++
		}
	}
	return n
}

// batchTests are the tests of a batch's experiments, each once.
func batchTests(exps []arm.Experiment) []string {
	var tests []string
	for _, e := range exps {
		if !slices.Contains(tests, e.Test) {
			tests = append(tests, e.Test)
		}
	}
	return tests
}

// testsPattern is the -test.run pattern, without its anchors, that
// matches the tests named (top-level tests only: it has no slash).
func testsPattern(tests []string) string {
	if len(tests) == 1 {
		return regexp.QuoteMeta(tests[0])
	}
	quoted := make([]string, len(tests))
	for i, t := range tests {
		quoted[i] = regexp.QuoteMeta(t)
	}
	return "(" + strings.Join(quoted, "|") + ")"
}

// runBatch runs the runs, experiments of a package's tests, in as few processes
// as it can, and calls done with each record as it ends. An experiment
// that ends its batch's process runs again in a process of its own; those
// after it in another batch.
func (c *runner) runBatch(ctx context.Context, slot *jobSlot, p *Package, runs []*PlannedRun, prog *progress, done func(run *PlannedRun, rec *Record, counted bool)) {
	for len(runs) > 0 && ctx.Err() == nil {
		c.mu.Lock()
		alone := c.noBatches[p.Binary]
		c.mu.Unlock()
		if len(runs) == 1 || alone {
			e := *runs[0].Run
			c.runTest(ctx, slot, p, e.Test, runs[0].Env, &e)
			if ctx.Err() != nil {
				return
			}
			done(runs[0], &e, false)
			runs = runs[1:]
			continue
		}
		b := &batch{progress: prog}
		env := []string(nil)
		for _, r := range runs {
			e := *r.Run
			b.recs = append(b.recs, &e)
			_, exp, _ := batchKey(r)
			b.exps = append(b.exps, exp)
		}
		b.rounds = rounds(b.exps, c.testOrder(p.ImportPath))
		for _, kv := range runs[0].Env {
			name, _, _ := strings.Cut(kv, "=")
			if name != arm.EnvInject && name != arm.EnvSnapshotCalls {
				env = append(env, kv)
			}
		}
		c.runProcess(ctx, slot, p, runs[0].Run.Test, env, b.recs[0], b)
		if ctx.Err() != nil {
			return // interrupted: what ended is not journaled either, and a resume runs it
		}
		// The first b.counted ended runs were counted as they ended (see
		// watch); ends it read that the whole log does not confirm (a
		// marker out of order) are taken back.
		prog.retract(b.counted - b.ended)
		for i := range b.ended {
			done(runs[i], b.recs[i], i < b.counted)
		}
		if b.ended == len(runs) {
			return
		}
		if !b.begun {
			// Not a single experiment began: the binary's test main runs
			// its tests as written (see toolexec's compileTestMain), or
			// the process died before its first test. A process each,
			// from now on for the binary.
			c.mu.Lock()
			if c.noBatches == nil {
				c.noBatches = map[string]bool{}
			}
			c.noBatches[p.Binary] = true
			c.mu.Unlock()
			continue
		}
		// The experiment in progress when the process ended: in a
		// process of its own, which gives its crash or hang.
		e := *runs[b.ended].Run
		c.runTest(ctx, slot, p, e.Test, runs[b.ended].Env, &e)
		if ctx.Err() != nil {
			return
		}
		done(runs[b.ended], &e, false)
		runs = runs[b.ended+1:]
	}
}

// event is what the engine reads of the runtime's "experiment" and
// "experiment-end" events, which mark where each experiment of a batch
// begins and ends.
type event struct {
	Event   string `json:"event"`
	Index   int    `json:"index"`
	T       int64  `json:"t"`
	Failed  bool   `json:"failed"`
	Skipped bool   `json:"skipped"`
}

// The markers' kinds as the log spells them, for a quick look at a line.
var (
	markerNeedle = []byte(`"event":"experiment`)
	beginNeedle  = []byte(`"event":"experiment",`)
	endNeedle    = []byte(`"event":"experiment-end",`)
)

// split hands a batch's events to its records: those between an
// experiment's "experiment" and "experiment-end" events (and up to the
// next one's start: a goroutine the test left running) are its own, and
// those before the first, the runtime's problems, every record's. Each
// experiment that ended gets its outcome; b.ended says how many did, in
// order.
func (b *batch) split(evs []json.RawMessage, session int64) {
	var prefix []json.RawMessage
	cur := -1
	var began int64
	for _, ev := range evs {
		var m event
		isMarker := bytes.Contains(ev, markerNeedle) && json.Unmarshal(ev, &m) == nil &&
			(m.Event == "experiment" || m.Event == "experiment-end")
		if !isMarker {
			switch {
			case cur < 0:
				prefix = append(prefix, ev)
			case cur < len(b.recs):
				b.recs[cur].Events = append(b.recs[cur].Events, ev)
			}
			continue
		}
		if m.Index < 0 || m.Index >= len(b.recs) {
			continue
		}
		if m.Event == "experiment" {
			b.begun = true
			if m.Index != b.ended {
				break // not the experiment the batch is at: read no further
			}
			cur, began = m.Index, m.T
			r := b.recs[cur]
			r.Events = append(slices.Clone(prefix), r.Events...)
			r.Began, r.Session = m.T, session
			continue
		}
		if m.Index != cur {
			continue
		}
		r := b.recs[cur]
		r.Millis = max(m.T-began, 0)
		r.Batched = true
		r.Fired = hasEvent(r.Events, "inject")
		switch {
		case hasEvent(r.Events, "absorbed"):
			r.Status = Absorbed
		case m.Failed:
			r.Status = Failed
		default:
			r.Status = Passed
		}
		b.ended = cur + 1
	}
	for _, r := range b.recs[b.ended:] {
		r.Events, r.Millis, r.Began, r.Session = nil, 0, 0, 0
	}
}

// watch stops the batch's process once one experiment has run for
// longer than timeout, as the time limit of a run of its own would:
// it reads the event log for the experiments' starts and ends. Each end
// it reads counts in the progress line at once, so that the rate and
// the time left it shows follow the experiments, not the batches.
func (b *batch) watch(ctx context.Context, logPath string, timeout time.Duration, stop func()) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var off int64
	begun, ended := 0, 0
	since := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if f, err := os.Open(logPath); err == nil {
			f.Seek(off, io.SeekStart)
			data, _ := io.ReadAll(f)
			f.Close()
			// Only whole lines: a line being written is read next time.
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				data = data[:i+1]
				off += int64(len(data))
				if n := bytes.Count(data, beginNeedle); n > 0 {
					begun += n
					since = time.Now()
				}
				n := bytes.Count(data, endNeedle)
				ended += n
				for range n {
					b.progress.ahead()
				}
				b.counted += n
			}
		}
		if begun > ended && time.Since(since) > timeout {
			stop()
			return
		}
	}
}

// confirmBatches runs again, each in a fresh process, the batched runs
// of plan whose results the question reports (Planner.Confirm), and for
// each test the first batched experiment whose fault did not fire, which
// a test that carries state from run to run shows first. A rerun that
// finds what its batch did replaces the batched record, which it
// confirms. One that does not makes every batched experiment of its test
// run again, a process each (Record.FellBack).
func (c *runner) confirmBatches(ctx context.Context, plan []*PlannedRun) error {
	q := c.cfg.Planner
	if q == nil || !q.InProcess {
		return nil
	}
	runs := map[string]*PlannedRun{}
	var recs, batched []*Record
	for _, r := range plan {
		rec := c.done[r.Key]
		if rec == nil {
			continue
		}
		recs = append(recs, rec)
		if rec.Batched && !rec.Fresh {
			batched = append(batched, rec)
			runs[r.Key] = r
		}
	}
	if len(batched) == 0 {
		return nil
	}
	var picks []*Record
	if q.Confirm != nil {
		// The question sees every record of the campaign that the shard
		// has: its header and profile runs too, which its answers may
		// rest on.
		all := make([]*Record, 0, len(c.done))
		for _, r := range c.done {
			all = append(all, r)
		}
		slices.SortFunc(all, func(a, b *Record) int { return strings.Compare(a.Key(), b.Key()) })
		picks = q.Confirm(all)
	}
	unfired := map[string]bool{}
	for _, r := range batched {
		if t := r.Package + " " + r.Test; !r.Fired && !unfired[t] {
			unfired[t] = true
			picks = append(picks, r)
		}
	}
	var units [][]*PlannedRun
	var asked []*Record
	picked := map[string]bool{}
	for _, r := range picks {
		k := r.Key()
		if run := runs[k]; run != nil && !picked[k] && r.Batched && !r.Fresh {
			picked[k] = true
			units = append(units, []*PlannedRun{run})
			asked = append(asked, r)
		}
	}
	if len(units) == 0 {
		return nil
	}
	prog := newProgress(c.cfg.Progress, asked)
	prog.label = c.label + "confirming in a fresh process: "
	err := c.runUnitsAs(ctx, units, prog, func(r *Record) { r.Fresh = true })
	prog.finish()
	if err != nil {
		return err
	}
	// The tests whose reruns disagree run again whole.
	diverged := map[string]bool{}
	for _, b := range asked {
		fresh := c.done[b.Key()]
		agrees := b.Fired == fresh.Fired
		if agrees && b.Fired && q.Agrees != nil {
			agrees = q.Agrees(b, fresh)
		}
		if !agrees {
			diverged[b.Package+"\x00"+b.Test] = true
		}
	}
	if len(diverged) == 0 {
		return nil
	}
	units = units[:0]
	var again []*Record
	for _, r := range batched {
		if diverged[r.Package+"\x00"+r.Test] && !c.done[r.Key()].Fresh {
			units = append(units, []*PlannedRun{runs[r.Key()]})
			again = append(again, r)
		}
	}
	prog = newProgress(c.cfg.Progress, again)
	prog.label = c.label + "a process per experiment, for tests whose batches a fresh process did not confirm: "
	err = c.runUnitsAs(ctx, units, prog, func(r *Record) { r.Fresh, r.FellBack = true, true })
	prog.finish()
	return err
}
