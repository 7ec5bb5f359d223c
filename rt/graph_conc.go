package rt

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Concurrent data is data: a sync.Map holds entries and a sync/atomic value
// holds a number, a flag, a pointer or an interface, which a call changes
// like any field. Other goroutines may use them while a snapshot, a
// comparison or a rollback runs, so they are read and written only
// through their own atomic operations, never by copying their memory:
//
//   - the snapshot's copy of one is a value of its own type, filled by
//     its methods (Load, then Store into the copy; Range, then Store for
//     a sync.Map), so that the copies are walked, compared and rendered
//     as values of the type, without side tables;
//   - a comparison loads the value now and compares what it holds with
//     what the copy holds: a number by value, a pointer by what it points
//     to, an interface like any interface, a sync.Map entry by entry;
//   - a restore stores the old value back where the value now differs,
//     and for a sync.Map deletes the keys the checkpoint lacks and stores
//     the entries whose value is not the one it held (by identity), so a
//     call that changed nothing writes nothing.
//
// An atomic.Value that held nothing at entry and was given a value cannot
// be emptied again: it has no method for that (Store(nil) panics), and
// writing its memory behind the back of concurrent Loads would race. A
// rollback leaves it holding the new value; a comparison reports it.
//
// A rollback brings back the state at the call's entry: what other
// goroutines stored in the same values during the call, without a lock
// the call holds, is undone with the call's own changes. Nothing tells
// the two apart; a lock-free counter shared by writers is as atomic as a
// restore to its entry value can make it.
//
// A type defined on one of them in user code (type counter atomic.Int64)
// is a struct of its own package, walked through its fields like any
// other, as its methods are not those of the atomic type.

// concKind is the kind of a value of concurrent data, concNone for other
// types.
type concKind uint8

const (
	concNone    concKind = iota
	concBool             // atomic.Bool
	concInt32            // atomic.Int32
	concInt64            // atomic.Int64
	concUint32           // atomic.Uint32
	concUint64           // atomic.Uint64
	concUintptr          // atomic.Uintptr
	concValue            // atomic.Value: an interface
	concPointer          // atomic.Pointer[T]: a *T, in its field v
	concMap              // sync.Map: entries of interfaces
)

var (
	atomicValueType = reflect.TypeFor[atomic.Value]()
	syncMapType     = reflect.TypeFor[sync.Map]()
	anyType         = reflect.TypeFor[any]()
)

// concKindOf returns the concurrent kind of t, and for an atomic.Pointer
// the offset of the pointer it holds. An atomic.Pointer whose layout is
// not the one expected (a future Go release) is concNone, and so ignored
// like the rest of sync/atomic.
func concKindOf(t reflect.Type) (concKind, uintptr) {
	switch t {
	case atomicValueType:
		return concValue, 0
	case syncMapType:
		return concMap, 0
	}
	if t.PkgPath() != "sync/atomic" || t.Kind() != reflect.Struct {
		return concNone, 0
	}
	switch t.Name() {
	case "Bool":
		return concBool, 0
	case "Int32":
		return concInt32, 0
	case "Int64":
		return concInt64, 0
	case "Uint32":
		return concUint32, 0
	case "Uint64":
		return concUint64, 0
	case "Uintptr":
		return concUintptr, 0
	}
	if strings.HasPrefix(t.Name(), "Pointer[") {
		f, ok := t.FieldByName("v")
		load, hasLoad := reflect.PointerTo(t).MethodByName("Load")
		if ok && f.Type.Kind() == reflect.UnsafePointer && hasLoad && load.Type.NumOut() == 1 {
			return concPointer, f.Offset
		}
	}
	return concNone, 0
}

// planConc completes the plan of a type of concurrent data.
func planConc(pl *typePlan, kind concKind, off uintptr, made map[reflect.Type]*typePlan) {
	pl.conc, pl.concOff = kind, off
	// Copied, compared and restored as a whole by the functions below,
	// never as memory: the values that hold one go field by field.
	pl.hasIgnored = true
	switch kind {
	case concValue, concMap:
		pl.reaches = true
		pl.held = makePlan(anyType, made)
	case concPointer:
		pl.reaches = true
		// The plan of *T, whose target is planned lazily: T may hold
		// this very atomic.Pointer[T].
		load, _ := reflect.PointerTo(pl.typ).MethodByName("Load")
		pl.held = makePlan(load.Type.Out(0), made)
	}
}

