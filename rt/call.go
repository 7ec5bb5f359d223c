package rt

import (
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Call is one call of an instrumented function while verdicts are on: the
// snapshot of its object graph taken at entry.
type Call struct {
	site     *Site
	roots    []any
	names    []string
	snap     *snapshot
	tooLarge bool
	// overBudget: the call was to be snapshotted, but the sampled run
	// had spent its time budget on snapshots.
	overBudget bool
	seq        uint64 // order of entry among all calls
	num        uint64 // which call of its function this is
	frame      string // the function's name in stack frames (see Site.Literal)
}

// callSeq numbers calls in the order they are entered. Failure chains use
// it to tell which failures happened inside which calls.
var callSeq atomic.Uint64

// Enter snapshots the object graph that a call of s can reach from its
// receiver and arguments (roots, in the order of s.Roots) and, when the
// site asks for it, from the package-level variables. It returns the zero
// Call when no verdict is wanted; Exit accepts it.
//
// A Call is a value, and roots are kept only when snapshotted, so that a
// call that is not snapshotted allocates nothing for them: the deferred
// Exit keeps its Call in the caller's frame, and the caller's slice of
// roots stays on its stack.
func Enter(s *Site, roots ...any) Call {
	if config.logPath == "" || s.Ignored || campaign.beforeFault && injected.fired.Load() {
		return Call{}
	}
	c := Call{site: s, seq: callSeq.Add(1), num: s.calls.Add(1), frame: s.Func}
	if s.Literal {
		c.frame = callerName()
	}
	if campaign.profile > 0 {
		pushActive(s, c.frame, c.num)
	}
	if !snapshotWanted(s, c.num) {
		return c // no snapshot, and not too large: see unsnapped
	}
	var start time.Time
	if campaign.sampled {
		start = time.Now()
		if !withinTimeBudget(time.Duration(snapshotTime.spent.Load()), start.Sub(snapshotTime.start)) {
			c.overBudget = true
			return c
		}
	}
	c.roots = slices.Clone(roots)
	if s.Roots != "" {
		c.names = strings.Split(s.Roots, ",")
	}
	if g := s.Globals; g != nil {
		c.roots = append(c.roots, g.Addrs()...)
		c.names = append(c.names, strings.Split(g.Names, ",")...)
	}
	for len(c.names) < len(c.roots) {
		c.names = append(c.names, "arg")
	}
	snap, ok := takeSnapshot(c.roots, s.Budget)
	c.snap, c.tooLarge = snap, !ok
	if campaign.sampled {
		snapshotTime.spent.Add(int64(time.Since(start)))
	}
	return c
}

// Exit runs when the call ends, deferred by the instrumented function
// before any of its own deferred calls, so that it runs after them.
// done says whether the function passed a return statement; errp points at
// its error result (nil when it has none). A call that ends without
// passing a return is a failure by panic or runtime.Goexit, unless a
// deferred function recovered and the function returns normally.
func (c Call) Exit(done *bool, errp *error) {
	if c.site == nil {
		return
	}
	if campaign.profile > 0 {
		popActive(c.site, c.num)
	}
	var failure string
	var err error
	switch {
	case !*done && unwinding(c.frame):
		failure = "panic"
	case errp != nil && *errp != nil:
		failure, err = "error", *errp
	default:
		c.checkAbsorbed()
		return // a normal return: nothing to compare
	}
	v := verdictEvent{site: c.site, failure: failure, err: err}
	if c.unsnapped() {
		c.exitUnsnapped(&v)
		return
	}
	if c.tooLarge {
		v.verdict = "unknown"
		v.reason = "graph too large"
	} else if d, equal := c.snap.firstDiff(c.roots, c.names); equal {
		v.verdict = "atomic"
	} else {
		v.verdict, v.diff = "non-atomic", d
	}
	// A masked call is rolled back: for the calls around it, it failed
	// atomically.
	v.masked = campaign.masks[c.site.ID] && c.snap != nil
	v.chain, v.injected, v.first = joinChain(c.seq, v.verdict == "non-atomic" && !v.masked, err)
	writeVerdict(&v)
	if v.masked && v.verdict == "non-atomic" {
		c.snap.restore()
	}
}

// unsnapped says the campaign asked for no snapshot of this call.
func (c *Call) unsnapped() bool { return c.snap == nil && !c.tooLarge }

// snapshotWanted reports whether the settings want the nth call of s
// snapshotted. The site's targets are looked up by ID once, not at every
// call: experiments run every call of the test through here.
func snapshotWanted(s *Site, n uint64) bool {
	switch {
	case campaign.noSnapshots, s.NoSnapshot != "":
		return false
	case campaign.sampled:
		return sampledIn(n, s.retryUntil.Load())
	case campaign.targets == nil:
		return true
	}
	nums := s.targets.Load()
	if nums == nil {
		list := campaign.targets[s.ID]
		nums = &list
		s.targets.Store(nums)
	}
	return slices.Contains(*nums, n)
}

// exitUnsnapped reports the failure of a call that was not snapshotted.
// In a profile run it is a "fail" event, for a later run to snapshot. In
// a sampled run it is an "unknown" verdict that says how to snapshot it.
// In an experiment it matters only inside the injected failure's
// propagation, where it is a call the profile run did not see on the
// stack: the run took another path.
func (c *Call) exitUnsnapped(v *verdictEvent) {
	if campaign.noSnapshots {
		writeFail(c, v.failure)
		return
	}
	if c.site.NoSnapshot != "" {
		// Never snapshotted: say why, wherever a verdict is wanted.
		v.chain, v.injected, v.first = joinChain(c.seq, false, v.err)
		if v.injected || campaign.targets == nil || slices.Contains(campaign.targets[c.site.ID], c.num) {
			v.verdict, v.reason = "unknown", c.site.NoSnapshot
			writeVerdict(v)
		}
		return
	}
	if campaign.sampled {
		// Not placed in a failure chain (chain 0): joining one costs a
		// walk of the whole stack (goroutineID), and a deep recursion
		// that fails all the way out, most of its calls sampled out,
		// would pay it at every level.
		c.site.retrySampling()
		v.injected = wrapsInjected(v.err)
		v.verdict, v.reason, v.call = "unknown", sampledOutReason(c.overBudget), c.num
		writeVerdict(v)
		return
	}
	v.chain, v.injected, v.first = joinChain(c.seq, false, v.err)
	if v.injected {
		v.verdict, v.reason = "unknown", "not snapshotted"
		writeVerdict(v)
	}
}

// callerName returns the name that the frame of the function calling
// Enter or Mask shows: for a function literal, the name of the copy of
// its code that runs (see Site.Literal). An instrumented function is
// never inlined (it defers a call), so its caller's frame is its own.
func callerName() string {
	var pc [1]uintptr
	if runtime.Callers(3, pc[:]) == 0 {
		return ""
	}
	f, _ := runtime.CallersFrames(pc[:]).Next()
	return f.Function
}

// unwinding reports whether the caller of Exit runs because the goroutine
// panics or exits (runtime.gopanic or runtime.Goexit is running deferred
// calls), as opposed to a return after a recovered panic. It walks the
// stack from Exit outwards until it meets either the runtime's unwinder or
// the instrumented function itself. Only calls that did not pass a return
// statement pay for it.
func unwinding(fn string) bool {
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		switch f.Function {
		case "runtime.gopanic", "runtime.Goexit", "runtime.goexit0":
			return true
		case fn:
			return false
		}
		if !more {
			// Deeper than we looked: the function's frame was not found
			// among the innermost frames, which only unwinding explains.
			return true
		}
	}
}
