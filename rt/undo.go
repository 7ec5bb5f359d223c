package rt

import (
	"math"
	"reflect"
	"sync"
	"unsafe"
)

// The undo log: a masked function whose every write the build can see
// (see instrument's undo.go) takes no checkpoint at entry. Its generated
// code records, before each store into memory it does not own, the old
// contents of the location, and a failed call writes them back, last
// first. A successful call pays for what it writes, not for what its
// object holds.

// Undo is the undo log of one call of a masked function. It lives in the
// function's frame; its buffers are taken from a pool at the first
// store, so that a call that writes nothing costs nothing but the
// deferred End.
type Undo struct {
	site *Site
	log  *undoLog
}

// undoLog holds the recorded old contents, in the order of the stores.
type undoLog struct {
	entries []undoEntry
	// bits holds the old bytes of the entries of pointer-free types, one
	// run after another in entry order.
	bits []byte
	// unmasked: a SaveReach could not take its snapshot, so the call
	// runs unmasked, as one whose checkpoint at entry failed (see Mask).
	unmasked bool
}

// undoEntry is one recorded store: size bytes at addr, saved in bits;
// or the entry of a map whose key and value types hold no pointers, its
// key and old value saved in bits (size bytes), written back by entry;
// or, for values that hold pointers and element runs, a function that
// writes the old value back (typed stores: the garbage collector sees
// the pointers it holds).
type undoEntry struct {
	addr    unsafe.Pointer
	size    uintptr
	restore func()
	entry   entryRestorer
	m       any  // the map of entry
	had     bool // the map had the key
}

// entryRestorer writes back the entry of a map of one type, from the key
// and old value saved as bytes. Its implementations have no fields: an
// entry records one without allocating, where a closure that captures
// the key and the old value would allocate per store.
type entryRestorer interface {
	restore(m any, saved []byte, had bool)
}

type bitsEntry[M ~map[K]V, K comparable, V any] struct{}

func (bitsEntry[M, K, V]) restore(m any, saved []byte, had bool) {
	var k K
	ks := unsafe.Sizeof(k)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&k)), ks), saved)
	if !had {
		delete(m.(M), k)
		return
	}
	var v V
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v)), saved[ks:])
	m.(M)[k] = v
}

// undoLogs recycles the buffers of finished calls. A log that grew past
// maxKeptEntries is dropped, not to hold one large call's memory.
var undoLogs = sync.Pool{New: func() any { return new(undoLog) }}

const maxKeptEntries = 1 << 16

// NewUndo starts the undo log of a call of the masked function of site s.
func NewUndo(s *Site) Undo { return Undo{site: s} }

func (u *Undo) buffers() *undoLog {
	if u.log == nil {
		u.log = undoLogs.Get().(*undoLog)
	}
	return u.log
}

// SaveBits records *p before the call writes it. Generated code calls it
// only for types without pointers: it copies the bytes.
func SaveBits[T any](u *Undo, p *T) {
	l := u.buffers()
	n := unsafe.Sizeof(*p)
	l.bits = append(l.bits, unsafe.Slice((*byte)(unsafe.Pointer(p)), n)...)
	l.entries = append(l.entries, undoEntry{addr: unsafe.Pointer(p), size: n})
}

// Save records *p, of any type, before the call writes it.
func Save[T any](u *Undo, p *T) {
	old := *p
	l := u.buffers()
	l.entries = append(l.entries, undoEntry{restore: func() { *p = old }})
}

// SaveEntry records the entry of key k in map m, or its absence, before
// the call assigns or deletes it. A key that is not equal to itself, a
// NaN or a value that holds one, names no entry that a lookup or a delete
// finds: the call then runs unmasked, as SaveReach leaves it when it
// cannot take its snapshot.
func SaveEntry[M ~map[K]V, K comparable, V any](u *Undo, m M, k K) {
	old, ok := m[k]
	l := u.buffers()
	if k != k {
		l.unmasked = true
		return
	}
	l.entries = append(l.entries, undoEntry{restore: func() {
		if ok {
			m[k] = old
		} else {
			delete(m, k)
		}
	}})
}

