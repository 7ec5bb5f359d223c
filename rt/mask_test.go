package rt

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// Tests of Mask and Checkpoint.Rollback: a failed call gets the object
// graph it could reach back as it was at entry, every object at its own
// address. Each test looks at the state from outside the masked call, the
// way its caller would, and checks pointer identity where a reference held
// elsewhere must stay valid.

// The masked functions below are written the way the rewriter masks them:
// the checkpoint is deferred first, so that it runs after the function's
// own deferred calls, and _atx_done is set before each return.

const mtPkg = "github.com/atomicx/atomicx/rt."

// Indexes of mtSites.
const (
	mtSiteErr = iota
	mtSiteVoid
	mtSiteRecovering
	mtSiteStackPush
	mtSiteStackPushSafe
	mtSiteDeposit
	mtSiteTransfer
	mtSitePushNode
	mtSiteCleanup
	mtSiteGlobals
	mtSiteNoGlobals
	mtSiteFlat
)

var mtSites = [...]Site{
	mtSiteErr:           {ID: mtPkg + "mtMaskedErr#entry", Func: mtPkg + "mtMaskedErr", Kind: EntrySite},
	mtSiteVoid:          {ID: mtPkg + "mtMaskedVoid#entry", Func: mtPkg + "mtMaskedVoid", Kind: EntrySite},
	mtSiteRecovering:    {ID: mtPkg + "mtMaskedRecovering#entry", Func: mtPkg + "mtMaskedRecovering", Kind: EntrySite},
	mtSiteStackPush:     {ID: mtPkg + "(*mtStack[...]).Push#entry", Func: mtPkg + "(*mtStack[...]).Push", Kind: EntrySite},
	mtSiteStackPushSafe: {ID: mtPkg + "(*mtStack[...]).PushSafe#entry", Func: mtPkg + "(*mtStack[...]).PushSafe", Kind: EntrySite},
	mtSiteDeposit:       {ID: mtPkg + "(*mtAccount).Deposit#entry", Func: mtPkg + "(*mtAccount).Deposit", Kind: EntrySite},
	mtSiteTransfer:      {ID: mtPkg + "mtTransfer#entry", Func: mtPkg + "mtTransfer", Kind: EntrySite},
	mtSitePushNode:      {ID: mtPkg + "mtPushNode#entry", Func: mtPkg + "mtPushNode", Kind: EntrySite},
	mtSiteCleanup:       {ID: mtPkg + "mtWithCleanup#entry", Func: mtPkg + "mtWithCleanup", Kind: EntrySite},
	mtSiteGlobals:       {ID: mtPkg + "mtRegister#entry", Func: mtPkg + "mtRegister", Kind: EntrySite, Globals: &mtGlobals},
	mtSiteNoGlobals:     {ID: mtPkg + "mtRegister#entry", Func: mtPkg + "mtRegister", Kind: EntrySite},
	mtSiteFlat:          {ID: mtPkg + "(*mtFlat).Bump#entry", Func: mtPkg + "(*mtFlat).Bump", Kind: EntrySite},
}

func TestMaskSiteFuncNames(t *testing.T) {
	funcs := map[int]any{
		mtSiteErr:           mtMaskedErr,
		mtSiteVoid:          mtMaskedVoid,
		mtSiteRecovering:    mtMaskedRecovering,
		mtSiteStackPush:     (*mtStack[int]).Push,
		mtSiteStackPushSafe: (*mtStack[mtInner]).PushSafe,
		mtSiteDeposit:       (*mtAccount).Deposit,
		mtSiteTransfer:      mtTransfer,
		mtSitePushNode:      mtPushNode,
		mtSiteCleanup:       mtWithCleanup,
		mtSiteGlobals:       mtRegister,
		mtSiteNoGlobals:     mtRegister,
		mtSiteFlat:          (*mtFlat).Bump,
	}
	if len(funcs) != len(mtSites) {
		t.Fatalf("%d functions for %d sites", len(funcs), len(mtSites))
	}
	for i, fn := range funcs {
		if got := funcName(fn); got != mtSites[i].Func {
			t.Errorf("site %d: Func = %q, but runtime.Func.Name() is %q", i, mtSites[i].Func, got)
		}
	}
}

// mtFailure says how a masked function ends.
type mtFailure int

const (
	mtSucceed      mtFailure = iota // return normally (nil error)
	mtFailError                     // return mtErr
	mtFailPanic                     // panic(mtBoom)
	mtFailNilMap                    // runtime error: assignment to a nil map
	mtFailNilDeref                  // runtime error: nil pointer dereference (a signal)
	mtFailGoexit                    // runtime.Goexit
	mtFailPanicNil                  // panic(nil)
)

var mtErr = errors.New("masked call failed")

type mtPanicValue struct{ msg string }

// mtBoom is the value the masked functions panic with: a pointer, so that
// the recovered value can be checked for identity.
var mtBoom = &mtPanicValue{"boom"}

var (
	mtNilInner *mtInner
	mtSink     int
)

// mtEnd ends a masked function the way fail says; it returns for
// mtSucceed and mtFailError (callers with an error result return that
// error themselves).
func mtEnd(fail mtFailure) {
	switch fail {
	case mtFailPanic:
		panic(mtBoom)
	case mtFailNilMap:
		var m map[string]int
		m["x"] = 1
	case mtFailNilDeref:
		mtSink = mtNilInner.x
	case mtFailGoexit:
		runtime.Goexit()
	case mtFailPanicNil:
		panic(nil) // a *runtime.PanicNilError
	}
}

// mtMaskedErr runs mutate as the body of a masked function with an error
// result, then ends as fail says.
func mtMaskedErr(fail mtFailure, mutate func(), roots ...any) (_atx_r0 error) {
	var _atx_done bool
	defer Mask(&mtSites[mtSiteErr], roots...).Rollback(&_atx_done, &_atx_r0)
	mutate()
	if fail == mtFailError {
		_atx_r0 = mtErr
		_atx_done = true
		return
	}
	mtEnd(fail)
	_atx_r0 = nil
	_atx_done = true
	return
}

// mtMaskedVoid is mtMaskedErr without an error result.
func mtMaskedVoid(fail mtFailure, mutate func(), roots ...any) {
	var _atx_done bool
	cp := Mask(&mtSites[mtSiteVoid], roots...)
	defer cp.Rollback(&_atx_done, nil)
	mutate()
	mtEnd(fail)
	_atx_done = true
}

// mtRecoveredError is the error mtMaskedRecovering returns when asked to
// turn its panic into an error.
type mtRecoveredError struct{ value any }

func (e *mtRecoveredError) Error() string { return fmt.Sprint("recovered: ", e.value) }

// mtMaskedRecovering runs mutate, panics, and recovers in a deferred call
// of its own: it returns normally, with a nil error, or with its named
// error result set when setErr is true.
func mtMaskedRecovering(setErr bool, mutate func(), roots ...any) (_atx_r0 error) {
	var _atx_done bool
	defer Mask(&mtSites[mtSiteRecovering], roots...).Rollback(&_atx_done, &_atx_r0)
	defer func() {
		if r := recover(); r != nil && setErr {
			_atx_r0 = &mtRecoveredError{r}
		}
	}()
	mutate()
	panic(mtBoom)
}

