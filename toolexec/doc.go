// Package toolexec is everything about being run by the go command as a
// -toolexec program: recognising the tool and its flags, answering
// -V=full with an identity that keys the build cache (or, in a keyed
// build run by package gocmd, with the real tool's line, the instrumented
// packages carrying keys of their own: see gobuild.KeyFlag), having the
// atomicx runtime built with the user's toolchain and flags (package
// gobuild), adding it to the import configurations, and running the real
// tool.
//
// It hands source files to package instrument and knows nothing about
// syntax trees; tools it does not act on run with their arguments
// untouched.
package toolexec
