package m

import (
	"errors"
	"sort"
)

var errBad = errors.New("bad")

type Node struct {
	Name string
	Kids []*Node
}

type Tree struct {
	Root  *Node
	Count int
}

// The functions named Trusted* are in the policy's
// callbacks_write_arguments: the function values they call write only
// what their arguments reach.

// TrustedFind calls a comparator of a type parameter's type per step of
// a search: each argument is recorded where it is evaluated, and an
// instantiation whose values hold no reference costs no snapshot.
func TrustedFind[T any](s []T, x T, less func(T, T) bool) (int, error) {
	i := sort.Search(len(s), func(i int) bool {
		return less(x, s[i])
	})
	if i > 0 && !less(s[i-1], x) {
		return i - 1, nil
	}
	return i, errBad
}

// TrustedVisit hands the root to a visitor once, outside a loop.
func (t *Tree) TrustedVisit(f func(*Node) error) error {
	t.Count++
	return f(t.Root)
}

// TrustedScan hands only bytes to its predicate: nothing to record.
func TrustedScan(b []byte, ok func(byte) bool) (int, error) {
	for i, c := range b {
		if !ok(c) {
			return i, errBad
		}
	}
	return len(b), nil
}

// TrustedEach hands a node that holds references to its callback in a
// loop: a snapshot per iteration, so it keeps its whole checkpoint.
func (t *Tree) TrustedEach(f func(*Node) error) error {
	for _, k := range t.Root.Kids {
		if err := f(k); err != nil {
			return err
		}
	}
	t.Count++
	return nil
}

// Find is not in the list: it keeps its whole checkpoint.
func Find[T any](s []T, x T, less func(T, T) bool) (int, error) {
	i := sort.Search(len(s), func(i int) bool {
		return less(x, s[i])
	})
	if i == len(s) {
		return i, errBad
	}
	return i, nil
}
