package instrument

import (
	"go/ast"
	"go/token"
	gotypes "go/types"
)

// Fresh memory. A masked call that fills memory it allocated itself
// (key := make(Key, n); key[i] = …; e := &Err{}; e.pos = …) and returns
// it, in its results or in the error it fails with, must not have those
// stores written back: what the memory held before is nothing (it did
// not exist at entry, and a checkpoint at entry would not have held it),
// and the caller gets what the call built. The undo log records no store
// into a local variable's own fresh memory: a variable of the function's
// body whose every assignment is an allocation (make, new, a composite
// literal or its address, nil, an append to itself, or another such
// variable) and whose address is never taken. A store that reaches further, through a pointer the
// fresh memory holds, is recorded as any other.

// freshVars returns the local variables of body that only ever hold
// memory the function allocated: each is assigned allocations, or the
// values of other such variables, and nothing else.
func freshVars(info *gotypes.Info, body *ast.BlockStmt) map[*gotypes.Var]bool {
	values := map[*gotypes.Var][]ast.Expr{}
	spoilt := map[*gotypes.Var]bool{}
	local := func(e ast.Expr) *gotypes.Var {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		v, ok := info.ObjectOf(id).(*gotypes.Var)
		if !ok || v.Pos() < body.Pos() || v.Pos() >= body.End() {
			return nil
		}
		return v
	}
	spoil := func(e ast.Expr) {
		if v := local(e); v != nil {
			spoilt[v] = true
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				v := local(l)
				switch {
				case v == nil:
				case len(n.Lhs) == len(n.Rhs) && (n.Tok == token.ASSIGN || n.Tok == token.DEFINE):
					values[v] = append(values[v], n.Rhs[i])
				default:
					spoilt[v] = true
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				v := local(id)
				switch {
				case v == nil:
				case len(n.Values) == 0:
					values[v] = append(values[v], nil) // the zero value
				case len(n.Values) == len(n.Names):
					values[v] = append(values[v], n.Values[i])
				default:
					spoilt[v] = true
				}
			}
		case *ast.RangeStmt:
			spoil(n.Key)
			if n.Value != nil {
				spoil(n.Value)
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				spoil(n.X)
			}
		}
		return true
	})
	// A variable declared otherwise (a type switch's, a select's
	// receive) has no values here, and is not fresh.
	fresh := map[*gotypes.Var]bool{}
	for v := range values {
		if !spoilt[v] {
			fresh[v] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for v := range fresh {
			for _, e := range values[v] {
				if !allocation(info, e, v, fresh) {
					delete(fresh, v)
					changed = true
					break
				}
			}
		}
	}
	return fresh
}

// allocation reports whether e, assigned to v, is memory allocated right
// there (make, new, a composite literal or its address, nil, the zero
// value when e is nil), an append to v itself, or a fresh variable.
func allocation(info *gotypes.Info, e ast.Expr, v *gotypes.Var, fresh map[*gotypes.Var]bool) bool {
	if e == nil {
		return true
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return true
	case *ast.UnaryExpr:
		_, ok := ast.Unparen(e.X).(*ast.CompositeLit)
		return e.Op == token.AND && ok
	case *ast.Ident:
		switch o := info.ObjectOf(e).(type) {
		case *gotypes.Nil:
			return true
		case *gotypes.Var:
			return fresh[o]
		}
	case *ast.CallExpr:
		b, ok := calleeObject(info, e.Fun).(*gotypes.Builtin)
		if !ok {
			return false
		}
		switch b.Name() {
		case "make", "new":
			return true
		case "append":
			o, ok := ast.Unparen(e.Args[0]).(*ast.Ident)
			return ok && (info.ObjectOf(o) == v || allocation(info, o, v, fresh))
		}
	}
	return false
}

// inFresh reports whether lhs is a location in memory that the function
// allocated itself and reached without going through a pointer that
// memory holds: an element of a fresh slice, a field of a fresh struct
// pointer, *p of a fresh pointer, and the arrays and struct fields inside
// them.
func (u *undoScan) inFresh(lhs ast.Expr) bool {
	info := u.fe.p.info
	switch e := ast.Unparen(lhs).(type) {
	case *ast.IndexExpr:
		switch t := info.TypeOf(e.X).Underlying().(type) {
		case *gotypes.Slice, *gotypes.Map:
			return u.freshIdent(e.X)
		case *gotypes.Array:
			return u.inFresh(e.X)
		case *gotypes.Pointer:
			_, isArray := t.Elem().Underlying().(*gotypes.Array)
			return isArray && u.freshIdent(e.X)
		}
	case *ast.SelectorExpr:
		sel := info.Selections[e]
		if sel == nil || sel.Kind() != gotypes.FieldVal {
			return false
		}
		if isPointer(info.TypeOf(e.X)) {
			return len(sel.Index()) == 1 && u.freshIdent(e.X)
		}
		return !sel.Indirect() && u.inFresh(e.X)
	case *ast.StarExpr:
		return u.freshIdent(e.X)
	}
	return false
}

// freshIdent reports whether e names a fresh variable (see freshVars).
func (u *undoScan) freshIdent(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := u.fe.p.info.ObjectOf(id).(*gotypes.Var)
	if !ok {
		return false
	}
	if u.fresh == nil {
		u.fresh = freshVars(u.fe.p.info, u.fe.body)
	}
	return u.fresh[v]
}
