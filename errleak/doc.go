// Package errleak is a static analysis that finds resources left open on
// the error paths of a function: a file opened, a lock taken, a context
// cancel function obtained, and then a return (typically after a later
// call failed) that skips the release.
//
// It is an ordinary golang.org/x/tools/go/analysis analyzer, [Analyzer],
// so that any driver can run it: `atomicx vet`, `go vet -vettool` with the
// atomicx-vet binary, golangci-lint or gopls. It keeps no state between
// passes and reads its configuration from its flags and from the
// atomicheck.toml that applies to the package's directory.
//
// The analysis is intraprocedural and path-sensitive on obligations, after
// Weimer and Necula: a call that acquires a resource opens an obligation
// on its success edge only (an error result compared with nil decides
// which edge is which), a release or a deferred release discharges it, and
// a return reached with an obligation open is reported, with the branches
// taken on the way. Paths that end in os.Exit, log.Fatal or a panic are
// not reported (with -panics, a lock held where a function panics is). A
// resource that escapes (stored, sent, captured, passed to a function
// that keeps it), that is nil-checked on the path, or that is returned to
// the caller is not reported either. A function that only borrows a
// parameter (reads it, calls its methods, hands it to borrowers) gets the
// fact [Ownership], and passing a resource to it, to one of the standard
// library's borrowers such as io.ReadAll, or to a wrapper that does not
// take it over such as bufio.NewReader (while the wrapper stays in the
// function), is no escape. A resource stored in a field of an object the
// function made stays in its hands while the object does. A method
// that stores a resource into a field of its receiver and can return an
// error with it still there gets the fact [LeavesInReceiver], and its
// call on an object the caller made is an acquire of that field. A
// function that returns an open resource gets a fact, [ReturnsOpen], so
// that its callers inherit the obligation. A function that releases, on
// every path, something its caller hands it (a parameter, a field of its
// receiver, a captured variable) gets the fact [ReleasesArgs], and a call
// of it, a deferred or called closure that does, or a goroutine started
// to do it, is a release. A lock of the caller's object held at every
// successful return and released elsewhere in the package is handed to
// the caller, and in Go 1.23 code an unstopped timer is collected: both
// are counted, not reported.
//
// The analyzer's result, [Stats], lists the reported paths as data too
// ([Finding]): the function as the runtime names it, the return, and the
// call whose failure opens the path, which `atomicx vet -confirm` injects.
//
// It must not run or build user code: it reads types and SSA only.
package errleak
