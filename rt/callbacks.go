package rt

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Callbacks. A function that calls a function value its caller passed in
// (a parameter, or a field of a configuration: d.config.DecodeHook(x))
// runs code that is not its own: a change that the hook makes to the
// caller's data is the hook's doing, not the function's. Instrumented
// code brackets each such call with CallbackBegin and CallbackEnd, and
// every snapshotted call in progress on the goroutine is split into
// segments at these windows:
//
//	entry ── own ── [callback] ── own ── [callback] ── own ── failure
//
// At a window's start the graph is compared with the segment's baseline
// (the entry snapshot at first): a difference there is the call's own,
// the first one kept. At the window's end, when nothing of the call's own
// has changed yet, the graph is compared with the same baseline again:
// a difference is the callback's, and the first callback to make one is
// named; then a new baseline is taken. At the failure the last segment is
// compared too. The verdict is still the comparison of the entry with the
// exit; when it is non-atomic, the own difference, if any, is the one
// reported, and otherwise the verdict says which callback the change came
// through.
//
// A call's windows are those opened while no other window of the call is
// open: a callback that calls callbacks is one window for the calls
// around it. Past maxCallbackWindows windows a call is no longer split,
// and what changes from then on counts as its own.
//
// A split call is registered under its goroutine's number, which costs
// microseconds (see goroutineID), more than a small snapshot: only the
// runs that snapshot few calls, chosen (a campaign's experiments and
// natural reruns, ATOMICX_SNAPSHOT_CALLS) or all of them on request
// (ATOMICX_SNAPSHOTS=all, as reproduce runs), split them. A sampled run,
// whose snapshots share a time budget, does not: there, changes made
// through callbacks count as the call's own.

// maxCallbackWindows is how many callback windows of one call are
// compared and snapshotted again: each costs two comparisons and a
// snapshot.
const maxCallbackWindows = 8

// segmented holds the split calls in progress, by goroutine.
var segmented struct {
	// n counts them: while it is zero, which is the rule, CallbackBegin
	// and CallbackEnd cost a load.
	n     atomic.Int64
	mu    sync.Mutex
	byGID map[uint64]*goroutineCalls
}

// goroutineCalls is one goroutine's split calls in progress and the
// callback windows open on it. Only its goroutine reads or writes it,
// once it has it from segmented.byGID.
type goroutineCalls struct {
	open  int // callback windows open
	calls []*segments
}

// segments is the splitting of one snapshotted call at its callbacks.
type segments struct {
	gid   uint64
	entry *snapshot
	site  *Site
	// held is the lock the call holds (callExt.held): its walks read
	// under it without taking it.
	held unsafe.Pointer
	// outside is how many windows were open when the call began: its own
	// windows open from there.
	outside int
	// baseline is what the current segment is compared with: entry, or
	// the snapshot taken at the end of the last window.
	baseline *snapshot
	windows  int
	window   string // the callback of the window open, if one is
	// unsplit: past maxCallbackWindows, or a baseline could not be
	// taken: the call's changes from then on count as its own.
	unsplit bool
	// own is the first difference in a segment of the call's own.
	own    difference
	hasOwn bool
	// callback names the first callback whose window changed the graph
	// while nothing of the call's own had.
	callback string
}

// CallbackBegin is called by instrumented code before a statement that
// calls a function value passed in by its caller, named by the callee
// expression's text. While no call is split, it costs a load.
func CallbackBegin(name string) {
	if segmented.n.Load() != 0 {
		callbackBegin(name)
	}
}

// CallbackEnd is called after the statement that CallbackBegin came
// before.
func CallbackEnd() {
	if segmented.n.Load() != 0 {
		callbackEnd()
	}
}

// splitCall registers a call that Snap snapshotted: its callbacks split
// it from now on.
func splitCall(c *Call, snap *snapshot) {
	ext := c.ext
	gid := ext.gid
	if gid == 0 {
		gid = goroutineID()
	}
	seg := &segments{gid: gid, entry: snap, baseline: snap, site: c.site, held: ext.held}
	segmented.mu.Lock()
	if segmented.byGID == nil {
		segmented.byGID = map[uint64]*goroutineCalls{}
	}
	g := segmented.byGID[gid]
	if g == nil {
		g = &goroutineCalls{}
		segmented.byGID[gid] = g
	}
	seg.outside = g.open
	g.calls = append(g.calls, seg)
	segmented.n.Add(1)
	segmented.mu.Unlock()
	ext.segs = unsafe.Pointer(seg)
}

// unsplitCall forgets a split call when it ends.
func unsplitCall(ext *callExt) {
	seg := (*segments)(ext.segs)
	seg.setBaseline(seg.entry)
	segmented.mu.Lock()
	defer segmented.mu.Unlock()
	g := segmented.byGID[seg.gid]
	if g == nil {
		return
	}
	for i := len(g.calls) - 1; i >= 0; i-- {
		if g.calls[i] == seg {
			g.calls = append(g.calls[:i], g.calls[i+1:]...)
			segmented.n.Add(-1)
			break
		}
	}
	if len(g.calls) == 0 {
		// Windows left open by a callback that panicked are forgotten
		// with it.
		delete(segmented.byGID, seg.gid)
	}
}

