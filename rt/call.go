package rt

import (
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// Call is one call of an instrumented function while verdicts are on: the
// snapshot of its object graph taken at entry.
//
// Every instrumented call holds one: Begin returns it, the frame's
// deferred Exit keeps a copy, and it is handed to Exit. It is four words,
// which the compiler keeps in registers (a struct of more fields, or of
// more than four words, goes through memory at each step, and its copies
// stall the loads that follow); what only some calls need is behind ext.
type Call struct {
	site *Site
	// ext is nil, a function literal's frame shared by its calls in a
	// failure-oblivious run (see callerFrame), or what Snap took.
	ext *callExt
	seq uint64 // order of entry among all calls
	// num is which call of its function this is, in the low bits, with
	// the call's flags in the top byte (see callFlags).
	num uint64
}

// callExt is the part of a Call that few calls have.
type callExt struct {
	// frame is, for a function literal that is not a leaf in a
	// failure-oblivious run, the name that its frames show (see
	// Site.Literal); "" for the site's frameName.
	frame string
	// snap is the *snapshot that holds the roots and their names with
	// their copies; nil when the call was not snapshotted. It is not a
	// *snapshot because every instrumented package names Call: a type
	// that reaches reflect's types makes a package compile some sixty
	// functions of reflect's iterators (Value.Seq, Type.Fields) again.
	snap  unsafe.Pointer
	flags callFlags // callTooLarge, callOverBudget, callOverLive
	// held is the lock the call holds, from the lock idiom it opens with
	// (see Holding): a *sync.Mutex or *sync.RWMutex, or nil; gid is then
	// its goroutine's number.
	held unsafe.Pointer
	gid  uint64
	// locked, when the snapshot found a lock held elsewhere (see
	// locks.go), is the reason of the call's verdict.
	locked string
	// regions is the call's *lockRegions when it takes its locks mid-body
	// (see regions.go), or nil.
	regions unsafe.Pointer
	// segs is the *segments of a snapshotted call, split at the
	// callbacks it makes (see callbacks.go).
	segs unsafe.Pointer
}

// callFlags are what a Call knows about itself beyond its numbers.
type callFlags uint8

const (
	// callWanted: the call is to be snapshotted (see Snap).
	callWanted callFlags = 1 << iota
	// callAfterFault: entered after the armed fault fired, on its
	// goroutine (see afterFaultWanted); its verdict is logged only when
	// it fails with the injected failure.
	callAfterFault
	// callInSlot: a run that tracks calls (a profile or perturbation
	// run) tracks this call in progress in its
	// site's slot rather than in its list (see enterActive).
	callInSlot
	// callTooLarge: the snapshot went over its budget.
	callTooLarge
	// callOverBudget: the call was to be snapshotted, but the sampled run
	// had spent its time budget on snapshots.
	callOverBudget
	// callOverLive: the call was to be snapshotted, but the snapshots of
	// the calls in progress already held liveSnapshotBudget words.
	callOverLive
	// callOblivious: the function is failure-oblivious (ATOMICX_OBLIVIOUS):
	// the call's failure is swallowed (see swallow).
	callOblivious
	// callWrapOnly: the call is wrapped, and nothing else: no verdict is
	// wanted of it (see obliviousOnly).
	callWrapOnly
)

// flagShift places callFlags in the top byte of Call.num: no function
// is called 2⁵⁶ times.
const flagShift = 56

func (c *Call) is(f callFlags) bool {
	return callFlags(c.num>>flagShift)&f != 0 || c.ext != nil && c.ext.flags&f != 0
}

// number is which call of its function c is.
func (c *Call) number() uint64 { return c.num & (1<<flagShift - 1) }

// callSnapshot is what Snap took of c, or nil.
//
// It and the other functions of a Call whose signatures name the
// runtime's types for snapshots and events are not methods: every
// instrumented package names Call, and the compiler reads a type's
// methods with it; a method that reaches reflect's types makes a package
// compile some sixty functions of reflect's iterators (Value.Seq,
// Type.Fields) again, tens of milliseconds per package.
func callSnapshot(c *Call) *snapshot {
	if c.ext == nil {
		return nil
	}
	return (*snapshot)(c.ext.snap)
}

// frameMatcher returns what tells the call's frame in a stack walk (see
// unwindingAt): nil for a leaf function literal. A function literal whose
// frame name was not learnt at entry matches the frames of every copy of
// its code.
func (c *Call) frameMatcher() func(string) bool {
	fn := c.frameName()
	switch {
	case fn == "":
		return nil
	case c.site.Literal && (c.ext == nil || c.ext.frame == ""):
		return literalFrame(fn)
	}
	return exactFrame(fn)
}

// exactFrame matches the frames of the function named fn.
func exactFrame(fn string) func(string) bool {
	return func(name string) bool { return name == fn }
}

// literalFrame matches the frames of the function literal named fn and
// of its copies (see copiedFrom).
func literalFrame(fn string) func(string) bool {
	return func(name string) bool {
		return name == fn || copiedFrom(name, func(orig string) bool { return orig == fn })
	}
}

// copiedFrom calls f with each name of a function literal whose code may
// run in the frames named name: where the function around the literal
// pkg.rel is inlined into G, the compiler compiles the literal again as
// pkg.G.rel, G being one or more elements of the name (see Site.Literal).
// It stops at the first name for which f returns true, and reports
// whether there was one.
func copiedFrom(name string, f func(orig string) bool) bool {
	pkg, rest, ok := splitFuncName(name)
	if !ok {
		return false
	}
	depth := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '.':
			if depth == 0 && i > 0 && f(pkg+"."+rest[i+1:]) {
				return true
			}
		}
	}
	return false
}

