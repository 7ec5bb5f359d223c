package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A Shard is the Kth of N shares of a plan's runs, K from 1.
type Shard struct{ K, N int }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// ParseShard reads "K/N".
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("shard %q: want K/N with 1 <= K <= N, e.g. 2/4", s)
	}
	return Shard{K: ki, N: ni}, nil
}

// JournalName is the default name of a shard's journal in the plan's
// directory.
func (s Shard) JournalName() string { return fmt.Sprintf("shard-%d-of-%d.jsonl", s.K, s.N) }

// split deals the runs out to n shards, the same way on every machine:
// the runs ordered by key, then the longest first (ties in key order) to
// the shard with the least estimated time so far (ties to the lowest
// shard). Each shard's runs come longest first.
func split(runs []*PlannedRun, n int) [][]*PlannedRun {
	order := append([]*PlannedRun(nil), runs...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Key < order[j].Key })
	sort.SliceStable(order, func(i, j int) bool { return order[i].CostMs > order[j].CostMs })
	shards := make([][]*PlannedRun, n)
	load := make([]int64, n)
	for _, r := range order {
		least := 0
		for s := 1; s < n; s++ {
			if load[s] < load[least] {
				least = s
			}
		}
		shards[least] = append(shards[least], r)
		// A run costs at least 1ms: runs planned from a profile that
		// took no time still spread out.
		load[least] += max(r.CostMs, 1)
	}
	return shards
}

// ShardConfig is how a shard runs on this machine.
type ShardConfig struct {
	Shard    Shard
	PlanDir  string     // the plan's directory: binaries, scratch directories of the runs
	Packages []*Package // the plan's packages, resolved here (Plan.Resolve)
	Dir      string     // where a program workload's script runs: the module's root here
	Exec     string     // the program workload's script, resolved here
	Oracle   string     // its oracle, resolved here
	Journal  string     // the shard's journal
	Jobs     int
	Fresh    bool // a process per run: see Config.Fresh
	Progress io.Writer
	// ExtraEnv is added to every run's environment (e.g. a GOCOVERDIR
	// next to the journal).
	ExtraEnv []string
	// Own says that the journal is the campaign's own (atomicx detect):
	// its header, written by the plan step, names no plan. Otherwise the
	// journal is a shard's, and its header names the plan and the shard.
	// Either is resumed: the runs it holds are skipped.
	Own bool
	// Session is when the command that runs the shard started (its runs'
	// Record.Session); the zero time for now.
	Session time.Time
	// Merged, when set, are the records of every shard merged (Merge):
	// the journal is then the merge's own (FollowUpsJournalName), and
	// holds no share of the plan but the follow-ups that a planner plans
	// from the whole campaign (Planner.WholeFollowUps), planned from
	// these records and the journal's. Shard is not used.
	Merged []*Record
}

// FollowUpsJournalName is the name, in the plan's directory, of the
// journal of the follow-ups that the merge runs (ShardConfig.Merged).
const FollowUpsJournalName = "merge-follow-ups.jsonl"

// mergeShardName is the shard named in the header of the merge's
// follow-ups journal.
const mergeShardName = "merge"