// currentCalls returns the goroutine's split calls, or nil.
func currentCalls() *goroutineCalls {
	gid := goroutineID()
	segmented.mu.Lock()
	defer segmented.mu.Unlock()
	return segmented.byGID[gid]
}

func callbackBegin(name string) {
	g := currentCalls()
	if g == nil {
		return
	}
	for _, seg := range g.calls {
		if seg.outside == g.open {
			seg.begin(name)
		}
	}
	g.open++
}

func callbackEnd() {
	g := currentCalls()
	if g == nil || g.open == 0 {
		return
	}
	g.open--
	for _, seg := range g.calls {
		if seg.outside == g.open {
			seg.end()
		}
	}
}

// begin ends an own segment at the start of the window of callback name.
func (seg *segments) begin(name string) {
	if seg.unsplit || seg.hasOwn {
		// Past its first own difference, what the call's later segments
		// and windows change no longer tells anything (see
		// attributeChange).
		return
	}
	seg.windows++
	if seg.windows > maxCallbackWindows {
		seg.unsplit = true
		return
	}
	seg.window = name
	seg.compareOwn()
}

// end ends the window of a callback: it names the callback when the
// window changed the graph and nothing of the call's own had, and takes
// the next segment's baseline. A window that changed nothing keeps the
// baseline it found: the graph is still what it holds.
func (seg *segments) end() {
	if seg.unsplit || seg.window == "" {
		return
	}
	name := seg.window
	seg.window = ""
	if seg.hasOwn {
		return
	}
	switch _, state := seg.compare(); state {
	case graphEqual:
		return
	case graphChanged:
		if seg.callback == "" {
			seg.callback = name
		}
	}
	budget := seg.site.Budget
	if budget <= 0 {
		budget = defaultSnapshotBudget
	}
	left := liveSnapshotBudget - liveSnapshotWords.Load()
	var snap *snapshot
	ok := false
	if left > 0 {
		locks := &lockSet{held: seg.held, gid: seg.gid, names: seg.entry.names}
		snap, ok = takeLockedSnapshot(seg.entry.roots, int(min(int64(budget), left)), locks)
		locks.release()
	}
	if !ok {
		// Over a budget, or a lock held elsewhere: the rest of the call
		// cannot be told apart from its callbacks.
		seg.unsplit = true
		seg.setBaseline(seg.entry)
		return
	}
	snap.names = seg.entry.names
	liveSnapshotWords.Add(int64(snap.used))
	seg.setBaseline(snap)
}

// setBaseline replaces the baseline, giving back the words of one that
// was not the entry snapshot.
func (seg *segments) setBaseline(snap *snapshot) {
	if old := seg.baseline; old != nil && old != seg.entry {
		liveSnapshotWords.Add(-int64(old.used))
	}
	seg.baseline = snap
}

// compareOwn compares the own segment that ends now with its baseline,
// and keeps its difference when it is the first of the call's own.
func (seg *segments) compareOwn() {
	if seg.hasOwn {
		return
	}
	if d, state := seg.compare(); state == graphChanged {
		seg.own, seg.hasOwn = d, true
	}
}

// graphState is what a comparison with a segment's baseline found.
type graphState int

const (
	graphEqual   graphState = iota
	graphChanged            // a difference
	graphBlocked            // a lock held elsewhere kept the graph from being read
)

// compare compares the graph with the baseline, under the locks that a
// comparison takes. A window's end tells a graph found equal from one a
// lock held elsewhere kept it from reading; an own segment takes both as
// no difference.
func (seg *segments) compare() (difference, graphState) {
	base := seg.baseline
	base.scratch = seg.site.scratch()
	base.locks = &lockSet{held: seg.held, gid: seg.gid}
	d, equal := base.firstDiff(seg.entry.roots, seg.entry.names)
	blocked := base.locks.blocked != ""
	base.unlock()
	switch {
	case blocked:
		return difference{}, graphBlocked
	case equal:
		return difference{}, graphEqual
	}
	return d, graphChanged
}

// finishSegments compares the last own segment of a split call that
// failed, before the comparison with its entry (and a rollback).
func finishSegments(c *Call) {
	if c.ext == nil || c.ext.segs == nil {
		return
	}
	seg := (*segments)(c.ext.segs)
	if seg.unsplit || seg.window != "" {
		// Unsplit: its changes count as its own. A window still open:
		// the callback panicked, and what changed since the window began
		// is not the call's own.
		return
	}
	seg.compareOwn()
}

// attributeChange tells a non-atomic verdict of a split call where its
// change came from: its own first difference, or the callback it came
// through when the call changed nothing itself.
func attributeChange(c *Call, v *verdictEvent) {
	if c.ext == nil || c.ext.segs == nil || v.verdict != "non-atomic" {
		return
	}
	seg := (*segments)(c.ext.segs)
	switch {
	case seg.hasOwn:
		v.diff = seg.own
	case seg.unsplit:
		v.unsplit = true
	case seg.callback != "":
		v.callback = seg.callback
	case seg.window != "":
		v.callback = seg.window
	}
}