// splitFuncName splits a function's name as the runtime gives it into its
// package's path and the rest (pkg.rel): the package ends at the first
// dot after the last slash, as the runtime escapes the path's dots there.
func splitFuncName(fn string) (pkg, rel string, ok bool) {
	slash := strings.LastIndex(fn, "/")
	dot := strings.Index(fn[slash+1:], ".")
	if dot < 0 {
		return "", "", false
	}
	return fn[:slash+1+dot], fn[slash+1+dot+1:], true
}

// frameName is the name of the call's frames, "" for a leaf function
// literal (see unwindingAt).
func (c *Call) frameName() string {
	switch {
	case c.ext != nil && c.ext.frame != "":
		return c.ext.frame
	case c.site.Literal && c.site.Leaf:
		return ""
	}
	return c.site.frameName()
}

// liveSnapshotWords is the budget (see snapshot.charge) that the
// snapshots of the calls in progress hold. A recursion thousands of calls
// deep would otherwise hold a copy of its graph per level at once, and run
// out of memory: past liveSnapshotBudget, a call is not snapshotted
// (ReasonLiveBudget).
var liveSnapshotWords atomic.Int64

// liveSnapshotBudget is the most that snapshots of calls in progress hold
// at once: 32 snapshots of the default budget, about 256 MB. Tests lower it.
var liveSnapshotBudget int64 = 32 * defaultSnapshotBudget

// ReasonLiveBudget is the reason of the verdict of a call that was not
// snapshotted because of liveSnapshotBudget.
const ReasonLiveBudget = "not snapshotted: the snapshots of the calls in progress were over budget"

// callSeq numbers calls in the order they are entered. Failure chains use
// it to tell which failures happened inside which calls.
var callSeq atomic.Uint64

