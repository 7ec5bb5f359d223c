package rt

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// difference is a place where the object graph of a call differs from
// the graph at call entry.
type difference struct {
	Path    string  // Go-like path from a root: v.items[3].name, v.m["k"], *p, v.i.(*T).x
	Before  string  // short rendering of the value at entry, e.g. 0, "abc", nil, len=3, &{…}, absent
	After   string  // the same for now
	Changes changes // what kind of state the path leads into
}

// changes says what kind of state a differing path leads into, from the
// most visible to a caller to the least. A non-atomic call is as visible
// as its most visible difference.
type changes uint8

const (
	// callerVisible: state the caller holds through the receiver and the
	// arguments, other than the two kinds below.
	callerVisible changes = iota
	// streamPosition: the inside of a reader or writer the call reads from
	// or writes to (consumed input, partial output): the standard
	// library's in-memory streams (bytes.Buffer, bytes.Reader,
	// strings.Reader, strings.Builder, bufio.Reader, bufio.Writer,
	// bufio.Scanner) wherever they are, and whatever a field or element
	// of an interface type with an io.Reader or io.Writer method holds.
	streamPosition
	// scratchState: a field the policy declares scratch (a buffer the
	// call may reuse and overwrite, whose contents mean nothing between
	// calls).
	scratchState
	// normalization: a nil slice or map that became an empty one, or the
	// other way (a constructor that makes a nil slice empty before the
	// failure): no caller that reads it with len, range or an index sees
	// a change, only one that compares it with nil.
	normalization
	numChanges
)

// changesNames are the words of the event log and of the reports.
var changesNames = [numChanges]string{callerVisible: "caller-visible", streamPosition: "stream", scratchState: "scratch", normalization: "normalization"}

func (k changes) String() string { return changesNames[k] }

// firstDiff walks the graph reachable now from roots (the very slice given
// to takeSnapshot) alongside the snapshot and returns the first difference
// of the most visible kind (see changes), or equal when the two graphs are
// equal by value: a pointer may now point to another object with equal
// contents, a slice may have a new backing array with equal elements.
// names[i] is the display name of roots[i].
//
// The walk ends at the first caller-visible difference. Until it meets
// one, it goes on past differences in stream positions and scratch
// fields, so that a call that changed only those is known to have; it
// renders only the first difference of each kind.
//
// The walk is breadth-first over indirections: the inline parts of the
// roots (in order) come first, then what their pointers, slices, maps and
// interfaces lead to, and so on; within a value, struct fields go in order,
// elements by index, map entries in sorted key order (keys of kinds with no
// natural order, such as pointers, by address: stable within a run). So
// the difference reported is one with the fewest indirections from a root,
// which is usually the one that explains the others.
//
// When s.locks is set, the walk takes the locks that guard what it reads
// now (see locks.go) and leaves them held, for the caller to release. A
// lock held elsewhere ends it: it then reports equal, with s.locks.blocked
// naming the lock.
//
// firstDiff never panics; should the walk fail on a graph it cannot
// handle, it reports equal, since it has no way to say "unknown" and a
// panic would crash the program under test.
func (s *snapshot) firstDiff(roots []any, names []string) (d difference, equal bool) {
	if s == nil {
		return difference{}, true
	}
	defer func() {
		if recover() != nil {
			d, equal = difference{}, true
		}
	}()
	return s.compareGraph(roots, names)
}

