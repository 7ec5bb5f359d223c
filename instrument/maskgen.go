package instrument

import (
	"fmt"
	"go/types"
	"maps"
	"slices"
	"strings"
)

// Generated checkpoints. Most masked methods have a receiver that points
// at a struct of plain values: numbers, strings, arrays and structs of
// them, and locks. For such a root the checkpoint is a copy of the struct
// made by generated code, and the rollback copies it back, which costs
// what a hand-written temp-and-swap costs. Roots that reach further
// (pointers, slices, maps, interfaces), roots of generic types and roots
// of types declared inside functions go to the runtime's reflective
// checkpoint, which follows the whole graph, unless generated code can
// name every type they reach (graphgen.go).

// rootKind says how a masked function's root is checkpointed.
type rootKind uint8

const (
	rootNothing   rootKind = iota // a value of plain type: the callee's own copy
	rootWhole                     // *T, T plain without locks: _atx_save / _atx_restore
	rootFields                    // *N, N a struct of this package with locks: per-type code
	rootGraph                     // a graph of types this package can name: graphgen.go
	rootReflected                 // everything else: rt.Mask
)

// classifyRoot decides how to checkpoint a root of type t.
func (p *pkgRewriter) classifyRoot(t types.Type) rootKind {
	if hasTypeParam(t) {
		return rootReflected
	}
	if ptr, ok := t.Underlying().(*types.Pointer); ok && !isNamedPointer(t) {
		elem := ptr.Elem()
		if plainNoLocks(elem) {
			return rootWhole
		}
		if p.fieldCopyable(elem) {
			return rootFields
		}
		return p.graphOrReflected(t)
	}
	if plainNoLocks(t) {
		return rootNothing
	}
	return p.graphOrReflected(t)
}

// graphOrReflected is rootGraph when generated code can checkpoint all a
// root of type t reaches, rootReflected otherwise.
func (p *pkgRewriter) graphOrReflected(t types.Type) rootKind {
	if p.graph().supports(t) {
		return rootGraph
	}
	return rootReflected
}

// isNamedPointer reports a defined type whose underlying type is a
// pointer: its methods are not those of the pointer, but copying works
// the same; keep it simple and let the runtime handle it.
func isNamedPointer(t types.Type) bool {
	_, named := t.(*types.Named)
	return named
}

// plainType reports whether a value of type t holds no reference to
// other memory (so that copying it is a complete checkpoint), and whether
// it holds locks (and other synchronisation state, which must not be
// copied nor rolled back). Concurrent data is not plain: it is copied and
// restored through its methods.
func plainType(t types.Type) (plain, locks bool) {
	if concKindOf(t) != concNone {
		return false, false
	}
	if isLockType(t) {
		return true, true
	}
	if isOpaqueType(t) {
		return false, false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.UnsafePointer, false
	case *types.Array:
		return plainType(u.Elem())
	case *types.Struct:
		plain = true
		for i := range u.NumFields() {
			p, l := plainType(u.Field(i).Type())
			plain, locks = plain && p, locks || l
		}
		return plain, locks
	}
	return false, false
}

// isLockType reports the named types of sync and sync/atomic that are
// locks or other synchronisation state (Mutex, RWMutex, Once, WaitGroup,
// Cond, Pool, ...): all of them but concurrent data (concKindOf).
func isLockType(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	switch n.Obj().Pkg().Path() {
	case "sync", "sync/atomic":
		return concKindOf(t) == concNone
	}
	return false
}

// concKind is the kind of a type of concurrent data, which is data like
// any other: compared by what it holds, restored by its own stores.
type concKind uint8

const (
	concNone   concKind = iota
	concScalar          // atomic.Bool, Int32, Int64, Uint32, Uint64, Uintptr
	concRef             // atomic.Value, atomic.Pointer[T], sync.Map
)

// concKindOf returns the concurrent kind of t. Generated checkpoints
// copy and restore a scalar through its Load and Store
// (_atx_setAtomic, instantiated with atomicValueType); what an atomic.Value, an atomic.Pointer or a
// sync.Map holds is left to the runtime's checkpoint, which follows it.
func concKindOf(t types.Type) concKind {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return concNone
	}
	name := n.Obj().Name()
	switch n.Obj().Pkg().Path() {
	case "sync/atomic":
		switch name {
		case "Bool", "Int32", "Int64", "Uint32", "Uint64", "Uintptr":
			return concScalar
		case "Value", "Pointer":
			return concRef
		}
	case "sync":
		if name == "Map" {
			return concRef
		}
	}
	return concNone
}

