package comp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recorder collects the names of the actions that ran, in order.
type recorder struct {
	mu  sync.Mutex
	ran []string
}

// action returns an action that records name and returns err.
func (r *recorder) action(name string, err error) func() error {
	return func() error {
		r.mu.Lock()
		r.ran = append(r.ran, name)
		r.mu.Unlock()
		return err
	}
}

func TestStack(t *testing.T) {
	errA, errC := errors.New("a failed"), errors.New("c failed")
	tests := []struct {
		name    string
		build   func(s *Stack, r *recorder) // pushes, commits, runs entries early
		wantRan []string                    // by Stack.Run, after build
		wantErr string                      // Stack.Run's error, "" for nil
	}{
		{
			name: "empty",
		},
		{
			name: "releases run last pushed first",
			build: func(s *Stack, r *recorder) {
				s.Push(r.action("a", nil))
				s.Push(r.action("b", nil))
				s.Push(r.action("c", nil))
			},
			wantRan: []string{"c", "b", "a"},
		},
		{
			name: "undo actions run without Commit",
			build: func(s *Stack, r *recorder) {
				s.PushUndo(r.action("undo a", nil))
				s.Push(r.action("release b", nil))
			},
			wantRan: []string{"release b", "undo a"},
		},
		{
			name: "Commit drops the undo actions pushed so far and keeps the releases",
			build: func(s *Stack, r *recorder) {
				s.PushUndo(r.action("undo a", nil))
				s.Push(r.action("release b", nil))
				s.PushUndo(r.action("undo c", nil))
				s.Commit()
				s.PushUndo(r.action("undo d", nil))
			},
			wantRan: []string{"undo d", "release b"},
		},
		{
			name: "errors joined in the order the actions ran",
			build: func(s *Stack, r *recorder) {
				s.Push(r.action("a", errA))
				s.Push(r.action("b", nil))
				s.Push(r.action("c", errC))
			},
			wantRan: []string{"c", "b", "a"},
			wantErr: "c failed\na failed",
		},
		{
			name: "a panicking action does not stop the others",
			build: func(s *Stack, r *recorder) {
				s.Push(r.action("a", errA))
				s.Push(panicker)
				s.Push(r.action("c", nil))
			},
			wantRan: []string{"c", "a"},
			wantErr: "comp: action github.com/atomicx/atomicx/comp.panicker panicked: boom\na failed",
		},
		{
			name: "an entry run early runs once",
			build: func(s *Stack, r *recorder) {
				s.Push(r.action("a", nil))
				b := s.Push(r.action("b", errA))
				s.Push(r.action("c", nil))
				if err := b.Run(); err != errA {
					panic(fmt.Sprintf("Entry.Run: %v, want %v", err, errA))
				}
				if err := b.Run(); err != nil {
					panic(fmt.Sprintf("second Entry.Run: %v, want nil", err))
				}
				b.Drop()
			},
			wantRan: []string{"b", "c", "a"}, // b by Entry.Run
		},
		{
			name: "a dropped entry never runs",
			build: func(s *Stack, r *recorder) {
				s.Push(r.action("a", nil)).Drop()
				s.Push(r.action("b", nil))
				c := s.Push(r.action("c", nil))
				c.Drop()
				c.Drop()
				if err := c.Run(); err != nil {
					panic(err)
				}
			},
			wantRan: []string{"b"},
		},
		{
			name: "an entry dropped by Commit does not run early",
			build: func(s *Stack, r *recorder) {
				a := s.PushUndo(r.action("a", nil))
				s.Push(r.action("b", nil))
				s.Commit()
				if err := a.Run(); err != nil {
					panic(err)
				}
			},
			wantRan: []string{"b"},
		},
		{
			name: "entries pushed after one was removed keep their order",
			build: func(s *Stack, r *recorder) {
				s.Push(r.action("a", nil))
				s.Push(r.action("b", nil)).Drop()
				for _, name := range []string{"c", "d", "e", "f", "g"} { // past the inline buffer
					s.PushUndo(r.action(name, nil))
				}
				s.Push(r.action("h", nil))
			},
			wantRan: []string{"h", "g", "f", "e", "d", "c", "a"},
		},
		{
			name: "the zero Entry does nothing",
			build: func(s *Stack, r *recorder) {
				var e Entry
				e.Drop()
				if err := e.Run(); err != nil {
					panic(err)
				}
				s.Push(r.action("a", nil))
			},
			wantRan: []string{"a"},
		},
	}
	for _, tt := range tests {
		for _, zero := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/zero=%v", tt.name, zero), func(t *testing.T) {
				s := New()
				if zero {
					s = new(Stack)
				}
				r := new(recorder)
				if tt.build != nil {
					tt.build(s, r)
				}
				err := s.Run()
				if !slices.Equal(r.ran, tt.wantRan) {
					t.Errorf("ran %q, want %q", r.ran, tt.wantRan)
				}
				if got := errString(err); got != tt.wantErr {
					t.Errorf("Run: %q, want %q", got, tt.wantErr)
				}
				r.ran = nil
				if err := s.Run(); err != nil || len(r.ran) > 0 {
					t.Errorf("second Run: %v, ran %q; want nil and nothing", err, r.ran)
				}
			})
		}
	}
}

