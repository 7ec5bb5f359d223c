package m

import (
	"errors"
	"sync"
)

var errFull = errors.New("full")

type Vec struct {
	mu   sync.Mutex
	size int
	data []int
}

// Alloc is masked with a checkpoint at entry.
func (v *Vec) Alloc(n int) (int, error) {
	v.size += n
	if v.size > len(v.data) {
		return 0, errFull
	}
	return v.size, nil
}

// Put opens with the lock idiom: the checkpoint comes after the deferred unlock.
func (v *Vec) Put(i, x int) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if i >= len(v.data) {
		return errFull
	}
	v.data[i] = x
	return nil
}

// Late locks halfway: a note says the rollback runs outside the lock.
func (v *Vec) Late(x int) (err error) {
	v.size++
	v.mu.Lock()
	v.data = append(v.data, x)
	v.mu.Unlock()
	return
}

// Twice takes no lock, but Late does: a note says its checkpoint and
// rollback run without it.
func (v *Vec) Twice(x int) error {
	if err := v.Late(x); err != nil {
		return err
	}
	return v.Late(x)
}

// Fill can only fail by panicking.
func (v *Vec) Fill(n int) {
	for i := 0; i < n; i++ {
		v.data[i] = 1
	}
}

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(x T) (n int, err error) {
	s.items = append(s.items, x)
	if len(s.items) > 3 {
		return len(s.items), errFull
	}
	return len(s.items), nil
}
