package rt

import "sync/atomic"

// Error handlers, for short-circuit testing.
//
// A handler is one arm of the code that checks an error: the body of
// "if err != nil", of one arm of an errors.Is / errors.As / err == X chain.
// Its region is the call whose error reaches it. Instrumented code calls
// Region at the start of every execution of a region, and Arm when an
// arm's predicate has been evaluated. A profile run logs, per handler,
// the usages it saw (pink: the region returned no error; white: an error
// reached the arm and its predicate held; blue: an error came and the
// predicate did not hold), and that its region was executed, which tells
// the campaign that the test can have the handler armed. An experiment armed with "handler:always:ID"
// (see EnvInject) skips the region at every execution and makes it yield
// the fault that the handler's predicate holds for.

// handlerFault is the FAULT word of EnvInject that arms a handler.
const handlerFault = "handler"

// Handler is one arm of an error check. The instrumented package declares
// its handlers as a package-level array; the arms of one region are
// consecutive in it.
type Handler struct {
	ID        string // stable identity: "example.com/m.F#handler:f.go:12:2"
	Func      string // the function, as runtime.Func.Name() names it
	Pos       string // of the arm: "example.com/m/f.go:12:2"
	Region    string // position of the region's call, as Pos
	Kind      string // propagate, accumulate, translate, fallback, log-and-continue, ignore, panic or exit
	Predicate string // the arm's condition, as written
	// NotInjectable, when set, says why no fault can be made that the
	// predicate holds for: the handler is never armed.
	NotInjectable string
	// Widened is the arm's predicate widened to hold for any error
	// ("err != nil"), for a typed arm (errors.Is, errors.As, err == X, a
	// type switch's case) whose body does not use the typed value; NotWidenable says why a
	// typed arm cannot be widened. Both are empty for other arms.
	Widened, NotWidenable string
	// Route is, for the err != nil arm of a region whose call can panic,
	// the call: a panic of it can be routed to the arm as an error (see
	// EnvRoute); NotRoutable says why the err != nil arm's region cannot.
	Route, NotRoutable string
	// RouteResults are the Route call's results as the result list of a
	// function literal that returns them ("_ string, err error"), for the
	// suggested rewrite.
	RouteResults string

	logged atomic.Uint32 // usages logged (usagePink, usageWhite, usageBlue)
	// quiet, on the first arm of a region, says that the region's
	// executions have nothing left to tell the run (see region).
	quiet bool
	armed atomic.Uint32 // 0: not yet resolved, 1: not the armed handler, 2: the armed handler
	hits  atomic.Uint64 // executions of the region while armed
	// execs counts the region's executions in a profile run, numbered as
	// an armed run numbers its faults (hits), and whites the white
	// usages it logged with their execution (see logWhite).
	execs, whites atomic.Uint64
	wide          atomic.Uint32 // 0: not yet resolved, 1: not widened, 2: widened (EnvWiden)
}

// The usages of a handler, as bits of Handler.logged.
const (
	usagePink = 1 << iota
	usageWhite
	usageBlue
	usageExecuted // the region ran (profile runs only)
)

// Arm records that a predicate of handler h was evaluated after its region
// returned err, and returns held, the predicate's value, or, when h is
// widened (EnvWiden), whether err is not nil. It costs a branch while the
// runtime is not enabled.
func Arm(h *Handler, err error, held bool) bool {
	if config.enabled {
		return h.arm(err, held)
	}
	return held
}

// arm is Arm while the runtime is enabled.
func (h *Handler) arm(err error, held bool) bool {
	if !held && err != nil && campaign.widen != nil && h.isWidened() {
		held = true
	}
	// usage, by hand: arm is called at every evaluation of a predicate
	// while the runtime is enabled, and a usage is logged once.
	u := usageOf(err == nil, held)
	if h.logged.Load()&u == 0 {
		h.log(u)
	}
	if u == usageWhite && campaign.profile > 0 {
		h.logWhite()
	}
	return held
}

// maxWhitesLogged bounds the white executions a profile run logs per
// handler, and the armed executions an armed run logs: a handler in a
// hot loop would fill the log. Past it, one event says that more came.
const maxWhitesLogged = 64

