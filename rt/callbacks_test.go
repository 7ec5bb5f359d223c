package rt

import (
	"strings"
	"testing"
)

// cbOut is what cbDecode writes into: a map that the hook writes, and
// its own keys. The map comes first: the comparison of the entry with
// the exit finds the hook's change first.
type cbOut struct {
	m    map[string]int
	keys []string
}

var cbSites = [...]Site{
	{ID: "github.com/atomicx/atomicx/rt.cbDecode#entry", Func: "github.com/atomicx/atomicx/rt.cbDecode", Pos: "rt/callbacks_test.go:1:1", Roots: "out,hook", Kind: EntrySite, Faults: FaultError, Ends: []int32{101}},
}

// cbDecode is written the way the rewriter instruments it: for each step,
// 'o' appends to out.keys (its own change) and 'h' calls hook, a callback.
// Then it fails.
func cbDecode(out *cbOut, hook func(*cbOut), steps string) (_atx_r0 error) {
	var _atx_done int32
	if Enabled() {
		if e := Inject(&cbSites[0]); e != nil {
			_atx_r0 = e
			return
		}
		defer Enter(&cbSites[0], out, hook).Exit(&_atx_done, &_atx_r0)
	}
	for _, s := range steps {
		switch s {
		case 'o':
			out.keys = append(out.keys, "own")
		case 'h':
			CallbackBegin("cfg.Hook")
			hook(out)
			CallbackEnd()
		}
	}
	_atx_r0 = errFull
	_atx_done = 1
	return
}

func TestCallbackSegments(t *testing.T) {
	writes := func(out *cbOut) { out.m["hook"]++ }
	nothing := func(*cbOut) {}
	// nested is a hook that makes callbacks of its own: one window for
	// cbDecode.
	nested := func(out *cbOut) {
		CallbackBegin("inner")
		out.m["inner"] = 1
		CallbackEnd()
		out.m["hook"]++
	}
	tests := []struct {
		name  string
		hook  func(*cbOut)
		steps string
		want  map[string]any // fields of the verdict event; nil: absent
	}{
		{
			name: "own change before a callback", hook: writes, steps: "oh",
			want: map[string]any{"verdict": "non-atomic", "path": "out.keys", "before": "nil", "after": "len=1", "callback": nil},
		},
		{
			name: "a callback's change only", hook: writes, steps: "h",
			want: map[string]any{"verdict": "non-atomic", "path": `out.m["hook"]`, "callback": "cfg.Hook", "callbacks_unsplit": nil},
		},
		{
			name: "own change after a callback", hook: writes, steps: "hho",
			want: map[string]any{"verdict": "non-atomic", "path": "out.keys", "before": "nil", "after": "len=1", "callback": nil},
		},
		{
			name: "own change between callbacks", hook: writes, steps: "hoh",
			want: map[string]any{"verdict": "non-atomic", "path": "out.keys", "callback": nil},
		},
		{
			name: "a callback that changes nothing", hook: nothing, steps: "h",
			want: map[string]any{"verdict": "atomic", "callback": nil},
		},
		{
			name: "callbacks inside a callback are one window", hook: nested, steps: "h",
			want: map[string]any{"verdict": "non-atomic", "callback": "cfg.Hook"},
		},
		{
			name: "eight windows are split", hook: writes, steps: strings.Repeat("h", maxCallbackWindows),
			want: map[string]any{"verdict": "non-atomic", "callback": "cfg.Hook", "callbacks_unsplit": nil},
		},
		{
			name: "past eight windows the changes count as the call's own", hook: writes, steps: strings.Repeat("h", maxCallbackWindows+1),
			want: map[string]any{"verdict": "non-atomic", "path": `out.m["hook"]`, "callback": nil, "callbacks_unsplit": true},
		},
		{
			name: "an own change found before the ninth window stands", hook: writes, steps: "o" + strings.Repeat("h", maxCallbackWindows+1),
			want: map[string]any{"verdict": "non-atomic", "path": "out.keys", "callback": nil, "callbacks_unsplit": nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := useRun(t, "", [5]string{"", "", "all", "", ""})
			cbSites[0].calls.Store(0)
			out := &cbOut{m: map[string]int{}}
			if err := cbDecode(out, tt.hook, tt.steps); err != errFull {
				t.Fatalf("cbDecode = %v, want errFull", err)
			}
			resetEventLog()
			if n := segmented.n.Load(); n != 0 {
				t.Errorf("%d split calls left in progress", n)
			}
			events := readEvents(t, logPath)
			if len(events) != 1 {
				t.Fatalf("%d events, want 1: %v", len(events), events)
			}
			for k, w := range tt.want {
				g, present := events[0][k]
				switch {
				case w == nil && present:
					t.Errorf("unexpected %s = %#v\n(event: %v)", k, g, events[0])
				case w != nil && g != w:
					t.Errorf("%s = %#v, want %#v\n(event: %v)", k, g, w, events[0])
				}
			}
		})
	}
}

