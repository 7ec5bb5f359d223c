package rt

import (
	"reflect"
	"slices"
	"sync/atomic"
	"unsafe"
)

// Lock regions. Most Go code does not open with the lock idiom: it locks
// mid-body (validate, then c.mu.Lock() … c.mu.Unlock(), then return the
// error), once per item of a loop, with TryLock, by RLock then Lock. At
// entry, such a call cannot read what its locks guard without taking
// them, and other goroutines may change that state before the call takes
// the lock itself. But while the call holds one of its locks, nobody else
// writes what that lock guards: that is when the call's own changes to it
// can be seen.
//
// So a call of such a function, when it is snapshotted, splits its graph
// in two:
//
//   - what its own locks guard (the structs that hold them) is left out of
//     the snapshot at entry and of the comparison at exit;
//   - each time the call takes one of its locks for writing, a region
//     begins: the graph is snapshotted with that lock held (read under it,
//     as a lock idiom's), and compared just before the call releases it.
//     The first difference that a region leaves is the call's own change,
//     made under its lock.
//
// When the call fails, a difference found by the comparison at exit or
// left by any of its regions makes it non-atomic: a loop that puts one
// item per region and fails at the third has changed the state. A region
// of a read lock reads only: it is not snapshotted. A region whose lock a
// deferred x.Unlock() releases ends when that unlock runs, before the
// comparison at exit; one that ends otherwise (a callee releases the lock)
// is not compared (see finish).
//
// The locks the call takes are its own only as the instrumented code
// says: the lock expressions it can name at entry (a field of the
// receiver or of a parameter, through embedded structs: see SnapRegions),
// every lock of a struct type the call locks through another variable (a
// loop's item), and each lock it took since.

// Regions is a snapshotted call's handle on its lock regions: the
// instrumented function tells it where it takes and releases its locks.
// Its methods do nothing on a nil *Regions, which is what calls that are
// not snapshotted have.
type Regions struct {
	r unsafe.Pointer // *lockRegions; not named, see callExt.snap
}

// lockRegions is what a call knows of its lock regions.
type lockRegions struct {
	site  *Site
	roots []any
	names []string
	// held is the lock of the call's lock idiom, if any, and gid its
	// goroutine, once known.
	held unsafe.Pointer
	gid  uint64
	// own are the locks the call takes (see above): the walks at entry and
	// exit skip what they guard, and so do region walks while they are
	// not held. ownTypes are the struct types whose lock field it takes
	// through a variable it cannot name at entry.
	own      []unsafe.Pointer
	ownTypes []ownType
	open     []lockRegion
	// diff is the first change a region left; reason, when a region
	// could not be compared, says why.
	diff    difference
	changed bool
	reason  string
}

// ownType is a lock field, named as lockField names it, of every value of
// a struct type.
type ownType struct {
	typ   reflect.Type
	field string
}

// lockRegion is a region of a call: from taking a lock to releasing it.
type lockRegion struct {
	lock   unsafe.Pointer
	read   bool
	snap   *snapshot // nil for a read lock, or when it could not be taken
	reason string    // why snap is nil, for a write lock
}

// SnapRegions is Snap for a function that takes its locks mid-body: own
// names the locks the function takes, as far as they are known at entry,
// in pairs of a value and a lock field's path in it ("mu", "inner.mu",
// "Mutex" for an embedded one, "" for the value itself): a pointer to a
// struct names that struct's lock (nothing, when nil), a nil pointer of a
// struct type names that lock in every value of the type. The snapshot
// leaves out what they guard (see above). It returns the handle the
// function reports its regions to, nil when the call is not snapshotted.
func (c *Call) SnapRegions(own []any, roots ...any) *Regions {
	if c.site == nil || !c.is(callWanted) {
		return nil
	}
	r := &lockRegions{site: c.site}
	for i := 0; i+1 < len(own); i += 2 {
		r.addOwn(own[i], own[i+1])
	}
	ext := &callExt{}
	if c.ext != nil {
		*ext = *c.ext
	}
	ext.regions = unsafe.Pointer(r)
	c.ext = ext
	c.Snap(roots...)
	snap := callSnapshot(c)
	if snap == nil || c.is(callTooLarge) {
		c.ext.regions = nil
		return nil
	}
	r.roots, r.names, r.held, r.gid = snap.roots, snap.names, c.ext.held, c.ext.gid
	return &Regions{r: unsafe.Pointer(r)}
}

// addOwn adds the lock that x and field name (see SnapRegions).
func (r *lockRegions) addOwn(x, field any) {
	path, _ := field.(string)
	if p, _ := lockPointer(x); p != nil && path == "" {
		r.own = append(r.own, p)
		return
	}
	t := reflect.TypeOf(x)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || path == "" {
		return
	}
	pl := planOf(t.Elem())
	base := reflect.ValueOf(x).UnsafePointer()
	if base == nil {
		r.ownTypes = append(r.ownTypes, ownType{typ: t.Elem(), field: path})
		return
	}
	for _, l := range pl.locks {
		if l.name != path {
			continue
		}
		lp := unsafe.Add(base, l.offset)
		if l.ptr {
			lp = *(*unsafe.Pointer)(lp)
		}
		if lp != nil {
			r.own = append(r.own, lp)
		}
	}
}

