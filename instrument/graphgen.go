package instrument

import (
	"fmt"
	"go/types"
	"slices"
	"strings"
)

// Generated checkpoints of linked structures. A root that reaches further
// than a struct of plain values — a list, a tree, a map of pointers, a
// slice of structs — gets recursive per-type code when every type it can
// reach is one this package can name: its own types declared at package
// level, exported types of the packages it imports, and the unnamed
// pointer, slice, map, array and struct types made of them, with fields
// it can reach (the exported ones only, for other packages' structs).
// Everything else (interfaces, funcs, channels, unsafe pointers, generic
// types, types of function bodies, another package's unexported fields)
// sends the root to the runtime's reflective checkpoint.
//
// The code does what the runtime's checkpoint does, without reflection:
// every object a pointer leads to, every slice's elements up to its
// length and every map is copied at entry into a log, one per type, next
// to its address; the copies are then walked in turn for what they
// reference, each log serving as the queue of its type, so that a long
// list does not deepen the stack. A rollback writes each copy back at its
// address where it differs, and refills each map whose entries differ.
// Locks (and the opaque types of isOpaqueType) are neither copied nor
// written back; a pointer to one is a reference like any other. Atomic
// scalars are copied and written back through their Load and Store; a
// root that reaches an atomic.Value, an atomic.Pointer or a sync.Map goes
// to the runtime, which follows what they hold. A visited set (rt.Visited) is kept for a reference type only
// when the type graph lets two references meet at one object: the type
// lies on a cycle (a list's next, a tree's children), two fields or roots
// lead to it, or it is reached from two roots of one function. Elsewhere
// an object met twice (two entries of one map pointing at one value) is
// saved twice, which restores the same contents twice.

// graphGen collects the types of the generated graph checkpoints of a
// package, and writes their code.
type graphGen struct {
	p *pkgRewriter
	// supported caches graphSupports by type.
	supported map[string]bool
	// ids numbers the types that generated code names (the objects,
	// slices and maps saved, the values walked), in order of first use.
	ids   map[string]int
	types []types.Type
	// roots lists, for each masked function, the types of its roots that
	// are checkpointed here.
	roots [][]types.Type
}

// graph returns the package's graph generator, made on first use.
func (p *pkgRewriter) graph() *graphGen {
	if p.graphs == nil {
		p.graphs = &graphGen{p: p, supported: map[string]bool{}, ids: map[string]int{}}
		if p.genUsed == nil {
			p.genUsed = map[string]bool{}
		}
	}
	return p.graphs
}

// typeKey names a type uniquely within the package's build: package
// paths spelled out.
func typeKey(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Path() })
}

// supports reports whether generated code can checkpoint every value that
// a value of type t reaches.
func (g *graphGen) supports(t types.Type) bool {
	k := typeKey(t)
	if ok, done := g.supported[k]; done {
		return ok
	}
	ok := g.reachable(t, map[string]bool{})
	g.supported[k] = ok
	return ok
}

