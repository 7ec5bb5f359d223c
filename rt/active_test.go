package rt

import (
	"runtime"
	"strings"
	"sync"
	"testing"
)

// recurseActive enters a call of s at each of depth levels, as a profile
// run does, and returns what activeStack says at the deepest.
func recurseActive(s *Site, depth int, next *uint64) string {
	*next++
	n := *next
	inSlot := pushActive(s, n)
	defer popActive(s, n, inSlot)
	if depth == 1 {
		return activeStack()
	}
	return recurseActive(s, depth-1, next)
}

func TestActiveCalls(t *testing.T) {
	pc, _, _, _ := runtime.Caller(0)
	self := runtime.FuncForPC(pc).Name()
	s := &Site{ID: "S", Func: strings.TrimSuffix(self, "TestActiveCalls") + "recurseActive"}
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
		var next uint64
		if got := recurseActive(s, tt.depth, &next); got != tt.want {
			t.Errorf("depth %d: activeStack = %q, want %q", tt.depth, got, tt.want)
		}
		if s.open.Load() != 0 || len(s.active) != 0 {
			t.Errorf("depth %d: after the calls, slot %d and list %v are not empty", tt.depth, s.open.Load(), s.active)
		}
	}

	// Other goroutines' calls of the function count too, wherever they
	// are kept; and every call, once ended, is gone.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				n := uint64(1000*(g+1) + i)
				in := pushActive(s, n)
				popActive(s, n, in)
			}
		}()
	}
	wg.Wait()
	if s.open.Load() != 0 || len(s.active) != 0 {
		t.Errorf("after concurrent calls, slot %d and list %v are not empty", s.open.Load(), s.active)
	}
}
