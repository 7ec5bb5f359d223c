package comp

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
)

// A Leak describes a Stack that became unreachable with actions left on
// it: a Run that was never called, or a Stack dropped on a path that does
// not reach its deferred Run. Its actions never ran, and never will.
type Leak struct {
	File     string // where New was called
	Line     int
	Function string // the function that called New, e.g. "example.com/m.Copy"
	Actions  int    // the number of actions left on the Stack
}

// String returns the leak as the default handler prints it:
//
//	comp: a Stack created at /src/m/copy.go:12 (example.com/m.Copy) became unreachable with 2 actions that never ran; defer its Run
func (l Leak) String() string {
	actions := "actions"
	if l.Actions == 1 {
		actions = "action"
	}
	return fmt.Sprintf("comp: a Stack created at %s:%d (%s) became unreachable with %d %s that never ran; defer its Run",
		l.File, l.Line, l.Function, l.Actions, actions)
}

var leakHandler atomic.Pointer[func(Leak)]

func init() {
	h := printLeak
	leakHandler.Store(&h)
}

func printLeak(l Leak) {
	fmt.Fprintln(os.Stderr, l)
}

// SetLeakHandler sets the function called with each leaked Stack, and
// returns the one it replaces. The default handler prints the leak's
// String and a newline on standard error. SetLeakHandler(nil) stops the
// reports; the stacks that New creates after it are then not tracked,
// which saves the cost of tracking them.
//
// Leaks are found by the garbage collector, some time after the Stack
// became unreachable, and reported on a goroutine of the runtime that
// runs the cleanups of the whole program one at a time (see
// runtime.AddCleanup): the handler should return quickly.
func SetLeakHandler(h func(Leak)) (previous func(Leak)) {
	var p *func(Leak)
	if h != nil {
		p = &h
	}
	if old := leakHandler.Swap(p); old != nil {
		return *old
	}
	return nil
}

// leakState is what the cleanup of a Stack needs to know about it. It is
// apart from the Stack so that the cleanup does not keep it reachable.
type leakState struct {
	pending atomic.Int64    // the number of entries on the stack
	pc      uintptr         // where New was called
	cleanup runtime.Cleanup // stopped by Run: a stack that has run cannot leak
}

// setPending records n, the number of entries left on the stack; l may be
// nil (a Stack that is not tracked).
func (l *leakState) setPending(n int) {
	if l != nil {
		l.pending.Store(int64(n))
	}
}

// trackLeak arranges for s to be reported if it becomes unreachable with
// entries left.
func trackLeak(s *Stack) *leakState {
	l := &leakState{pc: s.created}
	l.cleanup = runtime.AddCleanup(s, reportLeak, l)
	return l
}

func reportLeak(l *leakState) {
	n := l.pending.Load()
	if n == 0 {
		return
	}
	h := leakHandler.Load()
	if h == nil {
		return
	}
	frame, _ := runtime.CallersFrames([]uintptr{l.pc}).Next()
	(*h)(Leak{File: frame.File, Line: frame.Line, Function: frame.Function, Actions: int(n)})
}