// mtRecover runs f and returns what it panicked with.
func mtRecover(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// mtInGoroutine runs f on a goroutine of its own and reports whether f
// returned (false: it ended by runtime.Goexit or a panic it recovered from).
func mtInGoroutine(f func()) (returned bool) {
	done := make(chan bool)
	go func() {
		ok := false
		defer func() { done <- ok }()
		f()
		ok = true
	}()
	return <-done
}

// mtMode is one way for the masked call to end, and whether it must
// leave the state as it was at entry.
type mtMode struct {
	name     string
	restored bool
	// call runs mutate as the body of a masked call on roots and checks
	// how the call ended, seen from its caller.
	call func(t *testing.T, mutate func(), roots []any)
}

var mtModes = []mtMode{
	{"returns an error", true, func(t *testing.T, mutate func(), roots []any) {
		if err := mtMaskedErr(mtFailError, mutate, roots...); err != mtErr {
			t.Errorf("the call returned %v, want the function's own error %v", err, mtErr)
		}
	}},
	{"returns nil", false, func(t *testing.T, mutate func(), roots []any) {
		if err := mtMaskedErr(mtSucceed, mutate, roots...); err != nil {
			t.Errorf("the call returned %v, want nil", err)
		}
	}},
	{"returns, no error result", false, func(t *testing.T, mutate func(), roots []any) {
		if r := mtRecover(func() { mtMaskedVoid(mtSucceed, mutate, roots...) }); r != nil {
			t.Errorf("the call panicked with %v", r)
		}
	}},
	{"panics, no error result", true, func(t *testing.T, mutate func(), roots []any) {
		r := mtRecover(func() { mtMaskedVoid(mtFailPanic, mutate, roots...) })
		if r != any(mtBoom) {
			t.Errorf("recovered %#v, want the original panic value %p", r, mtBoom)
		}
	}},
	{"panics with an error result", true, func(t *testing.T, mutate func(), roots []any) {
		var err error
		r := mtRecover(func() { err = mtMaskedErr(mtFailPanic, mutate, roots...) })
		if r != any(mtBoom) || err != nil {
			t.Errorf("recovered %#v and the call returned %v, want the original panic value %p", r, err, mtBoom)
		}
	}},
	{"assigns to a nil map", true, func(t *testing.T, mutate func(), roots []any) {
		r := mtRecover(func() { mtMaskedVoid(mtFailNilMap, mutate, roots...) })
		if e, ok := r.(runtime.Error); !ok || !strings.Contains(e.Error(), "nil map") {
			t.Errorf("recovered %#v, want the runtime error of a nil map assignment", r)
		}
	}},
	{"dereferences a nil pointer", true, func(t *testing.T, mutate func(), roots []any) {
		r := mtRecover(func() { mtMaskedErr(mtFailNilDeref, mutate, roots...) })
		if e, ok := r.(runtime.Error); !ok || !strings.Contains(e.Error(), "nil pointer") {
			t.Errorf("recovered %#v, want the runtime error of a nil pointer dereference", r)
		}
	}},
	{"panic(nil)", true, func(t *testing.T, mutate func(), roots []any) {
		r := mtRecover(func() { mtMaskedVoid(mtFailPanicNil, mutate, roots...) })
		if _, ok := r.(*runtime.PanicNilError); !ok {
			t.Errorf("recovered %#v, want a *runtime.PanicNilError", r)
		}
	}},
	{"runtime.Goexit", true, func(t *testing.T, mutate func(), roots []any) {
		if mtInGoroutine(func() { mtMaskedVoid(mtFailGoexit, mutate, roots...) }) {
			t.Errorf("the call returned, want runtime.Goexit to end its goroutine")
		}
	}},
	{"runtime.Goexit with an error result", true, func(t *testing.T, mutate func(), roots []any) {
		if mtInGoroutine(func() { mtMaskedErr(mtFailGoexit, mutate, roots...) }) {
			t.Errorf("the call returned, want runtime.Goexit to end its goroutine")
		}
	}},
	{"recovers its own panic, nil error", false, func(t *testing.T, mutate func(), roots []any) {
		var err error
		if r := mtRecover(func() { err = mtMaskedRecovering(false, mutate, roots...) }); r != nil || err != nil {
			t.Errorf("the call panicked with %v and returned %v, want a normal return with nil", r, err)
		}
	}},
	{"recovers its own panic into its error result", true, func(t *testing.T, mutate func(), roots []any) {
		var err error
		r := mtRecover(func() { err = mtMaskedRecovering(true, mutate, roots...) })
		var re *mtRecoveredError
		if r != nil || !errors.As(err, &re) || re.value != any(mtBoom) {
			t.Errorf("the call panicked with %v and returned %v, want the error holding the recovered value", r, err)
		}
	}},
}

// Types of the graphs under test. Most fields are unexported on purpose.

type mtInner struct {
	x     int
	label string
}

type mtBase struct {
	id  int
	tag string
}

type mtLink struct{ hops int }

type mtRecord struct {
	mtBase
	*mtLink
	Name   string
	count  int
	ratio  float64
	c      complex128
	r      rune
	flags  [4]bool
	grid   [2][3]string
	inner  mtInner
	inners [2]mtInner
}

type mtHolder struct {
	p  *mtInner
	pp **mtInner
	n  *int
}

type mtNode struct {
	val        int
	next, prev *mtNode
}

type mtRing struct {
	head *mtNode
	size int
}

type mtList struct {
	head *mtNode
	n    int
}

type mtShared struct {
	a, b *mtInner
	both [2]*mtInner
	list []*mtInner
}

type mtSelf struct {
	self *mtSelf
	v    any
	n    int
}

type mtSlices struct {
	ints   []int
	strs   []string
	nested [][]int
	pairs  [][2]int
	bytes  []byte
}

type mtBuf struct {
	s []int
	n int
}

type mtPtrs struct{ ps []*mtInner }

type mtMaps struct {
	m       map[string]int
	structs map[string]mtInner
	ptrs    map[int]*mtInner
	slices  map[string][]int
	lazy    map[string]int // nil at entry
	keys    map[*mtInner]string
	anys    map[string]any
	nested  map[string]map[string]int
}

type mtIface struct {
	v   any
	err error
	arr [2]any
}

type mtPair struct {
	p *mtInner
	s []int
}

type mtRefs struct {
	ch chan int
	fn func() int
	up unsafe.Pointer
}

func mtOne() int   { return 1 }
func mtTwoFn() int { return 2 }

type mtTwo struct {
	a *mtInner
	b *mtBuf
}

type mtCounter struct {
	mu sync.Mutex
	n  int
}

type mtGuarded struct {
	sync.Mutex
	rw    sync.RWMutex
	hits  atomic.Int64
	last  atomic.Pointer[mtInner]
	n     int
	items []string
	byKey map[string]int
	slots []mtCounter
	pair  [2]mtCounter
	owner *mtCounter
}

// mtStack is a generic type; its masked methods are further below.
type mtStack[T any] struct {
	items  []T
	top    *T
	pushes int
}

// put is the body of Push, unmasked.
func (s *mtStack[T]) put(x T) {
	s.pushes++
	s.items = append(s.items, x)
	s.top = &s.items[len(s.items)-1]
}

// mtNewList returns a list of n nodes holding 0 to n-1.
func mtNewList(n int) *mtList {
	l := &mtList{n: n}
	for i := n - 1; i >= 0; i-- {
		l.head = &mtNode{val: i, next: l.head}
	}
	return l
}

// mtNodes returns the nodes of l in order, at most limit of them.
func mtNodes(l *mtList, limit int) []*mtNode {
	var nodes []*mtNode
	for n := l.head; n != nil && len(nodes) < limit; n = n.next {
		nodes = append(nodes, n)
	}
	return nodes
}

// mtMapID is the runtime identity of a map.
func mtMapID(m any) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

// mtFloatMapView describes a map with float keys, NaN keys included, in a
// form reflect.DeepEqual can compare.
func mtFloatMapView(m map[float64]int) []string {
	var entries []string
	for k, v := range m {
		entries = append(entries, fmt.Sprintf("%v:%d", k, v))
	}
	sort.Strings(entries)
	return entries
}

// mtCase is an object graph, the body of a masked call on it, and the
// identity checks that reflect.DeepEqual cannot make.
type mtCase struct {
	name string
	// build returns a new state, the same every time, and the roots of the
	// masked call on it (pointers into it, or values sharing its storage).
	build func() (state any, roots []any)
	// mutate is the body of the masked call.
	mutate func(state any)
	// view, when set, is the part of the state compared with DeepEqual.
	view func(state any) any
	// refs, when set, takes references to parts of the state before the
	// call, as its caller might hold them, and returns a check of them
	// after the call.
	refs func(state any) func(t *testing.T, restored bool)
}

var mtCases = []mtCase{
	{
		name: "struct fields: unexported, embedded, arrays, strings",
		build: func() (any, []any) {
			r := &mtRecord{
				mtBase: mtBase{id: 1, tag: "base"},
				mtLink: &mtLink{hops: 3},
				Name:   "record", count: 2, ratio: 1.5, c: 1 + 2i, r: 'a',
				flags:  [4]bool{true},
				grid:   [2][3]string{{"a", "b", "c"}, {"d", "e", "f"}},
				inner:  mtInner{1, "one"},
				inners: [2]mtInner{{2, "two"}, {3, "three"}},
			}
			return r, []any{r}
		},
		mutate: func(s any) {
			r := s.(*mtRecord)
			r.id, r.tag = 10, "changed"
			r.mtBase.id++
			r.hops = 30 // the embedded pointer's target
			r.mtLink = &mtLink{hops: 7}
			r.Name += " (renamed)"
			r.count--
			r.ratio *= 2
			r.c = 0
			r.r = 'z'
			r.flags[3] = true
			r.grid[1][2] = "z"
			r.inner.label = "changed"
			r.inners[1].x = 30
		},
		refs: func(s any) func(*testing.T, bool) {
			r := s.(*mtRecord)
			link := r.mtLink
			return func(t *testing.T, restored bool) {
				if restored && (r.mtLink != link || link.hops != 3) {
					t.Errorf("embedded pointer %p (hops %d), want the entry one %p with hops 3", r.mtLink, r.hops, link)
				}
				if !restored && link.hops != 30 {
					t.Errorf("the replaced embedded object has hops %d, want the 30 the call wrote", link.hops)
				}
			}
		},
	},
	{
		name: "pointers: references held outside keep identity and see the old contents",
		build: func() (any, []any) {
			q := &mtInner{2, "two"}
			n := 5
			h := &mtHolder{p: &mtInner{1, "one"}, pp: &q, n: &n}
			return h, []any{h}
		},
		mutate: func(s any) {
			h := s.(*mtHolder)
			h.p.x, h.p.label = 100, "hundred"
			h.p = &mtInner{x: -1}
			(*h.pp).x = 20
			*h.pp = &mtInner{x: 21}
			*h.n = 6
			h.n = new(int)
		},
		refs: func(s any) func(*testing.T, bool) {
			h := s.(*mtHolder)
			p, pp, q, n := h.p, h.pp, *h.pp, h.n
			return func(t *testing.T, restored bool) {
				if !restored {
					if p.x != 100 || h.p == p || *n != 6 {
						t.Errorf("after a successful call the outside reference sees %+v", *p)
					}
					return
				}
				if h.p != p || *p != (mtInner{1, "one"}) {
					t.Errorf("h.p = %p %+v, want the entry object %p with {1 one}", h.p, *h.p, p)
				}
				if h.pp != pp || *pp != q || *q != (mtInner{2, "two"}) {
					t.Errorf("h.pp = %p -> %p %+v, want %p -> %p {2 two}", h.pp, *h.pp, **h.pp, pp, q)
				}
				if h.n != n || *n != 5 {
					t.Errorf("h.n = %p -> %d, want %p -> 5", h.n, *h.n, n)
				}
			}
		},
	},
	{
		name: "cycle: a ring of nodes",
		build: func() (any, []any) {
			nodes := make([]*mtNode, 5)
			for i := range nodes {
				nodes[i] = &mtNode{val: i + 1}
			}
			for i, n := range nodes {
				n.next, n.prev = nodes[(i+1)%5], nodes[(i+4)%5]
			}
			r := &mtRing{head: nodes[0], size: 5}
			return r, []any{r}
		},
		mutate: func(s any) {
			r := s.(*mtRing)
			n := r.head
			for range r.size {
				n.val *= 10
				n = n.next
			}
			third := r.head.next.next
			third.prev.next, third.next.prev = third.next, third.prev
			nn := &mtNode{val: -1, prev: r.head, next: r.head.next}
			r.head.next.prev = nn
			r.head.next = nn
			r.head = r.head.prev
		},
		refs: func(s any) func(*testing.T, bool) {
			r := s.(*mtRing)
			nodes := []*mtNode{r.head}
			for n := r.head.next; n != r.head; n = n.next {
				nodes = append(nodes, n)
			}
			return func(t *testing.T, restored bool) {
				if !restored {
					if r.head != nodes[4] {
						t.Errorf("after a successful call the head is %p, want %p", r.head, nodes[4])
					}
					return
				}
				n := r.head
				for i := range 5 {
					if n != nodes[i] || n.prev != nodes[(i+4)%5] || n.val != i+1 {
						t.Errorf("ring node %d is %p (prev %p, val %d), want %p (prev %p, val %d)",
							i, n, n.prev, n.val, nodes[i], nodes[(i+4)%5], i+1)
						return
					}
					n = n.next
				}
				if n != r.head {
					t.Errorf("the ring does not close after 5 nodes")
				}
			}
		},
	},
	{
		name: "cycle: an object pointing at itself directly and through an interface",
		build: func() (any, []any) {
			s := &mtSelf{n: 1}
			s.self, s.v = s, s
			return s, []any{s}
		},
		mutate: func(st any) {
			s := st.(*mtSelf)
			s.v.(*mtSelf).n = 2
			s.self = &mtSelf{n: 3}
			s.v = s.self
		},
		refs: func(st any) func(*testing.T, bool) {
			s := st.(*mtSelf)
			return func(t *testing.T, restored bool) {
				if restored && (s.self != s || s.v != any(s) || s.n != 1) {
					t.Errorf("self %p, v %v, n %d; want %p twice and 1", s.self, s.v, s.n, s)
				}
			}
		},
	},
	{
		name: "shared substructure: several fields pointing at one object",
		build: func() (any, []any) {
			x := &mtInner{1, "shared"}
			s := &mtShared{a: x, b: x, both: [2]*mtInner{x, x}, list: []*mtInner{x, x}}
			return s, []any{s}
		},
		mutate: func(st any) {
			s := st.(*mtShared)
			s.a.x = 7
			s.b = &mtInner{x: 8}
			s.both[1].label = "changed"
			s.list[0] = s.b
		},
		refs: func(st any) func(*testing.T, bool) {
			s := st.(*mtShared)
			x := s.a
			return func(t *testing.T, restored bool) {
				if !restored {
					return
				}
				if s.a != x || s.b != x || s.both != [2]*mtInner{x, x} || s.list[0] != x || s.list[1] != x {
					t.Errorf("a %p b %p both %v list %v, want all %p", s.a, s.b, s.both, s.list, x)
				}
				if *x != (mtInner{1, "shared"}) {
					t.Errorf("shared object %+v, want {1 shared}", *x)
				}
			}
		},
	},
	{
		name: "slices: element changes",
		build: func() (any, []any) {
			s := &mtSlices{
				ints:   []int{1, 2, 3},
				strs:   []string{"a", "b"},
				nested: [][]int{{1, 2}, {3}},
				pairs:  [][2]int{{1, 2}, {3, 4}},
				bytes:  []byte("abc"),
			}
			return s, []any{s}
		},
		mutate: func(st any) {
			s := st.(*mtSlices)
			s.ints[1] = 20
			copy(s.ints[2:], []int{30})
			s.strs[0] = "changed"
			s.nested[0][1] = 20
			s.nested[1] = []int{30, 31}
			s.pairs[1][0] = 30
			s.bytes[2] = 'z'
		},
		refs: func(st any) func(*testing.T, bool) {
			s := st.(*mtSlices)
			ints, n0, n1 := s.ints, s.nested[0], s.nested[1]
			return func(t *testing.T, restored bool) {
				if !restored {
					if ints[1] != 20 {
						t.Errorf("an outside view of the slice sees %v, want the change", ints)
					}
					return
				}
				if &s.ints[0] != &ints[0] || !slices.Equal(ints, []int{1, 2, 3}) {
					t.Errorf("ints %v at %p, want [1 2 3] at %p", s.ints, &s.ints[0], &ints[0])
				}
				if &s.nested[0][0] != &n0[0] || &s.nested[1][0] != &n1[0] || n0[1] != 2 {
					t.Errorf("nested slices moved or kept changes: %v", s.nested)
				}
			}
		},
	},
	{
		name: "slices: append within capacity",
		build: func() (any, []any) {
			s := make([]int, 2, 8)
			s[0], s[1] = 1, 2
			b := &mtBuf{s: s}
			return b, []any{b}
		},
		mutate: func(st any) {
			b := st.(*mtBuf)
			b.s = append(b.s, 3)
			b.s[0] = 10
			b.s = append(b.s, 4, 5)
			b.s[1] = 20
			b.n = len(b.s)
		},
		refs: func(st any) func(*testing.T, bool) {
			b := st.(*mtBuf)
			alias := b.s
			return func(t *testing.T, restored bool) {
				if &b.s[0] != &alias[0] {
					t.Errorf("the backing array moved: %p, want %p", &b.s[0], &alias[0])
				}
				if restored && (len(b.s) != 2 || cap(b.s) != 8 || !slices.Equal(alias, []int{1, 2})) {
					t.Errorf("slice len %d cap %d, outside view %v; want len 2 cap 8 and [1 2]", len(b.s), cap(b.s), alias)
				}
				if !restored && !slices.Equal(alias, []int{10, 20}) {
					t.Errorf("outside view %v, want the call's [10 20]", alias)
				}
			}
		},
	},
	{
		name: "slices: append that reallocates",
		build: func() (any, []any) {
			b := &mtBuf{s: []int{1, 2}}
			return b, []any{b}
		},
		mutate: func(st any) {
			b := st.(*mtBuf)
			b.s[1] = 20 // the old array
			b.s = append(b.s, 3, 4, 5)
			b.s[0] = 10 // the new one
			b.n = len(b.s)
		},
		refs: func(st any) func(*testing.T, bool) {
			b := st.(*mtBuf)
			alias := b.s
			return func(t *testing.T, restored bool) {
				if !restored {
					if &b.s[0] == &alias[0] || !slices.Equal(alias, []int{1, 20}) {
						t.Errorf("after a successful call: new array %v, old %v", b.s, alias)
					}
					return
				}
				if &b.s[0] != &alias[0] || len(b.s) != 2 || cap(b.s) != 2 {
					t.Errorf("slice at %p len %d cap %d, want the entry array %p, len 2 cap 2", &b.s[0], len(b.s), cap(b.s), &alias[0])
				}
				if !slices.Equal(alias, []int{1, 2}) {
					t.Errorf("old array %v, want [1 2]", alias)
				}
			}
		},
	},
	{
		name: "slices: reslice and write through the new header",
		build: func() (any, []any) {
			b := &mtBuf{s: []int{1, 2, 3, 4}, n: 4}
			return b, []any{b}
		},
		mutate: func(st any) {
			b := st.(*mtBuf)
			b.s = b.s[1:3]
			copy(b.s, []int{7, 8})
			b.s = b.s[:cap(b.s)]
			b.s[2] = 9
			b.n = len(b.s)
		},
		refs: func(st any) func(*testing.T, bool) {
			b := st.(*mtBuf)
			alias := b.s
			return func(t *testing.T, restored bool) {
				if restored && (&b.s[0] != &alias[0] || len(b.s) != 4 || !slices.Equal(alias, []int{1, 2, 3, 4})) {
					t.Errorf("slice %v at %p, want [1 2 3 4] at %p", b.s, &b.s[0], &alias[0])
				}
			}
		},
	},
	{
		name: "slices: of pointers",
		build: func() (any, []any) {
			p := &mtPtrs{ps: []*mtInner{{1, "a"}, {2, "b"}, {3, "c"}}}
			return p, []any{p}
		},
		mutate: func(st any) {
			p := st.(*mtPtrs)
			p.ps[0].x = 10
			p.ps[1], p.ps[2] = p.ps[2], p.ps[1]
			p.ps[1].label = "changed"
			p.ps = append(p.ps, &mtInner{x: 4})
			p.ps[0] = &mtInner{x: 0}
		},
		refs: func(st any) func(*testing.T, bool) {
			p := st.(*mtPtrs)
			arr, elems := p.ps, slices.Clone(p.ps)
			return func(t *testing.T, restored bool) {
				if !restored {
					return
				}
				if len(p.ps) != 3 || &p.ps[0] != &arr[0] {
					t.Fatalf("slice len %d at %p, want len 3 at %p", len(p.ps), &p.ps[0], &arr[0])
				}
				for i, e := range elems {
					if p.ps[i] != e || arr[i] != e || e.x != i+1 {
						t.Errorf("element %d: %p %+v, want %p with x %d", i, p.ps[i], *p.ps[i], e, i+1)
					}
				}
			}
		},
	},
	{
		name: "list: a node allocated by the call becomes unreachable",
		build: func() (any, []any) {
			l := mtNewList(4)
			return l, []any{l}
		},
		mutate: func(st any) {
			l := st.(*mtList)
			l.head = &mtNode{val: -1, next: l.head}
			l.head.next.next.val = 100
			l.n++
		},
		refs: func(st any) func(*testing.T, bool) {
			l := st.(*mtList)
			nodes := mtNodes(l, 100)
			return func(t *testing.T, restored bool) {
				got := mtNodes(l, 100)
				if !restored {
					if len(got) != 5 || got[1] != nodes[0] {
						t.Errorf("after a successful call: %d nodes, want the new one in front of the 4", len(got))
					}
					return
				}
				if !slices.Equal(got, nodes) {
					t.Errorf("nodes %v, want %v", got, nodes)
				}
			}
		},
	},
	{
		name: "list: ten thousand nodes reversed",
		build: func() (any, []any) {
			l := mtNewList(10000)
			return l, []any{l}
		},
		mutate: func(st any) {
			l := st.(*mtList)
			var prev *mtNode
			for n := l.head; n != nil; {
				next := n.next
				n.next, n.val = prev, -n.val
				prev, n = n, next
			}
			l.head = prev
		},
		refs: func(st any) func(*testing.T, bool) {
			l := st.(*mtList)
			nodes := mtNodes(l, 20000)
			return func(t *testing.T, restored bool) {
				if restored && !slices.Equal(mtNodes(l, 20000), nodes) {
					t.Errorf("the list does not hold its entry nodes in order")
				}
			}
		},
	},
	{
		name:  "maps: entries added, deleted and changed",
		build: mtBuildMaps,
		view:  mtMapsView,
		mutate: func(st any) {
			h := st.(*mtMaps)
			h.m["a"] = 10
			delete(h.m, "b")
			h.m["c"] = 3
		},
		refs: func(st any) func(*testing.T, bool) {
			h := st.(*mtMaps)
			alias := h.m
			return func(t *testing.T, restored bool) {
				if mtMapID(h.m) != mtMapID(alias) {
					t.Errorf("the map was replaced")
				}
				if restored && !reflect.DeepEqual(alias, map[string]int{"a": 1, "b": 2}) {
					t.Errorf("the map seen from outside holds %v, want map[a:1 b:2]", alias)
				}
			}
		},
	},
	{
		name:  "maps: cleared, then replaced by another map",
		build: mtBuildMaps,
		view:  mtMapsView,
		mutate: func(st any) {
			h := st.(*mtMaps)
			clear(h.m)
			h.m = map[string]int{"z": 26}
		},
		refs: func(st any) func(*testing.T, bool) {
			h := st.(*mtMaps)
			alias := h.m
			return func(t *testing.T, restored bool) {
				if restored && (mtMapID(h.m) != mtMapID(alias) || len(alias) != 2) {
					t.Errorf("map %v, want the entry map refilled", h.m)
				}
			}
		},
	},
	{
		name:  "maps: of structs",
		build: mtBuildMaps,
		view:  mtMapsView,
		mutate: func(st any) {
			h := st.(*mtMaps)
			h.structs["a"] = mtInner{10, "ten"}
			delete(h.structs, "b")
			h.structs["c"] = mtInner{3, "three"}
		},
	},
	{
		name:  "maps: of pointers, pointees restored too",
		build: mtBuildMaps,
		view:  mtMapsView,
		mutate: func(st any) {
			h := st.(*mtMaps)
			h.ptrs[1].x = 10
			h.ptrs[2].label = "changed"
			delete(h.ptrs, 2)
			h.ptrs[3] = &mtInner{3, "three"}
			h.ptrs[1] = &mtInner{x: -1}
		},
		refs: func(st any) func(*testing.T, bool) {
			h := st.(*mtMaps)
			p1, p2 := h.ptrs[1], h.ptrs[2]
			return func(t *testing.T, restored bool) {
				if !restored {
					return
				}
				if len(h.ptrs) != 2 || h.ptrs[1] != p1 || h.ptrs[2] != p2 {
					t.Errorf("map %v, want 1:%p 2:%p", h.ptrs, p1, p2)
				}
				if *p1 != (mtInner{1, "one"}) || *p2 != (mtInner{2, "two"}) {
					t.Errorf("pointees %+v %+v, want {1 one} {2 two}", *p1, *p2)
				}
			}
		},
	},
	{
		name:  "maps: of slices",
		build: mtBuildMaps,
		view:  mtMapsView,
		mutate: func(st any) {
			h := st.(*mtMaps)
			h.slices["a"][0] = 10
			h.slices["a"] = append(h.slices["a"], 3)
			h.slices["b"] = nil
		},
		refs: func(st any) func(*testing.T, bool) {
			h := st.(*mtMaps)
			a := h.slices["a"]
			return func(t *testing.T, restored bool) {
				if restored && (&h.slices["a"][0] != &a[0] || !slices.Equal(a, []int{1, 2})) {
					t.Errorf("slice in the map %v, want the entry array holding [1 2]", h.slices["a"])
				}
			}
		},
	},
	{
		name:  "maps: a nil map assigned during the call",
		build: mtBuildMaps,
		view:  mtMapsView,
		mutate: func(st any) {
			h := st.(*mtMaps)
			h.lazy = map[string]int{"x": 1}
			h.lazy["y"] = 2
		},
		refs: func(st any) func(*testing.T, bool) {
			h := st.(*mtMaps)
			return func(t *testing.T, restored bool) {
				if restored && h.lazy != nil {
					t.Errorf("lazy map = %v, want nil again", h.lazy)
				}
			}
		},
	},
	{
		name:  "maps: pointer keys, their targets restored",
		build: mtBuildMaps,
		view:  mtMapsView,
		mutate: func(st any) {
			h := st.(*mtMaps)
			for k := range h.keys {
				k.x += 10
			}
			h.keys[&mtInner{x: 3}] = "new"
		},
	},
	{
		name:  "maps: of interfaces and of maps",
		build: mtBuildMaps,
		view:  mtMapsView,
		mutate: func(st any) {
			h := st.(*mtMaps)
			h.anys["p"].(*mtInner).x = 10
			h.anys["v"] = 5
			h.anys["s"].([]int)[0] = 10
			h.nested["a"]["x"] = 10
			delete(h.nested["a"], "y")
			h.nested["b"] = map[string]int{}
		},
		refs: func(st any) func(*testing.T, bool) {
			h := st.(*mtMaps)
			p, inner := h.anys["p"].(*mtInner), h.nested["a"]
			return func(t *testing.T, restored bool) {
				if restored && (h.anys["p"] != any(p) || p.x != 1 || mtMapID(h.nested["a"]) != mtMapID(inner)) {
					t.Errorf("anys %v nested %v, want the entry objects back", h.anys, h.nested)
				}
			}
		},
	},
	{
		name: "maps: NaN keys",
		build: func() (any, []any) {
			m := map[float64]int{1.5: 1}
			m[math.NaN()] = 2
			m[math.NaN()] = 3
			return &m, []any{&m}
		},
		mutate: func(st any) {
			m := *st.(*map[float64]int)
			m[math.NaN()] = 4
			m[1.5] = 10
			m[2.5] = 20
		},
		view: func(st any) any { return mtFloatMapView(*st.(*map[float64]int)) },
	},
	{
		name: "interfaces: holding a pointer, the pointee restored",
		build: func() (any, []any) {
			h := &mtIface{v: &mtInner{1, "one"}, arr: [2]any{&mtBuf{n: 1}, nil}}
			return h, []any{h}
		},
		mutate: func(st any) {
			h := st.(*mtIface)
			h.v.(*mtInner).x = 10
			h.v = &mtInner{x: 2}
			h.arr[0].(*mtBuf).s = []int{1}
		},
		refs: func(st any) func(*testing.T, bool) {
			h := st.(*mtIface)
			p, b := h.v.(*mtInner), h.arr[0].(*mtBuf)
			return func(t *testing.T, restored bool) {
				if restored && (h.v != any(p) || *p != (mtInner{1, "one"}) || h.arr[0] != any(b) || b.s != nil) {
					t.Errorf("v %v (%+v), arr[0] %v; want %p {1 one} and %p with a nil slice", h.v, *p, h.arr[0], p, b)
				}
			}
		},
	},
	{
		name: "interfaces: holding values, fields of interface type reassigned",
		build: func() (any, []any) {
			h := &mtIface{v: mtInner{1, "one"}, arr: [2]any{1, "two"}}
			return h, []any{h}
		},
		mutate: func(st any) {
			h := st.(*mtIface)
			h.v = mtInner{2, "two"}
			h.err = mtErr
			h.arr[0] = 3.5
			h.arr[1] = nil
		},
		refs: func(st any) func(*testing.T, bool) {
			h := st.(*mtIface)
			return func(t *testing.T, restored bool) {
				if restored && (h.v != any(mtInner{1, "one"}) || h.err != nil || h.arr != [2]any{1, "two"}) {
					t.Errorf("v %v err %v arr %v, want {1 one} <nil> [1 two]", h.v, h.err, h.arr)
				}
			}
		},
	},
	{
		name: "interfaces: holding a slice, a map and a struct with a pointer",
		build: func() (any, []any) {
			h := &mtIface{
				v:   []int{1, 2},
				arr: [2]any{map[string]int{"a": 1}, mtPair{p: &mtInner{1, "one"}, s: []int{1}}},
			}
			return h, []any{h}
		},
		mutate: func(st any) {
			h := st.(*mtIface)
			h.v.([]int)[0] = 10
			m := h.arr[0].(map[string]int)
			m["a"], m["b"] = 10, 2
			pair := h.arr[1].(mtPair)
			pair.p.x = 10
			pair.s[0] = 10
		},
		refs: func(st any) func(*testing.T, bool) {
			h := st.(*mtIface)
			s := h.v.([]int)
			return func(t *testing.T, restored bool) {
				if restored && (&h.v.([]int)[0] != &s[0] || s[0] != 1) {
					t.Errorf("the slice in the interface holds %v, want [1 2] in its entry array", s)
				}
			}
		},
	},
	{
		name: "pointer to an array",
		build: func() (any, []any) {
			a := &[4]int{1, 2, 3, 4}
			return a, []any{a}
		},
		mutate: func(st any) {
			a := st.(*[4]int)
			a[1], a[3] = 20, 40
		},
	},
	{
		name: "generic type: mtStack[int]",
		build: func() (any, []any) {
			s := &mtStack[int]{items: make([]int, 0, 4)}
			s.put(1)
			return s, []any{s}
		},
		mutate: func(st any) {
			s := st.(*mtStack[int])
			s.items[0] = 10
			s.put(2)
			s.put(3)
		},
		refs: func(st any) func(*testing.T, bool) {
			s := st.(*mtStack[int])
			top := s.top
			return func(t *testing.T, restored bool) {
				if restored && (s.top != top || *top != 1 || len(s.items) != 1) {
					t.Errorf("top %p (%d), %d items; want %p holding 1 and 1 item", s.top, *s.top, len(s.items), top)
				}
			}
		},
	},
	{
		name: "generic type: mtStack[mtInner], reallocating",
		build: func() (any, []any) {
			s := &mtStack[mtInner]{}
			s.put(mtInner{1, "one"})
			return s, []any{s}
		},
		mutate: func(st any) {
			s := st.(*mtStack[mtInner])
			s.top.label = "changed"
			s.put(mtInner{2, "two"})
			s.put(mtInner{3, "three"})
		},
		refs: func(st any) func(*testing.T, bool) {
			s := st.(*mtStack[mtInner])
			top := s.top
			return func(t *testing.T, restored bool) {
				if restored && (s.top != top || &s.items[0] != top || *top != (mtInner{1, "one"})) {
					t.Errorf("top %p %+v, want %p {1 one}", s.top, *s.top, top)
				}
			}
		},
	},
	{
		name: "sync: mutexes stay locked, atomics and other fields restored",
		build: func() (any, []any) {
			g := &mtGuarded{
				n:     1,
				items: []string{"a", "b"},
				byKey: map[string]int{"a": 1},
				slots: []mtCounter{{n: 1}, {n: 2}},
				pair:  [2]mtCounter{{n: 4}, {n: 5}},
				owner: &mtCounter{n: 3},
			}
			g.hits.Store(100)
			g.last.Store(&mtInner{label: "first"})
			return g, []any{g}
		},
		mutate: func(st any) {
			g := st.(*mtGuarded)
			g.Lock()
			g.rw.RLock()
			g.hits.Add(5)
			g.last.Store(&mtInner{label: "stored"})
			g.n++
			g.items[0] = "changed"
			g.items = append(g.items, "c")
			g.byKey["c"] = 3
			g.slots[0].mu.Lock()
			g.slots[0].n = 10
			g.pair[1].mu.Lock()
			g.pair[1].n = 50
			g.owner.mu.Lock()
			g.owner.n = 30
		},
		view: func(st any) any {
			g := st.(*mtGuarded)
			return []any{g.n, g.items, g.byKey, g.slots[0].n, g.slots[1].n, g.pair[0].n, g.pair[1].n, g.owner.n}
		},
		refs: func(st any) func(*testing.T, bool) {
			g := st.(*mtGuarded)
			first, owner := g.last.Load(), g.owner
			return func(t *testing.T, restored bool) {
				if g.TryLock() {
					t.Errorf("the embedded mutex is unlocked, want it still locked")
				} else {
					g.Unlock()
				}
				if g.rw.TryLock() {
					t.Errorf("the RWMutex is free, want it still read-locked")
				} else {
					g.rw.RUnlock()
				}
				if g.slots[0].mu.TryLock() {
					t.Errorf("the mutex in the slice element is unlocked, want it still locked")
				} else {
					g.slots[0].mu.Unlock()
				}
				if g.pair[1].mu.TryLock() {
					t.Errorf("the mutex in the array element is unlocked, want it still locked")
				} else {
					g.pair[1].mu.Unlock()
				}
				if g.owner != owner {
					t.Errorf("owner %p, want %p", g.owner, owner)
				} else if owner.mu.TryLock() {
					t.Errorf("the mutex of the pointee is unlocked, want it still locked")
				} else {
					owner.mu.Unlock()
				}
				if got, want := g.hits.Load(), int64(105); restored {
					if want = 100; got != want {
						t.Errorf("atomic counter %d, want %d", got, want)
					}
				} else if got != want {
					t.Errorf("atomic counter %d, want the call's %d", got, want)
				}
				if last := g.last.Load(); restored && (last != first || last.label != "first") {
					t.Errorf("atomic pointer holds %p %+v, want the first %p", last, *last, first)
				} else if !restored && last.label != "stored" {
					t.Errorf("atomic pointer holds %+v, want the one the call stored", *last)
				}
			}
		},
	},
	{
		name: "slices: nil and empty with capacity, appended",
		build: func() (any, []any) {
			v := &mtSlices{ints: nil, strs: make([]string, 0, 4)}
			return v, []any{v}
		},
		mutate: func(st any) {
			v := st.(*mtSlices)
			v.ints = append(v.ints, 1)
			v.strs = append(v.strs, "a", "b")
			v.bytes = []byte{}
		},
		refs: func(st any) func(*testing.T, bool) {
			v := st.(*mtSlices)
			data := unsafe.SliceData(v.strs)
			return func(t *testing.T, restored bool) {
				if restored && (v.ints != nil || len(v.strs) != 0 || cap(v.strs) != 4 || unsafe.SliceData(v.strs) != data || v.bytes != nil) {
					t.Errorf("ints %#v strs len %d cap %d bytes %#v, want nil, 0, 4, nil", v.ints, len(v.strs), cap(v.strs), v.bytes)
				}
			}
		},
	},
	{
		name: "maps: grown far beyond their size at entry",
		build: func() (any, []any) {
			m := make(map[int]string)
			for i := range 100 {
				m[i] = fmt.Sprint(i)
			}
			h := &mtMaps{ptrs: map[int]*mtInner{}}
			for i := range 50 {
				h.ptrs[i] = &mtInner{x: i}
			}
			return []any{m, h}, []any{m, h}
		},
		mutate: func(st any) {
			m, h := st.([]any)[0].(map[int]string), st.([]any)[1].(*mtMaps)
			for i := range 10000 {
				m[i] = "new"
				h.ptrs[i] = &mtInner{x: -i}
			}
			for i := range 50 {
				delete(m, i)
			}
		},
	},
	{
		name: "channels, funcs and unsafe pointers: fields reassigned",
		build: func() (any, []any) {
			x := 1
			r := &mtRefs{ch: make(chan int, 1), fn: mtOne, up: unsafe.Pointer(&x)}
			return r, []any{r}
		},
		mutate: func(st any) {
			r := st.(*mtRefs)
			r.ch = make(chan int, 2)
			r.fn = mtTwoFn
			r.up = nil
		},
		view: func(st any) any {
			r := st.(*mtRefs)
			return []any{cap(r.ch), r.fn(), r.up == nil}
		},
		refs: func(st any) func(*testing.T, bool) {
			r := st.(*mtRefs)
			ch, up := r.ch, r.up
			return func(t *testing.T, restored bool) {
				if restored && (r.ch != ch || r.up != up) {
					t.Errorf("channel %p, unsafe pointer %p; want the entry ones %p, %p", r.ch, r.up, ch, up)
				}
			}
		},
	},
	{
		name: "pointers to an error, a slice and a map",
		build: func() (any, []any) {
			var err error
			s := []int{1, 2}
			m := map[string]int{"a": 1}
			v := []any{&err, &s, &m}
			return v, v
		},
		mutate: func(st any) {
			v := st.([]any)
			*v[0].(*error) = mtErr
			s := v[1].(*[]int)
			(*s)[0] = 10
			*s = append(*s, 3)
			*v[2].(*map[string]int) = nil
		},
		refs: func(st any) func(*testing.T, bool) {
			v := st.([]any)
			s, m := *v[1].(*[]int), *v[2].(*map[string]int)
			return func(t *testing.T, restored bool) {
				if restored && (&(*v[1].(*[]int))[0] != &s[0] || mtMapID(*v[2].(*map[string]int)) != mtMapID(m)) {
					t.Errorf("the slice or the map pointed to is another one")
				}
			}
		},
	},
	{
		name: "value root: a slice sharing its backing array",
		build: func() (any, []any) {
			s := []int{1, 2, 3}
			return s, []any{s}
		},
		mutate: func(st any) {
			s := st.([]int)
			s[0], s[2] = 10, 30
			s = append(s, 4)
			s[1] = 20 // a new array: invisible to the caller
		},
	},
	{
		name: "value root: a map",
		build: func() (any, []any) {
			m := map[string]int{"a": 1, "b": 2}
			return m, []any{m}
		},
		mutate: func(st any) {
			m := st.(map[string]int)
			m["a"] = 10
			delete(m, "b")
			m["c"] = 3
		},
	},
	{
		name: "value root: a struct holding a pointer and a slice",
		build: func() (any, []any) {
			v := mtPair{p: &mtInner{1, "one"}, s: []int{1, 2}}
			return v, []any{v}
		},
		mutate: func(st any) {
			v := st.(mtPair)
			v.p.x = 10
			v.s[1] = 20
			v.p = nil // the callee's copy only
		},
	},
	{
		name: "value root: a slice of pointers",
		build: func() (any, []any) {
			s := []*mtInner{{1, "a"}, {2, "b"}}
			return s, []any{s}
		},
		mutate: func(st any) {
			s := st.([]*mtInner)
			s[0].x = 10
			s[0], s[1] = s[1], &mtInner{x: 3}
		},
	},
	{
		name: "several roots: receiver and argument",
		build: func() (any, []any) {
			v := &mtTwo{a: &mtInner{1, "one"}, b: &mtBuf{s: []int{1}, n: 1}}
			return v, []any{v.a, v.b}
		},
		mutate: func(st any) {
			v := st.(*mtTwo)
			v.a.label = "changed"
			v.b.s = append(v.b.s, 2)
			v.b.s[0] = 10
			v.b.n++
		},
	},
}

func mtBuildMaps() (any, []any) {
	k := &mtInner{1, "key"}
	h := &mtMaps{
		m:       map[string]int{"a": 1, "b": 2},
		structs: map[string]mtInner{"a": {1, "one"}, "b": {2, "two"}},
		ptrs:    map[int]*mtInner{1: {1, "one"}, 2: {2, "two"}},
		slices:  map[string][]int{"a": {1, 2}, "b": {3}},
		keys:    map[*mtInner]string{k: "k"},
		anys:    map[string]any{"p": &mtInner{1, "one"}, "v": mtInner{2, "two"}, "s": []int{1}},
		nested:  map[string]map[string]int{"a": {"x": 1, "y": 2}},
	}
	return h, []any{h}
}

// mtMapsView is the state of mtBuildMaps with the pointer-keyed map
// described by the contents of its keys: reflect.DeepEqual looks map keys
// up, so it compares pointer keys by identity.
func mtMapsView(st any) any {
	h := st.(*mtMaps)
	keys := make(map[mtInner]string)
	for k, v := range h.keys {
		keys[*k] = v
	}
	return []any{h.m, h.structs, h.ptrs, h.slices, h.lazy, keys, h.anys, h.nested}
}

// TestMaskRollback runs every case's body as a masked call that ends in
// every way: a failed call leaves the state as it was at entry, a
// successful one leaves it as the body made it.
func TestMaskRollback(t *testing.T) {
	for _, tc := range mtCases {
		t.Run(tc.name, func(t *testing.T) {
			view := tc.view
			if view == nil {
				view = func(s any) any { return s }
			}
			for _, mode := range mtModes {
				t.Run(mode.name, func(t *testing.T) {
					before, _ := tc.build()
					after, _ := tc.build()
					tc.mutate(after)
					state, roots := tc.build()
					var check func(*testing.T, bool)
					if tc.refs != nil {
						check = tc.refs(state)
					}
					mode.call(t, func() { tc.mutate(state) }, roots)
					want, what := after, "as the call left it"
					if mode.restored {
						want, what = before, "as it was at entry"
					}
					if got, w := view(state), view(want); !reflect.DeepEqual(got, w) {
						t.Errorf("state %+v\nwant it %s: %+v", got, what, w)
					}
					if check != nil {
						check(t, mode.restored)
					}
				})
			}
		})
	}
}

// The masked methods of the generic type.

// Push pushes x, then ends as fail says.
func (s *mtStack[T]) Push(x T, fail mtFailure) (_atx_r0 error) {
	var _atx_done bool
	defer Mask(&mtSites[mtSiteStackPush], s, x).Rollback(&_atx_done, &_atx_r0)
	s.pushes++
	s.items = append(s.items, x)
	s.top = &s.items[len(s.items)-1]
	if fail == mtFailError {
		_atx_r0 = mtErr
		_atx_done = true
		return
	}
	mtEnd(fail)
	_atx_r0 = nil
	_atx_done = true
	return
}

// PushSafe pushes x, panics, and recovers in a deferred call of its own.
func (s *mtStack[T]) PushSafe(x T) {
	var _atx_done bool
	defer Mask(&mtSites[mtSiteStackPushSafe], s, x).Rollback(&_atx_done, nil)
	defer func() { recover() }()
	s.put(x)
	panic(mtBoom)
}

// mtCheckStack pushes x onto a stack holding initial, with a spare slot of
// capacity, through a masked method that ends as fail says (fail < 0:
// PushSafe), and checks the stack afterwards.
func mtCheckStack[T any](t *testing.T, fail mtFailure, restored bool, initial []T, x T) {
	t.Helper()
	s := &mtStack[T]{items: append(make([]T, 0, len(initial)+1), initial...)}
	s.top = &s.items[len(s.items)-1]
	top, arr := s.top, s.items
	switch fail {
	case -1:
		s.PushSafe(x)
	case mtFailGoexit:
		mtInGoroutine(func() { s.Push(x, fail) })
	default:
		var err error
		r := mtRecover(func() { err = s.Push(x, fail) })
		switch _, rtErr := r.(runtime.Error); {
		case fail == mtFailPanic && r != any(mtBoom),
			fail == mtFailNilMap && !rtErr,
			fail != mtFailPanic && fail != mtFailNilMap && r != nil:
			t.Errorf("recovered %v", r)
		}
		if fail == mtFailError && err != mtErr || fail != mtFailError && err != nil {
			t.Errorf("Push returned %v", err)
		}
	}
	if &s.items[0] != &arr[0] {
		t.Errorf("the items moved to another array")
	}
	if !restored {
		if len(s.items) != len(initial)+1 || !reflect.DeepEqual(s.items[len(initial)], x) || s.pushes != 1 || s.top != &s.items[len(initial)] {
			t.Errorf("stack %+v, want %v pushed", s, x)
		}
		return
	}
	if !reflect.DeepEqual(s.items, initial) || s.pushes != 0 || s.top != top {
		t.Errorf("stack %+v, want %v with top %p", s, initial, top)
	}
}

func TestMaskGeneric(t *testing.T) {
	instances := []struct {
		name string
		run  func(t *testing.T, fail mtFailure, restored bool)
	}{
		{"int", func(t *testing.T, fail mtFailure, restored bool) {
			mtCheckStack(t, fail, restored, []int{1, 2}, 3)
		}},
		{"struct", func(t *testing.T, fail mtFailure, restored bool) {
			mtCheckStack(t, fail, restored, []mtInner{{1, "one"}}, mtInner{2, "two"})
		}},
		{"pointer", func(t *testing.T, fail mtFailure, restored bool) {
			p := &mtInner{1, "one"}
			mtCheckStack(t, fail, restored, []*mtInner{p}, &mtInner{2, "two"})
			if *p != (mtInner{1, "one"}) {
				t.Errorf("the pointee changed: %+v", *p)
			}
		}},
		{"slice of maps", func(t *testing.T, fail mtFailure, restored bool) {
			mtCheckStack(t, fail, restored, [][]map[string]int{{{"a": 1}}}, []map[string]int{{"b": 2}})
		}},
	}
	ends := []struct {
		name     string
		fail     mtFailure
		restored bool
	}{
		{"error", mtFailError, true},
		{"panic", mtFailPanic, true},
		{"runtime error", mtFailNilMap, true},
		{"runtime.Goexit", mtFailGoexit, true},
		{"success", mtSucceed, false},
		{"recovered inside", -1, false},
	}
	for _, in := range instances {
		for _, end := range ends {
			t.Run(in.name+"/"+end.name, func(t *testing.T) { in.run(t, end.fail, end.restored) })
		}
	}
}

// Package-level variables watched through Site.Globals.
var (
	mtGlobalCount int
	mtGlobalNames []string
	mtGlobalIndex map[string]*mtInner
	mtGlobalHead  *mtNode
	mtGlobalLazy  map[string]int
)

var mtGlobals = Globals{
	Names: "rt.mtGlobalCount,rt.mtGlobalNames,rt.mtGlobalIndex,rt.mtGlobalHead,rt.mtGlobalLazy",
	Addrs: func() []any {
		return []any{&mtGlobalCount, &mtGlobalNames, &mtGlobalIndex, &mtGlobalHead, &mtGlobalLazy}
	},
}

// mtGlobalState is the package-level variables, for DeepEqual.
type mtGlobalState struct {
	count int
	names []string
	index map[string]*mtInner
	head  *mtNode
	lazy  map[string]int
}

func mtGetGlobals() mtGlobalState {
	return mtGlobalState{mtGlobalCount, mtGlobalNames, mtGlobalIndex, mtGlobalHead, mtGlobalLazy}
}

func mtResetGlobals() {
	mtGlobalCount = 1
	mtGlobalNames = []string{"a"}
	mtGlobalIndex = map[string]*mtInner{"a": {1, "a"}}
	mtGlobalHead = &mtNode{val: 1}
	mtGlobalLazy = nil
}

func mtClearGlobals() {
	mtGlobalCount, mtGlobalNames, mtGlobalIndex, mtGlobalHead, mtGlobalLazy = 0, nil, nil, nil, nil
}

// mtRegister changes the package-level variables, then ends as fail says.
// Its only root is its argument.
func mtRegister(s *Site, name string, fail mtFailure) (_atx_r0 error) {
	var _atx_done bool
	defer Mask(s, name).Rollback(&_atx_done, &_atx_r0)
	mtGlobalCount++
	mtGlobalNames = append(mtGlobalNames, name)
	mtGlobalNames[0] = "first " + name
	mtGlobalIndex["a"].x++
	mtGlobalIndex[name] = &mtInner{label: name}
	mtGlobalHead.val++
	mtGlobalHead = &mtNode{val: len(name), next: mtGlobalHead}
	mtGlobalLazy = map[string]int{name: 1}
	if fail == mtFailError {
		_atx_r0 = mtErr
		_atx_done = true
		return
	}
	mtEnd(fail)
	_atx_r0 = nil
	_atx_done = true
	return
}

func TestMaskGlobals(t *testing.T) {
	t.Cleanup(mtClearGlobals)
	tests := []struct {
		name     string
		site     *Site
		fail     mtFailure
		restored bool
	}{
		{"watched, error", &mtSites[mtSiteGlobals], mtFailError, true},
		{"watched, panic", &mtSites[mtSiteGlobals], mtFailPanic, true},
		{"watched, runtime.Goexit", &mtSites[mtSiteGlobals], mtFailGoexit, true},
		{"watched, success", &mtSites[mtSiteGlobals], mtSucceed, false},
		{"not watched, error", &mtSites[mtSiteNoGlobals], mtFailError, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mtResetGlobals()
			before := mtGetGlobals()
			entry, head := mtGlobalIndex["a"], mtGlobalHead
			wantCopy := mtGlobalState{1, []string{"a"}, map[string]*mtInner{"a": {1, "a"}}, &mtNode{val: 1}, nil}
			var err error
			if tt.fail == mtFailGoexit {
				mtInGoroutine(func() { err = mtRegister(tt.site, "bb", tt.fail) })
			} else if r := mtRecover(func() { err = mtRegister(tt.site, "bb", tt.fail) }); tt.fail == mtFailPanic && r != any(mtBoom) {
				t.Errorf("recovered %v, want %v", r, mtBoom)
			}
			if tt.fail == mtFailError && err != mtErr {
				t.Errorf("mtRegister returned %v, want %v", err, mtErr)
			}
			got := mtGetGlobals()
			if !tt.restored {
				if got.count != 2 || len(got.names) != 2 || got.head.next != head || got.lazy == nil || entry.x != 2 {
					t.Errorf("globals %+v, want the call's changes kept", got)
				}
				return
			}
			if !reflect.DeepEqual(got, wantCopy) {
				t.Errorf("globals %+v, want %+v", got, wantCopy)
			}
			if mtMapID(got.index) != mtMapID(before.index) || got.index["a"] != entry || got.head != head ||
				unsafe.SliceData(got.names) != unsafe.SliceData(before.names) {
				t.Errorf("globals hold other objects than at entry")
			}
		})
	}
}