// TestCallbackUnsplit: without a split call in progress, the hooks do
// nothing, and a window that a callback left open (it panicked) is
// forgotten with the calls around it.
func TestCallbackUnsplit(t *testing.T) {
	logPath := useRun(t, "", [5]string{"", "", "all", "", ""})
	CallbackBegin("f")
	CallbackEnd()
	CallbackEnd() // more ends than begins: ignored
	if n := segmented.n.Load(); n != 0 {
		t.Fatalf("%d split calls in progress", n)
	}
	out := &cbOut{m: map[string]int{}}
	panicking := func(out *cbOut) {
		out.m["hook"] = 1
		panic("hook")
	}
	func() {
		defer func() { recover() }()
		cbDecode(out, panicking, "h")
	}()
	segmented.mu.Lock()
	left := len(segmented.byGID)
	segmented.mu.Unlock()
	if left != 0 || segmented.n.Load() != 0 {
		t.Errorf("%d goroutines, %d calls left split", left, segmented.n.Load())
	}
	resetEventLog()
	events := readEvents(t, logPath)
	if len(events) != 1 || events[0]["failure"] != "panic" || events[0]["callback"] != "cfg.Hook" {
		t.Errorf("events = %v, want one verdict of a panic through the callback cfg.Hook", events)
	}
}

// BenchmarkSnapshottedCall is a call snapshotted at entry that returns
// normally: registering it for callbacks costs its goroutine's number.
func BenchmarkSnapshottedCall(b *testing.B) {
	useSettings(b, parseSettings(b.TempDir()+"/events.jsonl", ""))
	campaign, _ = parseCampaignSettings("", "", "all", "", "")
	benchmarkCalls(b, &costSites[1])
}

// BenchmarkCallbackUnsplit is a bracketed callback while no call is split.
func BenchmarkCallbackUnsplit(b *testing.B) {
	for b.Loop() {
		CallbackBegin("fn")
		CallbackEnd()
	}
}

// TestWhichRunsSplit: a sampled run, whose snapshots share a time
// budget, does not pay a goroutine's number to split its calls; a run
// that snapshots the calls it is told to (a campaign's experiments and
// natural reruns) does.
func TestWhichRunsSplit(t *testing.T) {
	for _, tt := range []struct {
		name, snapshots, calls string
		want                   any // the verdict's callback
	}{
		{"sampled", "sampled", "", nil},
		{"targeted", "", "1@" + cbSites[0].ID, "cfg.Hook"},
		{"before the fault", "before-fault", "1@" + cbSites[0].ID, "cfg.Hook"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logPath := useRun(t, "", [5]string{"", "", tt.snapshots, tt.calls, ""})
			cbSites[0].calls.Store(0)
			cbSites[0].targets.store(nil)
			out := &cbOut{m: map[string]int{}}
			cbDecode(out, func(out *cbOut) { out.m["hook"]++ }, "h")
			resetEventLog()
			events := readEvents(t, logPath)
			if len(events) != 1 || events[0]["verdict"] != "non-atomic" || events[0]["callback"] != tt.want {
				t.Errorf("events = %v, want one non-atomic verdict, callback %v", events, tt.want)
			}
		})
	}
}

// TestCallbackBaselineOverBudget: when the snapshot that starts the
// segment after a callback would go over the live snapshots' budget, the
// call is no longer split, and says so.
func TestCallbackBaselineOverBudget(t *testing.T) {
	logPath := useRun(t, "", [5]string{"", "", "all", "", ""})
	cbSites[0].calls.Store(0)
	out := &cbOut{m: map[string]int{}}
	hook := func(out *cbOut) { out.m["hook"]++ }
	entry, ok := takeSnapshot([]any{out, hook}, 0)
	if !ok {
		t.Fatal("no snapshot")
	}
	saved := liveSnapshotBudget
	liveSnapshotBudget = liveSnapshotWords.Load() + int64(entry.used)
	t.Cleanup(func() { liveSnapshotBudget = saved })
	cbDecode(out, hook, "h")
	resetEventLog()
	events := readEvents(t, logPath)
	if len(events) != 1 || events[0]["verdict"] != "non-atomic" || events[0]["callback"] != nil || events[0]["callbacks_unsplit"] != true {
		t.Errorf("events = %v, want one non-atomic verdict, unsplit, without a callback", events)
	}
}
