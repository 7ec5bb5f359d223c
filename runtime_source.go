// Package atomicx carries the source of the runtime that atomicx links into
// instrumented programs. The runtime is built out of band, with the user's
// toolchain and flags, from these files; the binary needs nothing else.
package atomicx

import "embed"

// RuntimeSource holds the files of package rt. Tests are filtered out where
// the source is written.
//
//go:embed rt/*.go
var RuntimeSource embed.FS