// Enter snapshots the object graph that a call of s can reach from its
// receiver and arguments (roots, in the order of s.Roots) and, when the
// site asks for it, from the package-level variables. It returns the zero
// Call when no verdict is wanted; Exit accepts it. It is Begin, then Snap
// when the call Wants one.
//
// A Call is a value, and roots are kept only when snapshotted, so that a
// call that is not snapshotted allocates nothing for them: the deferred
// Exit keeps its Call in the caller's frame, and the caller's slice of
// roots stays on its stack. Instrumented code calls Enter when boxing
// every root allocates nothing (a pointer, map, channel, function,
// interface, boolean or byte), and otherwise Begin, then Snap when the
// call Wants one: boxing another value allocates.
func Enter(s *Site, roots ...any) Call {
	c := begin(s)
	if c.is(callWanted) {
		c.Snap(roots...)
	}
	return c
}

// EnterHolding is Enter for a function that opens with the lock idiom
// (x.Lock(); defer x.Unlock()), called once it holds lock (see Holding).
func EnterHolding(s *Site, lock any, roots ...any) Call {
	c := begin(s)
	if c.is(callWanted) {
		c.Holding(lock)
		c.Snap(roots...)
	}
	return c
}

// Holding tells a call to be snapshotted that it holds lock, the
// *sync.Mutex or *sync.RWMutex of the lock idiom it opens with (or an
// interface that holds one), before it Snaps: its snapshot and its
// comparison read what the lock guards without taking it, as any other
// lock they meet (see locks.go). Another value tells it nothing.
func (c *Call) Holding(lock any) {
	p, _ := lockPointer(lock)
	if p == nil || !c.is(callWanted) {
		return
	}
	ext := &callExt{}
	if c.ext != nil {
		*ext = *c.ext
	}
	ext.held, ext.gid = p, goroutineID()
	c.ext = ext
	// Until the call ends (see end), walks for the calls it makes find
	// the lock held by their goroutine.
	hold(p, ext.gid)
}

// Begin starts a call of s: numbered, and, in a profile run, tracked as in
// progress. Instrumented code then snapshots it only when it Wants: the
// roots that are not pointers are boxed (and allocated) only then.
//
// Begin stays a call (begin answers a profile run's later calls first
// thing): inlined, its Call and checks would grow the frame of every
// instrumented function, which costs the calls made while nothing is
// enabled (internal/costbench's AddTwice, a third slower).
func Begin(s *Site) Call { return begin(s) }

// begin is Begin, called by Begin or Enter: the frame of the
// instrumented function is the fourth from callerFrame's (see
// Site.Literal). It works on plain variables, and builds the Call once at
// the end, so that the Call stays in registers.
func begin(s *Site) Call {
	if s.unnumbered.Load() {
		// A profile run past the calls it numbers (see
		// campaignSettings.numbered): nothing to count nor track.
		return Call{site: s}
	}
	if config.logPath == "" || s.Ignored {
		return obliviousOnly(s)
	}
	after := campaign.beforeFault && injected.fired.Load()
	if after && !afterFaultWanted() {
		return obliviousOnly(s)
	}
	var flags callFlags
	if after {
		flags |= callAfterFault
	}
	var num uint64
	if campaign.numbered != 0 && s.calls.Load()&^slotTaken >= campaign.numbered {
		// Unnumbered (see campaignSettings.numbered): from now on Begin
		// answers by itself.
		if !after && campaign.oblivious == nil {
			s.unnumbered.Store(true)
			if s.Faults&FaultError == 0 {
				// A function without an error result has nothing left
				// to give the run: it fails only by a panic, which the
				// first traced call out logs as its own failure, and
				// a point reached inside it names it as unnumbered by
				// its frame, traced or not (see activeStack). Its calls
				// now skip the runtime (see Traced), as an experiment's
				// quiet leaves do.
				s.untrace()
			}
		}
	} else if campaign.tracksCalls && !s.Leaf {
		var inSlot bool
		num, inSlot = enterActive(s)
		if inSlot {
			flags |= callInSlot
		}
	} else {
		num = s.calls.Add(1)
	}
	var seq uint64
	if !campaign.noSnapshots {
		// Without snapshots no failure is placed in a chain (see
		// exitUnsnapped), and a profile run skips the shared counter.
		seq = callSeq.Add(1)
	}
	var ext *callExt
	if s.Literal && !s.Leaf && campaign.oblivious != nil {
		// The name of the copy of the literal's code that runs, which a
		// failure-oblivious call needs. Other calls save the stack walk,
		// which costs a hot literal more than the rest of its call: Exit
		// matches the frame by the names of every copy of the literal's
		// code (see frameMatcher), and a profile run's walks of the
		// stack find the copies' frames (see copySite).
		ext = callerFrame(4)
	}
	if campaign.profile > 0 && num == 1 && s.Faults == 0 {
		writeEnter(s)
	}
	if after || !campaign.noSnapshots && snapshotWanted(s, num) {
		flags |= callWanted
	}
	if campaign.oblivious != nil && campaign.oblivious[s.ID] {
		flags |= obliviousFlags(s)
	}
	return Call{site: s, ext: ext, seq: seq, num: num | uint64(flags)<<flagShift}
}

