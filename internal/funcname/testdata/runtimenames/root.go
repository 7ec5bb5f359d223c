// Package x is the root package of a module whose path ends in a dotted
// element: the runtime names its functions example.com/x%2ev2.F.
package x

import "runtime"

// PCs holds, for each recorded call, a program counter in the caller of
// record.
var PCs []uintptr

//go:noinline
func Root() { Record() }

// Record records its caller.
//
//go:noinline
func Record() {
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	PCs = append(PCs, pc[0])
}
