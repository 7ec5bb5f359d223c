package gobuild

// Keyed builds. By default atomicx answers the go command's -V=full with
// its own identity and the policy's hash, which keys every action of the
// build on them: nothing is shared with plain builds, the standard library
// included, and every policy edit rebuilds everything. The front-end
// (package gocmd) instead sets KeyedEnv to the policy's hash and gives
// each package that atomicx instruments a compiler flag of its own,
// KeyFlag followed by a hash of what its instrumentation depends on. The
// go command hashes a package's flags into its action ID, so instrumented
// packages get keys that no plain build has, and -V=full can be the real
// tool's: every other package is shared with plain builds.
//
// The flag is atomicx's, not the compiler's: toolexec removes it before
// running the compiler. A package that the policy instruments and that
// comes without it is an error, since its archive would be cached under
// the key of a plain build.
const (
	KeyedEnv = "ATOMICX_KEYED"
	KeyFlag  = "-atomicx="
)