// compareGraph is firstDiff without the guard against panics, so that
// tests see them.
func (s *snapshot) compareGraph(roots []any, names []string) (difference, bool) {
	// Each saved object, array and map is usually paired once.
	if !s.locks.lockRoots(roots, names) {
		return difference{}, true
	}
	c := &comparer{s: s, visited: make(map[pairKey]struct{}, len(s.objects)+len(s.arrays)+len(s.maps))}
	c.class = callerVisible
	anyPlan := s.plan(reflect.TypeFor[any]())
	for i := range min(len(roots), len(s.roots)) {
		name := "root" + strconv.Itoa(i)
		if i < len(names) && names[i] != "" {
			name = names[i]
		}
		c.path = &pathNode{step: pathStep{op: stepRoot, name: name}}
		c.steps = c.steps[:0]
		c.class = callerVisible
		if c.interfaces(unsafe.Pointer(&s.roots[i]), unsafe.Pointer(&roots[i]), anyPlan, true) {
			return c.diffs[callerVisible], false
		}
	}
	for c.head < len(c.queue) {
		it := c.queue[c.head]
		c.head++
		if c.head == len(c.queue) {
			c.queue, c.head = c.queue[:0], 0 // reuse the queue's memory
		}
		c.path, c.steps, c.class = it.path, c.steps[:0], it.class
		var found bool
		if it.savedMap != nil {
			found = c.mapEntries(it)
		} else {
			found = c.run(it)
		}
		if found {
			if s.locks != nil && s.locks.blocked != "" {
				return difference{}, true
			}
			return c.diffs[callerVisible], false
		}
	}
	for k := range numChanges {
		if c.found[k] > 0 {
			return c.diffs[k], false
		}
	}
	return difference{}, true
}

// comparer holds the state of one comparison.
type comparer struct {
	s *snapshot
	// queue holds the pairs still to compare, in walk order, from head on.
	queue []compareItem
	head  int
	// visited holds the pairs (object at entry, object now) already queued:
	// each pair is compared once, which ends cycles and shared objects.
	// Assuming a pair equal while it is being compared is sound because
	// a difference found later in the pair is found all the same.
	visited map[pairKey]struct{}
	// path is the path of the item being compared; steps are the steps
	// taken inside it (fields, indexes), turned into path nodes only when
	// a difference is found or a pair is queued.
	path  *pathNode
	steps []pathStep
	// class is the kind of state the current position is in; diffs holds
	// the first difference of each kind, found how many there were.
	class changes
	diffs [numChanges]difference
	found [numChanges]int
	// nodes is where path nodes are allocated from, a run at a time;
	// runs double up to 128 nodes, from nodesRun.
	nodes    []pathNode
	nodesRun int
}

// node returns a new path node.
func (c *comparer) node(parent *pathNode, step pathStep) *pathNode {
	if len(c.nodes) == 0 {
		c.nodesRun = min(max(2*c.nodesRun, 2), 128)
		c.nodes = make([]pathNode, c.nodesRun)
	}
	n := &c.nodes[0]
	c.nodes = c.nodes[1:]
	*n = pathNode{parent: parent, step: step}
	return n
}

// compareItem is a queued pair: n values of one type at entry (copied
// memory) and now, or, when savedMap is set, a map at entry and now.
type compareItem struct {
	saved, live unsafe.Pointer // for maps, live is the map's runtime pointer
	plan        *typePlan
	n           int
	indexed     bool // the values are slice elements: add [i] to the path
	savedMap    *savedMap
	path        *pathNode
	class       changes // the kind of state the values are in
}

// pairKey names a queued pair. n tells pointers (0), slices (their length)
// and maps (-1) apart.
type pairKey struct {
	saved, live unsafe.Pointer
	plan        *typePlan
	n           int
}

// enqueue queues a pair unless it was queued before.
func (c *comparer) enqueue(key pairKey, it compareItem) {
	if _, seen := c.visited[key]; seen {
		return
	}
	c.visited[key] = struct{}{}
	c.queue = append(c.queue, it)
}

func (c *comparer) push(st pathStep) { c.steps = append(c.steps, st) }
func (c *comparer) pop()             { c.steps = c.steps[:len(c.steps)-1] }

// here returns the path node of the current position.
func (c *comparer) here() *pathNode {
	n := c.path
	for _, st := range c.steps {
		n = c.node(n, st)
	}
	return n
}

// again counts a difference at the current position and reports whether
// one of its kind was recorded before: then there is no need to render
// it. Callers write !c.again() && c.report(…), which renders the values
// only for the first difference of each kind.
func (c *comparer) again() bool {
	c.found[c.class]++
	return c.found[c.class] > 1
}

