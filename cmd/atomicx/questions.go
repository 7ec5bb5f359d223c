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
	// synopsis follows "atomicx NAME" in the command's usage, and doc
	// says what the command does.
	synopsis, doc string
	// define defines the question's own flags on fs, beside the
	// workload's in w, and returns what checks their values and sets
	// them in a campaign's configuration; it says on stderr why it
	// cannot (cmd names the command), and returns false.
	define func(fs *flag.FlagSet, w *workloadFlags) (apply func(cmd string, cfg *campaign.Config, stderr io.Writer) bool)
	// report builds the report of a campaign of the question from its
	// journal's records.
	report func(o reportOut, recs []*campaign.Record, problems []campaign.Problem) (questionReport, error)
	// ran is the line that says on stderr what a campaign that was not
	// interrupted ran.
	ran func(res *campaign.Result) string
	// outputs, when set, defines the command's own output flags (plan
	// has none: it writes no report) and returns what writes them once
	// the report is written.
	outputs func(fs *flag.FlagSet) func(o reportOut, rep questionReport) error
}

// name is the question's name, its command's.
func (q questionCommand) name() string { return q.planner.Name }

// questions are the campaigns' questions, detect's first: the default.
var questions = []questionCommand{
	{planner: detect.Detect, synopsis: "[flags] [packages]",
		doc: "Runs the packages' tests as the workload of a detection campaign: a profile\n" +
			"run per test, then one run per reached injection point and occurrence with\n" +
			"that one fault injected, and reports each function's verdict.\n",
		define: func(fs *flag.FlagSet, w *workloadFlags) func(string, *campaign.Config, io.Writer) bool {
			w.registerExperiments(fs)
			return func(string, *campaign.Config, io.Writer) bool { return true }
		}, report: detectReportOf, ran: ranLine},
	{planner: perturb.Perturb, synopsis: "[flags] [packages | -exec SCRIPT [-oracle SCRIPT] package]",
		doc: "Runs a perturbation campaign: for every injection point the workload\n" +
			"reaches, one run failing its first reach (one-shot) and one failing every\n" +
			"reach (always), with every test that reaches it; classifies the points\n" +
			"as fragile (a test fails once), sensitive (a test fails always) or\n" +
			"immunized (every test passes), names the function that handled each\n" +
			"failure, and validates the functions that passed it on as\n" +
			"failure-oblivious candidates (plain, then atomic) in every test.\n" +
			"Runs run on one thread, parallel subtests one at a time, so that a\n" +
			"point's first reach is the same in every run.\n",
		ran: func(res *campaign.Result) string {
			return fmt.Sprintf("ran %d profile runs and %d perturbation runs%s", res.ProfileRuns, res.Experiments, wallTimeText(res.Records))
		},
		define: func(fs *flag.FlagSet, w *workloadFlags) func(string, *campaign.Config, io.Writer) bool {
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
				cfg.QuestionData = perturb.Options(*testsPerPoint)
				return true
			}
		}, report: func(_ reportOut, recs []*campaign.Record, problems []campaign.Problem) (questionReport, error) {
			return perturbReport{report.Perturbation(recs, problems)}, nil
		}},
	{planner: handlers.Handlers, synopsis: "[flags] [packages | -exec SCRIPT [-oracle SCRIPT] package]",
		doc: "Short-circuit testing of the packages' error handlers: a profile run per\n" +
			"test records which handlers (if err != nil, errors.Is, errors.As and\n" +
			"err == X arms) it executes and with what usage, then one run per handler\n" +
			"and test that executes it, with every execution of the handled call\n" +
			"skipped and yielding an error the handler's predicate holds for.\n" +
			"Reports each handler's verdicts: source-independent or source-dependent,\n" +
			"purely resilient or not. Typed arms that are source-independent and do\n" +
			"not use the typed value are then run widened to err != nil: the widening\n" +
			"is kept, rejected or not offered (see atomicx help).\n",
		ran: func(res *campaign.Result) string {
			line := fmt.Sprintf("ran %d profile runs and %d runs with a handler armed or widened", res.ProfileRuns, res.Experiments)
			if r := res.Resumed; r["profile"]+r["experiment"] > 0 {
				line += fmt.Sprintf("; resumed from the journal: %d profile runs and %d runs with a handler armed", r["profile"], r["experiment"])
			}
			return line + wallTimeText(res.Records)
		},
		outputs: func(fs *flag.FlagSet) func(reportOut, questionReport) error {
			widenDiff := fs.String("widen-diff", "", "write the kept handler widenings to this file, as a unified diff of the sources (apply with patch -p1 in the module's root)")
			return func(o reportOut, rep questionReport) error {
				if *widenDiff == "" {
					return nil
				}
				return writeWidenDiff(o.stderr, *widenDiff, rep.(handlersReport).HandlersReport, o.hdr, o.wd)
			}
		},
		define: func(fs *flag.FlagSet, w *workloadFlags) func(string, *campaign.Config, io.Writer) bool {
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

// questionCmd runs the command of question q: a campaign of its
// question over the packages or the program workload, then its report.
func questionCmd(q questionCommand, args []string, stdout, stderr io.Writer) int {
	name := q.name()
	fs, c := newCampaignFlags(q, stderr)
	var writeOutputs func(reportOut, questionReport) error
	if q.outputs != nil {
		writeOutputs = q.outputs(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx %s %s\n\n%s\nFlags:\n", name, q.synopsis, q.doc)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, self, code := c.config(name, args, fs.Args(), stderr)
	if code != 0 {
		return code
	}
	res, interrupted, code := runQuestion(name, cfg, self, c.journal, c.resume, stderr)
	if code != 0 {
		return code
	}
	if !interrupted {
		fmt.Fprintln(stderr, q.ran(res))
	}
	out := reportOut{stdout: stdout, stderr: stderr, file: c.out, format: c.format, category: c.category, hdr: campaign.HeaderOf(res.Records), wd: cfg.Dir}
	rep, err := q.report(out, res.Records, res.Problems)
	if err == nil {
		err = out.write(rep)
	}
	if err == nil && writeOutputs != nil {
		err = writeOutputs(out, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	if interrupted {
		return 130
	}
	return 0
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