// logWhite logs, in a profile run, at which execution of its region an
// error reached h and its predicate held: a test that fails armed at
// that execution expected an error there. An armed run that fails at
// another, which the profile run saw succeed, says only that the test
// expected that call to succeed (see campaign.HandlerResults).
func (h *Handler) logWhite() {
	switch n := h.whites.Add(1); {
	case n <= maxWhitesLogged:
		writeLine(event("white").str("site", h.ID).num("at", h.execs.Load()).end())
	case n == maxWhitesLogged+1:
		writeLine(event("white").str("site", h.ID).boolean("more", true).end())
	}
}

// logArmed logs, in an armed run, the nth execution of h's region that
// it skipped: which executions the run reached, for telling a failure at
// an execution that the profile run saw fail from one at another.
func (h *Handler) logArmed(n uint64) {
	switch {
	case n <= maxWhitesLogged:
		writeLine(event("armed").str("site", h.ID).num("at", n).end())
	case n == maxWhitesLogged+1:
		writeLine(event("armed").str("site", h.ID).boolean("more", true).end())
	}
}

// ArmCase is the expression x of a case of a switch on a region's error
// (switch err { case x: … }): it records that handler h, the case,
// compared err with x, and returns x, or err when h is widened
// (EnvWiden) and err is not nil, so that the case takes any error that
// reaches it. It costs a branch while the runtime is not enabled.
func ArmCase(h *Handler, err, x error) error {
	if config.enabled {
		return h.armCase(err, x)
	}
	return x
}

// armCase is ArmCase while the runtime is enabled.
func (h *Handler) armCase(err, x error) error {
	if h.arm(err, err == x) {
		return err
	}
	return x
}

// ArmCases is ArmCase for the first value x of a case of several values
// (switch err { case x, y: … }): held says whether err is one of them
// (instrumented code compares only while the runtime is enabled).
// It returns x, or err when held, or when h is widened (EnvWiden) and
// err is not nil, so that the case takes the error at its first value
// and h logs one usage. It costs a branch while the runtime is not
// enabled.
func ArmCases(h *Handler, err, x error, held bool) error {
	if config.enabled {
		return h.armCases(err, x, held)
	}
	return x
}

// armCases is ArmCases while the runtime is enabled.
func (h *Handler) armCases(err, x error, held bool) error {
	if h.arm(err, held) {
		return err
	}
	return x
}

// isWidened reports whether h is widened, looking it up the first time
// only.
func (h *Handler) isWidened() bool {
	switch h.wide.Load() {
	case 1:
		return false
	case 2:
		return true
	}
	if batchRun.on {
		touchHandler(h)
	}
	if h.Widened == "" || !campaign.widen[h.ID] {
		h.wide.Store(1)
		return false
	}
	h.wide.Store(2)
	return true
}

// ArmRecover records that the predicate of a deferred recover handler h
// was evaluated on r, the value recover returned, and returns held.
func ArmRecover(h *Handler, r any, held bool) bool {
	if config.enabled {
		h.usage(r == nil, held)
	}
	return held
}

// RecoverRegion is called where the region of a deferred recover handler
// starts: right after the defer statement. When h is armed, it panics
// with an injected fault, at every execution.
func RecoverRegion(h *Handler) {
	if config.enabled {
		recoverRegion(h, nil)
	}
}

// RecoverRegionWith is RecoverRegion for a recover handler whose block
// asserts the recovered value's type (if e, ok := r.(T); ok, or a type
// switch on r): armed, it panics with value(), a value of that type, so
// that the handler takes the panic as one of its own and does not just
// panic again.
func RecoverRegionWith(h *Handler, value func() any) {
	if config.enabled {
		recoverRegion(h, value)
	}
}

