package m

import (
	"errors"
	"sync"
)

// A package whose language predates any: the lock regions' prologue
// names its slice of locks interface{}.

type Cache struct {
	lock  sync.Mutex
	items map[string]int
}

func (c *Cache) Put(k string, v int) error {
	if k == "" {
		return errors.New("empty key")
	}
	c.lock.Lock()
	c.items[k] = v
	full := len(c.items) > 8
	c.lock.Unlock()
	if full {
		return errors.New("full")
	}
	return nil
}
