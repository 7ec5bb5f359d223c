package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question/handlers"
	"github.com/atomicx/atomicx/report"
)

// handlersCmd runs a handlers campaign: short-circuit testing of the
// packages' error handlers against their tests.
func handlersCmd(args []string, stdout, stderr io.Writer) int {
	q, _ := questionNamed(handlers.Handlers.Name)
	fs, c := newCampaignFlags(q, stderr)
	widenDiff := fs.String("widen-diff", "", "write the kept handler widenings to this file, as a unified diff of the sources (apply with patch -p1 in the module's root)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx handlers [flags] [packages | -exec SCRIPT [-oracle SCRIPT] package]\n\n"+
			"Short-circuit testing of the packages' error handlers: a profile run per\n"+
			"test records which handlers (if err != nil, errors.Is, errors.As and\n"+
			"err == X arms) it executes and with what usage, then one run per handler\n"+
			"and test that executes it, with every execution of the handled call\n"+
			"skipped and yielding an error the handler's predicate holds for.\n"+
			"Reports each handler's verdicts: source-independent or source-dependent,\n"+
			"purely resilient or not. Typed arms that are source-independent and do\n"+
			"not use the typed value are then run widened to err != nil: the widening\n"+
			"is kept, rejected or not offered (see atomicx help).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, self, code := c.config("handlers", args, fs.Args(), stderr)
	if code != 0 {
		return code
	}
	res, interrupted, code := runQuestion("handlers", cfg, self, c.journal, c.resume, stderr)
	if code != 0 {
		return code
	}
	if !interrupted {
		line := fmt.Sprintf("ran %d profile runs and %d runs with a handler armed or widened", res.ProfileRuns, res.Experiments)
		if r := res.Resumed; r["profile"]+r["experiment"] > 0 {
			line += fmt.Sprintf("; resumed from the journal: %d profile runs and %d runs with a handler armed", r["profile"], r["experiment"])
		}
		line += wallTimeText(res.Records)
		fmt.Fprintln(stderr, line)
	}
	rep := report.Handlers(res.Records, res.Problems)
	out := reportOut{stdout: stdout, stderr: stderr, file: c.out, format: c.format, category: c.category, hdr: campaign.HeaderOf(res.Records), wd: cfg.Dir}
	if err := out.write(handlersReport{rep}); err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	if *widenDiff != "" {
		if err := writeWidenDiff(stderr, *widenDiff, rep, campaign.HeaderOf(res.Records), cfg.Dir); err != nil {
			fmt.Fprintf(stderr, "atomicx: %v\n", err)
			return 1
		}
	}
	if interrupted {
		return 130
	}
	return 0
}

// writeWidenDiff writes the kept widenings of rep to file as a unified
// diff whose paths are relative to the module's root, and says on stderr
// how many arms it rewrote, or why none.
func writeWidenDiff(stderr io.Writer, file string, rep *report.HandlersReport, hdr *campaign.Header, wd string) error {
	fns := &report.Report{Functions: map[string]*report.Function{}}
	for _, h := range rep.Handlers {
		fns.Functions[h.ID] = &report.Function{Name: h.Func, Pos: h.Pos}
	}
	src := newSources(hdr, wd, fns)
	var buf bytes.Buffer
	n, skipped, err := report.WriteWidenDiff(&buf, rep, func(pos string) (*report.SourceFile, error) {
		abs, _, _ := strings.Cut(src.absolute(pos), ":")
		if !filepath.IsAbs(abs) {
			return nil, fmt.Errorf("the source of %s was not found", pos)
		}
		rel, err := filepath.Rel(src.moduleRoot, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("%s is outside the module", abs)
		}
		b, err := os.ReadFile(abs)
		return &report.SourceFile{Name: filepath.ToSlash(rel), Src: b}, err
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o666); err != nil {
		return fmt.Errorf("writing the widening diff: %w", err)
	}
	fmt.Fprintf(stderr, "widen-diff: %d kept widenings and routings written to %s\n", n, file)
	for _, s := range skipped {
		fmt.Fprintf(stderr, "widen-diff: not written: %s\n", s)
	}
	return nil
}
