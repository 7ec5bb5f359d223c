package rt

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// Types of the object graphs under test. Their fields are unexported on
// purpose: the snapshot must read and copy them all the same.

type gnode struct {
	val  int
	next *gnode
}

type ginner struct {
	x     int
	label string
}

// gobj has a field of every kind the snapshot knows about.
type gobj struct {
	n     int
	name  string
	f     float64
	c     complex128
	flag  bool
	u8    uint8
	inner ginner
	arr   [4]int
	s     []int
	empty []int
	ps    *[]int
	ptrs  []*gnode
	m     map[string]int
	ms    map[string]ginner
	mp    map[*gnode]string
	mf    map[float64]int
	i     any
	err   error
	fn    func() int
	ch    chan int
	up    unsafe.Pointer
	next  *gnode
	mu    sync.Mutex
	rw    sync.RWMutex
	once  sync.Once
	wg    sync.WaitGroup
	hits  atomic.Int64
	ap    atomic.Pointer[gnode]
	pmu   *sync.Mutex
}

func gfuncA() int { return 1 }
func gfuncB() int { return 2 }

// newObj returns a gobj with every field set; shared is reachable from
// v.mp (as a key) and from v.next.next.
func newObj() (v *gobj, shared *gnode) {
	shared = &gnode{val: 7}
	v = &gobj{
		n: 1, name: "abc", f: math.NaN(), c: 1 + 2i, flag: true, u8: 200,
		inner: ginner{x: 1, label: "in"},
		arr:   [4]int{1, 2, 3, 4},
		s:     []int{1, 2, 3},
		ps:    &[]int{5, 6},
		ptrs:  []*gnode{{val: 1}, {val: 2}},
		m:     map[string]int{"a": 1, "b": 2},
		ms:    map[string]ginner{"k": {x: 1}},
		mp:    map[*gnode]string{shared: "s"},
		mf:    map[float64]int{1.5: 3},
		i:     &gnode{val: 1},
		fn:    gfuncA,
		ch:    make(chan int),
		up:    unsafe.Pointer(shared),
		next:  &gnode{val: 1, next: shared},
	}
	// Two entries under NaN keys: they can be neither looked up nor deleted.
	v.mf[math.NaN()] = 1
	v.mf[math.NaN()] = 2
	return v, shared
}

type gpair struct {
	a, b *gnode
	n    int
}

type gbase struct{ id int }

type gderived struct {
	gbase
	extra int
}

type gbox[T any] struct {
	items []T
	last  T
}

type gtree struct {
	val  int
	kids []gtree
}

type gwrap struct{ s []int }

type gholder struct{ i any }

// graphCase builds roots, and returns the mutation to apply after the
// snapshot; the mutation returns the expected difference, nil for none.
type graphCase struct {
	name  string
	names []string // default: "v"
	build func() (roots []any, mutate func() *difference)
}

// objCase is a graphCase on one *gobj root named v.
func objCase(name string, mutate func(v *gobj, shared *gnode) *difference) graphCase {
	return graphCase{name: name, build: func() ([]any, func() *difference) {
		v, shared := newObj()
		return []any{v}, func() *difference { return mutate(v, shared) }
	}}
}

func diff(path, before, after string) *difference {
	return &difference{Path: path, Before: before, After: after}
}

func addr[T any](p *T) string { return renderAddress(unsafe.Pointer(p)) }

func ring(n int) *gnode {
	first := &gnode{val: 1}
	last := first
	for i := 2; i <= n; i++ {
		last.next = &gnode{val: i}
		last = last.next
	}
	last.next = first
	return first
}

