// Package maskbench measures what masking costs, in the set-ups of
// Fetzer, Högstedt and Felber's Figs. 13 and 14: a method that does a
// fixed amount of work and one whose work grows with its object, on
// objects of 8 bytes to 64 KiB, with a share of 0 to 100 % of the calls
// masked. Each method exists four ways: plain, masked by the policy
// (atomicheck.toml at the repository's root masks the Masked* methods
// when the package is built with -toolexec atomicx), under the runtime's
// reflective checkpoint, and written failure atomic by hand (work on a
// copy, swap it in on success). Run all four side by side with
//
//	go test -toolexec atomicx -run '^$' -bench . ./internal/maskbench
//
// The Linked* types do the same on linked structures — a list, a binary
// search tree and a map of pointers, of 1 to 1024 nodes — whose masked
// methods get generated recursive checkpoints; their hand-written
// variants save every node at entry and write them back on failure.
// Their benchmarks are the BenchmarkLinked* ones:
//
//	go test -toolexec atomicx -run '^$' -bench 'Linked' ./internal/maskbench
//
// Built without atomicx, the Masked* methods are plain ones.
package maskbench

import "errors"

//go:generate go run gen.go

var errFailed = errors.New("failed")
