// Package costbench measures what instrumentation costs a program while
// nothing is armed: small methods (a getter, a setter, an error-returning
// method, one that calls errors.New) and a method that calls another,
// benchmarked plain and in a detect build side by side:
//
//	go test -run '^$' -bench . -count 6 ./internal/costbench > plain.txt
//	go test -toolexec atomicx -run '^$' -bench . -count 6 ./internal/costbench > detect.txt
//	benchstat plain.txt detect.txt
//
// A counter behind a lock measures what the lock hooks of a detect build
// cost (see rt.Took).
//
// The repository's policy (atomicheck.toml) selects the package for
// detection, so the second command instruments it.
package costbench

import (
	"errors"
	"sync"
)

// Counter is a bounded counter.
type Counter struct{ n, max int }

// Get returns the count.
func (c *Counter) Get() int { return c.n }

// Set sets the count.
func (c *Counter) Set(n int) { c.n = n }

// ErrFull is the error of an addition past the bound.
var ErrFull = errors.New("full")

// Add adds d, or fails with ErrFull.
func (c *Counter) Add(d int) error {
	if c.n+d > c.max {
		return ErrFull
	}
	c.n += d
	return nil
}

// Check fails when the count went past the bound: a method that calls an
// inlinable function (errors.New).
func (c *Counter) Check() error {
	if c.n > c.max {
		return errors.New("past the bound")
	}
	return nil
}

// AddTwice adds d twice: a method that calls others, whose call sites are
// injection points.
func (c *Counter) AddTwice(d int) error {
	if err := c.Add(d); err != nil {
		return err
	}
	return c.Add(d)
}

// SafeCounter is a Counter for several goroutines.
type SafeCounter struct {
	mu sync.Mutex
	c  Counter
}

// Add adds d under the lock, or fails with ErrFull: the lock idiom, which
// a detect build follows with a lock hook.
func (s *SafeCounter) Add(d int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Add(d)
}