func recoverRegion(h *Handler, value func() any) {
	if config.armedHandler == "" {
		if campaign.profile > 0 {
			h.execs.Add(1)
			if h.logged.Load()&usageExecuted == 0 {
				h.log(usageExecuted)
			}
		}
		return
	}
	if !h.isArmed() {
		return
	}
	n := h.hits.Add(1)
	if n == 1 {
		writeLine(event("inject").str("site", h.ID).str("func", h.Func).str("pos", h.Pos).
			str("kind", "handler").str("fault", handlerFault).num("occurrence", n).end())
	}
	h.logArmed(n)
	if value != nil {
		panic(value())
	}
	panic(&InjectedFault{Site: h.ID, Pos: h.Pos, Occurrence: n, Panic: true})
}

// usage logs h's usage after its region failed or not, the first time
// only.
func (h *Handler) usage(ok, held bool) {
	u := usageOf(ok, held)
	if h.logged.Load()&u == 0 {
		h.log(u)
	}
	if u == usageWhite && campaign.profile > 0 {
		h.logWhite()
	}
}

// usageOf is the usage of a handler whose region failed or not (ok) and
// whose predicate held or not.
func usageOf(ok, held bool) uint32 {
	switch {
	case ok:
		return usagePink
	case held:
		return usageWhite
	}
	return usageBlue
}

// usageName is a usage as the log names it.
func usageName(u uint32) string {
	switch u {
	case usagePink:
		return "pink"
	case usageWhite:
		return "white"
	case usageBlue:
		return "blue"
	}
	return "executed"
}

// log logs a usage of h, the first time only.
func (h *Handler) log(u uint32) {
	if h.logged.Or(u)&u != 0 {
		return
	}
	if batchRun.on {
		touchHandler(h)
	}
	if config.armedID != "" {
		// A run that arms an error or a panic (an experiment) logs no
		// usage: only profile runs, and the runs that arm, widen or
		// route handlers, are read for them (see atomicx handlers), and
		// every experiment's record would carry them all again.
		return
	}
	name := usageName(u)
	e := event("handler").str("site", h.ID).str("func", h.Func).str("pos", h.Pos).str("region", h.Region).
		str("usage", name).str("handler_kind", h.Kind).str("predicate", h.Predicate)
	e.strIf("not_injectable", h.NotInjectable).strIf("widened", h.Widened).strIf("not_widenable", h.NotWidenable).
		strIf("route", h.Route).strIf("route_results", h.RouteResults).strIf("not_routable", h.NotRoutable)
	writeLine(e.end())
}

// Region is called at the start of each execution of a region whose
// handlers are arms. When one of them is armed, it returns that arm's
// fault, made by fault (given the arm's index in arms), or by HandlerError
// when fault is nil, and the region is skipped; otherwise it returns injected, the fault of the region's call
// site (nil when none is injected there).
// While the runtime is not enabled it costs a branch: it is inlined into
// every region, and its inlined body is kept to that test, since the
// compiler compiles it once per region.
func Region(arms []Handler, injected error, fault func(arm int) error) error {
	if !config.enabled {
		return injected
	}
	return regionEnabled(arms, injected, fault)
}

// regionEnabled is Region while the runtime is enabled. A region that has
// nothing left to tell the run (quiet: nothing armed or routed, its
// executions logged), which region says on its first arm, returns at
// once. That flag is read without synchronization: a stale read costs a
// call of region; under the race detector, which would report it, it is
// never set.
//
//go:noinline
func regionEnabled(arms []Handler, injected error, fault func(arm int) error) error {
	if arms[0].quiet {
		return injected
	}
	return region(arms, injected, fault)
}

// region is Region while the runtime is enabled.
func region(arms []Handler, injected error, fault func(arm int) error) error {
	if campaign.route != nil {
		if err := routedRegion(arms); err != nil {
			return err
		}
	}
	if config.armedHandler == "" {
		if campaign.profile > 0 {
			// Numbered at every execution: a profile run's region is
			// never quiet.
			for i := range arms {
				arms[i].execs.Add(1)
				if arms[i].logged.Load()&usageExecuted == 0 {
					arms[i].log(usageExecuted)
				}
			}
		} else if campaign.route == nil && !raceEnabled {
			if batchRun.on {
				touchHandler(&arms[0])
			}
			arms[0].quiet = true
		}
		return injected
	}
	for i := range arms {
		h := &arms[i]
		if !h.isArmed() {
			continue
		}
		n := h.hits.Add(1)
		var f error
		if fault != nil {
			f = fault(i)
		} else {
			f = HandlerError(h)
		}
		if n == 1 {
			writeLine(event("inject").str("site", h.ID).str("func", h.Func).str("pos", h.Pos).
				str("kind", "handler").str("fault", handlerFault).num("occurrence", n).end())
		}
		h.logArmed(n)
		return f
	}
	return injected
}

