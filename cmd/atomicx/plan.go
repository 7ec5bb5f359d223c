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

// The three steps of a sharded campaign: plan builds and profiles once,
// run runs one shard of the plan (on any machine that has the module
// checked out and the plan's directory), merge combines the shards'
// journals into the campaign's report.

// planFlags are plan's flags; the example files' command lines are
// checked against them too.
func planFlags(stderr io.Writer) (*flag.FlagSet, *planOptions) {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &planOptions{}
	fs.StringVar(&o.out, "o", "", "the plan's directory (required): plan.json, the test binaries, the profile runs' journal")
	fs.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "profile runs at once")
	fs.DurationVar(&o.timeout, "timeout", time.Minute, "time limit of one test run, for every shard; a run over it is recorded as a hang")
	fs.IntVar(&o.maxOccur, "max-occurrences", 3, "occurrences of each injection point per test that get an experiment")
	fs.BoolVar(&o.noStop, "no-early-stop", false, "run each experiment's test to its end, even after the failure was absorbed")
	fs.BoolVar(&o.allSnaps, "all-snapshots", false, "snapshot every call of every run (slower; for comparison)")
	fs.StringVar(&o.tags, "tags", "", "build tags, as for go build")
	fs.BoolVar(&o.race, "race", false, "build with the race detector")
	fs.StringVar(&o.run, "run", "", "plan only the tests whose names match this regular expression, as go test -run does for top-level tests")
	fs.BoolVar(&o.cover, "cover", false, "build the workload with coverage: the merge reports what the tests alone ran against the tests plus injection (the shards' counters must be in the plan directory the merge reads)")
	fs.StringVar(&o.exec, "exec", "", "program workload: build the one main package named, and run this script once per run with the binary's path in $ATOMICX_BINARY")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx plan -o PLANDIR [flags] [packages]\n\n"+
			"The first step of a sharded campaign: builds the packages' tests\n"+
			"instrumented into PLANDIR/bin, runs each test once as its profile run,\n"+
			"and writes the list of runs as PLANDIR/plan.json. Then run shares of it\n"+
			"with 'atomicx run -shard K/N PLANDIR' (on any machine with the module\n"+
			"checked out and a copy of PLANDIR) and combine their journals with\n"+
			"'atomicx merge PLANDIR'.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs, o
}

type planOptions struct {
	out, tags, run, exec   string
	jobs, maxOccur         int
	timeout                time.Duration
	noStop, allSnaps, race bool
	cover                  bool
}

func planCmd(args []string, stdout, stderr io.Writer) int {
	fs, o := planFlags(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.out == "" {
		fmt.Fprintf(stderr, "atomicx plan: -o PLANDIR is required: the directory to ship to the shards\n")
		return 2
	}
	var runRE *regexp.Regexp
	if o.run != "" {
		re, err := regexp.Compile(o.run)
		if err != nil {
			fmt.Fprintf(stderr, "atomicx plan: -run: %v\n", err)
			return 2
		}
		runRE = re
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	dir, err := filepath.Abs(o.out)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	var buildArgs []string
	if o.tags != "" {
		buildArgs = append(buildArgs, "-tags="+o.tags)
	}
	if o.race {
		buildArgs = append(buildArgs, "-race")
	}
	pol, err := campaignPolicy(wd, dir, patterns, buildArgs)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p, res, err := campaign.MakePlan(ctx, campaign.Config{
		Patterns: patterns, Dir: wd, Journal: dir, Atomicx: self, Identity: identity, Policy: pol,
		Jobs: o.jobs, Timeout: o.timeout, MaxOccur: o.maxOccur, EarlyStop: !o.noStop, AllSnaps: o.allSnaps,
		BuildArgs: buildArgs, Progress: stderr, Exec: absExec(wd, o.exec), Run: runRE, Cover: o.cover,
		Header: campaign.Header{Command: append([]string{"atomicx", "plan"}, args...), Version: version(),
			Date: time.Now().UTC().Format(time.RFC3339)},
	})
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "atomicx: interrupted; make the plan again\n")
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "plan %s: %d packages, %d profile runs in %s; %s to run: %s\n", p.ID, len(p.Packages), res.ProfileRuns,
		res.Elapsed.Round(time.Millisecond), planCounts(p), dir)
	fmt.Fprintf(stdout, "%s\n", p.ID)
	return 0
}

// planCounts counts a plan's runs by kind: "12 experiments and 2 natural
// reruns".
func planCounts(p *campaign.Plan) string {
	n := map[string]int{}
	for _, r := range p.Runs {
		n[r.Run.Kind]++
	}
	return fmt.Sprintf("%d experiments and %d natural reruns", n["experiment"], n["natural"])
}