// report records a difference at the current position, counted by again.
// It returns whether the walk is over: a caller-visible difference ends
// it, others do not.
func (c *comparer) report(before, after string) bool {
	c.diffs[c.class] = difference{Path: c.here().render(c.s), Before: shorten(before), After: shorten(after), Changes: c.class}
	return c.class == callerVisible
}

// reportValues records a difference between the value at sp (at entry)
// and at lp (now).
func (c *comparer) reportValues(sp, lp unsafe.Pointer, pl *typePlan) bool {
	return !c.again() && c.report(c.s.renderValue(sp, pl, true), c.s.renderValue(lp, pl, false))
}

// reportNormalization records a nil slice or map that became an empty
// one, or the other way, as a normalization, unless the position is in a
// less visible kind already.
func (c *comparer) reportNormalization(sp, lp unsafe.Pointer, pl *typePlan) bool {
	outer := c.enter(normalization)
	defer func() { c.class = outer }()
	return c.reportValues(sp, lp, pl)
}

// enter makes the current position part of a value of kind k, unless it
// is in a less visible kind already (a scratch field of a stream stays a
// stream, a stream in a scratch field stays scratch: the outer one says
// what the state is for). It returns the kind to restore when leaving.
func (c *comparer) enter(k changes) changes {
	old := c.class
	if old == callerVisible {
		c.class = k
	}
	return old
}

// run compares the values of a queued item one by one.
func (c *comparer) run(it compareItem) bool {
	if c.s.locks.skips(it.live, it.plan, it.n) {
		return false // the call's own lock guards it: its regions compare it
	}
	if !c.s.locks.lockValues(it.live, it.plan, it.n) {
		return true // blocked: compareGraph tells it from a difference
	}
	size := it.plan.size
	if it.plan.flat && memEqual(it.saved, it.live, uintptr(it.n)*size) {
		return false
	}
	for i := range it.n {
		c.steps = c.steps[:0]
		if it.indexed {
			c.push(pathStep{op: stepIndex, index: i})
		}
		off := uintptr(i) * size
		if c.value(unsafe.Add(it.saved, off), unsafe.Add(it.live, off), it.plan) {
			return true
		}
	}
	return false
}

// value compares the value at sp (copied memory, the world at entry) with
// the value at lp (the world now), both of type pl. It compares inline
// parts at once and queues what lies behind references. It reports
// whether a difference was found.
func (c *comparer) value(sp, lp unsafe.Pointer, pl *typePlan) bool {
	if pl.size == 0 || pl.ignored {
		return false
	}
	if pl.conc != concNone {
		return c.conc(sp, lp, pl)
	}
	if pl.value {
		return c.values(sp, lp, pl)
	}
	if pl.flat && memEqual(sp, lp, pl.size) {
		return false
	}
	if pl.known != knownNone && pl.known != knownDuration {
		return c.known(sp, lp, pl)
	}
	switch pl.kind {
	case reflect.Pointer:
		return c.pointers(*(*unsafe.Pointer)(sp), *(*unsafe.Pointer)(lp), pl)
	case reflect.Slice:
		return c.slices(sp, lp, pl)
	case reflect.Map:
		return c.maps(sp, lp, pl)
	case reflect.Interface:
		return c.interfaces(sp, lp, pl, false)
	case reflect.Array:
		for i := range pl.length {
			c.push(pathStep{op: stepIndex, index: i})
			off := uintptr(i) * pl.elem.size
			if c.value(unsafe.Add(sp, off), unsafe.Add(lp, off), pl.elem) {
				return true
			}
			c.pop()
		}
		return false
	case reflect.Struct:
		return c.structs(sp, lp, pl)
	}
	if scalarsEqual(sp, lp, pl) {
		return false
	}
	return c.reportValues(sp, lp, pl)
}

// structs compares two structs field by field. A stream's fields are
// stream positions, a scratch field is scratch.
func (c *comparer) structs(sp, lp unsafe.Pointer, pl *typePlan) bool {
	outer := c.class
	if pl.stream {
		c.enter(streamPosition)
	}
	scratch := c.s.scratchFields(pl)
	for i := range pl.fields {
		f := &pl.fields[i]
		c.push(pathStep{op: stepField, name: f.name})
		in := c.class
		if scratch != nil && scratch[i] {
			c.enter(scratchState)
		}
		if c.value(unsafe.Add(sp, f.offset), unsafe.Add(lp, f.offset), f.plan) {
			c.class = outer
			return true
		}
		c.class = in
		c.pop()
	}
	c.class = outer
	return false
}

