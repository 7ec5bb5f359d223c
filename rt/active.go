package rt

import (
	"runtime"
	"sync"
)

// During a profile run each entry site keeps the call numbers of its calls
// in progress (Site.active), so that each point reached can log which
// calls were on the stack: the calls that an experiment injecting there
// must snapshot. activeSites finds a site by function name, for the
// frames of a stack.
var activeSites struct {
	sync.Mutex
	byFunc map[string]*Site
}

// registerFrame lists s under the name its frames show. A function
// literal may run under several names (see Site.Literal), each registered
// when first seen (see callerName).
func registerFrame(s *Site, frame string) {
	activeSites.Lock()
	if activeSites.byFunc == nil {
		activeSites.byFunc = map[string]*Site{}
	}
	activeSites.byFunc[frame] = s
	activeSites.Unlock()
}

// pushActive records call n of s as in progress, and reports whether it
// took the site's slot. Most calls run while no other call of their
// function is in progress, and a profile run makes every call come here:
// such a call takes the slot (Site.open) with one compare-and-swap, and
// frees it with one store. A call that finds the slot taken (recursion,
// or another goroutine) goes to the site's list, under its lock.
func pushActive(s *Site, n uint64) (inSlot bool) {
	if !s.registered.Load() {
		if !s.Literal { // a literal registers each name it runs under: see Enter
			registerFrame(s, s.frameName())
		}
		s.registered.Store(true)
	}
	if s.open.CompareAndSwap(0, n) {
		return true
	}
	s.activeMu.Lock()
	s.active = append(s.active, n)
	s.activeMu.Unlock()
	return false
}

// popActive records the end of call n of s.
func popActive(s *Site, n uint64, inSlot bool) {
	if inSlot {
		s.open.Store(0)
		return
	}
	s.activeMu.Lock()
	defer s.activeMu.Unlock()
	for i := len(s.active) - 1; i >= 0; i-- {
		if s.active[i] == n {
			s.active = append(s.active[:i], s.active[i+1:]...)
			return
		}
	}
}

// activeStack returns the calls in progress of the functions on the
// calling goroutine's stack, as "NUMS@SITE;NUMS@SITE" (see appendCalls). A function that has
// several calls in progress (recursion, or other goroutines) contributes
// all of them: a superset costs an experiment a few more snapshots, a
// missing call would cost it a verdict.
func activeStack() string {
	pcs := make([]uintptr, 256)
	for {
		n := runtime.Callers(2, pcs)
		if n < len(pcs) {
			pcs = pcs[:n]
			break
		}
		pcs = make([]uintptr, 2*len(pcs))
	}
	frames := runtime.CallersFrames(pcs)
	var b []byte
	seen := map[*Site]bool{}
	for {
		f, more := frames.Next()
		activeSites.Lock()
		s := activeSites.byFunc[f.Function]
		activeSites.Unlock()
		if s != nil && !seen[s] {
			seen[s] = true
			var nums []uint64
			if n := s.open.Load(); n != 0 {
				nums = append(nums, n)
			}
			s.activeMu.Lock()
			nums = append(nums, s.active...)
			s.activeMu.Unlock()
			if len(nums) > 0 {
				b = appendCalls(b, newCallSet(nums, maxSpans), s.ID)
			}
		}
		if !more {
			return string(b)
		}
	}
}
