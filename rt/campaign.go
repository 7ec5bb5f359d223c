package rt

import (
	"os"
	"sync/atomic"

	"github.com/atomicx/atomicx/rt/arm"
)

// What a campaign asks of a run (see package arm for the syntax):
//
// arm.EnvProfile turns on the profile run of a campaign: the first N
// occurrences of each injection point are logged as "reach" events, so
// that the campaign knows which experiments exist. N is the campaign's
// cap on occurrences per point and test.
//
// arm.EnvStop set to "absorbed" ends the program (exit status 0) as soon
// as an injected failure has stopped propagating: a call that was on
// the stack when the fault was injected returns without failing. What
// follows cannot change a verdict, and skipping it keeps a campaign's
// cost proportional to the number of points, not to their product
// with the length of the workload.
//
// arm.EnvSnapshots says which calls are snapshotted. Unset or "sampled",
// a sample of each function's calls (see sampledIn): the first few,
// then ever sparser ones, and more after a failure that was sampled
// out, which gets the verdict "unknown" with its call number;
// and no more snapshots while they have taken longer than the rest of
// the run.
// This keeps a logged run of a long test suite within a small factor
// of its plain run. "all" snapshots every call.
//
// Set to "before-fault", it makes an experiment snapshot only
// calls entered before the armed fault fires: a call entered later
// was not on the stack when the fault was injected, so it cannot be
// part of the failure's propagation, and its own failures were
// already seen by the profile run. Most calls of a long test come
// after the fault; snapshotting them is most of an experiment's cost.
// The exception are calls that the propagation itself makes, such as
// an error helper (return f.fail(err)): the first few calls entered
// after the fault on its goroutine are snapshotted, and logged when
// they fail with the injected failure (see afterFaultWanted).
//
// Set to "none", calls are never snapshotted: a profile run uses it,
// and logs each failed call as a "fail" event (with its call number)
// instead of a verdict, so that a later run can snapshot just those.
//
// arm.EnvSnapshotCalls names the only calls to snapshot, as
// "N@SITE;N@SITE": the Nth call of the function whose entry site is
// SITE. A profile run logs, with each point it reaches, the calls on
// the stack at that moment; the experiment that injects there
// snapshots those and nothing else, so its cost does not grow with
// the number of calls the test makes before the fault. A failure of
// another call inside the injected failure's propagation (the run
// took another path than the profile run) gets the verdict "unknown:
// not snapshotted". Set, it overrides the sampling of arm.EnvSnapshots.
//
// arm.EnvMask names functions, by entry site ID ("SITE;SITE"), whose
// failed calls are rolled back to their snapshot as masking would,
// once their verdict is logged. A campaign replays a non-atomic
// failed call with the non-atomic functions that ran inside it masked
// to tell whether it is non-atomic by itself (pure) or only because
// of them (dependent).
//
// arm.EnvOblivious names failure-oblivious functions, by entry site ID
// ("SITE;SITE"): a failed call of one swallows its failure. Its error
// result becomes nil (the other results stay as the function left
// them), and a panic going through it is recovered (the results stay
// as they were when it panicked); a runtime.Goexit is left alone.
// When the function is in arm.EnvMask too, the call is first rolled back
// to its entry state (atomic failure-oblivious), and its failure is
// swallowed only if it could be. Each wrapped failure is logged as an
// "oblivious" event. A perturbation campaign uses it to tell whether
// a function that swallowed a failure would make the program
// survive it.
//
// arm.EnvUndoFiles names functions of EnvMask, by entry site ID
// ("SITE;SITE"), whose rolled-back calls also get their writes to
// regular files undone, as a masking build does for the functions of
// a rule's undo_files (see fileundo.go).
//
// arm.EnvWiden names error handlers, by ID ("HANDLER;HANDLER"), whose
// typed predicate (errors.Is, errors.As, err == X, a type switch's
// case: see WidenSwitch) is widened to err != nil: the arm takes any
// error. Only arms that the instrumentation found widenable
// (Handler.Widened) are widened. A handlers campaign uses it to
// validate a widening before offering it.
//
// arm.EnvRoute names err != nil handlers, by ID ("HANDLER;HANDLER"),
// whose region's call can panic (Handler.Route): at every execution,
// the call panics at its start and the panic is routed to the handler
// as an error (*RoutedPanic), as the suggested rewrite of the call (a
// deferred recover around it) would. With "panic:" before the IDs, the
// panic is not routed: it goes on. A handlers campaign uses it to
// validate routing the panic of a region to its handler.

