package literals

import (
	"errors"
	"os"
	"sync"
)

var ErrEmpty = errors.New("empty value")

type Store struct {
	mu  sync.Mutex
	m   map[string]string
	log []string
}

// save is a package-level function variable: init.func1.
var save = func(s *Store, k, v string) error {
	s.log = append(s.log, k, os.Args[0])
	if v == "" {
		return ErrEmpty
	}
	s.m[k] = v
	return nil
}

func (s *Store) Put(k, v string) error { return save(s, k, v) }

// Batch captures n and s; its literal returns a named result, and the
// nested literal is (*Store).Batch.func1.1.
func (s *Store) Batch(kv ...string) (n int, err error) {
	apply := func(k, v string) (done bool, err error) {
		n++
		check := func() error {
			if k == "" {
				return ErrEmpty
			}
			return nil
		}
		if err = check(); err != nil {
			return false, err
		}
		return true, save(s, k, v)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if _, err := apply(kv[i], kv[i+1]); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Each calls a variadic literal, defers one, starts one with go, and
// has one with no result that opens with the lock idiom.
func (s *Store) Each(paths ...string) error {
	var wg sync.WaitGroup
	open := func(names ...string) error {
		for _, name := range names {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			f.Close()
		}
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			s.log = append(s.log, "recovered")
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.log = append(s.log, "each")
	}()
	wg.Wait()
	return open(paths...)
}

// Map is generic: its literal is Map[...].func1.
func Map[T any](xs []T, f func(T) (T, error)) ([]T, error) {
	out := xs[:0]
	visit := func(x T) error {
		y, err := f(x)
		if err != nil {
			return err
		}
		out = append(out, y)
		return nil
	}
	for _, x := range xs {
		if err := visit(x); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Locked takes a lock inside a literal: the literal opens with the lock
// idiom, so it is snapshotted under the lock; Locked itself is not.
func (s *Store) Locked(k string) error {
	return func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if k == "" {
			return ErrEmpty
		}
		s.m[k] = ""
		return nil
	}()
}
