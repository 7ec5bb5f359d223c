// Package policy reads and validates atomicheck.toml and answers, for a
// package import path and a function name, what atomicx should do with it.
//
// It reads the policy file and the module line of the go.mod above it, and
// nothing else: it knows nothing of the go command's invocations (package
// toolexec) or of Go syntax (package instrument). A bad policy is an
// ErrorList of "file:line:col: message" lines, never a panic.
//
// # The policy file
//
// atomicx looks for atomicheck.toml in the directory where the go command
// runs, then in each parent directory, up to and including the one that
// holds go.mod, or, inside a workspace (a go.work above, GOWORK not off),
// the one that holds go.work. The environment variable
// ATOMICX_POLICY overrides the search: it names the policy file (relative
// to the go command's directory), or is "off" or "none" to build with no
// policy. Without a policy every package is built as written.
//
//	# atomicheck.toml
//	version = 1                 # optional; any other value is an error
//	never_fail = ["(*example.com/m/log.Buffer).Write"]  # optional: calls whose error is always nil
//	error_constructors = ["example.com/m/errs.Wrap"]    # optional: functions whose error is what they build
//
//	[defaults]                  # optional: options every rule inherits unless it sets them
//	panics = false              # also inject panics (not only errors)
//	globals = false             # also watch the package-level variables of the function's package
//	snapshot_budget = 1000000   # max values copied per call snapshot (> 0)
//	on_type_check_failure = "fail"  # or "warn"; default "fail" in mask rules, "warn" in detect rules
//
//	[[rule]]
//	packages = ["./...", "github.com/spf13/afero/..."]   # required, non-empty: import-path patterns
//	mode = "detect"                                      # required: "off" | "detect" | "mask"
//	functions = ["(*Vector).Alloc", "Transfer"]          # optional include list; default: every function
//	from_report = "report.json"                          # mask rules only: also the report's pure non-atomic functions
//	exclude = ["String", "(*Vector).*"]                  # optional
//	ignore = ["(*Reader).Read"]                          # optional: intended non-atomic; never injected nor reported
//	success_errors = ["example.com/m/iter.Done"]         # detect and mask rules: errors that mean done, not failed
//	scratch = ["(*Decoder).buf"]                         # optional: fields whose changes are scratch, not caller-visible
//	oblivious = ["(*Cache).Refresh"]                     # mask rules only: swallow these functions' failures
//	oblivious_atomic = ["(*Store).Add"]                  # mask rules only: roll back, then swallow
//	mask_outside_locks = ["(*Registry).Rename"]          # mask rules only: mask although it locks mid-body
//	outside_writes = ["(*Log).writeBatch"]               # mask rules only: mask although they write outside memory
//	undo_files = ["(*Log).writeBatch"]                   # mask rules only: undo their writes to regular files with their memory
//	panics = true                                        # optional overrides of [defaults]
//	globals = true
//	snapshot_budget = 5000
//
// never_fail and error_constructors come before the first table, since
// a callee is one for every package that calls it. They name functions
// and methods with their package path, as go/types writes them, and add
// to what atomicx knows (the standard library's writers into memory,
// errors.New, fmt.Errorf, errors.Join, and each package's own
// constructors): their calls are not injection points, nor are their
// entries. A name that matches no function of the build is a warning of
// atomicx policy check (see Policy.UnusedDeclared).
//
// The modes:
//
//   - "off": the package is built exactly as written.
//   - "detect": the package is instrumented so that a campaign can inject
//     failures and report the functions that are not failure atomic.
//   - "mask": each selected function rolls its object graph back to its
//     state at entry when a call fails. A mask build holds no injection
//     machinery. A rule may select functions with from_report, the path
//     (relative to the policy file) of a JSON report of atomicx detect:
//     its pure non-atomic functions are selected, in addition to those of
//     the functions list if there is one. In a rule whose packages are all
//     exact import paths, a functions entry without wildcard that names no
//     function of the package is an error (see Match.MissingFunctions).
//     A mask rule's oblivious and oblivious_atomic lists name
//     failure-oblivious functions (see Match.Oblivious): a failed call
//     returns a nil error and a panic through it is recovered, after a
//     rollback for oblivious_atomic ones. This changes what callers see
//     on purpose; only validated functions belong there. A function that
//     takes a lock other than by opening with the lock idiom, calls one
//     that does, or runs as a goroutine is not masked, since its
//     checkpoint and rollback would run without the lock, unless the
//     rule's mask_outside_locks names it (see Match.MasksOutsideLocks).
//     A mask build stops when it selects a function that writes outside
//     memory (a file, a connection, another process: a rollback of memory
//     cannot undo that) unless the rule's outside_writes lists it (see
//     Match.MasksOutsideWrites).
//
// The options, in [defaults] or in a [[rule]] (the rule's own value wins):
//
//   - panics (default false): inject panics as well as errors.
//   - globals (default false): the object graph of a call also holds the
//     package-level variables of the function's package.
//   - snapshot_budget (default 1000000): the most values one call snapshot
//     may copy; it must be positive.
//   - on_type_check_failure ("fail" or "warn"; default "fail" in mask
//     rules, "warn" in detect rules): what a build does with a selected
//     package that atomicx cannot type-check although the compiler
//     compiles it (export data of a newer toolchain than atomicx was built
//     with, a construct its go/types does not know). Such a package can
//     only be built as written, without instrumentation: "fail" stops the
//     build, "warn" builds it so with a warning naming it. A package the
//     compiler rejects too gets the compiler's messages only. See
//     Match.FailsOnTypeCheckFailure.
//
// Decoding is strict. A TOML syntax error, an unknown key (keys are case
// sensitive), a value of the wrong type, an unknown mode, an empty or
// malformed pattern, a package pattern that appears in more than one rule,
// a budget that is not positive and an unknown on_type_check_failure are
// all errors, reported together, each at the key or value that caused it:
//
//	atomicheck.toml:12:1: unknown key "mdoe" in [[rule]] (known keys: packages, mode, functions, from_report, exclude, ignore, success_errors, scratch, oblivious, oblivious_atomic, mask_outside_locks, outside_writes, undo_files, panics, globals, snapshot_budget, on_type_check_failure); did you mean "mode"?
//	atomicheck.toml:13:8: unknown mode "detct" (known modes: off, detect, mask); did you mean "detect"?
//
// # Package patterns
//
// Each entry of packages is an import path, in which "..." matches any
// string, slashes included, as in the go command: "github.com/x/..."
// matches github.com/x and everything below it, "..." matches every
// package. A pattern that is "." or begins with "./" is relative to the
// directory of the policy file: atomicx prefixes the import path of that
// directory, computed from the module line of the nearest go.mod at or
// above it, so beside go.mod "./..." means every package of the module.
// "../" patterns and file system paths are errors.
//
// A pattern reaches the standard library only when it names it: its first
// path element has no dot and it does not begin with "...". So "..." and
// "github.com/..." never match std packages, while "encoding/..." and
// "strings" do. The standard-library packages that atomicx's own runtime
// depends on (runtime, sync, reflect, os, io, strings and others; see
// Instrumentable) and std's internal packages are never instrumented,
// whatever the policy says.
//
// An external test package (vec_test) follows the rule of the package it
// tests (vec).
//
// # Which rule applies
//
// A package gets the rule of its most specific matching pattern, wherever
// the rules stand in the file:
//
//  1. an exact import path (no "...") beats every wildcard pattern;
//  2. among wildcard patterns, the one with more literal bytes before its
//     first "..." wins: "github.com/x/y/..." beats "github.com/x/...",
//     which beats "...";
//  3. between equally specific patterns, the rule that comes first in the
//     file wins.
//
// A package that no pattern matches is built as written.
//
// # Function patterns
//
// functions, exclude and ignore hold function names as runtime.Func.Name
// prints them, without the package path:
//
//	Transfer            a function
//	Vector.Len          a method with a value receiver
//	(*Vector).Alloc     a method with a pointer receiver
//	(*Stack[...]).Push  a method of a generic type; (*Stack).Push is the same
//	Map[...]            a generic function; Map is the same
//
// A method declared on an alias (type A = T) is a method of T, named
// (*T).M or T.M, as the runtime names it.
//
// Function literals have the runtime's names too: Outer.func1 is the
// first literal of Outer, Outer.func1.2 the second literal in that one,
// (*T).M.func2 the second literal of a method, init.func1 the first
// literal of the package-level variables' initializers (numbered in
// initialization order), init.0.func1 one in the first init function. A
// literal goes with the functions it is written in: a functions pattern
// that names it or one of them selects it, an exclude or ignore pattern
// that names it or one of them leaves it out. So exclude = ["Outer"]
// leaves out Outer and its literals, functions = ["Outer.func1"] selects
// that literal (and the literals in it) without Outer, and
// exclude = ["Outer.*"] keeps Outer but not its literals. from_report
// selects a literal only if the report calls it pure itself.
//
// A "*" matches any run of characters, except in the "(*" that opens a
// pointer receiver, where it is the pointer star: "(*Vector).*" is every
// pointer method of Vector, "Test*" every function whose name begins with
// Test, "*" every function.
//
// A function of a rule's packages is selected (instrumented in "detect",
// rolled back in "mask") when the rule has neither a functions list nor a
// from_report, or one of them names it, and no exclude pattern matches. A function matched by
// ignore is one that is meant not to be failure atomic (a Read that
// returns the bytes it read along with its error): no fault is injected
// into it and no verdict about it is reported.
//
// # Errors that mean done
//
// A failure is a call that ends with a non-nil error or a panic, except
// where the error means "done": a masking build does not roll such a
// call back, a failure-oblivious wrapper does not swallow its error, and
// detection does not count it as a failure. atomicx knows the standard
// library's: io.EOF from any function (io documents it as a graceful end
// of input, which Read may return along with the bytes it read), and
// fs.SkipDir and fs.SkipAll from a function of the shape of
// fs.WalkDirFunc or filepath.WalkFunc. Those are matched as their
// callers match them, by ==: a wrapped io.EOF is a failure. A rule's
// success_errors adds package-level error variables, written with their
// package's import path ("example.com/m/iter.Done"), matched with
// errors.Is, for every function of the rule's packages that can name
// them: the value's own package and the packages that import it. A value
// that names no variable of the build is reported by
// Policy.UnusedSuccessErrors.
//
// # Scratch paths
//
// scratch holds struct fields whose contents mean nothing between calls,
// such as a buffer a decoder reuses. A failed call that changed only
// such fields (and the position of the streams it reads or writes) is
// still non-atomic, but reported after the calls that changed what their
// callers hold. A path names a field by the type that declares it, with
// or without the pointer: "(*Decoder).buf" and "Decoder.buf" are the
// same, and type parameters are dropped. It applies wherever a value of a
// type of that name (declared in any package) is reached from a call of
// the rule's functions, and to everything the field holds or points to.
// A path that names no field of a struct type of the rule's packages is
// reported by Policy.UnknownScratch.
//
// Patterns that end up matching nothing are not errors, since the packages
// of a build vary with build tags and platforms; atomicx reports them as
// warnings (see Policy.Unused).
package policy
