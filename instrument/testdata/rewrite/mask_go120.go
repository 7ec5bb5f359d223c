package m

import (
	"errors"
	"sync"
)

// The package is at go1.20: generated code may be generic but may not
// use clear, so a receiver that reaches a map goes to the runtime, and
// the others still get generated code.

var errBad = errors.New("bad")

type Index struct {
	mu   sync.Mutex
	keys map[string]int
	n    int
}

func (x *Index) Add(k string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.keys[k] = x.n
	x.n++
	if k == "" {
		return errBad
	}
	return nil
}

type Stats struct {
	mu   sync.Mutex
	hist []int
	last *[2]float64
	n    int
}

func (s *Stats) Record(v int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist = append(s.hist, v)
	s.n++
	if v < 0 {
		return errBad
	}
	return nil
}
