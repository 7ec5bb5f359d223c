package rt

import (
	"sync"
	"sync/atomic"
)

// readMostly is a map that every goroutine reads, very often, and that
// few writes ever change: a read is an atomic load and a lookup, with no
// lock; a write copies the map, under a lock.
//
// It stands where sync.Map would: a package that names sync.Map compiles
// again the generic hash-trie behind it, some sixty functions, which cost
// the runtime's compile a tenth of its time; the first build of every
// instrumented program waits for that compile.
type readMostly[K comparable, V any] struct {
	mu sync.Mutex // held by writers
	m  atomic.Pointer[map[K]V]
}

// load returns the value stored for k.
func (r *readMostly[K, V]) load(k K) (V, bool) {
	if m := r.m.Load(); m != nil {
		v, ok := (*m)[k]
		return v, ok
	}
	var zero V
	return zero, false
}

// loadOrStore returns the value stored for k, storing v first when there
// is none.
func (r *readMostly[K, V]) loadOrStore(k K, v V) V {
	r.mu.Lock()
	if old, ok := r.load(k); ok {
		v = old
	} else {
		r.storeLocked(map[K]V{k: v})
	}
	r.mu.Unlock()
	return v
}

// storeAll stores the entries of add, in one copy of the map.
func (r *readMostly[K, V]) storeAll(add map[K]V) {
	r.mu.Lock()
	r.storeLocked(add)
	r.mu.Unlock()
}

func (r *readMostly[K, V]) storeLocked(add map[K]V) {
	var n int
	old := r.m.Load()
	if old != nil {
		n = len(*old)
	}
	m := make(map[K]V, n+len(add))
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	for k, v := range add {
		m[k] = v
	}
	r.m.Store(&m)
}