// isArmed reports whether h is the armed handler, comparing IDs only the
// first time.
func (h *Handler) isArmed() bool {
	switch h.armed.Load() {
	case 1:
		return false
	case 2:
		return true
	}
	if batchRun.on {
		touchHandler(h)
	}
	if h.NotInjectable != "" || h.ID != config.armedHandler {
		h.armed.Store(1)
		return false
	}
	h.armed.Store(2)
	return true
}

// WidenSwitch is what a type switch on a region's error switches on when
// one of its cases can be widened (Handler.Widened): err, unless one of
// arms, the switch's cases, is widened (EnvWiden), err is not nil and no
// case before the widened one takes it (earlier); then a value of the
// widened case's type, made by fault, so that the widened case runs. The
// case does not use its typed value: that is what makes it widenable.
// While the runtime is not enabled it costs a branch: it is inlined.
func WidenSwitch(arms []Handler, err error, earlier func(err error, arm int) bool, fault func(arm int) error) error {
	if !config.enabled {
		return err
	}
	return widenSwitch(arms, err, earlier, fault)
}

func widenSwitch(arms []Handler, err error, earlier func(err error, arm int) bool, fault func(arm int) error) error {
	if err == nil || campaign.widen == nil {
		return err
	}
	for i := range arms {
		if !arms[i].isWidened() {
			continue
		}
		if earlier(err, i) {
			return err
		}
		if f := fault(i); f != nil {
			return f
		}
		return err
	}
	return err
}

// HandlerError is the fault of an armed "err != nil" arm: an injected
// error, recognisable as InjectedFault, naming the handler.
func HandlerError(h *Handler) error {
	return &InjectedFault{Site: h.ID, Pos: h.Pos, Occurrence: h.hits.Load()}
}

// HandlerWrap is the fault of an armed errors.Is or errors.As arm: an
// injected error that wraps target, the sentinel or the constructed value
// the predicate looks for.
func HandlerWrap(h *Handler, target error) error {
	return &InjectedFault{Site: h.ID, Pos: h.Pos, Occurrence: h.hits.Load(), Wrapped: target}
}

// routeFault is the fault word of the inject events of routed regions.
const routeFault = "route"

// routedRegion is Region for a region whose err != nil arm is routed
// (EnvRoute): its call panics at its start, at every execution, and the
// panic, routed, reaches the arm as a *RoutedPanic; not routed ("panic:"
// before the IDs), it goes on. nil when no arm of the region is routed.
func routedRegion(arms []Handler) error {
	for i := range arms {
		h := &arms[i]
		if h.Route == "" || !campaign.route[h.ID] {
			continue
		}
		n := h.hits.Add(1)
		if n == 1 {
			writeLine(event("inject").str("site", h.ID).str("func", h.Func).str("pos", h.Pos).
				str("kind", "handler").str("fault", routeFault).num("occurrence", n).end())
		}
		f := &InjectedFault{Site: h.ID, Pos: h.Pos, Occurrence: n, Panic: true}
		if campaign.routeUnrouted {
			panic(f)
		}
		return &RoutedPanic{Value: f}
	}
	return nil
}

// RoutedPanic is the error a routed region's handler gets (EnvRoute): the
// panic of the region's call, recovered, as the suggested rewrite of the
// call makes it.
type RoutedPanic struct {
	Value any // what the call panicked with
}

func (p *RoutedPanic) Error() string {
	if err, ok := p.Value.(error); ok {
		return "panic: " + err.Error()
	}
	return "panic"
}

// Unwrap returns the panic value when it is an error.
func (p *RoutedPanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}
