package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/policy"
	"github.com/atomicx/atomicx/report"
	"golang.org/x/mod/semver"
)

func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", formatUsage)
	outFile := fs.String("o", "", "write the report to this file instead of standard output")
	category := fs.String("category", "", sarifCategoryUsage+byQuestionCategory)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx report [-format text|json|html|sarif|github] [-category NAME] [-o file] [journal]\n\n"+
			"Prints the report of a campaign from its journal (a directory given to\n"+
			"detect -journal, or its journal.jsonl); default: the campaign of ./... here.\n")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !reportFormats[*format] {
		fmt.Fprintf(stderr, "atomicx report: -format must be %s\n", formatList)
		return 2
	}
	wd, _ := os.Getwd()
	var path string
	switch fs.NArg() {
	case 0:
		dir, err := defaultJournal(wd, []string{"./..."})
		if err != nil {
			fmt.Fprintf(stderr, "atomicx: %v\n", err)
			return 1
		}
		path = dir
	case 1:
		path = fs.Arg(0)
	default:
		fs.Usage()
		return 2
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "journal.jsonl")
	}
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "atomicx: no journal: %v\n", err)
		return 1
	}
	recs, problems, err := campaign.ReadJournal(path)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "%s\n", p)
	}
	hdr := campaign.HeaderOf(recs)
	if hdr == nil {
		fmt.Fprintf(stderr, "atomicx: warning: %s has no campaign header (an older atomicx wrote it): sources are looked up from this directory, and the reproduce lines need atomicx on PATH and the module's own policy\n", path)
	}
	out := reportOut{stdout: stdout, stderr: stderr, file: *outFile, format: *format, category: *category, hdr: hdr, wd: wd}
	if err := out.writeJournal(recs, problems); err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	return 0
}

// ranLine says what the campaign ran, with the names and counts of the
// report: "ran 3 profile runs, 8 experiments, 2 natural reruns and 0
// rechecks; wall time 15.2s", and what a resumed journal already had.
func ranLine(res *campaign.Result) string {
	counts := func(profile, experiments, natural, rechecks int) string {
		return fmt.Sprintf("%d profile runs, %d experiments, %d natural reruns and %d rechecks", profile, experiments, natural, rechecks)
	}
	line := "ran " + counts(res.ProfileRuns, res.Experiments, res.NaturalRuns, res.Rechecks)
	if r := res.Resumed; len(r) > 0 {
		line += fmt.Sprintf("; resumed from the journal: %s", counts(r["profile"], r["experiment"], r["natural"], r["recheck"]))
	}
	return line + wallTimeText(res.Records)
}

// wallTimeText ends a campaign's "ran" line with its wall time, in the
// words and with the figure of its report (campaign.WallTime): "; wall
// time 15.2s", or "; wall time 1m2s summed over 2 sessions (resumed or
// sharded)" for a campaign that several commands ran.
func wallTimeText(recs []*campaign.Record) string {
	wall, sessions := campaign.WallTime(recs)
	switch {
	case sessions == 0:
		return "; wall time not recorded"
	case sessions > 1:
		return fmt.Sprintf("; wall time %s summed over %d sessions (resumed or sharded)", wall, sessions)
	}
	return fmt.Sprintf("; wall time %s", wall)
}

const sarifCategoryUsage = "SARIF run category (automationDetails), telling apart several uploads for one commit, e.g. one per module"

// byQuestionCategory ends the -category usage of the commands that
// report a journal of any question: each question has its own default,
// the one the command that ran the campaign has.
const byQuestionCategory = " (default: atomicx, atomicx-perturb or atomicx-handlers, by the campaign's question)"

// sarifOptions describe this atomicx in a SARIF run.
func sarifOptions(category string) report.SARIFOptions {
	v := version()
	return report.SARIFOptions{Version: v, SemanticVersion: semanticVersion(v), Category: category}
}

// semanticVersion is a Go module version in Semantic Versioning 2.0.0
// form (no "v"): "v1.2.3" is "1.2.3", a pseudo-version keeps its
// pre-release part, and a build from a checkout is "0.0.0-devel".
func semanticVersion(v string) string {
	if v == "devel" {
		return "0.0.0-devel"
	}
	if !semver.IsValid(v) {
		return ""
	}
	return strings.TrimPrefix(v, "v")
}

// reportFormats are the values of -format: github writes the SARIF
// log's results as GitHub Actions workflow annotations.
var reportFormats = map[string]bool{"text": true, "json": true, "html": true, "sarif": true, "github": true}

// formatList and formatUsage say them, in errors and in flag help.
const (
	formatList  = "text, json, html, sarif or github"
	formatUsage = "report format: " + formatList
)

// defaultJournal is the campaign directory for a working directory and
// patterns, in the user cache, so that -resume finds it again.
func defaultJournal(wd string, patterns []string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (%v): give -journal DIR", err)
	}
	sum := sha256.Sum256([]byte(wd + "\x00" + strings.Join(patterns, "\x00")))
	return filepath.Join(cache, "atomicx", "campaigns", hex.EncodeToString(sum[:8])), nil
}

// campaignPolicy returns the policy file a campaign builds with: the one
// the go command would find by itself; else a policy written into the
// campaign directory that detects in the named packages, not in their
// dependencies.
func campaignPolicy(wd, dir string, patterns, buildArgs []string) (string, error) {
	found, err := policy.Find(wd, os.Getenv)
	if err != nil {
		return "", err
	}
	if found != "" {
		if _, err := policy.Load(found); err != nil {
			return "", err
		}
		// Named explicitly, so that the journal records it and a
		// reproduce line can name it.
		return filepath.Abs(found)
	}
	args := append(append([]string{"list", "-f", "{{.ImportPath}}"}, buildArgs...), "--")
	out, err := exec.Command("go", append(args, patterns...)...).Output()
	if err != nil {
		return "", fmt.Errorf("go list %s: %v", strings.Join(patterns, " "), err)
	}
	var b strings.Builder
	b.WriteString("# Written by atomicx detect: no atomicheck.toml applies, so the named packages are instrumented.\n[[rule]]\nmode = \"detect\"\npackages = [\n")
	for _, p := range strings.Fields(string(out)) {
		fmt.Fprintf(&b, "\t%q,\n", p)
	}
	b.WriteString("]\n")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "atomicheck.toml")
	return path, os.WriteFile(path, []byte(b.String()), 0o666)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// absExec makes a workload script's path absolute: it runs from the
// working directory, but a bare name would be looked up in PATH.
func absExec(wd, script string) string {
	if script == "" || filepath.IsAbs(script) {
		return script
	}
	if !strings.Contains(script, string(filepath.Separator)) && !strings.Contains(script, "/") {
		if p, err := exec.LookPath(script); err == nil {
			return p
		}
	}
	return filepath.Join(wd, script)
}
