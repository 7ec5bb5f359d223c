package m

import (
	"bytes"
	"errors"
	"sort"
	"unicode/utf8"
)

var errBad = errors.New("bad")

type node struct{ child, next int32 }

type Parser struct {
	nodes []node
	hist  []int
	seen  int
}

// at is an accessor: a store through what it returns is recorded by
// calling it again.
func (p *Parser) at(h int32) *node { return &p.nodes[h-1] }

// Array binds a literal to a variable that it only calls: the undo log
// of Array records the literal's stores.
func (p *Parser) Array(hs []int32) error {
	var last int32
	link := func(h int32) {
		if last == 0 {
			p.at(1).child = h
		} else {
			p.at(last).next = h
		}
		last = h
	}
	for _, h := range hs {
		if h < 0 {
			return errBad
		}
		link(h)
	}
	return nil
}

// Search hands sort.Search a literal that counts what it compares.
func (p *Parser) Search(x int) error {
	i := sort.Search(len(p.hist), func(i int) bool { p.seen++; return p.hist[i] >= x })
	if i == len(p.hist) {
		return errBad
	}
	return nil
}

// Now calls a literal where it is written.
func (p *Parser) Now() error {
	func() { p.seen = 0 }()
	return errBad
}

// Kept returns the literal it binds, which may run after the call: it
// keeps the checkpoint of its whole graph.
func (p *Parser) Kept() (func(), error) {
	bump := func() { p.seen++ }
	bump()
	return bump, errBad
}

// Go runs the literal it binds in a goroutine too.
func (p *Parser) Go() error {
	bump := func() { p.seen++ }
	bump()
	go func() { bump() }()
	return errBad
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digits calls the function value it is handed: its clone, in the log of
// a masked caller, records at entry what its arguments reach, as its
// whole checkpoint would.
func digits(b []byte, in func(byte) bool) int {
	n := 0
	for n < len(b) && in(b[n]) {
		n++
	}
	return n
}

// Number counts digits through digits, then records its own store.
func (p *Parser) Number(b []byte) error {
	n := digits(b, isDigit)
	p.seen += n
	if n == 0 {
		return errBad
	}
	return nil
}

// First returns, from a loop, what a function of another package makes of
// a slice of the call's: the return runs once, and records what the
// slice reaches before it.
func (p *Parser) First(b []byte) ([]byte, error) {
	for i, c := range b {
		if c == 0 {
			p.seen = i
			return bytes.TrimSpace(b[i:]), errBad
		}
	}
	return nil, nil
}

// Later binds a literal that another literal, which it returns, calls:
// the first may run after the call too, and is masked itself.
func (p *Parser) Later() (func(), error) {
	bump := func() { p.seen++ }
	g := func() { bump() }
	return g, errBad
}

// Valid hands sort.Search a literal that returns what a function of
// another package makes of the call's slice: the literal's return runs
// per step, so the call keeps its whole checkpoint.
func (p *Parser) Valid(b []byte) error {
	i := sort.Search(len(b), func(i int) bool { return utf8.Valid(b[i:]) })
	p.seen = i
	return errBad
}
