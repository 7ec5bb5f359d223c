package rt

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The functions below are written the way the rewriter instruments them
// for detection: Inject, Begin, Snap when wanted, and the deferred Exit.

type obVec struct {
	size int
	data []int
}

var obSites = [...]Site{
	{ID: "example.com/m.(*obVec).Put#entry", Func: "github.com/atomicx/atomicx/rt.(*obVec).Put", Pos: "m/v.go:1:1", Roots: "v,x", Kind: EntrySite, Faults: FaultError, Ends: []int32{1, 2}},
	{ID: "example.com/m.(*obVec).Take#entry", Func: "github.com/atomicx/atomicx/rt.(*obVec).Take", Pos: "m/v.go:2:1", Roots: "v,x", Kind: EntrySite, Faults: FaultError | FaultPanic, Ends: []int32{1}},
	{ID: "example.com/m.(*obVec).Grow#entry", Func: "github.com/atomicx/atomicx/rt.(*obVec).Grow", Pos: "m/v.go:3:1", Roots: "v,x", Kind: EntrySite, Faults: FaultPanic},
	{ID: "example.com/m.(*obVec).Quit#entry", Func: "github.com/atomicx/atomicx/rt.(*obVec).Quit", Pos: "m/v.go:4:1", Roots: "v", Kind: EntrySite, Faults: FaultError, Ends: []int32{1}},
}

var errNegative = errors.New("negative")

// Put counts the value before it checks it: a failure leaves size one
// too large.
//
//go:noinline
func (v *obVec) Put(x int) (err error) {
	var done int32
	if Enabled() {
		if e := Inject(&obSites[0]); e != nil {
			return e
		}
		c := Begin(&obSites[0])
		if c.Wants() {
			c.Snap(v, x)
		}
		defer c.Exit(&done, &err)
	}
	v.size++
	if x < 0 {
		err, done = errNegative, 1
		return
	}
	v.data = append(v.data, x)
	done = 2
	return
}

// Take sets its first result, then panics on a negative value.
//
//go:noinline
func (v *obVec) Take(x int) (n int, err error) {
	var done int32
	if Enabled() {
		if e := Inject(&obSites[1]); e != nil {
			return 0, e
		}
		c := Begin(&obSites[1])
		if c.Wants() {
			c.Snap(v, x)
		}
		defer c.Exit(&done, &err)
	}
	v.size++
	n = v.size
	if x < 0 {
		panic("negative " + strings.Repeat("!", 1))
	}
	done = 1
	return
}

// Grow has no error result: only a panic makes it fail.
//
//go:noinline
func (v *obVec) Grow(x int) {
	var done int32
	if Enabled() {
		Inject(&obSites[2])
		c := Begin(&obSites[2])
		if c.Wants() {
			c.Snap(v, x)
		}
		defer c.Exit(&done, nil)
	}
	v.size += x
	if x < 0 {
		panic(errNegative)
	}
	done = 1
}

// Quit ends its goroutine with runtime.Goexit, with an error set.
//
//go:noinline
func (v *obVec) Quit() (err error) {
	var done int32
	if Enabled() {
		if e := Inject(&obSites[3]); e != nil {
			return e
		}
		c := Begin(&obSites[3])
		if c.Wants() {
			c.Snap(v)
		}
		defer c.Exit(&done, &err)
	}
	v.size++
	err = errNegative
	runtime.Goexit()
	done = 1
	return
}

// obOutcome is what a call of an obVec method returned, and the state it
// left.
type obOutcome struct {
	n        int
	err      error
	panicked any
	size     int
	data     []int
}

func obCall(v *obVec, f func(v *obVec) (int, error)) (o obOutcome) {
	defer func() {
		o.panicked = recover()
		o.size, o.data = v.size, slices.Clone(v.data)
	}()
	o.n, o.err = f(v)
	return o
}

