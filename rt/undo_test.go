package rt

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// Tests of the undo log: the masked functions below are written the way
// the rewriter writes them when it gives a function an undo log (see
// instrument's undo.go): each store is preceded by its record.

type undoNode struct {
	n    int
	name string
	next *undoNode
}

type undoState struct {
	n     int
	pair  [2]int
	name  string
	head  *undoNode
	items []int
	rows  map[string]int
	cells map[[2]int8]struct {
		a int32
		b bool
	}
}

func newUndoState() *undoState {
	return &undoState{n: 1, pair: [2]int{2, 3}, name: "a", head: &undoNode{n: 4, name: "h"},
		items: make([]int, 3, 8), rows: map[string]int{"x": 1, "y": 2},
		cells: map[[2]int8]struct {
			a int32
			b bool
		}{{1, 2}: {3, true}, {4, 5}: {6, false}}}
}

var undoSite = Site{ID: "example.com/m.undo#entry", Func: "github.com/atomicx/atomicx/rt.runUndo"}

// runUndo runs body as a masked call that returns err.
func runUndo(s *undoState, body func(u *Undo, s *undoState), err error) (rerr error) {
	var done bool
	u := NewUndo(&undoSite)
	defer u.End(&done, &rerr)
	body(&u, s)
	rerr, done = err, true
	return
}

