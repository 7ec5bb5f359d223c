package rt

import (
	"runtime"
	"strconv"
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

// pushActive records call n of s as in progress. frame is the name the
// function's frames show: a function literal may
// run under several (see Site.Literal), each registered when first seen.
func pushActive(s *Site, frame string, n uint64) {
	if !s.registered.Load() || s.Literal {
		activeSites.Lock()
		if activeSites.byFunc == nil {
			activeSites.byFunc = map[string]*Site{}
		}
		activeSites.byFunc[frame] = s
		s.registered.Store(true)
		activeSites.Unlock()
	}
	s.activeMu.Lock()
	s.active = append(s.active, n)
	s.activeMu.Unlock()
}

func popActive(s *Site, n uint64) {
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
// calling goroutine's stack, as "N@SITE;N@SITE". A function that has
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
			s.activeMu.Lock()
			for _, n := range s.active {
				if len(b) > 0 {
					b = append(b, ';')
				}
				b = strconv.AppendUint(b, n, 10)
				b = append(b, '@')
				b = append(b, s.ID...)
			}
			s.activeMu.Unlock()
		}
		if !more {
			return string(b)
		}
	}
}
