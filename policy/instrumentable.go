package policy

import "strings"

// runtimeDeps are the packages atomicx never rewrites, whatever the policy
// says. The runtime that atomicx links into instrumented programs depends
// on them, directly or through the standard library; rewriting one would
// make it import that runtime in turn, an import cycle the compiler
// rejects (and the Go runtime itself cannot call hooks that allocate or
// lock). Keep this the only list of them: toolexec and the CLI both ask
// Instrumentable. The patterns use the package-pattern syntax, so
// "runtime/..." covers runtime itself.
//
// A test checks the list against go list -deps of the runtime on several
// platforms; sort, maps and path/filepath are not dependencies today but
// were in older standard libraries, which the runtime is built with when
// the user's toolchain is older. At build time toolexec also leaves alone
// any package that the runtime it built actually depends on.
var runtimeDeps = compileAll(
	"unsafe", "C", // not real packages: nothing to rewrite
	"runtime/...", "internal/...", "vendor/...",
	"sync/...", "reflect", "os", "syscall/...", "errors",
	"io", "io/fs", "time", "strconv", "strings", "structs",
	"unicode/...", "math/...", "sort", "slices", "maps", "iter", "cmp",
	"path", "path/filepath",
)

// runtimePrefix is the import path prefix of atomicx's own runtime packages,
// which are built out of band and must never instrument themselves.
const runtimePrefix = "atomicx/"

// Instrumentable reports whether atomicx may rewrite the package. It is
// false for the standard-library packages that atomicx's runtime depends
// on (unsafe, C, runtime/..., internal/..., vendor/..., sync/..., reflect,
// os, syscall/..., errors, io, io/fs, time, strconv, strings, structs,
// unicode/..., math/..., sort, slices, maps, iter, cmp, path,
// path/filepath), for any
// standard-library package with an internal path element, and for
// atomicx's own runtime (atomicx/...). ForPackage turns such packages Off
// even when a rule names them.
func Instrumentable(importPath string, std bool) bool {
	if strings.HasPrefix(importPath, runtimePrefix) {
		return false
	}
	// A user module's internal packages are ordinary code; only the
	// standard library's are the runtime's plumbing.
	if std && strings.Contains(importPath, "/internal/") {
		return false
	}
	for i := range runtimeDeps {
		// The list names std packages; match it whatever the caller says,
		// since no module outside std can own these paths.
		if runtimeDeps[i].matches(importPath, false) {
			return false
		}
	}
	return true
}

func compileAll(patterns ...string) []pkgPattern {
	out := make([]pkgPattern, len(patterns))
	for i, p := range patterns {
		out[i] = compilePkgPattern(p, p, Position{})
	}
	return out
}
