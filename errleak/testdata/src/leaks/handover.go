package leaks

import "sync"

type database struct {
	mu   sync.Mutex
	open bool
}

type txn struct{ d *database }

// A transaction keeps the database locked until it ends: begin hands the
// lock to its caller on success and releases it on failure.
func (d *database) begin() (*txn, error) {
	d.mu.Lock()
	if !d.open {
		d.mu.Unlock()
		return nil, errBad
	}
	return &txn{d}, nil
}

func (t *txn) end() { t.d.mu.Unlock() } // want end:`releases Unlock of param 0.0.\*.0`

// lock has no error result and holds the lock at every return.
func (d *database) lock() { d.mu.Lock() }

// A failure that keeps the lock is still reported.
func (d *database) beginLeaky(n int) (*txn, error) {
	d.mu.Lock() // want `lock from \(\*sync.Mutex\).Lock is not released \(Unlock\) on the path to the return at line 32`
	if n < 0 {
		return nil, errBad
	}
	return &txn{d}, nil
}

// Released before one successful return, held at another: a leak.
func (d *database) peek(n int) (bool, error) {
	d.mu.Lock() // want `lock from \(\*sync.Mutex\).Lock is not released \(Unlock\) on the path to the return at line 41`
	if n == 0 {
		return false, nil
	}
	d.mu.Unlock()
	return true, nil
}

type solo struct{ mu sync.Mutex }

// Nothing else in the package releases solo.mu: reported.
func (s *solo) grab() error {
	s.mu.Lock() // want `lock from \(\*sync.Mutex\).Lock is not released \(Unlock\) on the path to the return at line 52`
	return nil
}

type journal struct {
	meta, write sync.Mutex
	open        bool
}

// With a defer, the results are stored before the return: the nil error
// is still seen.
func (j *journal) begin() (*journal, error) {
	j.write.Lock()
	j.meta.Lock()
	defer j.meta.Unlock()
	if !j.open {
		j.write.Unlock()
		return nil, errBad
	}
	return j, nil
}

func (j *journal) end() { j.write.Unlock() } // want end:`releases Unlock of param 0.1`
