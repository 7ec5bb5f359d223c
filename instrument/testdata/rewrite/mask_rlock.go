package m

import (
	"errors"
	"sync"
)

var errMissing = errors.New("missing")

type Cache struct {
	mu sync.RWMutex
	m  map[string]int
	n  int
}

// Get opens with a read lock: other readers may clone the map while its
// rollback would refill it. Not masked.
func (c *Cache) Get(k string) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	c.n++
	v, ok := c.m[k]
	if !ok {
		return 0, errMissing
	}
	return v, nil
}

// Put opens with the write lock: masked, rolled back under the lock.
func (c *Cache) Put(k string, v int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = v
	if v < 0 {
		return errMissing
	}
	return nil
}

var (
	mu    sync.RWMutex
	names = map[string]int{}
)

// Lookup opens with a read lock but has only a plain-value root: its
// rollback has nothing to write, so it is masked as it is.
func Lookup(k string) (int, error) {
	mu.RLock()
	defer mu.RUnlock()
	v, ok := names[k]
	if !ok {
		return 0, errMissing
	}
	return v, nil
}
