// Package arm is the contract between atomicx's engine and its runtime:
// how a run of an instrumented program is armed. The engine (a campaign's
// planner, a reproduce line) builds an Arming and passes its Env to the
// program; the runtime (package rt) Parses it back from the environment
// when the program starts. Both sides use this one value, so that a
// setting cannot be written one way and read another.
//
// Like rt, the package is compiled into users' programs: it imports the
// standard library only, holds no state, and must never be instrumented.
// It knows the settings' syntax, not what the runtime does with them: the
// meaning of each is documented where the runtime acts on it.
package arm

import (
	"strconv"
	"strings"
)

// The environment variables of an Arming, one per field.
const (
	// EnvLog names the event log: a file that verdict and injection
	// events are appended to, one JSON object per line.
	EnvLog = "ATOMICX_LOG"
	// EnvInject arms one injection: Injection's "FAULT:OCCURRENCE:SITE".
	EnvInject = "ATOMICX_INJECT"
	// EnvProfile makes the run a campaign's profile run: the first N
	// occurrences of each point are logged as reached.
	EnvProfile = "ATOMICX_PROFILE"
	// EnvStop set to "absorbed" ends the program once the injected
	// failure stops propagating.
	EnvStop = "ATOMICX_STOP"
	// EnvSnapshots says which calls are snapshotted: sampled (unset),
	// all, before-fault or none.
	EnvSnapshots = "ATOMICX_SNAPSHOTS"
	// EnvSnapshotCalls names the only calls to snapshot, as
	// "NUMS@SITE;NUMS@SITE" (see ParseCalls).
	EnvSnapshotCalls = "ATOMICX_SNAPSHOT_CALLS"
	// EnvMask names functions ("SITE;SITE") whose failed calls are rolled
	// back once their verdict is logged.
	EnvMask = "ATOMICX_MASK"
	// EnvUndoFiles names functions of EnvMask ("SITE;SITE") whose writes
	// to files are undone with their memory.
	EnvUndoFiles = "ATOMICX_UNDO_FILES"
	// EnvOblivious names failure-oblivious functions ("SITE;SITE").
	EnvOblivious = "ATOMICX_OBLIVIOUS"
	// EnvWiden names error handlers ("HANDLER;HANDLER") whose typed
	// predicate is widened to err != nil.
	EnvWiden = "ATOMICX_WIDEN"
	// EnvRoute names err != nil handlers ("HANDLER;HANDLER") whose
	// region's call panics, the panic routed to them; after "panic:",
	// not routed.
	EnvRoute = "ATOMICX_ROUTE"
	// EnvListAsWritten set to "1" makes a logged run list the functions
	// that detection left as written.
	EnvListAsWritten = "ATOMICX_LIST_AS_WRITTEN"
)

// The FAULT words of an Injection.
const (
	FaultError   = "error"   // the point fails with an injected error
	FaultPanic   = "panic"   // the point panics
	FaultHandler = "handler" // an error handler's region yields the fault its predicate holds for
)

// OccurrenceAlways is the OCCURRENCE of an Injection that makes every
// reach of the point fail, from the first.
const OccurrenceAlways = "always"

// The values of Arming.Snapshots.
const (
	SnapshotsSampled     = "sampled"
	SnapshotsAll         = "all"
	SnapshotsBeforeFault = "before-fault"
	SnapshotsNone        = "none"
)

// StopAbsorbed is the one value of EnvStop.
const StopAbsorbed = "absorbed"

// routeUnrouted is the prefix of EnvRoute's value that keeps the panics
// of the regions from being routed.
const routeUnrouted = "panic:"

// An Injection is one armed fault: the Occurrence-th reach of the point
// Site fails with Fault, or every reach when Always. A handler
// (FaultHandler) is armed at every execution of its region: Site is its
// ID, and Always is set.
type Injection struct {
	Fault      string // FaultError, FaultPanic or FaultHandler
	Occurrence uint64 // from 1; 0 when Always
	Always     bool
	Site       string // the point's site ID, or the handler's ID
}

// HandlerInjection arms the error handler id: at every execution of its
// region.
func HandlerInjection(id string) Injection {
	return Injection{Fault: FaultHandler, Always: true, Site: id}
}

// IsZero reports whether nothing is armed.
func (i Injection) IsZero() bool { return i == Injection{} }

