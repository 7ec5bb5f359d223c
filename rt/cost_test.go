package rt

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

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

// BenchmarkProfileNestedCall is a call in a profile run made while
// another call of its function is in progress (recursion, or another
// goroutine): it takes its number under the site's lock, and goes to the
// site's list.
func BenchmarkProfileNestedCall(b *testing.B) {
	useSettings(b, parseSettings(b.TempDir()+"/events.jsonl", ""))
	campaign, _ = parseCampaignSettings("3", "", "none", "", "")
	config.enabled = true
	s := &costSites[1]
	n, inSlot := enterActive(s)
	defer exitActive(s, n, inSlot)
	benchmarkCalls(b, s)
}

// TestCallFitsInRegisters: every instrumented call returns a Call and
// hands a copy to its deferred Exit. The compiler keeps a struct in
// registers only when it has at most four fields of at most four words
// in all; larger, each copy goes through memory, which costs a profile
// run more than the rest of the call.
func TestCallFitsInRegisters(t *testing.T) {
	typ := reflect.TypeFor[Call]()
	if n, size := typ.NumField(), typ.Size(); n > 4 || size > 4*unsafe.Sizeof(uintptr(0)) {
		t.Errorf("Call has %d fields, %d bytes: want at most 4 fields and 4 words", n, size)
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

// untargetedCall is an instrumented function as the rewrite makes it,
// with roots that are not pointers: a string and an int.
//
//go:noinline
func untargetedCall(s *Site, name string, n int) (err error) {
	var done int32
	if Enabled() {
		if e := Inject(s); e != nil {
			return e
		}
		c := Begin(s)
		if c.Wants() {
			c.Snap(name, n)
		}
		defer c.Exit(&done, &err)
	}
	done = 1
	return nil
}

// TestUntargetedCallsAllocateNothing: in an experiment, a call that is
// neither snapshotted nor armed allocates nothing, not even the boxes of
// its roots; a call that is snapshotted does.
func TestUntargetedCallsAllocateNothing(t *testing.T) {
	useSettings(t, parseSettings(t.TempDir()+"/events.jsonl", "error:1:"+costSites[2].ID))
	// AllocsPerRun(1, f) makes two calls, the second measured.
	campaign, _ = parseCampaignSettings("", "absorbed", "before-fault", "2@"+costSites[0].ID, "")
	name := strings.Repeat("x", 40)
	if got := testing.AllocsPerRun(1000, func() { untargetedCall(&costSites[1], name, 1000) }); got != 0 {
		t.Errorf("an untargeted call: %v allocations, want 0", got)
	}
	if got := testing.AllocsPerRun(1, func() { untargetedCall(&costSites[0], name, 1000) }); got == 0 {
		t.Error("the targeted call allocated nothing: the test does not see snapshots")
	}
}