// concScalar loads the number or flag of the atomic value at p.
func concScalar(p unsafe.Pointer, k concKind) uint64 {
	switch k {
	case concBool:
		if (*atomic.Bool)(p).Load() {
			return 1
		}
		return 0
	case concInt32:
		return uint64((*atomic.Int32)(p).Load())
	case concInt64:
		return uint64((*atomic.Int64)(p).Load())
	case concUint32:
		return uint64((*atomic.Uint32)(p).Load())
	case concUint64:
		return (*atomic.Uint64)(p).Load()
	case concUintptr:
		return uint64((*atomic.Uintptr)(p).Load())
	}
	return 0
}

// storeConcScalar stores x, as concScalar returns it, in the atomic value
// at p.
func storeConcScalar(p unsafe.Pointer, k concKind, x uint64) {
	switch k {
	case concBool:
		(*atomic.Bool)(p).Store(x != 0)
	case concInt32:
		(*atomic.Int32)(p).Store(int32(x))
	case concInt64:
		(*atomic.Int64)(p).Store(int64(x))
	case concUint32:
		(*atomic.Uint32)(p).Store(uint32(x))
	case concUint64:
		(*atomic.Uint64)(p).Store(x)
	case concUintptr:
		(*atomic.Uintptr)(p).Store(uintptr(x))
	}
}

