package rt

import (
	"math"
	"reflect"
	"unsafe"
)

// Releases are the resources that one call of a masked function acquired
// (files, connections, timers: the acquire calls of the leak policy) with
// how to release each. The heap rollback cannot undo what they hold
// outside the process, so when the call fails and, once rolled back,
// nothing its roots reach refers to a resource any more, the resource is
// released: the failed call leaves no open file behind it.
//
// The generated code registers a resource only where the function keeps
// it to itself: it stores it in its roots or in local variables, and
// neither releases it, returns it, nor passes it on (instrument decides).
// The zero value is ready to use; a call that acquires nothing pays for
// a deferred call that returns at once.
type Releases struct {
	held []held
}

type held struct {
	res     unsafe.Pointer // the resource's address: a pointer, or an interface's data
	release any
	roots   []any
}

// Add registers a resource the call has just acquired: res is the
// resource (a pointer, or an interface holding one), release releases
// it, and roots are the call's roots, which the rollback restores. A
// resource that is not a pointer cannot be told from a copy in the
// restored graph and is never released. release is a function of no
// arguments, whatever it returns (the generated code passes the method
// value of the release, such as f.Close: a function literal would
// rename the user's literals that follow it); what it returns is
// dropped.
func (r *Releases) Add(res any, release any, roots ...any) {
	p := addressOf(res)
	if p == nil {
		return
	}
	r.held = append(r.held, held{res: p, release: release, roots: roots})
}

// OnFailure runs when the masked call ends, deferred before its rollback
// so that it runs after it. On failure (as for Checkpoint.Rollback: an
// error returned, or a panic or runtime.Goexit going through) it
// releases, last acquired first, each resource that the restored roots do
// not reach; a release's panic is contained and its error dropped, as
// the call's own failure is the one its caller gets.
func (r *Releases) OnFailure(s *Site, done *bool, errp *error) {
	if len(r.held) == 0 {
		return
	}
	held := r.held
	r.held = nil
	if !(s.failed(errp) || !*done && Unwinding(s.Func)) {
		return
	}
	// One walk of the restored graph answers for every resource: the
	// roots each registration passed are the same call's roots.
	var roots []any
	for _, h := range held {
		roots = append(roots, h.roots...)
	}
	reached, all := reachableFrom(roots)
	for i := len(held) - 1; i >= 0; i-- {
		if h := held[i]; !all && !reached[h.res] {
			runRelease(h.release)
		}
	}
}

func runRelease(release any) {
	defer func() { _ = recover() }()
	switch f := release.(type) {
	case func():
		f()
	case func() error:
		_ = f()
	case func() bool:
		_ = f()
	default:
		if v := reflect.ValueOf(release); v.Kind() == reflect.Func && (v.Type().NumIn() == 0 || v.Type().IsVariadic() && v.Type().NumIn() == 1) {
			v.Call(nil)
		}
	}
}

// addressOf returns the address a resource value holds: the pointer
// itself, or the data word of an interface holding a pointer; nil for
// anything else.
func addressOf(res any) unsafe.Pointer {
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		return v.UnsafePointer()
	}
	return nil
}

// reachableFrom returns the addresses of the objects reachable from
// roots. A graph the walk cannot handle counts as reaching everything
// (all): a resource is released only when it is known to be
// unreferenced.
func reachableFrom(roots []any) (reached map[unsafe.Pointer]bool, all bool) {
	if len(roots) == 0 {
		return nil, false
	}
	snap, ok := takeSnapshot(roots, math.MaxInt)
	if !ok {
		return nil, true
	}
	reached = make(map[unsafe.Pointer]bool, len(snap.objects))
	for k := range snap.objects {
		reached[k.addr] = true
	}
	return reached, false
}