// TestMaskGlobalsLeaveRootsAlone: adding the watched variables to the
// roots does not write into spare capacity of the caller's slice.
func TestMaskGlobalsLeaveRootsAlone(t *testing.T) {
	t.Cleanup(mtClearGlobals)
	mtResetGlobals()
	x := 1
	backing := []any{&x, "sentinel"}
	cp := Mask(&mtSites[mtSiteGlobals], backing[:1]...)
	if backing[1] != "sentinel" {
		t.Errorf("Mask wrote %v into the spare capacity of its roots", backing[1])
	}
	x, mtGlobalCount = 2, 5
	err := mtErr
	cp.Rollback(new(bool), &err)
	if x != 1 || mtGlobalCount != 1 {
		t.Errorf("x = %d, mtGlobalCount = %d; want both restored to 1", x, mtGlobalCount)
	}
}

// Nested masked calls.

type mtAccount struct {
	balance int
	history []string
}

// Deposit adds n; it fails, after the change, when the balance stays
// negative, and panics for 13.
func (a *mtAccount) Deposit(n int) (_atx_r0 error) {
	var _atx_done bool
	defer Mask(&mtSites[mtSiteDeposit], a, n).Rollback(&_atx_done, &_atx_r0)
	a.history = append(a.history, fmt.Sprint("deposit ", n))
	a.balance += n
	if n == 13 {
		panic(mtBoom)
	}
	if a.balance < 0 {
		_atx_r0 = mtErr
		_atx_done = true
		return
	}
	_atx_r0 = nil
	_atx_done = true
	return
}