// Wants reports whether the call is to be snapshotted (see Snap).
func (c *Call) Wants() bool { return c.is(callWanted) }

// Snap snapshots the call's object graph, from its roots (the receiver
// and arguments, in the order of Site.Roots) and the package-level
// variables when the site asks for them.
func (c *Call) Snap(roots ...any) {
	s := c.site
	if s == nil || !c.is(callWanted) {
		return
	}
	// A Call's ext may be shared (see callerFrame): Snap makes its own.
	ext := &callExt{}
	if c.ext != nil {
		*ext = *c.ext
	}
	c.ext = ext
	var start time.Time
	if campaign.sampled {
		start = time.Now()
		if !withinTimeBudget(time.Duration(snapshotTime.spent.Load()), start.Sub(snapshotTime.start)) {
			ext.flags |= callOverBudget
			return
		}
	}
	// A copy: the variadic slice itself stays on the caller's stack.
	all := slices.Clone(roots)
	if g := s.Globals; g != nil {
		all = append(all, g.Addrs()...)
	}
	budget := s.Budget
	if budget <= 0 {
		budget = defaultSnapshotBudget
	}
	left := liveSnapshotBudget - liveSnapshotWords.Load()
	if left <= 0 {
		ext.flags |= callOverLive
		return
	}
	locks := &lockSet{held: ext.held, gid: ext.gid, names: s.rootNames(len(all))}
	if r := (*lockRegions)(ext.regions); r != nil {
		locks.own, locks.ownTypes = r.own, r.ownTypes
	}
	snap, ok := takeLockedSnapshot(all, int(min(int64(budget), left)), locks)
	if ok {
		// Watched before they are released: from then on, another
		// goroutine may take them.
		snap.watch = locks.watch()
	}
	locks.release()
	if snap != nil {
		snap.names = locks.names
		liveSnapshotWords.Add(int64(snap.used))
	}
	ext.snap = unsafe.Pointer(snap)
	if ok && !campaign.sampled {
		splitCall(c, snap)
	}
	switch {
	case ok:
	case locks.blocked != "":
		ext.locked = lockReason(locks.blocked, "entry")
	case int64(budget) > left:
		ext.flags |= callOverLive
	default:
		ext.flags |= callTooLarge
	}
	if campaign.sampled {
		snapshotTime.spent.Add(int64(time.Since(start)))
	}
}