var objCases = []graphCase{
	objCase("untouched", func(v *gobj, _ *gnode) *difference { return nil }),
	objCase("int field", func(v *gobj, _ *gnode) *difference {
		v.n = 2
		return diff("v.n", "1", "2")
	}),
	objCase("string field", func(v *gobj, _ *gnode) *difference {
		v.name = "abd"
		return diff("v.name", `"abc"`, `"abd"`)
	}),
	objCase("bool field", func(v *gobj, _ *gnode) *difference {
		v.flag = false
		return diff("v.flag", "true", "false")
	}),
	objCase("uint8 field", func(v *gobj, _ *gnode) *difference {
		v.u8++
		return diff("v.u8", "200", "201")
	}),
	objCase("complex field", func(v *gobj, _ *gnode) *difference {
		v.c = 1 + 3i
		return diff("v.c", "(1+2i)", "(1+3i)")
	}),
	objCase("nested struct field", func(v *gobj, _ *gnode) *difference {
		v.inner.x = 5
		return diff("v.inner.x", "1", "5")
	}),
	objCase("NaN field assigned the same NaN", func(v *gobj, _ *gnode) *difference {
		v.f = math.NaN()
		return nil
	}),
	objCase("NaN field set to a number", func(v *gobj, _ *gnode) *difference {
		v.f = 1
		return diff("v.f", "NaN", "1")
	}),
	objCase("array element", func(v *gobj, _ *gnode) *difference {
		v.arr[2] = 30
		return diff("v.arr[2]", "3", "30")
	}),
	objCase("slice element", func(v *gobj, _ *gnode) *difference {
		v.s[1] = 20
		return diff("v.s[1]", "2", "20")
	}),
	objCase("slice grows", func(v *gobj, _ *gnode) *difference {
		v.s = append(v.s, 4)
		return diff("v.s", "len=3", "len=4")
	}),
	objCase("slice shrinks", func(v *gobj, _ *gnode) *difference {
		v.s = v.s[:2]
		return diff("v.s", "len=3", "len=2")
	}),
	objCase("append reallocates with the same contents", func(v *gobj, _ *gnode) *difference {
		v.s = append(v.s[:3:3], 9)[:3]
		return nil
	}),
	objCase("slice grows within capacity then shrinks back", func(v *gobj, _ *gnode) *difference {
		v.s = append(slices.Grow(v.s[:3:3], 8), 4)
		v.s = v.s[:3]
		return nil
	}),
	objCase("nil slice made empty", func(v *gobj, _ *gnode) *difference {
		v.empty = []int{}
		d := diff("v.empty", "nil", "len=0")
		d.Changes = normalization
		return d
	}),
	objCase("slice behind a pointer", func(v *gobj, _ *gnode) *difference {
		(*v.ps)[1] = 60
		return diff("(*v.ps)[1]", "6", "60")
	}),
	objCase("slice of pointers, pointee changed", func(v *gobj, _ *gnode) *difference {
		v.ptrs[1].val = 20
		return diff("v.ptrs[1].val", "2", "20")
	}),
	objCase("slice of pointers, pointer swapped for an equal copy", func(v *gobj, _ *gnode) *difference {
		v.ptrs[0] = &gnode{val: 1}
		return nil
	}),
	objCase("map value", func(v *gobj, _ *gnode) *difference {
		v.m["b"] = 20
		return diff(`v.m["b"]`, "2", "20")
	}),
	objCase("map key added", func(v *gobj, _ *gnode) *difference {
		v.m["c"] = 3
		return diff(`v.m["c"]`, "absent", "3")
	}),
	objCase("map key removed", func(v *gobj, _ *gnode) *difference {
		delete(v.m, "a")
		return diff(`v.m["a"]`, "1", "absent")
	}),
	objCase("map key removed and another added", func(v *gobj, _ *gnode) *difference {
		delete(v.m, "b")
		v.m["0"] = 2
		return diff(`v.m["0"]`, "absent", "2") // "0" sorts before "a"
	}),
	objCase("map replaced by an equal map", func(v *gobj, _ *gnode) *difference {
		v.m = map[string]int{"b": 2, "a": 1}
		return nil
	}),
	objCase("map of structs", func(v *gobj, _ *gnode) *difference {
		v.ms["k"] = ginner{x: 2}
		return diff(`v.ms["k"].x`, "1", "2")
	}),
	objCase("map with pointer keys, value changed", func(v *gobj, shared *gnode) *difference {
		v.mp[shared] = "t"
		return diff("v.mp["+addr(shared)+"]", `"s"`, `"t"`)
	}),
	objCase("map with pointer keys, key's object changed", func(v *gobj, shared *gnode) *difference {
		shared.val = 8
		return diff("keyof(v.mp["+addr(shared)+"]).val", "7", "8")
	}),
	objCase("map with NaN keys, other entry changed", func(v *gobj, _ *gnode) *difference {
		v.mf[1.5] = 4
		return diff("v.mf[1.5]", "3", "4")
	}),
	objCase("map with NaN keys, NaN entry added", func(v *gobj, _ *gnode) *difference {
		// NaN keys cannot be told apart: entries pair up in value order
		// (0, 1, 2 now against 1, 2 at entry), so the first pair differs.
		v.mf[math.NaN()] = 0
		return diff("v.mf[NaN]", "1", "0")
	}),
	objCase("interface, inner change", func(v *gobj, _ *gnode) *difference {
		v.i.(*gnode).val = 2
		return diff("v.i.(*rt.gnode).val", "1", "2")
	}),
	objCase("interface, dynamic type change", func(v *gobj, _ *gnode) *difference {
		v.i = 1
		return diff("v.i", "&rt.gnode{…}", "int(1)")
	}),
	objCase("interface, pointer swapped for an equal copy", func(v *gobj, _ *gnode) *difference {
		v.i = &gnode{val: 1}
		return nil
	}),
	objCase("error set", func(v *gobj, _ *gnode) *difference {
		v.err = errors.New("x")
		return diff("v.err", "nil", "&errors.errorString{…}")
	}),
	objCase("func changed", func(v *gobj, _ *gnode) *difference {
		v.fn = gfuncB
		return diff("v.fn", "func", "func")
	}),
	objCase("func set to nil", func(v *gobj, _ *gnode) *difference {
		v.fn = nil
		return diff("v.fn", "func", "nil")
	}),
	objCase("func assigned the same function", func(v *gobj, _ *gnode) *difference {
		v.fn = gfuncA
		return nil
	}),
	objCase("chan replaced", func(v *gobj, _ *gnode) *difference {
		old := v.ch
		v.ch = make(chan int)
		return diff("v.ch", renderAddress(*(*unsafe.Pointer)(unsafe.Pointer(&old))),
			renderAddress(*(*unsafe.Pointer)(unsafe.Pointer(&v.ch))))
	}),
	objCase("chan used", func(v *gobj, _ *gnode) *difference {
		go func() { v.ch <- 1 }()
		<-v.ch
		return nil
	}),
	objCase("unsafe.Pointer retargeted", func(v *gobj, shared *gnode) *difference {
		other := new(int)
		v.up = unsafe.Pointer(other)
		return diff("v.up", addr(shared), addr(other))
	}),
	objCase("pointer set to nil", func(v *gobj, _ *gnode) *difference {
		v.next = nil
		return diff("v.next", "&{…}", "nil")
	}),
	objCase("pointer swapped for an equal copy", func(v *gobj, shared *gnode) *difference {
		v.next = &gnode{val: 1, next: shared}
		return nil
	}),
	objCase("mutex locked and released", func(v *gobj, _ *gnode) *difference {
		v.mu.Lock()
		v.mu.Unlock()
		v.rw.RLock()
		v.rw.RUnlock()
		return nil
	}),
	objCase("mutex left locked", func(v *gobj, _ *gnode) *difference {
		v.mu.Lock()
		return nil
	}),
	objCase("once done, wait group used", func(v *gobj, _ *gnode) *difference {
		v.once.Do(func() {})
		v.wg.Add(1)
		return nil
	}),
	objCase("atomic counter bumped", func(v *gobj, _ *gnode) *difference {
		v.hits.Add(1)
		return diff("v.hits", "0", "1")
	}),
	objCase("atomic counter bumped and set back", func(v *gobj, _ *gnode) *difference {
		v.hits.Add(1)
		v.hits.Add(-1)
		return nil
	}),
	objCase("atomic pointer stored", func(v *gobj, _ *gnode) *difference {
		v.ap.Store(&gnode{val: 9})
		return diff("v.ap.Load()", "nil", "&{…}")
	}),
	objCase("pointer to a mutex set", func(v *gobj, _ *gnode) *difference {
		v.pmu = new(sync.Mutex)
		return diff("v.pmu", "nil", "&{…}")
	}),
	objCase("breadth first: inline field before pointee", func(v *gobj, shared *gnode) *difference {
		v.next.val = 10 // one indirection away, in an earlier field
		v.up = nil      // inline, in a later field
		return diff("v.up", addr(shared), "nil")
	}),
}