// mtTransfer moves n from one account to another; when tolerant, it
// records a failed deposit and succeeds.
func mtTransfer(from, to *mtAccount, n int, tolerant bool) (_atx_r0 error) {
	var _atx_done bool
	defer Mask(&mtSites[mtSiteTransfer], from, to, n, tolerant).Rollback(&_atx_done, &_atx_r0)
	from.balance -= n
	from.history = append(from.history, fmt.Sprint("withdraw ", n))
	if err := to.Deposit(n); err != nil {
		if tolerant {
			from.history = append(from.history, "deposit failed")
			_atx_r0 = nil
			_atx_done = true
			return
		}
		_atx_r0 = err
		_atx_done = true
		return
	}
	_atx_r0 = nil
	_atx_done = true
	return
}

func TestMaskNested(t *testing.T) {
	tests := []struct {
		name      string
		toBalance int
		n         int
		tolerant  bool
		wantErr   error
		wantPanic any
		wantFrom  mtAccount
		wantTo    mtAccount
	}{
		{
			name: "both succeed", toBalance: 0, n: 50,
			wantFrom: mtAccount{50, []string{"open", "withdraw 50"}},
			wantTo:   mtAccount{50, []string{"open", "deposit 50"}},
		},
		{
			name: "the inner call fails and the outer one passes the error on", toBalance: -100, n: 50, wantErr: mtErr,
			wantFrom: mtAccount{100, []string{"open"}},
			wantTo:   mtAccount{-100, []string{"open"}},
		},
		{
			name: "the inner call fails and the outer one succeeds", toBalance: -100, n: 50, tolerant: true,
			wantFrom: mtAccount{50, []string{"open", "withdraw 50", "deposit failed"}},
			wantTo:   mtAccount{-100, []string{"open"}},
		},
		{
			name: "the inner call panics through the outer one", toBalance: 0, n: 13, wantPanic: mtBoom,
			wantFrom: mtAccount{100, []string{"open"}},
			wantTo:   mtAccount{0, []string{"open"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := &mtAccount{100, make([]string, 1, 4)}
			to := &mtAccount{tt.toBalance, make([]string, 1, 4)}
			from.history[0], to.history[0] = "open", "open"
			fromHist, toHist := from.history, to.history
			var err error
			r := mtRecover(func() { err = mtTransfer(from, to, tt.n, tt.tolerant) })
			if r != tt.wantPanic || err != tt.wantErr {
				t.Errorf("panic %v, error %v; want %v, %v", r, err, tt.wantPanic, tt.wantErr)
			}
			if !reflect.DeepEqual(*from, tt.wantFrom) || !reflect.DeepEqual(*to, tt.wantTo) {
				t.Errorf("accounts %+v %+v, want %+v %+v", *from, *to, tt.wantFrom, tt.wantTo)
			}
			if &from.history[0] != &fromHist[0] || &to.history[0] != &toHist[0] {
				t.Errorf("a history moved to another array")
			}
		})
	}
}

// mtPushNode puts a new node in front of l and returns it, with an error
// when fail is set.
func mtPushNode(l *mtList, val int, fail bool) (_atx_r0 *mtNode, _atx_r1 error) {
	var _atx_done bool
	defer Mask(&mtSites[mtSitePushNode], l, val).Rollback(&_atx_done, &_atx_r1)
	n := &mtNode{val: val, next: l.head}
	l.head = n
	l.n++
	if fail {
		_atx_r0, _atx_r1 = n, mtErr
		_atx_done = true
		return
	}
	_atx_r0, _atx_r1 = n, nil
	_atx_done = true
	return
}

// TestMaskResultsUntouched: the rollback restores the graph, never the
// results.
func TestMaskResultsUntouched(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprint("fail=", fail), func(t *testing.T) {
			l := mtNewList(2)
			head := l.head
			n, err := mtPushNode(l, 7, fail)
			if n == nil || n.val != 7 || n.next != head {
				t.Fatalf("result %+v, want the new node in front of %p", n, head)
			}
			if fail {
				if err != mtErr {
					t.Errorf("error %v, want %v", err, mtErr)
				}
				if l.head != head || l.n != 2 {
					t.Errorf("list head %p n %d, want %p 2", l.head, l.n, head)
				}
				return
			}
			if err != nil || l.head != n || l.n != 3 {
				t.Errorf("error %v, head %p n %d; want nil, %p, 3", err, l.head, l.n, n)
			}
		})
	}
}

