// Package comp provides compensation stacks: a last-in, first-out stack of
// the actions that undo or release what a function acquired, run when the
// function's scope ends, on every path out of it.
//
// A function creates a Stack, defers its Run, and pushes an action each
// time an acquiring call succeeds:
//
//	// WriteFile writes data to a temporary file that it renames over name,
//	// so that name has either its old contents or the new ones.
//	func WriteFile(name string, data []byte) (err error) {
//		s := comp.New()
//		defer s.RunJoin(&err)
//
//		f, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".*")
//		if err != nil {
//			return err
//		}
//		s.PushUndo(func() error { return os.Remove(f.Name()) })
//		closeFile := s.Push(f.Close)
//
//		if _, err := f.Write(data); err != nil {
//			return err // closes and removes the temporary file
//		}
//		if err := closeFile.Run(); err != nil {
//			return err // removes it
//		}
//		if err := os.Rename(f.Name(), name); err != nil {
//			return err // removes it
//		}
//		s.Commit() // keeps it, under its new name
//		return nil
//	}
//
// There are two kinds of entries. A release, pushed with Push, always runs:
// it closes a file, unlocks a mutex, cancels a context. An undo action,
// pushed with PushUndo, runs only if the function fails: it removes the
// temporary file, rolls back the transaction, deletes the row inserted by
// an earlier step. Commit marks success: it drops the undo actions pushed
// so far and keeps the releases. Since an action is pushed only after the
// call that acquired its resource has succeeded, a failure at any step
// undoes exactly the steps that were done, in reverse order.
//
// Run runs the entries left, last pushed first, once: a second Run does
// nothing. The errors the actions return are joined with errors.Join, in
// the order the actions ran. A panic in an action is contained: it becomes
// a *PanicError that names the action, and the actions under it still run.
// A panic of the function itself is not contained: the deferred Run runs
// the actions and the panic goes on. RunJoin is Run for a deferred call in
// a function with a named error result: it adds the actions' errors to the
// function's own.
//
// Push and PushUndo return an Entry, with which one action can be run or
// dropped before the others (a file closed as soon as it has been read,
// a lock released early). Acquire pushes the release of a value returned
// with an error, only when the error is nil.
//
// A Stack is safe for concurrent use: the goroutines that serve one
// request may push onto the stack that WithStack puts in the request's
// context, and FromContext finds it. The actions themselves run on the
// goroutine that calls Run (or Entry.Run), one at a time.
//
// A Stack created by New that becomes unreachable with entries left (its
// Run was never called) is reported, with the place where it was created,
// to the function set with SetLeakHandler; by default, a line on standard
// error.
//
// The package uses the standard library only.
package comp

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
)

// A Stack is a last-in, first-out stack of undo actions and releases tied
// to a scope. Create one with New; the zero Stack is also ready to use, but
// its leaks are not reported. A Stack must not be copied after first use.
type Stack struct {
	mu      sync.Mutex
	entries []entry // in push order; ids increase
	buf     [4]entry
	lastID  uint64
	ran     bool
	created uintptr    // where New was called; 0 when leaks are not reported
	leak    *leakState // set by the first push when created is not 0
}

type entry struct {
	action func() error
	id     uint64
	undo   bool
}

// New returns an empty Stack. The caller should defer its Run (or RunJoin).
func New() *Stack {
	s := new(Stack)
	if leakHandler.Load() != nil {
		// Only the program counter is taken here (skipping
		// runtime.Callers and New); the file and line are looked up
		// if there is a leak.
		var pc [1]uintptr
		runtime.Callers(2, pc[:])
		s.created = pc[0]
	}
	return s
}

// Push pushes a release: an action that Run runs whether or not Commit
// was called. Push the release of a resource once the call that acquired
// it has succeeded:
//
//	f, err := os.Open(name)
//	if err != nil {
//		return err
//	}
//	s.Push(f.Close)
//
// Push panics if action is nil or if s has already run.
func (s *Stack) Push(action func() error) Entry {
	return s.push(action, false)
}

// PushUndo pushes an undo action: an action that Run runs only if Commit
// was not called after it was pushed.
//
// PushUndo panics if action is nil or if s has already run.
func (s *Stack) PushUndo(action func() error) Entry {
	return s.push(action, true)
}

func (s *Stack) push(action func() error, undo bool) Entry {
	if action == nil {
		panic("comp: nil action")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ran {
		// The scope has ended: nothing would ever run the action.
		panic("comp: push onto a Stack that has already run")
	}
	if s.entries == nil {
		s.entries = s.buf[:0]
	}
	if s.leak == nil && s.created != 0 {
		// A stack with no entries cannot leak anything: tracking
		// starts with the first one.
		s.leak = trackLeak(s)
	}
	s.lastID++
	s.entries = append(s.entries, entry{action: action, id: s.lastID, undo: undo})
	s.leak.setPending(len(s.entries))
	return Entry{s: s, id: s.lastID}
}

// Commit drops the undo actions pushed so far: the work they would undo
// is done and stays. The releases stay on the stack. Undo actions pushed
// after Commit run on Run unless Commit is called again.
func (s *Stack) Commit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = slices.DeleteFunc(s.entries, func(e entry) bool { return e.undo })
	s.leak.setPending(len(s.entries))
}

