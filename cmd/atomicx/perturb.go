package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/report"
)

func perturbCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("perturb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var w workloadFlags
	w.registerWorkload(fs, false)
	journal := fs.String("journal", "", "directory for the journal and test binaries (default: one per module and packages in the user cache)")
	resume := fs.Bool("resume", false, "keep the journal and skip the work it records")
	format := fs.String("format", "text", formatUsage)
	outFile := fs.String("o", "", "write the report to this file instead of standard output")
	category := fs.String("category", report.DefaultSARIFCategory+"-perturb", sarifCategoryUsage)
	testsPerPoint := fs.Int("tests-per-point", 0, testsPerPointUsage)
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
	oracle := registerOracle(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !reportFormats[*format] {
		fmt.Fprintf(stderr, "atomicx perturb: -format must be %s\n", formatList)
		return 2
	}
	if oracleWithoutExec("perturb", *oracle, &w, stderr) {
		return 2
	}
	if *testsPerPoint < 0 {
		fmt.Fprintf(stderr, "atomicx perturb: -tests-per-point must be 0 (every test) or more\n")
		return 2
	}
	cfg, self, code := w.config("perturb", args, fs.Args(), stderr)
	if code != 0 {
		return code
	}
	// A point's runs need its first reach only.
	cfg.Planner, cfg.Oracle, cfg.EarlyStop, cfg.MaxOccur = campaign.Perturb, absExec(cfg.Dir, *oracle), false, 1
	cfg.TestsPerPoint = *testsPerPoint
	res, interrupted, code := runQuestion("perturb", cfg, self, *journal, *resume, stderr)
	if code != 0 {
		return code
	}
	if !interrupted {
		fmt.Fprintf(stderr, "ran %d profile runs and %d perturbation runs%s\n", res.ProfileRuns, res.Experiments, wallTimeText(res.Records))
	}
	out := reportOut{stdout: stdout, stderr: stderr, file: *outFile, format: *format, category: *category, hdr: campaign.HeaderOf(res.Records), wd: cfg.Dir}
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
