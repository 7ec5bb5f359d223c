package vec

import (
	"errors"
	"fmt"
)

var ErrFull = errors.New("full")

type Vector struct {
	size int
	data []byte
}

// Alloc grows the vector: not failure atomic.
func (v *Vector) Alloc(n int) ([]byte, error) {
	v.size += n
	if v.size > 10 {
		return nil, ErrFull
	}
	v.data = append(v.data, make([]byte, n)...)
	return v.data[v.size-n:], nil
}

func (v *Vector) Len() int { return v.size }

func (Vector) Name(_ string, n int) (s string, err error) {
	if err := check(); err != nil {
		return "", fmt.Errorf("name: %w", err)
	}
	s = "v"
	return
}

func (v *Vector) Reset() {
	if v == nil {
		return
	}
	v.size = 0
}

func check() error { return nil }

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(x T) error {
	s.items = append(s.items, x)
	return nil
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

//go:nosplit
func fast() int { return 1 }

func (*Vector) unnamed(string, int) (int, error) { return 0, nil }

func single() error {
	return ErrFull
}

func pair() (a, _ int) { return 1, 2 }

type wrapErr struct{ cause error }

func (w *wrapErr) Error() string { return "wrapped" }

// Unwrap returns its error as data: no failure, no injection point.
func (w *wrapErr) Unwrap() error { return w.cause }