// regionsOf returns the lock regions of call c, or nil.
func regionsOf(c *Call) *lockRegions {
	if c.ext == nil {
		return nil
	}
	return (*lockRegions)(c.ext.regions)
}

// Acquired is called by the instrumented function right after it took
// lock (a *sync.Mutex or *sync.RWMutex) for writing: a region begins.
func (h *Regions) Acquired(lock any) {
	if h != nil && h.r != nil {
		regionAcquired(h.r, lock, false)
	}
}

// ReadAcquired is Acquired for a read lock.
func (h *Regions) ReadAcquired(lock any) {
	if h != nil && h.r != nil {
		regionAcquired(h.r, lock, true)
	}
}

// regionAcquired and regionReleasing are what Regions' methods do once a
// call has regions. Regions has no method that names *lockRegions, and
// these are not inlined: an instrumented package that named it, in a
// method's signature or an inlined body, would compile reflect's generic
// shapes again, since its snapshots reach reflect's types (see
// callSnapshot).
//
//go:noinline
func regionAcquired(r unsafe.Pointer, lock any, read bool) {
	(*lockRegions)(r).acquired(lock, read)
}

//go:noinline
func regionReleasing(r unsafe.Pointer, lock any) {
	(*lockRegions)(r).releasing(lock)
}

// Tried is called with the result of lock.TryLock(), which it returns: a
// region begins when it succeeded. It tells the watches of other calls
// too (see Took).
func (h *Regions) Tried(lock any, ok bool) bool {
	if ok {
		Took(lock)
		h.Acquired(lock)
	}
	return ok
}

// TriedRead is Tried for lock.TryRLock().
func (h *Regions) TriedRead(lock any, ok bool) bool {
	if ok {
		h.ReadAcquired(lock)
	}
	return ok
}

// Releasing is called by the instrumented function right before it
// releases lock: the region of that lock that began last ends, and is
// compared with what it was when it began.
func (h *Regions) Releasing(lock any) {
	if h != nil && h.r != nil {
		regionReleasing(h.r, lock)
	}
}

func (r *lockRegions) acquired(lock any, read bool) {
	p, _ := lockPointer(lock)
	if p == nil {
		return
	}
	if r.gid == 0 {
		r.gid = goroutineID()
	}
	if !slices.Contains(r.own, p) {
		r.own = append(r.own, p)
	}
	// Until it is released, walks for the calls it makes find the lock
	// held by their goroutine (see holders).
	hold(p, r.gid)
	reg := lockRegion{lock: p, read: read}
	r.open = append(r.open, reg)
	if !read && !r.changed {
		reg.snap, reg.reason = r.snapshot()
		r.open[len(r.open)-1] = reg
	}
}

// lockSet is the locks that a walk of a region reads under: the ones the
// call holds, and its own that it does not hold now, which it skips.
func (r *lockRegions) lockSet() *lockSet {
	ls := &lockSet{held: r.held, gid: r.gid, own: r.own, ownTypes: r.ownTypes, names: r.names}
	for _, reg := range r.open {
		ls.also = append(ls.also, reg.lock)
	}
	return ls
}

// snapshot snapshots the call's graph in the region that just began.
func (r *lockRegions) snapshot() (*snapshot, string) {
	budget := r.site.Budget
	if budget <= 0 {
		budget = defaultSnapshotBudget
	}
	left := liveSnapshotBudget - liveSnapshotWords.Load()
	if left <= 0 {
		return nil, ReasonLiveBudget
	}
	ls := r.lockSet()
	snap, ok := takeLockedSnapshot(r.roots, int(min(int64(budget), left)), ls)
	if ok {
		snap.watch = ls.watch()
	}
	ls.release()
	switch {
	case ok:
		snap.names = r.names
		liveSnapshotWords.Add(int64(snap.used))
		return snap, ""
	case ls.blocked != "":
		return nil, regionLockReason(ls.blocked)
	case int64(budget) > left:
		return nil, ReasonLiveBudget
	}
	return nil, "graph too large"
}

// regionLockReason is the reason of the verdict of a call whose region's
// walk found a lock held elsewhere.
func regionLockReason(blocked string) string {
	return blocked + " was locked, by a caller or another goroutine, while the call held its own lock: the graph it guards was not read"
}

func (r *lockRegions) releasing(lock any) {
	p, _ := lockPointer(lock)
	if p == nil {
		return
	}
	for i := len(r.open) - 1; i >= 0; i-- {
		if r.open[i].lock == p {
			r.close(i)
			return
		}
	}
}

