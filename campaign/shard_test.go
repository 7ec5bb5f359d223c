package campaign

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
)

// runsOf plans n experiments of each test, costing what its profile run
// took.
func runsOf(costs map[string]int64, n int) []*PlannedRun {
	var runs []*PlannedRun
	for test, cost := range costs {
		for i := 1; i <= n; i++ {
			r := &Record{Kind: "experiment", Package: "p", Test: test, Arming: arm.Arming{Inject: arm.Injection{Site: fmt.Sprintf("p.F%d#entry", i), Occurrence: 1, Fault: "error"}}}
			runs = append(runs, &PlannedRun{Key: r.Key(), CostMs: cost, Run: r})
		}
	}
	return runs
}

func keysOf(shards [][]*PlannedRun) [][]string {
	out := make([][]string, len(shards))
	for i, s := range shards {
		for _, r := range s {
			out[i] = append(out[i], r.Key)
		}
	}
	return out
}

// TestSplit checks that every run lands in exactly one shard, that the
// split is the same whatever the order of the plan's runs, and that the
// shards' estimated times are balanced.
func TestSplit(t *testing.T) {
	tests := []struct {
		name  string
		costs map[string]int64
		per   int
		n     int
		slack int64 // most the longest shard may exceed the shortest
	}{
		{name: "one shard", costs: map[string]int64{"TestA": 10}, per: 5, n: 1},
		{name: "equal costs deal out evenly", costs: map[string]int64{"TestA": 10, "TestB": 10}, per: 7, n: 3, slack: 10},
		{name: "a slow test spreads over shards", costs: map[string]int64{"TestSlow": 900, "TestFast": 3, "TestMid": 40}, per: 6, n: 4, slack: 900},
		{name: "zero costs still spread", costs: map[string]int64{"TestA": 0}, per: 9, n: 3, slack: 1},
		{name: "more shards than runs", costs: map[string]int64{"TestA": 5}, per: 2, n: 4, slack: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := runsOf(tt.costs, tt.per)
			slices.SortFunc(runs, func(a, b *PlannedRun) int { return strings.Compare(a.Key, b.Key) })
			want := keysOf(split(runs, tt.n))
			if len(want) != tt.n {
				t.Fatalf("%d shards, want %d", len(want), tt.n)
			}
			seen := map[string]int{}
			for _, s := range want {
				for _, k := range s {
					seen[k]++
				}
			}
			for _, r := range runs {
				if seen[r.Key] != 1 {
					t.Errorf("run %q is in %d shards", r.Key, seen[r.Key])
				}
			}
			if len(seen) != len(runs) {
				t.Errorf("%d runs in the shards, the plan has %d", len(seen), len(runs))
			}
			rng := rand.New(rand.NewSource(1))
			for range 5 {
				shuffled := slices.Clone(runs)
				rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				if got := keysOf(split(shuffled, tt.n)); !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("the split depends on the order of the plan's runs:\n%q\n%q", got, want)
				}
			}
			var lo, hi int64 = 1 << 62, 0
			for _, s := range split(runs, tt.n) {
				var load int64
				for _, r := range s {
					load += max(r.CostMs, 1)
				}
				lo, hi = min(lo, load), max(hi, load)
			}
			if hi-lo > tt.slack {
				t.Errorf("shards' estimated times from %dms to %dms: more apart than %dms", lo, hi, tt.slack)
			}
		})
	}
}

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/1", Shard{1, 1}, true},
		{"3/4", Shard{3, 4}, true},
		{"0/4", Shard{}, false},
		{"5/4", Shard{}, false},
		{"1/0", Shard{}, false},
		{"2", Shard{}, false},
		{"a/b", Shard{}, false},
	} {
		got, err := ParseShard(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
