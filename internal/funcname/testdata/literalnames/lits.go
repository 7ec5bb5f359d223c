// Package lits holds function literals in every place the compiler
// names them from: package-level initializers (numbered in
// initialization order), init functions, functions, methods, generic
// functions and methods, literals in literals, range-over-func bodies,
// deferred literals and literals started with go. Each literal whose
// body opens with Record() is one whose name the test computes.
package lits

import (
	"iter"
	"runtime"
	"sync"
)

// PCs holds, for each recorded call, a program counter in the caller of
// Record.
var PCs []uintptr

// Record records its caller.
//
//go:noinline
func Record() {
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	PCs = append(PCs, pc[0])
}

// First refers to Second, which is initialized first: Second's literal
// is init.func1, First's init.func2.
var First = func() {
	Record()
	Second()
}

var Second = func() { Record() }

var Pair, Nested = func() { Record() }, func() {
	Record()
	func() { Record() }()
}

var inits []func()

func init() {
	inits = append(inits, func() { Record() })
}

func init() {
	inits = append(inits, func() { Record() }, func() {
		Record()
		func() { Record() }()
	})
}

// Outer has literals at two depths.
func Outer() {
	f := func() { Record() }
	f()
	g := func() {
		Record()
		h := func() { Record() }
		h()
		func() {
			Record()
			func() { Record() }()
		}()
	}
	g()
}

type T struct{ n int }

func (t *T) M(xs ...int) (n int, err error) {
	var wg sync.WaitGroup
	defer func() { Record() }()
	wg.Add(1)
	go func() {
		Record()
		wg.Done()
	}()
	wg.Wait()
	sum := func(ys ...int) (total int, err error) {
		Record()
		for _, y := range ys {
			total += y
		}
		return
	}
	return sum(xs...)
}

func (t T) V() { func() { Record() }() }

func Map[E any](xs []E) {
	for range xs {
		func() { Record() }()
	}
}

type Stack[E any] struct{ items []E }

func (s *Stack[E]) Push(e E) {
	func() {
		Record()
		s.items = append(s.items, e)
	}()
}

func Seq() iter.Seq[int] {
	return func(yield func(int) bool) {
		Record()
		yield(1)
	}
}

// Ranges has a literal in the body of a range-over-func loop, which the
// compiler turns into a function of its own.
func Ranges() {
	for range Seq() {
		func() { Record() }()
	}
	func() { Record() }()
}

// Run calls every literal above.
func Run() {
	First()
	Pair()
	Nested()
	for _, f := range inits {
		f()
	}
	Outer()
	new(T).M(1, 2)
	T{}.V()
	mv := T{}.V // a method value
	mv()
	Map([]int{1})
	Map([]string{"a"})
	new(Stack[int]).Push(1)
	new(Stack[string]).Push("a")
	Ranges()
}
