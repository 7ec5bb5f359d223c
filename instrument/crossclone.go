package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Clones across packages. A masked function that calls an exported
// function of another package in a masking build would have to record
// what the call's receiver and arguments reach (rt.SaveReach), a
// snapshot of a part of its graph per call. That package, rewritten for
// masking too, writes the clone of each exported function it can clone
// (see undo.go) and hands it out as an exported variable that holds the
// clone as a function value, which reflection over its types does not
// see (a method would join the type's method set):
//
//	var X_atx_undo_12_SeenTracker_CheckExpression = (*SeenTracker)._atx_undo_CheckExpression
//
// Its write facts list the function with the letter u. The caller's
// undo log then calls the variable with its log, receiver first, and
// records what the callee writes as the callee's package clone would:
//
//	tracker.X_atx_undo_12_SeenTracker_CheckExpression(&d.seen, &_atx_u, node)

// exportedCloneVar is the name of the variable that holds the clone of
// the function its package's facts name key ("Name" or "Type.Name"):
// the receiver type's name goes with its length, so that no two keys
// give one name.
func exportedCloneVar(key string) string {
	typ, name, ok := strings.Cut(key, ".")
	if !ok {
		return "X_atx_undo_" + key
	}
	return "X_atx_undo_" + strconv.Itoa(len(typ)) + "_" + typ + "_" + name
}

// exportClones writes, into the tail of the file being rewritten, the
// clones of the file's exported functions and methods that can have one
// and the variables that hand them out, and marks them in exported. A
// function that writes outside memory has none: its callers in other
// packages keep what they did before (a record of what the operands
// reach, or the whole checkpoint).
func (p *pkgRewriter) exportClones(f *ast.File) error {
	if p.opts.checkpointsOnly || p.opts.Globals || p.info == nil || !p.genericsAllowed() {
		return nil // no undo log here (see undoSaves)
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		fn, ok := p.info.Defs[fd.Name].(*types.Func)
		if !ok || !fn.Exported() || !exportableClone(fn) || p.writeFactOf(fn) == writesNothing {
			continue // a call of a function that writes nothing records nothing
		}
		key := factKey(fn)
		if key == "" {
			continue
		}
		if p.outsideWriteOf(fd, false) != nil {
			continue // what it writes outside memory its callers' rules must see
		}
		if p.cloneable(fn, fd) != "" || p.cloneClosure(fn, map[*types.Func]bool{}) != "" {
			continue
		}
		if err := p.writeClones(fn); err != nil {
			return err
		}
		value := cloneName(fn.Name())
		if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
			typ, _, _ := strings.Cut(key, ".")
			if _, ptr := recv.Type().(*types.Pointer); ptr {
				value = "(*" + typ + ")." + value
			} else {
				value = typ + "." + value
			}
		}
		p.tail = append(p.tail, fmt.Sprintf("\nvar %s = %s\n", exportedCloneVar(key), value))
		if p.exported == nil {
			p.exported = map[*types.Func]bool{}
		}
		p.exported[fn] = true
	}
	return nil
}

// exportableClone reports whether fn's clone can be handed out as a
// function value: it has no type parameters, nor does its receiver.
func exportableClone(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	if sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 {
		return false
	}
	return true
}