// scalarsEqual compares two values of a kind with no inner structure.
// Floats are equal when == says so (-0 == +0) or when their bits are the
// same (a NaN left alone equals itself).
func scalarsEqual(a, b unsafe.Pointer, pl *typePlan) bool {
	switch pl.kind {
	case reflect.Float32:
		return floatsEqual(float64(*(*float32)(a)), float64(*(*float32)(b)),
			uint64(math.Float32bits(*(*float32)(a))), uint64(math.Float32bits(*(*float32)(b))))
	case reflect.Float64:
		x, y := *(*float64)(a), *(*float64)(b)
		return floatsEqual(x, y, math.Float64bits(x), math.Float64bits(y))
	case reflect.Complex64:
		x, y := *(*[2]float32)(a), *(*[2]float32)(b)
		return floatsEqual(float64(x[0]), float64(y[0]), uint64(math.Float32bits(x[0])), uint64(math.Float32bits(y[0]))) &&
			floatsEqual(float64(x[1]), float64(y[1]), uint64(math.Float32bits(x[1])), uint64(math.Float32bits(y[1])))
	case reflect.Complex128:
		x, y := *(*[2]float64)(a), *(*[2]float64)(b)
		return floatsEqual(x[0], y[0], math.Float64bits(x[0]), math.Float64bits(y[0])) &&
			floatsEqual(x[1], y[1], math.Float64bits(x[1]), math.Float64bits(y[1]))
	case reflect.String:
		return *(*string)(a) == *(*string)(b)
	case reflect.Func:
		return funcCode(a, pl) == funcCode(b, pl)
	}
	// Booleans, integers, channels and unsafe.Pointer: by their bits.
	return memEqual(a, b, pl.size)
}

func floatsEqual(x, y float64, xbits, ybits uint64) bool {
	return x == y || xbits == ybits
}

// funcCode is the code pointer of the func value at p, 0 for nil. Closures
// of the same function literal share it: funcs compare by code only.
func funcCode(p unsafe.Pointer, pl *typePlan) uintptr {
	return reflect.NewAt(pl.typ, p).Elem().Pointer()
}

// memEqual reports whether n bytes at a and b are the same.
func memEqual(a, b unsafe.Pointer, n uintptr) bool {
	if n == 0 || a == b {
		return true
	}
	return unsafe.String((*byte)(a), n) == unsafe.String((*byte)(b), n)
}

// pointers compares two pointers of type pl by what they point to: sp is
// the pointer held at entry, resolved through the snapshot; lp the pointer
// held now.
func (c *comparer) pointers(sp, lp unsafe.Pointer, pl *typePlan) bool {
	if sp == nil || lp == nil {
		if sp == lp {
			return false
		}
		return !c.again() && c.report(c.s.renderPointer(sp, pl, true), c.s.renderPointer(lp, pl, false))
	}
	elem := c.s.elemPlan(pl)
	if elem.report && sp == lp {
		// An error written in place is the report of the failure (a
		// key, a position, a cause set by a decorator), which a rollback
		// leaves as it is too: no change of state.
		return false
	}
	if elem.opaque && sp != lp {
		return !c.again() && c.report(c.s.renderPointer(sp, pl, true), c.s.renderPointer(lp, pl, false))
	}
	if elem.size == 0 || elem.ignored {
		return false
	}
	saved, ok := c.s.objects[objectKey{sp, elem}]
	if !ok {
		return false // not reached at entry: cannot happen for a graph walked from the same roots
	}
	path := c.node(c.here(), pathStep{op: stepDeref, plan: elem})
	c.enqueue(pairKey{sp, lp, elem, 0}, compareItem{saved: saved, live: lp, plan: elem, n: 1, path: path, class: c.class})
	return false
}

