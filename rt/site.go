package rt

import (
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// SiteKind says what an injection point is.
type SiteKind uint8

const (
	// EntrySite is the entry of an instrumented function: an injected
	// fault makes the call fail without running the function.
	EntrySite SiteKind = iota + 1
	// CallSite is a call, in instrumented code, of a function that returns
	// an error: an injected fault replaces the call.
	CallSite
)

// Faults is the set of faults that may be injected at a site.
type Faults uint8

const (
	FaultError Faults = 1 << iota // return an error (the last result is error)
	FaultPanic                    // panic (only where the policy asks for it)
)

// Site is one instrumented function or injection point. The instrumented
// package declares its sites as a package-level array (read from a string
// by SiteTable); the runtime keeps its per-site state in the unexported
// fields.
type Site struct {
	ID      string   // stable identity: "example.com/m.(*T).M#entry"
	Func    string   // the function, as runtime.Func.Name() names it: "gopkg.in/ini%2ev1.(*File).Reload"
	Pos     string   // "example.com/m/file.go:12:6"
	Roots   string   // display names of the receiver and parameters, comma-separated
	Kind    SiteKind //
	Faults  Faults   // faults that may be injected here
	Budget  int      // values one snapshot may copy; 0 means the default
	Ignored bool     // known non-atomic on purpose: never injected nor reported
	Globals *Globals // package-level variables to watch, or nil
	// NoSnapshot, when set, says why calls of the function are never
	// snapshotted (it takes a lock in a way that a snapshot at entry
	// would race with): a failed call gets the verdict "unknown" with
	// this reason.
	NoSnapshot string
	// Ends are the lines of the statements that end a call of the
	// function normally (returns, and returns of injected call sites),
	// in the order of the indexes its calls pass to Exit.
	Ends []int32
	// Scratch lists the fields the policy declares scratch, as "T.f,U.g"
	// (a struct type's name without package or type arguments, a field):
	// a difference inside one is scratch, not caller-visible.
	Scratch string
	// Done says which errors of the standard library, beyond io.EOF,
	// the function's contract defines as "done", not "failed" (see
	// Fails); DoneValues
	// are those the policy declares (a rule's success_errors), set by
	// the package's init function.
	Done       DoneErrors
	DoneValues []error

	scratchSet atomicPtr // *scratchSet: Scratch, parsed
	// Literal marks the entry of a function literal. Its Func is the name
	// the compiler gives the literal when the function around it is not
	// inlined; where it is, the literal's code is compiled again under
	// another name (pkg.G.F.func1 for F's literal inlined into G). Stack
	// walks match such a site by the names of its copies too (see
	// literalFrame, copySite); events still name it by Func.
	Literal bool
	// In is, for a site of a function literal (its entry and its call
	// sites), what the literal is written in, for reports to name it
	// by: a function ("(*Store).Put") or package-level variables ("save").
	In string
	// Frame, when set, is the name of the frames that run the function's
	// instrumented body: a small function hands its calls over to an
	// instrumented twin while the runtime is enabled, so that, when it is
	// not, it stays what it was (inlinable, with the same frames).
	Frame string
	// Leaf marks a function that calls nothing but builtins: no injection
	// point is reached while one of its calls is in progress, so profile
	// runs need not track its calls (see enterActive).
	Leaf bool
	// Gate, when set, is the variable that a small function that may go
	// untraced (see Traced) tests to hand its calls over to its twin (see
	// Frame), initialized to On; only a twin without injection points,
	// handlers or probes of its own has one.
	// Once the runtime has no use for the function's calls (Traced is
	// false for good), it clears it, and the calls run the function as it
	// is written, inlined where the compiler inlines it. The variable is
	// read without synchronization: a call that still sees it set goes to
	// the twin, which asks Traced. Under the race detector, which would
	// report that, it is never cleared.
	Gate *bool

	hits atomic.Uint64 // times reached in a profile run, or as the armed site
	// calls counts the calls entered while verdicts are on (entry
	// sites); in a profile run, its top bit says that the slot is taken
	// (see enterActive).
	calls atomic.Uint64
	// targets are the call numbers the campaign wants snapshotted
	// (ATOMICX_SNAPSHOT_CALLS), looked up at the first call.
	targets atomicPtr // *callSet
	// Sampled snapshots (see sampledIn): after a failed call that was not
	// snapshotted, the calls up to retryUntil are; retries counts how
	// often that happened.
	retryUntil atomic.Uint64
	retries    atomic.Uint32

	splitNames atomicPtr // *[]string: Roots and Globals.Names, split (see rootNames)

	// Profile runs only: the calls in progress, one in the slot (see
	// enterActive), the others in active. slot is the slot's call number
	// once a call numbered after it has begun; slotKnown says it is set.
	activeMu  sync.Mutex
	active    []uint64
	slot      uint64
	slotKnown bool
	// The last call whose failure before the fault was logged (see
	// coveredBeforeFault).
	beforeFaultMu   sync.Mutex
	lastBeforeFault struct{ gid, seq uint64 }

	registered atomic.Bool   // listed in activeSites
	unnumbered atomic.Bool   // a profile run numbers no more of its calls (see begin)
	armed      atomic.Uint32 // 0: not yet resolved, 1: not the armed site, 2: the armed site
	tracing    atomic.Uint32 // tracingOff once the site's calls skip the runtime (see Traced)
}

// coveredBeforeFault reports whether the failure before the fault of a
// call of s (on goroutine gid, entered at seq) need not be logged: the
// last one logged for s ran inside this call. A reader asks of such
// failures only whether one ran inside a call that failed later (see
// campaign.Failures), and every call that this one ran inside, the last
// one ran inside too. A recursion that fails through thousands of levels
// then logs its innermost level, not every level.
func (s *Site) coveredBeforeFault(gid, seq uint64) bool {
	s.beforeFaultMu.Lock()
	defer s.beforeFaultMu.Unlock()
	last := &s.lastBeforeFault
	if last.gid == gid && last.seq > seq {
		return true
	}
	last.gid, last.seq = gid, seq
	return false
}

// tracingOff, in Site.tracing, says that the site's calls skip the
// runtime (see Traced).
const tracingOff = 1

// Traced reports whether a call of a leaf function (see Leaf), or of a
// function without an error result (a literal's included), goes through
// the runtime: Inject at entry, Begin, and the deferred Exit. That is
// every call while verdicts are on, except
//
//   - in an experiment, where a leaf that cannot return an error, is not
//     the armed site, and has no call the experiment snapshots (it
//     targets calls: ATOMICX_SNAPSHOT_CALLS) or masks has nothing to
//     give: no fault is injected into it, it is on no failure chain (no
//     error leaves it, and no panic goes through a function that calls
//     nothing), and a failure of its own is a natural one, which the
//     profile run saw;
//   - in a profile run, past the calls it numbers, for a function without
//     an error result (see begin).
//
// It is two loads, inlined into every such function: the experiment's
// quiet leaves are known before the program calls any (see
// resolveTracing), so a call never has to find out.
func (s *Site) Traced() bool {
	return config.enabled && s.tracing.Load() != tracingOff
}

// resolveTracing untraces s if it is one of an experiment's quiet leaves
// (see Traced). SiteTable resolves the sites it reads, when their package
// is initialized: the settings are read by then, and an instrumented
// function runs only once its package's site table is set.
func (s *Site) resolveTracing() {
	quiet := config.enabled && s.Leaf && s.Faults&FaultError == 0 && config.armedID != "" && campaign.profile == 0 &&
		campaign.targets != nil && len(campaign.targets[s.ID]) == 0 && !campaign.masks[s.ID] && !campaign.oblivious[s.ID] && !isArmed(s)
	if quiet {
		s.untrace()
	}
}

// ResolveSites resolves a table of sites that SiteTable did not read
// (see resolveTracing): a package whose language version declares its
// table as composite literals calls it when it is initialized. Until then
// its sites are traced, which is always correct.
func ResolveSites(sites []Site) bool {
	for i := range sites {
		sites[i].resolveTracing()
	}
	registerTable(sites)
	return true
}

// untrace makes Traced false for good, and lets the calls of a gated
// function skip its twin (see Gate).
func (s *Site) untrace() {
	s.tracing.Store(tracingOff)
	if s.Gate != nil && !raceEnabled {
		*s.Gate = false
		if campaign.profile > 0 && !s.Leaf {
			// Its calls now show the function's own frames, not its
			// twin's: a point reached inside one names it as
			// unnumbered by that name (see activeStack).
			registerFrame(s, s.Func)
		}
	}
}

// Globals are the package-level variables of the package a site is in.
type Globals struct {
	Names string       // comma-separated display names: "pkg.a,pkg.b"
	Addrs func() []any // their addresses, in the same order
}

// frameName is the name of the frames of s's instrumented body.
func (s *Site) frameName() string {
	if s.Frame != "" {
		return s.Frame
	}
	return s.Func
}

// rootNames returns the display names of a call's n roots: the receiver
// and parameters (Roots), then the package-level variables, then "arg"
// for any other. They are split once; snapshots share the slice and never
// change it.
func (s *Site) rootNames(n int) []string {
	if p := (*[]string)(s.splitNames.load()); p != nil && len(*p) >= n {
		return *p
	}
	var names []string
	if s.Roots != "" {
		names = strings.Split(s.Roots, ",")
	}
	if g := s.Globals; g != nil {
		names = append(names, strings.Split(g.Names, ",")...)
	}
	for len(names) < n {
		names = append(names, "arg")
	}
	s.splitNames.store(unsafe.Pointer(&names))
	return names
}
