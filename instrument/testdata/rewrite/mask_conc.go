package m

import (
	"errors"
	"sync"
	"sync/atomic"
)

var errMissing = errors.New("missing")

// Stats holds atomic scalars beside a lock and plain values: generated
// field copies, the atomics copied and restored by Load and Store.
type Stats struct {
	mu   sync.Mutex
	hits atomic.Int64
	ok   atomic.Bool
	n    int
}

func (s *Stats) Lookup(names map[string]int, k string) (int, error) {
	s.hits.Add(1)
	v, found := names[k]
	if !found {
		return 0, errMissing
	}
	s.ok.Store(true)
	return v, nil
}

// Counters reaches atomic scalars through a map of pointers, a slice and
// an array: a generated graph checkpoint.
type Counters struct {
	byName map[string]*atomic.Int64
	all    []atomic.Uint64
	slots  [2]atomic.Uint32
}

func (c *Counters) Bump(k string) error {
	c.all[0].Add(1)
	c.slots[1].Store(3)
	n, ok := c.byName[k]
	if !ok {
		return errMissing
	}
	n.Add(1)
	return nil
}

// Registry holds a sync.Map, an atomic.Pointer and an atomic.Value: the
// runtime's checkpoint, which follows what they hold.
type Registry struct {
	names sync.Map
	cur   atomic.Pointer[Stats]
	cfg   atomic.Value
}

func (r *Registry) Move(from, to string) error {
	v, ok := r.names.LoadAndDelete(from)
	if !ok || to == "" {
		return errMissing
	}
	r.names.Store(to, v)
	return nil
}