var graphCases = []graphCase{
	{name: "pointer root to an int", names: []string{"p"}, build: func() ([]any, func() *difference) {
		p := new(int)
		*p = 3
		return []any{p}, func() *difference {
			*p = 4
			return diff("*p", "3", "4")
		}
	}},
	{name: "package variable", names: []string{"pkg.counter"}, build: func() ([]any, func() *difference) {
		counter := 5
		return []any{&counter}, func() *difference {
			counter++
			return diff("*pkg.counter", "5", "6")
		}
	}},
	{name: "pointer to pointer", names: []string{"pp"}, build: func() ([]any, func() *difference) {
		p := new(int)
		pp := &p
		return []any{pp}, func() *difference {
			*p = 1
			return diff("**pp", "0", "1")
		}
	}},
	{name: "boxed slice root", names: []string{"s"}, build: func() ([]any, func() *difference) {
		s := []int{1, 2, 3}
		return []any{s}, func() *difference {
			s[1] = 5
			return diff("s[1]", "2", "5")
		}
	}},
	{name: "boxed map root", names: []string{"m"}, build: func() ([]any, func() *difference) {
		m := map[string]int{"k": 1}
		return []any{m}, func() *difference {
			m["k"] = 2
			return diff(`m["k"]`, "1", "2")
		}
	}},
	{name: "boxed struct root", names: []string{"w"}, build: func() ([]any, func() *difference) {
		s := []int{1, 2}
		return []any{gwrap{s: s}}, func() *difference {
			s[0] = 9
			return diff("w.s[0]", "1", "9")
		}
	}},
	{name: "second root", names: []string{"v", "w"}, build: func() ([]any, func() *difference) {
		a, b := &gnode{val: 1}, &gnode{val: 2}
		return []any{a, b}, func() *difference {
			b.val = 20
			return diff("w.val", "2", "20")
		}
	}},
	{name: "roots in order", names: []string{"v", "w"}, build: func() ([]any, func() *difference) {
		a, b := &gnode{val: 1}, &gnode{val: 2}
		return []any{a, b}, func() *difference {
			b.val, a.val = 20, 10
			return diff("v.val", "1", "10")
		}
	}},
	{name: "missing names", names: []string{}, build: func() ([]any, func() *difference) {
		a := &gnode{val: 1}
		return []any{a}, func() *difference {
			a.val = 2
			return diff("root0.val", "1", "2")
		}
	}},
	{name: "cycle untouched", build: func() ([]any, func() *difference) {
		return []any{ring(3)}, func() *difference { return nil }
	}},
	{name: "cycle with one change", build: func() ([]any, func() *difference) {
		r := ring(3)
		return []any{r}, func() *difference {
			r.next.next.val = 30
			return diff("v.next.next.val", "3", "30")
		}
	}},
	{name: "self loop", build: func() ([]any, func() *difference) {
		n := &gnode{val: 1}
		n.next = n
		return []any{n}, func() *difference {
			n.val = 2
			return diff("v.val", "1", "2")
		}
	}},
	{name: "cycle rebuilt with equal contents", build: func() ([]any, func() *difference) {
		r := ring(3)
		return []any{r}, func() *difference {
			// A new ring of equal values, in place of the old second node.
			r.next = &gnode{val: 2, next: &gnode{val: 3, next: r}}
			return nil
		}
	}},
	{name: "shared node changed", build: func() ([]any, func() *difference) {
		x := &gnode{val: 1}
		return []any{&gpair{a: x, b: x}}, func() *difference {
			x.val = 2
			return diff("v.a.val", "1", "2")
		}
	}},
	{name: "shared node replaced on one side by an equal copy", build: func() ([]any, func() *difference) {
		x := &gnode{val: 1}
		p := &gpair{a: x, b: x}
		return []any{p}, func() *difference {
			p.b = &gnode{val: 1}
			return nil
		}
	}},
	{name: "breadth first: inline field before pointee", build: func() ([]any, func() *difference) {
		p := &gpair{a: &gnode{val: 1}, n: 1}
		return []any{p}, func() *difference {
			p.a.val, p.n = 2, 2
			return diff("v.n", "1", "2")
		}
	}},
	{name: "unexported embedded struct", build: func() ([]any, func() *difference) {
		d := &gderived{gbase: gbase{id: 1}}
		return []any{d}, func() *difference {
			d.id = 2
			return diff("v.gbase.id", "1", "2")
		}
	}},
	{name: "generic type", build: func() ([]any, func() *difference) {
		b := &gbox[string]{items: []string{"a", "b"}, last: "b"}
		return []any{b}, func() *difference {
			b.items[1] = "x"
			return diff("v.items[1]", `"b"`, `"x"`)
		}
	}},
	{name: "generic type in an interface", build: func() ([]any, func() *difference) {
		b := &gbox[int]{last: 1}
		return []any{&gholder{i: b}}, func() *difference {
			b.last = 2
			return diff("v.i.(*rt.gbox[int]).last", "1", "2")
		}
	}},
	{name: "interface holding a struct that holds a slice", build: func() ([]any, func() *difference) {
		s := []int{1, 2}
		return []any{&gholder{i: gwrap{s: s}}}, func() *difference {
			s[0] = 9
			return diff("v.i.(rt.gwrap).s[0]", "1", "9")
		}
	}},
	{name: "interface holding a map", build: func() ([]any, func() *difference) {
		m := map[string]int{"k": 1}
		return []any{&gholder{i: m}}, func() *difference {
			m["k"] = 2
			return diff(`v.i.(map[string]int)["k"]`, "1", "2")
		}
	}},
	{name: "interface holding a scalar", build: func() ([]any, func() *difference) {
		h := &gholder{i: 1}
		return []any{h}, func() *difference {
			h.i = 2
			return diff("v.i", "int(1)", "int(2)")
		}
	}},
	{name: "interface holding a string, same value in a new string", build: func() ([]any, func() *difference) {
		h := &gholder{i: "abc"}
		return []any{h}, func() *difference {
			h.i = strings.Repeat("abc", 1)
			return nil
		}
	}},
	{name: "interface set to nil", build: func() ([]any, func() *difference) {
		h := &gholder{i: "abc"}
		return []any{h}, func() *difference {
			h.i = nil
			return diff("v.i", `string("abc")`, "nil")
		}
	}},
	{name: "recursive type through slices", build: func() ([]any, func() *difference) {
		t := &gtree{val: 1, kids: []gtree{{val: 2}, {val: 3, kids: []gtree{{val: 4}}}}}
		return []any{t}, func() *difference {
			t.kids[1].kids[0].val = 40
			return diff("v.kids[1].kids[0].val", "4", "40")
		}
	}},
	{name: "pointer to an array element", names: []string{"a", "p"}, build: func() ([]any, func() *difference) {
		a := &[3]int{1, 2, 3}
		p := &a[1]
		return []any{a, p}, func() *difference {
			*p = 20
			return diff("a[1]", "2", "20")
		}
	}},
	{name: "pointer to an array element alone", names: []string{"p"}, build: func() ([]any, func() *difference) {
		a := &[3]int{1, 2, 3}
		return []any{&a[2]}, func() *difference {
			a[2] = 30
			return diff("*p", "3", "30")
		}
	}},
	{name: "large array of pointers within budget", build: func() ([]any, func() *difference) {
		var a [1 << 16]*gnode
		for i := range a {
			a[i] = &gnode{val: i}
		}
		return []any{&a}, func() *difference {
			a[40000].val = -1
			return diff("v[40000].val", "40000", "-1")
		}
	}},
	{name: "long string", build: func() ([]any, func() *difference) {
		h := &gholder{i: &ginner{label: strings.Repeat("a", 200)}}
		return []any{h}, func() *difference {
			h.i.(*ginner).label = strings.Repeat("b", 3)
			return diff("v.i.(*rt.ginner).label", `"`+strings.Repeat("a", 62)+`"…`, `"bbb"`)
		}
	}},
	{name: "float32, -0 and +0", build: func() ([]any, func() *difference) {
		f := new(float32)
		return []any{f}, func() *difference {
			*f = float32(math.Copysign(0, -1))
			return nil
		}
	}},
	{name: "odd roots", names: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"},
		build: func() ([]any, func() *difference) {
			return []any{nil, (*gnode)(nil), map[string]int(nil), []int(nil), struct{}{}, 0, "s", func() {},
				&struct{ rv reflect.Value }{reflect.ValueOf(&gnode{})}}, func() *difference { return nil }
		}},
	{name: "zero-size and blank fields", build: func() ([]any, func() *difference) {
		type t struct {
			_ int
			z struct{}
			e [0]int
			n int
		}
		v := &t{n: 1}
		return []any{v}, func() *difference {
			v.n = 2
			return diff("v.n", "1", "2")
		}
	}},
	{name: "time and its location", build: func() ([]any, func() *difference) {
		v := &struct{ at time.Time }{time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)}
		return []any{v}, func() *difference { return nil }
	}},
	{name: "sync types inside slices, maps and interfaces", build: func() ([]any, func() *difference) {
		type locked struct {
			mu sync.Mutex
			n  int
		}
		v := &struct {
			ls []locked
			lm map[string]*sync.Mutex
			li any
		}{ls: make([]locked, 2), lm: map[string]*sync.Mutex{"k": {}}, li: &sync.WaitGroup{}}
		return []any{v}, func() *difference {
			v.ls[0].mu.Lock()
			v.lm["k"].Lock()
			v.li.(*sync.WaitGroup).Add(1)
			v.ls[1].n = 1
			return diff("v.ls[1].n", "0", "1")
		}
	}},
	{name: "struct map keys", build: func() ([]any, func() *difference) {
		type key struct {
			a int
			b string
		}
		m := map[key]int{{1, "x"}: 1, {1, "a"}: 2}
		return []any{&m}, func() *difference {
			m[key{0, "z"}] = 3
			return diff(`(*v)[{0 "z"}]`, "absent", "3")
		}
	}},
	// A function literal's captured variables are roots by address, named
	// "&x": paths name the variable itself.
	{name: "captured slice", names: []string{"&log"}, build: func() ([]any, func() *difference) {
		log := []string{"a"}
		return []any{&log}, func() *difference {
			log = append(log, "b")
			return diff("log", "len=1", "len=2")
		}
	}},
	{name: "captured element", names: []string{"&log"}, build: func() ([]any, func() *difference) {
		log := []string{"a"}
		return []any{&log}, func() *difference {
			log[0] = "b"
			return diff("log[0]", `"a"`, `"b"`)
		}
	}},
	{name: "captured int", names: []string{"&n"}, build: func() ([]any, func() *difference) {
		n := 1
		return []any{&n}, func() *difference {
			n++
			return diff("n", "1", "2")
		}
	}},
	{name: "captured pointer", names: []string{"&s"}, build: func() ([]any, func() *difference) {
		type store struct{ m map[string]int }
		s := &store{m: map[string]int{}}
		return []any{&s}, func() *difference {
			s.m["k"] = 1
			return diff(`s.m["k"]`, "absent", "1")
		}
	}},
	{name: "interface map keys", build: func() ([]any, func() *difference) {
		m := map[any]int{1: 1, "a": 2, 2.5: 3, nil: 4}
		return []any{m}, func() *difference {
			m["a"] = 20
			return diff(`v["a"]`, "2", "20")
		}
	}},
}

