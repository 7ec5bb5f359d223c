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
	"runtime"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question"
)

// mergeFlags are merge's flags; the example files' command lines are
// checked against them too.
func mergeFlags(stderr io.Writer) (*flag.FlagSet, *mergeOptions) {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &mergeOptions{}
	fs.StringVar(&o.format, "format", "text", formatUsage)
	fs.StringVar(&o.out, "o", "", "write the report to this file instead of standard output")
	fs.StringVar(&o.category, "category", "", sarifCategoryUsage+byQuestionCategory)
	fs.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "runs at once, for the runs that the merge itself runs (handler widenings)")
	fs.StringVar(&o.dir, "C", "", "the module's directory here (default: the current directory), for the runs that the merge itself runs")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx merge [-format text|json|html|sarif|github] [-o file] [-jobs J] [-C dir] PLANDIR [JOURNAL...]\n\n"+
			"Combines the journals of a plan's shards (default: PLANDIR/shard-*-of-*.jsonl)\n"+
			"into the campaign's journal, PLANDIR/journal.jsonl, and prints its report\n"+
			"and how many of the plan's runs are done, overall and per shard. A journal\n"+
			"of another plan is refused. 'atomicx report PLANDIR' and 'atomicx reproduce\n"+
			"-journal PLANDIR' read the merged journal.\n\n"+
			"A handlers plan's widenings are validated from every shard's runs: once\n"+
			"all the plan's runs are in, merge runs them itself, in the module checked\n"+
			"out here, with the plan's binaries, into PLANDIR/%s\n"+
			"(resumed when run again).\n\nFlags:\n", campaign.FollowUpsJournalName)
		fs.PrintDefaults()
	}
	return fs, o
}

type mergeOptions struct {
	format, out, category, dir string
	jobs                       int
}

func mergeCmd(args []string, stdout, stderr io.Writer) int {
	fs, o := mergeFlags(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() < 1 {
		fs.Usage()
		return 2
	}
	if !reportFormats[o.format] {
		fmt.Fprintf(stderr, "atomicx merge: -format must be %s\n", formatList)
		return 2
	}
	planDir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	p, err := campaign.ReadPlan(planDir, question.Named)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	paths := fs.Args()[1:]
	if len(paths) == 0 {
		paths, _ = filepath.Glob(filepath.Join(planDir, "shard-*-of-*.jsonl"))
		if len(paths) == 0 {
			fmt.Fprintf(stderr, "atomicx: no shard journals in %s: run 'atomicx run -shard K/N %s' first, or name the journals\n", planDir, fs.Arg(0))
			return 1
		}
	}
	var journals []*campaign.ShardJournal
	for _, path := range paths {
		j, err := campaign.ReadShardJournal(path, p)
		if err != nil {
			fmt.Fprintf(stderr, "atomicx: %v\n", err)
			return 1
		}
		journals = append(journals, j)
	}
	m, err := campaign.Merge(p, journals)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	if m, err = mergeFollowUps(p, planDir, m, journals, o, stderr); err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		if errors.Is(err, context.Canceled) {
			return 130
		}
		return 1
	}
	// The merged campaign is read from here: its reproduce lines name
	// this directory, and its sources are those of this checkout when it
	// is of the plan's module.
	h := campaign.HeaderOf(m.Records)
	h.Journal = planDir
	wd, _ := os.Getwd()
	if root, module, err := campaign.ModuleOf(context.Background(), wd); err == nil && module == h.Module && root != h.ModuleRoot {
		h.Dir = rebase(h.Dir, h.ModuleRoot, root)
		h.ModuleRoot = root
	}
	if err := campaign.WriteJournal(filepath.Join(planDir, "journal.jsonl"), m.Records); err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	for _, pr := range m.Problems {
		fmt.Fprintf(stderr, "%s\n", pr)
	}
	writeMergeProgress(stderr, p, m)
	out := reportOut{stdout: stdout, stderr: stderr, file: o.out, format: o.format, category: o.category, hdr: h, wd: wd}
	if err := out.writeJournal(m.Records, m.Problems); err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	return 0
}

