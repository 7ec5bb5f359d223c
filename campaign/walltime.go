package campaign

import "time"

// WallTime is a campaign's wall time, the one figure that its progress
// lines and every report give: for each command that ran work for it (a
// session: detect, handlers or perturb, or a plan and each shard's run),
// the time from the command's start to the end of its last run, summed
// over those sessions. A sharded campaign's shards may run at once, so
// the sum can exceed the time a user waited. Records that predate
// Began and Session do not count; sessions is 0 when none do.
func WallTime(recs []*Record) (wall time.Duration, sessions int) {
	end := map[int64]int64{}
	for _, rec := range recs {
		if rec.Session == 0 || rec.Began == 0 {
			continue
		}
		end[rec.Session] = max(end[rec.Session], rec.Began+rec.Millis)
	}
	var ms int64
	for start, last := range end {
		ms += max(last-start, 0)
	}
	return time.Duration(ms) * time.Millisecond, len(end)
}