// String is the injection as EnvInject takes it, "FAULT:OCCURRENCE:SITE";
// "" when nothing is armed.
func (i Injection) String() string {
	if i.IsZero() {
		return ""
	}
	occ := OccurrenceAlways
	if !i.Always {
		occ = strconv.FormatUint(i.Occurrence, 10)
	}
	return i.Fault + ":" + occ + ":" + i.Site
}

// ParseInjection parses "FAULT:OCCURRENCE:SITE". SITE may hold colons
// (a call site's position does). The error is the message the runtime
// logs, naming the variable.
func ParseInjection(s string) (Injection, error) {
	fault, rest, ok1 := strings.Cut(s, ":")
	occ, id, ok2 := strings.Cut(rest, ":")
	always := occ == OccurrenceAlways
	n, err := strconv.ParseUint(occ, 10, 64)
	if always {
		n, err = 0, nil
	}
	switch {
	case fault == FaultHandler && ok2 && id != "":
		if !always {
			return Injection{}, problem(EnvInject + "=" + s + ": a handler is armed at every execution of its region: want handler:always:HANDLER")
		}
	case !ok1 || !ok2 || err != nil || n == 0 && !always || id == "":
		return Injection{}, problem(EnvInject + "=" + s + ": want FAULT:OCCURRENCE:SITE (OCCURRENCE a number from 1, or always), e.g. error:1:example.com/m.F#entry")
	case fault != FaultError && fault != FaultPanic:
		return Injection{}, problem(EnvInject + "=" + s + ": fault must be error or panic")
	}
	return Injection{Fault: fault, Occurrence: n, Always: always, Site: id}, nil
}

// problem is a malformed setting: its message names the variable and
// says what it takes.
type problem string

func (p problem) Error() string { return string(p) }

// An Arming is everything that drives the runtime of one run. The zero
// value arms nothing: the program runs its original code.
//
// The lists of site IDs keep the order they were given in; the runtime
// reads them as sets.
type Arming struct {
	Log     string    // EnvLog: the event log's path; "" for none
	Inject  Injection // EnvInject; zero for none
	Profile uint64    // EnvProfile: occurrences per point logged as reached; 0 for no profile run
	// StopAbsorbed: EnvStop=absorbed.
	StopAbsorbed bool
	// Snapshots is EnvSnapshots: one of the Snapshots* values, or ""
	// (unset: sampled).
	Snapshots string
	// SnapshotCalls is EnvSnapshotCalls, as ParseCalls reads it: ""
	// when unset; ";" names no call, and snapshots none.
	SnapshotCalls string
	Mask          []string // EnvMask: entry site IDs
	UndoFiles     []string // EnvUndoFiles: entry site IDs, of Mask
	Oblivious     []string // EnvOblivious: entry site IDs
	Widen         []string // EnvWiden: handler IDs
	Route         []string // EnvRoute: handler IDs
	// RouteUnrouted leaves the panics of Route's regions unrouted (the
	// "panic:" form of EnvRoute).
	RouteUnrouted bool
	// ListAsWritten: EnvListAsWritten=1.
	ListAsWritten bool
	// Batch is EnvBatch: the path of a batch file, whose experiments
	// set Inject and SnapshotCalls run after run; "" for none.
	Batch string
}

// Env is the arming as environment variables, "NAME=value", in a fixed
// order: the handlers armed, the profile, the fault and what is done
// with the failure, what is snapshotted, then the log. Unset fields are
// left out, so that the zero Arming is no variable at all.
func (a Arming) Env() []string {
	var env []string
	add := func(name, value string) {
		if value != "" {
			env = append(env, name+"="+value)
		}
	}
	add(EnvWiden, joinIDs(a.Widen))
	if len(a.Route) > 0 {
		prefix := ""
		if a.RouteUnrouted {
			prefix = routeUnrouted
		}
		add(EnvRoute, prefix+joinIDs(a.Route))
	}
	if a.Profile > 0 {
		add(EnvProfile, strconv.FormatUint(a.Profile, 10))
	}
	add(EnvInject, a.Inject.String())
	if a.StopAbsorbed {
		add(EnvStop, StopAbsorbed)
	}
	add(EnvOblivious, joinIDs(a.Oblivious))
	add(EnvMask, joinIDs(a.Mask))
	add(EnvUndoFiles, joinIDs(a.UndoFiles))
	add(EnvSnapshots, a.Snapshots)
	add(EnvSnapshotCalls, a.SnapshotCalls)
	if a.ListAsWritten {
		add(EnvListAsWritten, "1")
	}
	add(EnvBatch, a.Batch)
	add(EnvLog, a.Log)
	return env
}