func panicker() error { panic("boom") }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestPanicError(t *testing.T) {
	s := New()
	s.Push(func() error { panic(fs.ErrClosed) })
	err := s.Run()
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Run: %v, want a *PanicError", err)
	}
	if want := "github.com/atomicx/atomicx/comp.TestPanicError.func1"; pe.Action != want {
		t.Errorf("Action %q, want %q", pe.Action, want)
	}
	if pe.Value != fs.ErrClosed {
		t.Errorf("Value %v, want %v", pe.Value, fs.ErrClosed)
	}
	if !errors.Is(err, fs.ErrClosed) {
		t.Errorf("errors.Is(%v, fs.ErrClosed) = false, want true: Unwrap gives the panic's error", err)
	}
	if !strings.Contains(string(pe.Stack), "TestPanicError.func1") {
		t.Errorf("Stack does not show the panicking action:\n%s", pe.Stack)
	}
}

func TestPushAfterRunPanics(t *testing.T) {
	for _, push := range []func(*Stack, func() error) Entry{(*Stack).Push, (*Stack).PushUndo} {
		s := New()
		s.Run()
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "already run") {
					t.Errorf("push after Run: recovered %v, want a panic that says the stack has already run", v)
				}
			}()
			push(s, func() error { return nil })
		}()
	}
}

func TestPushNilPanics(t *testing.T) {
	s := New()
	defer s.Run()
	defer func() {
		if v := recover(); v == nil {
			t.Error("Push(nil) did not panic")
		}
	}()
	s.Push(nil)
}

// TestScopePanic checks that a panic of the function that defers Run is
// neither stopped nor changed, and that the actions run on its way.
func TestScopePanic(t *testing.T) {
	r := new(recorder)
	scope := func() {
		s := New()
		defer s.Run()
		s.Push(r.action("a", nil))
		s.PushUndo(r.action("b", nil))
		s.Push(panicker) // contained: the scope's own panic goes on
		panic("scope")
	}
	func() {
		defer func() {
			if v := recover(); v != "scope" {
				t.Errorf("recovered %v, want the scope's panic", v)
			}
		}()
		scope()
	}()
	if want := []string{"b", "a"}; !slices.Equal(r.ran, want) {
		t.Errorf("ran %q, want %q", r.ran, want)
	}
}

// TestGoexit checks that an action that calls runtime.Goexit (as
// testing.T.FailNow does) does not keep the actions under it from running.
func TestGoexit(t *testing.T) {
	r := new(recorder)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := New()
		s.Push(r.action("a", nil))
		s.Push(func() error { runtime.Goexit(); return nil })
		s.Push(r.action("c", nil))
		s.Run()
		r.action("after Run", nil)() // never reached
	}()
	<-done
	if want := []string{"c", "a"}; !slices.Equal(r.ran, want) {
		t.Errorf("ran %q, want %q", r.ran, want)
	}
}

