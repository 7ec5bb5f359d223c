package deferred

import (
	"errors"
	"fmt"
)

type Store struct{ items map[string]int }

// Put wraps any error and recovers panics into the named error result.
func (s *Store) Put(k string, v int) (old int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("put %s: %v", k, r)
		}
	}()
	defer func() {
		if err != nil {
			err = fmt.Errorf("put %s: %w", k, err)
			old = -1
		}
	}()
	if k == "" {
		return 0, errors.New("empty key")
	}
	old = s.items[k]
	s.items[k] = v
	return old, nil
}

// Close overrides a nil error from a deferred call.
func (s *Store) Close() (err error) {
	defer func() {
		if s.items == nil {
			err = errors.New("already closed")
		}
	}()
	s.items = nil
	return nil
}
