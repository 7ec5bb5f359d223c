package m

import (
	"errors"
	"sync"
)

var errBad = errors.New("bad")

type Store struct {
	mu    sync.Mutex
	n     int
	items []int
	m     map[string]int
}

// PlainPut is failure-oblivious and not masked: its failure is swallowed
// as it is.
func (s *Store) PlainPut(x int) error {
	s.n++
	if x < 0 {
		return errBad
	}
	s.items = append(s.items, x)
	return nil
}

// PlainGrow has no error result: only a panic is swallowed.
func (s *Store) PlainGrow(x int) {
	s.n += x
	if x < 0 {
		panic("negative")
	}
}

// ObPut is masked by the rule and failure-oblivious: rolled back by the
// masking, then swallowed.
func (s *Store) ObPut(x int) (n int, err error) {
	s.n++
	if x < 0 {
		return s.n, errBad
	}
	return s.n, nil
}

// AtomicPut is atomic failure-oblivious: rolled back, then swallowed.
func (s *Store) AtomicPut(x int) error {
	s.items = append(s.items, x)
	if x < 0 {
		return errBad
	}
	return nil
}

// AtomicLocked opens with the lock idiom: rolled back under the lock,
// swallowed after the unlock.
func (s *Store) AtomicLocked(k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k]++
	if k == "" {
		return errBad
	}
	return nil
}

// AtomicAny has a root that only the reflective checkpoint takes.
func AtomicAny(v any, x int) error {
	if x < 0 {
		return errBad
	}
	return nil
}

// AtomicValue has only plain values for roots: nothing to roll back.
func AtomicValue(x int) error {
	if x < 0 {
		return errBad
	}
	return nil
}

// Other is masked and not failure-oblivious.
func (s *Store) Other(x int) error {
	s.n = x
	return errBad
}
