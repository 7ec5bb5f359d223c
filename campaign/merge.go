package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// A ShardJournal is one shard's journal, read for a merge.
type ShardJournal struct {
	Path     string
	Shard    Shard // the zero Shard for a campaign's own journal
	Records  []*Record
	Problems []Problem
	// FollowUps says that the journal is the merge's own: the follow-ups
	// planned from the whole campaign (ShardConfig.Merged).
	FollowUps bool
}

// ReadShardJournal reads a shard's journal and checks that it is one of
// the plan's.
func ReadShardJournal(path string, p *Plan) (*ShardJournal, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no journal: %v", err)
	}
	recs, problems, err := ReadJournal(path)
	if err != nil {
		return nil, err
	}
	h := HeaderOf(recs)
	if h == nil || h.Plan == "" || h.Shard == "" {
		return nil, fmt.Errorf("%s is not the journal of a shard (atomicx run -shard K/N writes one)", path)
	}
	if h.Plan != p.ID {
		return nil, fmt.Errorf("%s is a journal of plan %s, not of this plan (%s): merge it with its own plan directory", path, h.Plan, p.ID)
	}
	s, err := ParseShard(h.Shard)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &ShardJournal{Path: path, Shard: s, Records: recs, Problems: problems}, nil
}

// Merged is the campaign that shards' journals make together.
type Merged struct {
	Records  []*Record // the header, the plan's profile runs and every shard's runs, in the order of their keys
	Problems []Problem
	Planned  int             // runs in the plan
	Done     int             // of them, in the journals
	Shards   []ShardProgress // per journal, in shard order
	Missing  []ShardProgress // shards of the journals' N that no journal was given for
	Dropped  int             // records of a run that another journal also has (a plan run under two N)
	// Unused counts the follow-ups (rechecks) left out: the campaign run
	// as one shard would not have run them, another shard's answering
	// the same question.
	Unused int
	ByKind map[string][2]int // per kind of planned run: done, planned

	// WholeFollowUps counts the runs of the merge's own journal (the
	// follow-ups planned from the whole campaign).
	WholeFollowUps int
}

// ShardProgress is how far one shard got.
type ShardProgress struct {
	Path      string
	Shard     Shard
	Planned   int // the plan's runs dealt to the shard
	Done      int // of them, in its journal
	FollowUps int // runs its finished runs called for (rechecks), done
}