// Parse reads an Arming from the environment through getenv (os.Getenv,
// or a lookup in a list). A malformed setting is left out of the Arming
// the way the runtime has always taken it, and its message is returned
// among the problems, in the order of Env:
//   - an injection arms nothing;
//   - a profile keeps the number parsed (0 when it is not one);
//   - a stop is not absorbed;
//   - a snapshot mode snapshots every call (SnapshotsAll);
//   - a list of calls snapshots none (";"), which keeps the run's cost
//     bounded.
//
// EnvListAsWritten is set only by "1", and any other value is no
// problem.
func Parse(getenv func(string) string) (Arming, []string) {
	var a Arming
	var problems []string
	a.Widen = SplitIDs(getenv(EnvWiden))
	route, unrouted := strings.CutPrefix(getenv(EnvRoute), routeUnrouted)
	if a.Route = SplitIDs(route); a.Route != nil {
		a.RouteUnrouted = unrouted
	}
	if v := getenv(EnvProfile); v != "" {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n == 0 {
			problems = append(problems, EnvProfile+"="+v+": want a positive number of occurrences")
		}
		a.Profile = n
	}
	if v := getenv(EnvInject); v != "" {
		inj, err := ParseInjection(v)
		if err != nil {
			problems = append(problems, err.Error())
		}
		a.Inject = inj
	}
	switch v := getenv(EnvStop); v {
	case "":
	case StopAbsorbed:
		a.StopAbsorbed = true
	default:
		problems = append(problems, EnvStop+"="+v+": the only value is \"absorbed\"")
	}
	a.Oblivious = SplitIDs(getenv(EnvOblivious))
	a.Mask = SplitIDs(getenv(EnvMask))
	a.UndoFiles = SplitIDs(getenv(EnvUndoFiles))
	switch v := getenv(EnvSnapshots); v {
	case "", SnapshotsSampled, SnapshotsAll, SnapshotsBeforeFault, SnapshotsNone:
		a.Snapshots = v
	default:
		problems = append(problems, EnvSnapshots+"="+v+": want sampled, all, before-fault or none")
		a.Snapshots = SnapshotsAll
	}
	if v := getenv(EnvSnapshotCalls); v != "" {
		a.SnapshotCalls = v
		if _, err := ParseCalls(v); err != nil {
			problems = append(problems, EnvSnapshotCalls+": "+err.Error())
			a.SnapshotCalls = ";"
		}
	}
	a.ListAsWritten = getenv(EnvListAsWritten) == "1"
	a.Batch = getenv(EnvBatch)
	a.Log = getenv(EnvLog)
	return a, problems
}

// joinIDs is a list of IDs as its variable takes it, "ID;ID".
func joinIDs(ids []string) string {
	return strings.Join(ids, ";")
}

// SplitIDs parses a list of IDs as its variable takes it, "ID;ID",
// skipping empty IDs; nil when it names none.
func SplitIDs(list string) []string {
	var ids []string
	for _, id := range strings.Split(list, ";") {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// A Run is the call numbers First to Last of one function, both
// included.
type Run struct{ First, Last uint64 }

// ParseCalls parses a list of calls, "NUMS@SITE;NUMS@SITE": NUMS are
// runs of call numbers separated by commas, each "N" or "FIRST-LAST",
// SITE the entry site ID of the function whose calls they number. It
// returns the runs of each site as written, in order; an empty list (";")
// gives an empty map.
func ParseCalls(list string) (map[string][]Run, error) {
	calls := map[string][]Run{}
	for _, t := range strings.Split(list, ";") {
		if t == "" {
			continue
		}
		malformed := problem("malformed calls " + strconv.Quote(t) + ": want N@SITE, or runs such as 1-9,12@SITE")
		runs, id, ok := strings.Cut(t, "@")
		if !ok || id == "" {
			return nil, malformed
		}
		for _, run := range strings.Split(runs, ",") {
			lo, hi, isRun := strings.Cut(run, "-")
			first, err := strconv.ParseUint(lo, 10, 64)
			last := first
			if err == nil && isRun {
				last, err = strconv.ParseUint(hi, 10, 64)
			}
			if err != nil || first == 0 || last < first {
				return nil, malformed
			}
			calls[id] = append(calls[id], Run{first, last})
		}
	}
	return calls, nil
}
