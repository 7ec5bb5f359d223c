package rt

import (
	"runtime"
	"strings"
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
// literal may run under several names (see Site.Literal): its own is
// registered at its first call, and the others when a stack walk first
// meets them (see copySite).
func registerFrame(s *Site, frame string) {
	activeSites.Lock()
	if activeSites.byFunc == nil {
		activeSites.byFunc = map[string]*Site{}
	}
	activeSites.byFunc[frame] = s
	activeSites.Unlock()
}

// slotTaken, in Site.calls, says that a call of the site is in progress
// in the site's slot.
const slotTaken = 1 << 63

// enterActive numbers a call of s in a profile run and records it as in
// progress, and reports whether it took the site's slot. Most calls run
// while no other call of their function is in progress, and a profile
// run makes every call come here: such a call takes the slot and its
// number in one compare-and-swap of s.calls, and frees the slot with
// another (see exitActive); the slot's number is the count itself, as no
// other call of s can begin without going through the lock. A call that
// finds the slot taken (recursion, or another goroutine) takes its
// number under the site's lock and goes to its list; the first of them
// writes down the slot's number, which the count no longer is.
func enterActive(s *Site) (n uint64, inSlot bool) {
	if !s.registered.Load() {
		registerFrame(s, s.frameName())
		s.registered.Store(true)
	}
	for {
		old := s.calls.Load()
		if old&slotTaken != 0 {
			break
		}
		if s.calls.CompareAndSwap(old, (old+1)|slotTaken) {
			return old + 1, true
		}
	}
	s.activeMu.Lock()
	v := s.calls.Add(1)
	n = v &^ slotTaken
	if v&slotTaken != 0 && !s.slotKnown {
		s.slot, s.slotKnown = n-1, true
	}
	s.active = append(s.active, n)
	s.activeMu.Unlock()
	return n, false
}

// exitActive records the end of call n of s.
func exitActive(s *Site, n uint64, inSlot bool) {
	if inSlot {
		if s.calls.CompareAndSwap(n|slotTaken, n) {
			return // no call of s began since this one
		}
		s.activeMu.Lock()
		s.slotKnown = false
		s.calls.And(^uint64(slotTaken))
		s.activeMu.Unlock()
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

// activeCalls returns the numbers of the calls of s in progress.
func (s *Site) activeCalls() []uint64 {
	s.activeMu.Lock()
	defer s.activeMu.Unlock()
	var nums []uint64
	if v := s.calls.Load(); v&slotTaken != 0 {
		// Under the lock, no call of s is numbered while the slot is
		// taken: the count is the slot's unless one was since.
		slot := v &^ slotTaken
		if s.slotKnown {
			slot = s.slot
		}
		nums = append(nums, slot)
	}
	return append(nums, s.active...)
}

// activeStack returns the calls in progress of the functions on the
// calling goroutine's stack, as "NUMS@SITE;NUMS@SITE" (see appendCalls). A function that has
// several calls in progress (recursion, or other goroutines) contributes
// all of them: a superset costs an experiment a few more snapshots, a
// missing call would cost it a verdict.
//
// unnumbered lists, as "SITE;SITE", the functions with more frames on the
// stack than numbered calls in progress: calls past the ones a profile run
// numbers (see campaignSettings.numbered), which no experiment can name.
// reached is the point being reached: when it is a function's entry, that
// function's frame is on the stack, its call not begun yet.
func activeStack(reached *Site) (stack, unnumbered string) {
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
	var order []*Site
	onStack := map[*Site]int{}
	for {
		f, more := frames.Next()
		activeSites.Lock()
		s := activeSites.byFunc[f.Function]
		if s == nil {
			s = copySite(f.Function)
		}
		activeSites.Unlock()
		if s != nil {
			if onStack[s] == 0 {
				order = append(order, s)
			}
			onStack[s]++
		}
		if !more {
			break
		}
	}
	if reached != nil && reached.Kind == EntrySite && onStack[reached] > 0 {
		onStack[reached]--
	}
	var past []string
	for _, s := range order {
		nums := s.activeCalls()
		if len(nums) > 0 {
			b = appendCalls(b, newCallSet(nums, maxSpans), s.ID)
		}
		if campaign.numbered != 0 && onStack[s] > len(nums) {
			past = append(past, s.ID)
		}
	}
	return string(b), strings.Join(past, ";")
}

// copySite finds the function literal whose code runs in the frames named
// name when these are a copy of the literal's (see copiedFrom), and
// registers the name. It is called with activeSites locked. A literal's
// calls do not walk the stack to learn the name they run under: the walks
// of the points reached do it for them, far less often.
func copySite(name string) *Site {
	var found *Site
	copiedFrom(name, func(orig string) bool {
		if s := activeSites.byFunc[orig]; s != nil && s.Literal {
			found = s
		}
		return found != nil
	})
	if found != nil {
		activeSites.byFunc[name] = found
	}
	return found
}
