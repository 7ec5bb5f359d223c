package rt

import (
	"sync"
	"unsafe"
)

// Visited is the set of objects, backing arrays and maps of one type that
// a generated checkpoint has saved already. Generated code keeps one per
// type that can be shared or lie on a cycle (a linked list, a tree, a
// graph), so that each object is saved once and a cycle ends the walk; a
// type that can do neither needs none. Addresses go in an open-addressing
// table rather than a Go map: a checkpoint adds every node of a list to
// it, and a map insertion costs several times the copy of a node. The
// zero value is an empty set.
//
// Addresses are kept as numbers, out of the collector's sight (no write
// barriers, nothing to scan): the checkpoint that fills the set holds
// every object it names, and those are heap objects, which do not move.
type Visited struct {
	slots []uintptr // 0 is a free slot
	n     int
	shift uint // 64 - log2(len(slots))
	// arrays holds the backing arrays of slices, by address and the length
	// the slice shows: slices of one array with other lengths are saved
	// apart, as the reflective checkpoint does.
	arrays map[visitedArray]struct{}
}

type visitedArray struct {
	p uintptr
	n int
}

// VisitPtr adds the object p points at, and reports whether it was not in
// the set yet. p is not nil.
func VisitPtr[T any](v *Visited, p *T) bool {
	return v.add(uintptr(unsafe.Pointer(p)))
}

// VisitSlice adds the elements of s up to its length, and reports whether
// they were not in the set yet. s is not empty.
func VisitSlice[S ~[]E, E any](v *Visited, s S) bool {
	k := visitedArray{uintptr(unsafe.Pointer(unsafe.SliceData(s))), len(s)}
	if _, ok := v.arrays[k]; ok {
		return false
	}
	if v.arrays == nil {
		v.arrays = map[visitedArray]struct{}{}
	}
	v.arrays[k] = struct{}{}
	return true
}

// VisitMap adds map m, and reports whether it was not in the set yet. m
// is not nil.
func VisitMap[M ~map[K]E, K comparable, E any](v *Visited, m M) bool {
	return v.add(*(*uintptr)(unsafe.Pointer(&m)))
}

// maxKeptSlots bounds the table that Reset keeps for the next
// checkpoint: a set that grew for a huge graph is dropped rather than held.
const maxKeptSlots = 1 << 16

// Reset empties the set, keeping its table when it is not large.
func (v *Visited) Reset() {
	if len(v.slots) > maxKeptSlots {
		v.slots, v.shift = nil, 0
	} else {
		clear(v.slots)
	}
	v.n, v.arrays = 0, nil
}

// Pool keeps the generated checkpoints of a package between calls, so
// that a masked call reuses the logs and visited sets of an earlier one
// instead of growing new ones. The generated code empties a checkpoint
// (dropping its references to the user's objects) before it puts it back.
type Pool[T any] struct{ p sync.Pool }

// Get returns an empty checkpoint.
func (p *Pool[T]) Get() *T {
	if x, ok := p.p.Get().(*T); ok {
		return x
	}
	return new(T)
}

// Put hands back a checkpoint emptied by its owner.
func (p *Pool[T]) Put(x *T) { p.p.Put(x) }

// minVisitedSlots is the size of a set's first table.
const minVisitedSlots = 32

func (v *Visited) add(p uintptr) bool {
	if 2*(v.n+1) > len(v.slots) {
		v.grow()
	}
	mask := uintptr(len(v.slots) - 1)
	// Fibonacci hashing: objects are aligned, so the low bits of an
	// address alone spread badly.
	for i := uintptr(uint64(p) * 0x9E3779B97F4A7C15 >> v.shift); ; i = (i + 1) & mask {
		switch v.slots[i] {
		case 0:
			v.slots[i] = p
			v.n++
			return true
		case p:
			return false
		}
	}
}

// grow makes the table four times larger (or makes the first one) and
// adds the addresses again.
func (v *Visited) grow() {
	old := v.slots
	size := max(minVisitedSlots, 4*len(old))
	v.slots = make([]uintptr, size)
	v.shift = 64
	for s := size; s > 1; s >>= 1 {
		v.shift--
	}
	v.n = 0
	for _, p := range old {
		if p != 0 {
			v.add(p)
		}
	}
}