// campaignSettings complete settings with what the campaign asked for.
type campaignSettings struct {
	profile      uint64 // occurrences per point to log as reached; 0: no profile
	stopAbsorbed bool
	beforeFault  bool // no snapshot for calls entered after the fault fired
	noSnapshots  bool // no snapshot at all: failures are logged as "fail" events
	sampled      bool // a sample of the calls: see sampledIn
	// numbered is, in a profile run without snapshots, how many calls of
	// each function are numbered (and, unless it is a leaf, tracked in
	// progress): numberedCalls. Past it, a call costs the run loads of the
	// site's counts, and no atomic read-modify-write: a hot function would
	// otherwise pay two at every call. What a later run needs of a call
	// past it, it cannot have: its failure is logged as a "fail" event
	// with "beyond_call" (this number) instead of its own, and a reach
	// inside it names its function in the "unnumbered" list rather than
	// in the stack. 0 otherwise: every call is numbered.
	numbered uint64
	// tracksCalls says that the run tracks each function's calls in
	// progress (see enterActive): a profile run, to log with each point
	// reached the calls on its stack, and a run that arms a point without
	// snapshots (a perturbation run), to log them with the injection, so
	// that its "fail" events are matched against its own call numbers and
	// not against a profile run's, which other goroutines, parallel tests
	// or a map's order may have numbered otherwise.
	tracksCalls bool
	// targets, when not nil, are the only calls to snapshot: by entry
	// site ID, the call numbers.
	targets map[string]callSet
	masks   map[string]bool // entry site IDs of functions rolled back on failure
	// undoFiles are the entry site IDs of masked functions whose writes
	// to files are undone with their memory (arm.EnvUndoFiles); nil when
	// none.
	undoFiles map[string]bool
	// oblivious are the entry site IDs of failure-oblivious functions
	// (arm.EnvOblivious); nil when none.
	oblivious map[string]bool
	// widen are the IDs of the widened handlers (arm.EnvWiden); nil when
	// none.
	widen map[string]bool
	// route are the IDs of the handlers whose region panics (arm.EnvRoute),
	// routed to them unless routeUnrouted; nil when none.
	route         map[string]bool
	routeUnrouted bool
}

// campaignSettingsOf is what the runtime makes of what an arming asks of
// a campaign's run. A malformed list of calls to snapshot comes as the
// empty one from arm.Parse, which reported it.
func campaignSettingsOf(a arm.Arming) campaignSettings {
	c := campaignSettings{profile: a.Profile, stopAbsorbed: a.StopAbsorbed}
	switch a.Snapshots {
	case "", arm.SnapshotsSampled:
		c.sampled = a.SnapshotCalls == ""
	case arm.SnapshotsBeforeFault:
		c.beforeFault = true
	case arm.SnapshotsNone:
		c.noSnapshots = true
	}
	if a.SnapshotCalls != "" {
		c.targets, _ = parseTargets(a.SnapshotCalls)
	}
	c.masks = setOf(a.Mask)
	if c.noSnapshots && c.profile > 0 {
		c.numbered = max(c.profile, numberedCalls)
	}
	c.undoFiles = setOf(a.UndoFiles)
	c.oblivious = setOf(a.Oblivious)
	c.widen = setOf(a.Widen)
	c.route, c.routeUnrouted = setOf(a.Route), a.RouteUnrouted
	return c
}

// numberedCalls is how many calls of each function a profile run numbers
// (see campaignSettings.numbered). Numbering no more calls than the
// occurrences the campaign plans would be enough for the points a
// function reaches early, but not for one reached first in a later call
// of a function that encloses it: the experiment there could not snapshot
// that call. Past this many calls, the function is hot, and its calls are
// most of what the run costs.
const numberedCalls = 1 << 16

// setOf is a list of site or handler IDs as a set; nil when it names
// none.
func setOf(ids []string) map[string]bool {
	var set map[string]bool
	for _, id := range ids {
		if set == nil {
			set = map[string]bool{}
		}
		set[id] = true
	}
	return set
}

// injected is where the armed fault fired: the call sequence number at
// that moment and the goroutine. Calls entered before it on that goroutine
// were on the stack.
var injected struct {
	fired atomic.Bool
	seq   uint64
	gid   uint64
}

func noteInjection(seq, gid uint64) {
	injected.seq, injected.gid = seq, gid
	injected.fired.Store(true) // publishes seq and gid
}

// checkAbsorbed ends the program when c, a call that returns normally,
// was on the stack of the goroutine where the fault was injected. A call
// without a sequence number (a run without snapshots) is never taken for
// one.
func (c *Call) checkAbsorbed() {
	if !campaign.stopAbsorbed || !injected.fired.Load() || c.seq == 0 || c.seq >= injected.seq {
		return
	}
	if goroutineID() != injected.gid {
		return
	}
	writeLine(event("absorbed").str("site", c.site.ID).str("func", c.site.Func).end())
	if batchRun.on {
		absorbedInBatch(injected.gid)
		return
	}
	os.Exit(0)
}

// writeEnter logs, in a profile run, the first call of a function whose
// entry is not an injection point (no error result, and no panics
// injected): a function that no fault can make fail at its entry, which a
// report tells apart from one no experiment made fail.
func writeEnter(s *Site) {
	writeLine(event("enter").str("site", s.ID).str("func", s.Func).str("pos", s.Pos).end())
}

func writeReach(s *Site, occurrence uint64, stack, unnumbered string) {
	e := event("reach").str("site", s.ID).str("func", s.Func).str("pos", s.Pos).strIf("in", s.In).
		num("occurrence", occurrence).num("faults", uint64(s.Faults)).strIf("stack", stack).strIf("unnumbered", unnumbered)
	writeLine(e.end())
}
