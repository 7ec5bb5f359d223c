package rt

import "strconv"

// InjectedFault is the error (or panic value) of an injected fault. Code
// that cannot import this package recognises it through its method
// AtomicxInjected, e.g. with errors.As and an interface type.
type InjectedFault struct {
	Site       string // site ID
	Pos        string // position of the site
	Occurrence uint64 // which reach of the site
	Panic      bool   // injected as a panic rather than returned
	// Wrapped is what an armed handler's predicate looks for (see
	// HandlerWrap): errors.Is and errors.As find it through Unwrap.
	Wrapped error
}

func (f *InjectedFault) Error() string {
	kind := "error"
	if f.Panic {
		kind = "panic"
	}
	msg := "atomicx: injected " + kind + " at " + f.Site + " (" + f.Pos + "), occurrence " + strconv.FormatUint(f.Occurrence, 10)
	if f.Wrapped != nil {
		msg += ": " + f.Wrapped.Error()
	}
	return msg
}

// Unwrap returns the error an armed handler's fault wraps, nil for other
// faults.
func (f *InjectedFault) Unwrap() error { return f.Wrapped }

// AtomicxInjected marks the type; it returns the site ID.
func (f *InjectedFault) AtomicxInjected() string { return f.Site }

// Inject counts a reach of s and, when s is the armed site and this is the
// armed occurrence (any, armed "always"), makes the fault: it returns the injected error or
// panics with it. Otherwise it returns nil.
//
// While the runtime is not enabled it costs a branch: it is inlined into
// every injection point, and its inlined body is kept to that test, since
// the compiler compiles it once per point.
func Inject(s *Site) error {
	if !config.enabled {
		return nil
	}
	return injectEnabled(s)
}

// injectEnabled is Inject while the runtime is enabled. Most reaches find
// s not armed and, in a profile run, reached as often as the run logs
// (armedIdle): those return at once.
//
//go:noinline
func injectEnabled(s *Site) error {
	if s.armed.Load() == armedIdle {
		return nil
	}
	return inject(s)
}

// armedIdle, in Site.armed, says that s is not the armed site and that
// the run logs no more of its reaches: Inject has nothing to do.
const armedIdle = 3

// inject is Inject past its quick answer.
func inject(s *Site) error {
	armed := isArmed(s)
	if !armed && (campaign.profile == 0 || s.hits.Load() >= campaign.profile) {
		// An experiment counts the reaches of its armed site only, and
		// a profile run the reaches it logs.
		s.armed.Store(armedIdle)
		return nil
	}
	n := s.hits.Add(1)
	if n <= campaign.profile {
		stack, unnumbered := activeStack(s)
		writeReach(s, n, stack, unnumbered)
	}
	if !armed || n != config.armedOcc && !config.armedAlways {
		return nil
	}
	panicking := !config.armedErr
	if panicking && s.Faults&FaultPanic == 0 || !panicking && s.Faults&FaultError == 0 {
		return nil // the policy does not allow this fault here
	}
	f := &InjectedFault{Site: s.ID, Pos: s.Pos, Occurrence: n, Panic: panicking}
	if !config.armedAlways || !injected.fired.Load() {
		// Armed always, the first fault is logged and starts a chain; a
		// hot point would otherwise pay a log line and a goroutine ID at
		// every reach.
		recordInjection(s, f)
	}
	if panicking {
		panic(f)
	}
	return f
}

// isArmed reports whether s is the armed site, comparing IDs only the
// first time a site is reached.
func isArmed(s *Site) bool {
	switch s.armed.Load() {
	case 1, armedIdle:
		return false
	case 2:
		return true
	}
	if config.armedID == "" || s.ID != config.armedID {
		s.armed.Store(1)
		return false
	}
	s.armed.Store(2)
	return true
}