// TestFirstDiff snapshots each graph, checks that it equals itself, applies
// the mutation and checks the difference found.
func TestFirstDiff(t *testing.T) {
	for _, tc := range slices.Concat(objCases, graphCases) {
		t.Run(tc.name, func(t *testing.T) {
			names := tc.names
			if names == nil {
				names = []string{"v"}
			}
			roots, mutate := tc.build()
			// The functions without the panic guard, so that a panic shows.
			checkMutation(t, roots, names, mutate)
		})
	}
}

// TestFirstDiffNaNKeys repeats the comparison of a map with several NaN
// keys, whose entries come in random order, to catch entries paired the
// wrong way.
func TestFirstDiffNaNKeys(t *testing.T) {
	for range 50 {
		m := map[float64]string{1: "one"}
		for i := range 5 {
			m[math.NaN()] = strconv.Itoa(i)
		}
		roots := []any{m}
		s, ok := snapshotGraph(roots, 0, nil)
		if !ok {
			t.Fatal("snapshot over budget")
		}
		if d, equal := s.compareGraph(roots, []string{"m"}); !equal {
			t.Fatalf("unchanged map with NaN keys differs: %+v", d)
		}
	}
}

func list(n int) *gnode {
	var head *gnode
	for i := n; i > 0; i-- {
		head = &gnode{val: i, next: head}
	}
	return head
}

