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
	o.workload.register(fs, true)
	fs.StringVar(&o.question, "question", campaign.Detect.Name, "the question the runs ask: detect, perturb (see atomicx perturb) or handlers (see atomicx handlers)")
	fs.StringVar(&o.oracle, "oracle", "", "with -exec and -question perturb: the program workload's domain check (see atomicx perturb)")
	fs.IntVar(&o.testsPerPoint, "tests-per-point", 0, "with -question perturb: "+testsPerPointUsage)
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
	out              string
	workload         workloadFlags
	question, oracle string
	testsPerPoint    int
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
	cfg, self, code := o.workload.config("plan", args, fs.Args(), stderr)
	if code != 0 {
		return code
	}
	switch o.question {
	case campaign.Detect.Name:
	case campaign.Perturb.Name:
		cfg.Planner, cfg.EarlyStop, cfg.MaxOccur = campaign.Perturb, false, 1
		cfg.TestsPerPoint = max(o.testsPerPoint, 0)
	case campaign.Handlers.Name:
		cfg.Planner = campaign.Handlers
	default:
		fmt.Fprintf(stderr, "atomicx plan: -question must be detect, perturb or handlers\n")
		return 2
	}
	if o.oracle != "" && (o.workload.exec == "" || o.question != campaign.Perturb.Name) {
		fmt.Fprintf(stderr, "atomicx plan: -oracle checks a program workload of -question perturb: give -exec SCRIPT too\n")
		return 2
	}
	cfg.Oracle = absExec(cfg.Dir, o.oracle)
	wd, patterns := cfg.Dir, cfg.Patterns
	dir, err := filepath.Abs(o.out)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	pol, err := campaignPolicy(wd, dir, patterns, cfg.BuildArgs)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg.Journal, cfg.Atomicx, cfg.Policy = dir, self, pol
	p, res, err := campaign.MakePlan(ctx, cfg)
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