// SaveEntryBits is SaveEntry for maps whose key and value types hold no
// pointers: it saves their bytes, and allocates nothing once the log's
// buffers have grown.
func SaveEntryBits[M ~map[K]V, K comparable, V any](u *Undo, m M, k K) {
	old, had := m[k]
	l := u.buffers()
	if k != k {
		l.unmasked = true
		return
	}
	n := len(l.bits)
	l.bits = append(l.bits, unsafe.Slice((*byte)(unsafe.Pointer(&k)), unsafe.Sizeof(k))...)
	l.bits = append(l.bits, unsafe.Slice((*byte)(unsafe.Pointer(&old)), unsafe.Sizeof(old))...)
	l.entries = append(l.entries, undoEntry{size: uintptr(len(l.bits) - n), entry: bitsEntry[M, K, V]{}, m: m, had: had})
}

// SaveEntryKey is SaveEntry for a key that takes a call to compute:
// generated code wraps the key in it (m[SaveEntryKey(u, m, f())] = v),
// and it records the entry once the key is computed, and returns the key.
func SaveEntryKey[M ~map[K]V, K comparable, V any](u *Undo, m M, k K) K {
	SaveEntry(u, m, k)
	return k
}

// SaveEntryBitsKey is SaveEntryKey for maps whose key and value types
// hold no pointers (see SaveEntryBits).
func SaveEntryBitsKey[M ~map[K]V, K comparable, V any](u *Undo, m M, k K) K {
	SaveEntryBits(u, m, k)
	return k
}

// SaveReach records what roots reach before a call that the build does
// not rewrite, and that may write there: a snapshot of that part of the
// graph, written back in place on failure. A graph the walk cannot handle
// leaves the call unmasked, as Mask does.
func SaveReach(u *Undo, roots ...any) {
	if !reachWritable(roots) {
		return
	}
	l := u.buffers()
	if l.unmasked {
		return
	}
	snap, ok := takeSnapshot(roots, math.MaxInt)
	if !ok {
		l.unmasked = true
		return
	}
	l.entries = append(l.entries, undoEntry{restore: snap.restore})
}

// SaveReachWith is SaveReach for a call one of whose operands, v, takes
// a call to compute, so that no record before the statement can name it:
// generated code wraps v in it, and it records what v and the call's
// other operands, roots, reach once v is evaluated, and returns v.
func SaveReachWith[T any](u *Undo, v T, roots ...any) T {
	SaveReach(u, append(roots, v)...)
	return v
}

// SaveReachAfter is SaveReachWith for an operand v through which the
// call writes nothing: it records what roots reach once v is evaluated.
func SaveReachAfter[T any](u *Undo, v T, roots ...any) T {
	SaveReach(u, roots...)
	return v
}

// SaveArg records what v, an argument of a call of a function value,
// reaches once the call has evaluated it, and returns it: the policy
// says that the function values the masked function calls write only
// what their arguments reach. A type whose values hold no reference (an
// instantiation of generic code with int, say) costs a lookup of its
// plan, and no snapshot.
func SaveArg[T any](u *Undo, v T) T {
	pl := planOf(reflect.TypeFor[T]())
	if pl.kind == reflect.Interface {
		// By the dynamic type (a comparator of Items called with Ints).
		x := any(v)
		if x == nil {
			return v
		}
		pl = planOf(reflect.TypeOf(x))
	}
	if pl.reaches || pl.kind == reflect.UnsafePointer {
		SaveReach(u, v)
	}
	return v
}

// SaveSet records the variable that v addresses before the call sets it
// through reflect (v.Set, v.SetInt, v.SetLen, …): those write the
// variable itself, not what its old value refers to.
func SaveSet(u *Undo, v reflect.Value) {
	if !v.CanAddr() {
		return // the setter panics
	}
	t := v.Type()
	at := unsafe.Pointer(v.UnsafeAddr())
	old := reflect.New(t).Elem()
	old.Set(reflect.NewAt(t, at).Elem())
	l := u.buffers()
	l.entries = append(l.entries, undoEntry{restore: func() { reflect.NewAt(t, at).Elem().Set(old) }})
}

