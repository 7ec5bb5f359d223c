package main

import (
	"context"
	"fmt"
	"go/token"
	"io"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/errleak"
	"github.com/atomicx/atomicx/question/leaks"
	"github.com/atomicx/atomicx/report"
	"golang.org/x/tools/go/packages"
)

// The answers of atomicx vet -confirm for findings it does not run.
const (
	confirmNotConfirmable = "not confirmable"
	confirmInTestFile     = "not run"
)

// confirmOptions are the flags of atomicx vet -confirm.
type confirmOptions struct {
	jobs    int
	timeout time.Duration
	run     *regexp.Regexp
	journal string
	args    []string // vet's command line, for the campaign's header
}

// vetFinding is a finding of errleak as atomicx vet -confirm needs it.
type vetFinding struct {
	pos    string // the acquire, as vet prints it: the finding's name
	target *leaks.LeakTarget
	reason string // why it is not run: the answer, when target is nil
}

// findingsOf turns a package's findings into targets: positions as the
// runtime's sites give them (import path/file.go:line:col).
func findingsOf(p *packages.Package, fs []errleak.Finding, wd string) []vetFinding {
	var out []vetFinding
	for _, f := range fs {
		acq := p.Fset.Position(f.Pos)
		v := vetFinding{pos: vetPos(acq, wd)}
		switch {
		case strings.HasSuffix(acq.Filename, "_test.go"):
			v.reason = confirmInTestFile + ": the function is in a test file, which no campaign instruments"
		case f.Opening == nil || f.Func == "" || f.ReturnLine == 0:
			v.reason = confirmNotConfirmable + ": no failed call on the path decides it (the last error test found no error, or tests no call's error)"
		default:
			op := p.Fset.Position(f.Opening.Pos)
			v.target = &leaks.LeakTarget{ID: v.pos, Func: f.Func, Callee: f.Opening.Callee, ReturnLine: f.ReturnLine,
				CallPos: sitePos(p.PkgPath, op), AcquirePos: sitePos(p.PkgPath, acq), IsClosed: f.IsClosed}
		}
		out = append(out, v)
	}
	return out
}

// sitePos is a position of package pkg as the runtime's sites give it:
// import path/file.go:line:col.
func sitePos(pkg string, pos token.Position) string {
	return fmt.Sprintf("%s:%d:%d", path.Join(pkg, filepath.Base(pos.Filename)), pos.Line, pos.Column)
}

// confirmFindings runs the packages' tests with the failure that opens
// each finding's path injected, and returns the answer for each finding
// by its position.
func confirmFindings(fs []vetFinding, pkgs map[string]bool, opt confirmOptions, stderr io.Writer) (map[string]*report.LeakConfirmation, error) {
	answers := map[string]*report.LeakConfirmation{}
	var targets []leaks.LeakTarget
	for _, f := range fs {
		if f.target == nil {
			answers[f.pos] = &report.LeakConfirmation{Answer: f.reason}
			continue
		}
		targets = append(targets, *f.target)
	}
	if len(targets) == 0 {
		return answers, nil
	}
	patterns := make([]string, 0, len(pkgs))
	for p := range pkgs {
		patterns = append(patterns, p)
	}
	sort.Strings(patterns)
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir := opt.journal
	if dir == "" {
		if dir, err = defaultJournal(wd, append([]string{"vet -confirm"}, patterns...)); err != nil {
			return nil, err
		}
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir) // see runQuestion
	}
	pol, err := confirmPolicy(dir, patterns, targets)
	if err != nil {
		return nil, err
	}
	noun := "findings"
	if len(targets) == 1 {
		noun = "finding"
	}
	fmt.Fprintf(stderr, "confirming %d %s with the tests of %s; journal: %s\n", len(targets), noun, strings.Join(patterns, " "), dir)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := campaign.Run(ctx, campaign.Config{
		Patterns: patterns, Dir: wd, Journal: dir, Atomicx: self, Identity: identity, Policy: pol,
		Jobs: opt.jobs, Timeout: opt.timeout, MaxOccur: confirmProfileOccurrences, EarlyStop: true,
		Progress: stderr, Run: opt.run, Planner: leaks.Confirm, QuestionData: leaks.EncodeTargets(targets),
		Header: campaign.Header{Command: append([]string{"atomicx", "vet"}, opt.args...), Version: version(),
			Date: time.Now().UTC().Format(time.RFC3339)},
	})
	if err != nil {
		return nil, err
	}
	hdr := campaign.HeaderOf(res.Records)
	for _, c := range leaks.ConfirmLeaks(targets, res.Records) {
		a := &report.LeakConfirmation{Answer: c.Answer}
		if e := c.Run; e != nil {
			a.Package, a.Test = e.Package, e.Test
			inj := e.Arming.Inject
			a.Injection = inj.String()
			a.Reproduce = report.LeakReproduce(e.Package, e.Test, inj, hdr)
		}
		if c.Why != "" {
			a.Answer += " (" + c.Why + ")"
		}
		if c.Answer == leaks.LeakHung {
			a.Answer += " (the run hit its time limit outside the function)"
		}
		if c.Answer == leaks.LeakOtherReturn {
			if c.End > 0 {
				a.Answer += fmt.Sprintf(" (line %d)", c.End)
			} else {
				a.Answer += " (it returned without failing)"
			}
		}
		answers[c.Target.ID] = a
	}
	return answers, nil
}

// confirmProfileOccurrences is how many reaches of each point a confirm
// campaign's profile runs log: an instrumented callee's entry is reached
// from other callers too, and only the reaches from the finding's
// function count.
const confirmProfileOccurrences = 20

// confirmPolicy writes the policy a confirm campaign builds with into
// its directory: the findings' packages in detect mode, whatever policy
// the module has, as that one may leave them alone or mask them; and
// the findings' acquisitions, whose resources the build probes for
// openness when their function returns an error (probe_acquires, a key
// of the policy internal to vet -confirm), each with the method that
// probes it when its [[leak.resource]] table names one.
func confirmPolicy(dir string, pkgs []string, targets []leaks.LeakTarget) (string, error) {
	var b strings.Builder
	b.WriteString("# Written by atomicx vet -confirm: the packages of the findings, instrumented for detection,\n" +
		"# with the resources of the findings' acquisitions probed when their function returns an error.\n" +
		"[[rule]]\nmode = \"detect\"\npackages = [\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\t%q,\n", p)
	}
	b.WriteString("]\nprobe_acquires = [\n")
	seen := map[string]bool{}
	for _, t := range targets {
		if t.AcquirePos != "" && !seen[t.AcquirePos] {
			seen[t.AcquirePos] = true
			entry := t.AcquirePos
			if t.IsClosed != "" {
				entry += " " + t.IsClosed
			}
			fmt.Fprintf(&b, "\t%q,\n", entry)
		}
	}
	b.WriteString("]\n")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "atomicheck.toml")
	return p, os.WriteFile(p, []byte(b.String()), 0o666)
}

// confirmLines are the lines a confirmation adds under a finding in
// vet's text output.
func confirmLines(a *report.LeakConfirmation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\tconfirm: %s", a.Answer)
	if a.Test != "" {
		fmt.Fprintf(&b, ", by %s in %s", a.Test, a.Package)
	}
	b.WriteString("\n")
	if a.Reproduce != "" {
		fmt.Fprintf(&b, "\treproduce: %s\n", a.Reproduce)
	}
	return b.String()
}
