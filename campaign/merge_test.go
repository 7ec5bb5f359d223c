package campaign

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
)

// shardJournals runs no test: it writes, for each shard of n, the
// journal a shard would, each planned run recorded as passed.
func shardJournals(t *testing.T, dir string, p *Plan, n int, only ...int) []string {
	t.Helper()
	var paths []string
	for k, runs := range split(p.Runs, n) {
		s := Shard{k + 1, n}
		if len(only) > 0 && !containsInt(only, s.K) {
			continue
		}
		path := filepath.Join(dir, s.JournalName())
		h := *p.Header
		h.Plan, h.Shard = p.ID, s.String()
		recs := []*Record{{Kind: "campaign", Campaign: &h}}
		for _, r := range runs {
			rec := *r.Run
			rec.Status, rec.Millis = Passed, 1
			recs = append(recs, &rec)
		}
		if err := WriteJournal(path, recs); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func readShards(t *testing.T, p *Plan, paths ...string) []*ShardJournal {
	t.Helper()
	var js []*ShardJournal
	for _, path := range paths {
		j, err := ReadShardJournal(path, p)
		if err != nil {
			t.Fatal(err)
		}
		js = append(js, j)
	}
	return js
}

func recordKeys(recs []*Record) string {
	var keys []string
	for _, r := range recs {
		keys = append(keys, r.Key())
	}
	return strings.Join(keys, "|")
}

// TestMerge checks that merging does not depend on the order of the
// journals, that it counts what is done per shard and overall, and that
// a merge of some shards says which are missing.
func TestMerge(t *testing.T) {
	dir, p := testPlan(t)
	paths := shardJournals(t, dir, p, 3)
	m, err := Merge(p, readShards(t, p, paths...))
	if err != nil {
		t.Fatal(err)
	}
	rev, err := Merge(p, readShards(t, p, paths[2], paths[0], paths[1]))
	if err != nil {
		t.Fatal(err)
	}
	if recordKeys(m.Records) != recordKeys(rev.Records) {
		t.Errorf("the merge depends on the order of the journals:\n%s\n%s", recordKeys(m.Records), recordKeys(rev.Records))
	}
	if m.Records[0].Kind != "campaign" || m.Records[0].Campaign.Plan != p.ID || m.Records[1].Kind != "profile" {
		t.Errorf("merged records start %s, %s: want the header naming the plan, then the profile runs", m.Records[0].Kind, m.Records[1].Kind)
	}
	if m.Done != len(p.Runs) || m.Planned != len(p.Runs) || len(m.Records) != 2+len(p.Runs) || len(m.Missing) != 0 {
		t.Errorf("merged %d of %d runs, %d records, missing %v; want all %d", m.Done, m.Planned, len(m.Records), m.Missing, len(p.Runs))
	}
	sum := 0
	for _, s := range m.Shards {
		if s.Done != s.Planned {
			t.Errorf("shard %s: %d of %d done", s.Shard, s.Done, s.Planned)
		}
		sum += s.Planned
	}
	if sum != len(p.Runs) {
		t.Errorf("shards have %d runs, the plan %d", sum, len(p.Runs))
	}

	part, err := Merge(p, readShards(t, p, paths[0], paths[2]))
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Missing) != 1 || part.Missing[0].Shard != (Shard{2, 3}) || part.Done != len(p.Runs)-part.Missing[0].Planned {
		t.Errorf("merge of shards 1 and 3: missing %+v, done %d of %d", part.Missing, part.Done, part.Planned)
	}

	// Journals of two splits: each run is kept once, from the smaller N.
	both := append(paths, shardJournals(t, t.TempDir(), p, 2)...)
	m2, err := Merge(p, readShards(t, p, both...))
	if err != nil {
		t.Fatal(err)
	}
	if recordKeys(m2.Records) != recordKeys(m.Records) || m2.Dropped != len(p.Runs) {
		t.Errorf("merge of two splits: %d records, %d dropped; want the records of one and %d dropped", len(m2.Records), m2.Dropped, len(p.Runs))
	}
}

// TestMergeRefuses checks the journals a merge refuses: one of another
// plan, one given twice, two of one shard.
func TestMergeRefuses(t *testing.T) {
	dir, p := testPlan(t)
	paths := shardJournals(t, dir, p, 2)
	otherDir, other := testPlan(t)
	other.Options.MaxOccur = 5
	if err := WritePlan(otherDir, other); err != nil {
		t.Fatal(err)
	}
	otherPaths := shardJournals(t, otherDir, other, 2)

	_, err := ReadShardJournal(otherPaths[0], p)
	if err == nil || !strings.Contains(err.Error(), otherPaths[0]) || !strings.Contains(err.Error(), other.ID) || !strings.Contains(err.Error(), p.ID) {
		t.Errorf("journal of another plan: %v; want an error naming the file and both plans", err)
	}
	js := readShards(t, p, paths[0], paths[1], paths[0])
	if _, err := Merge(p, js); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("journal given twice: %v", err)
	}
	copyDir := t.TempDir()
	again := shardJournals(t, copyDir, p, 2, 1)
	if _, err := Merge(p, readShards(t, p, paths[0], again[0])); err == nil || !strings.Contains(err.Error(), "both journals of shard 1/2") {
		t.Errorf("two journals of one shard: %v", err)
	}
}