func TestUndo(t *testing.T) {
	tests := []struct {
		name string
		body func(u *Undo, s *undoState)
	}{
		{"fields", func(u *Undo, s *undoState) {
			SaveBits(u, &s.n)
			s.n = 10
			SaveBits(u, &s.pair)
			s.pair = [2]int{7, 8}
			Save(u, &s.name)
			s.name = "b"
		}},
		{"the same field twice", func(u *Undo, s *undoState) {
			SaveBits(u, &s.n)
			s.n++
			SaveBits(u, &s.n)
			s.n *= 5
			SaveBits(u, &s.pair[1])
			s.pair[1]--
			SaveBits(u, &s.pair)
			s.pair = [2]int{}
		}},
		{"through aliases", func(u *Undo, s *undoState) {
			p := s.head
			SaveBits(u, &p.n)
			p.n = 40
			q := &s.pair[0]
			SaveBits(u, q)
			*q = 20
			items := s.items
			SaveBits(u, &items[2])
			items[2] = 9
			Save(u, &s.head)
			s.head = &undoNode{n: 5, next: s.head}
			Save(u, &s.head.name)
			s.head.name = "new"
		}},
		{"map entries", func(u *Undo, s *undoState) {
			SaveEntry(u, s.rows, "x")
			s.rows["x"] = 100
			SaveEntry(u, s.rows, "z")
			s.rows["z"] = 3
			SaveEntry(u, s.rows, "y")
			delete(s.rows, "y")
			SaveEntry(u, s.rows, "z")
			delete(s.rows, "z")
			SaveEntry(u, s.rows, "y")
			s.rows["y"] = 7
		}},
		{"map entries saved as bytes, between other records", func(u *Undo, s *undoState) {
			SaveEntryBits(u, s.cells, [2]int8{1, 2})
			s.cells[[2]int8{1, 2}] = struct {
				a int32
				b bool
			}{30, false}
			SaveBits(u, &s.n)
			s.n = 5
			SaveEntryBits(u, s.cells, [2]int8{7, 7})
			s.cells[[2]int8{7, 7}] = struct {
				a int32
				b bool
			}{1, true}
			SaveEntry(u, s.rows, "x")
			delete(s.rows, "x")
			SaveEntryBits(u, s.cells, [2]int8{4, 5})
			delete(s.cells, [2]int8{4, 5})
			SaveEntryBits(u, s.cells, [2]int8{1, 2})
			delete(s.cells, [2]int8{1, 2})
			SaveBits(u, &s.pair[0])
			s.pair[0] = 9
		}},
		{"calls out of sight", func(u *Undo, s *undoState) {
			SaveReach(u, s.items)
			outOfSight(s.items)
			SaveBits(u, &s.n)
			s.n = 0
			SaveReach(u, s.head, &s.pair)
			s.head.n, s.head.name = -1, "changed"
			s.pair[1] = 30
		}},
		{"a slice grown, in place and moved", func(u *Undo, s *undoState) {
			Save(u, &s.items)
			SaveAppend(u, s.items, 2)
			s.items = append(s.items, 5, 6)
			SaveBits(u, &s.items[4])
			s.items[4] = 60
			Save(u, &s.items)
			SaveAppend(u, s.items, 10)
			s.items = append(s.items, make([]int, 10)...)
			SaveBits(u, &s.items[0])
			s.items[0] = -1
		}},
		{"an element removed in place", func(u *Undo, s *undoState) {
			s2 := s.items[:cap(s.items)]
			SaveBits(u, &s2[1])
			s2[1] = 11
			Save(u, &s.items)
			SaveAppend(u, s.items[:1], len(s.items[2:]))
			s.items = append(s.items[:1], s.items[2:]...)
			SaveCopy(u, s.items, 2)
			copy(s.items, []int{8, 9})
			SaveElems(u, s.items[1:])
			clear(s.items[1:])
		}},
		{"operands computed by calls, recorded where they are computed", func(u *Undo, s *undoState) {
			key := func(k string) string { return k }
			s.rows[SaveEntryKey(u, s.rows, key("x"))] = 10
			s.rows[SaveEntryKey(u, s.rows, key("w"))] = 11
			s.cells[SaveEntryBitsKey(u, s.cells, [2]int8{4, 5})] = struct {
				a int32
				b bool
			}{9, true}
			Save(u, &s.items)
			s.items = append(s.items, SaveAppendSpread(u, s.items, []int{4, 5})...)
			outOfSight(SaveReachWith(u, s.items[:2], s.head))
			s.head.n = 7
			head := SaveReachAfter(u, s.head.next, &s.pair)
			s.pair[0] = len(fmt.Sprint(head))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, got := newUndoState(), newUndoState()
			head, items := got.head, got.items[:cap(got.items)]
			if err := runUndo(got, tt.body, errors.New("failed")); err == nil {
				t.Fatal("no error")
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after a failure: %+v, want %+v", got, want)
			}
			if got.head != head || &got.items[:cap(got.items)][0] != &items[0] {
				t.Error("the objects at entry were replaced")
			}
			if !reflect.DeepEqual(items, want.items[:cap(want.items)]) {
				t.Errorf("the array behind items holds %v, want %v", items, want.items[:cap(want.items)])
			}

			// A success, or io.EOF, keeps the call's writes.
			for _, err := range []error{nil, io.EOF} {
				plain, logged := newUndoState(), newUndoState()
				tt.body(&Undo{site: &undoSite}, plain)
				if runUndo(logged, tt.body, err) != err {
					t.Fatal("the error changed")
				}
				if !reflect.DeepEqual(logged, plain) {
					t.Errorf("after a success (%v): %+v, want %+v", err, logged, plain)
				}
			}
		})
	}
}

// outOfSight writes what its argument reaches, as a function that the
// build does not rewrite may.
func outOfSight(items []int) {
	for i := range items {
		items[i] = 100 + i
	}
}

// TestUndoPanic: a panic through the masked call rolls it back, and goes
// on with its own value.
func TestUndoPanic(t *testing.T) {
	s := newUndoState()
	expectBoom(t, func() {
		runUndo(s, func(u *Undo, s *undoState) {
			SaveBits(u, &s.n)
			s.n = 99
			SaveEntry(u, s.rows, "x")
			delete(s.rows, "x")
			panic("boom")
		}, nil)
	})
	if want := newUndoState(); !reflect.DeepEqual(s, want) {
		t.Errorf("after a panic: %+v, want %+v", s, want)
	}
}

// expectBoom runs f, which must panic with "boom".
func expectBoom(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want boom", r)
		}
	}()
	f()
}

