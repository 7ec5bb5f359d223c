package m

import (
	"errors"
	"fmt"
	"sort"
)

var errBad = errors.New("bad")

type item struct{ n int }

type Table struct {
	rows  map[string]int
	items []*item
	hist  []int
	last  string
	ratio map[float64]int
	count map[int]int
}

// Alias writes through a pointer and a slice taken from the receiver.
func (t *Table) Alias(k string) error {
	p := t.items[0]
	p.n++
	h := t.hist
	h[0] = 7
	q := &t.hist[1]
	*q += 2
	return errBad
}

// Grow assigns and deletes map entries and grows a slice.
func (t *Table) Grow(k string, v int) error {
	t.rows[k] = v
	delete(t.rows, "gone")
	t.count[v]++
	t.hist = append(t.hist, v)
	t.hist[len(t.hist)-1]++
	t.last = fmt.Sprintf("%s=%d", k, v)
	return errBad
}

// Remove drops hist[i] in place: the append writes over the elements
// after it.
func (t *Table) Remove(i int) error {
	t.hist = append(t.hist[:i], t.hist[i+1:]...)
	n := copy(t.hist, t.hist[1:])
	clear(t.hist[n:])
	return errBad
}

// Labelled writes after a label and in a case clause.
func (t *Table) Labelled(k string) error {
again:
	t.rows[k]++
	switch len(t.rows) {
	case 1:
		t.last = k
		goto again
	}
	return nil
}

// Local writes only its own variables and a copy of a struct.
func (t *Table) Local(x item) (int, error) {
	var tmp [2]int
	tmp[1] = x.n
	x.n++
	return tmp[1] + x.n, nil
}

// Init writes in an if statement's init: the checkpoint stays.
func (t *Table) Init(k string) error {
	if t.last = k; t.last == "" {
		return errBad
	}
	return nil
}

// Sorted hands its slice to the standard library: the checkpoint stays.
func (t *Table) Sorted() error {
	sort.Ints(t.hist)
	return nil
}

// Callee calls a method of its package with a pointer receiver: the
// checkpoint stays.
func (t *Table) Callee() error {
	return t.Alias("x")
}

// Float writes into a map whose keys may be NaNs: the entry is recorded,
// and a NaN key, which no lookup finds, leaves the call unmasked at run
// time.
func (t *Table) Float(f float64) error {
	t.ratio[f] = 1
	return nil
}

type node struct {
	count       int
	left, right *node
}

func (n *node) bump() {
	if n != nil {
		n.count++
		n.left.bump()
		n.right.bump()
	}
}

func reset(n *node, to int) {
	n.count = to
	n.left.bump()
}

type Tree struct {
	root *node
	size int
}

// Bump calls its package's functions: they record their stores in its
// log, through their clones.
func (t *Tree) Bump() error {
	t.root.bump()
	reset(t.root, 3)
	t.size++
	return errBad
}

func check(n int) error {
	if n < 0 {
		return errBad
	}
	return nil
}

// Checked calls a function of its package with plain arguments: it can
// write nothing of the call's, and is called as it is.
func (t *Table) Checked(n int) error {
	if err := check(n); err != nil {
		return err
	}
	t.last = "checked"
	return nil
}

// Expr calls a method through a method expression, whose receiver comes
// before where the log would go: the checkpoint stays.
func (t *Tree) Expr() error {
	(*node).bump(t.root)
	return errBad
}

type Counter struct{ hits, misses int }

// Hit changes a small plain object: a copy at entry costs less than a
// record.
func (c *Counter) Hit() error {
	c.hits++
	return errBad
}

type Big struct{ w [128]int }

// Touch changes one word of a large plain object: recorded.
func (b *Big) Touch() error {
	b.w[0]++
	return errBad
}

// Fill stores in a loop, which may write it all: a copy at entry.
func (b *Big) Fill() error {
	for i := range b.w {
		b.w[i] = i
	}
	return errBad
}

// Find searches with a comparison literal, which its own checkpoint
// covers: the literal, called in place and failing only by a panic, is
// not masked itself. The literal it keeps is.
func (t *Table) Find(x int) (func() int, error) {
	i := sort.Search(len(t.hist), func(i int) bool { return t.hist[i] >= x })
	if i == len(t.hist) {
		return nil, errBad
	}
	return func() int { t.hist[i]++; return t.hist[i] }, nil
}

// pair returns two results, which MustPair hands to must: the undo log
// cannot call must's clone with the log beside them, and MustPair keeps
// its whole checkpoint.
func (t *Table) pair() (*Table, error) {
	t.last = "pair"
	return t, nil
}

func must(t *Table, err error) *Table {
	if err != nil {
		panic(err)
	}
	t.hist[0]++
	return t
}

func (t *Table) MustPair() *Table { return must(t.pair()) }
