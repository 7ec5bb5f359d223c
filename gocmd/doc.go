// Package gocmd runs the go command with atomicx as its -toolexec program
// and a build cache key of their own for the packages that atomicx
// instruments, so that everything else, the standard library first, is
// shared with plain builds, and a policy edit recompiles only the packages
// whose instrumentation it changes.
//
// The go command keys every action on the -V=full line of the tool it
// runs and on the package's compiler flags. Run as plain
// "go build -toolexec atomicx", atomicx must answer -V=full with its own
// identity and the policy's hash, since nothing else tells the go command
// that a package was rewritten: no archive of the build is shared with
// plain builds. Through this package, atomicx answers with the real
// compiler's line, and each instrumented package P gets
//
//	-gcflags=P=[the user's flags for P] -atomicx=KEY
//
// where KEY hashes atomicx's identity, the runtime's build directory, what
// the policy says of P (policy.Match.Hash), and which functions of the
// packages P depends on the policy instruments for detection
// (policy.Match.SelectionHash): calls of those are injection points of
// P. toolexec removes the flag before compiling, and refuses to
// instrument a package that comes without one (see gobuild.KeyFlag): the
// cache never hands an instrumented archive to a plain build, nor the
// reverse.
package gocmd
