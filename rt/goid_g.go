//go:build amd64 || arm64

package rt

import "unsafe"

// currentG returns the runtime's descriptor of the current goroutine (its
// g), which the architecture keeps in a register or thread-local slot.
func currentG() unsafe.Pointer

const haveCurrentG = true
