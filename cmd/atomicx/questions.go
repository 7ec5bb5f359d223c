package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question/detect"
	"github.com/atomicx/atomicx/question/handlers"
	"github.com/atomicx/atomicx/question/perturb"
	"github.com/atomicx/atomicx/report"
)

// A questionCommand is the command side of a question, what a campaign
// asks of its runs (package question). Its command (atomicx NAME) and
// plan -question NAME take the same flags, the workload's and the
// question's own, which define defines: both build them from here, so
// that neither can take a flag the other refuses.
type questionCommand struct {
	planner *campaign.Planner
	// define defines the question's own flags on fs, beside the
	// workload's in w, and returns what checks their values and sets
	// them in a campaign's configuration; it says on stderr why it
	// cannot (cmd names the command), and returns false.
	define func(fs *flag.FlagSet, w *workloadFlags) (apply func(cmd string, cfg *campaign.Config, stderr io.Writer) bool)
	// report builds the report of a campaign of the question from its
	// journal's records.
	report func(o reportOut, recs []*campaign.Record, problems []campaign.Problem) (questionReport, error)
}

// name is the question's name, its command's.
func (q questionCommand) name() string { return q.planner.Name }

// questions are the campaigns' questions, detect's first: the default.
var questions = []questionCommand{
	{planner: detect.Detect, define: func(fs *flag.FlagSet, w *workloadFlags) func(string, *campaign.Config, io.Writer) bool {
		w.registerExperiments(fs)
		return func(string, *campaign.Config, io.Writer) bool { return true }
	}, report: detectReportOf},
	{planner: perturb.Perturb, define: func(fs *flag.FlagSet, w *workloadFlags) func(string, *campaign.Config, io.Writer) bool {
		oracle := registerOracle(fs)
		testsPerPoint := fs.Int("tests-per-point", 0, testsPerPointUsage)
		return func(cmd string, cfg *campaign.Config, stderr io.Writer) bool {
			if oracleWithoutExec(cmd, *oracle, w, stderr) {
				return false
			}
			if *testsPerPoint < 0 {
				fmt.Fprintf(stderr, "atomicx %s: -tests-per-point must be 0 (every test) or more\n", cmd)
				return false
			}
			// A point's runs need its first reach only.
			cfg.Oracle, cfg.EarlyStop, cfg.MaxOccur = absExec(cfg.Dir, *oracle), false, 1
			cfg.TestsPerPoint = *testsPerPoint
			return true
		}
	}, report: func(_ reportOut, recs []*campaign.Record, problems []campaign.Problem) (questionReport, error) {
		return perturbReport{report.Perturbation(recs, problems)}, nil
	}},
	{planner: handlers.Handlers, define: func(fs *flag.FlagSet, w *workloadFlags) func(string, *campaign.Config, io.Writer) bool {
		oracle := registerOracle(fs)
		return func(cmd string, cfg *campaign.Config, stderr io.Writer) bool {
			if oracleWithoutExec(cmd, *oracle, w, stderr) {
				return false
			}
			cfg.Oracle = absExec(cfg.Dir, *oracle)
			return true
		}
	}, report: func(_ reportOut, recs []*campaign.Record, problems []campaign.Problem) (questionReport, error) {
		return handlersReport{report.Handlers(recs, problems)}, nil
	}},
}

// questionNamed is the question called name.
func questionNamed(name string) (questionCommand, bool) {
	for _, q := range questions {
		if q.name() == name {
			return q, true
		}
	}
	return questionCommand{}, false
}

// questionNames lists the questions for a message: "detect, perturb or
// handlers".
func questionNames() string {
	names := make([]string, len(questions))
	for i, q := range questions {
		names[i] = q.name()
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// campaignFlags are the flags of a question's command: the workload's,
// the question's own, and where the journal and the report go.
type campaignFlags struct {
	workload                       workloadFlags
	planner                        *campaign.Planner
	apply                          func(cmd string, cfg *campaign.Config, stderr io.Writer) bool
	journal, format, out, category string
	resume                         bool
}

// newCampaignFlags defines the flags of q's command on a new flag set
// that writes its errors to stderr.
func newCampaignFlags(q questionCommand, stderr io.Writer) (*flag.FlagSet, *campaignFlags) {
	fs := flag.NewFlagSet(q.name(), flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &campaignFlags{}
	c.workload.registerWorkload(fs, false)
	c.planner, c.apply = q.planner, q.define(fs, &c.workload)
	fs.StringVar(&c.journal, "journal", "", "directory for the journal and test binaries (default: one per module and packages in the user cache)")
	fs.BoolVar(&c.resume, "resume", false, "keep the journal and skip the work it records")
	fs.StringVar(&c.format, "format", "text", formatUsage)
	fs.StringVar(&c.out, "o", "", "write the report to this file instead of standard output")
	category := report.DefaultSARIFCategory
	if !q.planner.Unnamed {
		// As its journals' directories: the question of the campaigns
		// made before questions had names has the plain category.
		category += "-" + q.name()
	}
	fs.StringVar(&c.category, "category", category, sarifCategoryUsage)
	return fs, c
}

// config checks the parsed flags of the command of cmd and returns its
// campaign's configuration over patterns; a non-zero code is the exit
// status, having said why on stderr.
func (c *campaignFlags) config(cmd string, args, patterns []string, stderr io.Writer) (cfg campaign.Config, self string, code int) {
	if !reportFormats[c.format] {
		fmt.Fprintf(stderr, "atomicx %s: -format must be %s\n", cmd, formatList)
		return cfg, "", 2
	}
	cfg, self, code = c.workload.config(cmd, args, patterns, stderr)
	if code != 0 {
		return cfg, "", code
	}
	cfg.Planner = c.planner
	if !c.apply(cmd, &cfg, stderr) {
		return cfg, "", 2
	}
	return cfg, self, 0
}