// SaveMapIndex records the entry of key k in the map m holds, or its
// absence, before the call sets it through reflect (m.SetMapIndex(k, …)).
// A key that is not equal to itself, a NaN, names no entry a lookup or a
// delete finds: the call then runs unmasked, as SaveReach leaves it when
// it cannot take its snapshot.
func SaveMapIndex(u *Undo, m, k reflect.Value) {
	if m.Kind() != reflect.Map || !k.IsValid() {
		return // SetMapIndex panics
	}
	l := u.buffers()
	if l.unmasked {
		return
	}
	if !k.Comparable() || !k.Equal(k) {
		l.unmasked = true
		return
	}
	// Values made afresh from the bits, which reflect lets write: the map
	// may have been reached through an unexported field.
	mp := m.UnsafePointer()
	live := reflect.NewAt(m.Type(), unsafe.Pointer(&mp)).Elem()
	key := reflect.New(k.Type()).Elem()
	if !copyValueBits(key, k) {
		l.unmasked = true
		return
	}
	var old reflect.Value
	if e := live.MapIndex(key); e.IsValid() {
		old = reflect.New(e.Type()).Elem()
		old.Set(e)
	}
	l.entries = append(l.entries, undoEntry{restore: func() { live.SetMapIndex(key, old) }})
}

// SaveMapIndexKey is SaveMapIndex for a key that takes a call to
// compute: generated code wraps the key in it, and it records the entry
// once the key is computed, and returns the key.
func SaveMapIndexKey(u *Undo, m, k reflect.Value) reflect.Value {
	SaveMapIndex(u, m, k)
	return k
}

// copyValueBits sets dst, settable, to the value of src, of the same
// type, which may have been read through an unexported field; false when
// it cannot: a copy that only the Value holds, read through one.
func copyValueBits(dst, src reflect.Value) bool {
	switch {
	case src.CanInterface():
		dst.Set(src)
	case src.CanAddr():
		dst.Set(reflect.NewAt(src.Type(), unsafe.Pointer(src.UnsafeAddr())).Elem())
	default:
		return false
	}
	return true
}

// reachWritable reports whether a callee handed roots can write memory
// through one of them: a pointer, or a value that holds a pointer, a
// slice, a map or an interface. A value that holds none of them is the
// callee's own copy (an interface's dynamic value too: its box is never
// written), and a call handed only such values, the comparison of two
// integers behind an interface for one, needs no snapshot.
func reachWritable(roots []any) bool {
	for _, r := range roots {
		if r == nil {
			continue
		}
		pl := planOf(reflect.TypeOf(r))
		if pl.reaches || pl.kind == reflect.UnsafePointer { // a pointer's plan reaches
			return true
		}
	}
	return false
}

// SaveElems records the elements of s before the call writes them
// (copy, clear).
func SaveElems[S ~[]E, E any](u *Undo, s S) {
	if len(s) == 0 {
		return
	}
	if pl := planOf(reflect.TypeFor[E]()); pl.noPointers && !pl.hasIgnored {
		// The bytes, in the log's buffer: no allocation per record.
		l := u.buffers()
		n := uintptr(len(s)) * pl.size
		l.bits = append(l.bits, unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), n)...)
		l.entries = append(l.entries, undoEntry{addr: unsafe.Pointer(&s[0]), size: n})
		return
	}
	old := make([]E, len(s))
	copy(old, s)
	l := u.buffers()
	l.entries = append(l.entries, undoEntry{restore: func() { copy(s, old) }})
}

// SaveCopy records the elements of dst that a copy of n elements into
// it overwrites.
func SaveCopy[S ~[]E, E any](u *Undo, dst S, n int) {
	SaveElems(u, dst[:min(len(dst), n)])
}

// SaveAppend records what an append of n elements to s overwrites: the n
// elements past its length, when they fit in its capacity. They may be
// elements of a longer slice of the same array (s = x[:i], the idiom
// that removes x[i]).
func SaveAppend[S ~[]E, E any](u *Undo, s S, n int) {
	if n > 0 && len(s)+n <= cap(s) {
		SaveElems(u, s[len(s):len(s)+n])
	}
}

// SaveAppendSpread is SaveAppend for an append whose spread argument, xs,
// takes a call to compute: generated code wraps xs in it
// (append(s, SaveAppendSpread(u, s, f())...)), and it records what the
// append overwrites once xs is computed, and returns xs.
func SaveAppendSpread[S ~[]E, E any, X ~[]E | ~string](u *Undo, s S, xs X) X {
	SaveAppend(u, s, len(xs))
	return xs
}

