package rt

import (
	"runtime"
	"strconv"
	"sync"
)

// active holds the calls in progress during a profile run, so that each
// point reached can log which calls were on the stack: the calls that an
// experiment injecting there must snapshot. Outside a profile run it
// stays empty.
var active struct {
	sync.Mutex
	calls  map[*Site][]uint64 // call numbers of the calls of a function in progress
	byFunc map[string]*Site   // entry site by runtime.Func.Name()
}

func pushActive(s *Site, n uint64) {
	active.Lock()
	defer active.Unlock()
	if active.calls == nil {
		active.calls, active.byFunc = map[*Site][]uint64{}, map[string]*Site{}
	}
	active.calls[s] = append(active.calls[s], n)
	active.byFunc[s.Func] = s
}

func popActive(s *Site, n uint64) {
	active.Lock()
	defer active.Unlock()
	ns := active.calls[s]
	for i := len(ns) - 1; i >= 0; i-- {
		if ns[i] == n {
			active.calls[s] = append(ns[:i], ns[i+1:]...)
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
	active.Lock()
	defer active.Unlock()
	for {
		f, more := frames.Next()
		if s := active.byFunc[f.Function]; s != nil && !seen[s] {
			seen[s] = true
			for _, n := range active.calls[s] {
				if len(b) > 0 {
					b = append(b, ';')
				}
				b = strconv.AppendUint(b, n, 10)
				b = append(b, '@')
				b = append(b, s.ID...)
			}
		}
		if !more {
			return string(b)
		}
	}
}
