package rt

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSampling drives one site through a run of calls, some of which
// fail, and checks which calls are snapshotted.
func TestSampling(t *testing.T) {
	// span returns the call numbers from..to.
	span := func(from, to uint64) []uint64 {
		var s []uint64
		for n := from; n <= to; n++ {
			s = append(s, n)
		}
		return s
	}
	join := func(parts ...[]uint64) []uint64 { return slices.Concat(parts...) }
	tests := []struct {
		name  string
		calls uint64
		fails []uint64 // call numbers that fail
		want  []uint64 // call numbers snapshotted
	}{
		{name: "few calls: all", calls: 5, want: span(1, 5)},
		{name: "many calls: the first 8, then 16, 32, 64, …", calls: 200, want: join(span(1, 8), []uint64{16, 32, 64, 128})},
		{name: "failures among the first calls: no retry", calls: 40, fails: []uint64{2, 7}, want: join(span(1, 8), []uint64{16, 32})},
		{name: "a failure sampled out: the next 8 calls", calls: 40, fails: []uint64{10}, want: join(span(1, 8), span(11, 18), []uint64{32})},
		{
			name:  "a failure inside a retry window is snapshotted: no new window",
			calls: 40, fails: []uint64{10, 12},
			want: join(span(1, 8), span(11, 18), []uint64{32}),
		},
		{
			name:  "a sampled failure: no retry",
			calls: 40, fails: []uint64{16},
			want: join(span(1, 8), []uint64{16, 32}),
		},
		{
			name:  "four retries per function, not more",
			calls: 100, fails: []uint64{10, 20, 40, 70, 90},
			want: join(span(1, 8), span(11, 18), span(21, 28), []uint64{32}, span(41, 48), []uint64{64}, span(71, 78)),
		},
	}
	useCampaign(t, campaignSettings{sampled: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Site{ID: "example.com/m.F#entry"}
			var got []uint64
			for n := s.calls.Add(1); n <= tt.calls; n = s.calls.Add(1) {
				snapped := snapshotWanted(s, n)
				if snapped {
					got = append(got, n)
				}
				if slices.Contains(tt.fails, n) && !snapped {
					s.retrySampling()
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("snapshotted calls %v,\nwant %v", got, tt.want)
			}
		})
	}
}

func TestWithinTimeBudget(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		spent, elapsed time.Duration
		want           bool
	}{
		{0, 0, true},
		{500 * ms, 500 * ms, true}, // the grace
		{501 * ms, 501 * ms, false},
		{1000 * ms, 1500 * ms, true}, // as long as the rest of the run, plus the grace
		{1001 * ms, 1500 * ms, false},
		{10 * time.Second, 19500 * ms, true},
		{10 * time.Second, 19 * time.Second, false},
	}
	for _, tt := range tests {
		if got := withinTimeBudget(tt.spent, tt.elapsed); got != tt.want {
			t.Errorf("withinTimeBudget(%v spent, %v elapsed) = %v, want %v", tt.spent, tt.elapsed, got, tt.want)
		}
	}
}

// TestOverTimeBudget checks the verdict of a failed call that a sampled
// run did not snapshot because its time budget was spent.
func TestOverTimeBudget(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	useSettings(t, parseSettings(logPath, ""))
	campaign = campaignSettings{sampled: true}
	spent := snapshotTime.spent.Swap(int64(time.Hour))
	t.Cleanup(func() { snapshotTime.spent.Store(spent) })
	eeSites[1].calls.Store(0)

	v := &eeVec{size: 5, data: make([]int, 5)}
	v.Check(8)
	resetEventLog()

	got := readEvents(t, logPath)
	want := "not snapshotted: over the snapshot time budget"
	if len(got) != 1 || got[0]["verdict"] != "unknown" || got[0]["reason"] != want || got[0]["call"] != 1.0 {
		t.Errorf("events %v,\nwant one unknown verdict of call 1 with the reason %q", got, want)
	}
}

// useCampaign sets the campaign settings for one test.
func useCampaign(t *testing.T, c campaignSettings) {
	old := campaign
	campaign = c
	t.Cleanup(func() { campaign = old })
}

// BenchmarkLoggedCalls measures what a logged run spends on a test that
// calls a method 1000 times (one op), its receiver reaching a 10 000-node
// tree, with every call snapshotted and with the default sampling.
func BenchmarkLoggedCalls(b *testing.B) {
	type node struct {
		key         int
		left, right *node
	}
	var build func(lo, hi int) *node
	build = func(lo, hi int) *node {
		if lo >= hi {
			return nil
		}
		mid := (lo + hi) / 2
		return &node{key: mid, left: build(lo, mid), right: build(mid+1, hi)}
	}
	root := build(0, 10_000)
	site := &Site{ID: "example.com/m.(*Tree).Get#entry", Func: "example.com/m.(*Tree).Get", Roots: "t", Kind: EntrySite}
	for _, snapshots := range []string{"all", "sampled"} {
		b.Run(snapshots, func(b *testing.B) {
			useSettings(b, parseSettings(b.TempDir()+"/events.jsonl", ""))
			campaign, _ = parseCampaignSettings("", "", snapshots, "", "")
			done := int32(1)
			for b.Loop() {
				site.calls.Store(0)
				for range 1000 {
					Enter(site, root).Exit(&done, nil)
				}
			}
		})
	}
}