// Exit runs when the call ends, deferred by the instrumented function
// before any of its own deferred calls, so that it runs after them.
// done says which return statement the function passed, as an index into
// the site's Ends counted from 1, and 0 if none; errp points at its error
// result (nil when it has none). A call that ends without passing a
// return is a failure by panic or runtime.Goexit, unless a deferred
// function recovered and the function returns normally.
//
// Most calls return normally, with nothing snapshotted: Exit sees to
// them itself, with a small frame and no deferred call of its own, and
// leaves the others to end.
func (c Call) Exit(done *int32, errp *error) {
	if c.site == nil {
		return
	}
	if campaign.tracksCalls && !c.site.Leaf && c.number() != 0 {
		exitActive(c.site, c.number(), c.is(callInSlot))
	}
	if c.ext == nil && *done != 0 && (errp == nil || *errp == nil) {
		if campaign.stopAbsorbed {
			c.checkAbsorbed()
		}
		return
	}
	if c.is(callOblivious) {
		// recover must be called by the deferred function itself, and
		// only for a panic that the wrapper swallows.
		if e := swallow(&c, done, errp); e != nil {
			e.recovered(recover())
		}
		return
	}
	c.end(done, errp)
}

// end is Exit for a call that failed, or was snapshotted, or whose frame
// has a name of its own.
func (c *Call) end(done *int32, errp *error) {
	snap := callSnapshot(c)
	if snap != nil {
		defer liveSnapshotWords.Add(-int64(snap.used))
		defer unwatch(snap.watch)
	}
	if c.ext != nil && c.ext.held != nil {
		defer unhold(c.ext.held, c.ext.gid)
	}
	regions := regionsOf(c)
	defer regions.discard()
	if c.ext != nil && c.ext.segs != nil {
		defer unsplitCall(c.ext)
	}
	var failure string
	var err error
	var end int
	if *done == 0 {
		var panicking bool
		panicking, end = unwindingAt(c.frameMatcher())
		if panicking {
			failure = "panic"
		}
	}
	switch {
	case failure != "":
	case c.site.failed(errp):
		failure, err = "error", *errp
		if i := int(*done) - 1; i >= 0 && i < len(c.site.Ends) {
			end = int(c.site.Ends[i])
		}
	default:
		c.checkAbsorbed()
		return // a normal return, or one of an error that means done: nothing to compare
	}
	// The regions still open end now, compared before the comparison at
	// exit, which skips what they guard.
	regions.finish()
	v := verdictEvent{site: c.site, failure: failure, err: err, end: end}
	if c.is(callAfterFault) && !injectedFailure(c, &v) {
		return // a natural failure: the profile run saw it
	}
	if c.unsnapped() {
		exitUnsnapped(c, &v)
		return
	}
	switch {
	case c.is(callTooLarge):
		v.verdict = "unknown"
		v.reason = "graph too large"
	case snap == nil:
		v.verdict, v.reason = "unknown", c.ext.locked
	default:
		// A masked call is rolled back: for the calls around it, it
		// failed atomically. The comparison and the rollback hold the
		// locks they read under, which are released before the
		// program's code runs again (v.err's methods, say).
		finishSegments(c)
		snap.lockFor(c)
		v.verdict, v.diff, v.reason, v.masked = compareAndRollBack(snap, campaign.masks[c.site.ID], c.site.scratch())
		if v.masked {
			v.undoneWrites, v.notUndone = undoFilesSince(c.site, goroutineID(), c.seq)
		}
		regions.combine(&v)
		attributeChange(c, &v)
	}
	if !v.placed() {
		v.placeIn(c.seq, v.verdict == "non-atomic" && !v.masked)
	}
	writeVerdict(&v)
}

// compareAndRollBack compares a failed call's graph with its snapshot,
// holding the locks that snap.locks takes (see lockFor), which it
// releases, and, when the call is masked, rolls it back. masked says
// whether the call counts as rolled back.
func compareAndRollBack(snap *snapshot, mask bool, scratch *scratchSet) (verdict string, d difference, reason string, masked bool) {
	defer snap.unlock()
	snap.scratch = scratch
	d, equal := snap.firstDiff(snap.roots, snap.names)
	switch {
	case snap.locks.blocked != "":
		return "unknown", difference{}, lockReason(snap.locks.blocked, "exit"), false
	case equal:
		return "atomic", difference{}, "", mask
	}
	if lock, ok := contended(snap.watch); ok {
		// Nor rolled back: that would undo the other goroutine's writes.
		return "unknown", difference{}, contendedReason(lock), false
	}
	switch {
	case !mask:
		return "non-atomic", d, "", false
	}
	if !snap.lockObjects() {
		return "unknown", difference{}, lockReason(snap.locks.blocked, "exit") + ", nor rolled back", false
	}
	snap.restore()
	return "non-atomic", d, "", true
}

