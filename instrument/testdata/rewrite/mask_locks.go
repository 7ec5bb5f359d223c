package m

import (
	"errors"
	"sync"
)

var errFull = errors.New("full")

type Reg struct {
	mu    sync.RWMutex
	names map[string]int
	other *Other
}

type Other struct {
	mu sync.Mutex
	n  int
}

// Put opens with the lock idiom: masked under its lock.
func (r *Reg) Put(k string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.names) > 3 {
		return errFull
	}
	r.names[k] = 1
	return nil
}

// Rename locks mid-body, and fails after its unlock: not masked.
func (r *Reg) Rename(a, b string) error {
	if a == "" {
		return errFull
	}
	r.mu.Lock()
	delete(r.names, a)
	_, taken := r.names[b]
	r.mu.Unlock()
	if taken {
		return errFull
	}
	return nil
}

// RenameAnyway is Rename, masked as the policy says.
func (r *Reg) RenameAnyway(a, b string) error {
	r.mu.Lock()
	delete(r.names, a)
	r.mu.Unlock()
	return errFull
}

// Try takes its lock with TryLock: not masked.
func (r *Reg) Try(k string) error {
	if !r.mu.TryLock() {
		return errFull
	}
	r.names[k] = 2
	r.mu.Unlock()
	return nil
}

// Upgrade reads under RLock, then writes under Lock: not masked.
func (r *Reg) Upgrade(k string) error {
	r.mu.RLock()
	_, ok := r.names[k]
	r.mu.RUnlock()
	if ok {
		return errFull
	}
	r.mu.Lock()
	r.names[k] = 3
	r.mu.Unlock()
	return nil
}

// PutAll calls Put, which locks: not masked.
func (r *Reg) PutAll(ks []string) error {
	for _, k := range ks {
		if err := r.Put(k); err != nil {
			return err
		}
	}
	return nil
}

// Bump opens with the lock idiom and takes another lock: not masked.
func (r *Reg) Bump() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.other.mu.Lock()
	r.other.n++
	r.other.mu.Unlock()
	return errFull
}

type group struct{}

func (group) Go(f func() error) {}

// Watch starts literals as goroutines: they are not masked.
func (r *Reg) Watch(names map[string]int, g group) {
	go func() {
		names["x"] = 1
		panic(errFull)
	}()
	g.Go(func() error {
		names["y"] = 2
		return errFull
	})
}
