// Package yaml sits in a directory whose name has a dot: every dot of the
// last path element is escaped in runtime names.
package yaml

import x "example.com/x.v2"

type T struct{ n int }

// A method declared on an alias is named after the aliased type.
type A = T

// An alias of a pointer type can be a receiver too.
type P = *T

// So can an alias of an alias.
type AA = A

//go:noinline
func (t T) Value() { x.Record() }

//go:noinline
func (t *T) Pointer() { x.Record() }

//go:noinline
func (a *A) AliasPointer() { x.Record() }

//go:noinline
func (a A) AliasValue() { x.Record() }

//go:noinline
func (p P) PointerAlias() { x.Record() }

//go:noinline
func (a *AA) AliasChain() { x.Record() }

type G[E any] struct{ e E }

//go:noinline
func (g *G[E]) Pointer() { x.Record() }

//go:noinline
func (g G[E]) Value() { x.Record() }

type Pair[K comparable, V any] struct {
	k K
	v V
}

//go:noinline
func (p *Pair[K, V]) Two() { x.Record() }

//go:noinline
func Generic[E any](e E) { x.Record() }

//go:noinline
func Plain() { x.Record() }

// Run calls every function above, with two instantiations of each generic
// one.
func Run() {
	var t T
	t.Value()
	t.Pointer()
	t.AliasPointer()
	t.AliasValue()
	t.PointerAlias()
	t.AliasChain()
	new(G[int]).Pointer()
	new(G[string]).Pointer()
	G[int]{}.Value()
	new(Pair[int, string]).Two()
	Generic(1)
	Generic("s")
	Plain()
}