// isOpaqueType reports the standard library's types that stand for
// something outside the heap (open files and connections, processes,
// runtime timers, type descriptors): a copy of one is no checkpoint, and
// writing it back would corrupt the live object. A root that reaches one
// goes to the runtime's checkpoint, which compares it by identity and never
// writes it back. The set is the runtime's (rt.isOpaqueType); only those
// a user package can name matter here, and none of them is a plain value
// today, so this is a guard against a platform or release where one is.
func isOpaqueType(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	name := n.Obj().Name()
	switch n.Obj().Pkg().Path() {
	case "os":
		return name == "File" || name == "Root" || name == "Process"
	case "crypto/tls":
		return name == "Conn"
	case "net/http":
		return name == "Transport" || name == "Server"
	case "time":
		return name == "Timer" || name == "Ticker"
	case "runtime":
		return name == "Pinner"
	}
	return false
}

// fieldCopyable reports whether generated code in this package can
// checkpoint a value of type t field by field: t is a struct type declared
// at package level here, and each of its fields (and of its inline
// structs) is a plain value, a lock, an atomic scalar, or a slice, map or
// pointer of plain values, reachable by names this package can write.
func (p *pkgRewriter) fieldCopyable(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() != p.pkg || n.Obj().Parent() != p.pkg.Scope() || n.TypeParams().Len() > 0 {
		return false
	}
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	_, ok = p.fieldCopies(st, "")
	return ok
}

// copyKind is how one field is checkpointed.
type copyKind uint8

const (
	copyValue   copyKind = iota // s.f = p.f
	copySlice                   // and the elements up to len
	copyMap                     // and the entries
	copyPointee                 // and the pointed-to value
	copyAtomic                  // an atomic scalar, by its Load and Store
)

// atomicValueType spells the type of what an atomic scalar of type t
// holds: the type argument of _atx_setAtomic, written out because
// before go1.21 it cannot be inferred from the interface argument.
func atomicValueType(t types.Type) string {
	switch types.Unalias(t).(*types.Named).Obj().Name() {
	case "Bool":
		return "bool"
	case "Int32":
		return "int32"
	case "Int64":
		return "int64"
	case "Uint32":
		return "uint32"
	case "Uint64":
		return "uint64"
	}
	return "uintptr"
}

// fieldCopy is one field of a per-type checkpoint.
type fieldCopy struct {
	path string // selector path from the struct: ".a", ".b.c"
	kind copyKind
	// value is, for copyAtomic, the type of the value the field holds.
	value string
}

// fieldCopies lists how to checkpoint the fields of a struct, locks and
// blank fields left out; ok is false when a field is out of reach of
// generated code (see fieldCopyable).
func (p *pkgRewriter) fieldCopies(st *types.Struct, prefix string) (copies []fieldCopy, ok bool) {
	for i := range st.NumFields() {
		f := st.Field(i)
		if f.Name() == "_" || isLockType(f.Type()) {
			continue
		}
		if !f.Exported() && f.Pkg() != p.pkg {
			return nil, false
		}
		path := prefix + "." + f.Name()
		t := f.Type()
		switch concKindOf(t) {
		case concScalar:
			copies = append(copies, fieldCopy{path, copyAtomic, atomicValueType(t)})
			continue
		case concRef:
			return nil, false
		}
		if plainNoLocks(t) {
			copies = append(copies, fieldCopy{path: path, kind: copyValue})
			continue
		}
		switch u := t.Underlying().(type) {
		case *types.Struct:
			sub, ok := p.fieldCopies(u, path)
			if !ok {
				return nil, false
			}
			copies = append(copies, sub...)
			continue
		case *types.Slice:
			if plainNoLocks(u.Elem()) {
				copies = append(copies, fieldCopy{path: path, kind: copySlice})
				continue
			}
		case *types.Map:
			// The rollback refills a map with clear, and looks its keys
			// up, which a NaN key defeats: the runtime handles the rest.
			if p.langAtLeast(goClear) && plainNoLocks(u.Key()) && !holdsFloat(u.Key()) && plainNoLocks(u.Elem()) {
				copies = append(copies, fieldCopy{path: path, kind: copyMap})
				continue
			}
		case *types.Pointer:
			if !isNamedPointer(t) && plainNoLocks(u.Elem()) {
				copies = append(copies, fieldCopy{path: path, kind: copyPointee})
				continue
			}
		}
		return nil, false
	}
	return copies, true
}

// plainNoLocks reports a type whose values a plain copy checkpoints
// completely: no references, no locks, no type parameters.
func plainNoLocks(t types.Type) bool {
	plain, locks := plainType(t)
	return plain && !locks && !hasTypeParam(t)
}

