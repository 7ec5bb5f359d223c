package regions

import (
	"errors"
	"sync"
)

var errTaken = errors.New("taken")

type Cache struct {
	lock  sync.Mutex
	items map[string]int
	inner struct{ mu sync.Mutex }
	next  *Cache
}

// Add locks mid-body: its own lock is named by its receiver at entry.
func (c *Cache) Add(k string, v int) error {
	if k == "" {
		return errTaken
	}
	c.lock.Lock()
	if _, ok := c.items[k]; ok {
		c.lock.Unlock()
		return errTaken
	}
	c.items[k] = v
	c.lock.Unlock()
	return nil
}

// Inner locks through an inline field, and Next through a pointer, which
// could be nil at entry: named by its type.
func (c *Cache) Inner() error {
	c.inner.mu.Lock()
	c.inner.mu.Unlock()
	c.next.lock.Lock()
	defer c.next.lock.Unlock()
	return errTaken
}

type Registry struct {
	sync.RWMutex
	names map[string]int
}

// Move reads under the read lock, then writes under the lock, embedded.
func (r *Registry) Move(old, new string) error {
	r.RLock()
	_, ok := r.names[old]
	r.RUnlock()
	if !ok {
		return errTaken
	}
	r.Lock()
	defer r.Unlock()
	r.names[new] = r.names[old]
	return nil
}

// Try gives up when the lock is busy.
func (r *Registry) Try(n string) error {
	if !r.TryLock() {
		return errTaken
	}
	defer r.Unlock()
	if r.TryRLock() {
		r.RUnlock()
	}
	r.names[n] = 1
	return nil
}

type shard struct {
	mu sync.Mutex
	m  map[int]int
}

// SetAll locks one shard at a time: named by their type.
func SetAll(shards []*shard, k int) error {
	for _, s := range shards {
		s.mu.Lock()
		if s.m[k] < 0 {
			s.mu.Unlock()
			return errTaken
		}
		s.m[k] = 1
		s.mu.Unlock()
	}
	return nil
}

var (
	mu    sync.Mutex
	count int
)

// Count takes a package-level lock and a lock passed in.
func Count(other *sync.Mutex) error {
	mu.Lock()
	count++
	mu.Unlock()
	other.Lock()
	defer other.Unlock()
	return errTaken
}

// Reassigned points its receiver elsewhere: its lock is named by its
// type.
func (c *Cache) Reassigned() error {
	if c.next != nil {
		c = c.next
	}
	c.lock.Lock()
	defer c.lock.Unlock()
	return errTaken
}

// Each holds the lock across a callback.
func (c *Cache) Each(f func(string, int) error) error {
	c.lock.Lock()
	for k, v := range c.items {
		if err := f(k, v); err != nil {
			c.lock.Unlock()
			return err
		}
	}
	c.lock.Unlock()
	return nil
}

// Locks keeps its locks in a map.
type Locks struct {
	m map[string]*shard
}

// Bump locks a map value's lock: unknown, as the lock cannot be named
// again.
func (l *Locks) Bump(n string) error {
	l.m[n].mu.Lock()
	defer l.m[n].mu.Unlock()
	l.m[n].m[0]++
	return errTaken
}

// BumpLater does the same mid-body.
func (l *Locks) BumpLater(n string) error {
	if n == "" {
		return errTaken
	}
	l.m[n].mu.Lock()
	l.m[n].m[0]++
	l.m[n].mu.Unlock()
	return errTaken
}

// ReleaseInLiteral releases its lock in a deferred function literal: a
// Releasing deferred after it runs first.
func (c *Cache) ReleaseInLiteral() error {
	c.lock.Lock()
	defer func() {
		c.lock.Unlock()
	}()
	return errTaken
}

// LockInDefer takes a lock in a defer statement.
func (c *Cache) LockInDefer() error {
	c.lock.Lock()
	c.lock.Unlock()
	defer c.lock.Lock()
	return errTaken
}

// unlock releases its receiver's lock for its callers.
func (c *Cache) unlock() { c.lock.Unlock() }

// ReleasedByCallee leaves the release of its lock to a callee.
func (c *Cache) ReleasedByCallee() error {
	c.lock.Lock()
	c.unlock()
	return errTaken
}

// ReleaseThroughParameter releases its lock in a deferred literal, under
// another name.
func (c *Cache) ReleaseThroughParameter() error {
	unlock := func(m *sync.Mutex) {
		m.Unlock()
	}
	c.lock.Lock()
	defer unlock(&c.lock)
	return errTaken
}

// ReleaseInGoroutine releases its lock in another goroutine.
func (c *Cache) ReleaseInGoroutine() error {
	c.lock.Lock()
	go func() {
		c.lock.Unlock()
	}()
	return errTaken
}
