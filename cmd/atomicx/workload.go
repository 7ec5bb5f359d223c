package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"time"

	"github.com/atomicx/atomicx/campaign"
)

// workloadFlags are the flags that say what a campaign runs and how,
// which detect and plan share: a plan is detect's first step.
type workloadFlags struct {
	jobs, maxOccur                int
	timeout                       time.Duration
	noStop, allSnaps, race, cover bool
	fresh                         bool
	tags, run, exec               string
}

// register defines the flags on fs; forPlan words them for a plan, whose
// options every shard uses.
func (w *workloadFlags) register(fs *flag.FlagSet, forPlan bool) {
	w.registerWorkload(fs, forPlan)
	w.registerExperiments(fs)
}

// registerExperiments defines the flags that shape detect's experiments:
// how many occurrences of a point, early stop, which calls snapshotted.
// The other questions arm other runs, and do not take them.
func (w *workloadFlags) registerExperiments(fs *flag.FlagSet) {
	fs.IntVar(&w.maxOccur, "max-occurrences", 3, "occurrences of each injection point per test that get an experiment")
	fs.BoolVar(&w.noStop, "no-early-stop", false, "run each experiment's test to its end, even after the failure was absorbed")
	fs.BoolVar(&w.allSnaps, "all-snapshots", false, "snapshot every call of every run, not only those the profile run saw on the stack at the fault (slower; for comparison)")
}

// registerWorkload defines the flags that say what the workload is, how
// it is built and how its runs are run.
func (w *workloadFlags) registerWorkload(fs *flag.FlagSet, forPlan bool) {
	w.maxOccur = 3 // detect's default, for the questions that do not take -max-occurrences
	jobs, timeout, run := "experiments run at once", "time limit of one test run; a run over it is recorded as a hang",
		"run only the tests whose names match this regular expression, as go test -run does for top-level tests"
	cover := "build the workload with coverage, and report the statements and error paths (error checks, deferred functions, recover blocks) that the tests alone ran against those the tests plus injection ran"
	if forPlan {
		jobs, timeout = "profile runs at once", "time limit of one test run, for every shard; a run over it is recorded as a hang"
		run = "plan only the tests whose names match this regular expression, as go test -run does for top-level tests"
		cover = "build the workload with coverage: the merge reports what the tests alone ran against the tests plus injection (the shards' counters must be in the plan directory the merge reads)"
	}
	fs.IntVar(&w.jobs, "jobs", runtime.NumCPU(), jobs)
	fs.DurationVar(&w.timeout, "timeout", time.Minute, timeout)
	fs.StringVar(&w.tags, "tags", "", "build tags, as for go build")
	fs.BoolVar(&w.race, "race", false, "build with the race detector")
	fs.StringVar(&w.run, "run", "", run)
	fs.BoolVar(&w.cover, "cover", false, cover)
	if !forPlan {
		fs.BoolVar(&w.fresh, "fresh", false, freshUsage)
	}
	fs.StringVar(&w.exec, "exec", "", "program workload: build the one main package named, and run this script once per run with the binary's path in $ATOMICX_BINARY (exit status 0 is a pass)")
}

// freshUsage says what -fresh does.
const freshUsage = "run every experiment in a process of its own; by default a question that can runs the experiments of a test in batches, many in one process, and confirms in a fresh process what it reports of them"

// buildArgs are the go build flags the workload is built with.
func (w *workloadFlags) buildArgs() []string {
	var args []string
	if w.tags != "" {
		args = append(args, "-tags="+w.tags)
	}
	if w.race {
		args = append(args, "-race")
	}
	return args
}