// Merge combines shards' journals of a plan into the records of one
// campaign. The result does not depend on the order of the journals:
// records are sorted by key, and a run found in two journals (shards of
// two splits, N changed between runs) is kept from the journal of the
// smaller N, then K. A journal given twice, or two journals of one
// shard, are refused.
func Merge(p *Plan, journals []*ShardJournal) (*Merged, error) {
	var js, whole []*ShardJournal
	for _, j := range journals {
		if j.FollowUps {
			whole = append(whole, j)
		} else {
			js = append(js, j)
		}
	}
	sort.SliceStable(js, func(i, j int) bool {
		a, b := js[i].Shard, js[j].Shard
		if a.N != b.N {
			return a.N < b.N
		}
		if a.K != b.K {
			return a.K < b.K
		}
		return js[i].Path < js[j].Path
	})
	seenPath := map[string]string{}
	seenShard := map[Shard]string{}
	for _, j := range js {
		abs, err := filepath.Abs(j.Path)
		if err != nil {
			abs = j.Path
		}
		if prev, ok := seenPath[abs]; ok {
			return nil, fmt.Errorf("the journal %s is given twice (also as %s)", j.Path, prev)
		}
		seenPath[abs] = j.Path
		if prev, ok := seenShard[j.Shard]; ok && j.Shard != (Shard{}) {
			return nil, fmt.Errorf("%s and %s are both journals of shard %s: give one", prev, j.Path, j.Shard)
		}
		seenShard[j.Shard] = j.Path
	}

	m := &Merged{Planned: len(p.Runs), ByKind: map[string][2]int{}}
	h := *p.Header
	h.Plan, h.Shard = p.ID, ""
	byKey := map[string]*Record{}
	for _, r := range p.Profiles {
		byKey[r.Key()] = r
	}
	for _, j := range append(js, whole...) {
		m.Problems = append(m.Problems, j.Problems...)
		for _, r := range j.Records {
			if r.Kind == "campaign" {
				continue
			}
			k := r.Key()
			if _, ok := byKey[k]; ok {
				if r.Kind != "profile" {
					m.Dropped++
				}
				continue
			}
			byKey[k] = r
		}
	}
	planned := map[string]bool{}
	for _, r := range p.Runs {
		planned[r.Key] = true
	}
	var recs []*Record
	followUps := map[string]*Record{}
	for k, r := range byKey {
		if r.Kind == "profile" || planned[k] {
			recs = append(recs, r)
		} else {
			followUps[k] = r
		}
	}
	// The merge's own follow-ups were planned from the whole campaign:
	// all are kept.
	for _, j := range whole {
		for _, r := range j.Records {
			if k := r.Key(); r.Kind != "campaign" && followUps[k] == r {
				delete(followUps, k)
				recs = append(recs, r)
				m.WholeFollowUps++
			}
		}
	}
	if kept, ok := followUpsOfOne(p.planner, p.Options, recs, followUps); ok && len(js) > 1 {
		m.Unused = len(followUps) - len(kept)
		recs = append(recs, kept...)
	} else {
		for _, r := range followUps {
			recs = append(recs, r)
		}
	}
	// By kind in the order a campaign runs them (the report names a
	// function after the first event that mentions it, the profile
	// run's), then by key.
	sort.Slice(recs, func(i, j int) bool {
		if a, b := kindRank(recs[i].Kind), kindRank(recs[j].Kind); a != b {
			return a < b
		}
		return recs[i].Key() < recs[j].Key()
	})
	m.Records = append([]*Record{{Kind: "campaign", Campaign: &h}}, recs...)

	for _, r := range p.Runs {
		c := m.ByKind[r.Run.Kind]
		c[1]++
		if byKey[r.Key] != nil {
			m.Done++
			c[0]++
		}
		m.ByKind[r.Run.Kind] = c
	}
	splits := map[int][][]*PlannedRun{}
	for _, j := range js {
		sp := ShardProgress{Path: j.Path, Shard: j.Shard}
		if j.Shard.N > 0 {
			if splits[j.Shard.N] == nil {
				splits[j.Shard.N] = split(p.Runs, j.Shard.N)
			}
			sp.Planned = len(splits[j.Shard.N][j.Shard.K-1])
		}
		for _, r := range j.Records {
			switch {
			case r.Kind == "campaign" || r.Kind == "profile":
			case planned[r.Key()]:
				sp.Done++
			default:
				sp.FollowUps++
			}
		}
		m.Shards = append(m.Shards, sp)
	}
	if len(js) > 0 && js[0].Shard.N > 0 && js[0].Shard.N == js[len(js)-1].Shard.N {
		n := js[0].Shard.N
		for k := 1; k <= n; k++ {
			if _, ok := seenShard[Shard{k, n}]; !ok {
				m.Missing = append(m.Missing, ShardProgress{Shard: Shard{k, n}, Planned: len(splits[n][k-1])})
			}
		}
	}
	return m, nil
}

// followUpsOfOne picks, among the shards' follow-up runs, those that the
// campaign run as one shard would have run: each shard plans the
// follow-ups of its own runs, so a question that runs of several shards
// ask is asked once per shard, where one process asks it once. It
// replays the planner's rounds over the merged runs, taking each planned
// follow-up from the shards' records; ok is false when one was not run
// by any shard (then all are kept).
func followUpsOfOne(planner *Planner, opt Options, base []*Record, pool map[string]*Record) (kept []*Record, ok bool) {
	if planner == nil || planner.FollowUps == nil {
		return nil, false
	}
	taken := map[string]bool{}
	for range planner.Rounds {
		added := false
		for _, r := range planner.FollowUps(append(append([]*Record(nil), base...), kept...), opt) {
			rec := pool[r.Key]
			if rec == nil {
				return nil, false
			}
			if !taken[r.Key] {
				taken[r.Key] = true
				kept = append(kept, rec)
				added = true
			}
		}
		if !added {
			break
		}
	}
	return kept, true
}

// kindRank orders the kinds of runs as a campaign runs them.
func kindRank(kind string) int {
	for i, k := range runNames {
		if k.kind == kind {
			return i
		}
	}
	return len(runNames)
}

// WriteJournal writes records as a journal at path, replacing what is
// there in one step. The new journal is on disk before it replaces the
// old one: a merge replaces the journals of whole campaigns, and a crash
// of the machine right after must not leave an empty file in their place.
func WriteJournal(path string, recs []*Record) error {
	tmp := path + ".new"
	os.Remove(tmp)
	j, err := OpenJournal(tmp)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := j.Append(r); err != nil {
			j.Close()
			os.Remove(tmp)
			return err
		}
	}
	if err := j.f.Sync(); err != nil {
		j.Close()
		os.Remove(tmp)
		return fmt.Errorf("writing the journal %s: %w", tmp, err)
	}
	if err := j.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir makes a rename in dir durable where the system allows it; it
// is best effort (some systems cannot sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
