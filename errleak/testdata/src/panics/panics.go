// Package panics is analyzed with -panics: a lock held where a function
// panics is reported.
package panics

import "sync"

type store struct {
	mu    sync.Mutex
	items map[string]int
}

func (s *store) put(k string, v int) {
	s.mu.Lock() // want `lock from \(\*sync.Mutex\).Lock is not released \(Unlock\) on the path to the panic at line 15`
	if v < 0 {
		panic("negative value")
	}
	s.items[k] = v
	s.mu.Unlock()
}

func (s *store) deferred(k string, v int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v < 0 {
		panic("negative value")
	}
	s.items[k] = v
}

func (s *store) unlockedFirst(k string, v int) {
	s.mu.Lock()
	if v < 0 {
		s.mu.Unlock()
		panic("negative value")
	}
	s.items[k] = v
	s.mu.Unlock()
}

// A panic on a broken invariant, suppressed for the function.
//
//nolint:errleak // the program cannot go on
func (s *store) invariant(k string) {
	s.mu.Lock()
	if s.items == nil {
		panic("store not initialized")
	}
	delete(s.items, k)
	s.mu.Unlock()
}