// SaveReflectAppend records what reflect.Append(s, …) of n values
// overwrites past the length of the slice s holds, within its capacity,
// and returns s: generated code wraps the first argument in it. A slice
// read through an unexported field, which reflect will not write back,
// leaves the call unmasked, as SaveReach leaves it when it cannot take
// its snapshot.
func SaveReflectAppend(u *Undo, s reflect.Value, n int) reflect.Value {
	if s.Kind() != reflect.Slice || n <= 0 || s.Len()+n > s.Cap() {
		return s // Append panics, or it writes a new array
	}
	l := u.buffers()
	if l.unmasked {
		return s
	}
	if !s.CanInterface() {
		l.unmasked = true
		return s
	}
	w := s.Slice(s.Len(), s.Len()+n)
	old := reflect.MakeSlice(w.Type(), n, n)
	reflect.Copy(old, w)
	l.entries = append(l.entries, undoEntry{restore: func() { reflect.Copy(w, old) }})
	return s
}

// End runs when the masked call ends, deferred before the function's own
// deferred calls so that it runs after them (and, for the lock idiom,
// before the unlock), as Checkpoint.Rollback does. On failure (see
// Site.Fails, and Unwinding for a panic or runtime.Goexit) the recorded
// contents are written back, last store first, so that each location
// gets the contents it had at entry. Either way the log is emptied and
// its buffers reused.
func (u *Undo) End(done *bool, errp *error) {
	l := u.log
	if l == nil {
		return
	}
	u.log = nil
	if !l.unmasked && (u.site.failed(errp) || !*done && u.site.unwinding()) {
		l.rollbackTo(0, 0)
	}
	if cap(l.entries) > maxKeptEntries {
		return
	}
	clear(l.entries)
	l.entries, l.bits, l.unmasked = l.entries[:0], l.bits[:0], false
	undoLogs.Put(l)
}

// A Savepoint is where, in its caller's undo log, a call of a masked
// function made from the code of another masked call begins: that call
// runs as a clone that records its stores in its caller's log (see
// instrument's undo.go), and its own failure writes back what it
// recorded since, and no more, as its own log would have. A success
// leaves its records to the caller, whose failure writes them back.
type Savepoint struct {
	u             *Undo
	entries, bits int
}

// Mark starts a savepoint in u.
func (u *Undo) Mark() Savepoint {
	sp := Savepoint{u: u}
	if l := u.log; l != nil {
		sp.entries, sp.bits = len(l.entries), len(l.bits)
	}
	return sp
}

// End runs when the call that marked sp ends, as Undo.End does; s is the
// site of the clone, whose frame (Site.Frame) a panic goes through.
func (sp Savepoint) End(s *Site, done *bool, errp *error) {
	l := sp.u.log
	if l == nil || l.unmasked || len(l.entries) == sp.entries {
		return
	}
	if s.failed(errp) || !*done && unwinding(s.frameName()) {
		l.rollbackTo(sp.entries, sp.bits)
	}
}

// unwinding is Unwinding for the function of s, whose frames a literal's
// site names with their copies (see literalFrame).
func (s *Site) unwinding() bool {
	if s.Literal {
		panicking, _ := unwindingAt(literalFrame(s.Func))
		return panicking
	}
	return unwinding(s.Func)
}

// rollbackTo writes back the records from the last to the one at index
// entries, whose saved bytes begin at bits, and drops them.
func (l *undoLog) rollbackTo(entries, bits int) {
	off := uintptr(len(l.bits))
	for i := len(l.entries) - 1; i >= entries; i-- {
		e := &l.entries[i]
		if e.restore != nil {
			e.restore()
			continue
		}
		off -= e.size
		if e.entry != nil {
			e.entry.restore(e.m, l.bits[off:off+e.size], e.had)
			continue
		}
		copy(unsafe.Slice((*byte)(e.addr), e.size), l.bits[off:off+e.size])
	}
	clear(l.entries[entries:])
	l.entries, l.bits = l.entries[:entries], l.bits[:bits]
}
