package rt

import (
	"runtime"
	"strings"
	"sync/atomic"
)

// Call is one call of an instrumented function while verdicts are on: the
// snapshot of its object graph taken at entry.
type Call struct {
	site     *Site
	roots    []any
	names    []string
	snap     *snapshot
	tooLarge bool
	seq      uint64 // order of entry among all calls
}

// callSeq numbers calls in the order they are entered. Failure chains use
// it to tell which failures happened inside which calls.
var callSeq atomic.Uint64

// Enter snapshots the object graph that a call of s can reach from its
// receiver and arguments (roots, in the order of s.Roots) and, when the
// site asks for it, from the package-level variables. It returns nil when
// no verdict is wanted; Exit accepts nil.
func Enter(s *Site, roots ...any) *Call {
	if config.logPath == "" || s.Ignored || campaign.beforeFault && injected.fired.Load() {
		return nil
	}
	c := &Call{site: s, roots: roots, seq: callSeq.Add(1)}
	if s.Roots != "" {
		c.names = strings.Split(s.Roots, ",")
	}
	if g := s.Globals; g != nil {
		c.roots = append(c.roots[:len(c.roots):len(c.roots)], g.Addrs()...)
		c.names = append(c.names, strings.Split(g.Names, ",")...)
	}
	for len(c.names) < len(c.roots) {
		c.names = append(c.names, "arg")
	}
	snap, ok := takeSnapshot(c.roots, s.Budget)
	c.snap, c.tooLarge = snap, !ok
	return c
}

// Exit runs when the call ends, deferred by the instrumented function
// before any of its own deferred calls, so that it runs after them.
// done says whether the function passed a return statement; errp points at
// its error result (nil when it has none). A call that ends without
// passing a return is a failure by panic or runtime.Goexit, unless a
// deferred function recovered and the function returns normally.
func (c *Call) Exit(done *bool, errp *error) {
	if c == nil {
		return
	}
	var failure string
	var err error
	switch {
	case !*done && unwinding(c.site.Func):
		failure = "panic"
	case errp != nil && *errp != nil:
		failure, err = "error", *errp
	default:
		c.checkAbsorbed()
		return // a normal return: nothing to compare
	}
	v := verdictEvent{site: c.site, failure: failure, err: err}
	if c.tooLarge {
		v.verdict = "unknown"
		v.reason = "graph too large"
	} else if d, equal := c.snap.firstDiff(c.roots, c.names); equal {
		v.verdict = "atomic"
	} else {
		v.verdict, v.diff = "non-atomic", d
	}
	v.chain, v.injected, v.first = joinChain(c.seq, v.verdict == "non-atomic", err)
	writeVerdict(&v)
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