// mergeFollowUps runs the follow-ups that the plan's planner plans from
// the whole campaign (campaign.Planner.WholeFollowUps), once every run of
// the plan is in, and merges them too. Those of an earlier merge are
// kept: it runs only the missing ones, and none, nor needs the binaries
// or the module, when none is missing.
func mergeFollowUps(p *campaign.Plan, planDir string, m *campaign.Merged, journals []*campaign.ShardJournal, o *mergeOptions, stderr io.Writer) (*campaign.Merged, error) {
	planner := p.Question()
	if !planner.WholeFollowUps || m.Done < m.Planned {
		return m, nil
	}
	path := filepath.Join(planDir, campaign.FollowUpsJournalName)
	old, problems, err := campaign.ReadJournal(path)
	if err != nil {
		return nil, err
	}
	if h := campaign.HeaderOf(old); h == nil || h.Plan != p.ID {
		old = nil // another plan's, removed when the runs start
	}
	recs := append(append([]*campaign.Record(nil), m.Records...), old...)
	whole := &campaign.ShardJournal{Path: path, Records: old, Problems: problems, FollowUps: true}
	if len(planner.FollowUps(recs, p.Options)) > 0 {
		dir := o.dir
		if dir == "" {
			dir, _ = os.Getwd()
		}
		root, err := moduleRootHere(dir, p.Header)
		if err != nil {
			return nil, fmt.Errorf("the merge runs the follow-ups of every shard's runs: %w", err)
		}
		pkgs, err := p.Resolve(planDir, root)
		if err != nil {
			return nil, err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		res, err := campaign.RunShard(ctx, p, campaign.ShardConfig{PlanDir: planDir, Packages: pkgs, Dir: root,
			Exec: rebase(p.Header.Exec, p.Header.ModuleRoot, root), Oracle: rebase(p.Header.Oracle, p.Header.ModuleRoot, root),
			Journal: path, Jobs: o.jobs, Progress: stderr, Merged: m.Records})
		if errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("interrupted; what finished is in %s, and the same merge goes on from there: %w", path, err)
		}
		if err != nil {
			return nil, err
		}
		whole.Records, whole.Problems = res.Records, res.Problems
	}
	if len(whole.Records) == 0 {
		return m, nil
	}
	return campaign.Merge(p, append(append([]*campaign.ShardJournal(nil), journals...), whole))
}

// writeMergeProgress says how far the plan got: the planned runs done,
// overall, by kind and per shard, and the shards not merged.
func writeMergeProgress(w io.Writer, p *campaign.Plan, m *campaign.Merged) {
	var kinds []string
	for k := range m.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		c := m.ByKind[k]
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, c[0], c[1]))
	}
	fmt.Fprintf(w, "plan %s: %d/%d runs done (%s)\n", p.ID, m.Done, m.Planned, strings.Join(parts, ", "))
	followUps := p.Question().FollowUpsName
	for _, s := range m.Shards {
		state := "complete"
		if s.Done < s.Planned {
			state = fmt.Sprintf("%d to go", s.Planned-s.Done)
		}
		fmt.Fprintf(w, "  shard %s: %d/%d runs done, %s; %d %s (%s)\n", s.Shard, s.Done, s.Planned, state, s.FollowUps, followUps, s.Path)
	}
	for _, s := range m.Missing {
		fmt.Fprintf(w, "  shard %s: missing: no journal given; %d runs not done\n", s.Shard, s.Planned)
	}
	if m.WholeFollowUps > 0 {
		fmt.Fprintf(w, "  merge: %d runs planned from every shard's runs (%s)\n", m.WholeFollowUps, campaign.FollowUpsJournalName)
	}
	if m.Dropped > 0 {
		fmt.Fprintf(w, "  %d runs were in more than one journal (shards of different N): kept from the smallest N\n", m.Dropped)
	}
	if m.Unused > 0 {
		fmt.Fprintf(w, "  %d %s left out: they replay questions that another shard's %s answer, as one process would have asked them once\n", m.Unused, followUps, followUps)
	}
	if m.Done < m.Planned {
		fmt.Fprintf(w, "incomplete: %d of the plan's runs are not in the journals; the report covers the %d done\n", m.Planned-m.Done, m.Done)
		if p.Question().WholeFollowUps {
			fmt.Fprintf(w, "  the runs planned from every shard's runs (handler widenings) wait for them all: merge again when every shard is in\n")
		}
	}
}