// TestUndoReuse: a log's buffers are emptied for the next call, which
// does not see the writes of the one before.
func TestUndoReuse(t *testing.T) {
	s := newUndoState()
	for i := range 3 {
		runUndo(s, func(u *Undo, s *undoState) {
			SaveBits(u, &s.n)
			s.n++
		}, nil)
		if s.n != 2+i {
			t.Fatalf("n = %d after %d successes", s.n, i+1)
		}
	}
	runUndo(s, func(u *Undo, s *undoState) {
		SaveBits(u, &s.n)
		s.n = 0
	}, errors.New("failed"))
	if s.n != 4 {
		t.Errorf("n = %d after a failure, want 4", s.n)
	}
}

// BenchmarkUndoSuccess is the cost of a successful call that writes one
// field of an object holding a 100,000-entry map: it does not grow with
// the map.
func BenchmarkUndoSuccess(b *testing.B) {
	s := newUndoState()
	for i := range 100_000 {
		s.rows[string(rune(i))] = i
	}
	for b.Loop() {
		runUndo(s, func(u *Undo, s *undoState) {
			SaveBits(u, &s.n)
			s.n++
		}, nil)
	}
}

// TestUndoEntryBitsAllocs: recording a map entry of pointer-free types
// allocates nothing once the log's buffers are pooled, where a closure
// would allocate per store.
func TestUndoEntryBitsAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	m := map[int]int{1: 1}
	body := func() {
		var done bool
		u := NewUndo(&undoSite)
		SaveEntryBits(&u, m, 1)
		m[1]++
		done = true
		u.End(&done, new(error))
	}
	body()
	if n := testing.AllocsPerRun(100, body); n > 0 {
		t.Errorf("a successful call that records one entry allocates %v times, want 0", n)
	}
}

// TestSaveReachUnmasked: a call whose SaveReach could not take its
// snapshot runs unmasked, all of it, as one whose Mask failed: not half
// rolled back.
func TestSaveReachUnmasked(t *testing.T) {
	s := newUndoState()
	runUndo(s, func(u *Undo, s *undoState) {
		SaveBits(u, &s.n)
		s.n = 50
		u.buffers().unmasked = true // as SaveReach sets it
		SaveReach(u, s.items)
		s.items[0] = 9
	}, errors.New("failed"))
	if s.n != 50 || s.items[0] != 9 {
		t.Errorf("n = %d, items[0] = %d: the call was rolled back", s.n, s.items[0])
	}
	// The log's buffers go back to the pool reset: the next call is
	// masked.
	runUndo(s, func(u *Undo, s *undoState) {
		SaveBits(u, &s.n)
		s.n = 7
	}, errors.New("failed"))
	if s.n != 50 {
		t.Errorf("n = %d after a failure of the next call, want 50", s.n)
	}
}

var savepointSite = Site{ID: "example.com/m.callee#entry", Func: "example.com/m.callee", Frame: "github.com/atomicx/atomicx/rt.runSavepoint"}

// runSavepoint runs body as a masked callee called, through its clone,
// from a masked call whose log is u: its stores go into u, after a
// savepoint.
func runSavepoint(u *Undo, s *undoState, body func(u *Undo, s *undoState), err error) (rerr error) {
	var done bool
	sp := u.Mark()
	defer sp.End(&savepointSite, &done, &rerr)
	body(u, s)
	rerr, done = err, true
	return
}

// TestSavepoint: a failed callee writes back its own stores, not its
// caller's; a successful one leaves them to its caller, whose failure
// writes back both.
func TestSavepoint(t *testing.T) {
	failed := errors.New("failed")
	tests := []struct {
		name            string
		calleeErr       error
		callerErr       error
		wantN, wantName string
		wantRows        int
	}{
		{"callee fails, caller succeeds", failed, nil, "caller", "a", 2},
		{"callee succeeds, caller fails", nil, failed, "", "a", 1},
		{"both fail", failed, failed, "", "a", 1},
		{"callee returns io.EOF, caller succeeds", io.EOF, nil, "caller", "callee", 3},
		{"both succeed", nil, nil, "caller", "callee", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newUndoState()
			var calleeErr error
			runUndo(s, func(u *Undo, s *undoState) {
				SaveBits(u, &s.pair[0])
				s.pair[0] = 7
				calleeErr = runSavepoint(u, s, func(u *Undo, s *undoState) {
					Save(u, &s.name)
					s.name = "callee"
					SaveEntryBits(u, s.cells, [2]int8{1, 2})
					delete(s.cells, [2]int8{1, 2})
					SaveEntry(u, s.rows, "z")
					s.rows["z"] = 3
				}, tt.calleeErr)
				Save(u, &s.head.name)
				s.head.name = "caller"
			}, tt.callerErr)
			if calleeErr != tt.calleeErr {
				t.Fatalf("callee returned %v", calleeErr)
			}
			want := newUndoState()
			if tt.wantN != "" {
				want.pair[0] = 7
				want.head.name = tt.wantN
			}
			want.name = tt.wantName
			if tt.wantName == "callee" {
				delete(want.cells, [2]int8{1, 2})
				want.rows["z"] = 3
			}
			if !reflect.DeepEqual(s, want) {
				t.Errorf("got %+v\nwant %+v", s, want)
			}
		})
	}
}

