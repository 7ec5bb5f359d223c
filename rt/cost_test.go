package rt

import "testing"

// What an instrumented call costs the runtime while a campaign runs it,
// by kind of run and of function. Each op is one call as the rewritten
// code makes it: Inject at entry, Enter, and the deferred Exit.

var costSites = [...]Site{
	{ID: "example.com/m.(*T).Leaf#entry", Func: "example.com/m.(*T).Leaf", Roots: "t,n", Kind: EntrySite, Faults: FaultError, Ends: []int32{1}, Leaf: true},
	{ID: "example.com/m.(*T).Outer#entry", Func: "example.com/m.(*T).Outer", Roots: "t,n", Kind: EntrySite, Faults: FaultError, Ends: []int32{1}},
	{ID: "example.com/m.(*T).Armed#entry", Func: "example.com/m.(*T).Armed", Roots: "t", Kind: EntrySite, Faults: FaultError, Ends: []int32{1}},
}

type costT struct{ a, b int }

//go:noinline
func costCall(s *Site, t *costT, n int) (err error) {
	var done int32
	if Enabled() {
		if e := Inject(s); e != nil {
			return e
		}
		defer Enter(s, t, n).Exit(&done, &err)
	}
	t.a += n
	done = 1
	return nil
}

func benchmarkCalls(b *testing.B, s *Site) {
	t := &costT{}
	b.ReportAllocs()
	for b.Loop() {
		if err := costCall(s, t, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProfileCall is a call in a profile run: counted, and tracked
// as in progress unless the function is a leaf.
func BenchmarkProfileCall(b *testing.B) {
	for _, tt := range []struct {
		name string
		site *Site
	}{
		{"leaf", &costSites[0]},
		{"outer", &costSites[1]},
	} {
		b.Run(tt.name, func(b *testing.B) {
			useSettings(b, parseSettings(b.TempDir()+"/events.jsonl", ""))
			campaign, _ = parseCampaignSettings("3", "", "none", "", "")
			config.enabled = true
			benchmarkCalls(b, tt.site)
		})
	}
}

// BenchmarkExperimentCall is a call that an experiment neither targets
// nor needs for a failure chain: entered before the fault fires, not
// snapshotted.
func BenchmarkExperimentCall(b *testing.B) {
	useSettings(b, parseSettings(b.TempDir()+"/events.jsonl", "error:1:"+costSites[2].ID))
	campaign, _ = parseCampaignSettings("", "absorbed", "before-fault", "1@"+costSites[2].ID, "")
	benchmarkCalls(b, &costSites[1])
}
