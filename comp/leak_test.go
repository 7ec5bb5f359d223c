package comp

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// leakedLine is the line of New in leakStack; ranLine the one in ranStack.
var leakedLine, ranLine int

//go:noinline
func leakStack(actions int) {
	s := New()
	_, _, line, _ := runtime.Caller(0)
	leakedLine = line - 1
	for range actions - 1 {
		s.Push(func() error { return nil })
	}
	// An action that refers to its own stack does not keep it reachable.
	s.Push(func() error { return s.Run() })
	s.PushUndo(func() error { return nil }).Drop() // not counted
}

//go:noinline
func ranStack() {
	s := New()
	_, _, line, _ := runtime.Caller(0)
	ranLine = line - 1
	s.Push(func() error { return nil })
	s.Run()
}

// collectLeaks sets a leak handler that sends what it is given on the
// channel it returns, until the test ends.
func collectLeaks(t *testing.T) <-chan Leak {
	leaks := make(chan Leak, 100)
	previous := SetLeakHandler(func(l Leak) { leaks <- l })
	t.Cleanup(func() { SetLeakHandler(previous) })
	return leaks
}

// nextLeak collects garbage until a leak from this file is reported, and
// fails the test if none is within a few seconds.
func nextLeak(t *testing.T, leaks <-chan Leak) Leak {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		runtime.GC()
		select {
		case l := <-leaks:
			if strings.HasSuffix(l.File, "/comp/leak_test.go") {
				return l
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("no leak reported")
	return Leak{}
}

func TestLeakReported(t *testing.T) {
	leaks := collectLeaks(t)
	ranStack()
	leakStack(2)
	l := nextLeak(t, leaks)
	if l.Line == ranLine {
		t.Fatalf("a stack that ran was reported: %v", l)
	}
	if l.Line != leakedLine || l.Function != "github.com/atomicx/atomicx/comp.leakStack" || l.Actions != 2 {
		t.Errorf("got %+v, want line %d, function comp.leakStack, 2 actions", l, leakedLine)
	}
	wantPrefix := "comp: a Stack created at " + l.File + ":" + strconv.Itoa(leakedLine) + " (github.com/atomicx/atomicx/comp.leakStack) became unreachable with 2 actions that never ran"
	if !strings.HasPrefix(l.String(), wantPrefix) {
		t.Errorf("String() = %q, want it to begin with %q", l.String(), wantPrefix)
	}
	// The stack that ran was collected in the same cycles; a second leak
	// orders one more collection after them.
	leakStack(1)
	if l := nextLeak(t, leaks); l.Line != leakedLine || l.Actions != 1 {
		t.Errorf("got %+v, want the second leaked stack, line %d, 1 action", l, leakedLine)
	}
}

func TestLeakHandlerOff(t *testing.T) {
	previous := SetLeakHandler(nil)
	t.Cleanup(func() { SetLeakHandler(previous) })
	s := New()
	s.Push(func() error { return nil })
	if s.leak != nil {
		t.Error("a stack created with no handler set is tracked for leaks")
	}
	s.Run()
	SetLeakHandler(func(Leak) {})
	s = New()
	if s.leak != nil {
		t.Error("a stack with no entries is tracked for leaks")
	}
	s.Push(func() error { return nil })
	if s.leak == nil {
		t.Error("a stack created with a handler set is not tracked for leaks")
	}
	s.Run()
}

// TestRunDropsActions checks that a stack that has run, but is still
// reachable (from a context, say), no longer keeps what its actions held.
func TestRunDropsActions(t *testing.T) {
	s := New()
	collected := make(chan struct{})
	func() {
		held := new([64]byte)
		runtime.AddCleanup(held, func(ch chan struct{}) { close(ch) }, collected)
		s.Push(func() error { held[0]++; return nil })
	}()
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		runtime.GC()
		select {
		case <-collected:
			runtime.KeepAlive(s)
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("what the action held was not collected after Run")
}
