// Package instrument rewrites the Go source files of one package so that
// its functions report to the atomicx runtime.
//
// It works like cmd/cover: it never moves user code. It inserts text on
// existing lines (a prologue after the opening brace of each function, a
// small block in place of each return statement) and puts the rest in a
// generated file, so every line keeps its number; where an insertion would
// shift the columns of user code on the same line, a /*line*/ directive
// puts them back. Panics, runtime.Caller, compiler errors and coverage
// profiles therefore show the user's own file:line:col.
//
// The package knows nothing of the go command: it takes file contents, a
// type importer and the policy's choices, and returns file contents.
package instrument