// close ends the open region i, compared before its lock is released.
func (r *lockRegions) close(i int) {
	defer r.drop(i)
	r.compare(r.open[i])
}

// compare compares the open region reg with what it was when it began,
// while its lock is still held.
func (r *lockRegions) compare(reg lockRegion) {
	if reg.read {
		return
	}
	if reg.snap == nil {
		if r.reason == "" {
			r.reason = reg.reason
		}
		return
	}
	snap := reg.snap
	if r.changed {
		return // the first change is kept: no need to look for another
	}
	snap.locks = r.lockSet()
	d, equal := snap.firstDiff(snap.roots, snap.names)
	blocked := snap.locks.blocked
	snap.unlock()
	switch {
	case blocked != "":
		if r.reason == "" {
			r.reason = regionLockReason(blocked)
		}
	case equal:
	default:
		if lock, ok := contended(snap.watch); ok {
			if r.reason == "" {
				r.reason = contendedReason(lock)
			}
			return
		}
		r.diff, r.changed = d, true
	}
}

// finish ends the regions still open when the failed call ends. A region
// released by a deferred unlock was compared already (the rewrite defers
// Releasing after the unlock, so it runs first): one still open ended by
// a path that did not pass the function's own unlock. Either a panic
// went through, or the function returns with the lock held for its
// caller to release, and the lock is still held by the call: it is
// compared now. Or a callee released it: the lock is free, or another
// goroutine's, and it is not read. Which of the two it is, the lock says:
// a lock that is still locked, and that no instrumented code of another
// goroutine took since the region began (the region's watch), is the
// call's. Only code outside the instrumented packages that took the lock
// after a callee released it could deceive this, and such code cannot
// name the unexported lock fields that are the rule.
func (r *lockRegions) finish() {
	if r == nil {
		return
	}
	for len(r.open) > 0 {
		i := len(r.open) - 1
		reg := r.open[i]
		switch {
		case reg.read || r.changed:
		case reg.snap != nil && stillLocked(reg.lock):
			if lock, ok := contended(reg.snap.watch); ok {
				if r.reason == "" {
					r.reason = contendedReason(lock)
				}
				break
			}
			r.compare(reg)
		case r.reason == "":
			r.reason = ReasonRegionOpen
		}
		r.drop(i)
	}
}

// stillLocked reports whether the lock at p, a sync.Mutex or the writer's
// mutex that opens a sync.RWMutex, is locked: the first word of both is
// the mutex's state, whose lowest bit says so in every Go release.
func stillLocked(p unsafe.Pointer) bool {
	return atomic.LoadInt32((*int32)(p))&1 != 0
}

// ReasonRegionOpen is the reason of the verdict of a call that ended with
// a lock region open whose lock was released elsewhere.
const ReasonRegionOpen = "the call ended without passing the unlock of a lock it took, which a callee released: what the lock guards was not read at the end"

// discard ends the regions still open when the call ends without a
// failure: nothing to compare.
func (r *lockRegions) discard() {
	if r == nil {
		return
	}
	for len(r.open) > 0 {
		r.drop(len(r.open) - 1)
	}
}

// drop ends the open region i without comparing it.
func (r *lockRegions) drop(i int) {
	reg := r.open[i]
	if reg.snap != nil {
		liveSnapshotWords.Add(-int64(reg.snap.used))
		unwatch(reg.snap.watch)
	}
	r.open = slices.Delete(r.open, i, i+1)
	unhold(reg.lock, r.gid)
}

// combine merges what the regions of a failed call found into its
// verdict v, made by the comparison at exit: a change the call made under
// its own lock makes it non-atomic, and was not rolled back.
func (r *lockRegions) combine(v *verdictEvent) {
	switch {
	case r == nil || v.verdict == "non-atomic" && !v.masked:
	case r.changed:
		v.verdict, v.diff, v.reason, v.masked = "non-atomic", r.diff, "", false
	case r.reason != "" && v.verdict == "atomic":
		v.verdict, v.reason, v.masked = "unknown", r.reason, false
	}
}

// skips reports whether the walk ls leaves the n values of type pl at p
// unread: one of their locks is the call's own and not held now (see
// above).
func (ls *lockSet) skips(p unsafe.Pointer, pl *typePlan, n int) bool {
	if ls == nil || len(pl.locks) == 0 || len(ls.own) == 0 && len(ls.ownTypes) == 0 {
		return false
	}
	for i := range n {
		v := unsafe.Add(p, uintptr(i)*pl.size)
		for _, l := range pl.locks {
			lp := unsafe.Add(v, l.offset)
			if l.ptr {
				if lp = *(*unsafe.Pointer)(lp); lp == nil {
					continue
				}
			}
			if lp == ls.held || slices.Contains(ls.also, lp) {
				continue
			}
			if slices.Contains(ls.own, lp) || slices.ContainsFunc(ls.ownTypes, func(o ownType) bool {
				return o.typ == pl.typ && o.field == l.name
			}) {
				return true
			}
		}
	}
	return false
}
