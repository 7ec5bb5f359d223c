package m

import "errors"

// The generated file tells the packages that import this one what its
// exported functions write (see facts.go): n, nothing their receiver or
// arguments reach; r, only their receiver's fields. The others are left
// out.

var count int

type Inner struct{ x int }

type Cursor struct {
	pos   int
	arr   [4]int
	inner *Inner
	items []int
	*Inner
}

// Pos reads: n.
func (c *Cursor) Pos() int { return c.pos }

// Next writes its fields, an array element among them: r.
func (c *Cursor) Next() bool {
	c.pos++
	c.arr[c.pos%4] = c.pos
	return c.pos < 10
}

// Skip calls Next on its receiver: r.
func (c *Cursor) Skip() { c.Next() }

// Walk calls Next on a cursor of its own: n.
func Walk(n int) int {
	var c Cursor
	for c.Next() {
		n--
	}
	return n
}

// Deep writes through a pointer field: left out.
func (c *Cursor) Deep() { c.inner.x = 1 }

// Promoted writes a field promoted through an embedded pointer: left out.
func (c *Cursor) Promoted() { c.x = 2 }

// Elem writes an element of a slice: left out.
func (c *Cursor) Elem() { c.items[0] = 1 }

// Grow appends: left out.
func (c *Cursor) Grow() { c.items = append(c.items, 1) }

// Global writes a package-level variable: left out.
func (c *Cursor) Global() { count++ }

// Lit holds a function literal: left out.
func (c *Cursor) Lit() { func() { c.pos = 0 }() }

// Send sends on a channel: left out.
func Send(ch chan int) { ch <- 1 }

// Other calls Next on a cursor it is handed: left out.
func Other(c *Cursor) { c.Next() }

// Stepper is an interface: its methods are never listed.
type Stepper interface{ Step() error }

// Fail returns an error it makes: n.
func Fail(s string) error { return errors.New(s) }
