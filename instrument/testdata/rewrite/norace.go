package norace

import "errors"

var counter int

// Bump is not instrumented: //go:norace promises no race instrumentation.
//
//go:norace
func Bump() error {
	counter++
	if counter > 10 {
		return errors.New("too many")
	}
	return nil
}

//go:noinline
func Kept() error {
	return Bump()
}

//go:nocheckptr
func Unchecked() {}
