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
// User files and the generated file are written in two different ways,
// on purpose. A user file is rewritten by byte-exact insertions into its
// own text (edit.go): printing it from a syntax tree, even one that keeps
// comments as github.com/dave/dst does, would reflow the user's
// formatting, move comments and //line directives the compiler and
// cgo rely on, and lose the columns that panics and coverage report. The
// generated file (_atomicx_sites.go: the site table, the hand-over
// helpers, the savers, the graph checkpoints) has no positions to keep,
// and names types of other packages: it is a dst syntax tree (genfile.go)
// printed by dst's import-managing restorer. Generated code names a type
// of another package as an identifier carrying that package's path, and
// the restorer writes the import block from those identifiers; the import
// names are chosen so that no identifier of the file or declaration of
// the package shadows or clashes with them. Sections whose code reads
// best as Go text (the savers, the graph checkpoint methods) are parsed
// into dst declarations, with runtime references and placeholders of
// types turned into such identifiers before printing.
//
// Walks that need a node's parent use golang.org/x/tools/go/ast/astutil
// (astutil.Apply in the call-site walk of calls.go) rather than a stack
// of ancestors kept by hand.
//
// The package knows nothing of the go command: it takes file contents, a
// type importer and the policy's choices, and returns file contents.
package instrument
