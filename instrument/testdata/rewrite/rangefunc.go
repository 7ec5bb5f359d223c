package rangefunc

import "iter"

type Bag struct{ items []int }

// Sum ranges over a slice: a leaf, split into a function and its twin.
func (b *Bag) Sum() int {
	n := 0
	for _, v := range b.items {
		n += v
	}
	return n
}

// SumSeq ranges over an iterator, which calls it: not a leaf.
func SumSeq(seq iter.Seq[int]) int {
	n := 0
	for v := range seq {
		n += v
	}
	return n
}