// values compares two reflect.Values (pl is reflect.Value's plan): one
// that refers to the same memory as at entry, what it refers to, as the
// snapshot saved it (see saveValue); otherwise the Values themselves.
func (c *comparer) values(sp, lp unsafe.Pointer, pl *typePlan) bool {
	sv, lv := *(*reflect.Value)(sp), *(*reflect.Value)(lp)
	if !sv.IsValid() || !lv.IsValid() || sv.Type() != lv.Type() || sv.CanAddr() != lv.CanAddr() {
		return c.structs(sp, lp, pl)
	}
	t := sv.Type()
	if sv.CanAddr() {
		if sv.UnsafeAddr() != lv.UnsafeAddr() {
			return c.structs(sp, lp, pl)
		}
		at := unsafe.Pointer(sv.UnsafeAddr())
		return c.pointers(at, at, c.s.plan(reflect.PointerTo(t)))
	}
	switch sv.Kind() {
	case reflect.Pointer, reflect.Map:
		sr, lr := sv.UnsafePointer(), lv.UnsafePointer()
		if sr != lr {
			return c.structs(sp, lp, pl)
		}
		if sv.Kind() == reflect.Pointer {
			return c.pointers(sr, lr, c.s.plan(t))
		}
		return c.maps(unsafe.Pointer(&sr), unsafe.Pointer(&lr), c.s.plan(t))
	case reflect.Slice:
		if sv.UnsafePointer() != lv.UnsafePointer() || sv.Len() != lv.Len() {
			return c.structs(sp, lp, pl)
		}
		h := unsafe.Slice((*byte)(sv.UnsafePointer()), sv.Cap())[:sv.Len()]
		return c.slices(unsafe.Pointer(&h), unsafe.Pointer(&h), c.s.plan(t))
	}
	return c.structs(sp, lp, pl)
}

// slices compares two slices: their nil-ness and lengths now, their
// elements later.
func (c *comparer) slices(sp, lp unsafe.Pointer, pl *typePlan) bool {
	sv, lv := reflect.NewAt(pl.typ, sp).Elem(), reflect.NewAt(pl.typ, lp).Elem()
	n := sv.Len()
	if n == 0 && lv.Len() == 0 && sv.IsNil() != lv.IsNil() {
		return c.reportNormalization(sp, lp, pl)
	}
	if sv.IsNil() != lv.IsNil() || n != lv.Len() {
		return c.reportValues(sp, lp, pl)
	}
	elem := c.s.elemPlan(pl)
	if n == 0 || elem.size == 0 || elem.ignored {
		return false
	}
	sdata, ldata := sv.UnsafePointer(), lv.UnsafePointer()
	saved, ok := c.s.arrays[arrayKey{sdata, elem, n}]
	if !ok {
		return false
	}
	c.enqueue(pairKey{sdata, ldata, elem, n},
		compareItem{saved: saved, live: ldata, plan: elem, n: n, indexed: true, path: c.here(), class: c.class})
	return false
}

// maps compares two maps: their nil-ness now, their entries later.
func (c *comparer) maps(sp, lp unsafe.Pointer, pl *typePlan) bool {
	sv, lv := reflect.NewAt(pl.typ, sp).Elem(), reflect.NewAt(pl.typ, lp).Elem()
	if sv.IsNil() || lv.IsNil() {
		if sv.IsNil() && lv.IsNil() {
			return false
		}
		if sv.Len() == 0 && lv.Len() == 0 {
			return c.reportNormalization(sp, lp, pl)
		}
		return c.reportValues(sp, lp, pl)
	}
	sm, lm := sv.UnsafePointer(), lv.UnsafePointer()
	saved := c.s.maps[objectKey{sm, pl}]
	if saved == nil {
		return false
	}
	c.enqueue(pairKey{sm, lm, pl, -1}, compareItem{live: lm, plan: pl, savedMap: saved, path: c.here(), class: c.class})
	return false
}

