package main

import (
	"fmt"
	"io"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question/perturb"
	"github.com/atomicx/atomicx/report"
)

func perturbCmd(args []string, stdout, stderr io.Writer) int {
	q, _ := questionNamed(perturb.Perturb.Name)
	fs, c := newCampaignFlags(q, stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx perturb [flags] [packages | -exec SCRIPT [-oracle SCRIPT] package]\n\n"+
			"Runs a perturbation campaign: for every injection point the workload\n"+
			"reaches, one run failing its first reach (one-shot) and one failing every\n"+
			"reach (always), with every test that reaches it; classifies the points\n"+
			"as fragile (a test fails once), sensitive (a test fails always) or\n"+
			"immunized (every test passes), names the function that handled each\n"+
			"failure, and validates the functions that passed it on as\n"+
			"failure-oblivious candidates (plain, then atomic) in every test.\n"+
			"Runs run on one thread, parallel subtests one at a time, so that a\n"+
			"point's first reach is the same in every run.\n"+
			"\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, self, code := c.config("perturb", args, fs.Args(), stderr)
	if code != 0 {
		return code
	}
	res, interrupted, code := runQuestion("perturb", cfg, self, c.journal, c.resume, stderr)
	if code != 0 {
		return code
	}
	if !interrupted {
		fmt.Fprintf(stderr, "ran %d profile runs and %d perturbation runs%s\n", res.ProfileRuns, res.Experiments, wallTimeText(res.Records))
	}
	out := reportOut{stdout: stdout, stderr: stderr, file: c.out, format: c.format, category: c.category, hdr: campaign.HeaderOf(res.Records), wd: cfg.Dir}
	if err := out.write(perturbReport{report.Perturbation(res.Records, res.Problems)}); err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	if interrupted {
		return 130
	}
	return 0
}

const testsPerPointUsage = "run each point with at most `N` of the tests that reach it, those that reach the fewest points first (0: every test); the report says the bound"