// holdsFloat reports whether a plain value of type t holds a float or a
// complex number, which may be a NaN.
func holdsFloat(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsFloat|types.IsComplex) != 0
	case *types.Array:
		return holdsFloat(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if holdsFloat(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

// hasTypeParam reports whether t mentions a type parameter.
func hasTypeParam(t types.Type) bool {
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Pointer:
		return hasTypeParam(t.Elem())
	case *types.Slice:
		return hasTypeParam(t.Elem())
	case *types.Array:
		return hasTypeParam(t.Elem())
	case *types.Map:
		return hasTypeParam(t.Key()) || hasTypeParam(t.Elem())
	case *types.Chan:
		return hasTypeParam(t.Elem())
	case *types.Named:
		args := t.TypeArgs()
		for i := range args.Len() {
			if hasTypeParam(args.At(i)) {
				return true
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if hasTypeParam(t.Field(i).Type()) {
				return true
			}
		}
	case *types.Signature, *types.Interface:
		return false
	}
	return false
}

// reachesChan reports whether a value of type t can reach a channel:
// a channel's contents cannot be rolled back.
func reachesChan(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Chan:
		return true
	case *types.Pointer:
		return reachesChan(u.Elem(), seen)
	case *types.Slice:
		return reachesChan(u.Elem(), seen)
	case *types.Array:
		return reachesChan(u.Elem(), seen)
	case *types.Map:
		return reachesChan(u.Key(), seen) || reachesChan(u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			if reachesChan(u.Field(i).Type(), seen) {
				return true
			}
		}
	}
	return false
}

// typeSaver returns the names of the generated save and restore functions
// of struct type t (rootFields), generating them on first use.
func (p *pkgRewriter) typeSaver(t types.Type) (save, restore string) {
	n := types.Unalias(t).(*types.Named)
	name := n.Obj().Name()
	if p.savers == nil {
		p.savers = map[string][]fieldCopy{}
	}
	if _, done := p.savers[name]; !done {
		copies, _ := p.fieldCopies(n.Underlying().(*types.Struct), "")
		p.savers[name] = copies
		for _, c := range copies {
			p.copyKinds |= 1 << c.kind
		}
	}
	return "_atx_save_" + name, "_atx_restore_" + name
}

// genHelper is a generic helper function of the generated checkpoints.
type genHelper struct{ name, code string }

// Generic helpers of the generated checkpoints, in the order they are
// written. They are written out only when used: the generated file
// imports nothing but the runtime. A rollback writes back only what
// differs from the checkpoint, so that a failed call that changed nothing
// writes nothing, and goroutines reading the same objects meanwhile do not
// race with it: plain values are compared with == (a NaN, never equal to
// itself, by its bits), slice and map headers by their bits, elements and
// entries one by one.
var genHelpers = []genHelper{
	{"_atx_set", `
func _atx_set[T comparable](p *T, v T) {
	if *p != v && (*p == *p || !` + rtName + `.SameBits(p, &v)) {
		*p = v
	}
}
`},
	{"_atx_cloneSlice", `
func _atx_cloneSlice[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	c := make(S, len(s))
	copy(c, s)
	return c
}
`},
	{"_atx_setHeader", `
func _atx_setHeader[T any](p *T, v T) {
	if !` + rtName + `.SameBits(p, &v) {
		*p = v
	}
}
`},
	{"_atx_restoreElems", `
func _atx_restoreElems[S ~[]E, E comparable](s, saved S) {
	for i := range saved {
		_atx_set(&s[i], saved[i])
	}
}
`},
	{"_atx_cloneMap", `
func _atx_cloneMap[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return nil
	}
	c := make(M, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
`},
	{"_atx_refillMap", `
func _atx_refillMap[M ~map[K]V, K, V comparable](m, saved M) {
	if m == nil || _atx_sameEntries(m, saved) {
		return
	}
	clear(m)
	for k, v := range saved {
		m[k] = v
	}
}
`},
	{"_atx_sameEntries", `
func _atx_sameEntries[M ~map[K]V, K, V comparable](m, saved M) bool {
	if len(m) != len(saved) {
		return false
	}
	for k, v := range saved {
		w, ok := m[k]
		if !ok || w != v && (w == w || !` + rtName + `.SameBits(&w, &v)) {
			return false
		}
	}
	return true
}
`},
	{"_atx_setAtomic", `
func _atx_setAtomic[T comparable](p interface {
	Load() T
	Store(T)
}, v T) {
	if p.Load() != v {
		p.Store(v)
	}
}
`},
	{"_atx_clonePtr", `
func _atx_clonePtr[E any](p *E) *E {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
`},
	{"_atx_restorePtr", `
func _atx_restorePtr[E comparable](p, saved *E) {
	if p != nil {
		_atx_set(p, *saved)
	}
}
`},
}

// helpersOf lists the helpers that the code of each copy kind calls.
var helpersOf = map[copyKind][]string{
	copyValue:   {"_atx_set"},
	copySlice:   {"_atx_set", "_atx_cloneSlice", "_atx_setHeader", "_atx_restoreElems"},
	copyMap:     {"_atx_cloneMap", "_atx_setHeader", "_atx_refillMap", "_atx_sameEntries"},
	copyPointee: {"_atx_set", "_atx_clonePtr", "_atx_restorePtr"},
	copyAtomic:  {"_atx_setAtomic"},
}

// copyCode is what a per-type checkpoint does for a field: the save copies
// the field itself (s) and what a slice, map or pointer refers to (c); the
// restore writes back the field, then the elements, entries or pointee.
// %[1]s is the field's path.
var copyCode = map[copyKind]struct{ save, restore string }{
	copyValue:   {"", "\t\t_atx_set(&p%[1]s, s%[1]s)\n"},
	copySlice:   {"\t\tc%[1]s = _atx_cloneSlice(p%[1]s)\n", "\t\t_atx_setHeader(&p%[1]s, s%[1]s)\n\t\t_atx_restoreElems(s%[1]s, c%[1]s)\n"},
	copyMap:     {"\t\tc%[1]s = _atx_cloneMap(p%[1]s)\n", "\t\t_atx_setHeader(&p%[1]s, s%[1]s)\n\t\t_atx_refillMap(s%[1]s, c%[1]s)\n"},
	copyPointee: {"\t\tc%[1]s = _atx_clonePtr(p%[1]s)\n", "\t\t_atx_set(&p%[1]s, s%[1]s)\n\t\t_atx_restorePtr(s%[1]s, c%[1]s)\n"},
	copyAtomic:  {"\t\t_atx_setAtomic[%[2]s](&s%[1]s, p%[1]s.Load())\n", "\t\t_atx_setAtomic[%[2]s](&p%[1]s, s%[1]s.Load())\n"},
}

// rollbackGuard opens a generated restore: it is deferred by the masked
// function, and restores only when the call failed (errp, its error
// result, nil when it has none, holds an error that does not mean done:
// see rt.Site.Fails; done, whether it passed a return). A
// deferred call of a generated function, rather than of a function
// literal, leaves the numbering of the user's literals, and so their
// names in stack traces, as they are in a build without atomicx.
const rollbackGuard = "\tif !(errp != nil && site.Fails(*errp) || !*done && " + rtName + ".Unwinding(site.Func)) {\n\t\treturn\n\t}\n"

// writeSavers writes the generated checkpoint code: the generic whole-value
// copy and the per-type field copies. A per-type save returns two values
// of the type: s holds the fields as they were, c the copies of what the
// slices, maps and pointers among them referred to.
func (p *pkgRewriter) writeSavers(b *strings.Builder) {
	used := maps.Clone(p.genUsed)
	if used == nil {
		used = map[string]bool{}
	}
	if p.wholeSaver {
		used["_atx_set"] = true
		b.WriteString("\nfunc _atx_save[T any](p *T) (s T) {\n\tif p != nil {\n\t\ts = *p\n\t}\n\treturn\n}\n")
		fmt.Fprintf(b, "\nfunc _atx_restore[T comparable](errp *error, done *bool, site *%s.Site, p *T, s *T) {\n%s\tif p != nil {\n\t\t_atx_set(p, *s)\n\t}\n}\n", rtName, rollbackGuard)
	}
	for k, names := range helpersOf {
		if p.copyKinds&(1<<k) != 0 {
			for _, n := range names {
				used[n] = true
			}
		}
	}
	for _, h := range genHelpers {
		if used[h.name] {
			b.WriteString(h.code)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(p.savers)) {
		copies := p.savers[n]
		fmt.Fprintf(b, "\nfunc _atx_save_%s(p *%s) (s, c %s) {\n\tif p != nil {\n", n, n, n)
		for _, f := range copies {
			if f.kind != copyAtomic {
				fmt.Fprintf(b, "\t\ts%[1]s = p%[1]s\n", f.path)
			}
			if code := copyCode[f.kind].save; code != "" {
				fmt.Fprintf(b, code, f.path, f.value)
			}
		}
		fmt.Fprintf(b, "\t}\n\treturn\n}\n\nfunc _atx_restore_%s(errp *error, done *bool, site *%s.Site, p, s, c *%s) {\n%s\tif p != nil {\n", n, rtName, n, rollbackGuard)
		for _, f := range copies {
			fmt.Fprintf(b, copyCode[f.kind].restore, f.path, f.value)
		}
		b.WriteString("\t}\n}\n")
	}
}
