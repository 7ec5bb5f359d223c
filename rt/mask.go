package rt

import (
	"math"
	"reflect"
	"slices"
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
	site *Site
	// snap is the *snapshot: not that type, which reaches reflect's (see
	// callSnapshot), as every masked package names Checkpoint.
	snap unsafe.Pointer
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
	return &Checkpoint{site: s, snap: unsafe.Pointer(snap)}
}

// Rollback runs when the masked call ends, deferred before the function's
// own deferred calls so that it runs after them (and, for the lock idiom,
// deferred after the unlock so that it runs before it). done says whether
// the function passed a return statement; errp points at its error result
// (nil when it has none). On failure — an error returned that does not
// mean done (see Site.Fails), or a panic or runtime.Goexit going
// through — the graph gets its entry contents back.
// A panic is neither recovered nor re-raised: its value and stack are the
// original ones.
func (c *Checkpoint) Rollback(done *bool, errp *error) {
	if c == nil {
		return
	}
	if c.site.failed(errp) || !*done && c.site.unwinding() {
		(*snapshot)(c.snap).restore()
	}
}

// Unwinding reports whether the function fn, whose deferred call is
// running, is ending because of a panic or runtime.Goexit rather than a
// return after a recovered panic. Generated rollback code calls it only
// when the function did not pass a return statement.
func Unwinding(fn string) bool { return unwinding(fn) }

// SameBits reports whether *a and *b hold the same bits. Generated
// rollback code uses it where == cannot tell whether a value changed:
// slice and map headers, and values holding a NaN.
func SameBits[T any](a, b *T) bool {
	return memEqual(unsafe.Pointer(a), unsafe.Pointer(b), unsafe.Sizeof(*a))
}

// restore writes back, at its original address, every saved object,
// array element and map whose contents differ from the checkpoint, and
// nothing else: a failed call that changed nothing writes nothing, so
// that goroutines reading the same objects at the same time (under a
// read lock, or objects shared read-only) never race with its rollback.
// Locks and other synchronisation state are neither compared nor written
// (a lock keeps whatever state it has now); concurrent data is compared
// and stored back through its methods (graph_conc.go). Objects the call
// allocated are left alone: nothing in the restored graph refers to them
// any more. So are the objects that are errors (typePlan.report): what
// the failing path wrote into an error that it returns, or that its
// caller will (a key, a position, a wrapped cause set by a decorator
// that found it with errors.As), is the report of the failure, not a
// change to undo.
func (s *snapshot) restore() {
	for k, c := range s.objects {
		if k.plan.report {
			continue
		}
		restoreValue(k.addr, c, k.plan)
	}
	for k, c := range s.arrays {
		restoreElems(k.data, c, k.elem, k.len)
	}
	var val reflect.Value // one scratch value per map value type
	for k, sm := range s.maps {
		hmap := k.addr
		m := reflect.NewAt(k.plan.typ, unsafe.Pointer(&hmap)).Elem()
		kp, vp := k.plan.keyPlan(), k.plan.elemPlan()
		if !val.IsValid() || val.Type().Elem() != vp.typ {
			val = reflect.New(vp.typ)
		}
		if sameEntries(m, sm, kp, vp, val) {
			continue
		}
		m.Clear()
		for i := range sm.n {
			m.SetMapIndex(reflect.NewAt(kp.typ, unsafe.Add(sm.keys, uintptr(i)*kp.size)).Elem(),
				reflect.NewAt(vp.typ, unsafe.Add(sm.vals, uintptr(i)*vp.size)).Elem())
		}
	}
}

// restoreValue writes the saved value of type pl back at dst where it
// differs from it, skipping ignored fields, which are never read either:
// another goroutine may be using them atomically.
func restoreValue(dst, saved unsafe.Pointer, pl *typePlan) {
	if pl.size == 0 || pl.ignored {
		return
	}
	if pl.conc != concNone {
		restoreConc(dst, saved, pl)
		return
	}
	if !pl.hasIgnored {
		if !memEqual(dst, saved, pl.size) {
			copyValue(dst, saved, pl)
		}
		return
	}
	switch pl.kind {
	case reflect.Struct:
		for i := range pl.fields {
			f := &pl.fields[i]
			restoreValue(unsafe.Add(dst, f.offset), unsafe.Add(saved, f.offset), f.plan)
		}
	case reflect.Array:
		restoreElems(dst, saved, pl.elem, pl.length)
	}
}

// restoreElems writes back the n saved elements of type elem at data
// where they differ: elements with ignored parts one by one, others as
// the one run from the first element that differs to the last.
func restoreElems(data, saved unsafe.Pointer, elem *typePlan, n int) {
	if elem.hasIgnored {
		for i := range n {
			off := uintptr(i) * elem.size
			restoreValue(unsafe.Add(data, off), unsafe.Add(saved, off), elem)
		}
		return
	}
	size := elem.size
	if memEqual(data, saved, uintptr(n)*size) {
		return
	}
	first, last := 0, n-1
	for memEqual(unsafe.Add(data, uintptr(first)*size), unsafe.Add(saved, uintptr(first)*size), size) {
		first++
	}
	for memEqual(unsafe.Add(data, uintptr(last)*size), unsafe.Add(saved, uintptr(last)*size), size) {
		last--
	}
	run := last - first + 1
	off := uintptr(first) * size
	reflect.Copy(sliceAt(elem.typ, unsafe.Add(data, off), run), sliceAt(elem.typ, unsafe.Add(saved, off), run))
}

// sameEntries reports whether map m holds exactly the saved entries, keys
// and values of the same bits. val is a pointer to scratch memory of the
// value type. Keys are looked up; keys that cannot be (NaNs, which are
// never equal to themselves) are matched against the map's own entries.
func sameEntries(m reflect.Value, sm *savedMap, kp, vp *typePlan, val reflect.Value) bool {
	if m.Len() != sm.n {
		return false
	}
	var unfound []int
	for i := range sm.n {
		v := m.MapIndex(reflect.NewAt(kp.typ, unsafe.Add(sm.keys, uintptr(i)*kp.size)).Elem())
		if !v.IsValid() {
			unfound = append(unfound, i)
			continue
		}
		val.Elem().Set(v)
		if !memEqual(val.UnsafePointer(), unsafe.Add(sm.vals, uintptr(i)*vp.size), vp.size) {
			return false
		}
	}
	if len(unfound) == 0 {
		return true
	}
	// The keys found are distinct entries of m, as many as m has entries
	// besides those it cannot look up either: those must be the unfound
	// saved ones, one for one.
	key := reflect.New(kp.typ)
	for it := m.MapRange(); it.Next(); {
		key.Elem().SetIterKey(it)
		if m.MapIndex(key.Elem()).IsValid() {
			continue
		}
		val.Elem().SetIterValue(it)
		j := slices.IndexFunc(unfound, func(i int) bool {
			return memEqual(key.UnsafePointer(), unsafe.Add(sm.keys, uintptr(i)*kp.size), kp.size) &&
				memEqual(val.UnsafePointer(), unsafe.Add(sm.vals, uintptr(i)*vp.size), vp.size)
		})
		if j < 0 {
			return false
		}
		unfound = slices.Delete(unfound, j, j+1)
	}
	return len(unfound) == 0
}

// sliceAt is the slice of the n values of type t at data.
func sliceAt(t reflect.Type, data unsafe.Pointer, n int) reflect.Value {
	return reflect.NewAt(reflect.SliceOf(t), unsafe.Pointer(&sliceHeader{data, n, n})).Elem()
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}