// TestSnapshotBudget checks how the budget is counted: words of copied
// memory, at least one per copied value.
func TestSnapshotBudget(t *testing.T) {
	tests := []struct {
		name   string
		root   any
		budget int
		ok     bool
	}{
		{"list under the default budget", list(1000), 0, true},
		{"list of 1000 nodes, 2 words each, budget 1999", list(1000), 1999, false},
		{"list of 1000 nodes, 2 words each, budget 2000", list(1000), 2000, true},
		{"array of 1000 ints, budget 999", new([1000]int), 999, false},
		{"array of 1000 ints, budget 1000", new([1000]int), 1000, true},
		{"boxed slice of 1000 int16: 3-word box and 250 words", make([]int16, 1000), 253, true},
		{"boxed slice of 1000 int16, budget 252", make([]int16, 1000), 252, false},
		{"array of 16 MB under the default budget", new([1 << 21]int), 0, false},
		{"zero-size elements cost nothing", make([]struct{}, 1<<40), 3, true},
		{"long list under the default budget", list(600_000), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			roots := []any{tt.root}
			s, ok := snapshotGraph(roots, tt.budget, nil)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if ok {
				if d, equal := s.compareGraph(roots, []string{"v"}); !equal {
					t.Errorf("unchanged graph differs: %+v", d)
				}
			} else if s != nil {
				t.Error("a snapshot over budget is returned")
			}
		})
	}
}

