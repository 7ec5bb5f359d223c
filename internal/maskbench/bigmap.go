package maskbench

// BigMap is an object that holds a large map, of which a call changes
// one entry: a checkpoint of the whole object costs what the map holds,
// an undo log what the call writes.
type BigMap struct {
	m map[int]int
	n int
}

func newBigMap(n int) *BigMap {
	b := &BigMap{m: make(map[int]int, n)}
	for i := range n {
		b.m[i] = i
	}
	return b
}

// PlainSet changes one entry and a counter, then fails if asked.
func (b *BigMap) PlainSet(fail bool) error {
	b.m[b.n%len(b.m)] = b.n
	b.n++
	if fail {
		return errFailed
	}
	return nil
}

// MaskedSet is PlainSet, masked by the policy when built with atomicx.
func (b *BigMap) MaskedSet(fail bool) error {
	b.m[b.n%len(b.m)] = b.n
	b.n++
	if fail {
		return errFailed
	}
	return nil
}