// TestSavepointPanic: a panic through the callee's clone writes back its
// stores there, and the caller's as it goes on through the caller.
func TestSavepointPanic(t *testing.T) {
	s := newUndoState()
	var inCallee *undoState
	expectBoom(t, func() {
		runUndo(s, func(u *Undo, s *undoState) {
			SaveBits(u, &s.n)
			s.n = 5
			func() {
				defer func() {
					// The callee's frame is gone: its stores are written back.
					c := *s
					inCallee = &c
				}()
				runSavepoint(u, s, func(u *Undo, s *undoState) {
					SaveBits(u, &s.pair[1])
					s.pair[1] = 9
					panic("boom")
				}, nil)
			}()
		}, nil)
	})
	if inCallee == nil || inCallee.pair[1] != 3 || inCallee.n != 5 {
		t.Errorf("after the callee's frame: %+v, want pair[1] = 3 and n = 5", inCallee)
	}
	if want := newUndoState(); !reflect.DeepEqual(s, want) {
		t.Errorf("after the panic: %+v, want %+v", s, want)
	}
}

// TestSaveReachValues: a call handed only values that hold no reference
// cannot write through them, and SaveReach takes no snapshot for it; one
// handed a pointer, or a value that holds a reference, can.
func TestSaveReachValues(t *testing.T) {
	type flat struct {
		a int
		s string
	}
	type holder struct{ p *int }
	var stringer fmt.Stringer = time.Second
	n := 1
	tests := []struct {
		name  string
		roots []any
		want  bool
	}{
		{"none", nil, false},
		{"nil interface", []any{nil}, false},
		{"integers", []any{1, int8(2)}, false},
		{"a string and a flat struct", []any{"x", flat{1, "y"}}, false},
		{"an integer behind an interface", []any{stringer}, false},
		{"a pointer", []any{1, &n}, true},
		{"an unsafe pointer", []any{unsafe.Pointer(&n)}, true},
		{"a slice", []any{[]int{1}}, true},
		{"a map", []any{map[int]int{}}, true},
		{"a struct holding a pointer", []any{holder{&n}}, true},
		{"an array of interfaces", []any{[1]any{&n}}, true},
	}
	for _, tt := range tests {
		if got := reachWritable(tt.roots); got != tt.want {
			t.Errorf("%s: reachWritable = %t, want %t", tt.name, got, tt.want)
		}
	}
	u := NewUndo(&Site{})
	if n := testing.AllocsPerRun(100, func() { SaveReach(&u, 1, stringer) }); n != 0 {
		t.Errorf("SaveReach of values allocates %v times, want 0", n)
	}
	if u.log != nil {
		t.Error("SaveReach of values started a log")
	}
}