// mtWithCleanup has a deferred call of its own that changes the state; the
// rollback runs after it.
func mtWithCleanup(b *mtBuf, fail bool) (_atx_r0 error) {
	var _atx_done bool
	defer Mask(&mtSites[mtSiteCleanup], b).Rollback(&_atx_done, &_atx_r0)
	defer func() { b.n = -1 }()
	b.s = append(b.s, 1)
	if fail {
		panic(mtBoom)
	}
	_atx_r0 = nil
	_atx_done = true
	return
}

func TestMaskRollbackAfterOwnDeferredCalls(t *testing.T) {
	b := &mtBuf{n: 5}
	if err := mtWithCleanup(b, false); err != nil || b.n != -1 || len(b.s) != 1 {
		t.Errorf("success: error %v, state %+v; want nil and {[1] -1}", err, *b)
	}
	b = &mtBuf{n: 5}
	if r := mtRecover(func() { mtWithCleanup(b, true) }); r != any(mtBoom) {
		t.Errorf("recovered %v, want %v", r, mtBoom)
	}
	if b.n != 5 || b.s != nil {
		t.Errorf("after a panic: state %+v, want {[] 5}", *b)
	}
}

func TestMaskNilCheckpoint(t *testing.T) {
	var cp *Checkpoint
	err := mtErr
	cp.Rollback(new(bool), &err) // must not panic
	if err != mtErr {
		t.Errorf("error %v changed", err)
	}
}