// config is the campaign's configuration as far as the flags say it:
// run in the current directory over patterns (./... when none), built
// with this atomicx (self); cmd and args are the command line, for the
// journal's header and messages. A non-zero code is the exit status,
// having said why on stderr: 2 when -run is not a regular expression.
func (w *workloadFlags) config(cmd string, args, patterns []string, stderr io.Writer) (cfg campaign.Config, self string, code int) {
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	var runRE *regexp.Regexp
	if w.run != "" {
		re, err := regexp.Compile(w.run)
		if err != nil {
			fmt.Fprintf(stderr, "atomicx %s: -run: %v\n", cmd, err)
			return cfg, "", 2
		}
		runRE = re
	}
	wd, err := os.Getwd()
	if err == nil {
		self, err = os.Executable()
	}
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return cfg, "", 1
	}
	return campaign.Config{
		Patterns: patterns, Dir: wd, Identity: identity,
		Jobs: w.jobs, Timeout: w.timeout, MaxOccur: w.maxOccur, EarlyStop: !w.noStop, AllSnaps: w.allSnaps, Fresh: w.fresh,
		BuildArgs: w.buildArgs(), Progress: stderr, Exec: absExec(wd, w.exec), Run: runRE, Cover: w.cover,
		Header: campaign.Header{Command: append([]string{"atomicx", cmd}, args...), Version: version(),
			Date: time.Now().UTC().Format(time.RFC3339)},
	}, self, 0
}

// registerOracle adds -oracle, the domain check of a program workload,
// for the questions whose answer is whether the workload still passes.
func registerOracle(fs *flag.FlagSet) *string {
	return fs.String("oracle", "", "with -exec: a domain check run after each run, with the binary in $ATOMICX_BINARY, the script's exit status in $ATOMICX_EXIT_STATUS and the path of a file holding its output in $ATOMICX_OUTPUT; the run passes only if the script and the oracle exit 0 within -timeout")
}

// oracleWithoutExec says so, and reports true, when an oracle was given
// without a program workload to check.
func oracleWithoutExec(cmd, oracle string, w *workloadFlags, stderr io.Writer) bool {
	if oracle == "" || w.exec != "" {
		return false
	}
	fmt.Fprintf(stderr, "atomicx %s: -oracle checks a program workload: give -exec SCRIPT too\n", cmd)
	return true
}

// runQuestion runs the campaign that cfg (its planner and options set)
// asks, journaled in dir (by default one directory per module, question
// and packages: the journals of two questions differ), and returns its
// records; when interrupted, those the journal holds. A non-zero code is
// the exit status, having said why on stderr.
func runQuestion(cmd string, cfg campaign.Config, self, dir string, resume bool, stderr io.Writer) (res *campaign.Result, interrupted bool, code int) {
	if dir == "" {
		key := cfg.Patterns
		if !cfg.Planner.Unnamed {
			key = append([]string{cfg.Planner.Name}, key...)
		}
		var err error
		if dir, err = defaultJournal(cfg.Dir, key); err != nil {
			fmt.Fprintf(stderr, "atomicx: %v\n", err)
			return nil, false, 1
		}
	} else if !filepath.IsAbs(dir) {
		// The runs start the test binaries it holds from the packages'
		// directories.
		dir = filepath.Join(cfg.Dir, dir)
	}
	pol, err := campaignPolicy(cfg.Dir, dir, cfg.Patterns, cfg.BuildArgs)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return nil, false, 1
	}
	fmt.Fprintf(stderr, "journal: %s\n", dir)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg.Journal, cfg.Atomicx, cfg.Policy, cfg.Resume = dir, self, pol, resume
	res, err = campaign.Run(ctx, cfg)
	if interrupted = errors.Is(err, context.Canceled); err != nil && !interrupted {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return nil, false, 1
	}
	if interrupted {
		fmt.Fprintf(stderr, "atomicx: interrupted; what finished is in the journal, and 'atomicx %s -resume' goes on from there\n", cmd)
		recs, problems, rerr := campaign.ReadJournal(filepath.Join(dir, "journal.jsonl"))
		if rerr != nil {
			fmt.Fprintf(stderr, "atomicx: %v\n", rerr)
			return nil, true, 1
		}
		res = &campaign.Result{Records: recs, Problems: problems}
	}
	return res, interrupted, 0
}
