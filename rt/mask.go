package rt

import (
	"math"
	"reflect"
	"unsafe"
)

// Masking: a masked function takes a checkpoint of its object graph at
// entry and, when it fails, writes every object of that graph back at its
// own address, so that every reference to it stays valid. Nothing here
// reads the environment or writes anywhere: a masking build cannot be
// made to fail or log.

// Checkpoint is the object graph of one call of a masked function, as it
// was at entry.
type Checkpoint struct {
	fn   string
	snap *snapshot
}

// Mask takes the checkpoint of a call of the masked function of site s:
// the graph reachable from roots (receiver and arguments, pointers or
// values) and, when the site watches them, the package-level variables.
// Nothing limits its size: a rollback must be complete.
func Mask(s *Site, roots ...any) *Checkpoint {
	if g := s.Globals; g != nil {
		roots = append(roots[:len(roots):len(roots)], g.Addrs()...)
	}
	snap, ok := takeSnapshot(roots, math.MaxInt)
	if !ok {
		return nil // a graph the walk cannot handle: the call runs unmasked
	}
	return &Checkpoint{fn: s.Func, snap: snap}
}

// Rollback runs when the masked call ends, deferred before the function's
// own deferred calls so that it runs after them (and, for the lock idiom,
// deferred after the unlock so that it runs before it). done says whether
// the function passed a return statement; errp points at its error result
// (nil when it has none). On failure — an error returned, or a panic or
// runtime.Goexit going through — the graph gets its entry contents back.
// A panic is neither recovered nor re-raised: its value and stack are the
// original ones.
func (c *Checkpoint) Rollback(done *bool, errp *error) {
	if c == nil {
		return
	}
	if errp != nil && *errp != nil || !*done && Unwinding(c.fn) {
		c.snap.restore()
	}
}

// Unwinding reports whether the function fn, whose deferred call is
// running, is ending because of a panic or runtime.Goexit rather than a
// return after a recovered panic. Generated rollback code calls it only
// when the function did not pass a return statement.
func Unwinding(fn string) bool { return unwinding(fn) }

// restore writes every saved object back at its original address, skips
// the fields of sync and sync/atomic types (a lock keeps whatever state it
// has now), and refills each saved map with its saved entries. Objects the
// call allocated are left alone: nothing in the restored graph refers to
// them any more.
func (s *snapshot) restore() {
	for k, c := range s.objects {
		copyValue(k.addr, c, k.plan)
	}
	for k, c := range s.arrays {
		if !k.elem.hasIgnored {
			reflect.Copy(sliceAt(k.elem.typ, k.data, k.len), sliceAt(k.elem.typ, c, k.len))
			continue
		}
		for i := range k.len {
			off := uintptr(i) * k.elem.size
			copyValue(unsafe.Add(k.data, off), unsafe.Add(c, off), k.elem)
		}
	}
	for k, sm := range s.maps {
		hmap := k.addr
		m := reflect.NewAt(k.plan.typ, unsafe.Pointer(&hmap)).Elem()
		m.Clear()
		kp, vp := k.plan.key, k.plan.elem
		for i := range sm.n {
			m.SetMapIndex(reflect.NewAt(kp.typ, unsafe.Add(sm.keys, uintptr(i)*kp.size)).Elem(),
				reflect.NewAt(vp.typ, unsafe.Add(sm.vals, uintptr(i)*vp.size)).Elem())
		}
	}
}

// sliceAt is the slice of the n values of type t at data.
func sliceAt(t reflect.Type, data unsafe.Pointer, n int) reflect.Value {
	return reflect.NewAt(reflect.SliceOf(t), unsafe.Pointer(&sliceHeader{data, n, n})).Elem()
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}