// crossRedirect makes call, a call of fn, an exported function of
// another package that hands out its clone (see exportClones), call that
// clone with the log, and reports whether it could: a call by the name
// the file imports the package under (pkg.F(…)), or of a method declared
// by the receiver's own type (x.M(…)), with no argument list that is one
// call of several results.
func (u *undoScan) crossRedirect(call *ast.CallExpr, fn *types.Func) bool {
	if !u.fe.p.importedClone(fn) {
		return false
	}
	info := u.fe.p.info
	if len(call.Args) == 1 {
		if _, tuple := info.TypeOf(call.Args[0]).(*types.Tuple); tuple {
			return false
		}
	}
	name := u.fe.importName(fn.Pkg())
	if name == "" || !u.namesPackage(name, fn.Pkg(), call.Pos()) {
		return false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	key := factKey(fn.Origin())
	target := name + "." + exportedCloneVar(key)
	log := strings.TrimPrefix(u.ref, "&")
	if u.ref != log {
		log = "&" + log
	}
	fset, tf := u.fe.p.fset, u.fe.tf
	lparen := u.fe.off(call.Lparen) + 1
	selection := info.Selections[sel]
	if selection == nil {
		// pkg.F(…): the variable in F's place, the log first.
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return false
		}
		if _, ok := info.Uses[id].(*types.PkgName); !ok {
			return false
		}
		arg := log
		if len(call.Args) > 0 {
			arg += ", "
		}
		start, end := u.fe.off(sel.Pos()), u.fe.off(sel.Sel.End())
		u.saves = append(u.saves,
			undoSave{off: start, end: end, code: target + lineDirective(fset, tf, end)},
			undoSave{off: lparen, end: lparen, code: arg + lineDirective(fset, tf, lparen)})
		u.fe.crossPkgs = append(u.fe.crossPkgs, fn.Pkg())
		return true
	}
	if selection.Kind() != types.MethodVal || len(selection.Index()) != 1 || !u.sideEffectFree(sel.X) {
		// A promoted method's receiver is another value; a receiver
		// that takes a call has rewrites of its own where V( goes.
		return false
	}
	_, ptrRecv := fn.Type().(*types.Signature).Recv().Type().(*types.Pointer)
	isPtr := isPointer(info.TypeOf(sel.X))
	prefix := ""
	switch {
	case ptrRecv && !isPtr:
		prefix = "&" // the method takes the address of the variable
	case !ptrRecv && isPtr:
		prefix = "*"
	}
	// x.M(a) becomes V(x, log, a): V( before x, after the records
	// inserted before the statement, and ", log, " in the place of .M(.
	arg := ", " + log
	if len(call.Args) > 0 {
		arg += ", "
	}
	start, end := u.fe.off(sel.X.Pos()), u.fe.off(sel.X.End())
	u.saves = append(u.saves,
		undoSave{off: start, end: start, rank: +1, code: target + "(" + prefix + lineDirective(fset, tf, start)},
		undoSave{off: end, end: lparen, code: arg + lineDirective(fset, tf, lparen)})
	u.fe.crossPkgs = append(u.fe.crossPkgs, fn.Pkg())
	return true
}

// importName returns the name under which the function's file imports
// pkg, or "" when it does not, or imports it with a dot or a blank.
func (fe *funcEdits) importName(pkg *types.Package) string {
	f := fe.p.syntax[fe.tf]
	if f == nil {
		return ""
	}
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil || path != pkg.Path() {
			continue
		}
		if spec.Name == nil {
			return pkg.Name()
		}
		if spec.Name.Name == "." || spec.Name.Name == "_" {
			return ""
		}
		return spec.Name.Name
	}
	return ""
}

// namesPackage reports whether name, at pos, still names pkg: no
// variable or other declaration of the function's hides it there. In a
// clone, whose body is the function's own, the scopes are the same.
func (u *undoScan) namesPackage(name string, pkg *types.Package, pos token.Pos) bool {
	scope := u.fe.p.pkg.Scope().Innermost(pos)
	if scope == nil {
		return false
	}
	_, obj := scope.LookupParent(name, pos)
	pn, ok := obj.(*types.PkgName)
	return ok && pn.Imported() == pkg
}

// importedClone reports whether fn, a function of another package,
// hands out its clone, as that package's facts say.
func (p *pkgRewriter) importedClone(fn *types.Func) bool {
	if !exportableClone(fn.Origin()) {
		return false
	}
	p.importedFact(fn) // reads the package's facts
	key := factKey(fn.Origin())
	return key != "" && p.importedClones[fn.Pkg()][key]
}
