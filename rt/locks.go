package rt

import (
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Locks in the object graph. A call that takes no lock itself may still
// reach, through its receiver, data that other goroutines write under a
// lock: afero's MemMapFs.MkdirAll calls Mkdir, which writes the map
// m.data under m.mu. A snapshot that read such a map while another
// goroutine wrote it would be a data race, and for a map a fatal error
// that nothing recovers ("concurrent map iteration and map write").
//
// So the walks of live memory made for detection (the snapshot at entry,
// the comparison at exit, the rollback of a masked replay) treat a
// sync.Mutex or sync.RWMutex in a struct, inline, embedded or behind a
// pointer, as guarding the struct's other fields and what they lead to.
// Before reading such a struct, a walk takes its locks with TryLock (a
// read lock of an RWMutex) and holds every lock it took until it is
// over. A lock that is held already (by another goroutine, or by a
// caller of the call) ends the walk: the call gets the verdict
// "unknown" and says which lock. A walk never waits for a lock, so it
// cannot deadlock, and it releases what it took before any of the
// program's code runs again.
//
// A root that is a lock, a package-level one when the site watches the
// package-level variables, or one that a function literal captured, is
// taken before anything is read: it guards the package's variables, or
// the literal's.
//
// The lock a call holds itself, the one of the lock idiom it opens with
// (see EnterHolding), is read under without being taken; so is a lock
// that such a call further down the goroutine's stack holds: a helper
// that its caller calls with the lock held (see holders).
//
// A call that takes its own locks mid-body (see regions.go) does not read
// at entry nor at exit what they guard: its walks skip the values that
// hold them, and read them in its regions, with the lock held.
//
// A lock the snapshot took was free at entry, so other goroutines may
// take it during the call and write what it guards: a change found at
// exit may be theirs. The snapshot watches the locks it took until the
// call ends, and instrumented code reports each lock it takes for
// writing (Took). A call whose watched lock another goroutine took gets
// the verdict "unknown" when its graph changed, rather than the blame for
// another's write. Writers that atomicx did not instrument go unseen.

// lockField is a lock inside a value of some type: a sync.Mutex or
// sync.RWMutex, or a pointer to one.
type lockField struct {
	name   string // the field's path in the value: "mu", "inner.mu", "[2].mu"
	offset uintptr
	rw     bool // a sync.RWMutex: walks take its read lock
	ptr    bool // the field is a pointer to the lock
}

var (
	mutexType   = reflect.TypeFor[sync.Mutex]()
	rwMutexType = reflect.TypeFor[sync.RWMutex]()
)

// fieldLocks returns the locks that a field of type t at offset holds,
// given the plan fp of t: t itself when it is a lock or a pointer to
// one, else the locks of fp, which hold them inline.
func fieldLocks(name string, offset uintptr, t reflect.Type, fp *typePlan) []lockField {
	switch t {
	case mutexType:
		return []lockField{{name: name, offset: offset}}
	case rwMutexType:
		return []lockField{{name: name, offset: offset, rw: true}}
	}
	if t.Kind() == reflect.Pointer {
		switch t.Elem() {
		case mutexType:
			return []lockField{{name: name, offset: offset, ptr: true}}
		case rwMutexType:
			return []lockField{{name: name, offset: offset, rw: true, ptr: true}}
		}
	}
	if len(fp.locks) == 0 {
		return nil
	}
	ls := make([]lockField, 0, len(fp.locks))
	for _, l := range fp.locks {
		sep := "."
		if l.name[0] == '[' {
			sep = ""
		}
		l.name = name + sep + l.name
		l.offset += offset
		ls = append(ls, l)
	}
	return ls
}

// arrayLocks returns the locks that an array of n values of type et,
// planned as elem, holds inline.
func arrayLocks(n int, et reflect.Type, elem *typePlan) []lockField {
	if len(elem.locks) == 0 && len(fieldLocks("", 0, et, elem)) == 0 {
		return nil
	}
	var ls []lockField
	for i := range n {
		ls = append(ls, fieldLocks("["+strconv.Itoa(i)+"]", uintptr(i)*elem.size, et, elem)...)
	}
	return ls
}

// lockSet is the locks a walk of live memory holds: the one the call
// holds itself, read under freely, and the ones the walk took, to be
// released when it is over.
type lockSet struct {
	// held is the lock the call holds (a *sync.Mutex or *sync.RWMutex),
	// or nil.
	held unsafe.Pointer
	// gid is the walking goroutine's number, 0 until known: a lock held
	// elsewhere may be held by a call further down its stack.
	gid uint64
	// names are the roots' display names, which name the locks among
	// them when a snapshot takes them (a comparison is given them).
	names []string
	// taken lists the locks the walk took, in order; takenSet indexes
	// them once there are many.
	taken    []takenLock
	takenSet map[unsafe.Pointer]struct{}
	// blocked names the lock that was held elsewhere and ended the walk:
	// "afero.MemMapFs.mu".
	blocked string
	// also are the locks of the regions the call holds, read under as
	// held; own and ownTypes the call's own locks, whose values the walk
	// skips while it does not hold them (see regions.go).
	also     []unsafe.Pointer
	own      []unsafe.Pointer
	ownTypes []ownType
}

// takenLock is a lock a walk took: its address, whether it is an RWMutex
// taken for reading, and where the walk found it, which names it.
type takenLock struct {
	p     unsafe.Pointer
	rw    bool
	in    *typePlan
	field int    // index in in.locks
	root  string // for a root: its name
}

// name names the lock: "afero.MemMapFs.mu", or a root's name.
func (t takenLock) name() string {
	if t.in.kind == reflect.Pointer {
		return t.root
	}
	return t.in.typ.String() + "." + t.in.locks[t.field].name
}

// lockValues takes the locks of n consecutive values of type pl at p, and
// reports false, naming the lock in ls.blocked, when one is held
// elsewhere. ls may be nil: a walk that takes no lock.
func (ls *lockSet) lockValues(p unsafe.Pointer, pl *typePlan, n int) bool {
	if ls == nil || len(pl.locks) == 0 {
		return true
	}
	for i := range n {
		v := unsafe.Add(p, uintptr(i)*pl.size)
		for j, l := range pl.locks {
			lp := unsafe.Add(v, l.offset)
			if l.ptr {
				if lp = *(*unsafe.Pointer)(lp); lp == nil {
					continue
				}
			}
			if !ls.take(takenLock{p: lp, rw: l.rw, in: pl, field: j}) {
				ls.blocked = takenLock{in: pl, field: j}.name()
				if n > 1 {
					ls.blocked = pl.typ.String() + "[" + strconv.Itoa(i) + "]." + l.name
				}
				return false
			}
		}
	}
	return true
}

// lockRoots takes the locks among roots (see above), named by names, and
// reports false when one is held elsewhere.
func (ls *lockSet) lockRoots(roots []any, names []string) bool {
	if ls == nil {
		return true
	}
	for i, r := range roots {
		p, rw := lockPointer(r)
		if p == nil {
			continue
		}
		pl := planOf(reflect.TypeOf(r))
		name := "a " + pl.typ.String() + " among the roots"
		if i < len(names) && names[i] != "" {
			name = names[i]
		}
		if !ls.take(takenLock{p: p, rw: rw, in: pl, root: name}) {
			ls.blocked = name
			return false
		}
	}
	return true
}

// take takes lock t, once per walk, unless the call holds it; it reports
// false when the lock is held elsewhere.
func (ls *lockSet) take(t takenLock) bool {
	p := t.p
	if p == ls.held || slices.Contains(ls.also, p) {
		return true
	}
	if ls.takenSet != nil {
		if _, ok := ls.takenSet[p]; ok {
			return true
		}
	} else {
		for _, u := range ls.taken {
			if u.p == p {
				return true
			}
		}
	}
	var ok bool
	if t.rw {
		ok = (*sync.RWMutex)(p).TryRLock()
	} else {
		ok = (*sync.Mutex)(p).TryLock()
	}
	if !ok {
		if holders.n.Load() == 0 {
			return false
		}
		if ls.gid == 0 {
			ls.gid = goroutineID()
		}
		return heldBy(p, ls.gid)
	}
	ls.taken = append(ls.taken, t)
	const linearScan = 16
	switch {
	case ls.takenSet != nil:
		ls.takenSet[p] = struct{}{}
	case len(ls.taken) > linearScan:
		ls.takenSet = make(map[unsafe.Pointer]struct{}, 2*len(ls.taken))
		for _, u := range ls.taken {
			ls.takenSet[u.p] = struct{}{}
		}
	}
	return true
}

// release releases the locks the walk took, the last taken first. The
// set can be used again: it forgets them.
func (ls *lockSet) release() {
	if ls == nil {
		return
	}
	for i := len(ls.taken) - 1; i >= 0; i-- {
		if t := ls.taken[i]; t.rw {
			(*sync.RWMutex)(t.p).RUnlock()
		} else {
			(*sync.Mutex)(t.p).Unlock()
		}
	}
	ls.taken, ls.takenSet = ls.taken[:0], nil
}

// lockReason is the reason of the verdict of a call whose walk found a
// lock held, at entry (the snapshot) or at exit (the comparison).
func lockReason(blocked, when string) string {
	return blocked + " was locked at " + when + ", by a caller or another goroutine: the graph it guards was not read"
}

// lockFor makes the walks of s that follow, a comparison or a restore,
// take the locks they read under on behalf of call c (see lockSet), until
// unlock.
func (s *snapshot) lockFor(c *Call) {
	s.locks = &lockSet{held: c.ext.held, gid: c.ext.gid}
	if r := regionsOf(c); r != nil {
		s.locks.own, s.locks.ownTypes = r.own, r.ownTypes
	}
}

// unlock releases the locks that the walks since lockFor took, and ends
// their taking.
func (s *snapshot) unlock() {
	s.locks.release()
	s.locks = nil
}

// lockObjects takes, with s.locks, the locks that guard every object,
// array and map that a restore writes back, and reports false when one is
// held elsewhere.
func (s *snapshot) lockObjects() bool {
	for k := range s.objects {
		if !s.locks.lockValues(k.addr, k.plan, 1) {
			return false
		}
	}
	for k := range s.arrays {
		if !s.locks.lockValues(k.data, k.elem, k.len) {
			return false
		}
	}
	return true
}

// lockPointer returns the address of the lock in lock, a *sync.Mutex or
// *sync.RWMutex (or an interface that holds one), or nil, and whether it
// is an RWMutex.
func lockPointer(lock any) (p unsafe.Pointer, rw bool) {
	switch l := lock.(type) {
	case *sync.Mutex:
		return unsafe.Pointer(l), false
	case *sync.RWMutex:
		return unsafe.Pointer(l), true
	}
	return nil, false
}

// watched holds the watches of the calls in progress whose snapshots took
// locks or that hold one: few at a time, as a call is watched from its
// snapshot to its end.
var watched struct {
	n      atomic.Int32 // watches registered: Took does nothing while 0
	mu     sync.Mutex
	active []*callWatch
}

// callWatch is one call's watch of the locks its snapshot took and of the
// lock it holds.
type callWatch struct {
	taken []takenLock
	set   map[unsafe.Pointer]struct{} // taken's index, when they are many
	held  unsafe.Pointer
	// also are the locks of the call's open lock regions, watched as held
	// is (see lockSet.also).
	also []unsafe.Pointer
	// gid is the call's goroutine, 0 when it was not known: most calls
	// end with no other goroutine having taken their locks, and they need
	// not pay for it (see contended). writers are then the goroutines
	// that took one, the first two. Both are under watched.mu.
	gid     uint64
	writers []lockWriter
	// other names the lock that another goroutine took, once known; held
	// is named "" (see contendedReason).
	other    string
	sawOther bool
	ended    bool
}

// lockWriter is a goroutine that took a watched lock, and the lock.
type lockWriter struct {
	gid  uint64
	lock string
}

// name returns the name of the lock at p if the watch has it.
func (w *callWatch) name(p unsafe.Pointer) (string, bool) {
	if p == w.held || slices.Contains(w.also, p) {
		return "", true
	}
	if w.set != nil {
		if _, ok := w.set[p]; !ok {
			return "", false
		}
	}
	for _, t := range w.taken {
		if t.p == p {
			return t.name(), true
		}
	}
	return "", false
}

// Took is called by instrumented code right after it took lock, a
// *sync.Mutex or *sync.RWMutex, for writing. While no snapshot watches a
// lock, which is the rule, it costs a load.
func Took(lock any) {
	if watched.n.Load() != 0 {
		took(lock)
	}
}

// took records the current goroutine as a writer in the watches of lock.
// Only a watched lock costs the goroutine's number.
func took(lock any) {
	p, _ := lockPointer(lock)
	if p == nil {
		return
	}
	watched.mu.Lock()
	found := false
	for _, w := range watched.active {
		if _, ok := w.name(p); ok {
			found = true
			break
		}
	}
	watched.mu.Unlock()
	if !found {
		return
	}
	gid := goroutineID()
	watched.mu.Lock()
	defer watched.mu.Unlock()
	for _, w := range watched.active {
		name, ok := w.name(p)
		switch {
		case !ok || w.sawOther:
		case w.gid != 0:
			if w.gid != gid {
				w.sawOther, w.other = true, name
			}
		case !slices.ContainsFunc(w.writers, func(x lockWriter) bool { return x.gid == gid }):
			// Two goroutines took its locks: one of them is another.
			w.writers = append(w.writers, lockWriter{gid, name})
			if len(w.writers) > 1 {
				w.sawOther, w.other = true, name
			}
		}
	}
}

// watch watches the locks that ls took, which it still holds, and the
// lock the call holds, for the current goroutine's call. The call's own
// lock is watched too: a call that waits on a sync.Cond releases it, and
// other goroutines may then write what it guards.
func (ls *lockSet) watch() *callWatch {
	if len(ls.taken) == 0 && ls.held == nil && len(ls.also) == 0 {
		return nil
	}
	w := &callWatch{taken: slices.Clone(ls.taken), set: ls.takenSet, held: ls.held, also: slices.Clone(ls.also), gid: ls.gid}
	watched.mu.Lock()
	watched.active = append(watched.active, w)
	watched.n.Add(1)
	watched.mu.Unlock()
	return w
}

// unwatch ends a call's watch, once: what it saw stays for contended.
func unwatch(w *callWatch) {
	if w == nil {
		return
	}
	watched.mu.Lock()
	defer watched.mu.Unlock()
	if w.ended {
		return
	}
	w.ended = true
	for i := len(watched.active) - 1; i >= 0; i-- {
		if watched.active[i] == w {
			watched.active = slices.Delete(watched.active, i, i+1)
			break
		}
	}
	watched.n.Add(-1)
}

// contended reports whether another goroutine took a lock of w, and names
// it. It is called on the goroutine of the call that w watches, whose
// number it learns only when a single goroutine took its locks.
func contended(w *callWatch) (lock string, ok bool) {
	if w == nil {
		return "", false
	}
	watched.mu.Lock()
	defer watched.mu.Unlock()
	if !w.sawOther && w.gid == 0 && len(w.writers) == 1 {
		// Is that goroutine the call's? Its number is not taken under
		// watched.mu, which took waits for. A second writer found
		// meanwhile settles it (took sets sawOther).
		watched.mu.Unlock()
		own := goroutineID()
		watched.mu.Lock()
		if !w.sawOther {
			w.gid = own
			if w.writers[0].gid != own {
				w.sawOther, w.other = true, w.writers[0].lock
			}
		}
	}
	return w.other, w.sawOther
}

// contendedReason is the reason of the verdict of a call whose graph
// changed while another goroutine held a lock that guards it.
func contendedReason(lock string) string {
	if lock == "" {
		return "another goroutine took the call's own lock while the call had released it (to wait on a sync.Cond, say): the changes found may be its own"
	}
	return "another goroutine locked " + lock + " during the call: the changes found may be its own"
}

// holders records the locks that snapshotted calls of the lock idiom hold,
// with their goroutines, from their snapshot to their comparison: a walk
// for a call that runs further up the same goroutine's stack finds the
// lock taken, and reads under it, as no other goroutine can write what it
// guards meanwhile.
var holders struct {
	n      atomic.Int32 // locks registered: walks look only while not 0
	mu     sync.Mutex
	byLock map[unsafe.Pointer][]uint64
}

// hold records that goroutine gid holds the lock at p.
func hold(p unsafe.Pointer, gid uint64) {
	holders.mu.Lock()
	if holders.byLock == nil {
		holders.byLock = map[unsafe.Pointer][]uint64{}
	}
	holders.byLock[p] = append(holders.byLock[p], gid)
	holders.n.Add(1)
	holders.mu.Unlock()
}

// unhold undoes one hold(p, gid).
func unhold(p unsafe.Pointer, gid uint64) {
	holders.mu.Lock()
	defer holders.mu.Unlock()
	list := holders.byLock[p]
	i := slices.Index(list, gid)
	if i < 0 {
		return
	}
	list = slices.Delete(list, i, i+1)
	if len(list) == 0 {
		delete(holders.byLock, p)
	} else {
		holders.byLock[p] = list
	}
	holders.n.Add(-1)
}

// heldBy reports whether goroutine gid holds the lock at p, as hold
// recorded.
func heldBy(p unsafe.Pointer, gid uint64) bool {
	holders.mu.Lock()
	defer holders.mu.Unlock()
	return slices.Contains(holders.byLock[p], gid)
}
