package rt

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recurseActive enters a call of s at each of depth levels, as a profile
// run does, and returns what activeStack says at the deepest.
func recurseActive(s *Site, depth int) string {
	n, inSlot := enterActive(s)
	defer exitActive(s, n, inSlot)
	if depth == 1 {
		stack, _ := activeStack(nil)
		return stack
	}
	return recurseActive(s, depth-1)
}

// recurseAfterReturn enters a call of s, in which another call of s
// begins and ends, then returns what activeStack says.
func recurseAfterReturn(s *Site) string {
	n, inSlot := enterActive(s)
	defer exitActive(s, n, inSlot)
	m, in := enterActive(s)
	exitActive(s, m, in)
	stack, _ := activeStack(nil)
	return stack
}

func activeTestSite(t *testing.T, fn string) *Site {
	pc, _, _, _ := runtime.Caller(1)
	self := runtime.FuncForPC(pc).Name()
	return &Site{ID: "S", Func: self[:strings.LastIndex(self, ".")+1] + fn}
}

// checkIdle fails the test unless no call of s is in progress and n were
// numbered.
func checkIdle(t *testing.T, s *Site, n uint64) {
	t.Helper()
	if got := s.activeCalls(); len(got) != 0 || s.calls.Load() != n || s.slotKnown {
		t.Errorf("after the calls: in progress %v, count %#x, slot known %v; want none, %d, false", got, s.calls.Load(), s.slotKnown, n)
	}
}

func TestActiveCalls(t *testing.T) {
	s := activeTestSite(t, "recurseActive")
	tests := []struct {
		depth int
		want  string
	}{
		{1, "1@S"},   // in the slot
		{3, "1-3@S"}, // recursion: the slot, then the list
		{5, "1-5@S"},
		{20000, "1-20000@S"}, // one run, however deep
	}
	for _, tt := range tests {
		s.calls.Store(0)
		if got := recurseActive(s, tt.depth); got != tt.want {
			t.Errorf("depth %d: activeStack = %q, want %q", tt.depth, got, tt.want)
		}
		checkIdle(t, s, uint64(tt.depth))
	}
}

// TestActiveSlotAfterReturn: the call in the slot is named by its number,
// not by the count, once a later call of the function has come and gone.
func TestActiveSlotAfterReturn(t *testing.T) {
	s := activeTestSite(t, "recurseAfterReturn")
	for range 2 {
		s.calls.Store(0)
		if got, want := recurseAfterReturn(s), "1@S"; got != want {
			t.Errorf("activeStack = %q, want %q", got, want)
		}
		checkIdle(t, s, 2)
	}
}

// TestActiveInterleaved: calls of one function on several goroutines end
// in another order than they began.
func TestActiveInterleaved(t *testing.T) {
	s := &Site{ID: "S", Func: "example.com/m.F"}
	type step struct {
		enter bool
		call  uint64 // the call that ends, or that begins
		want  []uint64
	}
	steps := []step{
		{true, 1, []uint64{1}},    // slot
		{true, 2, []uint64{1, 2}}, // list; the slot's number is written down
		{false, 1, []uint64{2}},   // the slot is free
		{true, 3, []uint64{3, 2}}, // slot again, its number the count
		{true, 4, []uint64{3, 2, 4}},
		{false, 3, []uint64{2, 4}},
		{false, 4, []uint64{2}},
		{true, 5, []uint64{5, 2}},
		{false, 5, []uint64{2}},
		{false, 2, nil},
	}
	inSlot := map[uint64]bool{}
	for i, st := range steps {
		if st.enter {
			n, in := enterActive(s)
			if n != st.call {
				t.Fatalf("step %d: call numbered %d, want %d", i, n, st.call)
			}
			inSlot[n] = in
		} else {
			exitActive(s, st.call, inSlot[st.call])
		}
		if got := s.activeCalls(); !slices.Equal(got, st.want) {
			t.Errorf("step %d: in progress %v, want %v", i, got, st.want)
		}
	}
	checkIdle(t, s, 5)
}

// TestActiveConcurrent: whatever other goroutines do, a call in progress
// is among the calls in progress, and every call, once ended, is gone.
func TestActiveConcurrent(t *testing.T) {
	s := &Site{ID: "S", Func: "example.com/m.F"}
	const goroutines, calls = 8, 500
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				n, in := enterActive(s)
				if !slices.Contains(s.activeCalls(), n) {
					t.Errorf("call %d (in the slot: %v) is not among the calls in progress", n, in)
				}
				exitActive(s, n, in)
			}
		}()
	}
	wg.Wait()
	checkIdle(t, s, goroutines*calls)
}

// TestCopySite: a frame whose name is a copy of a registered function
// literal's (the literal's function inlined into another) is the
// literal's, and is registered; no other frame is.
func TestCopySite(t *testing.T) {
	saved := activeSites.byFunc
	t.Cleanup(func() { activeSites.byFunc = saved })
	lit := &Site{ID: "L", Func: "example.com/m.F.func1", Literal: true}
	gen := &Site{ID: "G", Func: "example.com/m.F[...].func2", Literal: true}
	fn := &Site{ID: "F", Func: "example.com/m.F"}
	activeSites.byFunc = map[string]*Site{lit.Func: lit, gen.Func: gen, fn.Func: fn}
	for _, tt := range []struct {
		name string
		want *Site
	}{
		{"example.com/m.G.F.func1", lit},
		{"example.com/m.(*T).G.F.func1", lit},
		{"example.com/m.H.G.F.func1", lit},
		{"example.com/m.G.F[...].func2", gen},
		{"example.com/m.G.F", nil}, // a function, not a literal: never inlined with Exit deferred
		{"example.com/m.G.F.func3", nil},
		{"example.com/m.F.func1.1", nil},
		{"example.com/other.G.F.func1", nil},
		{"runtime.goexit", nil},
	} {
		activeSites.Lock()
		got := copySite(tt.name)
		activeSites.Unlock()
		if got != tt.want {
			t.Errorf("copySite(%q) = %v, want %v", tt.name, got, tt.want)
		}
		if tt.want != nil && activeSites.byFunc[tt.name] != tt.want {
			t.Errorf("copySite(%q) did not register the name", tt.name)
		}
	}
}

// TestActiveLiteralCopy: a profile run's call of a function literal that
// runs as a copy of its code is on the stack of a point reached inside
// it, though the call never learnt the name of its frame.
func TestActiveLiteralCopy(t *testing.T) {
	useRun(t, "", [5]string{"1", "", "none", "", ""})
	config.enabled = true
	saved := activeSites.byFunc
	t.Cleanup(func() { activeSites.byFunc = saved })
	activeSites.byFunc = nil
	var s *Site
	var stack string
	func() {
		// To the runtime, this literal (pkg.TestActiveLiteralCopy.funcN)
		// is a copy of the site's literal pkg.funcN, inlined into the test.
		pc, _, _, _ := runtime.Caller(0)
		self := runtime.FuncForPC(pc).Name()
		fn := self[:strings.LastIndex(self, "/")+1] + "rt" + self[strings.LastIndex(self, "."):]
		s = &Site{ID: fn + "#entry", Func: fn, Kind: EntrySite, Literal: true}
		c := Begin(s)
		defer c.Exit(new(int32), nil)
		stack, _ = activeStack(nil)
	}()
	if want := "1@" + s.ID; stack != want {
		t.Errorf("stack inside the literal = %q, want %q", stack, want)
	}
}