// TestSnapshotLongList checks that a list far longer than the Go stack
// could recurse through is copied and compared.
func TestSnapshotLongList(t *testing.T) {
	head := list(300_000)
	roots := []any{head}
	s, ok := takeSnapshot(roots, 0)
	if !ok {
		t.Fatal("snapshot over budget")
	}
	last := head
	for last.next != nil {
		last = last.next
	}
	last.val = -1
	d, equal := s.firstDiff(roots, []string{"v"})
	if equal || !strings.HasSuffix(d.Path, ".next.val") || d.After != "-1" {
		t.Errorf("got %+v, %v", d, equal)
	}
}

// TestSnapshotKeepsIdentity checks what a restore in place will need: the
// pointed-to objects are saved under their original addresses, and the
// copies are distinct memory holding the values at entry.
func TestSnapshotKeepsIdentity(t *testing.T) {
	n := &gnode{val: 1, next: &gnode{val: 2}}
	s, ok := takeSnapshot([]any{n}, 0)
	if !ok {
		t.Fatal("snapshot over budget")
	}
	pl := s.plan(reflect.TypeFor[gnode]())
	for _, orig := range []*gnode{n, n.next} {
		c, ok := s.objects[objectKey{unsafe.Pointer(orig), pl}]
		if !ok {
			t.Fatalf("object %p not saved under its address", orig)
		}
		saved := (*gnode)(c)
		if saved == orig || saved.val != orig.val || saved.next != orig.next {
			t.Errorf("copy of %p is %+v, want a copy of %+v", orig, *saved, *orig)
		}
	}
	n.val = 10
	if (*gnode)(s.objects[objectKey{unsafe.Pointer(n), pl}]).val != 1 {
		t.Error("the copy follows the original")
	}
}