// renderConcScalar renders a number or flag as concScalar returns it.
func renderConcScalar(x uint64, k concKind) string {
	switch k {
	case concBool:
		return strconv.FormatBool(x != 0)
	case concInt32:
		return strconv.FormatInt(int64(int32(x)), 10)
	case concInt64:
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatUint(x, 10)
}

// loadConcPointer loads the pointer an atomic.Pointer at p holds.
func loadConcPointer(p unsafe.Pointer, pl *typePlan) unsafe.Pointer {
	return atomic.LoadPointer((*unsafe.Pointer)(unsafe.Add(p, pl.concOff)))
}

// copyConc copies the value of concurrent data at src into dst, a zero
// value of the same type that nothing else uses, through their methods.
func copyConc(dst, src unsafe.Pointer, pl *typePlan) {
	switch pl.conc {
	case concValue:
		if x := (*atomic.Value)(src).Load(); x != nil {
			(*atomic.Value)(dst).Store(x)
		}
	case concPointer:
		atomic.StorePointer((*unsafe.Pointer)(unsafe.Add(dst, pl.concOff)), loadConcPointer(src, pl))
	case concMap:
		d := (*sync.Map)(dst)
		(*sync.Map)(src).Range(func(k, v any) bool {
			d.Store(k, v)
			return true
		})
	default:
		storeConcScalar(dst, pl.conc, concScalar(src, pl.conc))
	}
}

// walkConc saves what the copy at p of a value of concurrent data refers
// to. A sync.Map's entries are charged to the budget here, two
// interfaces each.
func (s *snapshot) walkConc(p unsafe.Pointer, pl *typePlan) bool {
	switch pl.conc {
	case concValue:
		x := (*atomic.Value)(p).Load()
		return s.saveInterface(reflect.ValueOf(&x).Elem())
	case concPointer:
		return s.savePointee(loadConcPointer(p, pl), pl.held.elemPlan())
	case concMap:
		ok := true
		(*sync.Map)(p).Range(func(k, v any) bool {
			ok = s.charge(4) && s.saveInterface(reflect.ValueOf(&k).Elem()) && s.saveInterface(reflect.ValueOf(&v).Elem())
			return ok
		})
		return ok
	}
	return true
}

// conc compares a value of concurrent data at entry (sp, the copy) and
// now (lp). A path into what an atomic.Value or atomic.Pointer holds goes
// through Load(): c.cur.Load().n; a sync.Map's entries are shown as a
// map's: c.names["a"].
func (c *comparer) conc(sp, lp unsafe.Pointer, pl *typePlan) bool {
	switch pl.conc {
	case concValue:
		sx, lx := (*atomic.Value)(sp).Load(), (*atomic.Value)(lp).Load()
		c.push(pathStep{op: stepLoad})
		if c.interfaces(unsafe.Pointer(&sx), unsafe.Pointer(&lx), pl.held, false) {
			return true
		}
		c.pop()
		return false
	case concPointer:
		c.push(pathStep{op: stepLoad})
		if c.pointers(loadConcPointer(sp, pl), loadConcPointer(lp, pl), pl.held) {
			return true
		}
		c.pop()
		return false
	case concMap:
		if c.syncMapUnchanged((*sync.Map)(sp), (*sync.Map)(lp)) {
			return false
		}
		skeys, svals, sn := syncMapEntries((*sync.Map)(sp))
		lkeys, lvals, ln := syncMapEntries((*sync.Map)(lp))
		return c.mergeEntries(skeys, svals, sn, lkeys, lvals, ln, pl.held, pl.held)
	}
	sx, lx := concScalar(sp, pl.conc), concScalar(lp, pl.conc)
	if sx == lx {
		return false
	}
	return !c.again() && c.report(renderConcScalar(sx, pl.conc), renderConcScalar(lx, pl.conc))
}

// syncMapUnchanged reports whether live holds exactly the entries of
// saved, the same interface values, none of which leads further: the
// common case, told by lookups, without sorting the entries.
func (c *comparer) syncMapUnchanged(saved, live *sync.Map) bool {
	n, same := 0, true
	leaf := func(x any) bool { return x == nil || !c.s.plan(reflect.TypeOf(x)).reaches }
	saved.Range(func(k, v any) bool {
		n++
		now, ok := live.Load(k)
		same = ok && sameInterface(now, v) && leaf(k) && leaf(v)
		return same
	})
	if !same {
		return false
	}
	m := 0
	live.Range(func(_, _ any) bool {
		m++
		return m <= n
	})
	return m == n
}

// syncMapEntries returns the entries of m, keys and values in two arrays
// of interfaces, as copyEntries does for a map.
func syncMapEntries(m *sync.Map) (keys, vals unsafe.Pointer, n int) {
	var ks, vs []any
	m.Range(func(k, v any) bool {
		ks, vs = append(ks, k), append(vs, v)
		return true
	})
	if len(ks) == 0 {
		return nil, nil, 0
	}
	return unsafe.Pointer(&ks[0]), unsafe.Pointer(&vs[0]), len(ks)
}

// restoreConc writes the value of concurrent data saved in the copy at
// saved back into the value at dst, through their methods, where it
// differs.
func restoreConc(dst, saved unsafe.Pointer, pl *typePlan) {
	switch pl.conc {
	case concValue:
		// An empty Value cannot be emptied again (see above).
		if x := (*atomic.Value)(saved).Load(); x != nil && !sameInterface((*atomic.Value)(dst).Load(), x) {
			(*atomic.Value)(dst).Store(x)
		}
	case concPointer:
		if x := loadConcPointer(saved, pl); loadConcPointer(dst, pl) != x {
			atomic.StorePointer((*unsafe.Pointer)(unsafe.Add(dst, pl.concOff)), x)
		}
	case concMap:
		d, sm := (*sync.Map)(dst), (*sync.Map)(saved)
		d.Range(func(k, _ any) bool {
			if _, ok := sm.Load(k); !ok {
				d.Delete(k)
			}
			return true
		})
		sm.Range(func(k, v any) bool {
			if now, ok := d.Load(k); !ok || !sameInterface(now, v) {
				d.Store(k, v)
			}
			return true
		})
	default:
		if x := concScalar(saved, pl.conc); concScalar(dst, pl.conc) != x {
			storeConcScalar(dst, pl.conc, x)
		}
	}
}

// sameInterface reports whether a and b are the same interface value: the
// same dynamic type and the same data word. It never panics, unlike ==
// on values of types that are not comparable.
func sameInterface(a, b any) bool {
	return *(*[2]unsafe.Pointer)(unsafe.Pointer(&a)) == *(*[2]unsafe.Pointer)(unsafe.Pointer(&b))
}

// renderConc renders a value of concurrent data for Before or After.
func (s *snapshot) renderConc(p unsafe.Pointer, pl *typePlan, atEntry bool) string {
	switch pl.conc {
	case concValue:
		x := (*atomic.Value)(p).Load()
		return s.renderInterface(reflect.ValueOf(&x).Elem(), atEntry)
	case concPointer:
		return s.renderPointer(loadConcPointer(p, pl), pl.held, atEntry)
	case concMap:
		n := 0
		(*sync.Map)(p).Range(func(_, _ any) bool {
			n++
			return true
		})
		return "sync.Map[len=" + strconv.Itoa(n) + "]"
	}
	return renderConcScalar(concScalar(p, pl.conc), pl.conc)
}
