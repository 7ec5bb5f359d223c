// Package store is a workload for measuring early stop: its test reaches
// every injection point near its start, then runs long.
package store

import "errors"

var errNegative = errors.New("negative key")

// Store maps keys to values.
type Store struct {
	items map[int]int
	puts  int
}

// New returns an empty store.
func New() *Store { return &Store{items: map[int]int{}} }

// check validates a key.
func check(k int) error {
	if k < 0 {
		return errNegative
	}
	return nil
}

// Put stores v under k.
func (s *Store) Put(k, v int) error {
	if err := check(k); err != nil {
		return err
	}
	s.puts++
	s.items[k] = v
	return nil
}

// Fill puts keys from..to-1, skipping those that fail: the failure of a
// Put is absorbed here.
func (s *Store) Fill(from, to int) {
	for k := from; k < to; k++ {
		_ = s.Put(k, k)
	}
}

// Sum adds up every value, many times: the long part of the test.
func (s *Store) Sum(rounds int) int {
	total := 0
	for range rounds {
		for _, v := range s.items {
			total += v
		}
	}
	return total
}