// TestUndoReflect: what a call writes through reflect is written back on
// failure: a variable a Value addresses (SaveReach of the Value), what a
// map, slice or pointer handed to reflect.ValueOf leads to, variables
// set (SaveSet) and map entries set one by one (SaveMapIndex), reached
// through an unexported field too.
func TestUndoReflect(t *testing.T) {
	type target struct {
		N     int
		Names []string
		rows  map[string]int
	}
	fresh := func() *target {
		return &target{N: 1, Names: []string{"a", "b"}, rows: map[string]int{"x": 1}}
	}
	tests := []struct {
		name string
		body func(u *Undo, x *target)
	}{
		{"a field addressed", func(u *Undo, x *target) {
			v := reflect.ValueOf(x).Elem().Field(0)
			SaveReach(u, v)
			v.SetInt(5)
		}},
		{"a slice by value", func(u *Undo, x *target) {
			v := reflect.ValueOf(x.Names)
			SaveReach(u, v)
			v.Index(0).SetString("z")
		}},
		{"a pointer by value", func(u *Undo, x *target) {
			v := reflect.ValueOf(x)
			SaveReach(u, v)
			x.N, x.Names = 9, nil
		}},
		{"variables set", func(u *Undo, x *target) {
			v := reflect.ValueOf(x).Elem()
			for i := range 2 {
				f := v.Field(i)
				SaveSet(u, f)
				f.Set(reflect.Zero(f.Type()))
			}
			rows := v.Field(2)
			SaveSet(u, rows)
			x.rows = nil
		}},
		{"map entries, through an unexported field", func(u *Undo, x *target) {
			m := reflect.ValueOf(x).Elem().Field(2)
			rows := x.rows // the writes below go through the map itself
			for _, k := range []string{"x", "y"} {
				SaveMapIndex(u, m, reflect.ValueOf(k))
				rows[k] = 7
			}
			SaveMapIndex(u, m, reflect.ValueOf("x"))
			delete(rows, "x")
		}},
	}
	for _, tt := range tests {
		x := fresh()
		var done bool
		func() (err error) {
			u := NewUndo(&undoSite)
			defer u.End(&done, &err)
			tt.body(&u, x)
			err, done = errors.New("failed"), true
			return
		}()
		if want := fresh(); !reflect.DeepEqual(x, want) {
			t.Errorf("%s: after the failure %+v, want %+v", tt.name, x, want)
		}
	}
	// reflect.Append within the capacity overwrites the array behind the
	// slice, which the failure writes back.
	backing := []int{1, 2, 3, 4}
	func() (err error) {
		var done bool
		u := NewUndo(&undoSite)
		defer u.End(&done, &err)
		v := reflect.ValueOf(backing[:2])
		reflect.Append(SaveReflectAppend(&u, v, 2), reflect.ValueOf(30), reflect.ValueOf(40))
		reflect.Append(SaveReflectAppend(&u, v, 3), reflect.ValueOf(30), reflect.ValueOf(40), reflect.ValueOf(50))
		if backing[2] != 30 {
			t.Errorf("reflect.Append wrote %v", backing)
		}
		err, done = errors.New("failed"), true
		return
	}()
	if !reflect.DeepEqual(backing, []int{1, 2, 3, 4}) {
		t.Errorf("after the failure the array behind the slice holds %v, want [1 2 3 4]", backing)
	}

	// A NaN key names no entry: the call runs unmasked.
	m := map[float64]int{}
	var done bool
	func() (err error) {
		u := NewUndo(&undoSite)
		defer u.End(&done, &err)
		nan := math.NaN()
		SaveMapIndex(&u, reflect.ValueOf(m), reflect.ValueOf(nan))
		m[nan] = 1
		err, done = errors.New("failed"), true
		return
	}()
	if len(m) != 1 {
		t.Errorf("a NaN key: %d entries after the failure, want the call unmasked", len(m))
	}
	// So does a NaN key of a map assigned directly.
	fm := map[any]int{}
	runUndo(newUndoState(), func(u *Undo, s *undoState) {
		nan := any(math.NaN())
		SaveEntry(u, fm, nan)
		fm[nan] = 1
		SaveBits(u, &s.n)
		s.n = 2
	}, errors.New("failed"))
	if len(fm) != 1 {
		t.Errorf("a NaN key of an interface type: %d entries after the failure, want the call unmasked", len(fm))
	}
}

