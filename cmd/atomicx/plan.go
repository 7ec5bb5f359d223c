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

// planFlags are plan's flags for question q: the workload's and q's own,
// as q's command takes them; the example files' command lines are
// checked against them too.
func planFlags(stderr io.Writer, q questionCommand) (*flag.FlagSet, *planOptions) {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &planOptions{}
	fs.StringVar(&o.out, "o", "", "the plan's directory (required): plan.json, the test binaries, the profile runs' journal")
	o.workload.registerWorkload(fs, true)
	fs.StringVar(&o.question, "question", questions[0].name(), "the question the runs ask: "+questionNames()+"; each takes the flags of its command (atomicx QUESTION -h)")
	o.apply = q.define(fs, &o.workload)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx plan -o PLANDIR [-question QUESTION] [flags] [packages]\n\n"+
			"The first step of a sharded campaign: builds the packages' tests\n"+
			"instrumented into PLANDIR/bin, runs each test once as its profile run,\n"+
			"and writes the list of runs as PLANDIR/plan.json. Then run shares of it\n"+
			"with 'atomicx run -shard K/N PLANDIR' (on any machine with the module\n"+
			"checked out and a copy of PLANDIR) and combine their journals with\n"+
			"'atomicx merge PLANDIR'.\n\nFlags (of -question %s):\n", q.name())
		fs.PrintDefaults()
	}
	return fs, o
}

type planOptions struct {
	out, question string
	workload      workloadFlags
	apply         func(cmd string, cfg *campaign.Config, stderr io.Writer) bool
}

// planQuestion is the question that plan's command line asks: its flags
// are read with every question's, so that a flag of another question
// than the one asked is refused by name.
func planQuestion(args []string, stderr io.Writer) (questionCommand, bool) {
	all := flag.NewFlagSet("plan", flag.ContinueOnError)
	all.SetOutput(io.Discard)
	own := map[string]map[string]bool{}
	for _, q := range questions {
		fs, _ := planFlags(io.Discard, q)
		own[q.name()] = map[string]bool{}
		fs.VisitAll(func(f *flag.Flag) {
			own[q.name()][f.Name] = true
			if all.Lookup(f.Name) == nil {
				all.Var(f.Value, f.Name, f.Usage)
			}
		})
	}
	if err := all.Parse(args); err != nil {
		// An unknown flag, -h: plan's own parse says so.
		return questions[0], true
	}
	name := all.Lookup("question").Value.String()
	q, ok := questionNamed(name)
	if !ok {
		fmt.Fprintf(stderr, "atomicx plan: -question must be %s\n", questionNames())
		return q, false
	}
	ok = true
	all.Visit(func(f *flag.Flag) {
		if !own[name][f.Name] {
			fmt.Fprintf(stderr, "atomicx plan: -%s is not a flag of -question %s (see atomicx %s -h)\n", f.Name, name, name)
			ok = false
		}
	})
	return q, ok
}

func planCmd(args []string, stdout, stderr io.Writer) int {
	q, ok := planQuestion(args, stderr)
	if !ok {
		return 2
	}
	fs, o := planFlags(stderr, q)
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
	cfg.Planner = q.planner
	if !o.apply("plan", &cfg, stderr) {
		return 2
	}
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