// mapEntries compares the entries of a map at entry and now, merging both
// in sorted key order: a key on one side only is reported as absent on
// the other, the values (and what keys reference) of a key on both sides
// are compared.
func (c *comparer) mapEntries(it compareItem) bool {
	pl := it.plan
	kp, vp := c.s.keyPlan(pl), c.s.elemPlan(pl)
	lm := it.live
	live := reflect.NewAt(pl.typ, unsafe.Pointer(&lm)).Elem()
	sm := it.savedMap
	lkeys, lvals, ln := copyEntries(live, kp, vp, live.Len())
	return c.mergeEntries(sm.keys, sm.vals, sm.n, lkeys, lvals, ln, kp, vp)
}

// mergeEntries compares the n entries of a map at entry (keys and values
// in the arrays skeys and svals, in any order) with the ln entries now.
func (c *comparer) mergeEntries(skeys, svals unsafe.Pointer, n int, lkeys, lvals unsafe.Pointer, ln int, kp, vp *typePlan) bool {
	sorder := c.sortEntries(skeys, svals, n, kp, vp)
	lorder := c.sortEntries(lkeys, lvals, ln, kp, vp)
	at := func(base unsafe.Pointer, i int, size uintptr) unsafe.Pointer {
		return unsafe.Add(base, uintptr(i)*size)
	}
	for i, j := 0, 0; i < n || j < ln; {
		order := 0
		switch {
		case i == n:
			order = 1
		case j == ln:
			order = -1
		default:
			order = c.compareKeys(at(skeys, sorder[i], kp.size), at(lkeys, lorder[j], kp.size), kp)
		}
		switch {
		case order < 0:
			k := sorder[i]
			c.push(pathStep{op: stepMapValue, key: at(skeys, k, kp.size), plan: kp})
			if !c.again() && c.report(c.s.renderValue(at(svals, k, vp.size), vp, true), "absent") {
				return true
			}
			c.pop()
			i++
			continue
		case order > 0:
			k := lorder[j]
			c.push(pathStep{op: stepMapValue, key: at(lkeys, k, kp.size), plan: kp})
			if !c.again() && c.report("absent", c.s.renderValue(at(lvals, k, vp.size), vp, false)) {
				return true
			}
			c.pop()
			j++
			continue
		}
		sk, lk := at(skeys, sorder[i], kp.size), at(lkeys, lorder[j], kp.size)
		c.push(pathStep{op: stepMapValue, key: sk, plan: kp})
		if c.value(at(svals, sorder[i], vp.size), at(lvals, lorder[j], vp.size), vp) {
			return true
		}
		c.pop()
		if kp.reaches {
			// Equal keys may still lead to objects that changed.
			c.push(pathStep{op: stepMapKey, key: sk, plan: kp})
			if c.value(sk, lk, kp) {
				return true
			}
			c.pop()
		}
		i, j = i+1, j+1
	}
	return false
}

// sortEntries returns the indexes of n map entries in key order. Keys
// that compare equal (only NaNs with the same bits can) are ordered by
// their values, so that an unchanged map pairs its entries the same way
// at entry and now.
func (c *comparer) sortEntries(keys, vals unsafe.Pointer, n int, kp, vp *typePlan) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if r := c.compareKeys(unsafe.Add(keys, uintptr(a)*kp.size), unsafe.Add(keys, uintptr(b)*kp.size), kp); r != 0 {
			return r
		}
		return c.compareKeys(unsafe.Add(vals, uintptr(a)*vp.size), unsafe.Add(vals, uintptr(b)*vp.size), vp)
	})
	return order
}

