package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question"
	"github.com/atomicx/atomicx/report"
)

// reportOut is where and how a command writes a campaign's report: its
// streams, -o, -format and -category, and what the sources of the
// report's positions are looked up from (the campaign's header, the
// directory the command runs in).
type reportOut struct {
	stdout, stderr         io.Writer
	file, format, category string
	hdr                    *campaign.Header
	wd                     string
}

// questionReport is the report of one question (detect, perturb,
// handlers) in the four formats, so that every command that prints a
// campaign's report writes each question's the same way.
type questionReport interface {
	// located holds, as a detection report's functions, what the
	// report shows positions of: the sources it needs.
	located() *report.Report
	text(w io.Writer, src *sources)
	json(w io.Writer) error
	html(w io.Writer, src *sources) error
	sarif(w io.Writer, src *sources, opt report.SARIFOptions) error
}

// write renders r in o's format to standard output or, when o.file is
// set, to that file (written only once the whole report is).
func (o reportOut) write(r questionReport) error {
	w := o.stdout
	var buf bytes.Buffer
	if o.file != "" {
		w = &buf
	}
	loc := r.located()
	src := newSources(o.hdr, o.wd, loc)
	src.warnMissing(o.stderr, loc)
	var err error
	switch o.format {
	case "json":
		err = r.json(w)
	case "html":
		err = r.html(w, src)
	case "sarif":
		err = r.sarif(w, src, sarifOptions(o.category))
	case "github":
		var log bytes.Buffer
		if err = r.sarif(&log, src, sarifOptions(o.category)); err == nil {
			err = report.WriteGitHubAnnotations(w, log.Bytes())
		}
	default:
		r.text(w, src)
	}
	if err != nil || o.file == "" {
		return err
	}
	if err := os.WriteFile(o.file, buf.Bytes(), 0o666); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// writeJournal writes the report of the campaign whose journal records
// are recs, by the question the campaign asked. "" as o.category is the
// question's own default category.
func (o reportOut) writeJournal(recs []*campaign.Record, problems []campaign.Problem) error {
	// A question without a command of its own (vet's confirmation) has
	// detect's report, the first question's.
	q := questions[0]
	if asked := question.Of(o.hdr, recs); asked != nil {
		if c, ok := questionNamed(asked.Name); ok {
			q = c
		}
	}
	r, err := q.report(o, recs, problems)
	if err != nil {
		return err
	}
	return o.write(r)
}

// detectReportOf is a detection campaign's report, with the coverage of
// its runs.
func detectReportOf(o reportOut, recs []*campaign.Record, problems []campaign.Problem) (questionReport, error) {
	rep := report.Classify(recs, problems)
	if err := addCoverage(context.Background(), rep, o.hdr); err != nil {
		return nil, err
	}
	return detectReport{rep}, nil
}

// detectReport is a detection campaign's report.
type detectReport struct{ *report.Report }

func (r detectReport) located() *report.Report { return r.Report }

func (r detectReport) text(w io.Writer, src *sources) {
	report.WriteText(w, r.Report, src.display, isTerminal(w))
}

func (r detectReport) json(w io.Writer) error { return report.WriteJSON(w, r.Report) }

func (r detectReport) html(w io.Writer, src *sources) error {
	return report.WriteHTML(w, r.Report, report.SourceFilesIn(src.moduleRoot, src.display))
}

func (r detectReport) sarif(w io.Writer, src *sources, opt report.SARIFOptions) error {
	return report.WriteSARIF(w, r.Report, src.absolute, opt, src.roots()...)
}

// perturbReport is a perturbation campaign's report.
type perturbReport struct{ *report.PerturbReport }

// located finds the points' sources as a detection report's functions'.
func (r perturbReport) located() *report.Report {
	loc := &report.Report{Functions: map[string]*report.Function{}}
	for _, p := range r.Points {
		loc.Functions[p.Site] = &report.Function{Name: p.Func, Pos: p.Pos}
	}
	return loc
}

func (r perturbReport) text(w io.Writer, src *sources) {
	report.WritePerturbText(w, r.PerturbReport, src.display)
}

func (r perturbReport) json(w io.Writer) error { return report.WritePerturbJSON(w, r.PerturbReport) }

func (r perturbReport) html(w io.Writer, src *sources) error {
	return report.WritePerturbHTML(w, r.PerturbReport, src.display)
}

func (r perturbReport) sarif(w io.Writer, src *sources, opt report.SARIFOptions) error {
	return report.WritePerturbSARIF(w, r.PerturbReport, src.absolute, opt, src.roots()...)
}

// handlersReport is a handlers campaign's report.
type handlersReport struct{ *report.HandlersReport }

// located finds the sources of the handlers' functions as a detection
// report's functions'.
func (r handlersReport) located() *report.Report {
	loc := &report.Report{Functions: map[string]*report.Function{}}
	for _, h := range r.Handlers {
		loc.Functions[h.ID] = &report.Function{Name: h.Func, Pos: h.Pos}
	}
	return loc
}

func (r handlersReport) text(w io.Writer, src *sources) {
	report.WriteHandlersText(w, r.HandlersReport, src.display)
}

func (r handlersReport) json(w io.Writer) error { return report.WriteHandlersJSON(w, r.HandlersReport) }

func (r handlersReport) html(w io.Writer, _ *sources) error {
	return report.WriteHandlersHTML(w, r.HandlersReport)
}

func (r handlersReport) sarif(w io.Writer, src *sources, opt report.SARIFOptions) error {
	return report.WriteHandlersSARIF(w, r.HandlersReport, src.absolute, opt, src.roots()...)
}
