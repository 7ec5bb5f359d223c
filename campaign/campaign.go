package campaign

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomicx/atomicx/gocmd"
	"github.com/atomicx/atomicx/rt/arm"
)

// Config is what a campaign does.
type Config struct {
	Patterns []string // packages whose tests are the workload
	Dir      string   // where the go command runs
	Journal  string   // directory holding the journal and the test binaries
	Atomicx  string   // the atomicx binary, for -toolexec
	// Identity returns the atomicx binary's identity. When set, the test
	// binaries are built with build keys (package gocmd): what the policy
	// does not instrument comes from the cache of plain builds.
	Identity  func() (string, error)
	Policy    string        // policy file to build with ("" : the one the go command finds)
	Jobs      int           // experiments run at once
	Timeout   time.Duration // per run
	MaxOccur  int           // occurrences per point and test that get an experiment
	EarlyStop bool          // end an experiment when the failure is absorbed
	// AllSnaps snapshots every call of every run. By default a profile
	// run snapshots nothing, and an experiment only the calls that the
	// profile run saw on the stack where the fault is injected.
	AllSnaps  bool
	Resume    bool     // skip work the journal has
	BuildArgs []string // extra go build flags (-tags, -race, ...)
	// Exec, when set, is a program workload: the one main package named by
	// Patterns is built instrumented, and Exec (a script or program) runs
	// once per run with the binary's path in $ATOMICX_BINARY; exit status
	// 0 means pass. Otherwise the packages' tests are the workload.
	Exec string
	// Run, when not nil, selects the tests of the workload by name, as
	// go test -run does for top-level tests.
	Run      *regexp.Regexp
	Progress io.Writer // progress lines; nil for none
	// Header is what the caller knows of the campaign (the command line,
	// atomicx's version, the date); Run fills in the rest and journals it.
	Header Header
	// ExtraEnv is added to the environment of every run.
	ExtraEnv []string
	// Cover builds the workload with statement coverage of the packages
	// named by Patterns: profile runs write their counters under
	// CoverDirs' first directory, every other run (a fault armed, or a
	// rerun after the profile) under its second.
	Cover bool
	// Planner is the question the campaign asks.
	Planner *Planner
	// QuestionData are the question's own options, a JSON object that the
	// question encodes and its planner reads (Options.QuestionData).
	QuestionData json.RawMessage
	// Fresh runs every experiment in a process of its own, even for a
	// question whose experiments run in batches (Planner.InProcess).
	Fresh bool
	// Oracle, with Exec, is a domain check run after each run of the
	// program workload (see runOracle): the run passes only if Exec and
	// Oracle both exit 0 within the time limit.
	Oracle string
}

// Package is a package of the workload.
type Package struct {
	ImportPath string
	Dir        string
	Binary     string
	Tests      []string
}

// Result is what a campaign did.
type Result struct {
	Packages    []*Package
	Records     []*Record // everything in the journal, resumed work included
	Problems    []Problem
	Experiments int // experiments run now

	// The other runs done now, by kind, named as in the report:
	// profile runs, natural reruns and rechecks.
	ProfileRuns, NaturalRuns, Rechecks int
	// Resumed counts the runs of each kind that the journal already
	// had (-resume), keyed by Record.Kind.
	Resumed map[string]int
	// Batched counts the experiments run now in batches, many in one
	// process, and Confirmed the runs again in a fresh process of
	// batched ones (see Planner.InProcess).
	Batched, Confirmed int
	Elapsed            time.Duration // wall time of this campaign command
}