// TestSyncFieldsNotRead runs snapshots while another goroutine uses the
// atomic and mutex fields of the same object: under -race, any read of
// the mutex by the snapshot, or of the atomic by other than an atomic
// load, is reported. The counter is data: it may differ, nothing else.
func TestSyncFieldsNotRead(t *testing.T) {
	v := &gobj{}
	roots := []any{v}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				v.hits.Add(1)
				v.mu.Lock()
				v.mu.Unlock()
			}
		}
	}()
	for range 200 {
		s, ok := takeSnapshot(roots, 0)
		if !ok {
			t.Fatal("snapshot over budget")
		}
		if d, equal := s.firstDiff(roots, []string{"v"}); !equal && d.Path != "v.hits" {
			t.Fatalf("differs: %+v", d)
		}
	}
	close(stop)
	<-done
}

// TestGuards checks the entry points on inputs that have no graph.
func TestGuards(t *testing.T) {
	var s *snapshot
	if _, equal := s.firstDiff(nil, nil); !equal {
		t.Error("nil snapshot: want equal")
	}
	s, ok := takeSnapshot(nil, 0)
	if !ok {
		t.Fatal("no roots: want ok")
	}
	if _, equal := s.firstDiff(nil, nil); !equal {
		t.Error("no roots: want equal")
	}
	// Fewer roots now than at entry: the extra ones are not compared.
	n := &gnode{}
	s, _ = takeSnapshot([]any{n, n}, 0)
	if _, equal := s.firstDiff([]any{n}, []string{"v"}); !equal {
		t.Error("fewer roots: want equal")
	}
}

func TestRenderValues(t *testing.T) {
	s := &snapshot{}
	render := func(v any) string {
		p := reflect.New(reflect.TypeOf(v))
		p.Elem().Set(reflect.ValueOf(v))
		return s.renderValue(p.UnsafePointer(), s.plan(p.Type().Elem()), false)
	}
	one := 1
	tests := []struct {
		v    any
		want string
	}{
		{int8(-3), "-3"},
		{uint64(math.MaxUint64), "18446744073709551615"},
		{1.5, "1.5"},
		{float32(0.1), "0.1"},
		{1e21, "1e+21"},
		{math.Inf(1), "+Inf"},
		{complex64(1 - 2i), "(1-2i)"},
		{"a\"b\n", `"a\"b\n"`},
		{strings.Repeat("é", 100), `"` + strings.Repeat("é", 31) + `"…`},
		{&one, "&1"},
		{(*int)(nil), "nil"},
		{[]int{1}, "len=1"},
		{map[int]int{1: 1}, "map[len=1]"},
		{ginner{}, "{…}"},
		{[2]int{}, "[…]"},
		{struct{}{}, "{}"},
		{gfuncA, "func"},
		{(func())(nil), "nil"},
		{(chan int)(nil), "nil"},
		{gholder{i: []int{1, 2}}, "{…}"},
	}
	for _, tt := range tests {
		if got := render(tt.v); got != tt.want {
			t.Errorf("render(%#v) = %s, want %s", tt.v, got, tt.want)
		}
	}
	var e error = (*errorsString)(nil)
	if got := s.renderInterface(reflect.ValueOf(&e).Elem(), false); got != "(*rt.errorsString)(nil)" {
		t.Errorf("typed nil in an interface renders as %s", got)
	}
	if got := shorten(strings.Repeat("x", 200)); len(got) > maxRendered {
		t.Errorf("shorten leaves %d bytes", len(got))
	}
}

type errorsString struct{ s string }

func (e *errorsString) Error() string { return e.s }

// BenchmarkSnapshotCompare takes a snapshot of a 1,000-node linked list and
// compares it with the unchanged list, as a failing call in detection mode
// does.
func BenchmarkSnapshotCompare(b *testing.B) {
	type node struct {
		id   int
		name string
		tags []string
		next *node
	}
	var head *node
	for i := range 1000 {
		head = &node{id: i, name: "node", tags: []string{"a", "b"}, next: head}
	}
	benchmarkSnapshotCompare(b, head)
}

