package m

import (
	"errors"
	"sync"
	"sync/atomic"
)

var errBad = errors.New("bad")

// Counter holds plain values only: copied whole.
type Counter struct {
	n    int
	name string
	last [4]int
}

func (c *Counter) Add(k int, p *int) error {
	c.n += k
	*p = k
	if c.n > 10 {
		return errBad
	}
	return nil
}

// Account has locks: copied field by field around them.
type Account struct {
	mu    sync.Mutex
	bal   int
	hist  [3]int
	calls atomic.Int64
	inner struct {
		mu sync.RWMutex
		x  int
	}
}

func (a *Account) Withdraw(n int, opts Counter) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bal -= n
	if a.bal < 0 {
		return errBad
	}
	return nil
}

// Merge reaches a map: a generated graph checkpoint saves it.
func (c *Counter) Merge(m map[string]int) error {
	m["x"] = c.n
	return errBad
}

// Pipe holds a channel: a note says what a rollback cannot undo.
type Pipe struct {
	ch chan int
	n  int
}

func (p *Pipe) Send(x int) error {
	p.n++
	p.ch <- x
	return nil
}

type Pos struct{ x, y int }

type Ints []int

// Table reaches slices, maps and pointers of plain values: generated.
type Table struct {
	mu   sync.Mutex
	rows map[string]int
	cur  *Pos
	hist Ints
	meta struct {
		tags []string
		n    int
	}
}

func (t *Table) Put(k string, v int) error {
	t.rows[k] = v
	t.hist = append(t.hist, v)
	if v < 0 {
		return errBad
	}
	return nil
}

// Tree reaches pointers to structs that reach further: a generated graph
// checkpoint follows them.
type Tree struct {
	root *node
}

type node struct {
	kids []*node
}

func (t *Tree) Grow() error {
	t.root = &node{}
	return errBad
}
