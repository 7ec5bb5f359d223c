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
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question"
)

// runFlags are run's flags; the example files' command lines are checked
// against them too.
func runFlags(stderr io.Writer) (*flag.FlagSet, *runOptions) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &runOptions{}
	fs.StringVar(&o.shard, "shard", "1/1", "the share of the plan to run, K/N: the Kth of N")
	fs.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "runs at once")
	fs.BoolVar(&o.fresh, "fresh", false, freshUsage)
	fs.StringVar(&o.out, "o", "", "the shard's journal (default: PLANDIR/shard-K-of-N.jsonl)")
	fs.StringVar(&o.dir, "C", "", "the module's directory here (default: the current directory): the packages' directories are found under its root")
	fs.BoolVar(&o.rebuild, "rebuild", false, "build the test binaries missing from PLANDIR/bin again, with the plan's go command; refused when one differs from the plan's")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: atomicx run -shard K/N [-jobs J] [-o journal] [-C dir] [-rebuild] PLANDIR\n\n"+
			"Runs the Kth of N shares of a plan made by 'atomicx plan', and the rechecks\n"+
			"its own runs call for, appending each run to the shard's journal as it\n"+
			"ends. Every machine splits a plan the same way; run again with the same\n"+
			"arguments, a killed shard goes on where it stopped.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs, o
}

type runOptions struct {
	shard, out, dir string
	jobs            int
	rebuild, fresh  bool
}

func runCmd(args []string, stdout, stderr io.Writer) int {
	fs, o := runFlags(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	shard, err := campaign.ParseShard(o.shard)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx run: -shard: %v\n", err)
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
	dir := o.dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	root, err := moduleRootHere(dir, p.Header)
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	pkgs, err := p.Resolve(planDir, root)
	var missing *campaign.MissingBinaryError
	if errors.As(err, &missing) && o.rebuild {
		if err = rebuild(p, planDir, root, stderr); err == nil {
			if pkgs, err = p.Resolve(planDir, root); err != nil {
				err = fmt.Errorf("-rebuild did not give the plan's binaries (another Go toolchain, atomicx binary or checkout than the plan's?); ship the plan's bin directory instead: %v", err)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	journal := o.out
	if journal == "" {
		journal = filepath.Join(planDir, shard.JournalName())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(stderr, "plan %s, shard %s: journal %s\n", p.ID, shard, journal)
	res, err := campaign.RunShard(ctx, p, campaign.ShardConfig{Shard: shard, PlanDir: planDir, Packages: pkgs,
		Dir: root, Exec: rebase(p.Header.Exec, p.Header.ModuleRoot, root),
		Oracle: rebase(p.Header.Oracle, p.Header.ModuleRoot, root), Journal: journal, Jobs: o.jobs, Fresh: o.fresh, Progress: stderr})
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "atomicx: interrupted; what finished is in %s, and the same command goes on from there\n", journal)
		return 130
	}
	if err != nil {
		fmt.Fprintf(stderr, "atomicx: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "shard %s: ran %d experiments, %d natural reruns and %d rechecks", shard, res.Experiments, res.NaturalRuns, res.Rechecks)
	if r := res.Resumed; len(r) > 0 {
		fmt.Fprintf(stderr, "; resumed from the journal: %d experiments, %d natural reruns and %d rechecks", r["experiment"], r["natural"], r["recheck"])
	}
	fmt.Fprint(stderr, wallTimeText(res.Records))
	fmt.Fprintln(stderr)
	return 0
}

// moduleRootHere is the root of the module that holds dir: where a
// shard finds the plan's packages, wherever the plan was made. It must be
// the plan's module.
func moduleRootHere(dir string, h *campaign.Header) (string, error) {
	root, module, err := campaign.ModuleOf(context.Background(), dir)
	if err != nil {
		return "", err
	}
	if module != h.Module {
		return "", fmt.Errorf("%s is in module %q, the plan is of module %q: run in a checkout of the plan's module, or give -C", dir, module, h.Module)
	}
	return root, nil
}

// rebase moves path from under oldRoot to under newRoot; a path
// elsewhere stays.
func rebase(path, oldRoot, newRoot string) string {
	if path == "" || oldRoot == "" {
		return path
	}
	rel, err := filepath.Rel(oldRoot, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.Join(newRoot, rel)
}

// rebuild builds the plan's missing test binaries as the plan did: its
// build flags and policy (found under the module or the plan's directory
// here), this atomicx. A binary that is not byte for byte the plan's is
// refused by Resolve afterwards.
func rebuild(p *campaign.Plan, planDir, root string, stderr io.Writer) error {
	h := p.Header
	self, err := os.Executable()
	if err != nil {
		return err
	}
	policy := h.Policy
	if policy != "" {
		if r := rebase(policy, h.Journal, planDir); r != policy {
			policy = r
		} else {
			policy = rebase(policy, h.ModuleRoot, root)
		}
	}
	return p.Rebuild(context.Background(), planDir, campaign.Config{Dir: rebase(h.Dir, h.ModuleRoot, root), Atomicx: self,
		Identity: identity, Policy: policy, Progress: stderr})
}