// compareKeys orders two values of type pl: numbers by value (NaNs after
// every number, by bits among themselves), strings lexically, pointers and
// channels by address, interfaces by dynamic type then value, structs and
// arrays field by field. It returns 0 exactly when Go's == holds, NaNs of
// the same bits aside. Kinds that cannot be map keys are ordered by
// identity, which is enough for breaking ties.
func (c *comparer) compareKeys(a, b unsafe.Pointer, pl *typePlan) int {
	if pl.size == 0 || a == b {
		return 0
	}
	if pl.ignored || pl.conc != concNone {
		return strings.Compare(unsafe.String((*byte)(a), pl.size), unsafe.String((*byte)(b), pl.size))
	}
	switch pl.kind {
	case reflect.Bool:
		return cmp.Compare(*(*uint8)(a), *(*uint8)(b))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(readInt(a, pl.kind), readInt(b, pl.kind))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(readUint(a, pl.kind), readUint(b, pl.kind))
	case reflect.Float32:
		x, y := *(*float32)(a), *(*float32)(b)
		return compareFloats(float64(x), float64(y), uint64(math.Float32bits(x)), uint64(math.Float32bits(y)))
	case reflect.Float64:
		x, y := *(*float64)(a), *(*float64)(b)
		return compareFloats(x, y, math.Float64bits(x), math.Float64bits(y))
	case reflect.Complex64:
		x, y := *(*[2]float32)(a), *(*[2]float32)(b)
		if r := compareFloats(float64(x[0]), float64(y[0]), uint64(math.Float32bits(x[0])), uint64(math.Float32bits(y[0]))); r != 0 {
			return r
		}
		return compareFloats(float64(x[1]), float64(y[1]), uint64(math.Float32bits(x[1])), uint64(math.Float32bits(y[1])))
	case reflect.Complex128:
		x, y := *(*[2]float64)(a), *(*[2]float64)(b)
		if r := compareFloats(x[0], y[0], math.Float64bits(x[0]), math.Float64bits(y[0])); r != 0 {
			return r
		}
		return compareFloats(x[1], y[1], math.Float64bits(x[1]), math.Float64bits(y[1]))
	case reflect.String:
		return strings.Compare(*(*string)(a), *(*string)(b))
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer, reflect.Map:
		return cmp.Compare(uintptr(*(*unsafe.Pointer)(a)), uintptr(*(*unsafe.Pointer)(b)))
	case reflect.Func:
		return cmp.Compare(funcCode(a, pl), funcCode(b, pl))
	case reflect.Slice:
		x, y := reflect.NewAt(pl.typ, a).Elem(), reflect.NewAt(pl.typ, b).Elem()
		if r := cmp.Compare(uintptr(x.UnsafePointer()), uintptr(y.UnsafePointer())); r != 0 {
			return r
		}
		return cmp.Compare(x.Len(), y.Len())
	case reflect.Interface:
		return c.compareInterfaceKeys(reflect.NewAt(pl.typ, a).Elem(), reflect.NewAt(pl.typ, b).Elem())
	case reflect.Array:
		for i := range pl.length {
			off := uintptr(i) * pl.elem.size
			if r := c.compareKeys(unsafe.Add(a, off), unsafe.Add(b, off), pl.elem); r != 0 {
				return r
			}
		}
	case reflect.Struct:
		for i := range pl.fields {
			f := &pl.fields[i]
			if r := c.compareKeys(unsafe.Add(a, f.offset), unsafe.Add(b, f.offset), f.plan); r != 0 {
				return r
			}
		}
	}
	return 0
}

