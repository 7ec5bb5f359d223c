package locks

import (
	"errors"
	"sync"
)

var ErrEmpty = errors.New("empty value")

type Store struct {
	mu sync.RWMutex
	m  map[string]string
}

// Put opens with the lock idiom: its snapshot is taken with the lock
// held, and compared before the lock is released.
func (s *Store) Put(k, v string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v == "" {
		return ErrEmpty
	}
	s.m[k] = v
	return nil
}

// Get opens with the read-lock idiom.
func (s *Store) Get(k string) (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[k]
	if !ok {
		return "", ErrEmpty
	}
	return v, nil
}

// Swap locks after checking its arguments: it is not snapshotted.
func (s *Store) Swap(k, v string) error {
	if k == "" {
		return ErrEmpty
	}
	s.mu.Lock()
	s.m[k] = v
	s.mu.Unlock()
	return nil
}

// TrySwap tries the lock: it is not snapshotted.
func (s *Store) TrySwap(k, v string) error {
	if !s.mu.TryLock() {
		return ErrEmpty
	}
	defer s.mu.Unlock()
	s.m[k] = v
	return nil
}

// Each locks in a function literal it calls: it is not snapshotted.
func (s *Store) Each(f func(k, v string) error) error {
	get := func(k string) string {
		s.mu.RLock()
		defer s.mu.RUnlock()
		return s.m[k]
	}
	return f("k", get("k"))
}

// Move opens with the lock idiom and takes a second lock: it is not
// snapshotted.
func (s *Store) Move(to *Store, k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	to.m[k] = s.m[k]
	return nil
}

// Cache embeds its lock: the runtime is told of &(c).Mutex.
type Cache struct {
	sync.Mutex
	n map[int]int
}

func (c *Cache) Add(k int) error {
	c.Lock()
	defer c.Unlock()
	c.n[k]++
	return nil
}

// Shared points to its lock, and Guarded locks through an interface.
type Shared struct {
	mu     *sync.RWMutex
	locker sync.Locker
	n      int
}

func (s *Shared) Inc() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return nil
}

func (s *Shared) Guarded() error {
	s.locker.Lock()
	defer s.locker.Unlock()
	s.n--
	return nil
}

var (
	regMu sync.Mutex
	reg   = map[string]int{}
)

// Register takes a package-level lock.
func Register(name string) error {
	regMu.Lock()
	defer regMu.Unlock()
	reg[name]++
	return nil
}

// spin is a lock of its own kind: the runtime is told nothing.
type spin struct{ held bool }

func (l *spin) Lock()   { l.held = true }
func (l *spin) Unlock() { l.held = false }

type Spun struct {
	l spin
	n int
}

func (s *Spun) Inc() error {
	s.l.Lock()
	defer s.l.Unlock()
	s.n++
	return nil
}
