package m

import (
	"errors"
	"sync/atomic"
)

// The package is at go1.20, where a type argument is not inferred from a
// method set: the generated copies of atomic scalars spell it.

var errFull = errors.New("full")

type Gauge struct {
	level atomic.Int32
	on    atomic.Bool
	n     int
}

func (g *Gauge) Raise(by int32) error {
	if g.level.Add(by) > 10 {
		return errFull
	}
	g.on.Store(true)
	return nil
}

type Slots struct {
	used []atomic.Uintptr
}

func (s *Slots) Take(i int) error {
	if s.used[i].Swap(1) != 0 {
		return errFull
	}
	return nil
}
