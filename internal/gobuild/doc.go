// Package gobuild is what both sides of an atomicx build know of the go
// command: which of its flags take a value and which change how the
// standard library is compiled, the keys that set instrumented packages
// apart in its build cache (KeyFlag, KeyedEnv), and the nested build of
// the atomicx runtime with the user's toolchain and flags, under the key
// a compile would compute (Runtime, Prebuild).
//
// The front-end (package gocmd) and the campaign engine use it without
// linking the rewriter: it needs nothing but the standard library.
package gobuild