// placeIn places the failed call entered at seq in its failure chain, and
// records where it ran (its goroutine and entry number), so that a reader
// of the log can tell which failed calls ran inside which: on one
// goroutine, a call entered after another and logged before it ran
// inside it, whatever functions lie between them.
func (v *verdictEvent) placeIn(seq uint64, nonAtomic bool) {
	v.gid, v.seq = goroutineID(), seq
	v.chain, v.injected, v.first = joinChainOn(v.gid, seq, nonAtomic, v.err)
}

// injectedFailure places a failed call entered after the fault in its
// chain, and reports whether the chain is the injected failure's. The
// call has been compared already: a chain's first non-atomic call is
// found when the call joins it.
func injectedFailure(c *Call, v *verdictEvent) bool {
	nonAtomic := false
	if snap := callSnapshot(c); snap != nil && !c.is(callTooLarge) {
		snap.lockFor(c)
		_, equal := snap.firstDiff(snap.roots, snap.names)
		nonAtomic = !equal && !campaign.masks[c.site.ID] && snap.locks.blocked == ""
		if _, ok := contended(snap.watch); ok {
			nonAtomic = false
		}
		snap.unlock()
		if r := regionsOf(c); r != nil && r.changed {
			nonAtomic = true
		}
	}
	v.placeIn(c.seq, nonAtomic)
	return v.injected
}

// placed says whether placeIn ran.
func (v *verdictEvent) placed() bool { return v.seq != 0 }

// afterFaultWanted says whether an experiment snapshots a call entered
// after the armed fault fired: a call that the failure's propagation
// makes (an error helper such as fail(err) or wrap(err)) runs inside the
// calls that fail further out, and may change state itself. Only calls
// of the fault's goroutine are, and at most maxAfterFault of them, which
// bounds what a run that goes on after the failure costs.
//
// Telling the fault's goroutine apart costs a goroutineID, microseconds:
// other goroutines, or the test's next cases once the fault's goroutine
// has ended, would pay it at every call to the end of the run. So only
// the first maxAfterFaultChecks calls entered after the fault are asked;
// the error helpers of a propagation are entered right after the fault.
func afterFaultWanted() bool {
	if afterFault.Load() >= maxAfterFault || afterFaultChecks.Load() >= maxAfterFaultChecks {
		return false
	}
	afterFaultChecks.Add(1)
	if goroutineID() != injected.gid {
		return false
	}
	return afterFault.Add(1) <= maxAfterFault
}

const (
	maxAfterFault       = 256
	maxAfterFaultChecks = 4 * maxAfterFault
)

var afterFault, afterFaultChecks atomic.Int32

// unsnapped says the campaign asked for no snapshot of this call.
func (c *Call) unsnapped() bool {
	return callSnapshot(c) == nil && !c.is(callTooLarge) && (c.ext == nil || c.ext.locked == "")
}

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
	calls := (*callSet)(s.targets.load())
	if calls == nil {
		set := campaign.targets[s.ID]
		calls = &set
		s.targets.store(unsafe.Pointer(calls))
	}
	return calls.has(n)
}

