// Package atomicx carries the source of the runtime that atomicx links into
// instrumented programs. The runtime is built out of band, with the user's
// toolchain and flags, from these files; the binary needs nothing else.
package atomicx

import "embed"

// RuntimeSource holds the files of package rt and of its arming contract,
// package rt/arm. Tests are filtered out where the source is written.
//
//go:embed rt/*.go rt/*.s rt/arm/*.go
var RuntimeSource embed.FS