// Run carries out the campaign in one process: the plan (MakePlan), its
// one shard (RunShard) on the campaign's own journal, and the merge.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	p, res, err := makePlan(ctx, cfg, start)
	if err != nil {
		return nil, err
	}
	journalPath := filepath.Join(cfg.Journal, "journal.jsonl")
	sres, err := RunShard(ctx, p, ShardConfig{Shard: Shard{1, 1}, PlanDir: cfg.Journal, Packages: res.Packages,
		Dir: cfg.Dir, Exec: cfg.Exec, Oracle: cfg.Oracle, Journal: journalPath, Jobs: cfg.Jobs, Fresh: cfg.Fresh, Progress: cfg.Progress, ExtraEnv: cfg.ExtraEnv, Own: true,
		Session: start})
	if err != nil {
		return nil, err
	}
	m, err := Merge(p, []*ShardJournal{{Path: journalPath, Shard: Shard{1, 1}, Records: sres.Records, Problems: sres.Problems}})
	if err != nil {
		return nil, err
	}
	res.Records = m.Records
	res.Problems = append(res.Problems, m.Problems...)
	res.Experiments, res.NaturalRuns, res.Rechecks = sres.Experiments, sres.NaturalRuns, sres.Rechecks
	res.Batched, res.Confirmed = sres.Batched, sres.Confirmed
	for k, n := range sres.Resumed {
		res.Resumed[k] += n
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// MakePlan builds the workload's binaries into cfg.Journal/bin, runs the
// profile runs (journaled in cfg.Journal/journal.jsonl, resumed from
// there with cfg.Resume), plans the runs with cfg.Planner, and writes the plan into cfg.Journal. The result counts the profile runs.
func MakePlan(ctx context.Context, cfg Config) (*Plan, *Result, error) {
	return makePlan(ctx, cfg, time.Now())
}

// makePlan is MakePlan in a command that started at start.
func makePlan(ctx context.Context, cfg Config, start time.Time) (*Plan, *Result, error) {
	if cfg.Planner == nil {
		return nil, nil, errors.New("a campaign asks a question: Config.Planner is not set")
	}
	if cfg.Jobs <= 0 {
		cfg.Jobs = 1
	}
	if cfg.MaxOccur <= 0 {
		cfg.MaxOccur = 3
	}
	if err := os.MkdirAll(filepath.Join(cfg.Journal, "bin"), 0o777); err != nil {
		return nil, nil, err
	}
	// What a campaign killed in this directory left of its runs: they
	// are the directory's own, as only one campaign runs in it.
	if err := removeTree(filepath.Join(cfg.Journal, workDirName)); err != nil {
		return nil, nil, err
	}
	journalPath := filepath.Join(cfg.Journal, "journal.jsonl")
	if !cfg.Resume {
		if err := os.Remove(journalPath); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		if err := os.RemoveAll(filepath.Join(cfg.Journal, coverDir)); err != nil {
			return nil, nil, err
		}
	}
	if cfg.Cover {
		tests, injected := CoverDirs(cfg.Journal)
		for _, d := range []string{tests, injected} {
			if err := os.MkdirAll(d, 0o777); err != nil {
				return nil, nil, err
			}
		}
	}
	old, problems, err := ReadJournal(journalPath)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range problems {
		var oldRec OldRecordError
		if errors.As(p.Err, &oldRec) {
			return nil, nil, fmt.Errorf("cannot resume %s: %v", journalPath, oldRec)
		}
	}
	done := map[string]*Record{}
	for _, r := range old {
		done[r.Key()] = r
	}
	hdr, err := header(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	prev := HeaderOf(old)
	if prev != nil {
		if why := sameCampaign(prev, hdr); why != "" {
			return nil, nil, fmt.Errorf("the journal in %s is of another campaign (%s): run without -resume to start over, or give another -journal", cfg.Journal, why)
		}
		h := *prev
		h.Plan = "" // the plan's ID is not part of what it hashes
		hdr = &h
	}
	j, err := OpenJournal(journalPath)
	if err != nil {
		return nil, nil, err
	}
	defer j.Close()
	if prev == nil {
		if err := j.Append(&Record{Kind: "campaign", Campaign: hdr}); err != nil {
			return nil, nil, err
		}
	}

	pkgs, err := listPackages(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{Packages: pkgs, Problems: problems, Resumed: map[string]int{}}
	for _, r := range old {
		if r.Kind == "profile" {
			res.Resumed[r.Kind]++
		}
	}
	c := &runner{cfg: cfg, journal: j, done: done, res: res, session: start.UnixMilli(), extraEnv: cfg.ExtraEnv}
	defer c.removeSlots()
	if cfg.Identity != nil {
		gc := gocmd.Config{Atomicx: cfg.Atomicx, Identity: cfg.Identity, Dir: cfg.Dir, Env: c.buildEnv()}
		if c.keys, err = gocmd.KeysFor(ctx, gc, cfg.Policy, c.goArgs(cfg.Patterns...)); err != nil {
			return nil, nil, err
		}
	}
	if err := c.buildAll(ctx, pkgs); err != nil {
		return nil, nil, err
	}
	profiles, err := c.profiles(ctx, pkgs)
	if err != nil {
		return nil, nil, err
	}
	opt := Options{TimeoutMs: cfg.Timeout.Milliseconds(), MaxOccur: cfg.MaxOccur, EarlyStop: cfg.EarlyStop, AllSnaps: cfg.AllSnaps,
		QuestionData: cfg.QuestionData}
	planner := cfg.Planner
	plan := &Plan{Planner: planner.Name, Header: hdr, Options: opt, planner: planner}
	var passed []*Record // for planner.AllRuns
	for _, p := range pkgs {
		sum, err := fileSHA256(p.Binary)
		if err != nil {
			return nil, nil, err
		}
		plan.Packages = append(plan.Packages, &PlanPackage{ImportPath: p.ImportPath, Dir: relSlash(hdr.ModuleRoot, p.Dir),
			Binary: relSlash(cfg.Journal, p.Binary), SHA256: sum, Tests: p.Tests})
		for _, t := range p.Tests {
			prof := profiles[p.ImportPath+"\x00"+t]
			// As journaled: the same plan (and ID) whether the profile
			// run ran now or was resumed from the journal.
			journaled := *prof
			journaled.V = JournalVersion
			plan.Profiles = append(plan.Profiles, &journaled)
			if prof.Status != "pass" {
				c.logf("%s %s: %s in the profile run; no experiments for it. Its output ended with:\n%s",
					p.ImportPath, t, prof.Status, indent(lastLines(prof.Output, 10)))
				continue
			}
			if planner.AllRuns != nil {
				passed = append(passed, prof)
				continue
			}
			plan.Runs = append(plan.Runs, planner.Runs(prof, opt)...)
		}
	}
	if planner.AllRuns != nil {
		sort.Slice(passed, func(i, j int) bool { return passed[i].Key() < passed[j].Key() })
		plan.Runs = planner.AllRuns(passed, opt)
	}
	if err := WritePlan(cfg.Journal, plan); err != nil {
		return nil, nil, err
	}
	if err := namePlan(j, prev, plan.ID); err != nil {
		return nil, nil, err
	}
	if err := j.Close(); err != nil {
		return nil, nil, err
	}
	res.Elapsed = time.Since(start)
	return plan, res, nil
}

// namePlan names the plan in the journal, as a shard's journal names it
// in its header, so that a report made from the journal alone names the
// plan as the campaign's own report does. It appends a "plan" record,
// which ReadJournal folds into the header: the journal, by then holding
// every profile run's events, is not written again. prev is the header
// the journal had when the campaign began (nil when it had none); when
// it names the plan already (a resumed campaign), nothing is appended.
func namePlan(j *Journal, prev *Header, id string) error {
	if prev != nil && prev.Plan == id {
		return nil
	}
	return j.Append(&Record{Kind: "plan", Plan: id})
}

// header completes the caller's part of the header with what the
// campaign builds with and where.
func header(ctx context.Context, cfg Config) (*Header, error) {
	h := cfg.Header
	h.Dir, h.Journal, h.Policy, h.Exec, h.Atomicx = cfg.Dir, cfg.Journal, cfg.Policy, cfg.Exec, cfg.Atomicx
	h.Patterns = append([]string(nil), cfg.Patterns...)
	h.Cover = cfg.Cover
	if !cfg.Planner.Unnamed {
		h.Question = cfg.Planner.Name
		h.OneAtATime = cfg.Planner.OneAtATime
		if cfg.Planner.HeaderData != nil {
			h.QuestionData = cfg.Planner.HeaderData(cfg.QuestionData)
		}
	}
	h.Oracle = cfg.Oracle
	h.BuildArgs = append([]string{}, cfg.BuildArgs...)
	if cfg.Run != nil {
		h.Run = cfg.Run.String()
	}
	if err := describeModule(ctx, &h, cfg.Dir); err != nil {
		return nil, err
	}
	return &h, nil
}

type runner struct {
	cfg     Config
	journal *Journal
	done    map[string]*Record
	res     *Result
	session int64 // when this campaign command started, in Unix ms
	mu      sync.Mutex
	notes   map[string]bool // build notes already shown
	keys    *gocmd.Keys     // the build keys, when cfg.Identity is set
	// extraEnv is added to every run's environment; label starts the
	// progress lines (a shard's name).
	extraEnv []string
	label    string
	// slots are the job slots' copies of the module (jobSlot).
	slots jobSlots
	// noBatches are the test binaries that ran no experiment of a batch
	// (see runBatch): their experiments run a process each.
	noBatches map[string]bool
}

// goArgs is the go command line that builds the workload's packages: a
// test binary each, or, for a program workload, the program.
func (c *runner) goArgs(pkgs ...string) []string {
	verb := []string{"test", "-c"}
	if c.cfg.Exec != "" {
		verb = []string{"build"}
	}
	if c.cfg.Cover {
		verb = append(verb, coverFlags(c.cfg.Patterns, c.cfg.BuildArgs)...)
	}
	return append(append(verb, c.cfg.BuildArgs...), pkgs...)
}

func (c *runner) logf(format string, args ...any) {
	if c.cfg.Progress != nil {
		fmt.Fprintf(c.cfg.Progress, format+"\n", args...)
	}
}

// listPackages lists the workload's packages that have tests.
func listPackages(ctx context.Context, cfg Config) ([]*Package, error) {
	args := append([]string{"list", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles,Error"}, cfg.BuildArgs...)
	args = append(append(args, "--"), cfg.Patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = cfg.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list %s: %v\n%s", strings.Join(cfg.Patterns, " "), err, stderr.Bytes())
	}
	var pkgs []*Package
	dec := json.NewDecoder(&stdout)
	for {
		var p struct {
			ImportPath, Dir           string
			TestGoFiles, XTestGoFiles []string
			Error                     *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("package %s: %s", p.ImportPath, p.Error.Err)
		}
		if cfg.Exec == "" && len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 {
			continue
		}
		pkgs = append(pkgs, &Package{ImportPath: p.ImportPath, Dir: p.Dir})
	}
	if cfg.Exec != "" && len(pkgs) != 1 {
		return nil, fmt.Errorf("-exec runs one program: name exactly one main package (got %d packages)", len(pkgs))
	}
	return pkgs, nil
}

// execWorkload is the name a program workload's runs are journaled under.
const execWorkload = "exec"

// buildAll builds the packages' test binaries, as many at once as the
// campaign has jobs: each build is a go command of its own, most of whose
// time, once the build cache has the packages, is its start and the
// link. The error is that of the first package, in order, that failed.
func (c *runner) buildAll(ctx context.Context, pkgs []*Package) error {
	errs := make([]error, len(pkgs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(max(c.cfg.Jobs, 1), len(pkgs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = c.build(ctx, pkgs[i])
			}
		}()
	}
	for i := range pkgs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// build compiles the package's test binary once, instrumented, and lists
// its tests.
func (c *runner) build(ctx context.Context, p *Package) error {
	c.logf("building %s", p.ImportPath)
	if err := c.compile(ctx, p); err != nil {
		return err
	}
	if c.cfg.Exec != "" {
		p.Tests = []string{execWorkload}
		return nil
	}
	// A TestMain runs before the tests are listed: in a copy, so that
	// what it writes stays out of the user's tree.
	slot := c.slots.take()
	defer c.slots.put(slot)
	dir, _, err := c.privateDir(slot, p.Dir, p.Dir)
	if err != nil {
		return fmt.Errorf("listing the tests of %s: %v", p.ImportPath, err)
	}
	cmd := exec.CommandContext(ctx, p.Binary, "-test.list", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("listing the tests of %s: %v", p.ImportPath, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(name, "Test") && !strings.HasPrefix(name, "Example") && !strings.HasPrefix(name, "Fuzz") {
			continue
		}
		if c.cfg.Run == nil || c.cfg.Run.MatchString(name) {
			p.Tests = append(p.Tests, name)
		}
	}
	return nil
}

// compile builds the package's binary into the campaign's bin
// directory, instrumented, and sets p.Binary.
func (c *runner) compile(ctx context.Context, p *Package) error {
	p.Binary = filepath.Join(c.cfg.Journal, "bin", binaryName(p.ImportPath))
	if c.cfg.Exec != "" {
		p.Binary = strings.TrimSuffix(p.Binary, ".test")
	}
	args := c.goArgs("-o", p.Binary, p.ImportPath)
	env := c.buildEnv()
	if c.keys != nil {
		var err error
		if args, err = c.keys.Args(ctx, args); err != nil {
			return fmt.Errorf("building %s: %v", p.ImportPath, err)
		}
		env = c.keys.Env()
	} else {
		args = append([]string{args[0], "-toolexec", c.cfg.Atomicx}, args[1:]...)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = c.cfg.Dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("building %s: %v\n%s", p.ImportPath, err, out)
	}
	c.showNotes(out)
	return nil
}

// The lines of a build's output that say what instrumentation left out
// of a package (toolexec writes them): calls of error-returning functions
// that are not injection points, packages built without instrumentation.
const (
	buildNote    = "atomicx: note: "
	buildWarning = "atomicx: warning: "
)

// showNotes repeats, once per campaign, the notes and warnings of a
// build's output: what the campaign will never inject a fault into, and
// why.
func (c *runner) showNotes(out []byte) {
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, buildNote) && !strings.HasPrefix(line, buildWarning) {
			continue
		}
		c.mu.Lock()
		seen := c.notes[line]
		if c.notes == nil {
			c.notes = map[string]bool{}
		}
		c.notes[line] = true
		c.mu.Unlock()
		if !seen {
			c.logf("%s", strings.TrimPrefix(line, "atomicx: "))
		}
	}
}

func (c *runner) buildEnv() []string {
	env := os.Environ()
	if c.cfg.Policy != "" {
		env = append(env, "ATOMICX_POLICY="+c.cfg.Policy)
	}
	return env
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func binaryName(importPath string) string {
	return unsafeChars.ReplaceAllString(importPath, "_") + ".test"
}

// profiles runs the profile run of every test on cfg.Jobs workers and
// returns the records by package and test.
func (c *runner) profiles(ctx context.Context, pkgs []*Package) (map[string]*Record, error) {
	type job struct {
		p    *Package
		test string
	}
	var jobs []job
	for _, p := range pkgs {
		for _, t := range p.Tests {
			jobs = append(jobs, job{p, t})
		}
	}
	out := map[string]*Record{}
	var mu sync.Mutex
	var firstErr error
	work := make(chan job)
	var wg sync.WaitGroup
	for range c.cfg.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slot := c.slots.take()
			defer c.slots.put(slot)
			for j := range work {
				rec, err := c.profile(ctx, slot, j.p, j.test)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if rec != nil {
					out[j.p.ImportPath+"\x00"+j.test] = rec
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		work <- j
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, ctx.Err()
}

// profile runs one test with no fault armed, logging the points it
// reaches and its natural failures.
func (c *runner) profile(ctx context.Context, slot *jobSlot, p *Package, test string) (*Record, error) {
	rec := &Record{Kind: "profile", Package: p.ImportPath, Test: test}
	if r, ok := c.done[rec.Key()]; ok {
		return r, nil
	}
	a := arm.Arming{Profile: uint64(c.cfg.MaxOccur), Snapshots: arm.SnapshotsNone}
	if c.cfg.AllSnaps {
		a.Snapshots = arm.SnapshotsAll // said explicitly: unset means sampled
	}
	// One run per binary lists the functions left as written: every run
	// would list the same ones.
	a.ListAsWritten = len(p.Tests) > 0 && test == p.Tests[0]
	c.runTest(ctx, slot, p, test, a.Env(), rec)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.journal.Append(rec); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.res.ProfileRuns++
	c.mu.Unlock()
	c.logf("profiled %s %s: %s, %d points reached", p.ImportPath, test, rec.Status, len(Reaches(rec)))
	return rec, nil
}

// A Reach is a reach event of a run's event log (Record.Events): a
// point that the run reached, as a profile run logs them for the
// planners. The runtime logs events of several other kinds, which the
// questions read with types of their own: the engine reads none.
type Reach struct {
	Site       string `json:"site"`
	Pos        string `json:"pos"`
	Occurrence uint64 `json:"occurrence"`
	Faults     uint64 `json:"faults"`
	Stack      string `json:"stack"` // calls in progress on the stack: "N@SITE;..."
	// Unnumbered lists the functions ("SITE;...") with a call in progress
	// on the stack that the profile run did not number: past a function's
	// first calls (65536), it counts no more of them. An experiment at the
	// point cannot snapshot that call.
	Unnumbered string `json:"unnumbered"`
}

// The runtime's fault bits (rt.FaultError, rt.FaultPanic): the faults a
// reach allows (Reach.Faults).
const (
	FaultError = 1 << iota
	FaultPanic
)

// FaultNames are the faults a reach allows, as an arming names them
// ("error", "panic").
func (r Reach) FaultNames() []string {
	var f []string
	if r.Faults&FaultError != 0 {
		f = append(f, "error")
	}
	if r.Faults&FaultPanic != 0 {
		f = append(f, "panic")
	}
	return f
}

// Reaches are the reach events of a run, one per point and occurrence,
// in the order of their sites and occurrences.
func Reaches(rec *Record) []Reach {
	var out []Reach
	seen := map[string]bool{}
	for _, raw := range rec.Events {
		var e struct {
			Event string `json:"event"`
			Reach
		}
		if json.Unmarshal(raw, &e) != nil || e.Event != "reach" {
			continue
		}
		r := e.Reach
		k := fmt.Sprintf("%s#%d", r.Site, r.Occurrence)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Site != out[j].Site {
			return out[i].Site < out[j].Site
		}
		return out[i].Occurrence < out[j].Occurrence
	})
	return out
}

// experiments runs the planned runs on cfg.Jobs workers, each with its
// own copy of its record, and journals each as it ends. The experiments
// of a question that runs them in-process run in batches (see batch.go),
// and what the question reports of them is then confirmed in a fresh
// process (confirmBatches).
func (c *runner) experiments(ctx context.Context, plan []*PlannedRun) error {
	var todo []*PlannedRun
	var kinds []*Record
	for _, e := range plan {
		if _, ok := c.done[e.Key]; ok {
			continue // counted in Result.Resumed
		}
		todo = append(todo, e)
		kinds = append(kinds, e.Run)
	}
	if len(todo) == 0 {
		return nil
	}
	prog := newProgress(c.cfg.Progress, kinds)
	prog.label = c.label
	if err := c.runUnits(ctx, c.units(todo), prog); err != nil {
		prog.finish()
		return err
	}
	prog.finish()
	return c.confirmBatches(ctx, plan)
}

// runUnits runs units (see units) on cfg.Jobs workers, and journals each
// run as it ends.
func (c *runner) runUnits(ctx context.Context, units [][]*PlannedRun, prog *progress) error {
	return c.runUnitsAs(ctx, units, prog, nil)
}

// runUnitsAs is runUnits, each record made as mark says before it is
// journaled (nil: as it ran).
func (c *runner) runUnitsAs(ctx context.Context, units [][]*PlannedRun, prog *progress, mark func(*Record)) error {
	pkgs := map[string]*Package{}
	for _, p := range c.res.Packages {
		pkgs[p.ImportPath] = p
	}
	work := make(chan []*PlannedRun)
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	// done journals a run's record; counted says that the progress line
	// counted the run already (progress.ahead).
	done := func(run *PlannedRun, e *Record, counted bool) {
		if mark != nil {
			mark(e)
		}
		if err := c.journal.Append(e); err != nil {
			errOnce.Do(func() { firstErr = err })
		}
		c.mu.Lock()
		c.done[run.Key] = e
		switch {
		case e.Fresh:
			c.res.Confirmed++
		case e.Kind == "natural":
			c.res.NaturalRuns++
		case e.Kind == "recheck":
			c.res.Rechecks++
		default:
			c.res.Experiments++
		}
		if e.Batched {
			c.res.Batched++
		}
		c.mu.Unlock()
		if !counted {
			prog.step()
		}
	}
	for range c.cfg.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slot := c.slots.take()
			defer c.slots.put(slot)
			for unit := range work {
				p := pkgs[unit[0].Run.Package]
				if p == nil {
					errOnce.Do(func() {
						firstErr = fmt.Errorf("a run of %s, which is not among the workload's packages", unit[0].Run.Package)
					})
					continue
				}
				if len(unit) > 1 {
					c.runBatch(ctx, slot, p, unit, prog, done)
					continue
				}
				e := *unit[0].Run
				c.runTest(ctx, slot, p, e.Test, unit[0].Env, &e)
				if ctx.Err() != nil {
					continue // interrupted: not finished, so not journaled; a resume runs it
				}
				done(unit[0], &e, false)
			}
		}()
	}
	for _, u := range units {
		if ctx.Err() != nil {
			break
		}
		work <- u
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// runTest runs one test of a package's binary with extra environment
// and fills in rec's outcome and events. The run has a directory of its
// own (its TMPDIR, event log and output) and runs in the slot's copy of
// the module (jobSlot): in the copy of the package's directory, or for a
// program workload of the directory the campaign runs in (script and
// oracle alike).
func (c *runner) runTest(ctx context.Context, slot *jobSlot, p *Package, test string, env []string, rec *Record) {
	c.runProcess(ctx, slot, p, test, env, rec, nil)
}

// runProcess is runTest, or, with b, the run of a batch (see
// runBatch): rec is then b's first record, and b's records get their
// outcomes and events.
func (c *runner) runProcess(ctx context.Context, slot *jobSlot, p *Package, test string, env []string, rec *Record, b *batch) {
	if err := os.MkdirAll(c.workDir(), 0o777); err != nil {
		rec.Status, rec.Output = NotRun, err.Error()
		return
	}
	tmp, err := os.MkdirTemp(c.workDir(), "run-")
	if err != nil {
		rec.Status, rec.Output = NotRun, err.Error()
		return
	}
	defer os.RemoveAll(tmp)
	workDir := p.Dir
	if c.cfg.Exec != "" {
		workDir = c.cfg.Dir
	}
	dir, cp, err := c.privateDir(slot, p.Dir, workDir)
	if err != nil {
		rec.Status, rec.Output = NotRun, err.Error()
		return
	}
	logPath := filepath.Join(tmp, "events.jsonl")
	timeout := c.cfg.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	count, runs := 1, 1 // -test.count, and the runs that many rounds make
	if b != nil {
		count, runs = b.rounds, len(b.recs)
		batchPath := filepath.Join(tmp, "batch")
		if err := os.WriteFile(batchPath, arm.FormatBatch(b.exps), 0o666); err != nil {
			rec.Status, rec.Output = NotRun, err.Error()
			return
		}
		env = append(env, arm.Arming{Batch: batchPath}.Env()...)
	}
	rctx, cancel := context.WithTimeout(ctx, time.Duration(runs)*timeout)
	defer cancel()
	var cmd *exec.Cmd
	if c.cfg.Exec != "" {
		rec.Exec, rec.Binary = c.cfg.Exec, p.Binary
		cmd = exec.CommandContext(rctx, c.cfg.Exec)
		env = append(env, "ATOMICX_BINARY="+p.Binary)
	} else {
		run := regexp.QuoteMeta(test)
		if b != nil {
			run = testsPattern(batchTests(b.exps))
		}
		cmd = exec.CommandContext(rctx, p.Binary, "-test.run=^"+run+"$", "-test.count="+strconv.Itoa(count),
			"-test.timeout="+(time.Duration(runs)*timeout+10*time.Second).String())
	}
	if c.cfg.Planner != nil && c.cfg.Planner.OneAtATime {
		env = append(env, "GOMAXPROCS=1")
		if c.cfg.Exec == "" {
			cmd.Args = append(cmd.Args, "-test.parallel=1")
		}
	}
	cmd.Dir = dir
	if c.cfg.Cover {
		covDir := filepath.Join(tmp, coverDir)
		os.Mkdir(covDir, 0o777) // a failure shows as no counters
		defer keepCounters(covDir, c.cfg.Journal, rec.Kind)
		env = append(env, "GOCOVERDIR="+covDir)
		if c.cfg.Exec == "" {
			cmd.Args = append(cmd.Args, "-test.gocoverdir="+covDir)
		}
	}
	env = append(append(env, c.extraEnv...), arm.Arming{Log: logPath}.Env()...)
	env = append(env, "TMPDIR="+tmp, "GOTMPDIR="+tmp, "PWD="+dir)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd)
	if c.cfg.Exec == "" {
		// A test binary stopped at the time limit first dumps its
		// goroutines: where it hung is an answer (a deadlock in the
		// function vet -confirm runs), and WaitDelay bounds the dump.
		cmd.Cancel = func() error {
			if ctx.Err() == nil && quitForStacks(cmd) == nil {
				return nil
			}
			return killGroup(cmd)
		}
	}
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	var whole *os.File
	if c.cfg.Exec != "" && c.cfg.Oracle != "" {
		// The oracle reads the whole output, not its tail.
		if whole, err = os.Create(filepath.Join(tmp, "output")); err == nil {
			defer whole.Close()
			cmd.Stdout = io.MultiWriter(&out, whole)
			cmd.Stderr = cmd.Stdout
		}
	}
	began := time.Now()
	usage := func() int64 { return diskUsage(tmp) }
	if cp != nil {
		// The watch may outlive the run by a tick, into the next reset:
		// it reads nothing of the copy that a reset changes.
		copyDir, copySize := cp.dst, cp.size
		usage = func() int64 { return diskUsage(tmp) + max(diskUsage(copyDir)-copySize, 0) }
	}
	overDisk := watchDisk(rctx, usage, maxRunDisk, cancel)
	var watched chan struct{}
	stopWatch := func() {}
	if b != nil {
		wctx, cancelWatch := context.WithCancel(rctx)
		watched = make(chan struct{})
		go func() {
			defer close(watched)
			b.watch(wctx, logPath, timeout, cancel)
		}()
		stopWatch = func() { cancelWatch(); <-watched }
	}
	runErr := cmd.Run()
	stopWatch()
	// What the run started and left behind must not outlive it: it
	// would go on writing into the run's files, or into the next run's.
	killGroup(cmd)
	if whole != nil && rctx.Err() == nil {
		runErr = c.runOracle(rctx, dir, p.Binary, whole.Name(), runErr, &out)
	}
	if b != nil {
		b.split(readEvents(logPath, int64(runs)*eventsBound(rec.Kind)), c.session)
		return
	}
	rec.Millis = time.Since(began).Milliseconds()
	rec.Began, rec.Session = began.UnixMilli(), c.session
	rec.Events = readEvents(logPath, eventsBound(rec.Kind))
	switch {
	case overDisk.Load():
		rec.Status = Crashed
		fmt.Fprintf(&out, "\natomicx: stopped the run: its event log, output, temporary files and the files it wrote into its copy of the module took over %d MiB\n", maxRunDisk>>20)
		rec.Output = out.String()
		return
	case rctx.Err() == context.DeadlineExceeded:
		rec.Status = Hung
		rec.Stacks = out.goroutines()
	case hasEvent(rec.Events, "absorbed"):
		rec.Status = Absorbed
	default:
		rec.Status = runOutcome(runErr, c.cfg.Exec != "", out.sawTestFailure())
	}
	rec.Fired = hasEvent(rec.Events, "inject")
	keepFailure := rec.Kind == "profile" || c.cfg.Planner != nil && c.cfg.Planner.FailureOutput
	if rec.Status == Crashed || rec.Status != Passed && rec.Status != Absorbed && keepFailure {
		rec.Output = out.String()
	}
	if rec.Status == Crashed {
		rec.Died = out.death()
		rec.Stacks = out.goroutines() // all goroutines asleep: a deadlock
	}
}

// runOracle runs the program workload's oracle after its script ended
// with runErr, in dir (the script's) and within the run's time
// limit, and returns the run's outcome as runErr does: the script's when
// it failed, else the oracle's. The oracle gets atomicx's environment
// without the run's arming, and ATOMICX_BINARY (the instrumented
// binary), ATOMICX_EXIT_STATUS (the script's exit status, -1 when a
// signal ended it) and ATOMICX_OUTPUT (the path of a file holding the
// script's standard output and error, interleaved as written). Its own
// output goes into the run's.
func (c *runner) runOracle(ctx context.Context, dir, binary, output string, runErr error, out io.Writer) error {
	status := 0
	if runErr != nil {
		status = -1
		var exit *exec.ExitError
		if errors.As(runErr, &exit) {
			status = exit.ExitCode()
		}
	}
	cmd := exec.CommandContext(ctx, c.cfg.Oracle)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PWD="+dir, "ATOMICX_BINARY="+binary, fmt.Sprintf("ATOMICX_EXIT_STATUS=%d", status), "ATOMICX_OUTPUT="+output)
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd)
	cmd.Stdout, cmd.Stderr = out, out
	oracleErr := cmd.Run()
	killGroup(cmd)
	if runErr != nil {
		return runErr
	}
	return oracleErr
}

// runOutcome names how a run that neither hung nor was ended early ended:
// "pass", "fail" (a test verdict, or a program's exit status), "crash"
// (the binary died without a test verdict) or "error" (it did not start).
// A test that panics fails: the testing package prints its "--- FAIL"
// line before the panic stops the binary. A test binary that exits
// non-zero without such a line died some other way: a fatal error,
// os.Exit, a panic on another goroutine.
func runOutcome(runErr error, program, sawTestFailure bool) string {
	var exit *exec.ExitError
	switch {
	case runErr == nil:
		return Passed
	case !errors.As(runErr, &exit):
		return NotRun
	case !exit.Exited(): // killed by a signal
		return Crashed
	case program || sawTestFailure:
		return Failed
	}
	return Crashed
}

// maxRunDisk bounds the disk that one run may fill in its own directory
// (its event log, its output kept for an oracle, and the temporary files
// of the workload: TMPDIR points there) and in its copy of the module. An injected failure can turn a
// retry loop into one that logs or writes without end; without a bound,
// such a run fills the disk before its time limit.
var maxRunDisk int64 = 1 << 30

// watchDisk checks, twice a second until ctx ends, the bytes that usage
// counts, and calls stop once they exceed limit. The returned flag says
// whether it did.
func watchDisk(ctx context.Context, usage func() int64, limit int64, stop func()) *atomic.Bool {
	over := new(atomic.Bool)
	go func() {
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if usage() > limit {
				over.Store(true)
				stop()
				return
			}
		}
	}()
	return over
}

// diskUsage sums the sizes of the regular files under dir.
func diskUsage(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

func readEvents(path string, limit int64) []json.RawMessage {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var evs []json.RawMessage
	r := bufio.NewReader(io.LimitReader(f, limit))
	for {
		line, err := r.ReadBytes('\n')
		line = bytes.TrimSuffix(line, []byte("\n"))
		if json.Valid(line) {
			evs = append(evs, json.RawMessage(line))
		}
		if err != nil {
			return evs
		}
	}
}

// maxRunEvents bounds the bytes of a run's events that its record keeps:
// a record is one journal line, which ReadJournal reads up to 64 MiB. A
// run that fails in a loop (a perturbation run failing every reach of a
// hot point) logs without end; what a report reads comes first.
// Tests lower it.
var maxRunEvents int64 = 32 << 20

// maxArmedRunEvents is the bound for the runs that arm something. Their
// events are few (the verdicts of the calls on the stack at the fault,
// an injection, a probe), unless an injected failure makes the workload
// fail in a loop: a perturbation run failing every reach logs a failure
// per turn. Thousands of such runs at maxRunEvents each would make a
// journal of gigabytes that every report has to read.
var maxArmedRunEvents int64 = 2 << 20

// eventsBound is the bound on the events kept for a run of that kind: a
// profile run logs every point it reaches, and needs the larger one.
func eventsBound(kind string) int64 {
	if kind == "profile" {
		return maxRunEvents
	}
	return min(maxArmedRunEvents, maxRunEvents)
}

func hasEvent(evs []json.RawMessage, kind string) bool {
	for _, e := range evs {
		if MayBeEvent(e, kind) {
			return true
		}
	}
	return false
}

// MayBeEvent reports whether raw, an event of a run's log, can be one of
// the kind: false only when it is not, which it tells without decoding
// it. The runtime writes events compact, their kind as "event":"KIND",
// and a string value cannot hold that text unescaped. A reader after one
// kind of a run's events decodes only those it lets through: a record's
// events are mostly of other kinds.
func MayBeEvent(raw []byte, kind string) bool {
	for {
		i := bytes.Index(raw, eventKey)
		if i < 0 {
			return false
		}
		raw = raw[i+len(eventKey):]
		if len(raw) > len(kind) && string(raw[:len(kind)]) == kind && raw[len(kind)] == '"' {
			return true
		}
	}
}

var eventKey = []byte(`"event":"`)

// tailBuffer keeps the last 4 KiB written to it, whether a test's
// failure line went by, and the first line on which the Go runtime
// reported a panic or a fatal error (which a long trace may push out of
// the tail).
type tailBuffer struct {
	mu     sync.Mutex
	buf    []byte
	failed bool
	line   []byte // the line being written, its first 512 bytes
	died   string
	stacks stackScan // a goroutine dump, which the tail may have lost
}

// deathLines start the lines on which the Go runtime reports why a
// program dies.
var deathLines = [][]byte{[]byte("panic: "), []byte("fatal error: ")}

// testFailureLine starts the line on which the testing package reports a
// failed test.
var testFailureLine = []byte("--- FAIL: ")

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.failed {
		// The line may be split between writes: look at it with the end
		// of what came before.
		from := max(len(t.buf)-len(testFailureLine), 0)
		t.failed = bytes.Contains(append(t.buf[from:len(t.buf):len(t.buf)], p...), testFailureLine)
	}
	t.buf = append(t.buf, p...)
	t.stacks.write(p)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	if t.died == "" {
		t.scanDeath(p)
	}
	return len(p), nil
}

// scanDeath looks for the first death line in p, the continuation of the
// lines written before.
func (t *tailBuffer) scanDeath(p []byte) {
	for len(p) > 0 && t.died == "" {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		t.line = append(t.line, chunk[:min(len(chunk), 512-len(t.line))]...)
		if i < 0 {
			return
		}
		for _, d := range deathLines {
			if bytes.HasPrefix(t.line, d) {
				t.died = string(t.line)
			}
		}
		t.line, p = t.line[:0], p[i+1:]
	}
}

// DeathLine returns the first line of output on which the Go runtime
// reported why the program died (a panic or a fatal error), or "": what
// Record.Died holds, for a record written before it did.
func DeathLine(output string) string {
	var t tailBuffer
	t.scanDeath([]byte(output + "\n"))
	return t.died
}

// death is the first line that reported a panic or a fatal error, or "".
// goroutines is the goroutine dump the output held, if any.
func (t *tailBuffer) goroutines() []GoroutineStack {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stacks.stacks
}

func (t *tailBuffer) death() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.died
}

func (t *tailBuffer) sawTestFailure() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(s, "\n", "\n\t")
}
