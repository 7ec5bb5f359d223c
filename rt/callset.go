package rt

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/atomicx/atomicx/rt/arm"
)

// A callSet is a set of call numbers of one function, as runs of
// consecutive numbers, sorted and disjoint. A recursion thousands of
// calls deep has them all in progress at once: one run, where a list
// would be too long for the environment variable that names the calls to
// snapshot (ATOMICX_SNAPSHOT_CALLS).
type callSet []callSpan

// callSpan is the run of call numbers lo to hi, both included.
type callSpan struct{ lo, hi uint64 }

// maxSpans bounds the runs that a list of calls in progress gives one
// function: past it, the runs closest together are merged. The set then
// holds calls that were not in progress too, which an experiment
// snapshots for nothing; leaving one out would cost it a verdict.
const maxSpans = 64

// newCallSet returns the set of nums, merged down to at most limit runs
// (no limit when limit is 0).
func newCallSet(nums []uint64, limit int) callSet {
	spans := make([]callSpan, len(nums))
	for i, n := range nums {
		spans[i] = callSpan{n, n}
	}
	return normalize(spans, limit)
}

// normalize sorts spans and merges those that touch or overlap, then
// merges the runs closest together until at most limit are left (no limit
// when limit is 0).
func normalize(spans []callSpan, limit int) callSet {
	slices.SortFunc(spans, func(a, b callSpan) int { return cmp.Compare(a.lo, b.lo) })
	var s callSet
	for _, sp := range spans {
		if k := len(s) - 1; k >= 0 && sp.lo <= s[k].hi+1 {
			s[k].hi = max(s[k].hi, sp.hi)
			continue
		}
		s = append(s, sp)
	}
	for limit > 0 && len(s) > limit {
		at := 0 // the run whose gap to the next is the smallest
		for i := 1; i < len(s)-1; i++ {
			if s[i+1].lo-s[i].hi < s[at+1].lo-s[at].hi {
				at = i
			}
		}
		s[at].hi = s[at+1].hi
		s = slices.Delete(s, at+1, at+2)
	}
	return s
}

// has reports whether n is in the set.
func (s callSet) has(n uint64) bool {
	i, _ := slices.BinarySearchFunc(s, n, func(sp callSpan, n uint64) int {
		switch {
		case sp.hi < n:
			return -1
		case sp.lo > n:
			return 1
		}
		return 0
	})
	return i < len(s) && s[i].lo <= n && n <= s[i].hi
}

// appendCalls appends "NUMS@SITE" to a list of calls: NUMS is the set's
// runs separated by commas, each "N" or "LO-HI".
func appendCalls(b []byte, s callSet, site string) []byte {
	if len(b) > 0 {
		b = append(b, ';')
	}
	for i, sp := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, sp.lo, 10)
		if sp.hi != sp.lo {
			b = append(b, '-')
			b = strconv.AppendUint(b, sp.hi, 10)
		}
	}
	b = append(b, '@')
	return append(b, site...)
}

// parseTargets parses a list of calls, "NUMS@SITE;NUMS@SITE" as
// appendCalls writes it (see arm.ParseCalls). A malformed list snapshots
// nothing rather than everything: the experiment's cost stays bounded,
// and the problem is logged.
func parseTargets(list string) (map[string]callSet, string) {
	calls, err := arm.ParseCalls(list)
	if err != nil {
		return map[string]callSet{}, err.Error()
	}
	targets := make(map[string]callSet, len(calls))
	for id, runs := range calls {
		spans := make([]callSpan, len(runs))
		for i, r := range runs {
			spans[i] = callSpan{r.First, r.Last}
		}
		targets[id] = normalize(spans, 0)
	}
	return targets, ""
}