// compareInterfaceKeys orders two interface values: nil first, then by
// dynamic type (name, then identity for distinct types of the same name),
// then by value.
func (c *comparer) compareInterfaceKeys(x, y reflect.Value) int {
	if x.IsNil() || y.IsNil() {
		return cmp.Compare(boolInt(!x.IsNil()), boolInt(!y.IsNil()))
	}
	xe, ye := x.Elem(), y.Elem()
	xt, yt := xe.Type(), ye.Type()
	if xt != yt {
		if r := strings.Compare(xt.String(), yt.String()); r != 0 {
			return r
		}
		return cmp.Compare(reflect.ValueOf(xt).Pointer(), reflect.ValueOf(yt).Pointer())
	}
	// Strings and integers, the usual keys of a map[any]V or a sync.Map,
	// without copies.
	switch xt.Kind() {
	case reflect.String:
		return strings.Compare(xe.String(), ye.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(xe.Int(), ye.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(xe.Uint(), ye.Uint())
	}
	xc, yc := reflect.New(xt), reflect.New(yt)
	xc.Elem().Set(xe)
	yc.Elem().Set(ye)
	return c.compareKeys(xc.UnsafePointer(), yc.UnsafePointer(), c.s.plan(xt))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// compareFloats orders floats by value, NaNs last and by bits among
// themselves; -0 and +0 are equal, as they are the same map key.
func compareFloats(x, y float64, xbits, ybits uint64) int {
	if r := cmp.Compare(x, y); r != 0 {
		xnan, ynan := x != x, y != y
		if xnan != ynan {
			return cmp.Compare(boolInt(xnan), boolInt(ynan))
		}
		return r
	}
	if x != x { // both NaN
		return cmp.Compare(xbits, ybits)
	}
	return 0
}

// interfaces compares two interface values: nil-ness and dynamic type now,
// the dynamic values inline when they are scalars, later otherwise. A root
// is an interface too, but its path shows no type assertion.
func (c *comparer) interfaces(sp, lp unsafe.Pointer, pl *typePlan, root bool) bool {
	sv, lv := reflect.NewAt(pl.typ, sp).Elem(), reflect.NewAt(pl.typ, lp).Elem()
	if sv.IsNil() && lv.IsNil() {
		return false
	}
	if sv.IsNil() || lv.IsNil() || sv.Elem().Type() != lv.Elem().Type() {
		return !c.again() && c.report(c.s.renderInterface(sv, true), c.s.renderInterface(lv, false))
	}
	if pl.stream {
		// What an io.Reader or io.Writer holds is the stream's state; the
		// interface itself (which stream it is) is not.
		outer := c.enter(streamPosition)
		defer func() { c.class = outer }()
	}
	se, le := sv.Elem(), lv.Elem()
	dp := c.s.plan(se.Type())
	if dp.size == 0 || dp.ignored {
		return false
	}
	if dp.kind == reflect.String && se.String() == le.String() {
		return false // the common case, without copies
	}
	if dp.kind == reflect.Pointer {
		if !root {
			c.push(pathStep{op: stepAssert, plan: dp})
			defer c.pop()
		}
		return c.pointers(se.UnsafePointer(), le.UnsafePointer(), dp)
	}
	scopy, lcopy := reflect.New(dp.typ), reflect.New(dp.typ)
	scopy.Elem().Set(se)
	lcopy.Elem().Set(le)
	scp, lcp := scopy.UnsafePointer(), lcopy.UnsafePointer()
	if dp.flat && memEqual(scp, lcp, dp.size) {
		return false
	}
	if dp.kind != reflect.Struct && dp.kind != reflect.Array && dp.kind != reflect.Slice && dp.kind != reflect.Map {
		// A scalar: report the interface itself, with its type.
		if scalarsEqual(scp, lcp, dp) {
			return false
		}
		return !c.again() && c.report(c.s.renderInterface(sv, true), c.s.renderInterface(lv, false))
	}
	var path *pathNode
	if root {
		path = c.here()
	} else {
		c.push(pathStep{op: stepAssert, plan: dp})
		path = c.here()
		c.pop()
	}
	// Boxes never change and cannot form cycles: no need to remember them.
	c.queue = append(c.queue, compareItem{saved: scp, live: lcp, plan: dp, n: 1, path: path, class: c.class})
	return false
}

// readInt reads a signed integer of the given kind at p.
func readInt(p unsafe.Pointer, k reflect.Kind) int64 {
	switch k {
	case reflect.Int8:
		return int64(*(*int8)(p))
	case reflect.Int16:
		return int64(*(*int16)(p))
	case reflect.Int32:
		return int64(*(*int32)(p))
	case reflect.Int64:
		return *(*int64)(p)
	}
	return int64(*(*int)(p))
}

// readUint reads an unsigned integer of the given kind at p.
func readUint(p unsafe.Pointer, k reflect.Kind) uint64 {
	switch k {
	case reflect.Uint8:
		return uint64(*(*uint8)(p))
	case reflect.Uint16:
		return uint64(*(*uint16)(p))
	case reflect.Uint32:
		return uint64(*(*uint32)(p))
	case reflect.Uint64:
		return *(*uint64)(p)
	case reflect.Uintptr:
		return uint64(*(*uintptr)(p))
	}
	return uint64(*(*uint)(p))
}