// TestMergeFollowUps checks that a question asked by runs of two shards,
// replayed by each, is replayed once in the merged campaign: by the
// replay that one process would have run, whichever shard ran it.
func TestMergeFollowUps(t *testing.T) {
	dir, p := testPlan(t)
	shares := split(p.Runs, 2)
	var paths []string
	var replays []string
	for k, runs := range shares {
		s := Shard{k + 1, 2}
		h := *p.Header
		h.Plan, h.Shard = p.ID, s.String()
		recs := []*Record{{Kind: "campaign", Campaign: &h}}
		for _, r := range runs {
			rec := *r.Run
			rec.Status, rec.Fired = Passed, true
			recs = append(recs, &rec)
		}
		// What the shard's own rechecks would be.
		for _, f := range replayOnce.FollowUps(recs, p.Options) {
			rec := *f.Run
			rec.Status = Passed
			recs = append(recs, &rec)
			replays = append(replays, f.Key)
		}
		path := filepath.Join(dir, s.JournalName())
		if err := WriteJournal(path, recs); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	if len(replays) != 2 {
		t.Fatalf("the shards replay %d times, want once each", len(replays))
	}
	for _, order := range [][]string{paths, {paths[1], paths[0]}} {
		m, err := Merge(p, readShards(t, p, order...))
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, r := range m.Records {
			if r.Kind == "recheck" {
				kept = append(kept, r.Key())
			}
		}
		// One process asks with the first run (by key) that asks.
		want := replayOnce.FollowUps(m.Records[:len(m.Records)-len(kept)], p.Options)
		if len(kept) != 1 || len(want) != 1 || kept[0] != want[0].Key || m.Unused != 1 {
			t.Errorf("kept rechecks %q, %d left out; want the one replay %q", kept, m.Unused, keysOf([][]*PlannedRun{want}))
		}
	}
}

// TestMergeWholeFollowUps checks that the merge's own journal (the
// follow-ups planned from the whole campaign) adds its runs to the
// merged campaign without counting as a shard: the shards missing are
// still named.
func TestMergeWholeFollowUps(t *testing.T) {
	dir, p := testPlan(t)
	paths := shardJournals(t, dir, p, 3, 1, 3)
	h := *p.Header
	h.Plan, h.Shard = p.ID, mergeShardName
	widened := &Record{Kind: "experiment", Package: "example.com/m", Test: "TestA", Arming: arm.Arming{Inject: arm.Injection{Site: "p.F#handler:f.go:1:1", Fault: "widen"}}, Status: Passed}
	whole := &ShardJournal{Path: filepath.Join(dir, FollowUpsJournalName), FollowUps: true,
		Records: []*Record{{Kind: "campaign", Campaign: &h}, widened}}
	for _, order := range [][]*ShardJournal{append(readShards(t, p, paths...), whole), append([]*ShardJournal{whole}, readShards(t, p, paths...)...)} {
		m, err := Merge(p, order)
		if err != nil {
			t.Fatal(err)
		}
		if m.WholeFollowUps != 1 || len(m.Shards) != 2 || len(m.Missing) != 1 || m.Missing[0].Shard != (Shard{2, 3}) {
			t.Errorf("merge with the follow-ups journal: %d follow-ups, shards %+v, missing %+v; want 1, two shards, 2/3 missing", m.WholeFollowUps, m.Shards, m.Missing)
		}
		found := false
		for _, r := range m.Records {
			found = found || r.Key() == widened.Key()
		}
		if !found {
			t.Errorf("the merged records lack the follow-up run %s", widened.Key())
		}
	}
}