func TestRunJoin(t *testing.T) {
	own, released := errors.New("own"), errors.New("release failed")
	tests := []struct {
		own, action error
		want        string
	}{
		{nil, nil, ""},
		{own, nil, "own"},
		{nil, released, "release failed"},
		{own, released, "own\nrelease failed"},
	}
	for _, tt := range tests {
		f := func() (err error) {
			s := New()
			defer s.RunJoin(&err)
			s.Push(func() error { return tt.action })
			return tt.own
		}
		err := f()
		if got := errString(err); got != tt.want {
			t.Errorf("own %v, action %v: %q, want %q", tt.own, tt.action, got, tt.want)
		}
		if tt.own != nil && !errors.Is(err, own) {
			t.Errorf("own %v, action %v: %v does not wrap the function's own error", tt.own, tt.action, err)
		}
		if tt.own != nil && tt.action == nil && err != own {
			t.Errorf("own %v, action %v: %#v, want the function's own error as it is", tt.own, tt.action, err)
		}
	}
}

func TestAcquire(t *testing.T) {
	acquireErr := errors.New("cannot acquire")
	tests := []struct {
		err     error
		wantRan []string
	}{
		{nil, []string{"release x"}},
		{acquireErr, nil},
	}
	for _, tt := range tests {
		s := New()
		var ran []string
		release := func(v string) error { ran = append(ran, "release "+v); return nil }
		v, err := Acquire(s, release)("x", tt.err)
		if v != "x" || err != tt.err {
			t.Errorf("Acquire(...)(%q, %v) = %q, %v; want them passed on", "x", tt.err, v, err)
		}
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ran, tt.wantRan) {
			t.Errorf("acquire error %v: ran %q, want %q", tt.err, ran, tt.wantRan)
		}
	}
}

func TestContext(t *testing.T) {
	if s := FromContext(context.Background()); s != nil {
		t.Errorf("FromContext(Background) = %p, want nil", s)
	}
	s := New()
	defer s.Run()
	ctx, cancel := context.WithCancel(WithStack(context.Background(), s))
	defer cancel()
	if got := FromContext(ctx); got != s {
		t.Errorf("FromContext = %p, want the stack WithStack put in, %p", got, s)
	}
}

// TestConcurrent pushes, runs early and drops entries from many
// goroutines at once (run it with -race), then checks that every action
// that was neither run early nor dropped ran once.
func TestConcurrent(t *testing.T) {
	const goroutines, perGoroutine = 8, 200
	s := New()
	var mu sync.Mutex
	count := map[int]int{}
	action := func(i int) func() error {
		return func() error {
			mu.Lock()
			count[i]++
			mu.Unlock()
			return nil
		}
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range perGoroutine {
				i := g*perGoroutine + k
				switch e := s.PushUndo(action(i)); i % 4 {
				case 1:
					e.Run()
				case 2:
					e.Drop()
				case 3:
					s.Push(action(-1 - i))
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	for g := range goroutines {
		for k := range perGoroutine {
			i := g*perGoroutine + k
			want := 1
			if i%4 == 2 {
				want = 0
			}
			if count[i] != want {
				t.Errorf("action %d ran %d times, want %d", i, count[i], want)
			}
			if i%4 == 3 && count[-1-i] != 1 {
				t.Errorf("release %d ran %d times, want 1", -1-i, count[-1-i])
			}
		}
	}
}

// TestRunConcurrentWithEntryRun runs a stack and its entries at the same
// time: each action still runs once.
func TestRunConcurrentWithEntryRun(t *testing.T) {
	for range 50 {
		s := New()
		var mu sync.Mutex
		ran := map[int]int{}
		var entries []Entry
		for i := range 16 {
			entries = append(entries, s.Push(func() error { mu.Lock(); ran[i]++; mu.Unlock(); return nil }))
		}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); s.Run() }()
		go func() {
			defer wg.Done()
			for _, e := range entries {
				e.Run()
			}
		}()
		wg.Wait()
		for i := range 16 {
			if ran[i] != 1 {
				t.Fatalf("action %d ran %d times, want 1", i, ran[i])
			}
		}
	}
}