// benchmarkSnapshotCompare snapshots the graph of root and compares it
// with itself, unchanged.
func benchmarkSnapshotCompare(b *testing.B, root any) {
	roots := []any{root}
	names := []string{"v"}
	b.ReportAllocs()
	for b.Loop() {
		s, ok := takeSnapshot(roots, 0)
		if !ok {
			b.Fatal("snapshot over budget")
		}
		if _, equal := s.firstDiff(roots, names); !equal {
			b.Fatal("unchanged graph differs")
		}
	}
}

// BenchmarkSnapshot is the snapshot alone, what every call pays.
func BenchmarkSnapshot(b *testing.B) {
	head := list(1000)
	roots := []any{head}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := takeSnapshot(roots, 0); !ok {
			b.Fatal("snapshot over budget")
		}
	}
}

// BenchmarkSnapshotFlat snapshots and compares a pointer to a flat 64-byte
// struct, the commonest receiver.
func BenchmarkSnapshotFlat(b *testing.B) {
	type flat struct {
		a, b, c, d int64
		e, f       float64
		g, h       uint64
	}
	benchmarkSnapshotCompare(b, &flat{a: 1, b: 2})
}

// TestPlansShared checks that snapshots taken at once by several goroutines
// share one plan per type, recursive types included, and still see their
// own graphs (run it with -race too).
func TestPlansShared(t *testing.T) {
	type node struct {
		val  int
		next *node
		kids map[string]*node
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := &node{val: g, next: &node{val: g + 1}, kids: map[string]*node{"a": {val: g + 2}}}
			roots := []any{n}
			for range 50 {
				s, ok := takeSnapshot(roots, 0)
				if !ok {
					t.Error("over budget")
					return
				}
				n.next.val++
				d, equal := s.firstDiff(roots, []string{"n"})
				n.next.val--
				if equal || d.Path != "n.next.val" {
					t.Errorf("goroutine %d: diff %+v, equal %t", g, d, equal)
					return
				}
			}
		}()
	}
	wg.Wait()
	pl := planOf(reflect.TypeFor[*node]())
	if pl != planOf(reflect.TypeFor[*node]()) || pl.elemPlan() != planOf(reflect.TypeFor[node]()) {
		t.Error("a type has two plans")
	}
	if f := planOf(reflect.TypeFor[node]()).fields[1].plan; f != pl {
		t.Error("the field next does not share the plan of *node")
	}
}

// checkMutation snapshots roots, checks that the unchanged graph compares
// equal, applies mutate and checks the difference it says it makes (nil:
// none). It returns the snapshot.
func checkMutation(t *testing.T, roots []any, names []string, mutate func() *difference) *snapshot {
	t.Helper()
	s, ok := snapshotGraph(roots, 0, nil)
	if !ok {
		t.Fatal("snapshot over budget")
	}
	if d, equal := s.compareGraph(roots, names); !equal {
		t.Fatalf("unchanged graph differs: %+v", d)
	}
	want := mutate()
	d, equal := s.compareGraph(roots, names)
	switch {
	case want == nil && !equal:
		t.Errorf("got difference %+v, want none", d)
	case want != nil && equal:
		t.Errorf("got no difference, want %+v", *want)
	case want != nil && d != *want:
		t.Errorf("got  %+v\nwant %+v", d, *want)
	}
	return s
}

// TestCompareLeavesReports: an error written in place is the report of
// the failure, no change of state; an error replaced by another, and the
// state around it, are changes.
func TestCompareLeavesReports(t *testing.T) {
	type holder struct {
		n    int
		last error
	}
	for _, tt := range []struct {
		name   string
		change func(h *holder)
		path   string // "" when equal
	}{
		{"decorated in place", func(h *holder) { h.last.(*mtReport).key = "b" }, ""},
		{"replaced", func(h *holder) { h.last = &mtReport{key: "c"} }, "v.last.(*rt.mtReport).key"},
		{"state beside it", func(h *holder) { h.n = 2; h.last.(*mtReport).key = "b" }, "v.n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := &holder{n: 1, last: &mtReport{}}
			roots := []any{h}
			s, ok := takeSnapshot(roots, 0)
			if !ok {
				t.Fatal("snapshot over budget")
			}
			tt.change(h)
			d, equal := s.firstDiff(roots, []string{"v"})
			if tt.path == "" && !equal {
				t.Errorf("a difference at %s: %+v", d.Path, d)
			}
			if tt.path != "" && (equal || !strings.HasPrefix(d.Path, tt.path)) {
				t.Errorf("got %+v (equal %v), want a difference at %s", d, equal, tt.path)
			}
		})
	}
}
