package m

import (
	"errors"
	"io"
)

var errBad = errors.New("bad")

// Roller is implemented out of the build's sight.
type Roller interface {
	RollByte(b byte) uint64
}

type Table struct {
	hr    Roller
	next  Roller
	count int
	sums  []uint64
}

// Hash calls a method of an interface in a loop, on the same value in
// every iteration: what it reaches is recorded once, at the first
// iteration.
func (t *Table) Hash(p []byte) error {
	var h uint64
	for _, b := range p {
		t.count++ // no part of t.hr
		h = t.hr.RollByte(b)
	}
	t.sums = append(t.sums, h)
	if h == 0 {
		return errBad
	}
	return nil
}

// ReadVarint reads through a reader its caller handed in.
func ReadVarint(r io.ByteReader, dst *uint64) error {
	var x uint64
	var s uint
	for i := 0; i < 10; i++ {
		b, err := r.ReadByte()
		if err != nil {
			return err
		}
		if b < 0x80 {
			*dst = x | uint64(b)<<s
			return nil
		}
		x |= uint64(b&0x7f) << s
		s += 7
	}
	return errBad
}

// Rows: the flag goes before the label of the outer loop, over which
// the reader is the same.
func (t *Table) Rows(r io.ByteReader, rows, cols int) error {
outer:
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			b, err := r.ReadByte()
			if err != nil {
				return err
			}
			if b == 0 {
				continue outer
			}
			t.count++
		}
	}
	return nil
}

// Swap replaces the roller it calls in the loop: a record per iteration,
// so it keeps its whole checkpoint.
func (t *Table) Swap(p []byte) error {
	for _, b := range p {
		t.hr, t.next = t.next, t.hr
		t.hr.RollByte(b)
	}
	t.count++
	return errBad
}

// Each calls a different roller per iteration.
func (t *Table) Each(rs []Roller) error {
	for _, r := range rs {
		r.RollByte(1)
	}
	t.count++
	return errBad
}

// Jump has a goto that a declaration before the loop would be jumped
// over by.
func (t *Table) Jump(p []byte) error {
	if len(p) == 0 {
		goto done
	}
	for _, b := range p {
		t.hr.RollByte(b)
	}
done:
	t.count++
	return errBad
}

// Link stores a reference in the loop, which could link more memory to
// what the roller reaches: a record per iteration, so it keeps its
// whole checkpoint.
func (t *Table) Link(p []byte) error {
	for _, b := range p {
		t.sums = append(t.sums, 1)
		t.hr.RollByte(b)
	}
	return errBad
}