// Run runs the actions left on s, last pushed first, and returns their
// errors joined with errors.Join (nil if there are none). An action that
// panics does not stop the others: its panic is returned as a *PanicError.
// Run runs each action at most once: a second call returns nil, and s
// accepts no more pushes.
//
// If an action calls runtime.Goexit, the actions under it still run, but
// Run does not return and their errors are lost.
func (s *Stack) Run() error {
	s.mu.Lock()
	if s.ran {
		s.mu.Unlock()
		return nil
	}
	s.ran = true
	entries := s.entries
	s.entries = nil
	s.leak.setPending(0)
	if s.leak != nil {
		s.leak.cleanup.Stop()
	}
	s.mu.Unlock()
	err := runEntries(entries)
	clear(entries) // the actions and what they hold are garbage now, even while s is not
	return err
}

// RunJoin runs s as Run does and joins the error it returns to *errp, the
// named error result of the function that defers it:
//
//	func Copy(dst, src string) (err error) {
//		s := comp.New()
//		defer s.RunJoin(&err)
//		...
//	}
//
// *errp is left as it is when the actions return no error.
func (s *Stack) RunJoin(errp *error) {
	if err := s.Run(); err != nil {
		*errp = errors.Join(*errp, err)
	}
}

// runEntries runs the actions of entries from the last to the first.
func runEntries(entries []entry) error {
	var errs []error
	i := len(entries) - 1
	defer func() {
		// Reached with i >= 0 only when the action at i called
		// runtime.Goexit (panics are recovered in call): the goroutine
		// is ending, but what is under it must still be released.
		if i >= 0 {
			runEntries(entries[:i])
		}
	}()
	for ; i >= 0; i-- {
		if err := call(entries[i].action); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// call calls action and turns a panic in it into a *PanicError.
func call(action func() error) (err error) {
	returned := false
	defer func() {
		if returned {
			return
		}
		if v := recover(); v != nil {
			err = &PanicError{Action: actionName(action), Value: v, Stack: debug.Stack()}
		}
	}()
	err = action()
	returned = true
	return err
}

// actionName returns the name of the function action calls, as a stack
// trace would show it: "os.(*File).Close-fm" for the method value f.Close,
// "example.com/m.Copy.func2" for a function literal.
func actionName(action func() error) string {
	if f := runtime.FuncForPC(reflect.ValueOf(action).Pointer()); f != nil {
		return f.Name()
	}
	return "unknown"
}

// A PanicError is the error Run returns for an action that panicked.
type PanicError struct {
	Action string // the action's function, e.g. "os.(*File).Close-fm"
	Value  any    // the value the action panicked with
	Stack  []byte // the stack of the panicking goroutine, as debug.Stack formats it
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("comp: action %s panicked: %v", e.Action, e.Value)
}

// Unwrap returns the panic's value if it is an error, so that errors.Is and
// errors.As see through the panic.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// An Entry is one action on a Stack, as Push and PushUndo return it, with
// which it can be run or dropped before the others. Once the action has
// run or been dropped, or its stack has run, the Entry's methods do
// nothing. The zero Entry is one such.
type Entry struct {
	s  *Stack
	id uint64
}

// Run takes the entry's action off its stack and runs it, as Stack.Run
// would, and returns its error.
func (e Entry) Run() error {
	if action := e.remove(); action != nil {
		return call(action)
	}
	return nil
}

// Drop takes the entry's action off its stack without running it.
func (e Entry) Drop() {
	e.remove()
}

func (e Entry) remove() func() error {
	s := e.s
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, found := slices.BinarySearchFunc(s.entries, e.id, func(x entry, id uint64) int {
		switch {
		case x.id < id:
			return -1
		case x.id > id:
			return 1
		}
		return 0
	})
	if !found {
		return nil
	}
	action := s.entries[i].action
	s.entries = slices.Delete(s.entries, i, i+1)
	s.leak.setPending(len(s.entries))
	return action
}

// Acquire returns a function that passes on the results of a call that
// acquires a T and, when the call succeeded (its error is nil), pushes
// release(v) onto s. It turns the acquiring call and the Push into one
// statement:
//
//	f, err := comp.Acquire(s, (*os.File).Close)(os.Open(name))
//	if err != nil {
//		return err
//	}
func Acquire[T any](s *Stack, release func(T) error) func(v T, err error) (T, error) {
	return func(v T, err error) (T, error) {
		if err == nil {
			s.Push(func() error { return release(v) })
		}
		return v, err
	}
}
