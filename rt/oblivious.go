package rt

import (
	"reflect"
	"runtime"
	"strconv"
)

// Failure-oblivious functions (ATOMICX_OBLIVIOUS): a failed call of one
// returns as if it had succeeded. Its error result is set to nil, and a
// panic going through it is recovered; the other results stay as the
// function left them. An atomic failure-oblivious function (also in
// ATOMICX_MASK) is first rolled back to its state at entry, so that the
// swallowed failure leaves no half-done change behind; when it cannot
// be (the call was not snapshotted, or its graph was over budget), its
// failure goes on as it would have.

// obliviousFlags are the flags of a call of s, a failure-oblivious
// function: an atomic one is snapshotted whatever the sampling, so that
// it can be rolled back, even in a run without snapshots (see swallow).
func obliviousFlags(s *Site) callFlags {
	f := callOblivious
	if campaign.masks[s.ID] && s.NoSnapshot == "" {
		f |= callWanted
	}
	return f
}

// obliviousOnly is the Call of s when no verdict is wanted of it (no
// event log, an ignored function, or a call entered after the fault that
// an experiment leaves alone): the zero Call, unless s is
// failure-oblivious, whose calls are wrapped all the same.
func obliviousOnly(s *Site) Call {
	if campaign.oblivious == nil || !campaign.oblivious[s.ID] {
		return Call{}
	}
	f := obliviousFlags(s) | callWrapOnly
	var num uint64
	if campaign.tracksCalls && !s.Leaf {
		// Tracked as in progress as any call of the run, so that
		// Exit ends it as it ends the others.
		var inSlot bool
		if num, inSlot = enterActive(s); inSlot {
			f |= callInSlot
		}
	} else {
		num = s.calls.Add(1)
	}
	return Call{site: s, num: num | uint64(f)<<flagShift}
}

// swallowed is what the wrapper of a failure-oblivious function did to
// one failed call, logged as an "oblivious" event.
type swallowed struct {
	site    *Site
	call    uint64 // which call of its function
	failure string // error or panic
	err     error  // the error swallowed
	// atomic says the function is atomic failure-oblivious, rolledBack
	// that its state was restored, and swallowed that the failure was
	// (not when an atomic function could not be rolled back).
	atomic, rolledBack, swallowed bool
}

// swallow is Exit for a call of a failure-oblivious function that failed,
// or was snapshotted. It logs the verdict as for any call, rolls the call
// back when the function is atomic failure-oblivious, and sets the error
// result to nil. For a panic to swallow, it returns the event for Exit to
// recover the panic (recover works only when the deferred function calls
// it) and log it; nil otherwise.
func swallow(c *Call, done *int32, errp *error) *swallowed {
	failure := ""
	if *done == 0 {
		// No return passed: a panic, runtime.Goexit, or a return after
		// a deferred function recovered a panic.
		failure = unwindingBy(c.frameName())
	}
	if failure == "" && c.site.failed(errp) {
		failure = "error"
	}
	snap := callSnapshot(c)
	switch {
	case c.is(callWrapOnly):
		if snap != nil {
			liveSnapshotWords.Add(-int64(snap.used))
			unwatch(snap.watch)
		}
		if c.ext != nil && c.ext.segs != nil {
			unsplitCall(c.ext)
		}
	case snap != nil && campaign.noSnapshots:
		// A run without snapshots takes one of an atomic
		// failure-oblivious call only to roll it back: to end, the call
		// is one of the run's unsnapshotted calls.
		c.ext.snap = nil // Snap gave the call an ext of its own
		liveSnapshotWords.Add(-int64(snap.used))
		defer unwatch(snap.watch)
		c.end(done, errp)
	default:
		c.end(done, errp)
	}
	if failure == "" || failure == "goexit" {
		return nil
	}
	e := &swallowed{site: c.site, call: c.number(), failure: failure, atomic: campaign.masks[c.site.ID]}
	if e.atomic && snap != nil && !c.is(callTooLarge) {
		// end rolled a non-atomic call back already; restore writes only
		// what differs, so a second one writes nothing. It holds the
		// locks that guard what it writes, and does not undo what
		// another goroutine wrote under them (see locks.go).
		snap.lockFor(c)
		if _, other := contended(snap.watch); !other && snap.lockObjects() {
			snap.restore()
			e.rolledBack = true
		}
		snap.unlock()
	}
	e.swallowed = !e.atomic || e.rolledBack
	if failure == "error" {
		e.err = *errp
		if e.swallowed {
			*errp = nil
		}
		e.write("")
		return nil
	}
	if !e.swallowed {
		e.write("")
		return nil
	}
	if errp != nil {
		*errp = nil
	}
	return e
}

// recovered logs the swallowed panic, of value v.
func (e *swallowed) recovered(v any) {
	e.write(truncate(panicText(v), 200))
}

func (e *swallowed) write(value string) {
	s := e.site
	l := event("oblivious").str("site", s.ID).str("func", s.Func).str("pos", s.Pos)
	if s.In != "" {
		l.str("in", s.In)
	}
	l.num("call", e.call).str("failure", e.failure)
	switch {
	case e.err != nil:
		l.str("error", truncate(errorText(e.err), 200))
	case value != "":
		l.str("value", value)
	}
	l.boolean("atomic", e.atomic).boolean("rolled_back", e.rolledBack).boolean("swallowed", e.swallowed)
	if e.err != nil {
		l.boolean("injected", wrapsInjected(e.err))
	}
	writeLine(l.end())
}

// panicText is a panic value, as far as it can be told without fmt
// (which every instrumented program would carry): an error's or a
// Stringer's text, a string, a number, or else its type.
func panicText(v any) (s string) {
	defer func() {
		if recover() != nil {
			s = "(a panic value whose method panicked)"
		}
	}()
	switch v := v.(type) {
	case error:
		return v.Error()
	case interface{ String() string }:
		return v.String()
	case string:
		return v
	}
	r := reflect.ValueOf(v)
	switch {
	case r.CanInt():
		return strconv.FormatInt(r.Int(), 10)
	case r.CanUint():
		return strconv.FormatUint(r.Uint(), 10)
	case r.CanFloat():
		return strconv.FormatFloat(r.Float(), 'g', -1, 64)
	case r.Kind() == reflect.Bool:
		return strconv.FormatBool(r.Bool())
	}
	return "(" + r.Type().String() + " value)"
}

// unwindingBy says how the function fn, whose deferred call is running,
// is ending without a return statement: "panic" or "goexit" (the
// innermost of the two, if a deferred call panicked during a Goexit), or
// "" for a return after a recovered panic.
func unwindingBy(fn string) string {
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			return "panic"
		case f.Function == "runtime.Goexit" || f.Function == "runtime.goexit0":
			return "goexit"
		case f.Function == fn && fn != "":
			return ""
		}
		if !more {
			return "panic" // deeper than we looked, as unwindingAt says
		}
	}
}
