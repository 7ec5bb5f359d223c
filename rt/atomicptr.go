package rt

import (
	"sync/atomic"
	"unsafe"
)

// atomicPtr is an atomic pointer for the fields of the runtime's types,
// which its users convert to and from the pointer type they keep.
//
// It is not atomic.Pointer[T]: a package that names a type with such a
// field (every instrumented package names Site) compiles that
// instantiation's methods, and the methods of the shapes it is made of,
// again: about a hundred functions per package, some tens of
// milliseconds of every instrumented package's compilation.
type atomicPtr struct{ p unsafe.Pointer }

func (a *atomicPtr) load() unsafe.Pointer   { return atomic.LoadPointer(&a.p) }
func (a *atomicPtr) store(p unsafe.Pointer) { atomic.StorePointer(&a.p, p) }