// exitUnsnapped reports the failure of a call that was not snapshotted.
// In a profile run it is a "fail" event, for a later run to snapshot. In
// a sampled run it is an "unknown" verdict that says how to snapshot it.
// In an experiment it matters only inside the injected failure's
// propagation, where it is a call the profile run did not see on the
// stack: the run took another path.
func exitUnsnapped(c *Call, v *verdictEvent) {
	if campaign.noSnapshots {
		writeFail(c, v.failure)
		return
	}
	if c.site.NoSnapshot != "" {
		// Never snapshotted: say why, wherever a verdict is wanted.
		if !v.placed() {
			v.placeIn(c.seq, false)
		}
		if v.injected || campaign.targets == nil || campaign.targets[c.site.ID].has(c.number()) {
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
		v.verdict, v.reason, v.call = "unknown", sampledOutReason(c.is(callOverBudget)), c.number()
		writeVerdict(v)
		return
	}
	if !v.placed() {
		v.placeIn(c.seq, false)
	}
	switch {
	case c.is(callOverLive):
		// Wanted, whatever the run: say why there is no verdict.
		v.verdict, v.reason = "unknown", ReasonLiveBudget
		writeVerdict(v)
	case v.injected:
		v.verdict, v.reason = "unknown", "not snapshotted"
		writeVerdict(v)
	case campaign.beforeFault && !injected.fired.Load() && !c.site.coveredBeforeFault(v.gid, v.seq):
		// A natural failure before the fault, seen by the profile run
		// already. Logged all the same: it may have run inside a call
		// that the injected failure goes through, and a reader that asks
		// what failed inside that call must know.
		v.verdict, v.reason = "unknown", ReasonBeforeFault
		writeVerdict(v)
	}
}

// ReasonBeforeFault is the reason of the verdict of a call that failed,
// not snapshotted, before an experiment's fault fired.
const ReasonBeforeFault = "not snapshotted: failed before the fault"

// callerFrame returns the shared callExt of the calls made from the
// frame of the function calling Enter, which Begin hands to them: its
// name is the one the frame shows, for a function literal the name of
// the copy of its code that runs (see Site.Literal). nil when there is
// no caller. An instrumented function is never inlined (it defers a
// call), so its caller's frame is its own.
func callerFrame(skip int) *callExt {
	var pc [1]uintptr
	if runtime.Callers(skip, pc[:]) == 0 {
		return nil
	}
	if ext, ok := callerFrames.load(pc[0]); ok {
		return ext
	}
	f, _ := runtime.CallersFrames(pc[:]).Next()
	return callerFrames.loadOrStore(pc[0], &callExt{frame: f.Function})
}

// callerFrames caches callerFrame's answers by return address: a literal
// is entered from a few places, very often. They are never changed.
var callerFrames readMostly[uintptr, *callExt]

// unwinding reports whether the caller of Exit runs because the goroutine
// panics or exits (runtime.gopanic or runtime.Goexit is running deferred
// calls), as opposed to a return after a recovered panic. It walks the
// stack from Exit outwards until it meets either the runtime's unwinder or
// the instrumented function itself. Only calls that did not pass a return
// statement pay for it.
func unwinding(fn string) bool {
	var match func(string) bool
	if fn != "" {
		match = exactFrame(fn)
	}
	panicking, _ := unwindingAt(match)
	return panicking
}

// unwindingAt is unwinding that also returns, when the goroutine is
// unwinding, the line the function's frame was at: where the panic went
// through it (0 if that frame is deeper than it looks).
//
// match tells the function's frame by its function's name; nil stands
// for a leaf function literal, whose frame's name is not known (see
// Enter): a leaf calls nothing but builtins, has no deferred call but
// Exit, and so ends without passing a return only by a panic that it
// made, and its frame is the first outside the runtime below
// runtime.gopanic.
func unwindingAt(match func(string) bool) (panicking bool, line int) {
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic" || f.Function == "runtime.Goexit" || f.Function == "runtime.goexit0":
			panicking = true
		case match != nil && match(f.Function) || match == nil && panicking && !strings.HasPrefix(f.Function, "runtime."):
			if panicking {
				return true, f.Line
			}
			return false, 0
		}
		if !more {
			// Deeper than we looked: the function's frame was not found
			// among the innermost frames, which only unwinding explains.
			return true, 0
		}
	}
}
