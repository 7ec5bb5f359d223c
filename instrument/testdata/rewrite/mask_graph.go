package m

import (
	"errors"
	"image"
	"sync"
)

var errBad = errors.New("bad")

// List is singly linked: *node lies on a cycle of the type graph, so its
// checkpoint keeps a visited set.
type List struct {
	head *node
	n    int
}

type node struct {
	val  int
	next *node
}

func (l *List) Push(v int) error {
	l.head = &node{v, l.head}
	l.n++
	if v < 0 {
		return errBad
	}
	return nil
}

// Tree nodes have two children and a lock of their own.
type Tree struct {
	root *tnode
}

type tnode struct {
	mu          sync.Mutex
	key         string
	left, right *tnode
	tags        []string
}

func (t *Tree) Insert(k string) error {
	t.root = &tnode{key: k, left: t.root}
	return errBad
}

// Index maps names to items, which no other type points at: no visited
// set.
type Index struct {
	items map[string]*item
	order []item
}

type item struct {
	name  string
	count int
	at    image.Point
	box   *image.Rectangle
}

func (x *Index) Add(name string) error {
	x.items[name] = &item{name: name}
	return errBad
}

// Rename reaches the map and slice of a value argument.
func Rename(x Index, from, to string) error {
	x.items[to] = x.items[from]
	return errBad
}

// Hook holds a func: the runtime checkpoints it.
type Hook struct {
	next *Hook
	f    func()
}

func (h *Hook) Set() error {
	h.f = nil
	return errBad
}

// Named holds an error, an interface: reflective.
type Named struct {
	err  error
	next *Named
}

func (n *Named) Fail() error {
	n.err = errBad
	return errBad
}
