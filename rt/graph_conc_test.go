package rt

import (
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// cnode is a node of a graph of concurrent data: linked by an
// atomic.Pointer, tagged in a sync.Map.
type cnode struct {
	val  int
	next atomic.Pointer[cnode]
	tags sync.Map
}

// cobj holds a value of every type of concurrent data, and a lock.
type cobj struct {
	b   atomic.Bool
	i32 atomic.Int32
	i64 atomic.Int64
	u32 atomic.Uint32
	u64 atomic.Uint64
	uip atomic.Uintptr
	v   atomic.Value
	p   atomic.Pointer[cnode]
	m   sync.Map
	mu  sync.Mutex
	n   int
}

// newCobj returns a cobj with every value set but v, and the node p
// points to, which m also holds under "n".
func newCobj() (*cobj, *cnode) {
	c := &cobj{n: 1}
	c.i32.Store(-2)
	c.i64.Store(3)
	c.u32.Store(4)
	c.u64.Store(5)
	c.uip.Store(6)
	nd := &cnode{val: 1}
	nd.tags.Store("t", "first")
	c.p.Store(nd)
	c.m.Store("a", "x")
	c.m.Store("n", nd)
	return c, nd
}

// concCase is a graph of concurrent data, a mutation, the difference it
// makes (nil for none) and whether a rollback can undo it.
type concCase struct {
	name string
	// build returns the roots and the mutation.
	build func() (roots []any, mutate func() *difference)
	// kept says that the rollback cannot undo the mutation (an empty
	// atomic.Value given a value).
	kept bool
}

// cobjCase is a concCase on one *cobj root named v.
func cobjCase(name string, mutate func(v *cobj, nd *cnode) *difference) concCase {
	return concCase{name: name, build: func() ([]any, func() *difference) {
		v, nd := newCobj()
		return []any{v}, func() *difference { return mutate(v, nd) }
	}}
}

var concCases = []concCase{
	cobjCase("nothing changed", func(*cobj, *cnode) *difference { return nil }),
	cobjCase("lock taken and left", func(v *cobj, _ *cnode) *difference {
		v.mu.Lock()
		return nil
	}),
	cobjCase("Bool", func(v *cobj, _ *cnode) *difference {
		v.b.Store(true)
		return diff("v.b", "false", "true")
	}),
	cobjCase("Int32", func(v *cobj, _ *cnode) *difference {
		v.i32.Add(-1)
		return diff("v.i32", "-2", "-3")
	}),
	cobjCase("Int64", func(v *cobj, _ *cnode) *difference {
		v.i64.Add(1)
		return diff("v.i64", "3", "4")
	}),
	cobjCase("Int64 set back", func(v *cobj, _ *cnode) *difference {
		v.i64.Add(1)
		v.i64.Add(-1)
		return nil
	}),
	cobjCase("Uint32", func(v *cobj, _ *cnode) *difference {
		v.u32.CompareAndSwap(4, 40)
		return diff("v.u32", "4", "40")
	}),
	cobjCase("Uint64", func(v *cobj, _ *cnode) *difference {
		v.u64.Swap(1 << 63)
		return diff("v.u64", "5", "9223372036854775808")
	}),
	cobjCase("Uintptr", func(v *cobj, _ *cnode) *difference {
		v.uip.Store(0)
		return diff("v.uip", "6", "0")
	}),
	cobjCase("an earlier field first", func(v *cobj, _ *cnode) *difference {
		v.n = 2
		v.b.Store(true)
		return diff("v.b", "false", "true")
	}),
	{name: "Value empty at entry, given a value", kept: true, build: func() ([]any, func() *difference) {
		v, _ := newCobj()
		return []any{v}, func() *difference {
			v.v.Store(1)
			return diff("v.v.Load()", "nil", "int(1)")
		}
	}},
	{name: "Value replaced", build: func() ([]any, func() *difference) {
		v, _ := newCobj()
		v.v.Store("x")
		return []any{v}, func() *difference {
			v.v.Store("y")
			return diff("v.v.Load()", `string("x")`, `string("y")`)
		}
	}},
	{name: "Value replaced by an equal one", build: func() ([]any, func() *difference) {
		v, _ := newCobj()
		v.v.Store([]int{1, 2})
		return []any{v}, func() *difference {
			v.v.Store([]int{1, 2})
			return nil
		}
	}},
	{name: "what a Value points to", build: func() ([]any, func() *difference) {
		v, nd := newCobj()
		v.v.Store(nd)
		return []any{v}, func() *difference {
			nd.val = 2
			// The same node as p's: reached first through v, an earlier field.
			return diff("v.v.Load().(*rt.cnode).val", "1", "2")
		}
	}},
	{name: "what a Value holds by value", build: func() ([]any, func() *difference) {
		v, _ := newCobj()
		s := []int{1, 2}
		v.v.Store(gwrap{s: s})
		return []any{v}, func() *difference {
			s[0] = 9
			return diff("v.v.Load().(rt.gwrap).s[0]", "1", "9")
		}
	}},
	cobjCase("Pointer set to nil", func(v *cobj, _ *cnode) *difference {
		v.p.Store(nil)
		return diff("v.p.Load()", "&{…}", "nil")
	}),
	cobjCase("Pointer set to another node", func(v *cobj, _ *cnode) *difference {
		v.p.Store(&cnode{val: 9})
		return diff("v.p.Load().val", "1", "9")
	}),
	cobjCase("Pointer set to an equal node", func(v *cobj, nd *cnode) *difference {
		other := &cnode{val: 1}
		other.tags.Store("t", "first")
		v.p.Store(other)
		return nil
	}),
	{name: "cycle through Pointers, changed", build: func() ([]any, func() *difference) {
		v, nd := newCobj()
		second := &cnode{val: 2}
		nd.next.Store(second)
		second.next.Store(nd)
		return []any{v}, func() *difference {
			second.val = 20
			return diff("v.p.Load().next.Load().val", "2", "20")
		}
	}},
	{name: "cycle through Pointers, closed elsewhere", build: func() ([]any, func() *difference) {
		v, nd := newCobj()
		second := &cnode{val: 2}
		nd.next.Store(second)
		second.next.Store(nd)
		return []any{v}, func() *difference {
			second.next.Store(second)
			return diff("v.p.Load().next.Load().next.Load().val", "1", "2")
		}
	}},
	cobjCase("Map entry deleted", func(v *cobj, _ *cnode) *difference {
		v.m.LoadAndDelete("a")
		return diff(`v.m["a"]`, `string("x")`, "absent")
	}),
	cobjCase("Map entry added", func(v *cobj, _ *cnode) *difference {
		v.m.Store("b", 2)
		return diff(`v.m["b"]`, "absent", "int(2)")
	}),
	cobjCase("Map entry replaced", func(v *cobj, _ *cnode) *difference {
		v.m.Swap("a", "z")
		return diff(`v.m["a"]`, `string("x")`, `string("z")`)
	}),
	cobjCase("Map entry replaced by an equal one", func(v *cobj, _ *cnode) *difference {
		v.m.Store("a", string([]byte("x")))
		return nil
	}),
	cobjCase("Map holding a pointer, pointee changed", func(v *cobj, nd *cnode) *difference {
		nd.tags.Store("t", "second")
		// Reached first through p, the shorter path.
		return diff(`v.p.Load().tags["t"]`, `string("first")`, `string("second")`)
	}),
	{name: "nested Maps", build: func() ([]any, func() *difference) {
		outer := new(sync.Map)
		inner := &cnode{}
		inner.tags.Store(1, true)
		outer.Store("in", inner)
		return []any{outer}, func() *difference {
			inner.tags.Delete(1)
			return diff(`(*v)["in"].(*rt.cnode).tags[1]`, "bool(true)", "absent")
		}
	}},
	{name: "pointer root to an Int64", build: func() ([]any, func() *difference) {
		p := new(atomic.Int64)
		return []any{p}, func() *difference {
			p.Add(1)
			return diff("*v", "0", "1")
		}
	}},
	{name: "slice of Uint32s", build: func() ([]any, func() *difference) {
		s := make([]atomic.Uint32, 3)
		return []any{s}, func() *difference {
			s[1].Store(7)
			return diff("v[1]", "0", "7")
		}
	}},
	{name: "array of Bools in a struct", build: func() ([]any, func() *difference) {
		a := new(struct{ flags [2]atomic.Bool })
		return []any{a}, func() *difference {
			a.flags[1].Store(true)
			return diff("v.flags[1]", "false", "true")
		}
	}},
	{name: "map of pointers to Int64s", build: func() ([]any, func() *difference) {
		m := map[string]*atomic.Int64{"a": new(atomic.Int64)}
		return []any{m}, func() *difference {
			m["a"].Store(-5)
			return diff(`*v["a"]`, "0", "-5")
		}
	}},
}

// TestConcCompareRestore snapshots each graph of concurrent data, applies
// the mutation, checks the difference found, restores the graph in place
// and checks that it equals the snapshot again.
func TestConcCompareRestore(t *testing.T) {
	for _, tc := range concCases {
		t.Run(tc.name, func(t *testing.T) {
			names := []string{"v"}
			roots, mutate := tc.build()
			s := checkMutation(t, roots, names, mutate)
			s.restore()
			d, equal := s.compareGraph(roots, names)
			if tc.kept && equal {
				t.Errorf("the rollback undid what it cannot undo")
			} else if !tc.kept && !equal {
				t.Errorf("after the rollback: %+v", d)
			}
		})
	}
}

// TestConcRestoreInPlace checks that a rollback gives the values of
// concurrent data their old contents where they are, and their old
// references: the same node in the atomic.Pointer and in the sync.Map.
func TestConcRestoreInPlace(t *testing.T) {
	v, nd := newCobj()
	v.v.Store(nd)
	s, ok := takeSnapshot([]any{v}, 0)
	if !ok {
		t.Fatal("snapshot over budget")
	}
	other := &cnode{val: 1}
	v.p.Store(other)
	v.v.Store(other)
	v.m.Store("n", other)
	v.m.LoadAndDelete("a")
	v.m.Store("b", 2)
	v.i64.Add(10)
	nd.val = 5
	nd.tags.Store("t", "second")
	s.restore()

	if p := v.p.Load(); p != nd {
		t.Errorf("p holds %p, want the node %p", p, nd)
	}
	if x := v.v.Load(); x != any(nd) {
		t.Errorf("v holds %v, want the node %p", x, nd)
	}
	var entries []string
	v.m.Range(func(k, x any) bool {
		entries = append(entries, k.(string))
		if k == "n" && x != any(nd) {
			t.Errorf(`m["n"] = %p, want the node %p`, x, nd)
		}
		return true
	})
	if len(entries) != 2 {
		t.Errorf("m has keys %q, want a and n", entries)
	}
	if x, _ := v.m.Load("a"); x != "x" {
		t.Errorf(`m["a"] = %v, want "x"`, x)
	}
	if got := v.i64.Load(); got != 3 {
		t.Errorf("i64 = %d, want 3", got)
	}
	if x, _ := nd.tags.Load("t"); nd.val != 1 || x != "first" {
		t.Errorf("node {val: %d, tags[t]: %v}, want {1, first}", nd.val, x)
	}
}

// TestConcPlans checks which types of sync and sync/atomic are data and
// which are ignored.
func TestConcPlans(t *testing.T) {
	for _, tt := range []struct {
		typ  reflect.Type
		conc concKind
	}{
		{reflect.TypeFor[atomic.Bool](), concBool},
		{reflect.TypeFor[atomic.Int32](), concInt32},
		{reflect.TypeFor[atomic.Int64](), concInt64},
		{reflect.TypeFor[atomic.Uint32](), concUint32},
		{reflect.TypeFor[atomic.Uint64](), concUint64},
		{reflect.TypeFor[atomic.Uintptr](), concUintptr},
		{reflect.TypeFor[atomic.Value](), concValue},
		{reflect.TypeFor[atomic.Pointer[cnode]](), concPointer},
		{reflect.TypeFor[atomic.Pointer[int]](), concPointer},
		{reflect.TypeFor[sync.Map](), concMap},
		{reflect.TypeFor[sync.Mutex](), concNone},
		{reflect.TypeFor[sync.RWMutex](), concNone},
		{reflect.TypeFor[sync.Once](), concNone},
		{reflect.TypeFor[sync.WaitGroup](), concNone},
		{reflect.TypeFor[sync.Cond](), concNone},
		{reflect.TypeFor[sync.Pool](), concNone},
	} {
		pl := planOf(tt.typ)
		if pl.conc != tt.conc || pl.ignored == (tt.conc != concNone) {
			t.Errorf("%v: conc %d, ignored %v; want conc %d", tt.typ, pl.conc, pl.ignored, tt.conc)
		}
	}
	// A cnode holds an atomic.Pointer[cnode]: planning it must end.
	if pl := planOf(reflect.TypeFor[cnode]()); !pl.reaches || pl.flat {
		t.Errorf("cnode: reaches %v, flat %v; want it to reach further", pl.reaches, pl.flat)
	}
}

// TestConcConcurrent takes snapshots, compares and restores while other
// goroutines use the same values of concurrent data: under -race, a read
// or write of them other than through their methods is reported.
func TestConcConcurrent(t *testing.T) {
	v, nd := newCobj()
	roots := []any{v}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				v.b.Store(i%2 == 0)
				v.i32.Add(1)
				v.i64.Add(1)
				v.u32.Add(1)
				v.u64.Add(1)
				v.uip.Add(1)
				v.v.Store(i)
				v.p.Store(nd)
				v.m.Store(strconv.Itoa(g*10+i%5), i)
				v.m.Delete(strconv.Itoa(g*10 + (i+2)%5))
				nd.tags.Range(func(k, _ any) bool { return true })
				v.mu.Lock()
				v.mu.Unlock()
			}
		}()
	}
	for range 100 {
		s, ok := takeSnapshot(roots, 0)
		if !ok {
			t.Fatal("snapshot over budget")
		}
		s.firstDiff(roots, []string{"v"})
		s.restore()
	}
	close(stop)
	wg.Wait()
}

// BenchmarkSnapshotAtomics snapshots and compares a pointer to a struct of
// plain numbers, a lock and atomic numbers and flags: the atomics are
// loaded and compared one by one.
func BenchmarkSnapshotAtomics(b *testing.B) {
	type counters struct {
		mu           sync.Mutex
		a, b         int64
		hits, misses atomic.Int64
		ok           atomic.Bool
		gen          atomic.Uint32
	}
	benchmarkSnapshotCompare(b, &counters{a: 1, b: 2})
}

// BenchmarkSnapshotSyncMap snapshots and compares a struct holding a
// sync.Map of 100 string entries: the snapshot stores each entry in a map
// of its own, the comparison ranges over both.
func BenchmarkSnapshotSyncMap(b *testing.B) {
	type registry struct {
		names sync.Map
		n     int
	}
	r := &registry{}
	for i := range 100 {
		r.names.Store(strconv.Itoa(i), "owner")
	}
	benchmarkSnapshotCompare(b, r)
}