func TestOblivious(t *testing.T) {
	put := func(v *obVec) (int, error) { return 0, v.Put(-1) }
	take := func(v *obVec) (int, error) { return v.Take(-1) }
	grow := func(v *obVec) (int, error) { v.Grow(-1); return 0, nil }
	tests := []struct {
		name      string
		log       bool
		oblivious string // entry site IDs
		masks     string
		call      func(v *obVec) (int, error)
		want      obOutcome
		// event is the "oblivious" event wanted, as "failure atomic
		// rolled_back swallowed"; "" for none.
		event string
	}{
		{"not listed: error unchanged", true, obSites[1].ID, "", put,
			obOutcome{err: errNegative, size: 4, data: []int{1, 2, 3}}, ""},
		{"not listed: panic unchanged", true, obSites[0].ID, "", take,
			obOutcome{panicked: "negative !", size: 4, data: []int{1, 2, 3}}, ""},
		{"error swallowed", true, obSites[0].ID, "", put,
			obOutcome{size: 4, data: []int{1, 2, 3}}, "error false false true"},
		{"error swallowed without a log", false, obSites[0].ID, "", put,
			obOutcome{size: 4, data: []int{1, 2, 3}}, ""},
		{"panic recovered, results kept", true, obSites[1].ID, "", take,
			obOutcome{n: 4, size: 4, data: []int{1, 2, 3}}, "panic false false true"},
		{"panic of a function without error result", true, obSites[2].ID, "", grow,
			obOutcome{size: 2, data: []int{1, 2, 3}}, "panic false false true"},
		// Masked only, the call is rolled back when sampled in; this one
		// is not.
		{"masked only: error kept", true, "", obSites[0].ID, put,
			obOutcome{err: errNegative, size: 4, data: []int{1, 2, 3}}, ""},
		{"atomic: rolled back, then error swallowed", true, obSites[0].ID, obSites[0].ID, put,
			obOutcome{size: 3, data: []int{1, 2, 3}}, "error true true true"},
		{"atomic without a log", false, obSites[0].ID, obSites[0].ID, put,
			obOutcome{size: 3, data: []int{1, 2, 3}}, ""},
		{"atomic: rolled back, then panic recovered", true, obSites[1].ID, obSites[1].ID, take,
			obOutcome{n: 4, size: 3, data: []int{1, 2, 3}}, "panic true true true"},
		{"atomic, no error result", false, obSites[2].ID, obSites[2].ID, grow,
			obOutcome{size: 3, data: []int{1, 2, 3}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := ""
			if tt.log {
				logPath = t.TempDir() + "/events.jsonl"
			}
			useSettings(t, parseSettings(logPath, ""))
			campaign, _ = parseCampaignSettings("", "", "", "", tt.masks)
			campaign.oblivious = siteIDs(tt.oblivious)
			config.enabled = true
			for i := range obSites {
				obSites[i].calls.Store(0)
				obSites[i].retryUntil.Store(0)
			}
			v := &obVec{}
			// Calls that succeed first: the failing one is past the
			// sampled ones, and is snapshotted only because it is
			// atomic failure-oblivious.
			for i := range 100 {
				v.Put(i%3 + 1)
				v.Take(0)
				v.Grow(0)
				v.size, v.data = 0, v.data[:0]
			}
			v.data = []int{1, 2, 3}
			v.size = 3
			got := obCall(v, tt.call)
			if got.n != tt.want.n || !errors.Is(got.err, tt.want.err) || (got.err == nil) != (tt.want.err == nil) ||
				panicValue(got.panicked) != panicValue(tt.want.panicked) || got.size != tt.want.size || !slices.Equal(got.data, tt.want.data) {
				t.Errorf("got %+v,\nwant %+v", got, tt.want)
			}
			if !tt.log {
				return
			}
			resetEventLog()
			var events []string
			for _, e := range readEvents(t, logPath) {
				if e["event"] == "oblivious" {
					events = append(events, strings.Join([]string{e["failure"].(string), str(e["atomic"]), str(e["rolled_back"]), str(e["swallowed"])}, " "))
					if e["call"] != 101.0 {
						t.Errorf("event %v: want call 101", e)
					}
				}
			}
			want := []string{tt.event}
			if tt.event == "" {
				want = nil
			}
			if !slices.Equal(events, want) {
				t.Errorf("oblivious events %q, want %q", events, want)
			}
		})
	}
}