// reachable is supports without the cache: seen holds the types checked
// in this walk already (the answer is the conjunction over all of them).
func (g *graphGen) reachable(t types.Type, seen map[string]bool) bool {
	k := typeKey(t)
	if seen[k] {
		return true
	}
	seen[k] = true
	if ignoredType(t) {
		return true
	}
	if hasTypeParam(t) || concKindOf(t) == concRef {
		return false
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && !g.nameable(n) {
		return false
	}
	if concKindOf(t) == concScalar {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.UnsafePointer && u.Kind() != types.Invalid
	case *types.Pointer:
		return g.reachable(u.Elem(), seen)
	case *types.Slice:
		return g.reachable(u.Elem(), seen)
	case *types.Array:
		return g.reachable(u.Elem(), seen)
	case *types.Map:
		// The rollback refills a map with clear and compares entries with
		// ==, which a NaN key defeats: the runtime handles the rest.
		return g.p.langAtLeast(goClear) && types.Comparable(u.Key()) && !holdsFloat(u.Key()) &&
			types.Comparable(u.Elem()) && g.reachable(u.Key(), seen) && g.reachable(u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			if f.Name() == "_" {
				continue
			}
			if !f.Exported() && f.Pkg() != g.p.pkg || !g.reachable(f.Type(), seen) {
				return false
			}
		}
		return true
	}
	// Interfaces, funcs, channels.
	return false
}

// nameable reports whether generated code in this package can name n:
// declared at package level, here or, exported, in a package this one
// imports (the compiler knows no other), and not generic.
func (g *graphGen) nameable(n *types.Named) bool {
	obj := n.Obj()
	if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() || n.TypeArgs().Len() > 0 || n.TypeParams().Len() > 0 {
		return false
	}
	if obj.Pkg() == g.p.pkg {
		return true
	}
	return obj.Exported() && slices.Contains(g.p.pkg.Imports(), obj.Pkg())
}

// ignoredType reports the types that checkpoints neither copy nor write
// back: locks, and what stands for something outside the heap.
func ignoredType(t types.Type) bool { return isLockType(t) || isOpaqueType(t) }

// reaches reports whether a value of type t holds references to follow:
// pointers to what is not ignored, slices, maps.
func reaches(t types.Type) bool {
	if ignoredType(t) {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return !ignoredType(u.Elem())
	case *types.Slice, *types.Map:
		return true
	case *types.Array:
		return reaches(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if f := u.Field(i); f.Name() != "_" && reaches(f.Type()) {
				return true
			}
		}
	}
	return false
}

// holdsIgnored reports whether a value of type t holds an ignored value
// or an atomic scalar inline, so that it is copied and restored field by
// field.
func holdsIgnored(t types.Type) bool {
	if ignoredType(t) || concKindOf(t) != concNone {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Array:
		return holdsIgnored(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if f := u.Field(i); f.Name() != "_" && holdsIgnored(f.Type()) {
				return true
			}
		}
	}
	return false
}

// id returns the number of type t in the generated code.
func (g *graphGen) id(t types.Type) int {
	k := typeKey(t)
	if n, ok := g.ids[k]; ok {
		return n
	}
	g.ids[k] = len(g.types)
	g.types = append(g.types, t)
	return len(g.types) - 1
}

// addRoots records the graph roots of one masked function, and returns
// the calls that save them, roots[i] being the expression of types[i].
func (g *graphGen) addRoots(types []types.Type, roots []string) string {
	g.roots = append(g.roots, types)
	var b strings.Builder
	b.WriteString("_atx_k := _atx_graphs.Get(); ")
	for i, t := range types {
		fmt.Fprintf(&b, "_atx_k.root%d(%s); ", g.id(t), roots[i])
	}
	b.WriteString("_atx_k.drain(); ")
	return b.String()
}

// typeExpr spells t in the generated code: a placeholder that the
// generated file replaces with the type's syntax tree (see
// genFile.parseDecls), which names other packages' types by their path.
func (g *graphGen) typeExpr(t types.Type) string {
	return fmt.Sprintf("_atx_T%d", g.id(t))
}

// refNode is a reference type of the type graph: the objects of a type
// (what pointers to it lead to), a slice type (its backing arrays) or a
// map type. Its number is that of the type, its log is the field of
// _atx_graph named by its kind.
type refNode struct {
	kind byte // 'o' objects, 'a' backing arrays, 'm' maps
	id   int
}

// refsOf lists the reference nodes that a value of type t holds inline,
// once per occurrence.
func (g *graphGen) refsOf(t types.Type) []refNode {
	if ignoredType(t) {
		return nil
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		if ignoredType(u.Elem()) {
			return nil
		}
		return []refNode{{'o', g.id(u.Elem())}}
	case *types.Slice:
		return []refNode{{'a', g.id(t)}}
	case *types.Map:
		return []refNode{{'m', g.id(t)}}
	case *types.Array:
		return g.refsOf(u.Elem())
	case *types.Struct:
		var refs []refNode
		for i := range u.NumFields() {
			if f := u.Field(i); f.Name() != "_" {
				refs = append(refs, g.refsOf(f.Type())...)
			}
		}
		return refs
	}
	return nil
}

// next lists the reference nodes that the contents of node n hold.
func (g *graphGen) next(n refNode) []refNode {
	t := g.types[n.id]
	switch n.kind {
	case 'o':
		return g.refsOf(t)
	case 'a':
		return g.refsOf(t.Underlying().(*types.Slice).Elem())
	}
	m := t.Underlying().(*types.Map)
	return append(g.refsOf(m.Key()), g.refsOf(m.Elem())...)
}

// visitedNodes decides which reference nodes keep a visited set: those on
// a cycle of the type graph, those two references of the graph lead to,
// and those that two roots of one function reach.
func (g *graphGen) visitedNodes() map[refNode]bool {
	succ := map[refNode][]refNode{}
	indeg := map[refNode]int{}
	var all []refNode
	var add func(n refNode)
	add = func(n refNode) {
		if _, ok := succ[n]; ok {
			return
		}
		succ[n] = nil
		all = append(all, n)
		nx := g.next(n)
		succ[n] = nx
		for _, m := range nx {
			indeg[m]++
			add(m)
		}
	}
	closure := func(from []refNode) map[refNode]bool {
		seen := map[refNode]bool{}
		var walk func(n refNode)
		walk = func(n refNode) {
			if seen[n] {
				return
			}
			seen[n] = true
			for _, m := range succ[n] {
				walk(m)
			}
		}
		for _, n := range from {
			walk(n)
		}
		return seen
	}
	visited := map[refNode]bool{}
	for _, roots := range g.roots {
		// Within one call, a node is met twice when two references of the
		// roots lead to it, or two roots reach it.
		count := map[refNode]int{}
		for _, t := range roots {
			refs := g.refsOf(t)
			for _, n := range refs {
				add(n)
				count[n]++
			}
			for n := range closure(refs) {
				if !slices.Contains(refs, n) {
					count[n]++
				}
			}
		}
		for n, c := range count {
			if c > 1 {
				visited[n] = true
			}
		}
	}
	for _, n := range all {
		if indeg[n] > 1 || closure(succ[n])[n] {
			visited[n] = true
		}
	}
	return visited
}

// write returns the generated declarations of the graph checkpoints, the
// types they name spelled by typeExpr.
func (g *graphGen) write() (string, error) {
	if g == nil || len(g.roots) == 0 {
		return "", nil
	}
	w := &graphWriter{g: g, visited: g.visitedNodes(), logs: map[refNode]bool{}, walks: map[int]bool{}}
	w.write()
	return w.b.String(), nil
}

// graphWriter writes the code of the graph checkpoints.
type graphWriter struct {
	g       *graphGen
	visited map[refNode]bool
	b       strings.Builder
	// logs and walks hold the logs (reference nodes) and the walk
	// functions (types) written or queued; queue holds those to write.
	logs  map[refNode]bool
	walks map[int]bool
	queue []func()
	// order is the logs in the order of first use: the fields of
	// _atx_graph, its drain and its rollback follow it.
	order []refNode
}

func (w *graphWriter) printf(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

// useLog queues the save method of node n.
func (w *graphWriter) useLog(n refNode) {
	if w.logs[n] {
		return
	}
	w.logs[n] = true
	w.order = append(w.order, n)
	w.queue = append(w.queue, func() { w.saveMethod(n) })
	// The drain walks the copies the log holds.
	t := w.g.types[n.id]
	switch n.kind {
	case 'o':
		if reaches(t) {
			w.useWalk(n.id)
		}
	case 'a':
		if elem := t.Underlying().(*types.Slice).Elem(); reaches(elem) {
			w.useWalk(w.g.id(elem))
		}
	case 'm':
		m := t.Underlying().(*types.Map)
		if reaches(m.Key()) {
			w.useWalk(w.g.id(m.Key()))
		}
		if reaches(m.Elem()) {
			w.useWalk(w.g.id(m.Elem()))
		}
	}
}

// useWalk queues the walk method of type id.
func (w *graphWriter) useWalk(id int) {
	if w.walks[id] {
		return
	}
	w.walks[id] = true
	w.queue = append(w.queue, func() { w.walkMethod(id) })
}

func (w *graphWriter) write() {
	g := w.g
	var roots []int
	for _, rs := range g.roots {
		for _, t := range rs {
			if id := g.id(t); !slices.Contains(roots, id) {
				roots = append(roots, id)
			}
		}
	}
	for _, id := range roots {
		w.printf("\nfunc (k *_atx_graph) root%d(v %s) {\n\tk.walk%d(&v)\n}\n", id, g.typeExpr(g.types[id]), id)
		w.useWalk(id)
	}
	for len(w.queue) > 0 {
		f := w.queue[0]
		w.queue = w.queue[1:]
		f()
	}
	methods := w.b.String()
	w.b.Reset()
	var fields strings.Builder
	fields.WriteString("\n// _atx_graph is the checkpoint of the object graph of a masked call: a\n// log per type of object, slice and map, each entry an original and its\n// copy at entry, and the visited sets of the types that can be shared.\ntype _atx_graph struct {\n")
	for _, n := range w.order {
		fmt.Fprintf(&fields, "\t%c%d []%s\n", n.kind, n.id, w.entryType(n))
		if w.walksContents(n) {
			fmt.Fprintf(&fields, "\tn%c%d int\n", n.kind, n.id)
		}
		if w.visited[n] {
			fmt.Fprintf(&fields, "\tv%c%d %s.Visited\n", n.kind, n.id, rtName)
		}
	}
	fields.WriteString("}\n")
	w.b.WriteString(fields.String())
	w.printf("\n// _atx_graphs holds the checkpoints between calls, emptied: a call\n// reuses the logs and visited sets of an earlier one.\nvar _atx_graphs %s.Pool[_atx_graph]\n", rtName)
	w.printf(`
// _atx_restoreGraph is deferred by a masked function: it rolls the graph
// back when the call failed (an error returned that does not mean done,
// or a panic or runtime.Goexit going through), and puts the emptied
// checkpoint back in the pool.
func _atx_restoreGraph(errp *error, done *bool, site *%s.Site, k *_atx_graph) {
	if errp != nil && site.Fails(*errp) || !*done && %s.Unwinding(site.Func) {
		k.rollback()
	}
	k.reset()
	_atx_graphs.Put(k)
}
`, rtName, rtName)
	w.drain()
	w.rollback()
	w.reset()
	w.b.WriteString(methods)
	w.printf("\nfunc _atx_obj[T any](p *T) _atx_objEntry[T] { return _atx_objEntry[T]{p: p} }\n")
	w.printf("\ntype _atx_objEntry[T any] struct {\n\tp *T\n\tv T\n}\n")
	w.printf("\ntype _atx_pair[T any] struct{ x, c T }\n")
	w.printf(`
// _atx_reuse empties a log for the next call, unless it grew large.
func _atx_reuse[S ~[]E, E any](s S) S {
	if cap(s) > 4096 {
		return nil
	}
	var zero E
	for i := range s {
		s[i] = zero
	}
	return s[:0]
}
`)
}

// entryType is the type of the entries of node n's log.
func (w *graphWriter) entryType(n refNode) string {
	t := w.g.typeExpr(w.g.types[n.id])
	if n.kind == 'o' {
		return "_atx_objEntry[" + t + "]"
	}
	return "_atx_pair[" + t + "]"
}

// walksContents reports whether the saved contents of node n reference
// more of the graph.
func (w *graphWriter) walksContents(n refNode) bool {
	t := w.g.types[n.id]
	switch n.kind {
	case 'o':
		return reaches(t)
	case 'a':
		return reaches(t.Underlying().(*types.Slice).Elem())
	}
	m := t.Underlying().(*types.Map)
	return reaches(m.Key()) || reaches(m.Elem())
}

// walkMethod writes walk<id>, which saves what a value of the type refers
// to.
func (w *graphWriter) walkMethod(id int) {
	t := w.g.types[id]
	w.printf("\nfunc (k *_atx_graph) walk%d(v *%s) {\n", id, w.g.typeExpr(t))
	w.walkValue("(*v)", t, 0)
	w.printf("}\n")
}

// walkValue writes the statements that save what the value x of type t
// refers to.
func (w *graphWriter) walkValue(x string, t types.Type, depth int) {
	if ignoredType(t) {
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		if ignoredType(u.Elem()) {
			return
		}
		n := refNode{'o', w.g.id(u.Elem())}
		w.useLog(n)
		w.printf("\tk.save%c%d(%s)\n", n.kind, n.id, unparen(x))
	case *types.Slice:
		n := refNode{'a', w.g.id(t)}
		w.useLog(n)
		w.printf("\tk.save%c%d(%s)\n", n.kind, n.id, unparen(x))
	case *types.Map:
		n := refNode{'m', w.g.id(t)}
		w.useLog(n)
		w.printf("\tk.save%c%d(%s)\n", n.kind, n.id, unparen(x))
	case *types.Array:
		if !reaches(u.Elem()) {
			return
		}
		i := fmt.Sprintf("i%d", depth)
		w.printf("\tfor %s := range %s {\n", i, x)
		w.walkValue(x+"["+i+"]", u.Elem(), depth+1)
		w.printf("\t}\n")
	case *types.Struct:
		for i := range u.NumFields() {
			if f := u.Field(i); f.Name() != "_" && reaches(f.Type()) {
				w.walkValue(x+"."+f.Name(), f.Type(), depth)
			}
		}
	}
}

// saveMethod writes save<kind><id>, which logs an object, the elements of
// a slice or a map with a copy of its contents, once when the node keeps
// a visited set.
func (w *graphWriter) saveMethod(n refNode) {
	g := w.g
	t := g.types[n.id]
	te := g.typeExpr(t)
	field := fmt.Sprintf("%c%d", n.kind, n.id)
	visit := func(fn, x string) {
		if w.visited[n] {
			w.printf("\tif !%s.%s(&k.v%s, %s) {\n\t\treturn\n\t}\n", rtName, fn, field, x)
		}
	}
	switch n.kind {
	case 'o':
		w.printf("\nfunc (k *_atx_graph) save%s(p *%s) {\n\tif p == nil {\n\t\treturn\n\t}\n", field, te)
		visit("VisitPtr", "p")
		if holdsIgnored(t) {
			w.printf("\tk.%[1]s = append(k.%[1]s, _atx_obj(p))\n\te := &k.%[1]s[len(k.%[1]s)-1]\n", field)
			w.copyValue("e.v", "(*p)", t, 0)
		} else {
			w.printf("\tk.%[1]s = append(k.%[1]s, _atx_objEntry[%[2]s]{p, *p})\n", field, te)
		}
	case 'a':
		elem := t.Underlying().(*types.Slice).Elem()
		w.printf("\nfunc (k *_atx_graph) save%s(s %s) {\n\tif len(s) == 0 {\n\t\treturn\n\t}\n", field, te)
		visit("VisitSlice", "s")
		if holdsIgnored(elem) {
			w.printf("\tc := make(%s, len(s))\n\tfor i := range s {\n", te)
			w.copyValue("c[i]", "s[i]", elem, 1)
			w.printf("\t}\n\tk.%[1]s = append(k.%[1]s, _atx_pair[%[2]s]{s, c})\n", field, te)
		} else {
			w.g.p.genUsed["_atx_cloneSlice"] = true
			w.printf("\tk.%[1]s = append(k.%[1]s, _atx_pair[%[2]s]{s, _atx_cloneSlice(s)})\n", field, te)
		}
	case 'm':
		w.g.p.genUsed["_atx_cloneMap"] = true
		w.printf("\nfunc (k *_atx_graph) save%s(m %s) {\n\tif m == nil {\n\t\treturn\n\t}\n", field, te)
		visit("VisitMap", "m")
		w.printf("\tk.%[1]s = append(k.%[1]s, _atx_pair[%[2]s]{m, _atx_cloneMap(m)})\n", field, te)
	}
	w.printf("}\n")
}

// copyValue writes the statements that copy the value src of type t to
// dst, leaving ignored parts zero: they must not be read, another
// goroutine may be using them. Atomic scalars are read by their Load.
func (w *graphWriter) copyValue(dst, src string, t types.Type, depth int) {
	if ignoredType(t) {
		return
	}
	if concKindOf(t) == concScalar {
		w.g.p.genUsed["_atx_setAtomic"] = true
		w.printf("\t_atx_setAtomic[%s](%s, %s.Load())\n", atomicValueType(t), addr(dst), src)
		return
	}
	if !holdsIgnored(t) {
		w.printf("\t%s = %s\n", dst, src)
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Array:
		i := fmt.Sprintf("i%d", depth)
		w.printf("\tfor %s := range %s {\n", i, src)
		w.copyValue(dst+"["+i+"]", src+"["+i+"]", u.Elem(), depth+1)
		w.printf("\t}\n")
	case *types.Struct:
		for i := range u.NumFields() {
			if f := u.Field(i); f.Name() != "_" {
				w.copyValue(dst+"."+f.Name(), src+"."+f.Name(), f.Type(), depth)
			}
		}
	}
}

// restoreValue writes the statements that write the saved value src of
// type t back to dst where it differs, ignored parts left alone, atomic
// scalars by their Store.
func (w *graphWriter) restoreValue(dst, src string, t types.Type, depth int) {
	if ignoredType(t) {
		return
	}
	used := w.g.p.genUsed
	if concKindOf(t) == concScalar {
		used["_atx_setAtomic"] = true
		w.printf("\t_atx_setAtomic[%s](%s, %s.Load())\n", atomicValueType(t), addr(dst), src)
		return
	}
	if types.Comparable(t) && !holdsIgnored(t) {
		used["_atx_set"] = true
		w.printf("\t_atx_set(%s, %s)\n", addr(dst), src)
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Slice, *types.Map:
		used["_atx_setHeader"] = true
		w.printf("\t_atx_setHeader(%s, %s)\n", addr(dst), src)
	case *types.Array:
		i := fmt.Sprintf("i%d", depth)
		w.printf("\tfor %s := range %s {\n", i, src)
		w.restoreValue(dst+"["+i+"]", src+"["+i+"]", u.Elem(), depth+1)
		w.printf("\t}\n")
	case *types.Struct:
		for i := range u.NumFields() {
			if f := u.Field(i); f.Name() != "_" {
				w.restoreValue(dst+"."+f.Name(), src+"."+f.Name(), f.Type(), depth)
			}
		}
	}
}

// unparen spells a dereference standing alone without its parentheses.
func unparen(x string) string {
	if x == "(*v)" {
		return "*v"
	}
	return x
}

// addr spells the address of x.
func addr(x string) string {
	if x == "(*e.p)" {
		return "e.p"
	}
	return "&" + x
}

// drain writes the walk of the logs' copies: each log is the queue of its
// type, walked from its cursor until no log grows any more.
func (w *graphWriter) drain() {
	if !slices.ContainsFunc(w.order, w.walksContents) {
		w.printf("\nfunc (k *_atx_graph) drain() {}\n")
		return
	}
	w.printf("\nfunc (k *_atx_graph) drain() {\n\tfor again := true; again; {\n\t\tagain = false\n")
	for _, n := range w.order {
		if !w.walksContents(n) {
			continue
		}
		field := fmt.Sprintf("%c%d", n.kind, n.id)
		t := w.g.types[n.id]
		w.printf("\t\tfor ; k.n%[1]s < len(k.%[1]s); k.n%[1]s++ {\n\t\t\tagain = true\n", field)
		switch n.kind {
		case 'o':
			w.printf("\t\t\tk.walk%d(&k.%s[k.n%s].v)\n", n.id, field, field)
		case 'a':
			elem := w.g.id(t.Underlying().(*types.Slice).Elem())
			w.printf("\t\t\tc := k.%[1]s[k.n%[1]s].c\n\t\t\tfor i := range c {\n\t\t\t\tk.walk%[2]d(&c[i])\n\t\t\t}\n", field, elem)
		case 'm':
			m := t.Underlying().(*types.Map)
			key, val := "_", "_"
			var walks string
			if reaches(m.Key()) {
				id := w.g.id(m.Key())
				key = "key"
				walks += fmt.Sprintf("\t\t\t\tk.walk%d(&key)\n", id)
			}
			if reaches(m.Elem()) {
				id := w.g.id(m.Elem())
				val = "val"
				walks += fmt.Sprintf("\t\t\t\tk.walk%d(&val)\n", id)
			}
			if key == "_" {
				w.printf("\t\t\tfor _, %s := range k.%s[k.n%s].c {\n%s\t\t\t}\n", val, field, field, walks)
			} else {
				w.printf("\t\t\tfor %s, %s := range k.%s[k.n%s].c {\n%s\t\t\t}\n", key, val, field, field, walks)
			}
		}
		w.printf("\t\t}\n")
	}
	w.printf("\t}\n}\n")
}

// reset writes the emptying of every log, cursor and visited set.
func (w *graphWriter) reset() {
	w.printf("\nfunc (k *_atx_graph) reset() {\n")
	for _, n := range w.order {
		field := fmt.Sprintf("%c%d", n.kind, n.id)
		w.printf("\tk.%[1]s = _atx_reuse(k.%[1]s)\n", field)
		if w.walksContents(n) {
			w.printf("\tk.n%s = 0\n", field)
		}
		if w.visited[n] {
			w.printf("\tk.v%s.Reset()\n", field)
		}
	}
	w.printf("}\n")
}

// rollback writes the restore of every log.
func (w *graphWriter) rollback() {
	w.printf("\nfunc (k *_atx_graph) rollback() {\n")
	used := w.g.p.genUsed
	for _, n := range w.order {
		field := fmt.Sprintf("%c%d", n.kind, n.id)
		t := w.g.types[n.id]
		switch n.kind {
		case 'o':
			w.printf("\tfor i := range k.%s {\n\t\te := &k.%s[i]\n", field, field)
			w.restoreValue("(*e.p)", "e.v", t, 0)
			w.printf("\t}\n")
		case 'a':
			elem := t.Underlying().(*types.Slice).Elem()
			w.printf("\tfor i := range k.%s {\n\t\te := &k.%s[i]\n", field, field)
			if types.Comparable(elem) && !holdsIgnored(elem) {
				used["_atx_restoreElems"] = true
				used["_atx_set"] = true
				w.printf("\t\t_atx_restoreElems(e.x, e.c)\n")
			} else {
				w.printf("\t\tfor j := range e.c {\n")
				w.restoreValue("e.x[j]", "e.c[j]", elem, 0)
				w.printf("\t\t}\n")
			}
			w.printf("\t}\n")
		case 'm':
			used["_atx_refillMap"] = true
			used["_atx_sameEntries"] = true
			w.printf("\tfor i := range k.%s {\n\t\t_atx_refillMap(k.%s[i].x, k.%s[i].c)\n\t}\n", field, field, field)
		}
	}
	w.printf("}\n")
}
