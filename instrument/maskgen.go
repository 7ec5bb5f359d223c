package instrument

import (
	"fmt"
	"go/types"
	"sort"
	"strings"
)

// Generated checkpoints. Most masked methods have a receiver that points
// at a struct of plain values: numbers, strings, arrays and structs of
// them, and locks. For such a root the checkpoint is a copy of the struct
// made by generated code, and the rollback copies it back, which costs
// what a hand-written temp-and-swap costs. Roots that reach further
// (pointers, slices, maps, interfaces), roots of generic types and roots
// of types declared inside functions go to the runtime's reflective
// checkpoint, which follows the whole graph.

// rootKind says how a masked function's root is checkpointed.
type rootKind uint8

const (
	rootNothing   rootKind = iota // a value of plain type: the callee's own copy
	rootWhole                     // *T, T plain without locks: _atx_save / _atx_restore
	rootFields                    // *N, N a struct of this package with locks: per-type code
	rootReflected                 // everything else: rt.Mask
)

// classifyRoot decides how to checkpoint a root of type t.
func (p *pkgRewriter) classifyRoot(t types.Type) rootKind {
	if hasTypeParam(t) {
		return rootReflected
	}
	if ptr, ok := t.Underlying().(*types.Pointer); ok && !isNamedPointer(t) {
		elem := ptr.Elem()
		switch plain, locks := plainType(elem); {
		case !plain:
			return rootReflected
		case !locks:
			return rootWhole
		case p.fieldCopyable(elem):
			return rootFields
		}
		return rootReflected
	}
	if plain, locks := plainType(t); plain && !locks {
		return rootNothing
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
// it holds locks (sync and sync/atomic values, which must not be copied
// nor rolled back).
func plainType(t types.Type) (plain, locks bool) {
	if isLockType(t) {
		return true, true
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

// isLockType reports the named types of sync and sync/atomic.
func isLockType(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	switch n.Obj().Pkg().Path() {
	case "sync", "sync/atomic":
		return true
	}
	return false
}

// fieldCopyable reports whether generated code in this package can copy
// a value of type t field by field around its locks: t is a struct type
// declared at package level here, and every field on the way to a lock
// can be named from here.
func (p *pkgRewriter) fieldCopyable(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() != p.pkg || n.Obj().Parent() != p.pkg.Scope() || n.TypeParams().Len() > 0 {
		return false
	}
	_, ok = p.fieldPaths(n.Underlying().(*types.Struct), "")
	return ok
}

// fieldPaths lists the selector paths (".a", ".b.c") to copy a struct by,
// leaving out locks and blank fields; ok is false when a field holding a
// lock belongs to another package and is unexported.
func (p *pkgRewriter) fieldPaths(st *types.Struct, prefix string) (paths []string, ok bool) {
	for i := range st.NumFields() {
		f := st.Field(i)
		if f.Name() == "_" || isLockType(f.Type()) {
			continue
		}
		if !f.Exported() && f.Pkg() != p.pkg {
			return nil, false
		}
		path := prefix + "." + f.Name()
		_, locks := plainType(f.Type())
		inner, isStruct := f.Type().Underlying().(*types.Struct)
		if !locks {
			paths = append(paths, path)
			continue
		}
		if !isStruct {
			// An array of structs with locks: not worth generating.
			return nil, false
		}
		sub, ok := p.fieldPaths(inner, path)
		if !ok {
			return nil, false
		}
		paths = append(paths, sub...)
	}
	return paths, true
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
		p.savers = map[string][]string{}
	}
	if _, done := p.savers[name]; !done {
		paths, _ := p.fieldPaths(n.Underlying().(*types.Struct), "")
		p.savers[name] = paths
	}
	return "_atx_save_" + name, "_atx_restore_" + name
}

// writeSavers writes the generated checkpoint code: the generic whole-value
// copy and the per-type field copies.
func (p *pkgRewriter) writeSavers(b *strings.Builder) {
	if p.wholeSaver {
		b.WriteString("\nfunc _atx_save[T any](p *T) (s T) {\n\tif p != nil {\n\t\ts = *p\n\t}\n\treturn\n}\n")
		b.WriteString("\nfunc _atx_restore[T any](p *T, s *T) {\n\tif p != nil {\n\t\t*p = *s\n\t}\n}\n")
	}
	names := make([]string, 0, len(p.savers))
	for n := range p.savers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		paths := p.savers[n]
		fmt.Fprintf(b, "\n// _atx_save_%s copies the fields of a %s that are not locks.\nfunc _atx_save_%s(p *%s) (s %s) {\n\tif p != nil {\n", n, n, n, n, n)
		for _, path := range paths {
			fmt.Fprintf(b, "\t\ts%s = p%s\n", path, path)
		}
		fmt.Fprintf(b, "\t}\n\treturn\n}\n\nfunc _atx_restore_%s(p *%s, s *%s) {\n\tif p != nil {\n", n, n, n)
		for _, path := range paths {
			fmt.Fprintf(b, "\t\tp%s = s%s\n", path, path)
		}
		b.WriteString("\t}\n}\n")
	}
}