// mtFlat is a flat receiver of 64 bytes.
type mtFlat struct{ a, b, c, d, e, f, g, h int64 }

// Bump is a masked method that succeeds.
func (f *mtFlat) Bump() (_atx_r0 error) {
	var _atx_done bool
	defer Mask(&mtSites[mtSiteFlat], f).Rollback(&_atx_done, &_atx_r0)
	f.a++
	_atx_r0 = nil
	_atx_done = true
	return
}

// BenchmarkMaskReflect is the cost of masking one successful call whose
// receiver is a 64-byte flat struct: the reflective checkpoint at entry
// and the rollback check at exit.
func BenchmarkMaskReflect(b *testing.B) {
	if size := unsafe.Sizeof(mtFlat{}); size != 64 {
		b.Fatalf("mtFlat is %d bytes, want 64", size)
	}
	f := &mtFlat{}
	b.ReportAllocs()
	for b.Loop() {
		if err := f.Bump(); err != nil {
			b.Fatal(err)
		}
	}
	if f.a == 0 {
		b.Fatal("the method never ran")
	}
}

// TestMaskLiteralFrame checks that a function literal's checkpoint looks
// for its frame by the literal's name and the names of its copies (see
// literalFrame), not only by the site's Func: a literal that recovers a
// panic and returns normally keeps its changes, where a walk that found
// no frame of its function would take the return for a panic going
// through.
func TestMaskLiteralFrame(t *testing.T) {
	for _, literal := range []bool{true, false} {
		v := []int{1}
		var f func()
		f = func() {
			done := false
			// The literal's frame taken for a copy of the literal
			// pkg.func1 in TestMaskLiteralFrame, which inlined the
			// function around it.
			pkg, rest, _ := splitFuncName(funcName(f))
			name := pkg + "." + rest[strings.Index(rest, ".")+1:]
			s := &Site{ID: name + "#entry", Func: name, Kind: EntrySite, Literal: literal}
			c := Mask(s, &v)
			defer c.Rollback(&done, nil)
			defer func() { recover() }()
			v[0] = 2
			panic("recovered")
		}
		f()
		if literal {
			if v[0] != 2 {
				t.Error("a literal that recovered and returned normally was rolled back")
			}
		} else if v[0] != 1 {
			// The site's Func names no frame: the walk takes the return
			// for a panic, which is why literal sites match copies.
			t.Error("without Literal, the return was not taken for a panic")
		}
	}
}

// mtReport is an error that a failing path decorates.
type mtReport struct{ key string }

func (e *mtReport) Error() string { return "report " + e.key }

// TestRestoreLeavesReports: a rollback writes back the state that the
// failed call reached, but not the errors it wrote into: what a
// decorator sets on an error is the report of the failure.
func TestRestoreLeavesReports(t *testing.T) {
	type holder struct {
		n    int
		last error
	}
	rep := &mtReport{}
	h := &holder{n: 1, last: rep}
	mtMaskedErr(mtFailError, func() {
		h.n = 2
		rep.key = "b"
	}, h)
	if h.n != 1 {
		t.Errorf("n = %d after the rollback, want 1", h.n)
	}
	if rep.key != "b" {
		t.Errorf("the error's key = %q after the rollback, want the decoration %q", rep.key, "b")
	}
}
