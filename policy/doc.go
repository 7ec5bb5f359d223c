// Package policy reads and validates atomicheck.toml and answers, for a
// package import path and a function name, what atomicx should do with it.
//
// It reads the policy file and the module line of the go.mod above it, and
// nothing else: it knows nothing of the go command's invocations (package
// toolexec) or of Go syntax (package instrument). A bad policy is an
// ErrorList of "file:line:col: message" lines, never a panic.
//
// The file's format, its keys and how atomicx finds it are specified once,
// in docs/policy.md, which atomicx help policy prints: this package is
// the code that implements that page.
package policy
