package rt

import (
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// This file takes snapshots of object graphs; graph_compare.go compares a
// snapshot with the graph as it is now, graph_render.go prints paths and
// values for the event log.
//
// Everything is walked through addresses: a value is an unsafe.Pointer to
// memory of a known type, read with reflect.NewAt(t, p).Elem(). Such values
// are addressable and never carry reflect's read-only mark, so unexported
// fields can be read and copied without touching reflect's internals.
// Values that are not addressable (interface contents, map entries) are
// first copied into memory of our own.

// defaultSnapshotBudget is the budget takeSnapshot uses when it is given 0:
// about 8 MB of copied memory, far more than a method's receiver and
// arguments usually reach, small enough to keep a runaway graph from
// stalling the program under test.
const defaultSnapshotBudget = 1_000_000

// snapshot is the object graph that a call can reach from its roots, as it
// was at call entry: "the world at entry".
//
// Identity is kept. Every pointed-to object, every slice's backing array
// (the part up to len) and every map is stored under its original address
// and type, next to a copy of its contents. The copies still hold the
// original pointers, slices and maps, so a pointer in a copy is followed by
// looking its target up in these tables. Comparison walks the world at
// entry and the world now side by side. A restore in place can write each
// copy back at its original address (skipping the locks and other
// synchronisation state and the opaque values, which the copies leave
// zero, see copyValue; storing the values of concurrent data back through
// their methods, see graph_conc.go) and refill each map from its entries:
// every object gets its old contents back and every reference to it stays
// valid.
//
// A snapshot is not safe for concurrent use: comparison extends the type
// plans it holds.
type snapshot struct {
	// roots are the call's roots as they were passed in: pointers, or
	// values boxed at call entry, whose boxes Go never changes.
	roots []any
	// names are the roots' display names, for the paths of differences.
	names []string

	// objects maps an original pointed-to object to the address of its copy.
	// This map and the next two are made at their first entry: most
	// snapshots of a masked call's arguments need one of them, or none.
	objects map[objectKey]unsafe.Pointer
	// arrays maps the first len elements of a slice's backing array to the
	// address of the copy of those elements.
	arrays map[arrayKey]unsafe.Pointer
	// maps maps a map (its runtime pointer and type) to copies of its entries.
	maps map[objectKey]*savedMap
	// unsaved is set when a well-known value's rendering needed elements
	// that the snapshot does not hold (graph_known.go).
	unsaved bool

	// scratch holds the fields that comparison counts as scratch, or nil.
	scratch *scratchSet

	// locks, when set, are the locks that a walk of live memory takes
	// before it reads a struct that holds some (see locks.go): set while
	// the snapshot is taken, and by the caller of a comparison or a
	// restore that takes them.
	locks *lockSet
	// watch watches the locks the snapshot took until the call ends (see
	// locks.go), or is nil.
	watch *callWatch

	// Used while the snapshot is taken only.
	budget, used int
	pending      []savedRun
	batches      map[*typePlan]*batch // see newCopy
	lastBatch    *batch
}

// objectKey names an object by its original address and type: a struct and
// its first field share an address but are different objects.
type objectKey struct {
	addr unsafe.Pointer
	plan *typePlan
}

// arrayKey names the elements of a backing array that one slice shows.
// Two slices of the same array with other lengths are saved apart, which
// is consistent because both copies are taken at the same moment.
type arrayKey struct {
	data unsafe.Pointer
	elem *typePlan
	len  int
}

// savedMap holds copies of a map's keys and values at entry, in the map's
// iteration order: keys[i] belongs to vals[i].
type savedMap struct {
	keys, vals unsafe.Pointer // backing arrays of a []K and a []V
	n          int
}

// savedRun is n consecutive values of one type in copied memory whose
// references still have to be followed.
type savedRun struct {
	p    unsafe.Pointer
	plan *typePlan
	n    int
}

// typePlan is what the walks need to know about a type, computed once per
// snapshot: sizes, the struct fields worth visiting, and which shortcuts
// are allowed.
type typePlan struct {
	typ  reflect.Type
	kind reflect.Kind
	size uintptr

	// ignored marks locks and other synchronisation state (the types of
	// the sync and sync/atomic packages but for concurrent data) and
	// opaque types (see isOpaqueType): neither copied nor compared nor
	// written back (a lock taken and released is not a change, and
	// reading them while other goroutines use them atomically would be a
	// data race; an opaque object's state is outside the heap). A pointer
	// or interface that refers to one compares by identity, like any
	// reference.
	ignored bool
	// opaque marks the ignored types that isOpaqueType names: a pointer to
	// one compares by address, as its contents are not compared.
	opaque bool
	// noPointers says that a value holds no pointer at all, not even a
	// string's or a lock's: its bytes may be saved and written back as
	// bytes, out of the garbage collector's sight.
	noPointers bool
	// reaches says that a value holds pointers, slices, maps or interfaces
	// outside ignored fields: there is more of the graph behind it.
	reaches bool
	// hasIgnored says that the value contains ignored parts or concurrent
	// data, so it must be copied field by field.
	hasIgnored bool
	// report marks the types whose values, or pointers to them, are
	// errors: a failure's report, which a rollback leaves as the failed
	// call made it (see snapshot.restore).
	report bool
	// conc marks concurrent data (sync.Map, the values of sync/atomic):
	// read and written through their methods only (graph_conc.go).
	// concOff is the offset of an atomic.Pointer's pointer, and held the
	// plan of what the value holds: *T for an atomic.Pointer[T], any for
	// an atomic.Value and a sync.Map's keys and values.
	conc    concKind
	concOff uintptr
	held    *typePlan
	// flat values are fully described by their bytes: equal bytes mean
	// equal values (strings, funcs and channels are immutable or compared
	// by identity), and nothing is reachable from them.
	flat bool
	// known marks the well-known types compared and shown as a whole
	// (graph_known.go).
	known knownKind

	// stream marks the types whose values are the state of a stream
	// (see isStreamType): differences inside them are stream positions.
	stream bool
	// value marks reflect.Value, whose references are an unsafe.Pointer
	// and flags: a snapshot saves what it refers to (saveValue).
	value  bool
	length int         // arrays
	fields []fieldPlan // structs: fields with state, blank fields left out
	// locks are the locks that a struct or array holds inline, or points
	// to from a field of its own (see locks.go).
	locks []lockField
	// elem is the element type of arrays, set when the plan is made.
	elem *typePlan
	// target is the element type of pointers, slices and maps, and key
	// the key type of maps, planned on first use (recursive types need
	// it): read them through elemPlan and keyPlan.
	target, key atomicPtr // *typePlan
}

// fieldPlan is one struct field.
type fieldPlan struct {
	name   string
	offset uintptr
	plan   *typePlan
}

// takeSnapshot copies the object graph reachable from roots (each root is
// an interface value: a pointer, or a value boxed at call entry). budget
// is the maximum number of values it may copy (0, or less, means
// defaultSnapshotBudget). ok is false when the graph is larger than the
// budget; the partial copy is dropped.
//
// The budget counts words of copied memory, 8 bytes each and at least one
// per copied object, slice, map entry or interface content: a word is
// about one scalar value, so a slice of a thousand ints costs a thousand,
// a slice of a thousand bytes 125, and a pointed-to struct of three ints
// three. Counting memory
// rather than objects keeps a single huge array from passing as one value.
//
// takeSnapshot never panics: a graph it cannot walk is reported as too
// large, because a panic here would crash the program under test.
func takeSnapshot(roots []any, budget int) (s *snapshot, ok bool) {
	return takeLockedSnapshot(roots, budget, nil)
}

// takeLockedSnapshot is takeSnapshot taking the locks that guard what it
// reads (see locks.go), which it leaves held in locks, for the caller to
// release. When a lock is held elsewhere, ok is false and locks.blocked
// names it.
func takeLockedSnapshot(roots []any, budget int, locks *lockSet) (s *snapshot, ok bool) {
	defer func() {
		if recover() != nil {
			s, ok = nil, false
		}
	}()
	return snapshotGraph(roots, budget, locks)
}

// snapshotGraph is takeLockedSnapshot without the guard against panics,
// so that tests see them, nor the release of the locks.
func snapshotGraph(roots []any, budget int, locks *lockSet) (*snapshot, bool) {
	if budget <= 0 {
		budget = defaultSnapshotBudget
	}
	s := &snapshot{
		roots:  append([]any(nil), roots...),
		budget: budget,
		locks:  locks,
	}
	if locks != nil && !locks.lockRoots(roots, locks.names) {
		return nil, false
	}
	anyPlan := s.plan(reflect.TypeFor[any]())
	for i := range s.roots {
		if !s.walk(unsafe.Pointer(&s.roots[i]), anyPlan) {
			return nil, false
		}
		for len(s.pending) > 0 {
			r := s.pending[len(s.pending)-1]
			s.pending = s.pending[:len(s.pending)-1]
			for k := range r.n {
				if !s.walk(unsafe.Add(r.p, uintptr(k)*r.plan.size), r.plan) {
					return nil, false
				}
			}
		}
	}
	s.pending, s.batches, s.lastBatch, s.locks = nil, nil, nil, nil
	return s, true
}

// charge takes words from the budget, and reports false once it is spent.
func (s *snapshot) charge(words int) bool {
	if words > s.budget-s.used {
		s.used = s.budget
		return false
	}
	s.used += words
	return true
}

// wordsOf is the budget cost of copying n values of size bytes each in one
// go: their size in words, at least 1. Values that hold references are a
// word or more each, so the walk that follows them costs no more than the
// copy was charged.
func wordsOf(n int, size uintptr) int {
	if n > 0 && size != 0 && uintptr(n) > (math.MaxInt-7)/size {
		return math.MaxInt
	}
	return max(1, int((uintptr(max(n, 0))*size+7)/8))
}

// walk follows the references held by the value at p (copied memory) and
// saves what they lead to. It reports false when the budget is spent.
// Struct fields and array elements are walked here; what lies behind a
// pointer, slice, map or interface is queued in s.pending, so the Go stack
// stays shallow however long a list is.
func (s *snapshot) walk(p unsafe.Pointer, pl *typePlan) bool {
	if !pl.reaches {
		return true
	}
	if pl.conc != concNone {
		return s.walkConc(p, pl)
	}
	if pl.value {
		return s.saveValue(*(*reflect.Value)(p))
	}
	switch pl.kind {
	case reflect.Pointer:
		return s.savePointee(*(*unsafe.Pointer)(p), s.elemPlan(pl))
	case reflect.Slice:
		return s.saveSlice(reflect.NewAt(pl.typ, p).Elem(), pl)
	case reflect.Map:
		return s.saveMap(reflect.NewAt(pl.typ, p).Elem(), pl)
	case reflect.Interface:
		return s.saveInterface(reflect.NewAt(pl.typ, p).Elem())
	case reflect.Array:
		for i := range pl.length {
			if !s.walk(unsafe.Add(p, uintptr(i)*pl.elem.size), pl.elem) {
				return false
			}
		}
	case reflect.Struct:
		for i := range pl.fields {
			f := &pl.fields[i]
			if f.plan.reaches && !s.walk(unsafe.Add(p, f.offset), f.plan) {
				return false
			}
		}
	}
	return true
}

// savePointee saves the object of type elem at target, once.
func (s *snapshot) savePointee(target unsafe.Pointer, elem *typePlan) bool {
	if target == nil || elem.ignored || elem.size == 0 {
		return true
	}
	key := objectKey{target, elem}
	if _, seen := s.objects[key]; seen || s.locks.skips(target, elem, 1) {
		return true
	}
	if !s.charge(wordsOf(1, elem.size)) || !s.locks.lockValues(target, elem, 1) {
		return false
	}
	c := s.newCopy(elem)
	copyValue(c, target, elem)
	if s.objects == nil {
		s.objects = make(map[objectKey]unsafe.Pointer)
	}
	s.objects[key] = c
	if elem.reaches {
		s.pending = append(s.pending, savedRun{c, elem, 1})
	}
	return true
}

// saveSlice saves the elements of v up to its length, once per backing
// array and length. The capacity beyond len is not part of the graph.
func (s *snapshot) saveSlice(v reflect.Value, pl *typePlan) bool {
	n := v.Len()
	elem := s.elemPlan(pl)
	if n == 0 || elem.ignored || elem.size == 0 {
		return true
	}
	key := arrayKey{v.UnsafePointer(), elem, n}
	if _, seen := s.arrays[key]; seen || s.locks.skips(v.UnsafePointer(), elem, n) {
		return true
	}
	if !s.charge(wordsOf(n, elem.size)) || !s.locks.lockValues(v.UnsafePointer(), elem, n) {
		return false
	}
	cp := s.newCopies(elem, n)
	if elem.hasIgnored {
		src := v.UnsafePointer()
		for i := range n {
			off := uintptr(i) * elem.size
			copyValue(unsafe.Add(cp, off), unsafe.Add(src, off), elem)
		}
	} else {
		reflect.Copy(reflect.SliceAt(elem.typ, cp, n), v)
	}
	if s.arrays == nil {
		s.arrays = make(map[arrayKey]unsafe.Pointer)
	}
	s.arrays[key] = cp
	if elem.reaches {
		s.pending = append(s.pending, savedRun{cp, elem, n})
	}
	return true
}

// saveMap saves the entries of map v, once per map.
func (s *snapshot) saveMap(v reflect.Value, pl *typePlan) bool {
	if v.IsNil() {
		return true
	}
	key := objectKey{v.UnsafePointer(), pl}
	if _, seen := s.maps[key]; seen {
		return true
	}
	kp, vp := s.keyPlan(pl), s.elemPlan(pl)
	n := v.Len()
	perEntry := wordsOf(1, kp.size+vp.size)
	if n > 0 && perEntry > math.MaxInt/n || !s.charge(max(1, n*perEntry)) {
		s.used = s.budget
		return false
	}
	sm := &savedMap{}
	sm.keys, sm.vals, sm.n = copyEntries(v, kp, vp, n)
	if s.maps == nil {
		s.maps = make(map[objectKey]*savedMap)
	}
	s.maps[key] = sm
	if kp.reaches {
		s.pending = append(s.pending, savedRun{sm.keys, kp, sm.n})
	}
	if vp.reaches {
		s.pending = append(s.pending, savedRun{sm.vals, vp, sm.n})
	}
	return true
}

// copyEntries copies the first n entries of map m, in iteration order,
// into new arrays of keys and of values. Map entries cannot be locked or
// updated atomically in place, so copying whole values is safe even when
// they contain sync types.
func copyEntries(m reflect.Value, kp, vp *typePlan, n int) (keys, vals unsafe.Pointer, count int) {
	ks := reflect.MakeSlice(reflect.SliceOf(kp.typ), n, n)
	vs := reflect.MakeSlice(reflect.SliceOf(vp.typ), n, n)
	it := m.MapRange()
	for count < n && it.Next() {
		ks.Index(count).SetIterKey(it)
		vs.Index(count).SetIterValue(it)
		count++
	}
	return ks.UnsafePointer(), vs.UnsafePointer(), count
}

// saveInterface follows the dynamic value of interface v. The boxed value
// itself never changes, so only what it references is saved.
func (s *snapshot) saveInterface(v reflect.Value) bool {
	if v.IsNil() {
		return true
	}
	e := v.Elem()
	dp := s.plan(e.Type())
	if !dp.reaches {
		return true
	}
	if dp.kind == reflect.Pointer {
		return s.savePointee(e.UnsafePointer(), s.elemPlan(dp))
	}
	if !s.charge(wordsOf(1, dp.size)) {
		return false
	}
	c := s.newCopy(dp)
	reflect.NewAt(dp.typ, c).Elem().Set(e)
	s.pending = append(s.pending, savedRun{c, dp, 1})
	return true
}

var valueType = reflect.TypeFor[reflect.Value]()

// saveValue saves what a reflect.Value refers to, which a function that
// holds it can write through it: the variable it addresses, or, for one
// that holds a reference of its own (a map, slice or pointer handed to
// reflect.ValueOf), what that reference leads to. The saved copies are
// reached through values made afresh from its bits, so that one obtained
// through an unexported field, which reflect lets read but not copy, is
// saved too.
func (s *snapshot) saveValue(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	t := v.Type()
	if v.CanAddr() {
		return s.savePointee(unsafe.Pointer(v.UnsafeAddr()), s.plan(t))
	}
	switch v.Kind() {
	case reflect.Pointer:
		return s.savePointee(v.UnsafePointer(), s.elemPlan(s.plan(t)))
	case reflect.Map:
		m := v.UnsafePointer()
		return s.walk(unsafe.Pointer(&m), s.plan(t))
	case reflect.Slice:
		h := unsafe.Slice((*byte)(v.UnsafePointer()), v.Cap())[:v.Len()]
		return s.walk(unsafe.Pointer(&h), s.plan(t))
	case reflect.Interface:
		if v.IsNil() {
			return true
		}
		return s.saveValue(v.Elem())
	}
	// A copy of a value of another kind, held by the Value alone.
	return true
}

// batch hands out zeroed values of one type for copies, from arrays
// allocated a run at a time: a list of a thousand nodes costs a dozen
// allocations, not a thousand. The arrays are typed, so the collector sees
// the pointers in the copies.
type batch struct {
	plan       *typePlan
	base       unsafe.Pointer
	used, size int
}

// maxBatchBytes bounds one array of a batch, so that a large type does
// not reserve much more memory than its copies need.
const maxBatchBytes = 8 << 10

// newCopy returns memory for a copy of a value of type pl.
func (s *snapshot) newCopy(pl *typePlan) unsafe.Pointer { return s.newCopies(pl, 1) }

// newCopies returns memory for n consecutive values of type pl: from the
// type's batch when they fit in an array of it, in an array of their own
// when they are many.
func (s *snapshot) newCopies(pl *typePlan, n int) unsafe.Pointer {
	if n > 64 || uintptr(n)*pl.size > maxBatchBytes/2 {
		return reflect.MakeSlice(reflect.SliceOf(pl.typ), n, n).UnsafePointer()
	}
	b := s.lastBatch
	if b == nil || b.plan != pl {
		// Most graphs hold one type of object: the map of batches is made
		// when a second one comes.
		if b != nil && s.batches == nil {
			s.batches = map[*typePlan]*batch{b.plan: b}
		}
		b = s.batches[pl]
		if b == nil {
			b = &batch{plan: pl}
			if s.batches != nil {
				s.batches[pl] = b
			}
		}
		s.lastBatch = b
	}
	if b.size-b.used < n {
		b.size = max(n, min(b.size*2, 256, int(maxBatchBytes/pl.size)))
		b.base = reflect.MakeSlice(reflect.SliceOf(pl.typ), b.size, b.size).UnsafePointer()
		b.used = 0
	}
	p := unsafe.Add(b.base, uintptr(b.used)*pl.size)
	b.used += n
	return p
}

// copyValue copies the value of type pl at src to dst, leaving the fields
// of ignored types zero in dst: they must not be read (another goroutine
// may be using them atomically) and must not come back on restore.
// Concurrent data is copied through its methods.
func copyValue(dst, src unsafe.Pointer, pl *typePlan) {
	if pl.size == 0 || pl.ignored {
		return
	}
	if pl.conc != concNone {
		copyConc(dst, src, pl)
		return
	}
	if !pl.hasIgnored {
		reflect.NewAt(pl.typ, dst).Elem().Set(reflect.NewAt(pl.typ, src).Elem())
		return
	}
	switch pl.kind {
	case reflect.Struct:
		for i := range pl.fields {
			f := &pl.fields[i]
			copyValue(unsafe.Add(dst, f.offset), unsafe.Add(src, f.offset), f.plan)
		}
	case reflect.Array:
		for i := range pl.length {
			off := uintptr(i) * pl.elem.size
			copyValue(unsafe.Add(dst, off), unsafe.Add(src, off), pl.elem)
		}
	}
}

// plans holds the plan of every type met so far, shared by every snapshot
// of the program: a plan is published complete (but for the lazily planned
// targets of references, which are atomic) and never changed, so the
// types of a call's graph are planned once per run, not once per call.
// planMu serializes the making of plans.
var (
	plans  readMostly[reflect.Type, *typePlan]
	planMu sync.Mutex
)

// plan returns the plan of type t.
func (s *snapshot) plan(t reflect.Type) *typePlan { return planOf(t) }

// planOf returns the plan of type t, making it on first use. Struct fields
// and array elements are planned at once (a type cannot contain itself
// inline); the targets of pointers, slices and maps are planned when first
// needed, which lets recursive types terminate. The plans made for t are
// published together, when t's is complete.
func planOf(t reflect.Type) *typePlan {
	w := typeWord(t)
	slot := recentSlot(w)
	if r := slot.Load(); r != nil && r.word == w {
		return r.plan
	}
	pl, ok := plans.load(t)
	if !ok {
		pl = newPlan(t)
	}
	slot.Store(&recentPlan{w, pl})
	return pl
}

// newPlan makes the plan of t and what it needs, and publishes them.
func newPlan(t reflect.Type) *typePlan {
	planMu.Lock()
	defer planMu.Unlock()
	made := map[reflect.Type]*typePlan{}
	pl := makePlan(t, made)
	if len(made) > 0 {
		plans.storeAll(made)
	}
	return pl
}

// recentPlans caches, in front of plans, the plan last asked for of the
// types that share a slot: the calls that ask for a plan per value they
// record (SaveArg, per step of a search) find it with one load and one
// comparison of words, not a hash of the reflect.Type interface.
var recentPlans [256]atomic.Pointer[recentPlan]

type recentPlan struct {
	word uintptr // typeWord of plan.typ
	plan *typePlan
}

// typeWord is the address of t's runtime type, the data word of the
// interface: the same for every reflect.Type of one type, as == on
// reflect.Type relies on.
func typeWord(t reflect.Type) uintptr { return (*[2]uintptr)(unsafe.Pointer(&t))[1] }

// recentSlot is the slot of recentPlans for the type of word w.
func recentSlot(w uintptr) *atomic.Pointer[recentPlan] {
	return &recentPlans[(w>>5^w>>13)%uintptr(len(recentPlans))]
}

// noPointers reports whether values of t hold no pointer.
func noPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return t.Len() == 0 || noPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !noPointers(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// makePlan is planOf with planMu held: it records the plans it makes in
// made, for planOf to publish.
func makePlan(t reflect.Type, made map[reflect.Type]*typePlan) *typePlan {
	if pl, ok := plans.load(t); ok {
		return pl
	}
	if pl, ok := made[t]; ok {
		return pl
	}
	pl := &typePlan{typ: t, kind: t.Kind(), size: t.Size(), noPointers: noPointers(t)}
	pl.report = t.Kind() != reflect.Interface && (t.Implements(errorType) || reflect.PointerTo(t).Implements(errorType))
	switch {
	case pl.size == 0:
		// No state at all: nothing to copy or compare.
	case isConcType(t):
		kind, off := concKindOf(t)
		planConc(pl, kind, off, made)
	case isSyncType(t):
		pl.ignored, pl.hasIgnored = true, true
	case isOpaqueType(t):
		pl.ignored, pl.hasIgnored, pl.opaque = true, true, true
	default:
		pl.known = knownKindOf(t)
		switch pl.kind {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			pl.reaches = true
		case reflect.Array:
			pl.length = t.Len()
			pl.elem = makePlan(t.Elem(), made)
			pl.reaches, pl.hasIgnored = pl.elem.reaches, pl.elem.hasIgnored
			pl.locks = arrayLocks(pl.length, t.Elem(), pl.elem)
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				fp := makePlan(f.Type, made)
				if f.Name != "_" {
					// A blank lock guards nothing: nothing can take it.
					pl.locks = append(pl.locks, fieldLocks(f.Name, f.Offset, f.Type, fp)...)
				}
				if f.Name == "_" || fp.size == 0 {
					continue // blank fields are padding or markers; Go's == skips them too
				}
				pl.fields = append(pl.fields, fieldPlan{name: f.Name, offset: f.Offset, plan: fp})
				pl.reaches = pl.reaches || fp.reaches
				pl.hasIgnored = pl.hasIgnored || fp.hasIgnored
			}
		}
	}
	if t == valueType {
		pl.value, pl.reaches = true, true
	}
	pl.flat = !pl.reaches && !pl.hasIgnored
	if pl.kind == reflect.Struct || pl.kind == reflect.Interface {
		pl.stream = isStreamType(t)
	}
	made[t] = pl
	return pl
}

// elemPlan is the plan of the element type of an array, pointer, slice or
// map.
func (s *snapshot) elemPlan(pl *typePlan) *typePlan { return pl.elemPlan() }

func (pl *typePlan) elemPlan() *typePlan {
	if pl.kind == reflect.Array {
		return pl.elem
	}
	if e := (*typePlan)(pl.target.load()); e != nil {
		return e
	}
	e := planOf(pl.typ.Elem())
	pl.target.store(unsafe.Pointer(e))
	return e
}

// keyPlan is the plan of a map type's key type.
func (s *snapshot) keyPlan(pl *typePlan) *typePlan { return pl.keyPlan() }

func (pl *typePlan) keyPlan() *typePlan {
	if k := (*typePlan)(pl.key.load()); k != nil {
		return k
	}
	k := planOf(pl.typ.Key())
	pl.key.store(unsafe.Pointer(k))
	return k
}

// isConcType reports whether t is concurrent data: sync.Map, or a value
// of sync/atomic (see concKindOf).
func isConcType(t reflect.Type) bool {
	k, _ := concKindOf(t)
	return k != concNone
}

// isSyncType reports whether t is a type of the packages that implement
// locks and atomics, concurrent data aside (isConcType is asked first).
// internal/sync holds the state of sync.Mutex and sync.Map since Go 1.24,
// so a type defined in user code on a lock (type myMutex sync.Mutex) is
// ignored through its fields as well; one defined on an atomic type (type
// counter atomic.Int64) is not, as its counter is a plain int64 field.
func isSyncType(t reflect.Type) bool {
	switch t.PkgPath() {
	case "sync", "sync/atomic", "internal/sync", "internal/runtime/atomic":
		return true
	}
	return false
}

// isOpaqueType reports whether t stands for something outside the heap:
// its memory mirrors the state of the kernel, of the runtime or of a peer,
// so writing an old copy back would not bring the old state back but
// corrupt the new one (a closed descriptor resurrected, possibly reused by
// another file; a runtime poller or timer out of step; a type descriptor
// in read-only memory). Such objects are leaves of the graph, like locks:
// not traversed, compared nor written back. What refers to them is data:
// a *os.File, a net.Conn or a reflect.Type compares by identity, and a
// field the call pointed elsewhere gets its old pointer back.
//
// The set is the objects behind the standard library's handles, matched
// by package path and name:
//   - open files and connections: os.File (its *os.file holds an
//     internal/poll.FD), os.Root, the descriptors of package internal/poll,
//     net.netFD (behind every TCPConn, UDPConn, IPConn, UnixConn and
//     listener); crypto/tls.Conn, whose record state is kept in step with
//     the peer; net/http's Transport (a pool of open connections), Server,
//     and per-connection conn, persistConn and response (their sets of
//     live connections and listeners mirror descriptors and goroutines);
//   - child processes: os.Process;
//   - runtime timers: time.Timer and time.Ticker;
//   - the runtime's own memory: type descriptors (reflect.rtype, every
//     type of internal/abi, in read-only memory), the hash tables behind a
//     reflect.MapIter (internal/runtime/...), the pins of a runtime.Pinner.
//
// An opaque value held inline, a time.Timer field say, is skipped like a
// lock: its identity is its address, which no call can change.
//
// Handles held by value need no entry: net.TCPConn and reflect.Value
// hold nothing but references to the objects above and unsafe.Pointers,
// so they compare and restore as references do. Plain in-memory data of
// the standard library (bytes.Buffer, bufio, big.Int, time.Time, net.Pipe's
// channels) is not opaque. A descriptor kept as a bare int by user code
// is just an int.
func isOpaqueType(t reflect.Type) bool {
	switch t.PkgPath() {
	case "internal/poll", "internal/abi":
		return true
	case "os":
		switch t.Name() {
		case "File", "Root", "Process":
			return true
		}
	case "net":
		return t.Name() == "netFD"
	case "crypto/tls":
		return t.Name() == "Conn"
	case "net/http":
		switch t.Name() {
		case "Transport", "Server", "conn", "persistConn", "response":
			return true
		}
	case "time":
		switch t.Name() {
		case "Timer", "Ticker":
			return true
		}
	case "reflect":
		return t.Name() == "rtype"
	case "runtime":
		return t.Name() == "Pinner"
	}
	return strings.HasPrefix(t.PkgPath(), "internal/runtime/")
}