// TestObliviousWrapOnlyUnsplits: a call that is only wrapped (no event
// log) but snapshotted to be rolled back, in a run that splits calls at
// their callbacks, is forgotten when it ends.
func TestObliviousWrapOnlyUnsplits(t *testing.T) {
	useSettings(t, parseSettings("", ""))
	campaign, _ = parseCampaignSettings("", "", "all", "", obSites[0].ID)
	campaign.oblivious = siteIDs(obSites[0].ID)
	config.enabled = true
	obSites[0].calls.Store(0)
	v := &obVec{data: []int{1, 2, 3}, size: 3}
	if got := obCall(v, func(v *obVec) (int, error) { return 0, v.Put(-1) }); got.err != nil || got.size != 3 {
		t.Fatalf("got %+v, want the error swallowed and the call rolled back", got)
	}
	if n := segmented.n.Load(); n != 0 {
		t.Errorf("%d calls left split at callbacks", n)
		segmented.n.Store(0)
	}
}

// TestObliviousWithoutSnapshots: a run without snapshots (as a
// perturbation campaign's) snapshots the calls of atomic
// failure-oblivious functions all the same, to roll them back, and logs
// their failures as those of its other calls.
func TestObliviousWithoutSnapshots(t *testing.T) {
	logPath := t.TempDir() + "/events.jsonl"
	useSettings(t, parseSettings(logPath, ""))
	campaign, _ = parseCampaignSettings("", "", "none", "", obSites[0].ID)
	campaign.oblivious = siteIDs(obSites[0].ID + ";" + obSites[1].ID)
	for i := range obSites {
		obSites[i].calls.Store(0)
	}
	v := &obVec{size: 3, data: []int{1, 2, 3}}
	atomic := obCall(v, func(v *obVec) (int, error) { return 0, v.Put(-1) })
	plain := obCall(v, func(v *obVec) (int, error) { return v.Take(-1) })
	if atomic.err != nil || atomic.panicked != nil || atomic.size != 3 {
		t.Errorf("atomic: got %+v, want no failure and size 3", atomic)
	}
	if plain.err != nil || plain.panicked != nil || plain.n != 4 || plain.size != 4 {
		t.Errorf("plain: got %+v, want no failure, n 4 and size 4", plain)
	}
	if n := liveSnapshotWords.Load(); n != 0 {
		t.Errorf("live snapshot words %d after the calls, want 0", n)
	}
	resetEventLog()
	var got []string
	for _, e := range readEvents(t, logPath) {
		got = append(got, e["event"].(string)+" "+e["failure"].(string)+" "+str(e["rolled_back"]))
	}
	want := []string{"fail error false", "oblivious error true", "fail panic false", "oblivious panic false"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

func str(v any) string {
	if b, ok := v.(bool); ok && b {
		return "true"
	}
	return "false"
}

func panicValue(v any) string {
	if v == nil {
		return ""
	}
	return panicText(v)
}

// TestObliviousGoexit: runtime.Goexit is not a failure to swallow, even
// with an error result set: the goroutine ends.
func TestObliviousGoexit(t *testing.T) {
	useSettings(t, parseSettings(t.TempDir()+"/events.jsonl", ""))
	campaign.oblivious = siteIDs(obSites[3].ID)
	campaign.masks = siteIDs(obSites[3].ID)
	v := &obVec{}
	after := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		v.Quit()
		after = true
	}()
	<-done
	if after {
		t.Error("the goroutine went on after runtime.Goexit")
	}
}

func TestSiteIDs(t *testing.T) {
	for _, tt := range []struct {
		list string
		want []string
	}{
		{"", nil},
		{";", nil},
		{"a#entry", []string{"a#entry"}},
		{"a#entry;b#entry;", []string{"a#entry", "b#entry"}},
	} {
		got := siteIDs(tt.list)
		if len(got) != len(tt.want) || tt.want == nil && got != nil {
			t.Errorf("siteIDs(%q) = %v, want %v", tt.list, got, tt.want)
		}
		for _, id := range tt.want {
			if !got[id] {
				t.Errorf("siteIDs(%q) = %v, want %v", tt.list, got, tt.want)
			}
		}
	}
}