// RunShard runs the shard's share of the plan, and the runs that its
// finished runs call for (the planner's follow-ups, planned from this
// shard's records only), appending each to the shard's journal as it
// ends. A journal that already holds runs of this shard is resumed; one
// of another plan or shard is refused.
func RunShard(ctx context.Context, p *Plan, sc ShardConfig) (*Result, error) {
	start := time.Now()
	if !sc.Session.IsZero() {
		start = sc.Session
	}
	planner := p.planner
	if planner == nil {
		return nil, fmt.Errorf("the plan asks the question %q, which this atomicx does not know", p.Planner)
	}
	// The shard reads its journal again between rounds and at the end:
	// each time only what was appended since.
	journal := &journalReader{path: sc.Journal}
	old, problems, err := journal.read()
	if err != nil {
		return nil, err
	}
	for _, pr := range problems {
		var oldRec OldRecordError
		if errors.As(pr.Err, &oldRec) {
			return nil, fmt.Errorf("cannot resume %s: %v", sc.Journal, oldRec)
		}
	}
	hdr := HeaderOf(old)
	shardName := sc.Shard.String()
	if sc.Merged != nil {
		shardName = mergeShardName
		if hdr != nil && hdr.Plan != p.ID {
			// The follow-ups of an earlier plan made in the same
			// directory: they answer nothing of this one.
			if err := os.Remove(sc.Journal); err != nil {
				return nil, err
			}
			old, problems, hdr = nil, nil, nil
		}
	}
	if hdr != nil && hdr.Plan != "" {
		if hdr.Plan != p.ID {
			return nil, fmt.Errorf("%s is the journal of plan %s, not of this plan (%s): give another -o, or remove it", sc.Journal, hdr.Plan, p.ID)
		}
		if hdr.Shard != shardName && !sc.Own {
			return nil, fmt.Errorf("%s is the journal of shard %s, not %s: give another -o, or remove it", sc.Journal, hdr.Shard, shardName)
		}
	} else if !sc.Own && len(old) > 0 {
		return nil, fmt.Errorf("%s is not the journal of a shard: give another -o", sc.Journal)
	}
	if err := os.MkdirAll(filepath.Dir(sc.Journal), 0o777); err != nil {
		return nil, err
	}
	j, err := OpenJournal(sc.Journal)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	if hdr == nil {
		h := *p.Header
		h.Plan, h.Shard = p.ID, shardName
		if err := j.Append(&Record{Kind: "campaign", Campaign: &h}); err != nil {
			return nil, err
		}
	}
	res := &Result{Packages: sc.Packages, Problems: problems, Resumed: map[string]int{}}
	done := map[string]*Record{}
	for _, r := range old {
		done[r.Key()] = r
		if r.Kind != "campaign" && r.Kind != "profile" {
			res.Resumed[r.Kind]++
		}
	}
	if p.Header.Cover {
		// Each run's counters go into the plan's directory (CoverDirs),
		// where a merge on this machine finds them.
		tests, injected := CoverDirs(sc.PlanDir)
		for _, d := range []string{tests, injected} {
			if err := os.MkdirAll(d, 0o777); err != nil {
				return nil, err
			}
		}
	}
	c := &runner{cfg: Config{Dir: sc.Dir, Journal: sc.PlanDir, Jobs: max(sc.Jobs, 1), Fresh: sc.Fresh, Timeout: p.Options.Timeout(),
		Exec: sc.Exec, Oracle: sc.Oracle, Progress: sc.Progress, Cover: p.Header.Cover, Planner: planner}, journal: j, done: done, res: res, session: start.UnixMilli(), extraEnv: sc.ExtraEnv}
	defer c.removeSlots()
	if sc.Shard.N > 1 {
		c.label = "shard " + sc.Shard.String() + ": "
	}
	if sc.Merged != nil {
		c.label = "merge: "
	}
	if sc.Merged == nil {
		if err := c.experiments(ctx, split(p.Runs, sc.Shard.N)[sc.Shard.K-1]); err != nil {
			return nil, err
		}
	}
	// A shard of several, or one that did not write the profile runs
	// into its journal, cannot plan the follow-ups that need the whole
	// campaign: the merge runs them.
	wholeOnly := planner.WholeFollowUps && !sc.Own && sc.Merged == nil
	for range planner.Rounds {
		if wholeOnly || planner.FollowUps == nil {
			break
		}
		recs, _, err := journal.read()
		if err != nil {
			return nil, err
		}
		if sc.Merged != nil {
			recs = append(append([]*Record(nil), sc.Merged...), recs...)
		}
		runs := planner.FollowUps(recs, p.Options)
		if len(runs) == 0 {
			break
		}
		c.logf("%s"+planner.FollowUpsText, c.label, len(runs))
		if err := c.experiments(ctx, runs); err != nil {
			return nil, err
		}
	}
	res.Records, res.Problems, err = journal.read()
	res.Problems = append(problems, res.Problems...)
	res.Elapsed = time.Since(start)
	return res, err
}
