package comp

import (
	"errors"
	"testing"
)

// The benchmarks release three resources at the end of a scope and join
// the releases' errors to the function's result: by hand with defer, and
// with a Stack. The releases are package-level functions, so that what
// is measured is the mechanism and not the closures of the actions.

var releases = [3]func() error{release, release, release}

var released int

//go:noinline
func release() error {
	released++
	return nil
}

//go:noinline
func withDefers() (err error) {
	defer func() {
		if e := releases[0](); e != nil {
			err = errors.Join(err, e)
		}
	}()
	defer func() {
		if e := releases[1](); e != nil {
			err = errors.Join(err, e)
		}
	}()
	defer func() {
		if e := releases[2](); e != nil {
			err = errors.Join(err, e)
		}
	}()
	return nil
}

//go:noinline
func withStack() (err error) {
	s := New()
	defer s.RunJoin(&err)
	s.Push(releases[0])
	s.Push(releases[1])
	s.Push(releases[2])
	return nil
}

//go:noinline
func withStackCommit() (err error) {
	s := New()
	defer s.RunJoin(&err)
	s.Push(releases[0])
	s.PushUndo(releases[1])
	s.PushUndo(releases[2])
	s.Commit()
	return nil
}

// withStackEmpty is a scope that fails before it acquires anything.
//
//go:noinline
func withStackEmpty() (err error) {
	s := New()
	defer s.RunJoin(&err)
	return nil
}

func BenchmarkRelease3(b *testing.B) {
	b.Run("defer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			withDefers()
		}
	})
	b.Run("stack", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			withStack()
		}
	})
	b.Run("stack-commit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			withStackCommit()
		}
	})
	b.Run("stack-nothing-pushed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			withStackEmpty()
		}
	})
	b.Run("stack-untracked", func(b *testing.B) {
		previous := SetLeakHandler(nil)
		defer SetLeakHandler(previous)
		b.ReportAllocs()
		for b.Loop() {
			withStack()
		}
	})
}