// TestCompareReflectValue: detection sees a change made behind a
// reflect.Value that refers to the same memory as at entry, and a Value
// that refers elsewhere as a change of the Value.
func TestCompareReflectValue(t *testing.T) {
	type holder struct{ v reflect.Value }
	tests := []struct {
		name   string
		v      func() reflect.Value
		change func(h *holder)
		want   string // the path of the difference, "" for none
	}{
		{"an addressed variable", func() reflect.Value { n := 1; return reflect.ValueOf(&n).Elem() },
			func(h *holder) { h.v.SetInt(2) }, "*h.v"},
		{"a map by value", func() reflect.Value { return reflect.ValueOf(map[string]int{"a": 1}) },
			func(h *holder) { h.v.SetMapIndex(reflect.ValueOf("b"), reflect.ValueOf(2)) }, "h.v[\"b\"]"},
		{"a slice by value", func() reflect.Value { return reflect.ValueOf([]int{1, 2}) },
			func(h *holder) { h.v.Index(1).SetInt(5) }, "h.v[1]"},
		{"nothing changed", func() reflect.Value { return reflect.ValueOf([]int{1, 2}) },
			func(h *holder) {}, ""},
		{"another Value", func() reflect.Value { return reflect.ValueOf([]int{1, 2}) },
			func(h *holder) { h.v = reflect.ValueOf([]int{1, 2}) }, "h.v.ptr"},
	}
	for _, tt := range tests {
		h := &holder{v: tt.v()}
		s, ok := snapshotGraph([]any{h}, 0, nil)
		if !ok {
			t.Fatalf("%s: snapshot over budget", tt.name)
		}
		tt.change(h)
		d, equal := s.compareGraph([]any{h}, []string{"h"})
		if got := map[bool]string{true: "", false: d.Path}[equal]; got != tt.want {
			t.Errorf("%s: difference at %q (%s -> %s), want at %q", tt.name, got, d.Before, d.After, tt.want)
		}
	}
}

// TestSaveArg: an argument of a function value is recorded when its
// type may hold a reference, in generic code by the instantiation's type,
// and returned as it was; one that holds none starts no log and costs no
// allocation.
func TestSaveArg(t *testing.T) {
	u := NewUndo(&Site{})
	if got := SaveArg(&u, 7); got != 7 {
		t.Errorf("SaveArg returned %d, want 7", got)
	}
	var stringer fmt.Stringer = time.Second
	if n := testing.AllocsPerRun(100, func() { SaveArg(&u, 1); SaveArg(&u, stringer) }); n != 0 {
		t.Errorf("SaveArg of values allocates %v times, want 0", n)
	}
	if u.log != nil {
		t.Fatal("SaveArg of values started a log")
	}

	items := []int{1, 2, 3}
	node := &struct{ n int }{1}
	err := func() (err error) {
		var done bool
		u := NewUndo(&Site{})
		defer u.End(&done, &err)
		if got := SaveArg(&u, items); &got[0] != &items[0] {
			t.Error("SaveArg did not return the slice it was handed")
		}
		items[0] = 10 // what the function value writes
		SaveArg(&u, node).n = 5
		return errors.New("failed")
	}()
	if err == nil || items[0] != 1 || node.n != 1 {
		t.Errorf("after a failure: err %v, items %v, node.n %d; want the failure, [1 2 3] and 1", err, items, node.n)
	}
}

// TestPlanOfRecent: the plan cache in front of plans gives each type its
// own plan, also for types that share a slot.
func TestPlanOfRecent(t *testing.T) {
	types := []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[*int](), reflect.TypeFor[[]string](), reflect.TypeFor[map[int]bool](), reflect.TypeFor[struct{ a, b int }]()}
	for range 3 {
		for _, typ := range types {
			if pl := planOf(typ); pl.typ != typ {
				t.Fatalf("planOf(%v) is the plan of %v", typ, pl.typ)
			}
		}
	}
	// Every type in one slot: the cache holds one at a time.
	slot := recentSlot(typeWord(types[0]))
	for _, typ := range types {
		slot.Store(&recentPlan{typeWord(typ), planOf(typ)})
		for _, other := range types {
			if pl := planOf(other); pl.typ != other {
				t.Fatalf("with %v in the slot of %v, planOf(%v) is the plan of %v", typ, types[0], other, pl.typ)
			}
		}
	}
}
